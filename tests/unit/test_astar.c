/* A* on weighted grids: optimal (its cost equals an independent Dijkstra
 * over the same states) on random grids with and without turn costs and
 * straight-only cells; its path is valid and costs what it reports;
 * unreachable goals and bad queries are reported; reuse of a workspace. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "core/heap.h"
#include "dungeon/error.h"
#include "dungeon/rng.h"
#include "path/astar.h"

static const int sx[4] = {1, -1, 0, 0}, sy[4] = {0, 0, 1, -1};

/* Reference: Dijkstra over (cell, direction) states, no heuristic. Returns
 * the cheapest cost or -1. Start states have every direction at cost 0. */
static long dijkstra(const uint16_t *cost, int w, int h, int start, int goal, uint32_t turn,
                     bool directional) {
  int states = w * h * 4;
  long *dist = malloc((size_t)states * sizeof *dist);
  for (int i = 0; i < states; i++)
    dist[i] = -1;
  dg_heap heap;
  dg_heap_init(&heap, 0);
  for (int d = 0; d < 4; d++) {
    dist[start * 4 + d] = 0;
    dg_heap_push(&heap, 0, (uint32_t)(start * 4 + d));
  }
  long best = -1;
  uint64_t pri;
  uint32_t s;
  while (dg_heap_pop(&heap, &pri, &s)) {
    if ((long)pri != dist[s])
      continue;
    int cell = (int)s / 4, dir = (int)s % 4;
    if (cell == goal) {
      best = (long)pri;
      break;
    }
    bool straight = directional && (cost[cell] & DG_ASTAR_STRAIGHT) && cell != start;
    for (int d = 0; d < 4; d++) {
      if (straight && d != dir)
        continue;
      if (directional && cell != start && d == (dir ^ 1))
        continue; /* no stepping straight back */
      int x = cell % w + sx[d], y = cell / w + sy[d];
      if (x < 0 || y < 0 || x >= w || y >= h)
        continue;
      int next = y * w + x;
      long c = cost[next] & DG_ASTAR_COST_MASK;
      if (c == 0)
        continue;
      long nd = (long)pri + c + (directional && d != dir ? turn : 0);
      int ns = next * 4 + d;
      if (dist[ns] == -1 || nd < dist[ns]) {
        dist[ns] = nd;
        dg_heap_push(&heap, (uint64_t)nd, (uint32_t)ns);
      }
    }
  }
  dg_heap_close(&heap);
  free(dist);
  return best;
}

static void random_grid(uint16_t *cost, int cells, dg_rng *rng, int wall_percent, bool flags) {
  for (int i = 0; i < cells; i++) {
    if ((int)dg_rng_below(rng, 100) < wall_percent)
      cost[i] = 0;
    else
      cost[i] = (uint16_t)(1 + dg_rng_below(rng, 9));
    if (flags && cost[i] != 0 && dg_rng_below(rng, 10) == 0)
      cost[i] |= DG_ASTAR_STRAIGHT;
  }
}

static void check_path(const uint16_t *cost, int w, const int *path, int length, uint32_t turn,
                       bool directional, uint32_t total) {
  long sum = 0;
  for (int i = 1; i < length; i++) {
    int a = path[i - 1], b = path[i];
    int dx = abs(a % w - b % w), dy = abs(a / w - b / w);
    cr_assert_eq(dx + dy, 1, "steps %d -> %d are not neighbours", a, b);
    cr_assert_neq(cost[b] & DG_ASTAR_COST_MASK, 0, "path enters a wall");
    sum += cost[b] & DG_ASTAR_COST_MASK;
    if (directional && i >= 2) {
      int prev_step = path[i - 1] - path[i - 2], step = b - a;
      if (step != prev_step) {
        sum += turn;
        cr_assert_eq(cost[a] & DG_ASTAR_STRAIGHT, 0, "path turns on a straight-only cell");
      }
    }
  }
  cr_assert_eq(sum, (long)total, "path costs %ld, reported %u", sum, total);
}

