/* metrics.cycles means loops the map really has, for every algorithm. The
 * count is checked against a recount written here from the definition in
 * docs/level-format.md, on tiles rather than through the library's trace:
 * every room (its tiles and doors) is one vertex, every junction blob
 * (open tiles with three or more walkable neighbours or inside a 2x2 block
 * of open tiles, merged when they touch) is one vertex, every other
 * walkable tile is a vertex of its own; tiles side by side are an edge
 * (once per pair of merged vertices). Loops are edges - vertices +
 * components. Authored levels, whose grid only draws a 3D level, count the
 * graph's loops and take connected / components from the graph. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

static int find(int *parent, int i) {
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

static bool join(int *parent, int a, int b) {
  a = find(parent, a);
  b = find(parent, b);
  if (a == b)
    return false;
  parent[a < b ? b : a] = a < b ? a : b;
  return true;
}

/* The room of each tile: the generator's map when the level keeps one,
 * else the rooms' rectangles and the doors. */
static int *room_map(const dg_level *level) {
  int width = level->grid.width, height = level->grid.height;
  int *room = malloc((size_t)width * height * sizeof *room);
  cr_assert_not_null(room);
  if (level->room_of != NULL) {
    memcpy(room, level->room_of, (size_t)width * height * sizeof *room);
    return room;
  }
  for (int i = 0; i < width * height; i++)
    room[i] = -1;
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *rect = &level->rooms[r];
    for (int y = rect->y; y < rect->y + rect->height; y++)
      for (int x = rect->x; x < rect->x + rect->width; x++)
        if (x >= 0 && y >= 0 && x < width && y < height)
          room[y * width + x] = r;
  }
  for (int d = 0; d < level->door_count; d++)
    room[level->doors[d].y * width + level->doors[d].x] = level->doors[d].room;
  return room;
}

typedef struct tiles {
  const dg_grid *grid;
  const int *room;
} tiles;

static bool walkable(const tiles *t, int x, int y) {
  return x >= 0 && y >= 0 && x < t->grid->width && y < t->grid->height &&
         dg_tile_walkable((dg_tile)t->grid->tiles[y * t->grid->width + x]);
}

static bool open_at(const tiles *t, int x, int y) {
  return walkable(t, x, y) && t->room[y * t->grid->width + x] < 0;
}

static bool blob_at(const tiles *t, int x, int y) {
  if (!open_at(t, x, y))
    return false;
  int ways =
      walkable(t, x + 1, y) + walkable(t, x - 1, y) + walkable(t, x, y + 1) + walkable(t, x, y - 1);
  if (ways >= 3)
    return true;
  for (int dy = -1; dy <= 1; dy += 2)
    for (int dx = -1; dx <= 1; dx += 2)
      if (open_at(t, x + dx, y) && open_at(t, x, y + dy) && open_at(t, x + dx, y + dy))
        return true;
  return false;
}

static int recount_grid_cycles(const dg_level *level) {
  int width = level->grid.width, height = level->grid.height, cells = width * height;
  int *room = room_map(level);
  tiles t = {&level->grid, room};
  /* Vertices: tile i, room r as cells + r. */
  int *vertex = malloc((size_t)(cells + level->room_count) * sizeof *vertex);
  bool *merged = calloc((size_t)cells, sizeof *merged);
  for (int i = 0; i < cells + level->room_count; i++)
    vertex[i] = i;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int i = y * width + x;
      if (!walkable(&t, x, y))
        continue;
      if (room[i] >= 0) {
        join(vertex, i, cells + room[i]);
        merged[i] = true;
      } else if (blob_at(&t, x, y)) {
        merged[i] = true;
        if (blob_at(&t, x + 1, y))
          join(vertex, i, i + 1);
        if (blob_at(&t, x, y + 1))
          join(vertex, i, i + width);
      }
    }
  /* Edges, once per pair of merged vertices; components over them. */
  int *component = malloc((size_t)(cells + level->room_count) * sizeof *component);
  for (int i = 0; i < cells + level->room_count; i++)
    component[i] = i;
  long *pairs = malloc((size_t)cells * 2 * sizeof *pairs);
  int pair_count = 0;
  long edges = 0, vertices = 0, components = 0;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int i = y * width + x;
      if (!walkable(&t, x, y))
        continue;
      vertices += find(vertex, i) == i;
      for (int d = 0; d < 2; d++) {
        int nx = x + (d == 0), ny = y + (d == 1), j = ny * width + nx;
        if (!walkable(&t, nx, ny))
          continue;
        int a = find(vertex, i), b = find(vertex, j);
        if (a == b)
          continue;
        if (merged[i] && merged[j]) {
          long key = (long)(a < b ? a : b) * (cells + level->room_count) + (a < b ? b : a);
          bool seen = false;
          for (int k = 0; k < pair_count && !seen; k++)
            seen = pairs[k] == key;
          if (seen)
            continue;
          pairs[pair_count++] = key;
        }
        edges++;
        join(component, a, b);
      }
    }
  /* Rooms with no walkable tile are vertices too (trace gives every room a node). */
  for (int r = 0; r < level->room_count; r++)
    vertices += find(vertex, cells + r) == cells + r;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      int i = y * width + x;
      if (walkable(&t, x, y) && find(vertex, i) == i && find(component, i) == i)
        components++;
    }
  for (int r = 0; r < level->room_count; r++)
    if (find(vertex, cells + r) == cells + r && find(component, cells + r) == cells + r)
      components++;
  free(pairs);
  free(component);
  free(merged);
  free(vertex);
  free(room);
  return (int)(edges - vertices + components);
}

