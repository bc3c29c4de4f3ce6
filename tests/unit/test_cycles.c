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
#include "core/heap.h"
#include "dungeon/dungeon.h"
#include "dungeon/json.h"

#define CONFIG_DIR TEST_DATA_DIR "/../../config/roomsets/"

static authored_roomset *load_set(const char *path) {
  json_error_t error;
  json_t *json = json_load_file(path, 0, &error);
  cr_assert_not_null(json, "%s: %s", path, error.text);
  dg_error problems[4];
  authored_report report = {problems, 4, 0};
  authored_roomset *set = NULL;
  cr_assert_eq(authored_roomset_parse(json, &report, &set), 0);
  json_decref(json);
  cr_assert_eq(authored_roomset_build_moves(set), 0);
  return set;
}

/* Forward Dijkstra from relative state (x, y, z, f) to the goal state
 * (0, 0, -1, south) over every group's exits, within the same bounds as
 * the table; -1 when the goal costs more than `cost_max`. A deliberately
 * plain implementation, forward rather than backward: arrays indexed by a
 * dense cube and a binary heap. */
static int dijkstra(const authored_roomset *set, int cost_max, int x, int y, int z, int f) {
  int reach = cost_max + 1, span = 2 * reach + 1, span_y = 2 * AUTHORED_PDB_Y_RANGE + 1;
  size_t cells = (size_t)span * span * span_y * 4;
  int *best = malloc(cells * sizeof *best);
  unsigned char *done = calloc(cells, 1);
  dg_heap open;
  cr_assert_eq(dg_heap_init(&open, 1024), 0);
  for (size_t i = 0; i < cells; i++)
    best[i] = -1;
#define IDX(X, Y, Z, F)                                                                            \
  ((((size_t)(F)*span_y + (size_t)((Y) + AUTHORED_PDB_Y_RANGE)) * span + (size_t)((Z) + reach)) *  \
       span +                                                                                      \
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
    int cy = rest % span_y - AUTHORED_PDB_Y_RANGE, cf = rest / span_y;
    if (cx == 0 && cy == 0 && cz == -1 && cf == AUTHORED_FACING_S) {
      answer = best[cell];
      break;
    }
    for (int g = 0; g < set->group_count; g++) {
      const authored_move *m = &set->moves[set->members[set->groups[g].member_first]];
      if (m->open_facing != cf)
        continue;
      for (int e = 0; e < m->exit_count; e++) {
        const authored_exit *ex = &set->exits[m->exit_first + e];
        int nx = cx + ex->x, ny = cy + ex->y, nz = cz + ex->z, cost = best[cell] + ex->cost;
        if (cost > cost_max || nx < -reach || nx > reach || nz < -reach || nz > reach ||
            ny < -AUTHORED_PDB_Y_RANGE || ny > AUTHORED_PDB_Y_RANGE)
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
  authored_roomset *set = load_set(CONFIG_DIR "crypt.json");
  const int cost_max = 40; /* small enough for the plain Dijkstra */
  authored_pdb pdb;
  cr_assert_eq(authored_pdb_build(set, cost_max, &pdb), 0);
  cr_assert_gt(pdb.states, 100);
  dg_rng rng;
  dg_rng_seed(&rng, 2024, 1);
  int hits = 0, misses = 0;
  for (int sample = 0; sample < 60; sample++) {
    int x = dg_rng_range(&rng, -20, 20), z = dg_rng_range(&rng, -20, 20);
    int y = dg_rng_range(&rng, -4, 4), f = dg_rng_range(&rng, 0, 3);
    int expected = dijkstra(set, cost_max, x, y, z, f);
    int got = authored_pdb_lookup(&pdb, authored_pdb_key(x, y, z, f));
    cr_assert_eq(got, expected, "state (%d, %d, %d, %d): table %d, Dijkstra %d", x, y, z, f, got,
                 expected);
    hits += got >= 0;
    misses += got < 0;
  }
  cr_assert_gt(hits, 5, "the sample must include reachable states");
  cr_assert_gt(misses, 5, "and unreachable ones");
  authored_pdb_free(&pdb);
  authored_roomset_free(set);
}

/* The build drops edges that two cheaper ones replace and stops steps at a
 * margin around the box: both are exact only if the box's faces hold, where
 * a route may not leave the box. So every shipped set against the plain
 * Dijkstra at the states that test it: the far ones (the table says
 * reachable near the bound, wherever in the box) and ones on or next to a
 * face (highest and lowest storeys, x and z limits; mostly unreachable). */
Test(cycles, table_equals_dijkstra_at_the_box_faces) {
  const char *paths[] = {CONFIG_DIR "bench.json", CONFIG_DIR "crypt.json", CONFIG_DIR "sewer.json"};
  const int cost_max = 40, reach = cost_max + 1;
  dg_rng rng;
  dg_rng_seed(&rng, 2026, 12);
  for (int s = 0; s < 3; s++) {
    authored_roomset *set = load_set(paths[s]);
    authored_pdb pdb;
    cr_assert_eq(authored_pdb_build(set, cost_max, &pdb), 0);
    int far = 0;
    for (int sample = 0; sample < 16; sample++) {
      int x, y, z, f;
      if (sample < 10) {
        int cost = -1;
        for (int tries = 0; tries < 100000 && cost < cost_max - 8; tries++) {
          x = dg_rng_range(&rng, -reach, reach), z = dg_rng_range(&rng, -reach, reach);
          y = dg_rng_range(&rng, -AUTHORED_PDB_Y_RANGE, AUTHORED_PDB_Y_RANGE);
          f = dg_rng_range(&rng, 0, 3);
          cost = authored_pdb_lookup(&pdb, authored_pdb_key(x, y, z, f));
        }
        far += cost >= cost_max - 8;
      } else {
        x = dg_rng_range(&rng, -12, 12), z = dg_rng_range(&rng, -12, 12);
        y = dg_rng_range(&rng, -3, 3), f = dg_rng_range(&rng, 0, 3);
        int edge = AUTHORED_PDB_Y_RANGE - dg_rng_range(&rng, 0, 1), side = dg_rng_range(&rng, 0, 1);
        if (sample % 3 == 0)
          y = side ? edge : -edge;
        else if (sample % 3 == 1)
          x = side ? reach - 1 : -(reach - 1);
        else
          z = side ? reach : -reach;
      }
      int expected = dijkstra(set, cost_max, x, y, z, f);
      int got = authored_pdb_lookup(&pdb, authored_pdb_key(x, y, z, f));
      cr_assert_eq(got, expected, "%s state (%d, %d, %d, %d): table %d, Dijkstra %d", paths[s], x,
                   y, z, f, got, expected);
    }
    cr_assert_eq(far, 10, "%s: ten states near the bound must be found", paths[s]);
    authored_pdb_free(&pdb);
    authored_roomset_free(set);
  }
}

/* Fail-fast: the goal state itself costs 0 and a state facing straight
 * away far beyond the bound has no entry. */
Test(cycles, table_bounds) {
  authored_roomset *set = load_set(CONFIG_DIR "bench.json");
  authored_pdb pdb;
  cr_assert_eq(authored_pdb_build(set, 64, &pdb), 0);
  cr_assert_eq(authored_pdb_lookup(&pdb, authored_pdb_key(0, 0, -1, AUTHORED_FACING_S)), 0);
  cr_assert_eq(authored_pdb_lookup(&pdb, authored_pdb_key(0, 0, -300, AUTHORED_FACING_N)), -1);
  cr_assert_eq(authored_pdb_lookup(&pdb, authored_pdb_key(0, 0, -1, AUTHORED_FACING_N)) > 0, true,
               "next to the goal but facing away costs a detour");
  /* At most 16 bytes per state (issue 6). */
  cr_assert_leq((double)pdb.slots * (sizeof *pdb.keys + sizeof *pdb.costs) / pdb.states, 16.0);
  authored_pdb_free(&pdb);
  authored_roomset_free(set);
}

/* ---- the search itself, on small cases in empty space ---- */

#include "../../src/lib/authored/cycles.h"

typedef struct chain_world {
  const authored_roomset *set;
  int gx, gy, gz, gfacing; /* the goal doorway */
  int chain_max;
  authored_box placed[8][AUTHORED_BOXES_MAX];
  int placed_count[8];
} chain_world;

/* The cheapest chain by brute force: every sequence of up to chain_max
 * move groups whose rooms do not overlap one another, ending in a doorway
 * that meets the goal. -1 if none. */
static int exhaustive(chain_world *w, int x, int y, int z, int f, int depth, int cost) {
  if (x == w->gx + (w->gfacing == AUTHORED_FACING_E) - (w->gfacing == AUTHORED_FACING_W) &&
      y == w->gy &&
      z == w->gz + (w->gfacing == AUTHORED_FACING_S) - (w->gfacing == AUTHORED_FACING_N) &&
      f == (w->gfacing ^ 2))
    return cost;
  if (depth == w->chain_max)
    return -1;
  int best = -1;
  const authored_roomset *set = w->set;
  for (int i = 0; i < set->by_facing_count[f]; i++) {
    const authored_move *m =
        &set->moves[set->members[set->groups[set->by_facing[f][i]].member_first]];
    if (m->exit_count == 0)
      continue;
    authored_box *boxes = w->placed[depth];
    bool clash = false;
    for (int b = 0; b < m->box_count && !clash; b++) {
      const authored_box *r = &set->boxes[m->box_first + b];
      boxes[b] = (authored_box){r->x0 + x, r->y0 + y, r->z0 + z, r->x1 + x, r->y1 + y, r->z1 + z};
      for (int d = 0; d < depth && !clash; d++)
        for (int k = 0; k < w->placed_count[d] && !clash; k++)
          clash = authored_box_overlap(&boxes[b], &w->placed[d][k]);
    }
    if (clash)
      continue;
    w->placed_count[depth] = m->box_count;
    for (int e = 0; e < m->exit_count; e++) {
      const authored_exit *ex = &set->exits[m->exit_first + e];
      int c =
          exhaustive(w, x + ex->x, y + ex->y, z + ex->z, ex->facing, depth + 1, cost + ex->cost);
      if (c >= 0 && (best < 0 || c < best))
        best = c;
    }
  }
  return best;
}

Test(cycles, weight_one_finds_the_optimum) {
  authored_roomset *set = load_set(CONFIG_DIR "crypt.json");
  cr_assert_eq(authored_pdb_build(set, 64, &set->pdb), 0);
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("authored"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "w", "1", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "chain_max", "3", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "stall_cutoff", "1000000", &err), 0);
  cr_assert_eq(dg_request_set_text(&request, "expansions_max", "1000000", &err), 0);
  authored_state s = {.set = set, .params = &request.params, .current_chain = -1};
  cr_assert_eq(authored_occ_init(&s.occupancy), 0);
  authored_connector ends[2] = {{0, 0, 0, AUTHORED_FACING_N, 0, AUTHORED_CONN_OPEN, 0}, {0}};
  s.connectors.items = ends;
  s.connectors.count = 2;
  dg_rng rng;
  dg_rng_seed(&rng, 7, 1);
  int found = 0, agreed_none = 0;
  for (int sample = 0; sample < 24; sample++) {
    ends[1] = (authored_connector){
        dg_rng_range(&rng, -14, 14), 0, dg_rng_range(&rng, -20, 2), (int)dg_rng_below(&rng, 4), 1,
        AUTHORED_CONN_OPEN,          0};
    chain_world world = {.set = set,
                         .gx = ends[1].x,
                         .gy = ends[1].y,
                         .gz = ends[1].z,
                         .gfacing = ends[1].facing,
                         .chain_max = 3};
    int expected = exhaustive(&world, 0, 0, 0, AUTHORED_FACING_N, 0, 0);
    int status, cost, rooms;
    int64_t expanded;
    cr_assert_eq(authored_search_pair(&s, 0, 1, &status, &cost, &rooms, &expanded), 0);
    if (expected < 0) {
      cr_assert_neq(status, AUTHORED_FOUND, "sample %d: A* found a chain brute force did not",
                    sample);
      agreed_none++;
    } else {
      cr_assert_eq(status, AUTHORED_FOUND, "sample %d: brute force found cost %d, A* none", sample,
                   expected);
      cr_assert_eq(cost, expected, "sample %d: A* cost %d, optimum %d", sample, cost, expected);
      cr_assert_leq(rooms, 3);
      found++;
    }
  }
  cr_assert_gt(found, 3, "the samples must include reachable goals");
  /* Fail-fast: a goal far beyond the table's reach costs no expansion. */
  ends[1] = (authored_connector){0, 0, -400, AUTHORED_FACING_N, 1, AUTHORED_CONN_OPEN, 0};
  int status, cost, rooms;
  int64_t expanded = -1;
  cr_assert_eq(authored_search_pair(&s, 0, 1, &status, &cost, &rooms, &expanded), 0);
  cr_assert_eq(status, AUTHORED_FAIL_TABLE);
  cr_assert_eq(expanded, 0);
  (void)agreed_none;
  authored_search_free(&s); /* the search scratch belongs to the state */
  authored_cycles_free(s.cycles);
  authored_occ_close(&s.occupancy);
  authored_roomset_free(set);
}

/* Every cycle parameter is range-checked by the registry with its field. */
Test(cycles, parameter_validation) {
  static const char *const bad[][2] = {
      {"cycles", "loops"},
      {"w", "0.5"},
      {"w", "11"},
      {"stall_cutoff", "0"},
      {"expansions_max", "0"},
      {"candidate_distance", "97"},
      {"hop_cap", "1"},
      {"min_stretch", "-1"},
      {"chain_max", "33"},
      {"shims", "maybe"},
      {"grouping", "2"},
      {"cycle_interval", "-1"},
      {"spacing", "17"},
      {"tries", "0"},
      {"failures_max", "0"},
      {"failures_max", "1001"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dg_request request;
    dg_request_init(&request, dg_algorithm_find("authored"));
    dg_error err = {0};
    int rc = dg_request_set_text(&request, bad[i][0], bad[i][1], &err);
    cr_assert_neq(rc, 0, "%s=%s must be rejected", bad[i][0], bad[i][1]);
    cr_assert_str_eq(err.field, bad[i][0]);
  }
}

/* FNV-1a over 64 bits, one value at a time. */
static uint64_t fnv(uint64_t hash, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) {
    hash ^= (value >> (8 * i)) & 0xff;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/* The whole table as the search reads it and as it lies in memory: the
 * slot count, the state count, then every slot's key and cost in slot order
 * (a free slot's cost is not read, so it is left out). */
static uint64_t table_digest(const authored_pdb *pdb) {
  uint64_t hash = fnv(0xcbf29ce484222325ull, pdb->slots, 4);
  hash = fnv(hash, (uint64_t)pdb->states, 4);
  for (uint32_t s = 0; s < pdb->slots; s++)
    if (pdb->keys[s] != AUTHORED_PDB_EMPTY)
      hash = fnv(fnv(hash, s, 4), (uint64_t)pdb->keys[s] << 16 | pdb->costs[s], 6);
  return hash;
}

/* Every shipped set's full-size table, state for state and slot for slot,
 * against digests taken from the build before the start-up work was cut
 * (issue 22 goal 3): a faster build must make the very same tables. A
 * deliberate change to the tables (new moves, another bound) updates the
 * digests in the same commit and says why. */
Test(cycles, shipped_tables_unchanged) {
  const struct {
    const char *path;
    int states;
    uint64_t digest;
  } shipped[] = {{CONFIG_DIR "bench.json", 536932, 0xd3741698476e24f1ull},
                 {CONFIG_DIR "crypt.json", 536932, 0xb4f2464c941ab8a3ull},
                 {CONFIG_DIR "sewer.json", 532522, 0x2bbed7427aed18adull}};
  for (int s = 0; s < 3; s++) {
    authored_roomset *set = load_set(shipped[s].path);
    authored_pdb pdb;
    cr_assert_eq(authored_pdb_build(set, AUTHORED_PDB_COST_MAX, &pdb), 0);
    uint64_t digest = table_digest(&pdb);
    cr_expect_eq(pdb.states, shipped[s].states, "%s: %d states", shipped[s].path, pdb.states);
    cr_expect_eq(digest, shipped[s].digest, "%s: digest 0x%016llx", shipped[s].path,
                 (unsigned long long)digest);
    authored_pdb_free(&pdb);
    authored_roomset_free(set);
  }
}

/* The occupancy index's listing (authored_occ_collect, which the chain
 * search tests every room against) equals a plain scan of the boxes: every
 * box that overlaps the region, once, none other. The boxes straddle
 * bucket edges, sit at negative coordinates and overlap each other. */
Test(cycles, occupancy_collect_lists_each_overlapping_box_once) {
  authored_occ_index index;
  cr_assert_eq(authored_occ_init(&index), 0);
  dg_rng rng;
  dg_rng_seed(&rng, 11, 3);
  enum { BOXES = 400, REGIONS = 2000 };
  authored_box boxes[BOXES];
  for (int b = 0; b < BOXES; b++) {
    int x = dg_rng_range(&rng, -70, 70), y = dg_rng_range(&rng, -20, 20),
        z = dg_rng_range(&rng, -70, 70);
    boxes[b] = (authored_box){x,
                              y,
                              z,
                              x + dg_rng_range(&rng, 1, 40),
                              y + dg_rng_range(&rng, 1, 12),
                              z + dg_rng_range(&rng, 1, 40)};
    cr_assert_eq(authored_occ_add(&index, &boxes[b], b), 0);
  }
  authored_box_vec listed = {0};
  int seen[BOXES];
  for (int r = 0; r < REGIONS; r++) {
    int x = dg_rng_range(&rng, -90, 90), y = dg_rng_range(&rng, -25, 25),
        z = dg_rng_range(&rng, -90, 90);
    authored_box region = {x,
                           y,
                           z,
                           x + dg_rng_range(&rng, 1, 64),
                           y + dg_rng_range(&rng, 1, 22),
                           z + dg_rng_range(&rng, 1, 64)};
    listed.count = 0;
    cr_assert_eq(authored_occ_collect(&index, &region, &listed), 0);
    memset(seen, 0, sizeof seen);
    for (int k = 0; k < listed.count; k++) {
      int found = -1;
      for (int b = 0; b < BOXES && found < 0; b++)
        if (memcmp(&boxes[b], &listed.items[k], sizeof boxes[b]) == 0 && !seen[b])
          found = b;
      cr_assert_geq(found, 0, "region %d: listed a box twice or one never added", r);
      seen[found] = 1;
      cr_assert(authored_box_overlap(&boxes[found], &region), "region %d: box %d is not in it", r,
                found);
    }
    for (int b = 0; b < BOXES; b++)
      cr_assert(seen[b] || !authored_box_overlap(&boxes[b], &region),
                "region %d: box %d overlaps it but was not listed", r, b);
  }
  dg_vec_free(&listed);
  authored_occ_close(&index);
}

/* Each facing's reach holds every move that opens onto it: the chain
 * search looks for obstacles only there. */
Test(cycles, reach_holds_every_move_of_its_facing) {
  static const char *const sets[] = {"bench.json", "crypt.json", "sewer.json"};
  for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", CONFIG_DIR, sets[s]);
    authored_roomset *set = load_set(path);
    for (int m = 0; m < set->move_count; m++) {
      const authored_move *move = &set->moves[m];
      const authored_box *r = &set->reach[move->open_facing], *b = &move->bounds;
      cr_assert(b->x0 >= r->x0 && b->y0 >= r->y0 && b->z0 >= r->z0 && b->x1 <= r->x1 &&
                    b->y1 <= r->y1 && b->z1 <= r->z1,
                "%s: move %d lies outside its facing's reach", sets[s], m);
    }
    authored_roomset_free(set);
  }
}