static void compare_on_random_grids(bool directional, uint32_t turn, bool flags) {
  const int w = 31, h = 23, cells = w * h;
  uint16_t cost[31 * 23];
  int path[31 * 23];
  dg_astar astar;
  cr_assert_eq(dg_astar_init(&astar, w, h, true), 0);
  dg_rng rng;
  dg_rng_seed(&rng, 2024 + turn, 3);
  int found = 0;
  for (int round = 0; round < 120; round++) {
    random_grid(cost, cells, &rng, 25, flags);
    int start = (int)dg_rng_below(&rng, cells), goal = (int)dg_rng_below(&rng, cells);
    cost[goal] = (uint16_t)(cost[goal] == 0 ? 1 : cost[goal]);
    long expected = dijkstra(cost, w, h, start, goal, turn, directional);
    dg_astar_query q = {.cost = cost,
                        .start = start,
                        .goal = goal,
                        .turn_cost = turn,
                        .min_cost = 1,
                        .directional = directional};
    dg_astar_result result;
    int rc = dg_astar_find(&astar, &q, path, &result);
    if (expected < 0) {
      cr_assert_eq(rc, DG_EUNSAT, "round %d: no path exists but A* says %d", round, rc);
      continue;
    }
    found++;
    cr_assert_eq(rc, 0, "round %d", round);
    cr_assert_eq((long)result.total_cost, expected, "round %d: A* %u, Dijkstra %ld", round,
                 result.total_cost, expected);
    cr_assert_eq(path[0], start);
    cr_assert_eq(path[result.length - 1], goal);
    check_path(cost, w, path, result.length, turn, directional, result.total_cost);
  }
  cr_assert_gt(found, 40, "too few reachable pairs to mean anything");
  dg_astar_close(&astar);
}

Test(astar, optimal_plain) {
  compare_on_random_grids(false, 0, false);
}

Test(astar, optimal_with_turn_cost) {
  compare_on_random_grids(true, 5, false);
}

Test(astar, optimal_with_straight_cells) {
  compare_on_random_grids(true, 2, true);
}

/* Cell states with turn costs and straight cells: a valid path that costs
 * what it says, never below the optimum. */
Test(astar, cell_states_with_turns_are_valid_and_bounded) {
  const int w = 31, h = 23, cells = w * h;
  uint16_t cost[31 * 23];
  int path[31 * 23];
  dg_astar astar;
  cr_assert_eq(dg_astar_init(&astar, w, h, false), 0);
  dg_rng rng;
  dg_rng_seed(&rng, 99, 3);
  int found = 0, worse = 0;
  for (int round = 0; round < 120; round++) {
    random_grid(cost, cells, &rng, 20, true);
    int start = (int)dg_rng_below(&rng, cells), goal = (int)dg_rng_below(&rng, cells);
    cost[goal] = (uint16_t)(cost[goal] == 0 ? 1 : cost[goal]);
    long optimum = dijkstra(cost, w, h, start, goal, 4, true);
    dg_astar_query q = {.cost = cost, .start = start, .goal = goal, .turn_cost = 4, .min_cost = 1};
    dg_astar_result result;
    int rc = dg_astar_find(&astar, &q, path, &result);
    if (rc == DG_EUNSAT)
      continue;
    cr_assert_eq(rc, 0);
    cr_assert_geq(optimum, 0, "cell search found a path where none exists");
    found++;
    cr_assert_geq((long)result.total_cost, optimum);
    worse += (long)result.total_cost > optimum;
    check_path(cost, w, path, result.length, 4, true, result.total_cost);
  }
  cr_assert_gt(found, 40);
  cr_assert_lt(worse, found, "cell search never matched the optimum");
  dg_astar_close(&astar);
}

Test(astar, heuristic_scale_keeps_optimality) {
  /* Every cell costs at least 3: min_cost 3 is still admissible. */
  const int w = 20, h = 20;
  uint16_t cost[400];
  dg_rng rng;
  dg_rng_seed(&rng, 5, 5);
  for (int i = 0; i < 400; i++)
    cost[i] = (uint16_t)(dg_rng_below(&rng, 6) == 0 ? 0 : 3 + dg_rng_below(&rng, 4));
  cost[0] = cost[399] = 3;
  dg_astar astar;
  cr_assert_eq(dg_astar_init(&astar, w, h, false), 0);
  dg_astar_query q = {.cost = cost, .start = 0, .goal = 399, .min_cost = 3};
  dg_astar_result r;
  int rc = dg_astar_find(&astar, &q, NULL, &r);
  long expected = dijkstra(cost, w, h, 0, 399, 0, false);
  if (expected < 0)
    cr_assert_eq(rc, DG_EUNSAT);
  else
    cr_assert_eq((long)r.total_cost, expected);
  dg_astar_close(&astar);
}

