/* The cycle pass (seed 003, "Inside the search" and "Making it fast"): a
 * tree turns every retreat into a long backtrack, so pairs of open
 * connectors close in space but far apart through the dungeon are joined
 * by a short chain of authored rooms.
 *
 * - Candidates (footnote 2): open connectors bucketed in space; pairs
 *   within `candidate_distance` whose tree distance is at least `hop_cap`,
 *   ranked by stretch (tree distance / distance in blocks), worst first.
 *   Before each search the pair's distance through the current dungeon is
 *   checked again by a breadth-first search capped at `hop_cap`, since
 *   earlier cycles shorten paths.
 * - The search: weighted A* (f = g + w h) whose nodes are connector states
 *   and whose edges are precomputed move groups (or single moves when
 *   grouping is off), checked against the occupancy index and the chain's
 *   own rooms; h is the pattern database (pdb.h), and a state it has no
 *   entry for is pruned at once. The open list, the node pool and the
 *   visited table are flat arrays reused from one search to the next.
 * - The stall cutoff ("Knowing when to stop"): a search whose best h has
 *   not improved for `stall_cutoff` expansions is abandoned. Every search
 *   records what each cutoff of au_cutoffs would have saved (expansions of
 *   failed searches) and lost (cycles), the curve `dungeon bench` prints.
 * - Commit: each chain room is chosen by spawn weight within its group;
 *   its unused doorways stay open for the tree to grow on from.
 * - cycles=corridors, the old method, carves a procedural corridor between
 *   the same pairs with a block-grid path-finder (corridor.c). */
#include <stdlib.h>
#include <string.h>

#include "authored.h"

#define FAILURES_MAX 2 /* failed searches after which a connector pairs only with fresh ones */
const int au_cutoffs[AU_CUTOFFS] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 0};

typedef struct candidate {
  int a, b;          /* connectors */
  int tree_distance; /* rooms apart through the tree */
  int blocks;        /* Manhattan distance between the doorways */
} candidate;

/* A search node: a connector state reached by placing one room (`move`,
 * a group or a move index) at the parent's state and leaving by `exit`. */
typedef struct node {
  int x, y, z, facing; /* the open doorway this node stands for */
  int parent;          /* node index, -1 for the root */
  int move;            /* move index placed to get here (the group's first member) */
  int group;           /* group index, or -1 when grouping is off */
  int exit;            /* exit index within the move */
  int g;               /* walking cost so far */
  int depth;           /* rooms in the chain so far */
} node;

typedef struct cell_entry {
  uint64_t key;
  int head;
} cell_entry;

/* Everything the cycle passes of one generation need, kept in au_state and
 * reused by every pass and every search (issue 6: no allocation per search
 * or per node; arrays grow only past the largest use so far). */
struct au_search {
  node *nodes;
  int node_count, node_capacity;
  dg_heap open;
  uint64_t *seen_keys;  /* visited table: packed state key << 8 | chain depth */
  int *seen_g;          /* best g of each key */
  uint32_t *seen_stamp; /* slot valid when equal to `stamp` */
  uint32_t seen_slots, stamp;
  uint32_t seen_used;                /* keys stamped in the current search */
  int *adj_head, *adj_next, *adj_to; /* dungeon graph by placement, for BFS */
  int adj_edges, adj_capacity, adj_nodes;
  int *bfs_mark, *bfs_queue, *bfs_dist;
  int bfs_stamp, bfs_capacity;
  int *list, *next; /* candidate connectors, and bucket chains by connector */
  int list_capacity;
  cell_entry *cells; /* candidate buckets */
  uint32_t cell_slots;
  struct candidate *pairs;
  int pair_capacity;
};
typedef struct au_search search;

static int reserve(void **items, int *capacity, int needed, size_t size) {
  if (needed <= *capacity)
    return 0;
  int grown = *capacity ? *capacity : 64;
  while (grown < needed)
    grown *= 2;
  void *bigger = realloc(*items, (size_t)grown * size);
  if (bigger == NULL)
    return DG_ENOMEM;
  *items = bigger;
  *capacity = grown;
  return 0;
}

