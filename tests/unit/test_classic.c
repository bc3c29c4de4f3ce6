/* The classic generator (seeds/000): determinism, the properties the issue
 * names over 1,000 seeds per corridor style, and the style contract
 * (follow and cleanup leave fewer double-wide corridors than plain). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

#define SEEDS 1000

static dg_level *make(const char *style, uint64_t seed, const char *extra_name,
                      const char *extra_value) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "corridor_style", style, &err), 0, "%s", err.message);
  if (extra_name != NULL)
    cr_assert_eq(dg_request_set_text(&request, extra_name, extra_value, &err), 0, "%s",
                 err.message);
  request.seed = seed;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "seed %llu: %s",
               (unsigned long long)seed, err.message);
  return level;
}

static char *dump(const dg_level *level) {
  char *text = NULL;
  cr_assert_eq(dg_level_dump_json(level, &text, NULL), 0);
  return text;
}

Test(classic, same_seed_same_bytes) {
  static const char *const styles[] = {"follow", "cleanup", "plain"};
  for (int s = 0; s < 3; s++)
    for (uint64_t seed = 1; seed <= 20; seed++) {
      dg_level *a = make(styles[s], seed, NULL, NULL), *b = make(styles[s], seed, NULL, NULL);
      char *ja = dump(a), *jb = dump(b);
      cr_assert_str_eq(ja, jb, "%s seed %llu differs", styles[s], (unsigned long long)seed);
      free(ja);
      free(jb);
      dg_level_free(a);
      dg_level_free(b);
    }
}

Test(classic, different_seeds_differ) {
  dg_level *a = make("follow", 1, NULL, NULL), *b = make("follow", 2, NULL, NULL);
  char *ja = dump(a), *jb = dump(b);
  cr_assert(strcmp(ja, jb) != 0);
  free(ja);
  free(jb);
  dg_level_free(a);
  dg_level_free(b);
}

static bool walkable(const dg_grid *grid, int x, int y) {
  return dg_grid_contains(grid, x, y) && dg_tile_walkable(dg_grid_get(grid, x, y));
}

/* Flood fill from room 0 over walkable tiles, independent of the library's
 * own metrics; returns the reached map (caller frees). */
static unsigned char *flood_from_first_room(const dg_level *level) {
  const dg_grid *grid = &level->grid;
  int cells = grid->width * grid->height;
  unsigned char *reached = calloc((size_t)cells, 1);
  int *queue = malloc((size_t)cells * sizeof *queue);
  int head = 0, tail = 0;
  const dg_room *first = &level->rooms[0];
  reached[first->y * grid->width + first->x] = 1;
  queue[tail++] = first->y * grid->width + first->x;
  while (head < tail) {
    int c = queue[head++], x = c % grid->width, y = c / grid->width;
    const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    for (int d = 0; d < 4; d++) {
      int nx = x + dx[d], ny = y + dy[d];
      if (walkable(grid, nx, ny) && !reached[ny * grid->width + nx]) {
        reached[ny * grid->width + nx] = 1;
        queue[tail++] = ny * grid->width + nx;
      }
    }
  }
  free(queue);
  return reached;
}

static void check_rooms(const dg_level *level, uint64_t seed) {
  const dg_grid *grid = &level->grid;
  int gap = dg_param_int(&level->params, dg_algorithm_param_index(level->algorithm, "room_gap"));
  cr_assert_geq(level->room_count, 1, "seed %llu: no room", (unsigned long long)seed);
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *a = &level->rooms[i];
    /* Walls inside the map, one tile off the edge. */
    cr_assert(a->x - 1 >= 1 && a->y - 1 >= 1 && a->x + a->width <= grid->width - 2 &&
                  a->y + a->height <= grid->height - 2,
              "seed %llu: room %d out of bounds", (unsigned long long)seed, i);
    for (int y = a->y; y < a->y + a->height; y++)
      for (int x = a->x; x < a->x + a->width; x++)
        /* Floor, or the placement pass's stairs on it. */
        cr_assert(dg_grid_get(grid, x, y) == DG_TILE_FLOOR ||
                  dg_grid_get(grid, x, y) == DG_TILE_STAIRS_UP ||
                  dg_grid_get(grid, x, y) == DG_TILE_STAIRS_DOWN);
    for (int j = i + 1; j < level->room_count; j++) {
      const dg_room *b = &level->rooms[j];
      /* Wall boxes at least `gap` tiles apart. */
      bool apart = a->x + a->width + gap < b->x - 1 || b->x + b->width + gap < a->x - 1 ||
                   a->y + a->height + gap < b->y - 1 || b->y + b->height + gap < a->y - 1;
      cr_assert(apart, "seed %llu: rooms %d and %d overlap", (unsigned long long)seed, i, j);
    }
  }
}

