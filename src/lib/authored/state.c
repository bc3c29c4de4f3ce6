/* The state of one `authored` generation and the operations every phase
 * shares (state.h): placing a room (its boxes into the occupancy index, its
 * doorways opened and queued by distance from the centre, seed 003
 * footnote 1), joining two doorways, checking that a move fits, and
 * choosing a group's concrete room by spawn weight. */
#include "state.h"

#include <stdlib.h>

static uint64_t distance_priority(const authored_connector *c) {
  int64_t x = c->x, y = c->y, z = c->z;
  return (uint64_t)(x * x + y * y + z * z);
}

void authored_cycles_free(authored_cycles *cycles) {
  if (cycles == NULL)
    return;
  dg_vec_free(&cycles->built);
  dg_vec_free(&cycles->fail_ns);
  free(cycles);
}

void authored_state_close(authored_state *state) {
  authored_cycles_free(state->cycles);
  state->cycles = NULL;
  authored_occ_close(&state->occupancy);
  dg_vec_free(&state->placements);
  dg_vec_free(&state->connectors);
  dg_vec_free(&state->connections);
  dg_vec_free(&state->path);
  free(state->tried);
  state->tried = NULL;
  dg_heap_close(&state->open);
}

int authored_queue(authored_state *state, int c) {
  return dg_heap_push(&state->open, distance_priority(&state->connectors.items[c]), (uint32_t)c);
}

/* Queues the open connectors first .. first + count - 1 but `except`. */
static int queue_open(authored_state *state, int first, int count, int except) {
  for (int k = first; k < first + count; k++)
    if (k != except && state->connectors.items[k].state == AUTHORED_CONN_OPEN &&
        authored_queue(state, k) != 0)
      return DG_ENOMEM;
  return 0;
}

/* Adds a placement of room `room` turned `rotation` with its low corner at
 * `origin`; its boxes go into the occupancy index and its connectors are
 * created open. Returns the placement's index or a negative code. */
static int place(authored_state *state, int room_index, int rotation, const int origin[3],
                 const authored_box *boxes, const authored_connector *connectors, int parent) {
  const authored_room *room = &state->set->rooms[room_index];
  if (dg_vec_reserve(&state->placements, state->placements.count + 1) != 0 ||
      dg_vec_reserve(&state->connectors, state->connectors.count + room->connector_count) != 0)
    return DG_ENOMEM;
  int id = state->placements.count++;
  authored_placement *p = &state->placements.items[id];
  *p = (authored_placement){.room = room_index,
                            .rotation = rotation,
                            .origin = {origin[0], origin[1], origin[2]},
                            .parent = parent,
                            .depth = parent >= 0 ? state->placements.items[parent].depth + 1 : 0,
                            .box_first = state->occupancy.boxes.count,
                            .box_count = room->box_count,
                            .conn_first = state->connectors.count,
                            .conn_count = room->connector_count,
                            .chain = state->current_chain};
  for (int b = 0; b < room->box_count; b++)
    if (authored_occ_add(&state->occupancy, &boxes[b], id) != 0)
      return DG_ENOMEM;
  for (int k = 0; k < room->connector_count; k++) {
    authored_connector c = connectors[k];
    c.placement = id;
    c.state = AUTHORED_CONN_OPEN;
    state->connectors.items[state->connectors.count++] = c;
  }
  return id;
}

int authored_place_start(authored_state *state, int chosen, const int origin[3]) {
  const authored_room *room = &state->set->rooms[chosen];
  authored_box boxes[AUTHORED_BOXES_MAX];
  authored_connector connectors[AUTHORED_CONNECTORS_MAX];
  for (int b = 0; b < room->box_count; b++) {
    const authored_box *r = &room->boxes[b];
    boxes[b] = (authored_box){r->x0 + origin[0], r->y0 + origin[1], r->z0 + origin[2],
                              r->x1 + origin[0], r->y1 + origin[1], r->z1 + origin[2]};
  }
  for (int k = 0; k < room->connector_count; k++) {
    const authored_room_connector *c = &room->connectors[k];
    connectors[k] = (authored_connector){
        c->x + origin[0], c->y + origin[1], c->z + origin[2], c->facing, 0, AUTHORED_CONN_OPEN, 0};
  }
  int id = place(state, chosen, 0, origin, boxes, connectors, -1);
  if (id < 0)
    return id;
  return queue_open(state, state->placements.items[id].conn_first, room->connector_count, -1);
}