void au_cycles_free(au_cycles *cycles) {
  if (cycles == NULL)
    return;
  free(cycles->items);
  free(cycles->fail_ns);
  free(cycles);
}

static int iabs(int v) {
  return v < 0 ? -v : v;
}

/* ---- the dungeon graph, for the "far in the tree" checks ---- */

static int graph_add(search *q, int a, int b) {
  int cap = q->adj_capacity;
  if (reserve((void **)&q->adj_next, &cap, q->adj_edges + 2, sizeof(int)) != 0 ||
      reserve((void **)&q->adj_to, &q->adj_capacity, q->adj_edges + 2, sizeof(int)) != 0)
    return DG_ENOMEM;
  q->adj_to[q->adj_edges] = b;
  q->adj_next[q->adj_edges] = q->adj_head[a];
  q->adj_head[a] = q->adj_edges++;
  q->adj_to[q->adj_edges] = a;
  q->adj_next[q->adj_edges] = q->adj_head[b];
  q->adj_head[b] = q->adj_edges++;
  return 0;
}

/* Rooms between placements a and b through the dungeon, searching no
 * further than `cap` hops; returns cap when they are at least that far. */
static int graph_distance(search *q, int a, int b, int cap) {
  if (a == b)
    return 0;
  q->bfs_stamp++;
  int head = 0, tail = 0;
  q->bfs_mark[a] = q->bfs_stamp;
  q->bfs_dist[a] = 0;
  q->bfs_queue[tail++] = a;
  while (head < tail) {
    int v = q->bfs_queue[head++];
    if (q->bfs_dist[v] + 1 >= cap)
      continue;
    for (int e = q->adj_head[v]; e >= 0; e = q->adj_next[e]) {
      int w = q->adj_to[e];
      if (q->bfs_mark[w] == q->bfs_stamp)
        continue;
      if (w == b)
        return q->bfs_dist[v] + 1;
      q->bfs_mark[w] = q->bfs_stamp;
      q->bfs_dist[w] = q->bfs_dist[v] + 1;
      q->bfs_queue[tail++] = w;
    }
  }
  return cap;
}

/* Exact distance (uncapped), for the report of built cycles. */
static int graph_distance_exact(search *q, int a, int b) {
  return graph_distance(q, a, b, 1 << 30);
}

/* ---- candidates ---- */

/* A connector that could end a cycle: not yet joined, and its doorway
 * opens onto free space. */
static bool usable(au_state *s, int c) {
  const au_connector *k = &s->connectors[c];
  return k->state != CONN_CONNECTED && occ_block_free(&s->occupancy, k->x + facing_dx(k->facing),
                                                      k->y, k->z + facing_dz(k->facing));
}

static int tree_distance(const au_state *s, int a, int b) {
  int hops = 0;
  while (a != b) {
    if (s->placements[a].depth >= s->placements[b].depth)
      a = s->placements[a].parent;
    else
      b = s->placements[b].parent;
    hops++;
  }
  return hops;
}

