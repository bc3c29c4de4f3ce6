/* The chain search of the cycle pass (seed 003, "Inside the search" and
 * "Making it fast"): weighted A* (f = g + w h) whose nodes are doorway
 * states and whose edges are precomputed move groups (or single moves when
 * grouping is off), checked against the occupancy index and the chain's own
 * rooms; h is the pattern database (pdb.h), and a state it has no entry
 * for is pruned at once. A search whose best h has not improved for
 * `stall_cutoff` expansions is abandoned ("Knowing when to stop"), and
 * every search records what each cutoff of authored_cutoffs would have saved and
 * lost ("Measuring instead of guessing"). The open list, the node pool and
 * the visited table are reused from one search to the next. */
#include <assert.h>
#include <stdlib.h>

#include "core/fp.h"
#include "cycles_internal.h"

const int authored_cutoffs[AUTHORED_CUTOFFS] = {4,   8,   16,   32,   64,   128,
                                                256, 512, 1024, 2048, 4096, 0};

/* State (x, y, z, facing) relative to goal connector `goal`, turned so that
 * the goal faces north: the pattern database's frame. */
static uint32_t goal_key(const authored_connector *goal, int x, int y, int z, int facing) {
  int dx = x - goal->x, dy = y - goal->y, dz = z - goal->z;
  int turns = (4 - goal->facing) & 3;
  for (int t = 0; t < turns; t++) {
    int nx = -dz, nz = dx;
    dx = nx;
    dz = nz;
  }
  return authored_pdb_key(dx, dy, dz, (facing + turns) & 3);
}

static authored_box shifted(const authored_box *b, int x, int y, int z) {
  return (authored_box){b->x0 + x, b->y0 + y, b->z0 + z, b->x1 + x, b->y1 + y, b->z1 + z};
}

/* True when move `m` placed at node `at`'s doorway is clear of the dungeon
 * and of the rooms the chain up to `at` has placed. */
static bool chain_fits(authored_state *state, const authored_chain_search *chain, int at,
                       const authored_move *m) {
  const authored_node *nodes = chain->nodes.items;
  const authored_node *n = &nodes[at];
  int limit = dg_param_int(state->params, AUTHORED_P_VERTICAL_LIMIT);
  if (m->bounds.y0 + n->y < -limit || m->bounds.y1 + n->y > limit)
    return false;
  authored_box bounds = shifted(&m->bounds, n->x, n->y, n->z);
  for (int up = at; nodes[up].parent >= 0; up = nodes[up].parent) {
    const authored_node *placed = &nodes[up];
    const authored_node *base = &nodes[placed->parent];
    const authored_move *pm = &state->set->moves[placed->move];
    authored_box pb = shifted(&pm->bounds, base->x, base->y, base->z);
    if (!authored_box_overlap(&pb, &bounds))
      continue;
    for (int i = 0; i < m->box_count; i++) {
      authored_box w = shifted(&state->set->boxes[m->box_first + i], n->x, n->y, n->z);
      for (int j = 0; j < pm->box_count; j++) {
        authored_box v = shifted(&state->set->boxes[pm->box_first + j], base->x, base->y, base->z);
        if (authored_box_overlap(&w, &v))
          return false;
      }
    }
  }
  state->fit_checks++;
  for (int i = 0; i < m->box_count; i++) {
    authored_box w = shifted(&state->set->boxes[m->box_first + i], n->x, n->y, n->z);
    if (!authored_occ_is_free(&state->occupancy, &w))
      return false;
  }
  return true;
}

static int push_node(authored_chain_search *chain, authored_node n, uint64_t priority) {
  if (dg_vec_push(&chain->nodes, n) != 0)
    return DG_ENOMEM;
  return dg_heap_push(&chain->open, priority, (uint32_t)(chain->nodes.count - 1));
}

/* Lowers the best g of visited-table key `key` to g: 1 when the state is
 * new or cheaper, 0 when not, DG_ENOMEM. */
static int seen_relax(authored_chain_search *chain, uint64_t key, int g) {
  int32_t *best;
  int added = dg_hash_put(&chain->seen, key, g, &best);
  if (added != 0)
    return added; /* 1, or DG_ENOMEM */
  if (*best <= g)
    return 0;
  *best = g;
  return 1;
}

/* One search's settings, read once from the parameters. */
typedef struct search_settings {
  const authored_connector *goal; /* the connector the chain must reach */
  double weight;                  /* w in f = g + w h */
  int stall_cutoff;               /* expansions without a better h before giving up */
  int expansions_max;             /* expansions before giving up */
  int chain_max;                  /* rooms a chain may have */
  bool shims;                     /* shim rooms may be placed */
  bool grouping;                  /* search over move groups, else single moves */
} search_settings;

