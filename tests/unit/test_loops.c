/* metrics.cycles is counted on tiles (passes/loops.c) rather than from the
 * graph the trace builds; the trace (passes/trace.c) stays as the oracle.
 * Both must agree on the count and on the grid part of the metrics, on
 * every algorithm's levels over hundreds of seeds and on random grids
 * that hold what generators rarely make: rings touching no node, rooms
 * in pieces or with no walkable tile, rooms side by side, wide blobs,
 * lone tiles. test_metrics.c checks the count against a third, written
 * from the definition in docs/level-format.md. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "passes/loops.h"
#include "passes/trace.h"

#include "dungeon/dungeon.h"

/* The count and the grid part both ways; fails naming `what`. Returns the
 * loops, so callers can check that their levels have some. */
static int agree(const dg_level *level, const char *what, uint64_t seed) {
  int traced = -1, counted = -2;
  dg_metrics by_trace = {0}, by_tiles = {0};
  cr_assert_eq(dg_trace_cycles_grid(level, &traced, &by_trace), 0, "%s %llu: trace", what,
               (unsigned long long)seed);
  cr_assert_eq(dg_grid_loops(level, &counted, &by_tiles), 0, "%s %llu: tiles", what,
               (unsigned long long)seed);
  cr_assert_eq(counted, traced, "%s seed %llu: %d loops on tiles, the trace has %d", what,
               (unsigned long long)seed, counted, traced);
  cr_assert_eq(memcmp(&by_tiles, &by_trace, sizeof by_trace), 0,
               "%s seed %llu: the grid part of the metrics differs", what,
               (unsigned long long)seed);
  return traced;
}

static void over_seeds(const char *algorithm, const char *const *params, int seeds, long *loops) {
  for (int seed = 1; seed <= seeds; seed++) {
    dg_request request;
    dg_request_init(&request, dg_algorithm_find(algorithm));
    dg_error err = {0};
    for (int k = 0; params != NULL && params[k] != NULL; k += 2)
      cr_assert_eq(dg_request_set_text(&request, params[k], params[k + 1], &err), 0, "%s",
                   err.message);
    request.seed = (uint64_t)seed;
    request.seed_given = true;
    dg_level *level = NULL;
    cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
    *loops += agree(level, algorithm, (uint64_t)seed);
    dg_level_free(level);
  }
}

Test(loops, classic_agrees_with_the_trace) {
  static const char *const styles[][5] = {{"corridor_style", "follow", NULL},
                                          {"corridor_style", "cleanup", NULL},
                                          {"corridor_style", "plain", NULL},
                                          {"locks", "2", "one_way", "2", NULL}};
  long loops = 0;
  for (int s = 0; s < 4; s++)
    over_seeds("classic", styles[s], 150, &loops);
  cr_assert_gt(loops, 0);
}

Test(loops, landmark_agrees_with_the_trace) {
  long loops = 0;
  over_seeds("landmark", NULL, 300, &loops);
  cr_assert_gt(loops, 0);
  static const char *const large[] = {"width", "200", "height", "200", NULL};
  over_seeds("landmark", large, 10, &loops);
}

Test(loops, nonlinear_agrees_with_the_trace) {
  long loops = 0;
  over_seeds("nonlinear", NULL, 300, &loops);
  cr_assert_gt(loops, 0);
  static const char *const grid[] = {"method", "grid", "locks", "2", NULL};
  over_seeds("nonlinear", grid, 150, &loops);
}

/* splitmix64: the random grids' own stream, apart from the library's. */
static uint64_t next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A random level: tiles drawn from the kinds the count tells apart, rooms
 * with random rectangles (some off the walkable tiles), doors on random
 * walkable tiles; with `keep_map`, a tile -> room map of its own instead. */