static dg_level *make(const dg_context *context, const char *algorithm, uint64_t seed,
                      const char *const *params) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find(algorithm));
  dg_error err = {0};
  for (int k = 0; params != NULL && params[k] != NULL; k += 2)
    cr_assert_eq(dg_request_set_text(&request, params[k], params[k + 1], &err), 0, "%s",
                 err.message);
  request.seed = seed;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(context, &request, NULL, &level, &err), 0, "%s", err.message);
  return level;
}

/* Sums over seeds 1..count: counted and recounted loops, levels that
 * claim one. */
static void check_grid_algorithm(const char *algorithm, const char *const *params, int count,
                                 int *loops_total) {
  *loops_total = 0;
  for (int seed = 1; seed <= count; seed++) {
    dg_level *level = make(NULL, algorithm, (uint64_t)seed, params);
    int expected = recount_grid_cycles(level);
    cr_assert_eq(level->metrics.cycles, expected, "%s seed %d: metrics.cycles %d, the map has %d",
                 algorithm, seed, level->metrics.cycles, expected);
    *loops_total += expected;
    dg_level_free(level);
  }
}

Test(metrics, classic_cycles_are_loops_of_the_map) {
  static const char *const styles[][3] = {{"corridor_style", "follow", NULL},
                                          {"corridor_style", "cleanup", NULL},
                                          {"corridor_style", "plain", NULL}};
  for (int s = 0; s < 3; s++) {
    int loops = 0;
    check_grid_algorithm("classic", styles[s], 150, &loops);
  }
  /* Locks, keys and one-way doors are drawn on the map after the trace;
   * the count taken from the traced graph must still be the map's. */
  static const char *const locked[][7] = {
      {"locks", "2", "one_way", "2", NULL},
      {"locks", "4", "key_kind", "consumable", "boss_room", "true", NULL}};
  for (int s = 0; s < 2; s++) {
    int loops = 0;
    check_grid_algorithm("classic", locked[s], 100, &loops);
  }
  /* Forced stairs dig corridors of their own. */
  static const char *const forced[] = {"stairs_up_x", "3", "stairs_up_y", "3", NULL};
  int loops = 0;
  check_grid_algorithm("classic", forced, 60, &loops);
}

Test(metrics, landmark_cycles_are_loops_of_the_map) {
  int loops = 0;
  check_grid_algorithm("landmark", NULL, 40, &loops);
  cr_assert_gt(loops, 0, "landmark's extra edges make loops");
  static const char *const large[] = {"width", "200", "height", "200", NULL};
  check_grid_algorithm("landmark", large, 8, &loops);
}

Test(metrics, nonlinear_cycles_are_loops_of_the_map) {
  int loops = 0;
  check_grid_algorithm("nonlinear", NULL, 150, &loops);
  static const char *const grid[] = {"method", "grid", NULL};
  check_grid_algorithm("nonlinear", grid, 100, &loops);
}

