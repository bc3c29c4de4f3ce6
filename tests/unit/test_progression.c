/* The progression pass seen from the library's API: the defaults change
 * nothing, the pass is deterministic and touches only the tiles it places
 * (locks, keys, one-way doors) and the members it owns, fewer locks come
 * with a reason, every representation carries the new tiles, and bad
 * values name their field and range. Solvability over many seeds is the
 * independent checker's job (tests/http/progression_checker.py). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/passes/progression.h"
#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "dungeon/render.h"

static dg_level *make(const char *algorithm, uint64_t seed, const char *const *settings) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find(algorithm));
  dg_error err = {0};
  for (int i = 0; settings != NULL && settings[i] != NULL; i++) {
    char name[64];
    const char *equals = strchr(settings[i], '=');
    snprintf(name, sizeof name, "%.*s", (int)(equals - settings[i]), settings[i]);
    cr_assert_eq(dg_request_set_text(&request, name, equals + 1, &err), 0, "%s", err.message);
  }
  request.seed = seed;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
  return level;
}

static char *json_of(const dg_level *level) {
  char *text = NULL;
  cr_assert_eq(dg_level_dump_json(level, &text, NULL), 0);
  return text;
}

Test(progression, defaults_write_nothing_of_the_pass) {
  static const char *const zero[] = {"locks=0", "one_way=0", "key_kind=reusable", NULL};
  dg_level *plain = make("classic", 42, NULL), *explicit = make("classic", 42, zero);
  char *a = json_of(plain), *b = json_of(explicit);
  cr_assert_str_eq(a, b, "explicit defaults changed the bytes");
  cr_assert_null(strstr(a, "progression"));
  cr_assert_null(strstr(a, "\"locks\""));
  cr_assert_null(strstr(a, "locked_door"));
  cr_assert(!plain->progression.placed);
  free(a);
  free(b);
  dg_level_free(plain);
  dg_level_free(explicit);
}

Test(progression, only_its_own_tiles_change_and_bytes_repeat) {
  static const char *const asked[] = {"locks=2", "one_way=2", "boss_room=true", NULL};
  for (uint64_t seed = 1; seed <= 40; seed++) {
    dg_level *plain = make("landmark", seed, NULL);
    dg_level *locked = make("landmark", seed, asked);
    dg_level *again = make("landmark", seed, asked);
    const dg_grid *g = &plain->grid, *h = &locked->grid;
    cr_assert_eq(g->width, h->width);
    int changed = 0;
    for (long i = 0; i < (long)g->width * g->height; i++) {
      if (g->tiles[i] == h->tiles[i])
        continue;
      changed++;
      cr_assert(dg_tile_progression(h->tiles[i]), "seed %llu: tile %ld became %s",
                (unsigned long long)seed, i, dg_tile_name((dg_tile)h->tiles[i]));
    }
    const dg_progression *p = &locked->progression;
    cr_assert(p->placed);
    cr_assert_eq(changed, 2 * p->locks_placed + p->one_way_placed, "seed %llu",
                 (unsigned long long)seed);
    cr_assert_leq(p->locks_placed, 2);
    cr_assert((p->locks_placed < 2) == (p->locks_why != NULL), "a reason exactly when fewer");
    cr_assert((p->one_way_placed < 2) == (p->one_way_why != NULL));
    cr_assert_eq(p->sphere_count, p->locks_placed + 1);
    cr_assert_gt(p->walk_length, 0);
    if (p->locks_placed > 0) {
      cr_assert_geq(p->boss_room, 0, "seed %llu: no boss room behind the last lock",
                    (unsigned long long)seed);
      cr_assert_eq(p->room_sphere[p->boss_room], p->locks_placed);
    }
    for (int k = 0; k < p->locks_placed; k++)
      cr_assert_leq(p->key_sphere[k], k, "key %d lies behind its own lock", k);
    char *a = json_of(locked), *b = json_of(again);
    cr_assert_str_eq(a, b, "seed %llu: not deterministic", (unsigned long long)seed);
    free(a);
    free(b);
    dg_level_free(plain);
    dg_level_free(locked);
    dg_level_free(again);
  }
}

Test(progression, a_level_without_chokepoints_says_why) {
  /* One room: the exit shares the entrance's room, no door lies between. */
  static const char *const asked[] = {"locks=3", "rooms_min=1", "rooms_max=1", NULL};
  dg_level *level = make("classic", 7, asked);
  const dg_progression *p = &level->progression;
  cr_assert_eq(p->locks_placed, 0);
  cr_assert_not_null(p->locks_why);
  char *text = json_of(level);
  cr_assert_not_null(strstr(text, "\"why\":{\"locks\":"));
  free(text);
  dg_level_free(level);
}

