/* Tree growth (seed 003, "The setup" and footnote 1): start from one room
 * and grow, always extending the open connector nearest the dungeon's
 * centre, which grows the dungeon radially rather than down one branch.
 * At each connector a compatible move group is drawn by spawn weight; if it
 * does not fit, another is drawn (without replacement) up to the `tries`
 * limit, and then the connector is closed. */
#include <stdlib.h>
#include <string.h>

#include "authored.h"

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

/* A uniform 64-bit draw below `bound`; the modulo bias is below 2^-30 for
 * any weight total a room set can have. */
static uint64_t below64(dg_rng *rng, uint64_t bound) {
  uint64_t hi = dg_rng_next(rng), lo = dg_rng_next(rng);
  return ((hi << 32) | lo) % bound;
}

static uint64_t distance_priority(const au_connector *c) {
  int64_t x = c->x, y = c->y, z = c->z;
  return (uint64_t)(x * x + y * y + z * z);
}

void au_state_close(au_state *s) {
  au_cycles_free(s->cycles);
  s->cycles = NULL;
  occ_close(&s->occupancy);
  free(s->placements);
  free(s->connectors);
  free(s->connections);
  free(s->tried);
  free(s->path);
  au_search_free(s);
  au_corridor_free(s);
  dg_heap_close(&s->open);
}

/* Adds a placement of room `room` turned `rotation` with its low corner at
 * `origin`; its boxes go into the occupancy index and its connectors are
 * created open (and queued). Returns the placement's index or a negative
 * code. */
static int place(au_state *s, int room_index, int rotation, const int origin[3],
                 const rs_box *boxes, const au_connector *connectors, int parent) {
  const rs_room *room = &s->set->rooms[room_index];
  if (reserve((void **)&s->placements, &s->placement_capacity, s->placement_count + 1,
              sizeof *s->placements) != 0 ||
      reserve((void **)&s->connectors, &s->connector_capacity,
              s->connector_count + room->connector_count, sizeof *s->connectors) != 0)
    return DG_ENOMEM;
  int id = s->placement_count++;
  au_placement *p = &s->placements[id];
  *p = (au_placement){.room = room_index,
                      .rotation = rotation,
                      .origin = {origin[0], origin[1], origin[2]},
                      .parent = parent,
                      .depth = parent >= 0 ? s->placements[parent].depth + 1 : 0,
                      .box_first = s->occupancy.box_count,
                      .box_count = room->box_count,
                      .conn_first = s->connector_count,
                      .conn_count = room->connector_count,
                      .chain = s->current_chain};
  for (int b = 0; b < room->box_count; b++)
    if (occ_add(&s->occupancy, &boxes[b], id) != 0)
      return DG_ENOMEM;
  for (int k = 0; k < room->connector_count; k++) {
    au_connector c = connectors[k];
    c.placement = id;
    c.state = CONN_OPEN;
    s->connectors[s->connector_count++] = c;
  }
  return id;
}

static int queue_open(au_state *s, int first, int count, int except) {
  for (int k = first; k < first + count; k++)
    if (k != except && s->connectors[k].state == CONN_OPEN &&
        dg_heap_push(&s->open, distance_priority(&s->connectors[k]), (uint32_t)k) != 0)
      return DG_ENOMEM;
  return 0;
}

bool au_fits(au_state *s, int open, const rs_move *move) {
  const au_connector *c = &s->connectors[open];
  int limit = dg_param_int(s->params, P_VERTICAL_LIMIT);
  if (move->bounds.y0 + c->y < -limit || move->bounds.y1 + c->y > limit)
    return false;
  const rs_box *boxes = &s->set->boxes[move->box_first];
  /* The tree keeps `spacing` blocks from every room but its parent, so
   * that pockets remain between branches for the cycle pass to fill. */
  int gap = dg_param_int(s->params, P_SPACING);
  s->fit_checks++;
  for (int b = 0; b < move->box_count; b++) {
    rs_box w = {boxes[b].x0 + c->x - gap, boxes[b].y0 + c->y, boxes[b].z0 + c->z - gap,
                boxes[b].x1 + c->x + gap, boxes[b].y1 + c->y, boxes[b].z1 + c->z + gap};
    if (!occ_is_free_except(&s->occupancy, &w, gap > 0 ? c->placement : -2))
      return false;
  }
  return true;
}