bool authored_fits(authored_state *state, int open, const authored_move *move) {
  const authored_connector *c = &state->connectors.items[open];
  int limit = dg_param_int(state->params, AUTHORED_P_VERTICAL_LIMIT);
  if (move->bounds.y0 + c->y < -limit || move->bounds.y1 + c->y > limit)
    return false;
  const authored_box *boxes = &state->set->boxes[move->box_first];
  /* The tree keeps `spacing` blocks from every room but its parent, so
   * that pockets remain between branches for the cycle pass to fill. */
  int gap = dg_param_int(state->params, AUTHORED_P_SPACING);
  state->fit_checks++;
  for (int b = 0; b < move->box_count; b++) {
    authored_box w = {boxes[b].x0 + c->x - gap, boxes[b].y0 + c->y, boxes[b].z0 + c->z - gap,
                      boxes[b].x1 + c->x + gap, boxes[b].y1 + c->y, boxes[b].z1 + c->z + gap};
    if (!authored_occ_is_free_except(&state->occupancy, &w, gap > 0 ? c->placement : -2))
      return false;
  }
  return true;
}

int authored_commit(authored_state *state, int open, int m, const char *kind) {
  const authored_move *move = &state->set->moves[m];
  const authored_room *room = &state->set->rooms[move->room];
  authored_connector at = state->connectors.items[open];
  authored_box boxes[AUTHORED_BOXES_MAX];
  authored_connector connectors[AUTHORED_CONNECTORS_MAX];
  /* The move's boxes are sorted for grouping, not in room order; the
   * occupancy only needs the space. */
  for (int b = 0; b < move->box_count; b++) {
    const authored_box *r = &state->set->boxes[move->box_first + b];
    boxes[b] = (authored_box){r->x0 + at.x, r->y0 + at.y, r->z0 + at.z,
                              r->x1 + at.x, r->y1 + at.y, r->z1 + at.z};
  }
  connectors[move->connector] = (authored_connector){
      at.x + facing_dx(at.facing), at.y, at.z + facing_dz(at.facing), at.facing ^ 2, 0,
      AUTHORED_CONN_OPEN,          0};
  for (int e = 0; e < move->exit_count; e++) {
    const authored_exit *x = &state->set->exits[move->exit_first + e];
    connectors[x->connector] = (authored_connector){
        x->x + at.x, x->y + at.y, x->z + at.z, x->facing, 0, AUTHORED_CONN_OPEN, 0};
  }
  int origin[3] = {move->origin[0] + at.x, move->origin[1] + at.y, move->origin[2] + at.z};
  int id = place(state, move->room, move->rotation, origin, boxes, connectors, at.placement);
  if (id < 0)
    return id;
  int entry = state->placements.items[id].conn_first + move->connector;
  int rc = authored_connect(state, open, entry, kind, state->current_chain);
  if (rc != 0)
    return rc;
  return queue_open(state, state->placements.items[id].conn_first, room->connector_count, entry);
}

int authored_connect(authored_state *state, int a, int b, const char *kind, int cycle) {
  if (dg_vec_push(&state->connections, (authored_connection){a, b, kind, cycle, 0, 0}) != 0)
    return DG_ENOMEM;
  state->connectors.items[a].state = AUTHORED_CONN_CONNECTED;
  state->connectors.items[b].state = AUTHORED_CONN_CONNECTED;
  return 0;
}

int authored_pick_member(authored_state *state, int g) {
  const authored_roomset *set = state->set;
  const authored_group *group = &set->groups[g];
  uint64_t r = dg_rng_below64(&state->choice, (uint64_t)group->weight);
  int m = set->members[group->member_first];
  for (int i = 0; i < group->member_count; i++) {
    int candidate = set->members[group->member_first + i];
    uint64_t w = (uint64_t)set->rooms[set->moves[candidate].room].weight;
    if (r < w) {
      m = candidate;
      break;
    }
    r -= w;
  }
  return m;
}