/* Authored: loops, components and connected of the graph, counted here by
 * union-find over its edges. */
Test(metrics, authored_counts_its_graph) {
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  json_t *json = json_load_file(TEST_DATA_DIR "/../../config/roomsets/crypt.json", 0, NULL);
  cr_assert_not_null(json);
  dg_error err = {0};
  cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s", err.message);
  json_decref(json);
  static const char *const modes[][5] = {{"rooms", "60", "cycles", "chains", NULL},
                                         {"rooms", "60", "cycles", "corridors", NULL},
                                         {"cycles", "corridors", NULL}};
  /* Seeds 17 and 297 at 100 rooms: corridors crossing at other heights cut
   * the top-down drawing into pieces, but the level is connected. */
  static const int seeds[] = {17, 297};
  for (int m = 0; m < 3; m++)
    for (int k = 1; k <= (m < 2 ? 40 : 2); k++) {
      int seed = m < 2 ? k : seeds[k - 1];
      dg_level *level = make(context, "authored", (uint64_t)seed, modes[m]);
      const dg_graph *graph = &level->graph;
      int *parent = malloc((size_t)graph->node_count * sizeof *parent);
      for (int i = 0; i < graph->node_count; i++)
        parent[i] = i;
      int components = graph->node_count;
      for (int e = 0; e < graph->edge_count; e++)
        components -= join(parent, graph->edges[e].from, graph->edges[e].to);
      bool connected = true;
      for (int i = 0; i < graph->node_count; i++)
        connected = connected && (graph->nodes[i].room < 0 || find(parent, i) == find(parent, 0));
      cr_assert_eq(level->metrics.cycles, graph->edge_count - graph->node_count + components,
                   "seed %d", seed);
      cr_assert_eq(level->metrics.components, components, "seed %d", seed);
      cr_assert_eq(level->metrics.connected, connected, "seed %d", seed);
      if (m == 2)
        cr_assert(connected && components == 1, "seed %d: the level is one piece", seed);
      free(parent);
      dg_level_free(level);
    }
  dg_context_free(context);
}

/* The `doors` array lists exactly the grid's door tiles, for every
 * algorithm (authored's used to be empty while its grid drew hundreds). */
static void check_doors(const dg_level *level, const char *what, int seed) {
  const dg_grid *grid = &level->grid;
  int door_tiles = 0;
  for (int i = 0; i < grid->width * grid->height; i++)
    door_tiles += grid->tiles[i] == DG_TILE_DOOR || grid->tiles[i] == DG_TILE_SECRET_DOOR;
  cr_assert_eq(level->door_count, door_tiles, "%s seed %d: %d doors listed, %d on the grid", what,
               seed, level->door_count, door_tiles);
  cr_assert_eq(level->metrics.doors, door_tiles, "%s seed %d", what, seed);
  for (int d = 0; d < level->door_count; d++) {
    const dg_door *door = &level->doors[d];
    dg_tile tile = dg_grid_get(grid, door->x, door->y);
    cr_assert(tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR, "%s seed %d: door %d", what,
              seed, d);
    cr_assert(door->room >= 0 && door->room < level->room_count, "%s seed %d: door %d's room", what,
              seed, d);
  }
}

Test(metrics, doors_are_the_grids_doors) {
  static const char *const algorithms[] = {"classic", "landmark", "nonlinear"};
  for (int a = 0; a < 3; a++)
    for (int seed = 1; seed <= 30; seed++) {
      dg_level *level = make(NULL, algorithms[a], (uint64_t)seed, NULL);
      check_doors(level, algorithms[a], seed);
      dg_level_free(level);
    }
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  json_t *json = json_load_file(TEST_DATA_DIR "/../../config/roomsets/sewer.json", 0, NULL);
  cr_assert_not_null(json);
  dg_error err = {0};
  cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s", err.message);
  json_decref(json);
  static const char *const params[] = {"roomset", "sewer", "cycles", "corridors", NULL};
  for (int seed = 1; seed <= 20; seed++) {
    dg_level *level = make(context, "authored", (uint64_t)seed, params);
    cr_assert_gt(level->door_count, 0);
    check_doors(level, "authored", seed);
    dg_level_free(level);
  }
  dg_context_free(context);
}
