/* The cycle pass's driver (seed 003, "Inside the search" and "Making it
 * fast"): a tree turns every retreat into a long backtrack, so pairs of
 * open connectors close in space but far apart through the dungeon are
 * joined by a short chain of authored rooms.
 *
 * - Candidates (cycles_candidates.c, footnote 2): ranked worst stretch
 *   first; before each search the pair's distance through the current
 *   dungeon is checked again by a breadth-first search capped at `hop_cap`,
 *   since earlier cycles shorten paths.
 * - The search (cycles_search.c): weighted A* over precomputed move groups
 *   with the pattern database as heuristic and the stall cutoff.
 * - Commit: each chain room is chosen by spawn weight within its group;
 *   its unused doorways stay open for the tree to grow on from.
 * - cycles=corridors, the old method, carves a procedural corridor between
 *   the same pairs with a block-grid path-finder (corridor.c).
 *
 * This file owns the scratch the parts share (one per generation) and the
 * pass's figures in state->cycles. */
#include <stdlib.h>

#include "corridor.h"
#include "cycles_internal.h"

void authored_search_free(authored_state *state) {
  authored_corridor_free(state);
  struct authored_search *scratch = state->search;
  if (scratch == NULL)
    return;
  authored_chain_close(&scratch->chain);
  authored_graph_close(&scratch->graph);
  authored_pairs_close(&scratch->pairs);
  free(scratch);
  state->search = NULL;
}

/* The generation's results and search scratch, created on first use.
 * 0 or DG_ENOMEM (a half-made scratch is freed by authored_search_free). */
static int search_prepare(authored_state *state) {
  if (state->cycles == NULL && (state->cycles = calloc(1, sizeof *state->cycles)) == NULL)
    return DG_ENOMEM;
  if (state->search != NULL)
    return 0;
  if ((state->search = calloc(1, sizeof *state->search)) == NULL)
    return DG_ENOMEM;
  authored_chain_search *chain = &state->search->chain;
  if (dg_hash_init(&chain->seen, AUTHORED_SEEN_FIRST) != 0 ||
      dg_heap_init(&chain->open, 1024) != 0 || dg_hash_init(&chain->doorways, 1024) != 0)
    return DG_ENOMEM;
  return 0;
}

int authored_search_pair(authored_state *state, int from, int to, int *status, int *cost,
                         int *rooms, int64_t *expanded) {
  int rc = search_prepare(state);
  if (rc != 0)
    return rc;
  const authored_chain_search *chain = &state->search->chain;
  int last = -1;
  if ((rc = authored_run_search(state, &state->search->chain, from, to, status, &last, expanded)) !=
      0)
    return rc;
  *cost = *status == AUTHORED_FOUND ? chain->nodes.items[last].g : -1;
  *rooms = *status == AUTHORED_FOUND ? chain->nodes.items[last].depth : -1;
  return 0;
}

/* Exact distance (uncapped), for the report of built cycles. */
static int graph_distance_exact(authored_graph *graph, int a, int b) {
  return authored_graph_distance(graph, a, b, 1 << 30);
}

/* One attempt at closing a cycle between connectors a and b: what it
 * tried and what it found. */
typedef struct attempt {
  int a, b;         /* connectors */
  int pa, pb;       /* their placements */
  int before;       /* placements before the attempt: the chain's start */
  uint64_t started; /* dg_monotonic_ns() at the start */
  bool built;       /* a chain or corridor joins a and b */
  int chain_rooms;  /* rooms added by a chain (0 for a corridor) */
  int cost;         /* walking cost of what was built */
  int64_t expanded; /* search expansions */
} attempt;

/* Rebuilds the dungeon graph in the scratch from the connections so far,
 * with room for every chain room the search could add without growing the
 * per-placement graph arrays during the pass. */
static int load_dungeon_graph(authored_state *state, authored_graph *graph, int pair_count) {
  int most =
      state->placements.count + pair_count * dg_param_int(state->params, AUTHORED_P_CHAIN_MAX) + 1;
  int rc = authored_graph_reset(graph, most);
  for (int i = 0; rc == 0 && i < state->connections.count; i++) {
    const authored_connection *c = &state->connections.items[i];
    rc = authored_graph_add(graph, state->connectors.items[c->a].placement,
                            state->connectors.items[c->b].placement);
  }
  return rc;
}

/* Whether the pair (a, b) is still worth a search; counts it in cy when
 * not. */
static bool worth_trying(authored_state *state, authored_graph *graph, int a, int b, int cap,
                         int failures_max) {
  authored_cycles *cy = state->cycles;
  authored_connector *ka = &state->connectors.items[a], *kb = &state->connectors.items[b];
  if (ka->state == AUTHORED_CONN_CONNECTED || kb->state == AUTHORED_CONN_CONNECTED ||
      !authored_usable(state, a) || !authored_usable(state, b)) {
    cy->skipped_used++;
    return false;
  }
  /* Both ends have failed `failures_max` searches: the space round them
   * has mostly filled up since. Not sooner: a failure belongs to the
   * pair and the space of its time, and most chains that close
   * (three in four at 1,000 rooms) start or end at a doorway that had
   * failed before (seed 003, "Measuring instead of guessing"). */
  if (ka->failures >= failures_max && kb->failures >= failures_max) {
    cy->skipped_used++;
    return false;
  }
  if (authored_graph_distance(graph, ka->placement, kb->placement, cap) < cap) {
    cy->skipped_shortened++;
    return false;
  }
  return true;
}

