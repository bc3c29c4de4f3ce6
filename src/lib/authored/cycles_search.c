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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

enum {
  CHAIN_ROOMS_MAX = 32, /* chain_max's upper bound (authored.c) */
  NEAR_LANES = 8        /* near boxes tested at once (see near_overlaps) */
};

/* A room the chain placed on the way to the node being expanded, in the
 * frame of that node's doorway. */
typedef struct chain_room {
  authored_box bounds;
  int box_first, box_count; /* its boxes, in expansion.room_boxes */
} chain_room;

/* The placed boxes near a doorway, in its frame, as one array per side so
 * that NEAR_LANES of them are tested in one go; the count is padded to a
 * multiple of NEAR_LANES with boxes that overlap nothing (x0 = INT_MAX). */
typedef struct near_boxes {
  const int32_t *x0, *y0, *z0, *x1, *y1, *z1;
  int count;
} near_boxes;

/* What every room tried at one expansion is checked against, gathered
 * once, in the frame of the node's doorway (so the moves' own boxes, which
 * are relative to the doorway they open onto, need no shifting): the rooms
 * of the chain so far, and the placed boxes that reach into the space any
 * move of the doorway's facing could fill (the room set's reach). A room
 * tried there lies inside that space, so nothing else can touch it. */
typedef struct expansion {
  int y_low, y_high; /* the vertical limit, relative */
  chain_room rooms[CHAIN_ROOMS_MAX];
  int room_count;
  authored_box rooms_bounds; /* union of the rooms' bounds; empty when none */
  authored_box room_boxes[CHAIN_ROOMS_MAX * AUTHORED_BOXES_MAX];
  near_boxes near;
  bool near_gathered; /* near is gathered on the first try the answers lack */
  uint64_t *asked;    /* by try: the occupancy was asked (NULL: nothing kept) */
  uint64_t *clear;    /* by try: and the room was clear of it */
} expansion;

/* True when `w` overlaps one of the near boxes. Branch-free within a
 * group of NEAR_LANES, which compilers turn into vector compares. */
static bool near_overlaps(const near_boxes *near, const authored_box *w) {
  for (int k0 = 0; k0 < near->count; k0 += NEAR_LANES) {
    int hit = 0;
    for (int k = k0; k < k0 + NEAR_LANES; k++)
      hit |= (near->x0[k] < w->x1) & (w->x0 < near->x1[k]) & (near->y0[k] < w->y1) &
             (w->y0 < near->y1[k]) & (near->z0[k] < w->z1) & (w->z0 < near->z1[k]);
    if (hit)
      return true;
  }
  return false;
}

/* True when the rooms the chain has placed leave room for move `m` at the
 * expansion's doorway, within the vertical limit. */
static bool fits_the_chain(const authored_state *state, const expansion *ex,
                           const authored_move *m) {
  if (m->bounds.y0 < ex->y_low || m->bounds.y1 > ex->y_high)
    return false;
  const authored_box *boxes = &state->set->boxes[m->box_first];
  if (authored_box_overlap(&ex->rooms_bounds, &m->bounds))
    for (int r = 0; r < ex->room_count; r++) {
      const chain_room *placed = &ex->rooms[r];
      if (!authored_box_overlap(&placed->bounds, &m->bounds))
        continue;
      for (int i = 0; i < m->box_count; i++)
        for (int j = 0; j < placed->box_count; j++)
          if (authored_box_overlap(&boxes[i], &ex->room_boxes[placed->box_first + j]))
            return false;
    }
  return true;
}

static int gather_near(authored_state *state, authored_chain_search *chain, const authored_node *n,
                       expansion *ex);

/* Whether try `t` (move m) placed at the expansion's doorway (node n) is
 * clear of the dungeon and of the rooms the chain has placed: 1 or 0, or
 * DG_ENOMEM. The chain's rooms are checked first, and state->fit_checks
 * counts the tries that pass them. */
static int chain_fits(authored_state *state, authored_chain_search *chain, const authored_node *n,
                      expansion *ex, int t, const authored_move *m) {
  if (!fits_the_chain(state, ex, m))
    return 0;
  state->fit_checks++;
  uint64_t bit = (uint64_t)1 << (t & 63);
  int word = t >> 6;
  if (ex->asked != NULL && (ex->asked[word] & bit))
    return (ex->clear[word] & bit) != 0;
  if (!ex->near_gathered) {
    int rc = gather_near(state, chain, n, ex);
    if (rc != 0)
      return rc;
  }
  const authored_box *boxes = &state->set->boxes[m->box_first];
  bool clear = true;
  for (int i = 0; i < m->box_count && clear; i++)
    clear = !near_overlaps(&ex->near, &boxes[i]);
  if (ex->asked != NULL) {
    ex->asked[word] |= bit;
    ex->clear[word] |= clear ? bit : 0;
  }
  return clear;
}

