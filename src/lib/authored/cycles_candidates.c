/* Which pairs of doorways the cycle pass tries to join (seed 003, "The
 * setup" and footnote 2): open doorways bucketed in space; pairs within
 * `candidate_distance` blocks whose tree distance is at least `hop_cap`
 * rooms and at least `min_stretch` rooms per block, ranked by stretch (tree
 * distance / blocks), worst first, "so the biggest shortcuts get built
 * before the space between them fills up". Also the dungeon graph whose
 * capped breadth-first search re-checks a pair before its search, since
 * earlier cycles shorten paths. */
#include <stdlib.h>

#include "cycles_internal.h"

static int iabs(int v) {
  return v < 0 ? -v : v;
}

/* ---- the dungeon graph ---- */

int authored_graph_reset(authored_graph *graph, int nodes) {
  if (dg_vec_reserve(&graph->nodes, nodes) != 0 || dg_vec_reserve(&graph->queue, nodes) != 0)
    return DG_ENOMEM;
  /* Marks of 0 read as unvisited: stamps start at 1. */
  for (int i = 0; i < nodes; i++)
    graph->nodes.items[i] = (authored_graph_node){-1, 0, 0};
  graph->nodes.count = nodes;
  graph->edges.count = 0;
  graph->stamp = 0;
  return 0;
}

int authored_graph_add(authored_graph *graph, int a, int b) {
  if (dg_vec_reserve(&graph->edges, graph->edges.count + 2) != 0)
    return DG_ENOMEM;
  authored_graph_node *nodes = graph->nodes.items;
  authored_graph_edge *edges = graph->edges.items;
  edges[graph->edges.count] = (authored_graph_edge){b, nodes[a].head};
  nodes[a].head = graph->edges.count++;
  edges[graph->edges.count] = (authored_graph_edge){a, nodes[b].head};
  nodes[b].head = graph->edges.count++;
  return 0;
}

int authored_graph_distance(authored_graph *graph, int a, int b, int cap) {
  if (a == b)
    return 0;
  authored_graph_node *nodes = graph->nodes.items;
  const authored_graph_edge *edges = graph->edges.items;
  int *queue = graph->queue.items;
  int stamp = ++graph->stamp;
  int head = 0, tail = 0;
  nodes[a].mark = stamp;
  nodes[a].dist = 0;
  queue[tail++] = a;
  while (head < tail) {
    int v = queue[head++];
    if (nodes[v].dist + 1 >= cap)
      continue;
    for (int e = nodes[v].head; e >= 0; e = edges[e].next) {
      int w = edges[e].to;
      if (nodes[w].mark == stamp)
        continue;
      if (w == b)
        return nodes[v].dist + 1;
      nodes[w].mark = stamp;
      nodes[w].dist = nodes[v].dist + 1;
      queue[tail++] = w;
    }
  }
  return cap;
}

void authored_graph_close(authored_graph *graph) {
  dg_vec_free(&graph->nodes);
  dg_vec_free(&graph->edges);
  dg_vec_free(&graph->queue);
}

/* ---- candidates ---- */

bool authored_usable(const authored_state *state, int c) {
  return state->connectors.items[c].state != AUTHORED_CONN_CONNECTED &&
         authored_front_free(state, c);
}

static int tree_distance(const authored_state *state, int a, int b) {
  const authored_placement *placements = state->placements.items;
  int hops = 0;
  while (a != b) {
    if (placements[a].depth >= placements[b].depth)
      a = placements[a].parent;
    else
      b = placements[b].parent;
    hops++;
  }
  return hops;
}