int au_commit(au_state *s, int open, int m, const char *kind) {
  const rs_move *move = &s->set->moves[m];
  const rs_room *room = &s->set->rooms[move->room];
  au_connector at = s->connectors[open];
  rs_box boxes[RS_BOXES_MAX];
  au_connector connectors[RS_CONNECTORS_MAX];
  /* The move's boxes are sorted for grouping, not in room order; the
   * occupancy only needs the space. */
  for (int b = 0; b < move->box_count; b++) {
    const rs_box *r = &s->set->boxes[move->box_first + b];
    boxes[b] = (rs_box){r->x0 + at.x, r->y0 + at.y, r->z0 + at.z,
                        r->x1 + at.x, r->y1 + at.y, r->z1 + at.z};
  }
  connectors[move->connector] = (au_connector){at.x + facing_dx(at.facing),
                                               at.y,
                                               at.z + facing_dz(at.facing),
                                               at.facing ^ 2,
                                               0,
                                               CONN_OPEN,
                                               0};
  for (int e = 0; e < move->exit_count; e++) {
    const rs_exit *x = &s->set->exits[move->exit_first + e];
    connectors[x->connector] =
        (au_connector){x->x + at.x, x->y + at.y, x->z + at.z, x->facing, 0, CONN_OPEN, 0};
  }
  int origin[3] = {move->origin[0] + at.x, move->origin[1] + at.y, move->origin[2] + at.z};
  int id = place(s, move->room, move->rotation, origin, boxes, connectors,
                 s->connectors[open].placement);
  if (id < 0)
    return id;
  int entry = s->placements[id].conn_first + move->connector;
  int rc = au_connect(s, open, entry, kind, s->current_chain);
  if (rc != 0)
    return rc;
  return queue_open(s, s->placements[id].conn_first, room->connector_count, entry);
}

int au_connect(au_state *s, int a, int b, const char *kind, int cycle) {
  if (reserve((void **)&s->connections, &s->connection_capacity, s->connection_count + 1,
              sizeof *s->connections) != 0)
    return DG_ENOMEM;
  s->connectors[a].state = CONN_CONNECTED;
  s->connectors[b].state = CONN_CONNECTED;
  s->connections[s->connection_count++] = (au_connection){a, b, kind, cycle, 0, 0};
  return 0;
}

/* The first room: drawn by weight among rooms tagged `start` (all rooms if
 * none is), unrotated, centred on the origin. */
static int place_start(au_state *s) {
  const rs_set *set = s->set;
  bool any_start = false;
  for (int r = 0; r < set->room_count; r++)
    any_start = any_start || (set->rooms[r].tag_bits & TAG_START) != 0;
  uint64_t total = 0;
  for (int r = 0; r < set->room_count; r++)
    if (!any_start || (set->rooms[r].tag_bits & TAG_START) != 0)
      total += (uint64_t)set->rooms[r].weight;
  uint64_t pick = below64(&s->choice, total);
  int chosen = 0;
  for (int r = 0; r < set->room_count; r++) {
    if (any_start && (set->rooms[r].tag_bits & TAG_START) == 0)
      continue;
    if (pick < (uint64_t)set->rooms[r].weight) {
      chosen = r;
      break;
    }
    pick -= (uint64_t)set->rooms[r].weight;
  }
  const rs_room *room = &set->rooms[chosen];
  int origin[3] = {-room->size[0] / 2, 0, -room->size[2] / 2};
  rs_box boxes[RS_BOXES_MAX];
  au_connector connectors[RS_CONNECTORS_MAX];
  for (int b = 0; b < room->box_count; b++) {
    const rs_box *r = &room->boxes[b];
    boxes[b] = (rs_box){r->x0 + origin[0], r->y0 + origin[1], r->z0 + origin[2],
                        r->x1 + origin[0], r->y1 + origin[1], r->z1 + origin[2]};
  }
  for (int k = 0; k < room->connector_count; k++) {
    const rs_connector *c = &room->connectors[k];
    connectors[k] = (au_connector){
        c->x + origin[0], c->y + origin[1], c->z + origin[2], c->facing, 0, CONN_OPEN, 0};
  }
  int id = place(s, chosen, 0, origin, boxes, connectors, -1);
  if (id < 0)
    return id;
  return queue_open(s, 0, room->connector_count, -1);
}

/* Extends open connector `open`: draws groups by weight without replacement
 * until one fits or `tries` are spent; commits a concrete room of the
 * winning group by spawn weight. Returns 1 when a room was placed, 0 when
 * the connector was closed, or a negative code. */