/* Progress of one search towards the goal, for the stall cutoff and for
 * what each cutoff of authored_cutoffs would have saved or lost. */
typedef struct stall_watch {
  int best_h;                          /* best h so far */
  int stall;                           /* expansions since best_h improved */
  int64_t first_cut[AUTHORED_CUTOFFS]; /* expansions when cutoff c was reached, -1 not yet */
} stall_watch;

/* Notes an expansion at h; true when the search stalled past its cutoff. */
static bool stalled(stall_watch *watch, int h, int64_t expanded, int cutoff) {
  if (h < watch->best_h) {
    watch->best_h = h;
    watch->stall = 0;
  } else {
    watch->stall++;
    for (int c = 0; c < AUTHORED_CUTOFFS - 1; c++)
      if (watch->stall == authored_cutoffs[c] && watch->first_cut[c] < 0)
        watch->first_cut[c] = expanded;
  }
  return watch->stall >= cutoff;
}

/* Pushes the children of node `at` (n) through each exit of move m (of
 * group `group`, or -1) that reaches a state the table knows, more
 * cheaply than before at that chain length. */
static int push_exits(authored_state *state, authored_chain_search *chain,
                      const search_settings *settings, uint32_t at, const authored_node *n, int m,
                      int group) {
  const authored_roomset *set = state->set;
  const authored_move *move = &set->moves[m];
  for (int e = 0; e < move->exit_count; e++) {
    const authored_exit *x = &set->exits[move->exit_first + e];
    int cx = n->x + x->x, cy = n->y + x->y, cz = n->z + x->z;
    uint32_t key = goal_key(settings->goal, cx, cy, cz, x->facing);
    int cg = n->g + x->cost;
    /* Visited by state and chain length: with a length limit, a state
     * reached cheaply but late must not hide the same state reached
     * dearer but with rooms to spare. */
    uint64_t seen_key = (uint64_t)key << 8 | (uint64_t)(n->depth + 1);
    const int32_t *seen_g = dg_hash_get(&chain->seen, seen_key);
    if (seen_g != NULL && *seen_g <= cg)
      continue;
    int ch = authored_pdb_lookup(&set->pdb, key);
    if (ch < 0)
      continue; /* table miss: the goal is out of reach from there */
    int rc = seen_relax(chain, seen_key, cg);
    if (rc < 0)
      return rc;
    uint64_t priority = (uint64_t)((cg + dg_fp_mul(settings->weight, ch)) * 16.0);
    authored_node child = {cx, cy, cz, x->facing, (int)at, m, group, e, cg, n->depth + 1};
    if ((rc = push_node(chain, child, priority)) != 0)
      return rc;
  }
  return 0;
}

/* Expands node `at`: every move (or group) that opens onto its facing and
 * fits where the chain stands. */