/* Worst stretch first; ties by connector indices (deterministic). */
static int by_stretch(const void *x, const void *y) {
  const candidate *p = x, *q = y;
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

/* Pairs close in space (a hash of square buckets as wide as the candidate
 * distance, so that only neighbouring buckets need looking at) and far in
 * the tree. */
static int find_candidates(au_state *s, search *q, int *count) {
  const dg_params *p = s->params;
  int reach = dg_param_int(p, P_CANDIDATE_DISTANCE), cap = dg_param_int(p, P_HOP_CAP);
  double min_stretch = dg_param_float(p, P_MIN_STRETCH);
  int n = s->connector_count;
  int list_capacity = q->list_capacity;
  if (reserve((void **)&q->list, &list_capacity, n, sizeof *q->list) != 0 ||
      reserve((void **)&q->next, &q->list_capacity, n, sizeof *q->next) != 0)
    return DG_ENOMEM;
  uint32_t slots = 64;
  while (slots < (uint32_t)n * 2)
    slots *= 2;
  if (slots > q->cell_slots) {
    cell_entry *bigger = realloc(q->cells, (size_t)slots * sizeof *bigger);
    if (bigger == NULL)
      return DG_ENOMEM;
    q->cells = bigger;
    q->cell_slots = slots;
  }
  int *list = q->list, *next = q->next;
  cell_entry *cells = q->cells;
  int pair_count = 0, listed = 0;
  for (uint32_t i = 0; i < slots; i++)
    cells[i].key = UINT64_MAX;
  for (int c = 0; c < n; c++) {
    if (!usable(s, c))
      continue;
    list[listed++] = c;
    const au_connector *k = &s->connectors[c];
    uint64_t key = cell_key(floor_div(k->x, reach), floor_div(k->z, reach));
    uint32_t slot = (uint32_t)dg_mix64(key) & (slots - 1);
    while (cells[slot].key != UINT64_MAX && cells[slot].key != key)
      slot = (slot + 1) & (slots - 1);
    if (cells[slot].key == UINT64_MAX)
      cells[slot] = (cell_entry){key, -1};
    next[c] = cells[slot].head;
    cells[slot].head = c;
  }
  for (int i = 0; i < listed; i++) {
    int a = list[i];
    const au_connector *ka = &s->connectors[a];
    int cx = floor_div(ka->x, reach), cz = floor_div(ka->z, reach);
    for (int dx = -1; dx <= 1; dx++)
      for (int dz = -1; dz <= 1; dz++) {
        uint64_t key = cell_key(cx + dx, cz + dz);
        uint32_t slot = (uint32_t)dg_mix64(key) & (slots - 1);
        while (cells[slot].key != UINT64_MAX && cells[slot].key != key)
          slot = (slot + 1) & (slots - 1);
        if (cells[slot].key == UINT64_MAX)
          continue;
        for (int b = cells[slot].head; b >= 0; b = next[b]) {
          if (b <= a)
            continue;
          const au_connector *kb = &s->connectors[b];
          if (kb->placement == ka->placement || iabs(kb->y - ka->y) > PDB_Y_RANGE)
            continue;
          int blocks = iabs(kb->x - ka->x) + iabs(kb->y - ka->y) + iabs(kb->z - ka->z);
          if (blocks > reach)
            continue;
          int tree = tree_distance(s, ka->placement, kb->placement);
          if (tree < cap || tree < min_stretch * (blocks > 0 ? blocks : 1))
            continue;
          if (reserve((void **)&q->pairs, &q->pair_capacity, pair_count + 1, sizeof *q->pairs) != 0)
            return DG_ENOMEM;
          q->pairs[pair_count++] = (candidate){a, b, tree, blocks > 0 ? blocks : 1};
        }
      }
  }
  if (pair_count > 0)
    qsort(q->pairs, (size_t)pair_count, sizeof *q->pairs, by_stretch);
  *count = pair_count;
  return 0;
}

/* ---- the search ---- */

/* State (x, y, z, facing) relative to goal connector `goal`, turned so that
 * the goal faces north: the pattern database's frame. */
static uint32_t goal_key(const au_connector *goal, int x, int y, int z, int facing) {
  int dx = x - goal->x, dy = y - goal->y, dz = z - goal->z;
  int turns = (4 - goal->facing) & 3;
  for (int t = 0; t < turns; t++) {
    int nx = -dz, nz = dx;
    dx = nx;
    dz = nz;
  }
  return pdb_key(dx, dy, dz, (facing + turns) & 3);
}

/* True when `key` has not been reached at cost g or less in this search. */
static bool seen_improves(const search *q, uint64_t key, int g) {
  uint32_t mask = q->seen_slots - 1, slot = (uint32_t)dg_mix64(key) & mask;
  while (q->seen_stamp[slot] == q->stamp && q->seen_keys[slot] != key)
    slot = (slot + 1) & mask;
  return q->seen_stamp[slot] != q->stamp || q->seen_g[slot] > g;
}

/* Lowers the best g of `key`: 1 when the state is new or cheaper, 0 when
 * not, DG_ENOMEM. The table is kept at most half full by doubling (rare:
 * it is reused, so it only grows past the largest search so far). */
static int seen_relax(search *q, uint64_t key, int g) {
  if ((q->seen_used + 1) * 2 > q->seen_slots) {
    uint32_t slots = q->seen_slots * 2;
    uint64_t *keys = malloc((size_t)slots * sizeof *keys);
    int *best = malloc((size_t)slots * sizeof *best);
    uint32_t *stamps = calloc((size_t)slots, sizeof *stamps);
    if (keys == NULL || best == NULL || stamps == NULL) {
      free(keys);
      free(best);
      free(stamps);
      return DG_ENOMEM;
    }
    for (uint32_t i = 0; i < q->seen_slots; i++) {
      if (q->seen_stamp[i] != q->stamp)
        continue;
      uint32_t slot = (uint32_t)dg_mix64(q->seen_keys[i]) & (slots - 1);
      while (stamps[slot] == q->stamp)
        slot = (slot + 1) & (slots - 1);
      stamps[slot] = q->stamp;
      keys[slot] = q->seen_keys[i];
      best[slot] = q->seen_g[i];
    }
    free(q->seen_keys);
    free(q->seen_g);
    free(q->seen_stamp);
    q->seen_keys = keys;
    q->seen_g = best;
    q->seen_stamp = stamps;
    q->seen_slots = slots;
  }
  uint32_t mask = q->seen_slots - 1, slot = (uint32_t)dg_mix64(key) & mask;
  while (q->seen_stamp[slot] == q->stamp && q->seen_keys[slot] != key)
    slot = (slot + 1) & mask;
  if (q->seen_stamp[slot] == q->stamp) {
    if (q->seen_g[slot] <= g)
      return 0;
  } else {
    q->seen_used++;
  }
  q->seen_stamp[slot] = q->stamp;
  q->seen_keys[slot] = key;
  q->seen_g[slot] = g;
  return 1;
}

static rs_box shifted(const rs_box *b, int x, int y, int z) {
  return (rs_box){b->x0 + x, b->y0 + y, b->z0 + z, b->x1 + x, b->y1 + y, b->z1 + z};
}

/* True when move `m` placed at node `at`'s doorway is clear of the dungeon
 * and of the rooms the chain up to `at` has placed. */
static bool chain_fits(au_state *s, search *q, int at, const rs_move *m) {
  const node *n = &q->nodes[at];
  int limit = dg_param_int(s->params, P_VERTICAL_LIMIT);
  if (m->bounds.y0 + n->y < -limit || m->bounds.y1 + n->y > limit)
    return false;
  rs_box bounds = shifted(&m->bounds, n->x, n->y, n->z);
  for (int up = at; q->nodes[up].parent >= 0; up = q->nodes[up].parent) {
    const node *placed = &q->nodes[up];
    const node *base = &q->nodes[placed->parent];
    const rs_move *pm = &s->set->moves[placed->move];
    rs_box pb = shifted(&pm->bounds, base->x, base->y, base->z);
    if (!rs_box_overlap(&pb, &bounds))
      continue;
    for (int i = 0; i < m->box_count; i++) {
      rs_box w = shifted(&s->set->boxes[m->box_first + i], n->x, n->y, n->z);
      for (int j = 0; j < pm->box_count; j++) {
        rs_box v = shifted(&s->set->boxes[pm->box_first + j], base->x, base->y, base->z);
        if (rs_box_overlap(&w, &v))
          return false;
      }
    }
  }
  s->fit_checks++;
  for (int i = 0; i < m->box_count; i++) {
    rs_box w = shifted(&s->set->boxes[m->box_first + i], n->x, n->y, n->z);
    if (!occ_is_free(&s->occupancy, &w))
      return false;
  }
  return true;
}

static int push_node(search *q, node n, uint64_t priority) {
  if (reserve((void **)&q->nodes, &q->node_capacity, q->node_count + 1, sizeof *q->nodes) != 0)
    return DG_ENOMEM;
  q->nodes[q->node_count] = n;
  return dg_heap_push(&q->open, priority, (uint32_t)q->node_count++);
}

typedef enum {
  FOUND = AU_FOUND,
  FAIL_TABLE = AU_FAIL_TABLE,
  FAIL_CUTOFF = AU_FAIL_CUTOFF,
  FAIL_EXHAUSTED = AU_FAIL_EXHAUSTED
} outcome;

/* Weighted A* from connector `from` to connector `to`. On FOUND, *goal_node
 * is the node whose doorway meets `to`. Records the cutoff curve. */
static int run_search(au_state *s, search *q, int from, int to, outcome *result, int *goal_node,
                      int64_t *expanded) {
  const rs_set *set = s->set;
  const au_connector *goal = &s->connectors[to], *start = &s->connectors[from];
  double w = dg_param_float(s->params, P_WEIGHT);
  int cutoff = dg_param_int(s->params, P_STALL_CUTOFF);
  int expansions_max = dg_param_int(s->params, P_EXPANSIONS_MAX);
  int chain_max = dg_param_int(s->params, P_CHAIN_MAX);
  bool shims = dg_param_bool(s->params, P_SHIMS), grouping = dg_param_bool(s->params, P_GROUPING);
  q->node_count = 0;
  dg_heap_clear(&q->open);
  q->stamp++;
  q->seen_used = 0;
  *expanded = 0;
  int h0 = pdb_lookup(&set->pdb, goal_key(goal, start->x, start->y, start->z, start->facing));
  if (h0 < 0) {
    *result = FAIL_TABLE;
    return 0;
  }
  int rc = push_node(q, (node){start->x, start->y, start->z, start->facing, -1, -1, -1, -1, 0, 0},
                     (uint64_t)(w * h0 * 16.0));
  if (rc != 0)
    return rc;
  int best_h = h0, stall = 0;
  int64_t first_cut[AU_CUTOFFS];
  for (int c = 0; c < AU_CUTOFFS; c++)
    first_cut[c] = -1;
  uint32_t at;
  *result = FAIL_EXHAUSTED;
  while (dg_heap_pop(&q->open, NULL, &at)) {
    node n = q->nodes[at];
    int h = pdb_lookup(&set->pdb, goal_key(goal, n.x, n.y, n.z, n.facing));
    if (h == 0) {
      *result = FOUND;
      *goal_node = (int)at;
      break;
    }
    (*expanded)++;
    /* One search may run up to expansions_max (10 million) steps: the
     * deadline must be able to stop it in the middle. */
    if ((*expanded & 4095) == 0 && (rc = dg_cancel_check(s->cancel)) != 0)
      return rc;
    if (h < best_h) {
      best_h = h;
      stall = 0;
    } else {
      stall++;
      for (int c = 0; c < AU_CUTOFFS - 1; c++)
        if (stall == au_cutoffs[c] && first_cut[c] < 0)
          first_cut[c] = *expanded;
    }
    if (stall >= cutoff) {
      *result = FAIL_CUTOFF;
      break;
    }
    if (*expanded >= expansions_max) {
      *result = FAIL_CUTOFF;
      break;
    }
    if (n.depth >= chain_max)
      continue;
    int count = grouping ? set->by_facing_count[n.facing] : set->moves_by_facing_count[n.facing];
    for (int i = 0; i < count; i++) {
      int group = grouping ? set->by_facing[n.facing][i] : -1;
      int m = grouping ? set->members[set->groups[group].member_first]
                       : set->moves_by_facing[n.facing][i];
      if (!shims && (set->rooms[set->moves[m].room].tag_bits & TAG_SHIM))
        continue;
      const rs_move *move = &set->moves[m];
      if (move->exit_count == 0)
        continue; /* a dead end cannot carry a chain on */
      /* Collision first: in the tight pockets between branches most rooms
       * do not fit, and the check is cheaper than the children's table
       * lookups (each a likely cache miss). */
      if (!chain_fits(s, q, (int)at, move))
        continue;
      for (int e = 0; e < move->exit_count; e++) {
        const rs_exit *x = &set->exits[move->exit_first + e];
        int cx = n.x + x->x, cy = n.y + x->y, cz = n.z + x->z;
        uint32_t key = goal_key(goal, cx, cy, cz, x->facing);
        int cg = n.g + x->cost;
        /* Visited by state and chain length: with a length limit, a state
         * reached cheaply but late must not hide the same state reached
         * dearer but with rooms to spare. */
        uint64_t seen_key = (uint64_t)key << 8 | (uint64_t)(n.depth + 1);
        if (!seen_improves(q, seen_key, cg))
          continue;
        int ch = pdb_lookup(&set->pdb, key);
        if (ch < 0)
          continue; /* table miss: the goal is out of reach from there */
        if ((rc = seen_relax(q, seen_key, cg)) < 0)
          return rc;
        uint64_t priority = (uint64_t)((cg + w * ch) * 16.0);
        node child = {cx, cy, cz, x->facing, (int)at, m, group, e, cg, n.depth + 1};
        if ((rc = push_node(q, child, priority)) != 0)
          return rc;
      }
    }
  }
  au_cycles *cy = s->cycles;
  for (int c = 0; c < AU_CUTOFFS - 1; c++) {
    if (first_cut[c] < 0)
      continue;
    if (*result == FOUND)
      cy->lost[c]++;
    else
      cy->saved[c] += *expanded - first_cut[c];
  }
  return 0;
}

/* Places the chain ending at node `last` and joins it to `to`. */
static int commit_chain(au_state *s, search *q, int from, int to, int last, int cycle) {
  const rs_set *set = s->set;
  int path[64], length = 0;
  for (int at = last; q->nodes[at].parent >= 0 && length < 64; at = q->nodes[at].parent)
    path[length++] = at;
  int open = from, rc;
  s->current_chain = cycle;
  for (int i = length - 1; i >= 0; i--) {
    const node *n = &q->nodes[path[i]];
    int m = n->move;
    if (n->group >= 0) {
      /* The concrete room by spawn weight within the group (seed 003,
       * "Deduplicating the moves"). */
      const rs_group *g = &set->groups[n->group];
      uint64_t total = (uint64_t)g->weight;
      uint64_t r = ((uint64_t)dg_rng_next(&s->choice) << 32 | dg_rng_next(&s->choice)) % total;
      for (int k = 0; k < g->member_count; k++) {
        int member = set->members[g->member_first + k];
        uint64_t wgt = (uint64_t)set->rooms[set->moves[member].room].weight;
        if (r < wgt) {
          m = member;
          break;
        }
        r -= wgt;
      }
    }
    if ((rc = au_commit(s, open, m, "chain")) != 0)
      return rc;
    const au_placement *p = &s->placements[s->placement_count - 1];
    const rs_move *move = &set->moves[m];
    int next_open = p->conn_first + set->exits[move->exit_first + n->exit].connector;
    /* The chain's other doorways stay open: the tree may grow on from
     * them (cycles are closed while it grows). */
    open = next_open;
  }
  s->current_chain = -1;
  return au_connect(s, open, to, "chain", cycle);
}

static int record_cycle(au_cycles *cy, au_cycle c) {
  if (reserve((void **)&cy->items, &cy->capacity, cy->count + 1, sizeof *cy->items) != 0)
    return DG_ENOMEM;
  cy->items[cy->count++] = c;
  return 0;
}

static int record_failure(au_cycles *cy, uint64_t ns) {
  if (reserve((void **)&cy->fail_ns, &cy->fail_capacity, cy->fail_count + 1, sizeof *cy->fail_ns) !=
      0)
    return DG_ENOMEM;
  cy->fail_ns[cy->fail_count++] = ns;
  return 0;
}

void au_search_free(au_state *s) {
  search *q = s->search;
  if (q == NULL)
    return;
  free(q->nodes);
  dg_heap_close(&q->open);
  free(q->seen_keys);
  free(q->seen_g);
  free(q->seen_stamp);
  free(q->adj_head);
  free(q->adj_next);
  free(q->adj_to);
  free(q->bfs_mark);
  free(q->bfs_queue);
  free(q->bfs_dist);
  free(q->list);
  free(q->next);
  free(q->cells);
  free(q->pairs);
  free(q);
  s->search = NULL;
}

/* The generation's search scratch, created on first use, with room for a
 * dungeon graph of `nodes` placements. 0 or DG_ENOMEM. */
static int search_prepare(au_state *s, int nodes) {
  if (s->cycles == NULL && (s->cycles = calloc(1, sizeof *s->cycles)) == NULL)
    return DG_ENOMEM;
  if (s->search == NULL) {
    search *q = calloc(1, sizeof *q);
    if (q == NULL)
      return DG_ENOMEM;
    s->search = q;
    q->seen_slots = 1u << 16;
    q->seen_keys = malloc((size_t)q->seen_slots * sizeof *q->seen_keys);
    q->seen_g = malloc((size_t)q->seen_slots * sizeof *q->seen_g);
    q->seen_stamp = calloc((size_t)q->seen_slots, sizeof *q->seen_stamp);
    if (q->seen_keys == NULL || q->seen_g == NULL || q->seen_stamp == NULL ||
        dg_heap_init(&q->open, 1024) != 0)
      return DG_ENOMEM; /* au_search_free (from au_state_close) frees the rest */
  }
  search *q = s->search;
  if (nodes > q->bfs_capacity) {
    int old = q->bfs_capacity, capacity = old;
    if (reserve((void **)&q->adj_head, &capacity, nodes, sizeof(int)) != 0)
      return DG_ENOMEM;
    capacity = old;
    if (reserve((void **)&q->bfs_queue, &capacity, nodes, sizeof(int)) != 0)
      return DG_ENOMEM;
    capacity = old;
    if (reserve((void **)&q->bfs_dist, &capacity, nodes, sizeof(int)) != 0)
      return DG_ENOMEM;
    capacity = old;
    if (reserve((void **)&q->bfs_mark, &capacity, nodes, sizeof(int)) != 0)
      return DG_ENOMEM;
    /* Marks below the current stamp read as unvisited. */
    for (int i = old; i < capacity; i++)
      q->bfs_mark[i] = 0;
    q->bfs_capacity = capacity;
  }
  q->adj_nodes = nodes;
  return 0;
}

int au_search_pair(au_state *s, int from, int to, int *status, int *cost, int *rooms,
                   int64_t *expanded) {
  int rc = search_prepare(s, s->placement_count + 1);
  if (rc != 0)
    return rc;
  search *q = s->search;
  outcome result;
  int last = -1;
  if ((rc = run_search(s, q, from, to, &result, &last, expanded)) != 0)
    return rc;
  *status = (int)result;
  *cost = result == FOUND ? q->nodes[last].g : -1;
  *rooms = result == FOUND ? q->nodes[last].depth : -1;
  return 0;
}

int au_close_cycles(au_state *s, dg_cancel *cancel) {
  if (s->cycles == NULL && (s->cycles = calloc(1, sizeof *s->cycles)) == NULL)
    return DG_ENOMEM;
  au_cycles *cy = s->cycles;
  int mode = dg_param_enum(s->params, P_CYCLES);
  if (mode == CYCLES_NONE)
    return 0;
  uint64_t pass_started = dg_monotonic_ns();
  int pair_count = 0, cap = dg_param_int(s->params, P_HOP_CAP);
  /* The scratch (s->search) outlives the pass; only the dungeon graph is
   * rebuilt in it, since growth added rooms since the last pass. */
  int rc = search_prepare(s, s->placement_count + 1);
  if (rc != 0)
    goto done;
  search *q = s->search;
  if ((rc = find_candidates(s, q, &pair_count)) != 0)
    goto done;
  const candidate *pairs = q->pairs;
  cy->candidates += pair_count;
  /* Room for every chain room the search could add without growing the
   * per-placement graph arrays during the pass. */
  int most = s->placement_count + pair_count * dg_param_int(s->params, P_CHAIN_MAX) + 1;
  if ((rc = search_prepare(s, most)) != 0)
    goto done;
  for (int i = 0; i < most; i++)
    q->adj_head[i] = -1;
  q->adj_edges = 0;
  for (int i = 0; i < s->connection_count; i++)
    if ((rc = graph_add(q, s->connectors[s->connections[i].a].placement,
                        s->connectors[s->connections[i].b].placement)) != 0)
      goto done;
  for (int i = 0; i < pair_count; i++) {
    if ((i & 31) == 0 && (rc = dg_cancel_check(cancel)) != 0)
      goto done;
    int a = pairs[i].a, b = pairs[i].b;
    if (s->connectors[a].state == CONN_CONNECTED || s->connectors[b].state == CONN_CONNECTED ||
        !usable(s, a) || !usable(s, b)) {
      cy->skipped_used++;
      continue;
    }
    /* Both ends already failed in some earlier search: the space round
     * them has only filled up since. */
    if (s->connectors[a].failures >= FAILURES_MAX && s->connectors[b].failures >= FAILURES_MAX) {
      cy->skipped_used++;
      continue;
    }
    int pa = s->connectors[a].placement, pb = s->connectors[b].placement;
    if (graph_distance(q, pa, pb, cap) < cap) {
      cy->skipped_shortened++;
      continue;
    }
    /* A visited table large enough for this search's worst case keeps the
     * load low; grown only when the expansion cap demands it. */
    cy->attempts++;
    uint64_t started = dg_monotonic_ns();
    int64_t expanded = 0;
    bool built = false;
    int chain_rooms = 0, cost = 0;
    int before = s->placement_count;
    if (mode == CYCLES_CORRIDORS) {
      rc = au_corridor(s, a, b, cy->count, &built, &cost, &expanded);
      if (rc != 0)
        goto done;
      if (!built)
        cy->failed_exhausted++;
    } else {
      outcome result;
      int last = -1;
      if ((rc = run_search(s, q, a, b, &result, &last, &expanded)) != 0)
        goto done;
      if (result == FOUND) {
        cost = q->nodes[last].g;
        chain_rooms = q->nodes[last].depth;
        int distance = graph_distance_exact(q, pa, pb);
        if ((rc = commit_chain(s, q, a, b, last, cy->count)) != 0)
          goto done;
        built = true;
        if ((rc = record_cycle(cy, (au_cycle){a, b, chain_rooms, cost, distance, expanded})) != 0)
          goto done;
      } else if (result == FAIL_TABLE) {
        cy->failed_table++;
      } else if (result == FAIL_CUTOFF) {
        cy->failed_cutoff++;
      } else {
        cy->failed_exhausted++;
      }
    }
    cy->expansions += expanded;
    if (built) {
      if (mode == CYCLES_CORRIDORS &&
          (rc = record_cycle(
               cy, (au_cycle){a, b, 0, cost, graph_distance_exact(q, pa, pb), expanded})) != 0)
        goto done;
      cy->rooms_added += chain_rooms;
      cy->cost_total += cost;
      /* The dungeon graph gains the chain's rooms and connections. */
      int prev = pa;
      for (int p = before; p < s->placement_count; p++) {
        if ((rc = graph_add(q, prev, p)) != 0)
          goto done;
        prev = p;
      }
      if ((rc = graph_add(q, prev, pb)) != 0)
        goto done;
    } else {
      s->connectors[a].failures++;
      s->connectors[b].failures++;
      cy->failed_expansions += expanded;
      if ((rc = record_failure(cy, dg_monotonic_ns() - started)) != 0)
        goto done;
    }
  }
  rc = 0;
done:
  cy->ns += dg_monotonic_ns() - pass_started;
  return rc;
}
