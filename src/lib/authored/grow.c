/* Tree growth (seed 003, "The setup" and footnote 1): start from one room
 * and grow, always extending the open connector nearest the dungeon's
 * centre, which grows the dungeon radially rather than down one branch.
 * At each connector a compatible move group is drawn by spawn weight; if it
 * does not fit, another is drawn (without replacement) up to the `tries`
 * limit, and then the connector is closed. */
#include "grow.h"

#include <stdlib.h>

/* The first room: drawn by weight among rooms tagged `start` (all rooms if
 * none is), unrotated, centred on the origin. */
static int place_start(authored_state *state) {
  const authored_roomset *set = state->set;
  bool any_start = false;
  for (int r = 0; r < set->room_count; r++)
    any_start = any_start || (set->rooms[r].tag_bits & AUTHORED_TAG_START) != 0;
  uint64_t total = 0;
  for (int r = 0; r < set->room_count; r++)
    if (!any_start || (set->rooms[r].tag_bits & AUTHORED_TAG_START) != 0)
      total += (uint64_t)set->rooms[r].weight;
  uint64_t pick = dg_rng_below64(&state->choice, total);
  int chosen = 0;
  for (int r = 0; r < set->room_count; r++) {
    if (any_start && (set->rooms[r].tag_bits & AUTHORED_TAG_START) == 0)
      continue;
    if (pick < (uint64_t)set->rooms[r].weight) {
      chosen = r;
      break;
    }
    pick -= (uint64_t)set->rooms[r].weight;
  }
  const authored_room *room = &set->rooms[chosen];
  int origin[3] = {-room->size[0] / 2, 0, -room->size[2] / 2};
  return authored_place_start(state, chosen, origin);
}

/* Extends open connector `open`: draws groups by weight without replacement
 * until one fits or `tries` are spent; commits a concrete room of the
 * winning group by spawn weight. Returns 1 when a room was placed, 0 when
 * the connector was closed, or a negative code. */
static int extend(authored_state *state, int open) {
  const authored_roomset *set = state->set;
  authored_connector *c = &state->connectors.items[open];
  /* Most dead connectors open straight into a wall: no move can fit. */
  if (!authored_front_free(state, open)) {
    c->state = AUTHORED_CONN_CLOSED;
    state->closed_connectors++;
    return 0;
  }
  const int *groups = set->by_facing[c->facing];
  int group_count = set->by_facing_count[c->facing];
  uint64_t total = 0;
  for (int i = 0; i < group_count; i++)
    total += (uint64_t)set->groups[groups[i]].weight;
  state->attempt++;
  int tries = state->rescue ? group_count : dg_param_int(state->params, AUTHORED_P_TRIES);
  for (int attempt = 0; attempt < tries && total > 0; attempt++) {
    uint64_t pick = dg_rng_below64(&state->layout, total);
    int g = -1;
    for (int i = 0; i < group_count; i++) {
      int candidate = groups[i];
      if (state->tried[candidate] == state->attempt)
        continue;
      uint64_t w = (uint64_t)set->groups[candidate].weight;
      if (pick < w) {
        g = candidate;
        break;
      }
      pick -= w;
    }
    const authored_group *group = &set->groups[g];
    if (authored_fits(state, open, &set->moves[set->members[group->member_first]])) {
      /* The concrete room, by spawn weight within the group (seed 003,
       * "Deduplicating the moves": chosen only at commit time). */
      int m = authored_pick_member(state, g);
      int rc = authored_commit(state, open, m, "tree");
      return rc < 0 ? rc : 1;
    }
    state->rejected_moves++;
    state->tried[g] = state->attempt;
    total -= (uint64_t)group->weight;
  }
  state->connectors.items[open].state = AUTHORED_CONN_CLOSED;
  state->closed_connectors++;
  return 0;
}

static int rescue(authored_state *state) {
  state->rescue = true;
  for (int k = 0; k < state->connectors.count; k++) {
    authored_connector *c = &state->connectors.items[k];
    if (c->state != AUTHORED_CONN_CLOSED || !authored_front_free(state, k))
      continue;
    c->state = AUTHORED_CONN_OPEN;
    state->closed_connectors--;
    if (authored_queue(state, k) != 0)
      return DG_ENOMEM;
  }
  return 0;
}

int authored_grow(authored_state *state, dg_cancel *cancel, authored_grow_hook every_interval) {
  int rc;
  if ((rc = dg_heap_init(&state->open, 256)) != 0)
    return rc;
  state->tried = calloc((size_t)state->set->group_count + 1, sizeof *state->tried);
  if (state->tried == NULL)
    return DG_ENOMEM;
  if ((rc = place_start(state)) != 0)
    return rc;
  int target = dg_param_int(state->params, AUTHORED_P_ROOMS);
  int interval = dg_param_int(state->params, AUTHORED_P_CYCLE_INTERVAL);
  bool cycling = every_interval != NULL &&
                 dg_param_enum(state->params, AUTHORED_P_CYCLES) != AUTHORED_CYCLES_NONE &&
                 interval > 0;
  int tree_rooms = 1;
  uint32_t open;
  for (long step = 1; tree_rooms < target; step++) {
    if (!dg_heap_pop(&state->open, NULL, &open)) {
      /* The frontier died out with few tries per connector: give every
       * closed connector that still opens onto free space a second chance
       * with every group, before saying that nothing fits. Once only: the
       * second time the frontier dies the dungeon is out of space (rc may
       * still hold the last extend's count of rooms, not an error). */
      if (!state->rescue && (rc = rescue(state)) != 0)
        return rc;
      if (!dg_heap_pop(&state->open, NULL, &open)) {
        state->out_of_space = true;
        break;
      }
    }
    if (state->connectors.items[open].state != AUTHORED_CONN_OPEN)
      continue;
    rc = extend(state, (int)open);
    if (rc < 0)
      return rc;
    tree_rooms += rc;
    /* Cycles are closed while the dungeon grows, every `cycle_interval`
     * rooms, so that the pockets between branches are still free when
     * their shortcuts are searched (seed 003, footnote 2: "the biggest
     * shortcuts get built before the space between them fills up"). */
    if (rc == 1 && cycling && tree_rooms % interval == 0 && tree_rooms < target &&
        (rc = every_interval(state, cancel)) != 0)
      return rc;
    if ((step & 255) == 0 && (rc = dg_cancel_check(cancel)) != 0)
      return rc;
  }
  state->tree_count = tree_rooms;
  return 0;
}