Test(progression, every_representation_shows_locks_keys_and_one_way_doors) {
  static const char *const asked[] = {"locks=2", "one_way=1", NULL};
  dg_level *level = make("landmark", 3, asked);
  cr_assert_eq(level->progression.locks_placed, 2);
  cr_assert_eq(level->progression.one_way_placed, 1);
  char *ascii = NULL, *svg = NULL, *tiled = NULL;
  cr_assert_eq(dg_level_dump_ascii(level, &ascii, NULL), 0);
  cr_assert_not_null(strchr(ascii, 'L'));
  cr_assert_not_null(strchr(ascii, 'k'));
  dg_svg_options options;
  dg_svg_options_init(&options);
  cr_assert_eq(dg_level_dump_svg(level, &options, &svg, NULL), 0);
  cr_assert_not_null(strstr(svg, "class=\"lock k1\" data-key=\"1\""));
  cr_assert_not_null(strstr(svg, "class=\"key k0\" data-key=\"0\""));
  cr_assert_not_null(strstr(svg, "class=\"arrow\" data-direction="));
  cr_assert_eq(dg_level_dump_tiled(level, &tiled, NULL), 0);
  cr_assert_not_null(strstr(tiled, "\"key_id\""));
  cr_assert_not_null(strstr(tiled, "\"direction\""));
  cr_assert_not_null(strstr(tiled, DG_TILED_TILESET_IMAGE_PROGRESSION));
  free(ascii);
  free(svg);
  free(tiled);
  dg_level_free(level);
}

Test(progression, out_of_range_values_name_field_and_range) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("nonlinear"));
  dg_error err = {0};
  cr_assert_neq(dg_request_set_text(&request, "locks", "17", &err), 0);
  cr_assert_str_eq(err.field, "locks");
  cr_assert_not_null(strstr(err.message, "an integer from 0 to 16"), "%s", err.message);
  cr_assert_neq(dg_request_set_text(&request, "key_kind", "skeleton", &err), 0);
  cr_assert_not_null(strstr(err.message, "one of reusable, consumable"), "%s", err.message);
  cr_assert_neq(dg_request_set_text(&request, "one_way", "-1", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "locks", "1", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "placement", "false", &err), 0);
  cr_assert_neq(dg_request_validate(&request, &err), 0);
  cr_assert_str_eq(err.field, "params.locks");
}

/* Runs the pass on `level` (made without it) as dg_generate would, with
 * `locks` asked for and no one-way door. */
static void progress(dg_level *level, int locks) {
  const dg_algorithm *algorithm = level->algorithm;
  level->params.number[dg_common_param(algorithm, DG_COMMON_LOCKS)] = locks;
  level->params.number[dg_common_param(algorithm, DG_COMMON_ONE_WAY)] = 0;
  dg_rng rng;
  dg_rng_seed(&rng, level->seed, DG_STREAM_PROGRESSION);
  dg_error err = {0};
  cr_assert_eq(dg_pass_progression(level, NULL, &rng, &err), 0, "%s", err.message);
}

/* Whether tile `to` can be reached from tile `from` on `level`'s map: over
 * walkable tiles, a locked door open when its key id is below `keys` and
 * it is not `closed`, a one-way door entered and left only in its
 * direction. Reads the grid and the locked doors' features only. */