static dg_level *random_level(uint64_t *state, bool keep_map) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_level *level = NULL;
  cr_assert_eq(dg_level_new(&request, &level), 0);
  int width = 3 + (int)(next(state) % 14), height = 3 + (int)(next(state) % 10);
  cr_assert_eq(dg_grid_init(&level->grid, width, height), 0);
  level->has_grid = true;
  static const dg_tile kinds[] = {DG_TILE_STONE,    DG_TILE_STONE,    DG_TILE_CORRIDOR,
                                  DG_TILE_CORRIDOR, DG_TILE_CORRIDOR, DG_TILE_FLOOR,
                                  DG_TILE_DOOR,     DG_TILE_WALL,     DG_TILE_CHEST};
  for (int i = 0; i < width * height; i++)
    level->grid.tiles[i] = (uint8_t)kinds[next(state) % 9];
  int rooms = (int)(next(state) % 5);
  for (int r = 0; r < rooms; r++) {
    dg_room room = {.x = (int)(next(state) % (uint64_t)width),
                    .y = (int)(next(state) % (uint64_t)height),
                    .width = 1 + (int)(next(state) % 4),
                    .height = 1 + (int)(next(state) % 3),
                    .kind = "room"};
    cr_assert_eq(dg_level_add_room(level, &room, NULL), 0);
  }
  for (int d = 0; d < 3 && rooms > 0; d++) {
    dg_door door = {.x = (int)(next(state) % (uint64_t)width),
                    .y = (int)(next(state) % (uint64_t)height),
                    .room = (int)(next(state) % (uint64_t)(rooms + 1)) - 1};
    cr_assert_eq(dg_level_add_door(level, &door), 0);
  }
  if (keep_map) {
    int *map = malloc((size_t)width * height * sizeof *map);
    for (int i = 0; i < width * height; i++)
      map[i] = (int)(next(state) % (uint64_t)(rooms + 3)) - 3;
    cr_assert_eq(dg_level_keep_room_of(level, map), 0);
    free(map);
  }
  return level;
}

Test(loops, random_grids_agree_with_the_trace) {
  uint64_t state = 0x6c6f6f7073ull;
  long loops = 0;
  for (int i = 0; i < 20000; i++) {
    dg_level *level = random_level(&state, i % 2 == 1);
    loops += agree(level, "random grid", (uint64_t)i);
    dg_level_free(level);
  }
  cr_assert_gt(loops, 20000, "the random grids have loops to count");
}

/* A map with no room and no junction touching anything: no pair to sort
 * (the list is never allocated; sorting it anyway was undefined, and
 * UBSan stopped the golden catalogue on such a level), one ring of
 * corridor, one loop. */
Test(loops, a_ring_with_no_contact_is_one_loop) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_level *level = NULL;
  cr_assert_eq(dg_level_new(&request, &level), 0);
  cr_assert_eq(dg_grid_init(&level->grid, 6, 5), 0);
  level->has_grid = true;
  for (int y = 1; y <= 3; y++)
    for (int x = 1; x <= 4; x++)
      if (y != 2 || x == 1 || x == 4)
        level->grid.tiles[y * 6 + x] = DG_TILE_CORRIDOR;
  dg_metrics grid_part = {0};
  int cycles = -1;
  cr_assert_eq(dg_grid_loops(level, &cycles, &grid_part), 0);
  cr_assert_eq(cycles, 1);
  cr_assert_eq(grid_part.components, 1);
  cr_assert_eq(agree(level, "ring", 0), 1);
  dg_level_free(level);
}

/* A room index past the level's rooms is refused, not counted. */
Test(loops, room_past_the_rooms_is_an_error) {
  uint64_t state = 7;
  dg_level *level = random_level(&state, false);
  int *map = malloc((size_t)level->grid.width * level->grid.height * sizeof *map);
  for (int i = 0; i < level->grid.width * level->grid.height; i++) {
    map[i] = level->room_count;
    level->grid.tiles[i] = DG_TILE_FLOOR;
  }
  cr_assert_eq(dg_level_keep_room_of(level, map), 0);
  free(map);
  int cycles = 0;
  cr_assert_eq(dg_grid_loops(level, &cycles, NULL), DG_EINTERNAL);
  dg_level_free(level);
}