static authored_box box_union(const authored_box *a, const authored_box *b) {
  return (authored_box){a->x0 < b->x0 ? a->x0 : b->x0, a->y0 < b->y0 ? a->y0 : b->y0,
                        a->z0 < b->z0 ? a->z0 : b->z0, a->x1 > b->x1 ? a->x1 : b->x1,
                        a->y1 > b->y1 ? a->y1 : b->y1, a->z1 > b->z1 ? a->z1 : b->z1};
}

/* The chain's rooms above node `at` (n) that reach into `reach`, in n's
 * frame. The rest cannot touch a room tried at n. */
static void gather_rooms(const authored_state *state, const authored_chain_search *chain, int at,
                         const authored_node *n, const authored_box *reach, expansion *ex) {
  const authored_roomset *set = state->set;
  const authored_node *nodes = chain->nodes.items;
  int box_count = 0;
  ex->room_count = 0;
  ex->rooms_bounds = (authored_box){0, 0, 0, 0, 0, 0};
  for (int up = at; nodes[up].parent >= 0; up = nodes[up].parent) {
    const authored_node *base = &nodes[nodes[up].parent];
    const authored_move *pm = &set->moves[nodes[up].move];
    int dx = base->x - n->x, dy = base->y - n->y, dz = base->z - n->z;
    authored_box bounds = shifted(&pm->bounds, dx, dy, dz);
    if (!authored_box_overlap(&bounds, reach))
      continue;
    /* A node's depth counts its rooms, and depth never passes chain_max. */
    assert(ex->room_count < CHAIN_ROOMS_MAX);
    ex->rooms[ex->room_count] = (chain_room){bounds, box_count, pm->box_count};
    ex->rooms_bounds = ex->room_count++ == 0 ? bounds : box_union(&ex->rooms_bounds, &bounds);
    for (int j = 0; j < pm->box_count; j++)
      ex->room_boxes[box_count++] = shifted(&set->boxes[pm->box_first + j], dx, dy, dz);
  }
}

/* The placed boxes within the room set's reach of node n, into
 * chain->near (the list) and chain->near_sides (ex->near's arrays). 0 or
 * DG_ENOMEM. */
static int gather_near(authored_state *state, authored_chain_search *chain, const authored_node *n,
                       expansion *ex) {
  chain->near.count = 0;
  authored_box world = shifted(&state->set->reach[n->facing], n->x, n->y, n->z);
  if (authored_occ_collect(&state->occupancy, &world, &chain->near) != 0)
    return DG_ENOMEM;
  int count = chain->near.count, padded = (count + NEAR_LANES - 1) / NEAR_LANES * NEAR_LANES;
  if (dg_vec_reserve(&chain->near_sides, 6 * padded) != 0)
    return DG_ENOMEM;
  int32_t *side = chain->near_sides.items;
  int32_t *x0 = side, *y0 = x0 + padded, *z0 = y0 + padded;
  int32_t *x1 = z0 + padded, *y1 = x1 + padded, *z1 = y1 + padded;
  for (int k = 0; k < count; k++) {
    const authored_box *b = &chain->near.items[k];
    x0[k] = b->x0 - n->x, y0[k] = b->y0 - n->y, z0[k] = b->z0 - n->z;
    x1[k] = b->x1 - n->x, y1[k] = b->y1 - n->y, z1[k] = b->z1 - n->z;
  }
  for (int k = count; k < padded; k++)
    x0[k] = INT32_MAX, y0[k] = z0[k] = x1[k] = y1[k] = z1[k] = 0;
  ex->near = (near_boxes){x0, y0, z0, x1, y1, z1, padded};
  ex->near_gathered = true;
  return 0;
}

enum {
  DOORWAY_BIAS = 1 << 19,    /* doorway coordinates the answers keep: [-2^19, 2^19) */
  ANSWER_WORDS_MAX = 1 << 21 /* 16 MB of answers; past that, doorways are asked afresh */
};

/* Points ex->asked and ex->clear at the answers kept for node n's doorway
 * (new ones when there are none; NULL when the doorway lies too far out
 * to be packed), after dropping them all if the occupancy changed. 0 or
 * DG_ENOMEM. */