static void check_doors(const dg_level *level, uint64_t seed) {
  const dg_grid *grid = &level->grid;
  for (int d = 0; d < level->door_count; d++) {
    const dg_door *door = &level->doors[d];
    const dg_room *room = &level->rooms[door->room];
    int left = room->x - 1, right = room->x + room->width;
    int top = room->y - 1, bottom = room->y + room->height;
    bool on_side = (door->x == left || door->x == right) && door->y > top && door->y < bottom;
    bool on_top = (door->y == top || door->y == bottom) && door->x > left && door->x < right;
    cr_assert(on_side || on_top, "seed %llu: door (%d,%d) not on a wall or on a corner",
              (unsigned long long)seed, door->x, door->y);
    dg_tile tile = dg_grid_get(grid, door->x, door->y);
    cr_assert(tile == (door->secret ? DG_TILE_SECRET_DOOR : DG_TILE_DOOR));
    int out_x = door->x + (door->x == left ? -1 : door->x == right ? 1 : 0);
    int out_y = door->y + (door->y == top ? -1 : door->y == bottom ? 1 : 0);
    cr_assert(walkable(grid, out_x, out_y), "seed %llu: door (%d,%d) leads nowhere",
              (unsigned long long)seed, door->x, door->y);
  }
}

static void check_closets(const dg_level *level, uint64_t seed) {
  json_t *object = dg_level_to_json(level);
  json_t *closets = json_object_get(object, "closets");
  cr_assert(json_is_array(closets));
  const dg_grid *grid = &level->grid;
  size_t i;
  json_t *closet;
  json_array_foreach(closets, i, closet) {
    int x = (int)json_integer_value(json_object_get(closet, "x"));
    int y = (int)json_integer_value(json_object_get(closet, "y"));
    int mx = (int)json_integer_value(json_object_get(closet, "middle_x"));
    int my = (int)json_integer_value(json_object_get(closet, "middle_y"));
    int cx = (int)json_integer_value(json_object_get(closet, "chest_x"));
    int cy = (int)json_integer_value(json_object_get(closet, "chest_y"));
    bool sealed = strcmp(json_string_value(json_object_get(closet, "middle")), "stone") == 0;
    /* Three squares in a straight line, length 3. */
    cr_assert(abs(mx - x) + abs(my - y) == 1 && cx - mx == mx - x && cy - my == my - y,
              "seed %llu: closet not straight", (unsigned long long)seed);
    cr_assert_eq(dg_grid_get(grid, x, y), DG_TILE_CORRIDOR);
    cr_assert_eq(dg_grid_get(grid, mx, my), sealed ? DG_TILE_STONE : DG_TILE_SECRET_CORRIDOR);
    cr_assert_eq(dg_grid_get(grid, cx, cy), DG_TILE_CHEST);
    /* The chest square is a dead end: its only walkable neighbour is the middle. */
    int neighbours = walkable(grid, cx + 1, cy) + walkable(grid, cx - 1, cy) +
                     walkable(grid, cx, cy + 1) + walkable(grid, cx, cy - 1);
    cr_assert_eq(neighbours, sealed ? 0 : 1, "seed %llu: chest at (%d,%d) is not closed in",
                 (unsigned long long)seed, cx, cy);
    bool listed = false;
    for (int o = 0; o < level->object_count; o++)
      listed |= level->objects[o].x == cx && level->objects[o].y == cy &&
                strcmp(level->objects[o].kind, "chest") == 0;
    cr_assert(listed, "seed %llu: chest contents not listed", (unsigned long long)seed);
  }
  cr_assert_eq(json_array_size(closets), (size_t)level->object_count);
  json_decref(object);
}

static void check_graph(const dg_level *level, uint64_t seed) {
  const dg_graph *graph = &level->graph;
  int *component = malloc((size_t)graph->node_count * sizeof *component);
  int count = 0;
  cr_assert_eq(dg_graph_components(graph, component, &count), 0);
  /* The graph is traced from the map, so its components are the map's. */
  cr_assert_eq(count, level->metrics.components, "seed %llu: graph has %d components, map %d",
               (unsigned long long)seed, count, level->metrics.components);
  for (int r = 0; r < level->room_count; r++) {
    cr_assert_str_eq(graph->nodes[r].kind, "room");
    cr_assert_eq(graph->nodes[r].room, r);
    cr_assert_eq(component[r], component[0], "seed %llu: room node %d apart",
                 (unsigned long long)seed, r);
  }
  for (int e = 0; e < graph->edge_count; e++)
    cr_assert(graph->edges[e].length >= 1);
  free(component);
}

static void check_level(const dg_level *level, uint64_t seed) {
  check_rooms(level, seed);
  check_doors(level, seed);
  check_closets(level, seed);
  check_graph(level, seed);
  cr_assert(level->metrics.connected, "seed %llu: metrics say not connected",
            (unsigned long long)seed);
  unsigned char *reached = flood_from_first_room(level);
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    cr_assert(reached[room->y * level->grid.width + room->x], "seed %llu: room %d unreachable",
              (unsigned long long)seed, r);
  }
  free(reached);
}

static double properties_over_seeds(const char *style) {
  long double_wide = 0;
  for (uint64_t seed = 1; seed <= SEEDS; seed++) {
    dg_level *level = make(style, seed, NULL, NULL);
    check_level(level, seed);
    double_wide += level->metrics.double_wide;
    dg_level_free(level);
  }
  return (double)double_wide / SEEDS;
}

