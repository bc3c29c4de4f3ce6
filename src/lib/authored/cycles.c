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
 * pass's figures in s->cycles. */
#include <stdlib.h>

#include "corridor.h"
#include "cycles_internal.h"

void au_search_free(au_state *s) {
  au_corridor_free(s);
  struct au_search *q = s->search;
  if (q == NULL)
    return;
  au_chain_close(&q->chain);
  au_graph_close(&q->graph);
  au_pairs_close(&q->pairs);
  free(q);
  s->search = NULL;
}

/* The generation's results and search scratch, created on first use.
 * 0 or DG_ENOMEM (a half-made scratch is freed by au_search_free). */
static int search_prepare(au_state *s) {
  if (s->cycles == NULL && (s->cycles = calloc(1, sizeof *s->cycles)) == NULL)
    return DG_ENOMEM;
  if (s->search != NULL)
    return 0;
  if ((s->search = calloc(1, sizeof *s->search)) == NULL)
    return DG_ENOMEM;
  au_chain_search *chain = &s->search->chain;
  if (dg_hash_init(&chain->seen, AU_SEEN_FIRST) != 0 || dg_heap_init(&chain->open, 1024) != 0)
    return DG_ENOMEM;
  return 0;
}

int au_search_pair(au_state *s, int from, int to, int *status, int *cost, int *rooms,
                   int64_t *expanded) {
  int rc = search_prepare(s);
  if (rc != 0)
    return rc;
  const au_chain_search *q = &s->search->chain;
  int last = -1;
  if ((rc = au_run_search(s, &s->search->chain, from, to, status, &last, expanded)) != 0)
    return rc;
  *cost = *status == AU_FOUND ? q->nodes.items[last].g : -1;
  *rooms = *status == AU_FOUND ? q->nodes.items[last].depth : -1;
  return 0;
}

/* Exact distance (uncapped), for the report of built cycles. */
static int graph_distance_exact(au_graph *graph, int a, int b) {
  return au_graph_distance(graph, a, b, 1 << 30);
}

int au_close_cycles(au_state *s, dg_cancel *cancel) {
  if (s->cycles == NULL && (s->cycles = calloc(1, sizeof *s->cycles)) == NULL)
    return DG_ENOMEM;
  au_cycles *cy = s->cycles;
  int mode = dg_param_enum(s->params, P_CYCLES);
  if (mode == CYCLES_NONE)
    return 0;
  uint64_t pass_started = dg_monotonic_ns();
  int cap = dg_param_int(s->params, P_HOP_CAP);
  int failures_max = dg_param_int(s->params, P_FAILURES_MAX);
  /* The scratch (s->search) outlives the pass; only the dungeon graph is
   * rebuilt in it, since growth added rooms since the last pass. */
  int rc = search_prepare(s);
  if (rc != 0)
    goto done;
  struct au_search *q = s->search;
  au_graph *graph = &q->graph;
  if ((rc = au_find_candidates(s, &q->pairs)) != 0)
    goto done;
  const au_candidate *pairs = q->pairs.ranked.items;
  int pair_count = q->pairs.ranked.count;
  cy->candidates += pair_count;
  /* Room for every chain room the search could add without growing the
   * per-placement graph arrays during the pass. */
  int most = s->placements.count + pair_count * dg_param_int(s->params, P_CHAIN_MAX) + 1;
  if ((rc = au_graph_reset(graph, most)) != 0)
    goto done;
  for (int i = 0; i < s->connections.count; i++) {
    const au_connection *c = &s->connections.items[i];
    if ((rc = au_graph_add(graph, s->connectors.items[c->a].placement,
                           s->connectors.items[c->b].placement)) != 0)
      goto done;
  }
  for (int i = 0; i < pair_count; i++) {
    if ((i & 31) == 0 && (rc = dg_cancel_check(cancel)) != 0)
      goto done;
    int a = pairs[i].a, b = pairs[i].b;
    au_connector *ka = &s->connectors.items[a], *kb = &s->connectors.items[b];
    if (ka->state == CONN_CONNECTED || kb->state == CONN_CONNECTED || !au_usable(s, a) ||
        !au_usable(s, b)) {
      cy->skipped_used++;
      continue;
    }
    /* Both ends have failed `failures_max` searches: the space round them
     * has mostly filled up since. Not sooner: a failure belongs to the
     * pair and the space of its time, and most chains that close
     * (three in four at 1,000 rooms) start or end at a doorway that had
     * failed before (seed 003, "Measuring instead of guessing"). */
    if (ka->failures >= failures_max && kb->failures >= failures_max) {
      cy->skipped_used++;
      continue;
    }
    int pa = ka->placement, pb = kb->placement;
    if (au_graph_distance(graph, pa, pb, cap) < cap) {
      cy->skipped_shortened++;
      continue;
    }
    cy->attempts++;
    uint64_t started = dg_monotonic_ns();
    int64_t expanded = 0;
    bool built = false;
    int chain_rooms = 0, cost = 0;
    int before = s->placements.count;
    if (mode == CYCLES_CORRIDORS) {
      rc = au_corridor(s, a, b, cy->built.count, &built, &cost, &expanded);
      if (rc != 0)
        goto done;
      if (!built)
        cy->failed_exhausted++;
    } else {
      int result, last = -1;
      if ((rc = au_run_search(s, &q->chain, a, b, &result, &last, &expanded)) != 0)
        goto done;
      if (result == AU_FOUND) {
        cost = q->chain.nodes.items[last].g;
        chain_rooms = q->chain.nodes.items[last].depth;
        int distance = graph_distance_exact(graph, pa, pb);
        if ((rc = au_commit_chain(s, &q->chain, a, b, last, cy->built.count)) != 0)
          goto done;
        built = true;
        if ((rc = dg_vec_push(&cy->built,
                              (au_cycle){a, b, chain_rooms, cost, distance, expanded})) != 0)
          goto done;
      } else if (result == AU_FAIL_TABLE) {
        cy->failed_table++;
      } else if (result == AU_FAIL_CUTOFF) {
        cy->failed_cutoff++;
      } else {
        cy->failed_exhausted++;
      }
    }
    cy->expansions += expanded;
    if (built) {
      if (mode == CYCLES_CORRIDORS &&
          (rc = dg_vec_push(
               &cy->built,
               (au_cycle){a, b, 0, cost, graph_distance_exact(graph, pa, pb), expanded})) != 0)
        goto done;
      cy->rooms_added += chain_rooms;
      cy->cost_total += cost;
      /* The dungeon graph gains the chain's rooms and connections. */
      int prev = pa;
      for (int p = before; p < s->placements.count; p++) {
        if ((rc = au_graph_add(graph, prev, p)) != 0)
          goto done;
        prev = p;
      }
      if ((rc = au_graph_add(graph, prev, pb)) != 0)
        goto done;
    } else {
      s->connectors.items[a].failures++;
      s->connectors.items[b].failures++;
      cy->failed_expansions += expanded;
      if ((rc = dg_vec_push(&cy->fail_ns, dg_monotonic_ns() - started)) != 0)
        goto done;
    }
  }
  rc = 0;
done:
  cy->ns += dg_monotonic_ns() - pass_started;
  return rc;
}