static int find_answers(const authored_state *state, authored_chain_search *chain,
                        const authored_node *n, expansion *ex) {
  ex->asked = ex->clear = NULL;
  if (chain->answers_boxes != state->occupancy.boxes.count) {
    dg_hash_clear(&chain->doorways);
    chain->answers.count = 0;
    chain->answers_boxes = state->occupancy.boxes.count;
  }
  int c[3] = {n->x, n->y, n->z};
  uint64_t key = (uint64_t)n->facing;
  for (int axis = 0; axis < 3; axis++) {
    if (c[axis] < -DOORWAY_BIAS || c[axis] >= DOORWAY_BIAS)
      return 0;
    key = key << 20 | (uint64_t)(c[axis] + DOORWAY_BIAS);
  }
  int32_t *offset;
  int words = chain->answer_words;
  if (words == 0)
    return 0; /* no facing has a room to try */
  /* The answers live until the next room is placed, across searches: with
   * expansions_max in the millions they are bounded here, not by it. */
  if (chain->answers.count + 2 * words > ANSWER_WORDS_MAX &&
      dg_hash_get(&chain->doorways, key) == NULL)
    return 0;
  int added = dg_hash_put(&chain->doorways, key, chain->answers.count, &offset);
  if (added < 0)
    return DG_ENOMEM;
  if (added == 1) {
    if (dg_vec_reserve(&chain->answers, chain->answers.count + 2 * words) != 0)
      return DG_ENOMEM;
    memset(&chain->answers.items[chain->answers.count], 0,
           2 * (size_t)words * sizeof *chain->answers.items);
    chain->answers.count += 2 * words;
  }
  ex->asked = &chain->answers.items[*offset];
  ex->clear = ex->asked + words;
  return 0;
}

/* Gathers the expansion of node `at` (a copy, n); the near boxes wait for
 * a try the kept answers lack. 0 or DG_ENOMEM. */
static int gather_expansion(authored_state *state, authored_chain_search *chain, int at,
                            const authored_node *n, expansion *ex) {
  int limit = dg_param_int(state->params, AUTHORED_P_VERTICAL_LIMIT);
  ex->y_low = -limit - n->y;
  ex->y_high = limit - n->y;
  ex->near_gathered = false;
  ex->near = (near_boxes){0};
  gather_rooms(state, chain, at, n, &state->set->reach[n->facing], ex);
  return find_answers(state, chain, n, ex);
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
  expansion ex;
  int rc = gather_expansion(state, chain, (int)at, &n, &ex);
  if (rc != 0)
    return rc;
  const authored_search_move *tries = chain->tries[n.facing].items;
  int count = chain->tries[n.facing].count;
  for (int i = 0; i < count; i++) {
    /* Collision first: in the tight pockets between branches most rooms
     * do not fit, and the check is cheaper than the children's table
     * lookups (each a likely cache miss). */
    if ((rc = chain_fits(state, chain, &n, &ex, i, &set->moves[tries[i].move])) <= 0) {
      if (rc < 0)
        return rc;
      continue;
    }
    if ((rc = push_exits(state, chain, settings, at, &n, tries[i].move, tries[i].group)) != 0)
      return rc;
  }
  return 0;
}

/* Lists chain->tries for the generation's parameters, in the order the
 * room set gives them. 0 or DG_ENOMEM. */
static int list_tries(const authored_roomset *set, const search_settings *settings,
                      authored_chain_search *chain) {
  bool grouping = settings->grouping;
  for (int f = 0; f < 4; f++) {
    chain->tries[f].count = 0;
    int count = grouping ? set->by_facing_count[f] : set->moves_by_facing_count[f];
    for (int i = 0; i < count; i++) {
      int group = grouping ? set->by_facing[f][i] : -1;
      int m = grouping ? set->members[set->groups[group].member_first] : set->moves_by_facing[f][i];
      if (!settings->shims && (set->rooms[set->moves[m].room].tag_bits & AUTHORED_TAG_SHIM))
        continue;
      if (set->moves[m].exit_count == 0)
        continue; /* a dead end cannot carry a chain on */
      if (dg_vec_push(&chain->tries[f], (authored_search_move){m, group}) != 0)
        return DG_ENOMEM;
    }
    int words = (chain->tries[f].count + 63) / 64;
    chain->answer_words = words > chain->answer_words ? words : chain->answer_words;
  }
  chain->tries_listed = true;
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
  int rc = chain->tries_listed ? 0 : list_tries(set, &settings, chain);
  if (rc != 0)
    return rc;
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
  rc = push_node(chain,
                 (authored_node){start->x, start->y, start->z, start->facing, -1, -1, -1, -1, 0, 0},
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
  dg_vec_free(&chain->near);
  dg_vec_free(&chain->near_sides);
  for (int f = 0; f < 4; f++)
    dg_vec_free(&chain->tries[f]);
  dg_hash_close(&chain->doorways);
  dg_vec_free(&chain->answers);
}
