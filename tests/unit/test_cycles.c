/* The cycle search's pattern database (seed 003, "The pattern database"):
 * its values equal a plain forward Dijkstra's over the same moves in empty
 * space for sampled states (the heuristic is exact there, hence
 * admissible), and a state without an entry cannot reach the goal within
 * the table's bound. Reads the library's internal headers: the table is
 * not public API. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/authored/roomset.h"
#include "dungeon/dungeon.h"

#define CONFIG_DIR TEST_DATA_DIR "/../../config/roomsets/"

static rs_set *load_set(const char *path) {
  json_error_t error;
  json_t *json = json_load_file(path, 0, &error);
  cr_assert_not_null(json, "%s: %s", path, error.text);
  dg_error problems[4];
  rs_report report = {problems, 4, 0};
  rs_set *set = NULL;
  cr_assert_eq(rs_set_parse(json, &report, &set), 0);
  json_decref(json);
  cr_assert_eq(rs_set_build_moves(set), 0);
  return set;
}

/* Forward Dijkstra from relative state (x, y, z, f) to the goal state
 * (0, 0, -1, south) over every group's exits, within the same bounds as
 * the table; -1 when the goal costs more than `cost_max`. A deliberately
 * plain implementation, forward rather than backward: arrays indexed by a
 * dense cube and a binary heap. */
static int dijkstra(const rs_set *set, int cost_max, int x, int y, int z, int f) {
  int reach = cost_max + 1, span = 2 * reach + 1, span_y = 2 * PDB_Y_RANGE + 1;
  size_t cells = (size_t)span * span * span_y * 4;
  int *best = malloc(cells * sizeof *best);
  unsigned char *done = calloc(cells, 1);
  dg_heap open;
  cr_assert_eq(dg_heap_init(&open, 1024), 0);
  for (size_t i = 0; i < cells; i++)
    best[i] = -1;
#define IDX(X, Y, Z, F)                                                                            \
  ((((size_t)(F)*span_y + (size_t)((Y) + PDB_Y_RANGE)) * span + (size_t)((Z) + reach)) * span +    \
   (size_t)((X) + reach))
  best[IDX(x, y, z, f)] = 0;
  cr_assert_eq(dg_heap_push(&open, 0, (uint32_t)IDX(x, y, z, f)), 0);
  int answer = -1;
  uint32_t popped;
  while (dg_heap_pop(&open, NULL, &popped)) {
    int cell = (int)popped;
    if (done[cell])
      continue;
    done[cell] = 1;
    int rest = cell, cx = rest % span - reach;
    rest /= span;
    int cz = rest % span - reach;
    rest /= span;
    int cy = rest % span_y - PDB_Y_RANGE, cf = rest / span_y;
    if (cx == 0 && cy == 0 && cz == -1 && cf == FACING_S) {
      answer = best[cell];
      break;
    }
    for (int g = 0; g < set->group_count; g++) {
      const rs_move *m = &set->moves[set->members[set->groups[g].member_first]];
      if (m->open_facing != cf)
        continue;
      for (int e = 0; e < m->exit_count; e++) {
        const rs_exit *ex = &set->exits[m->exit_first + e];
        int nx = cx + ex->x, ny = cy + ex->y, nz = cz + ex->z, cost = best[cell] + ex->cost;
        if (cost > cost_max || nx < -reach || nx > reach || nz < -reach || nz > reach ||
            ny < -PDB_Y_RANGE || ny > PDB_Y_RANGE)
          continue;
        size_t n = IDX(nx, ny, nz, ex->facing);
        if (!done[n] && (best[n] < 0 || best[n] > cost)) {
          best[n] = cost;
          cr_assert_eq(dg_heap_push(&open, (uint64_t)cost, (uint32_t)n), 0);
        }
      }
    }
  }
#undef IDX
  free(best);
  free(done);
  dg_heap_close(&open);
  return answer;
}

Test(cycles, table_equals_dijkstra_on_empty_space) {
  rs_set *set = load_set(CONFIG_DIR "crypt.json");
  const int cost_max = 40; /* small enough for the plain Dijkstra */
  rs_pdb pdb;
  cr_assert_eq(pdb_build(set, cost_max, &pdb), 0);
  cr_assert_gt(pdb.states, 100);
  dg_rng rng;
  dg_rng_seed(&rng, 2024, 1);
  int hits = 0, misses = 0;
  for (int sample = 0; sample < 60; sample++) {
    int x = dg_rng_range(&rng, -20, 20), z = dg_rng_range(&rng, -20, 20);
    int y = dg_rng_range(&rng, -4, 4), f = dg_rng_range(&rng, 0, 3);
    int expected = dijkstra(set, cost_max, x, y, z, f);
    int got = pdb_lookup(&pdb, pdb_key(x, y, z, f));
    cr_assert_eq(got, expected, "state (%d, %d, %d, %d): table %d, Dijkstra %d", x, y, z, f, got,
                 expected);
    hits += got >= 0;
    misses += got < 0;
  }
  cr_assert_gt(hits, 5, "the sample must include reachable states");
  cr_assert_gt(misses, 5, "and unreachable ones");
  pdb_free(&pdb);
  rs_set_free(set);
}

/* Fail-fast: the goal state itself costs 0 and a state facing straight
 * away far beyond the bound has no entry. */
Test(cycles, table_bounds) {
  rs_set *set = load_set(CONFIG_DIR "bench.json");
  rs_pdb pdb;
  cr_assert_eq(pdb_build(set, 64, &pdb), 0);
  cr_assert_eq(pdb_lookup(&pdb, pdb_key(0, 0, -1, FACING_S)), 0);
  cr_assert_eq(pdb_lookup(&pdb, pdb_key(0, 0, -300, FACING_N)), -1);
  cr_assert_eq(pdb_lookup(&pdb, pdb_key(0, 0, -1, FACING_N)) > 0, true,
               "next to the goal but facing away costs a detour");
  /* At most 16 bytes per state (issue 6). */
  cr_assert_leq((double)pdb.slots * (sizeof *pdb.keys + sizeof *pdb.costs) / pdb.states, 16.0);
  pdb_free(&pdb);
  rs_set_free(set);
}