static int expand_node(authored_state *state, authored_chain_search *chain,
                       const search_settings *settings, uint32_t at) {
  const authored_roomset *set = state->set;
  /* A copy: pushing children may move the node pool. */
  authored_node n = chain->nodes.items[at];
  bool grouping = settings->grouping;
  int count = grouping ? set->by_facing_count[n.facing] : set->moves_by_facing_count[n.facing];
  for (int i = 0; i < count; i++) {
    int group = grouping ? set->by_facing[n.facing][i] : -1;
    int m = grouping ? set->members[set->groups[group].member_first]
                     : set->moves_by_facing[n.facing][i];
    if (!settings->shims && (set->rooms[set->moves[m].room].tag_bits & AUTHORED_TAG_SHIM))
      continue;
    const authored_move *move = &set->moves[m];
    if (move->exit_count == 0)
      continue; /* a dead end cannot carry a chain on */
    /* Collision first: in the tight pockets between branches most rooms
     * do not fit, and the check is cheaper than the children's table
     * lookups (each a likely cache miss). */
    if (!chain_fits(state, chain, (int)at, move))
      continue;
    int rc = push_exits(state, chain, settings, at, &n, m, group);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* What each cutoff would have saved (on a failed search) or lost (on a
 * found one), into state->cycles. */
static void record_cutoffs(authored_state *state, const stall_watch *watch, int result,
                           int64_t expanded) {
  authored_cycles *cy = state->cycles;
  for (int c = 0; c < AUTHORED_CUTOFFS - 1; c++) {
    if (watch->first_cut[c] < 0)
      continue;
    if (result == AUTHORED_FOUND)
      cy->lost[c]++;
    else
      cy->saved[c] += expanded - watch->first_cut[c];
  }
}

int authored_run_search(authored_state *state, authored_chain_search *chain, int from, int to,
                        int *result, int *goal_node, int64_t *expanded) {
  const authored_roomset *set = state->set;
  const authored_connector *start = &state->connectors.items[from];
  search_settings settings = {
      .goal = &state->connectors.items[to],
      .weight = dg_param_float(state->params, AUTHORED_P_WEIGHT),
      .stall_cutoff = dg_param_int(state->params, AUTHORED_P_STALL_CUTOFF),
      .expansions_max = dg_param_int(state->params, AUTHORED_P_EXPANSIONS_MAX),
      .chain_max = dg_param_int(state->params, AUTHORED_P_CHAIN_MAX),
      .shims = dg_param_bool(state->params, AUTHORED_P_SHIMS),
      .grouping = dg_param_bool(state->params, AUTHORED_P_GROUPING),
  };
  chain->nodes.count = 0;
  dg_heap_clear(&chain->open);
  dg_hash_clear(&chain->seen);
  *expanded = 0;
  int h0 = authored_pdb_lookup(
      &set->pdb, goal_key(settings.goal, start->x, start->y, start->z, start->facing));
  if (h0 < 0) {
    *result = AUTHORED_FAIL_TABLE;
    return 0;
  }
  int rc = push_node(
      chain, (authored_node){start->x, start->y, start->z, start->facing, -1, -1, -1, -1, 0, 0},
      (uint64_t)(settings.weight * h0 * 16.0));
  if (rc != 0)
    return rc;
  stall_watch watch = {.best_h = h0, .stall = 0};
  for (int c = 0; c < AUTHORED_CUTOFFS; c++)
    watch.first_cut[c] = -1;
  uint32_t at;
  *result = AUTHORED_FAIL_EXHAUSTED;
  while (dg_heap_pop(&chain->open, NULL, &at)) {
    const authored_node *n = &chain->nodes.items[at];
    int h = authored_pdb_lookup(&set->pdb, goal_key(settings.goal, n->x, n->y, n->z, n->facing));
    if (h == 0) {
      *result = AUTHORED_FOUND;
      *goal_node = (int)at;
      break;
    }
    (*expanded)++;
    /* One search may run up to expansions_max (10 million) steps: the
     * deadline must be able to stop it in the middle. */
    if ((*expanded & 4095) == 0 && (rc = dg_cancel_check(state->cancel)) != 0)
      return rc;
    if (stalled(&watch, h, *expanded, settings.stall_cutoff) ||
        *expanded >= settings.expansions_max) {
      *result = AUTHORED_FAIL_CUTOFF;
      break;
    }
    if (n->depth >= settings.chain_max)
      continue;
    if ((rc = expand_node(state, chain, &settings, at)) != 0)
      return rc;
  }
  record_cutoffs(state, &watch, *result, *expanded);
  return 0;
}

int authored_commit_chain(authored_state *state, const authored_chain_search *chain, int from,
                          int to, int last, int cycle) {
  const authored_roomset *set = state->set;
  const authored_node *nodes = chain->nodes.items;
  int path[64], length = 0, at = last;
  for (; nodes[at].parent >= 0 && length < 64; at = nodes[at].parent)
    path[length++] = at;
  /* The search never extends a chain past chain_max (at most 32) rooms, so
   * the walk back reaches the root: no room of the chain is cut off. */
  assert(nodes[at].parent < 0);
  int open = from, rc;
  state->current_chain = cycle;
  for (int i = length - 1; i >= 0; i--) {
    const authored_node *n = &nodes[path[i]];
    /* The concrete room by spawn weight within the group (seed 003,
     * "Deduplicating the moves"). */
    int m = n->group >= 0 ? authored_pick_member(state, n->group) : n->move;
    if ((rc = authored_commit(state, open, m, "chain")) != 0)
      return rc;
    const authored_placement *p = &state->placements.items[state->placements.count - 1];
    const authored_move *move = &set->moves[m];
    /* The chain's other doorways stay open: the tree may grow on from
     * them (cycles are closed while it grows). */
    open = p->conn_first + set->exits[move->exit_first + n->exit].connector;
  }
  state->current_chain = -1;
  return authored_connect(state, open, to, "chain", cycle);
}

void authored_chain_close(authored_chain_search *chain) {
  dg_vec_free(&chain->nodes);
  dg_heap_close(&chain->open);
  dg_hash_close(&chain->seen);
}