Test(astar, errors_and_trivial_paths) {
  uint16_t cost[16];
  for (int i = 0; i < 16; i++)
    cost[i] = 1;
  cost[5] = 0;
  dg_astar astar;
  cr_assert_eq(dg_astar_init(&astar, 0, 4, false), DG_EINVAL);
  cr_assert_eq(dg_astar_init(&astar, 4, 4, false), 0);
  dg_astar_result r;
  int path[16];
  dg_astar_query q = {.cost = cost, .start = 3, .goal = 3, .min_cost = 1};
  cr_assert_eq(dg_astar_find(&astar, &q, path, &r), 0);
  cr_assert_eq(r.length, 1);
  cr_assert_eq(r.total_cost, 0);
  q.goal = 5; /* a wall */
  cr_assert_eq(dg_astar_find(&astar, &q, path, &r), DG_EINVAL);
  q.goal = 16;
  cr_assert_eq(dg_astar_find(&astar, &q, path, &r), DG_EINVAL);
  q.goal = 12;
  q.directional = true; /* workspace sized without directions */
  cr_assert_eq(dg_astar_find(&astar, &q, path, &r), DG_EINVAL);
  /* Wall off the goal corner. */
  q.directional = false;
  cost[8] = cost[13] = 0;
  cr_assert_eq(dg_astar_find(&astar, &q, path, &r), DG_EUNSAT);
  dg_astar_close(&astar);
}

/* The search finds a cell's row by a multiply, not a division: on open
 * grids of awkward widths (one column, odd, past 2^12 and 2^16) every step
 * of the path is a real 4-neighbour step (never a wrap to the next row) and
 * the cost is the Manhattan distance. */
Test(astar, rows_by_multiply_on_awkward_widths) {
  const int sizes[][2] = {{1, 50}, {3, 7}, {4099, 5}, {65537, 3}, {997, 211}};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int w = sizes[s][0], h = sizes[s][1], cells = w * h;
    uint16_t *cost = malloc((size_t)cells * sizeof *cost);
    int *path = malloc((size_t)cells * sizeof *path);
    for (int i = 0; i < cells; i++)
      cost[i] = 1;
    dg_astar astar;
    cr_assert_eq(dg_astar_init(&astar, w, h, false), 0);
    dg_astar_query q = {.cost = cost, .start = cells - 1, .goal = 0, .min_cost = 1};
    dg_astar_result r;
    cr_assert_eq(dg_astar_find(&astar, &q, path, &r), 0, "%dx%d", w, h);
    cr_assert_eq(r.total_cost, (uint32_t)(w - 1 + h - 1), "%dx%d: cost %u", w, h, r.total_cost);
    cr_assert_eq(r.length, w + h - 1, "%dx%d", w, h);
    for (int i = 1; i < r.length; i++) {
      int a = path[i - 1], b = path[i];
      bool across = (a - b == 1 || b - a == 1) && a / w == b / w;
      bool down = a - b == w || b - a == w;
      cr_assert(across || down, "%dx%d: step %d -> %d", w, h, a, b);
    }
    dg_astar_close(&astar);
    free(cost);
    free(path);
  }
}

/* The states' 16-bit search stamps run out after 65,535 searches and are
 * cleared then. Search 1 floods an open grid from one corner (its goal is
 * walled in) and leaves small scores everywhere; search 65,537 (the same
 * 16-bit stamp) goes to that corner from the middle, with one-cell
 * searches in between: without the clear it would take those scores for
 * its own and never reach the corner. Both modes. */
Test(astar, stamps_survive_their_wrap_around) {
  const int w = 9, h = 7;
  uint16_t cost[9 * 7];
  int path[9 * 7];
  for (int c = 0; c < w * h; c++)
    cost[c] = 1;
  cost[7 * 1 + 6 * w] = cost[8 + 5 * w] = 0; /* (8, 6) walled in */
  for (int mode = 0; mode < 2; mode++) {
    dg_astar_query flood = {.cost = cost,
                            .start = 0,
                            .goal = 8 + 6 * w,
                            .turn_cost = 2,
                            .min_cost = 1,
                            .directional = mode == 1};
    dg_astar_query to_corner = flood, one_cell = flood;
    to_corner.start = 4 + 3 * w;
    to_corner.goal = 0;
    one_cell.start = one_cell.goal = 4 + 3 * w;
    dg_astar fresh, astar;
    dg_astar_result expected, result;
    cr_assert_eq(dg_astar_init(&fresh, w, h, true), 0);
    cr_assert_eq(dg_astar_find(&fresh, &to_corner, path, &expected), 0);
    dg_astar_close(&fresh);
    cr_assert_eq(dg_astar_init(&astar, w, h, true), 0);
    cr_assert_eq(dg_astar_find(&astar, &flood, path, &result), DG_EUNSAT);
    for (long n = 1; n < 65536; n++)
      cr_assert_eq(dg_astar_find(&astar, &one_cell, path, &result), 0);
    cr_assert_eq(dg_astar_find(&astar, &to_corner, path, &result), 0, "mode %d", mode);
    cr_assert_eq(result.total_cost, expected.total_cost, "mode %d", mode);
    cr_assert_eq(result.length, expected.length, "mode %d", mode);
    dg_astar_close(&astar);
  }
}