/* Worst stretch first; ties by connector indices (deterministic). */
static int by_stretch(const void *x, const void *y) {
  const authored_candidate *p = x, *q = y;
  /* p.tree / p.blocks > q.tree / q.blocks, in integers */
  int64_t l = (int64_t)p->tree_distance * q->blocks, r = (int64_t)q->tree_distance * p->blocks;
  if (l != r)
    return l > r ? -1 : 1;
  if (p->a != q->a)
    return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

static uint64_t cell_key(int cx, int cz) {
  return (uint64_t)(uint32_t)(cx + (1 << 20)) << 32 | (uint32_t)(cz + (1 << 20));
}

static int floor_div(int v, int d) {
  return v >= 0 ? v / d : -((-v + d - 1) / d);
}

/* Pairs close in space (square buckets as wide as the candidate distance,
 * so that only neighbouring buckets need looking at) and far in the tree. */
int authored_find_candidates(authored_state *state, authored_pairs *pairs) {
  const dg_params *p = state->params;
  int reach = dg_param_int(p, AUTHORED_P_CANDIDATE_DISTANCE),
      cap = dg_param_int(p, AUTHORED_P_HOP_CAP);
  double min_stretch = dg_param_float(p, AUTHORED_P_MIN_STRETCH);
  int n = state->connectors.count;
  pairs->usable.count = 0;
  pairs->ranked.count = 0;
  if (dg_vec_reserve(&pairs->usable, n) != 0 || dg_vec_reserve(&pairs->next, n) != 0)
    return DG_ENOMEM;
  if (pairs->buckets.slots == NULL ? dg_hash_init(&pairs->buckets, (uint32_t)n) != 0
                                   : dg_hash_reserve(&pairs->buckets, (uint32_t)n) != 0)
    return DG_ENOMEM;
  dg_hash_clear(&pairs->buckets);
  pairs->next.count = n;
  int *next = pairs->next.items;
  for (int c = 0; c < n; c++) {
    if (!authored_usable(state, c))
      continue;
    pairs->usable.items[pairs->usable.count++] = c;
    const authored_connector *k = &state->connectors.items[c];
    int32_t *head;
    if (dg_hash_put(&pairs->buckets, cell_key(floor_div(k->x, reach), floor_div(k->z, reach)), -1,
                    &head) < 0)
      return DG_ENOMEM;
    next[c] = *head;
    *head = c;
  }
  for (int i = 0; i < pairs->usable.count; i++) {
    int a = pairs->usable.items[i];
    const authored_connector *ka = &state->connectors.items[a];
    int cx = floor_div(ka->x, reach), cz = floor_div(ka->z, reach);
    for (int dx = -1; dx <= 1; dx++)
      for (int dz = -1; dz <= 1; dz++) {
        const int32_t *head = dg_hash_get(&pairs->buckets, cell_key(cx + dx, cz + dz));
        if (head == NULL)
          continue;
        for (int b = *head; b >= 0; b = next[b]) {
          if (b <= a)
            continue;
          const authored_connector *kb = &state->connectors.items[b];
          if (kb->placement == ka->placement || iabs(kb->y - ka->y) > AUTHORED_PDB_Y_RANGE)
            continue;
          int blocks = iabs(kb->x - ka->x) + iabs(kb->y - ka->y) + iabs(kb->z - ka->z);
          if (blocks > reach)
            continue;
          int tree = tree_distance(state, ka->placement, kb->placement);
          if (tree < cap || tree < min_stretch * (blocks > 0 ? blocks : 1))
            continue;
          if (dg_vec_push(&pairs->ranked,
                          (authored_candidate){a, b, tree, blocks > 0 ? blocks : 1}) != 0)
            return DG_ENOMEM;
        }
      }
  }
  if (pairs->ranked.count > 0)
    qsort(pairs->ranked.items, (size_t)pairs->ranked.count, sizeof *pairs->ranked.items,
          by_stretch);
  return 0;
}

void authored_pairs_close(authored_pairs *pairs) {
  dg_vec_free(&pairs->usable);
  dg_vec_free(&pairs->next);
  dg_hash_close(&pairs->buckets);
  dg_vec_free(&pairs->ranked);
}