static int extend(au_state *s, int open) {
  const rs_set *set = s->set;
  au_connector *c = &s->connectors[open];
  /* Most dead connectors open straight into a wall: no move can fit. */
  if (!occ_block_free(&s->occupancy, c->x + facing_dx(c->facing), c->y,
                      c->z + facing_dz(c->facing))) {
    c->state = CONN_CLOSED;
    s->closed_connectors++;
    return 0;
  }
  const int *groups = set->by_facing[c->facing];
  int group_count = set->by_facing_count[c->facing];
  uint64_t total = 0;
  for (int i = 0; i < group_count; i++)
    total += (uint64_t)set->groups[groups[i]].weight;
  s->attempt++;
  int tries = s->rescue ? group_count : dg_param_int(s->params, P_TRIES);
  for (int attempt = 0; attempt < tries && total > 0; attempt++) {
    uint64_t pick = below64(&s->layout, total);
    int g = -1;
    for (int i = 0; i < group_count; i++) {
      int candidate = groups[i];
      if (s->tried[candidate] == s->attempt)
        continue;
      uint64_t w = (uint64_t)set->groups[candidate].weight;
      if (pick < w) {
        g = candidate;
        break;
      }
      pick -= w;
    }
    const rs_group *group = &set->groups[g];
    if (au_fits(s, open, &set->moves[set->members[group->member_first]])) {
      /* The concrete room, by spawn weight within the group (seed 003,
       * "Deduplicating the moves": chosen only at commit time). */
      uint64_t r = below64(&s->choice, (uint64_t)group->weight);
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
      int rc = au_commit(s, open, m, "tree");
      return rc < 0 ? rc : 1;
    }
    s->rejected_moves++;
    s->tried[g] = s->attempt;
    total -= (uint64_t)group->weight;
  }
  s->connectors[open].state = CONN_CLOSED;
  s->closed_connectors++;
  return 0;
}

static int rescue(au_state *s) {
  s->rescue = true;
  for (int k = 0; k < s->connector_count; k++) {
    au_connector *c = &s->connectors[k];
    if (c->state != CONN_CLOSED || !occ_block_free(&s->occupancy, c->x + facing_dx(c->facing), c->y,
                                                   c->z + facing_dz(c->facing)))
      continue;
    c->state = CONN_OPEN;
    s->closed_connectors--;
    if (dg_heap_push(&s->open, distance_priority(c), (uint32_t)k) != 0)
      return DG_ENOMEM;
  }
  return 0;
}

int au_grow(au_state *s, dg_cancel *cancel) {
  int rc;
  if ((rc = dg_heap_init(&s->open, 256)) != 0)
    return rc;
  s->tried = calloc((size_t)s->set->group_count + 1, sizeof *s->tried);
  if (s->tried == NULL)
    return DG_ENOMEM;
  if ((rc = place_start(s)) != 0)
    return rc;
  int target = dg_param_int(s->params, P_ROOMS);
  int interval = dg_param_int(s->params, P_CYCLE_INTERVAL);
  bool cycling = dg_param_enum(s->params, P_CYCLES) != CYCLES_NONE && interval > 0;
  int tree_rooms = 1;
  uint32_t open;
  for (long step = 1; tree_rooms < target; step++) {
    if (!dg_heap_pop(&s->open, NULL, &open)) {
      /* The frontier died out with few tries per connector: give every
       * closed connector that still opens onto free space a second chance
       * with every group, before saying that nothing fits. */
      if (s->rescue || (rc = rescue(s)) != 0 || !dg_heap_pop(&s->open, NULL, &open)) {
        if (rc != 0)
          return rc;
        s->out_of_space = true;
        break;
      }
    }
    if (s->connectors[open].state != CONN_OPEN)
      continue;
    rc = extend(s, (int)open);
    if (rc < 0)
      return rc;
    tree_rooms += rc;
    /* Cycles are closed while the dungeon grows, every `cycle_interval`
     * rooms, so that the pockets between branches are still free when
     * their shortcuts are searched (seed 003, footnote 2: "the biggest
     * shortcuts get built before the space between them fills up"). */
    if (rc == 1 && cycling && tree_rooms % interval == 0 && tree_rooms < target &&
        (rc = au_close_cycles(s, cancel)) != 0)
      return rc;
    if ((step & 255) == 0 && (rc = dg_cancel_check(cancel)) != 0)
      return rc;
  }
  s->tree_count = tree_rooms;
  return 0;
}