static bool reachable(const dg_level *level, int from, int to, int keys, int closed) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, cells = width * grid->height;
  int *key_of = malloc((size_t)cells * sizeof *key_of),
      *queue = malloc((size_t)cells * sizeof *queue);
  bool *seen = calloc((size_t)cells, 1);
  cr_assert(key_of != NULL && queue != NULL && seen != NULL);
  for (int t = 0; t < cells; t++)
    key_of[t] = -1;
  for (int i = 0; i < level->feature_count; i++)
    if (strcmp(level->features[i].kind, "locked_door") == 0)
      key_of[level->features[i].y * width + level->features[i].x] = level->features[i].key;
  const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
  int head = 0, tail = 0;
  seen[from] = true;
  queue[tail++] = from;
  while (head < tail) {
    int t = queue[head++], x = t % width, y = t / width;
    dg_tile here = (dg_tile)grid->tiles[t];
    for (int d = 0; d < 4; d++) {
      int nx = x + dx[d], ny = y + dy[d], q = ny * width + nx;
      if (!dg_grid_contains(grid, nx, ny) || seen[q])
        continue;
      dg_tile next = (dg_tile)grid->tiles[q];
      bool open = dg_tile_walkable(next) &&
                  (key_of[q] < 0 || (key_of[q] < keys && key_of[q] != closed)) &&
                  (next < DG_TILE_ONE_WAY_NORTH || next > DG_TILE_ONE_WAY_WEST ||
                   (int)(next - DG_TILE_ONE_WAY_NORTH) == d) &&
                  (here < DG_TILE_ONE_WAY_NORTH || here > DG_TILE_ONE_WAY_WEST ||
                   (int)(here - DG_TILE_ONE_WAY_NORTH) == d);
      if (open) {
        seen[q] = true;
        queue[tail++] = q;
      }
    }
  }
  bool found = seen[to];
  free(key_of);
  free(queue);
  free(seen);
  return found;
}

/* The tile of the first feature of `kind` (with key id `key`, or any when
 * negative). */
static int feature_tile(const dg_level *level, const char *kind, int key) {
  for (int i = 0; i < level->feature_count; i++)
    if (strcmp(level->features[i].kind, kind) == 0 && (key < 0 || level->features[i].key == key))
      return level->features[i].y * level->grid.width + level->features[i].x;
  cr_assert_fail("no %s feature (key %d)", kind, key);
  return -1;
}

/* A classic level plans on the graph its generator traced (its rooms,
 * junctions and corridors, each corridor closed at the one tile the trace
 * recorded) instead of gathering the map's tiles again. Over 300 seeds of
 * the real pipeline (locks 1, 2 or 4, one-way doors 0 or 2), the map
 * itself says the recorded tiles are right: the exit is reachable with
 * every lock open, closing any one lock cuts it off, and each key lies
 * where the locks before it let a party reach it. And the traced graph
 * holds exactly as many locks as the tiles do (the same levels made
 * without the pass, then given it on the tile path): its chokepoints are
 * the map's. */
Test(progression, the_traced_graph_locks_what_the_map_needs) {
  int fewer = 0, one_way = 0;
  for (uint64_t seed = 1; seed <= 300; seed++) {
    int locks = seed % 3 == 0 ? 1 : seed % 3 == 1 ? 2 : 4, doors = seed % 2 == 0 ? 2 : 0;
    char locks_text[16], doors_text[16];
    snprintf(locks_text, sizeof locks_text, "locks=%d", locks);
    snprintf(doors_text, sizeof doors_text, "one_way=%d", doors);
    const char *const settings[] = {locks_text, doors_text, NULL};
    dg_level *traced = make("classic", seed, settings), *tiles = make("classic", seed, NULL);
    int placed = traced->progression.locks_placed;
    int up = feature_tile(traced, "stairs_up", -1), down = feature_tile(traced, "stairs_down", -1);
    cr_assert(reachable(traced, up, down, DG_LOCKS_MAX, -1), "seed %llu: exit out of reach",
              (unsigned long long)seed);
    for (int k = 0; k < placed; k++) {
      cr_assert(!reachable(traced, up, down, DG_LOCKS_MAX, k),
                "seed %llu: lock %d can be walked around", (unsigned long long)seed, k);
      cr_assert(reachable(traced, up, feature_tile(traced, "key", k), k, -1),
                "seed %llu: key %d lies behind its own lock or a later one",
                (unsigned long long)seed, k);
    }
    if (doors == 0) {
      progress(tiles, locks);
      cr_assert_eq(placed, tiles->progression.locks_placed,
                   "seed %llu, %d asked: %d locks on the traced graph, %d on the tiles",
                   (unsigned long long)seed, locks, placed, tiles->progression.locks_placed);
    }
    fewer += placed < locks;
    one_way += traced->progression.one_way_placed;
    dg_level_free(tiles);
    dg_level_free(traced);
  }
  /* Not vacuous: some levels hold fewer locks than asked, and one-way
   * doors were placed to be obeyed. */
  cr_assert(fewer > 0 && fewer < 300, "fewer locks than asked in %d of 300", fewer);
  cr_assert(one_way > 0, "no one-way door placed in 150 levels asking for two");
}