/* The chain search for one attempt; a found chain is committed and
 * recorded in cy->built, a failure counted by its reason. */
static int search_chain(authored_state *state, attempt *try) {
  authored_cycles *cy = state->cycles;
  authored_chain_search *chain = &state->search->chain;
  int result, last = -1;
  int rc = authored_run_search(state, chain, try->a, try->b, &result, &last, &try->expanded);
  if (rc != 0)
    return rc;
  if (result == AUTHORED_FOUND) {
    try->cost = chain->nodes.items[last].g;
    try->chain_rooms = chain->nodes.items[last].depth;
    int distance = graph_distance_exact(&state->search->graph, try->pa, try->pb);
    if ((rc = authored_commit_chain(state, chain, try->a, try->b, last, cy->built.count)) != 0)
      return rc;
    try->built = true;
    return dg_vec_push(&cy->built, (authored_cycle){try->a, try->b, try->chain_rooms, try->cost,
                                                    distance, try->expanded});
  }
  if (result == AUTHORED_FAIL_TABLE)
    cy->failed_table++;
  else if (result == AUTHORED_FAIL_CUTOFF)
    cy->failed_cutoff++;
  else
    cy->failed_exhausted++;
  return 0;
}

/* After an attempt: a built one joins the dungeon graph (its rooms in a
 * line from pa to pb); a failed one counts against both doorways. */
static int record_attempt(authored_state *state, int mode, const attempt *try) {
  authored_cycles *cy = state->cycles;
  authored_graph *graph = &state->search->graph;
  int rc = 0;
  cy->expansions += try->expanded;
  if (!try->built) {
    state->connectors.items[try->a].failures++;
    state->connectors.items[try->b].failures++;
    cy->failed_expansions += try->expanded;
    return dg_vec_push(&cy->fail_ns, dg_monotonic_ns() - try->started);
  }
  if (mode == AUTHORED_CYCLES_CORRIDORS &&
      (rc = dg_vec_push(&cy->built, (authored_cycle){try->a, try->b, 0, try->cost,
                                                     graph_distance_exact(graph, try->pa, try->pb),
                                                     try->expanded})) != 0)
    return rc;
  cy->rooms_added += try->chain_rooms;
  cy->cost_total += try->cost;
  /* The dungeon graph gains the chain's rooms and connections. */
  int prev = try->pa;
  for (int p = try->before; p < state->placements.count; p++) {
    if ((rc = authored_graph_add(graph, prev, p)) != 0)
      return rc;
    prev = p;
  }
  return authored_graph_add(graph, prev, try->pb);
}

/* One attempt at joining connectors a and b by the pass's mode. */
static int attempt_pair(authored_state *state, int mode, int a, int b) {
  authored_cycles *cy = state->cycles;
  cy->attempts++;
  attempt try = {.a = a,
                 .b = b,
                 .pa = state->connectors.items[a].placement,
                 .pb = state->connectors.items[b].placement,
                 .started = dg_monotonic_ns(),
                 .before = state->placements.count};
  int rc;
  if (mode == AUTHORED_CYCLES_CORRIDORS) {
    rc = authored_corridor(state, a, b, cy->built.count, &try.built, &try.cost, &try.expanded);
    if (rc != 0)
      return rc;
    if (!try.built)
      cy->failed_exhausted++;
  } else if ((rc = search_chain(state, &try)) != 0) {
    return rc;
  }
  return record_attempt(state, mode, &try);
}

int authored_close_cycles(authored_state *state, dg_cancel *cancel) {
  if (state->cycles == NULL && (state->cycles = calloc(1, sizeof *state->cycles)) == NULL)
    return DG_ENOMEM;
  authored_cycles *cy = state->cycles;
  int mode = dg_param_enum(state->params, AUTHORED_P_CYCLES);
  if (mode == AUTHORED_CYCLES_NONE)
    return 0;
  uint64_t pass_started = dg_monotonic_ns();
  int cap = dg_param_int(state->params, AUTHORED_P_HOP_CAP);
  int failures_max = dg_param_int(state->params, AUTHORED_P_FAILURES_MAX);
  /* The scratch (state->search) outlives the pass; only the dungeon graph is
   * rebuilt in it, since growth added rooms since the last pass. */
  int rc = search_prepare(state);
  if (rc != 0)
    goto done;
  struct authored_search *scratch = state->search;
  if ((rc = authored_find_candidates(state, &scratch->pairs)) != 0)
    goto done;
  const authored_candidate *pairs = scratch->pairs.ranked.items;
  int pair_count = scratch->pairs.ranked.count;
  cy->candidates += pair_count;
  if ((rc = load_dungeon_graph(state, &scratch->graph, pair_count)) != 0)
    goto done;
  for (int i = 0; i < pair_count; i++) {
    if ((i & 31) == 0 && (rc = dg_cancel_check(cancel)) != 0)
      goto done;
    int a = pairs[i].a, b = pairs[i].b;
    if (!worth_trying(state, &scratch->graph, a, b, cap, failures_max))
      continue;
    if ((rc = attempt_pair(state, mode, a, b)) != 0)
      goto done;
  }
  rc = 0;
done:
  cy->ns += dg_monotonic_ns() - pass_started;
  return rc;
}