Test(classic, properties_follow, .timeout = 120) {
  properties_over_seeds("follow");
}

Test(classic, properties_cleanup, .timeout = 120) {
  properties_over_seeds("cleanup");
}

Test(classic, properties_plain, .timeout = 120) {
  properties_over_seeds("plain");
}

Test(classic, properties_large_maps, .timeout = 120) {
  for (uint64_t seed = 1; seed <= 50; seed++) {
    dg_request request;
    dg_request_init(&request, dg_algorithm_find("classic"));
    dg_error err = {0};
    cr_assert_eq(dg_request_set_text(&request, "width", "200", &err), 0);
    cr_assert_eq(dg_request_set_text(&request, "height", "200", &err), 0);
    cr_assert_eq(dg_request_set_text(&request, "rooms_max", "80", &err), 0);
    cr_assert_eq(dg_request_set_text(&request, "rooms_min", "60", &err), 0);
    cr_assert_eq(dg_request_set_text(&request, "closet_chance", "1", &err), 0);
    request.seed = seed;
    request.seed_given = true;
    dg_level *level = NULL;
    cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
    check_level(level, seed);
    cr_assert_geq(level->room_count, 40, "seed %llu: only %d rooms on 200x200",
                  (unsigned long long)seed, level->room_count);
    dg_level_free(level);
  }
}

/* The reason follow and cleanup exist: fewer double-wide corridors. */
Test(classic, styles_reduce_double_wide, .timeout = 120) {
  double follow = 0, cleanup = 0, plain = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    dg_level *f = make("follow", seed, NULL, NULL), *c = make("cleanup", seed, NULL, NULL),
             *p = make("plain", seed, NULL, NULL);
    follow += f->metrics.double_wide;
    cleanup += c->metrics.double_wide;
    plain += p->metrics.double_wide;
    /* Same rooms whatever the style: the layout stream is not touched by digging. */
    cr_assert_eq(f->room_count, p->room_count);
    dg_level_free(f);
    dg_level_free(c);
    dg_level_free(p);
  }
  cr_assert_lt(follow, plain * 0.5, "follow %.0f vs plain %.0f", follow, plain);
  cr_assert_lt(cleanup, plain * 0.5, "cleanup %.0f vs plain %.0f", cleanup, plain);
}

Test(classic, closets_appear_with_chance_one) {
  int closets = 0;
  for (uint64_t seed = 1; seed <= 100; seed++) {
    dg_level *level = make("follow", seed, "closet_chance", "1");
    check_closets(level, seed);
    closets += level->object_count;
    dg_level_free(level);
  }
  cr_assert_gt(closets, 20, "only %d closets in 100 levels at chance 1", closets);
  for (uint64_t seed = 1; seed <= 100; seed++) {
    dg_level *level = make("follow", seed, "closet_chance", "0");
    cr_assert_eq(level->object_count, 0);
    dg_level_free(level);
  }
}

Test(classic, cancel_and_deadline) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  request.seed = 1;
  request.seed_given = true;
  dg_cancel cancel;
  dg_cancel_init(&cancel, 0);
  dg_cancel_request(&cancel);
  dg_level *level = NULL;
  dg_error err = {0};
  cr_assert_eq(dg_generate(NULL, &request, &cancel, &level, &err), DG_ECANCELED);
  cr_assert_null(level);
  dg_cancel_init(&cancel, 1); /* a deadline long past */
  cr_assert_eq(dg_generate(NULL, &request, &cancel, &level, &err), DG_ETIMEDOUT);
  cr_assert_str_eq(err.field, "deadline_ms");
  cr_assert_null(level);
}

/* A deadline stops generation part-way, not only before it starts: this
 * request takes seconds (most of it placing and joining 2,000 rooms and
 * measuring a graph of tens of thousands of edges). */
Test(classic, deadline_stops_a_long_generation, .timeout = 60) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  static const char *const params[][2] = {{"width", "1000"},
                                          {"height", "1000"},
                                          {"rooms_max", "2000"},
                                          {"rooms_min", "2000"},
                                          {"room_gap", "1"},
                                          {"corridor_style", "cleanup"},
                                          {"placement_attempts", "10000"}};
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
    cr_assert_eq(dg_request_set_text(&request, params[i][0], params[i][1], &err), 0, "%s",
                 err.message);
  request.seed = 3;
  request.seed_given = true;
  dg_cancel cancel;
  uint64_t start = dg_monotonic_ns();
  dg_cancel_init(&cancel, start + 30 * 1000000ull);
  dg_level *level = NULL;
  int rc = dg_generate(NULL, &request, &cancel, &level, &err);
  double elapsed_ms = (double)(dg_monotonic_ns() - start) / 1e6;
  cr_assert_eq(rc, DG_ETIMEDOUT, "rc %d after %.0f ms", rc, elapsed_ms);
  cr_assert_null(level);
  /* Polled between rooms, joins, cleanup passes and path queries: the
   * overshoot is one such step, far below the full run. */
  cr_assert_lt(elapsed_ms, 1000.0, "stopped only after %.0f ms", elapsed_ms);
}
