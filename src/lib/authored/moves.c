/* Precomputed moves (seed 003, "Rooms as moves"): for each room, each
 * connector and each of the four rotations about the vertical axis, where
 * the room lands relative to the open connector it attaches to, the space
 * it fills, where its other doorways end up and face, and a cost; then the
 * moves grouped by geometry ("Deduplicating the moves") so that a search
 * explores each shape once and picks a concrete room by spawn weight only
 * when it commits. Runs once per room set at load; the result is read-only. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "roomset.h"

/* One quarter turn clockwise seen from above, in a room of extent sx by sz:
 * (x, z) -> (sz - 1 - z, x), so north (-z) becomes east (+x). */
static void turn_point(int *x, int *z, int *sx, int *sz) {
  int nx = *sz - 1 - *z, nz = *x;
  *x = nx;
  *z = nz;
  int t = *sx;
  *sx = *sz;
  *sz = t;
}

static authored_box turn_box(authored_box b, int sz) {
  return (authored_box){sz - b.z1, b.y0, b.x0, sz - b.z0, b.y1, b.x1};
}

static int compare_box(const void *a, const void *b) {
  const authored_box *p = a, *q = b;
  const int *x = &p->x0, *y = &q->x0;
  for (int i = 0; i < 6; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

static int compare_exit(const void *a, const void *b) {
  const authored_exit *p = a, *q = b;
  int x[4] = {p->x, p->y, p->z, p->facing}, y[4] = {q->x, q->y, q->z, q->facing};
  for (int i = 0; i < 4; i++)
    if (x[i] != y[i])
      return x[i] < y[i] ? -1 : 1;
  return 0;
}

static int iabs(int v) {
  return v < 0 ? -v : v;
}

/* Builds the move of `room` entering by connector `c` turned `rotation`
 * quarter turns; boxes and exits are appended at the set's cursors. */
static void build_move(authored_roomset *set, int room_index, int c, int rotation,
                       authored_move *move) {
  const authored_room *room = &set->rooms[room_index];
  int sx = room->size[0], sz = room->size[2];
  authored_box boxes[AUTHORED_BOXES_MAX];
  authored_room_connector connectors[AUTHORED_CONNECTORS_MAX];
  memcpy(boxes, room->boxes, sizeof boxes);
  memcpy(connectors, room->connectors, sizeof connectors);
  for (int r = 0; r < rotation; r++) {
    for (int b = 0; b < room->box_count; b++)
      boxes[b] = turn_box(boxes[b], sz);
    for (int k = 0; k < room->connector_count; k++) {
      int tx = sx, tz = sz;
      turn_point(&connectors[k].x, &connectors[k].z, &tx, &tz);
      connectors[k].facing = (connectors[k].facing + 1) & 3;
    }
    int t = sx;
    sx = sz;
    sz = t;
  }
  const authored_room_connector *entry = &connectors[c];
  /* The entry doorway sits in the block in front of the open doorway, which
   * is at the origin of the move's frame; the open one faces the other way. */
  int open_facing = entry->facing ^ 2;
  int ox = facing_dx(open_facing) - entry->x, oy = -entry->y,
      oz = facing_dz(open_facing) - entry->z;
  *move = (authored_move){.room = room_index,
                          .connector = c,
                          .rotation = rotation,
                          .open_facing = open_facing,
                          .origin = {ox, oy, oz},
                          .box_first = set->box_total,
                          .box_count = room->box_count,
                          .exit_first = set->exit_total,
                          .exit_count = room->connector_count - 1,
                          .group = -1};
  authored_box *out_boxes = &set->boxes[set->box_total];
  for (int b = 0; b < room->box_count; b++) {
    authored_box w = boxes[b];
    out_boxes[b] = (authored_box){w.x0 + ox, w.y0 + oy, w.z0 + oz, w.x1 + ox, w.y1 + oy, w.z1 + oz};
  }
  qsort(out_boxes, (size_t)room->box_count, sizeof *out_boxes, compare_box);
  authored_box bounds = out_boxes[0];
  for (int b = 1; b < room->box_count; b++) {
    const authored_box *w = &out_boxes[b];
    bounds.x0 = w->x0 < bounds.x0 ? w->x0 : bounds.x0;
    bounds.y0 = w->y0 < bounds.y0 ? w->y0 : bounds.y0;
    bounds.z0 = w->z0 < bounds.z0 ? w->z0 : bounds.z0;
    bounds.x1 = w->x1 > bounds.x1 ? w->x1 : bounds.x1;
    bounds.y1 = w->y1 > bounds.y1 ? w->y1 : bounds.y1;
    bounds.z1 = w->z1 > bounds.z1 ? w->z1 : bounds.z1;
  }
  move->bounds = bounds;
  set->box_total += room->box_count;
  authored_exit *out_exits = &set->exits[set->exit_total];
  int ex = facing_dx(open_facing), ez = facing_dz(open_facing), longest = 0, n = 0;
  for (int k = 0; k < room->connector_count; k++) {
    if (k == c)
      continue;
    const authored_room_connector *o = &connectors[k];
    authored_exit e = {o->x + ox, o->y + oy, o->z + oz, o->facing, k, 0};
    /* Walking length from the open doorway through the entry to this exit. */
    e.cost = 1 + iabs(e.x - ex) + iabs(e.y) + iabs(e.z - ez);
    longest = e.cost > longest ? e.cost : longest;
    out_exits[n++] = e;
  }
  qsort(out_exits, (size_t)n, sizeof *out_exits, compare_exit);
  set->exit_total += n;
  /* A dead end costs the walk to its far wall and back out. */
  move->cost = n > 0 ? longest : 1 + (bounds.x1 - bounds.x0) + (bounds.z1 - bounds.z0) - 2;
}

/* Same filled space and same exits: interchangeable for the search. */
static bool same_geometry(const authored_roomset *set, const authored_move *a,
                          const authored_move *b) {
  if (a->open_facing != b->open_facing || a->box_count != b->box_count ||
      a->exit_count != b->exit_count)
    return false;
  for (int i = 0; i < a->box_count; i++)
    if (compare_box(&set->boxes[a->box_first + i], &set->boxes[b->box_first + i]) != 0)
      return false;
  for (int i = 0; i < a->exit_count; i++)
    if (compare_exit(&set->exits[a->exit_first + i], &set->exits[b->exit_first + i]) != 0)
      return false;
  return true;
}

static uint64_t mix(uint64_t h, int64_t v) {
  h ^= (uint64_t)v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xbf58476d1ce4e5b9ull;
}

static uint64_t geometry_hash(const authored_roomset *set, const authored_move *m) {
  uint64_t h = mix(0, m->open_facing);
  for (int i = 0; i < m->box_count; i++) {
    const int *v = &set->boxes[m->box_first + i].x0;
    for (int k = 0; k < 6; k++)
      h = mix(h, v[k]);
  }
  for (int i = 0; i < m->exit_count; i++) {
    const authored_exit *e = &set->exits[m->exit_first + i];
    h = mix(mix(mix(mix(h, e->x), e->y), e->z), e->facing);
  }
  return h;
}

typedef struct keyed {
  uint64_t hash;
  int move;
} keyed;

static int compare_keyed(const void *a, const void *b) {
  const keyed *p = a, *q = b;
  if (p->hash != q->hash)
    return p->hash < q->hash ? -1 : 1;
  return (p->move > q->move) - (p->move < q->move);
}

/* Allocates the set's move, box, exit, group and member arrays for every
 * rotation of every doorway of every room but the start rooms. 0 or
 * DG_ENOMEM (what was allocated is freed by authored_roomset_free). Output:
 * *move_capacity, the number of moves there is room for. */
static int allocate_moves(authored_roomset *set, int *move_capacity) {
  int total_moves = 0, total_boxes = 0, total_exits = 0;
  for (int r = 0; r < set->room_count; r++) {
    const authored_room *room = &set->rooms[r];
    if (room->tag_bits & AUTHORED_TAG_START)
      continue;
    total_moves += room->connector_count * 4;
    total_boxes += room->connector_count * 4 * room->box_count;
    total_exits += room->connector_count * 4 * (room->connector_count - 1);
  }
  set->moves = calloc((size_t)total_moves + 1, sizeof *set->moves);
  set->boxes = calloc((size_t)total_boxes + 1, sizeof *set->boxes);
  set->exits = calloc((size_t)(total_exits > 0 ? total_exits : 1), sizeof *set->exits);
  set->groups = calloc((size_t)total_moves + 1, sizeof *set->groups);
  set->members = calloc((size_t)total_moves + 1, sizeof *set->members);
  *move_capacity = total_moves;
  if (set->moves == NULL || set->boxes == NULL || set->exits == NULL || set->groups == NULL ||
      set->members == NULL)
    return DG_ENOMEM;
  return 0;
}

/* Group: sort by geometry hash, then split runs by exact comparison. A
 * group is identified by its lowest move index, so that group numbering
 * follows the file's room order, not hash values. order[] and
 * group_of_first[] are scratch of move_count entries. */
static void group_moves(authored_roomset *set, keyed *order, int *group_of_first) {
  for (int m = 0; m < set->move_count; m++)
    order[m] = (keyed){geometry_hash(set, &set->moves[m]), m};
  qsort(order, (size_t)set->move_count, sizeof *order, compare_keyed);
  for (int i = 0; i < set->move_count; i++) {
    int m = order[i].move;
    int leader = m;
    for (int j = i - 1; j >= 0 && order[j].hash == order[i].hash; j--)
      if (same_geometry(set, &set->moves[order[j].move], &set->moves[m]))
        leader = order[j].move < leader ? order[j].move : leader;
    group_of_first[m] = leader;
  }
  for (int m = 0; m < set->move_count; m++) {
    int leader = group_of_first[m];
    while (group_of_first[leader] != leader)
      leader = group_of_first[leader];
    if (leader == m) {
      set->moves[m].group = set->group_count;
      set->groups[set->group_count++] =
          (authored_group){.open_facing = set->moves[m].open_facing, .shim = true};
    } else {
      set->moves[m].group = set->moves[leader].group;
    }
  }
}

/* Members laid out group by group, each in move order; a group's weight
 * is its members', and it is a shim group when all of them are shims. */
static void lay_out_members(authored_roomset *set) {
  for (int m = 0; m < set->move_count; m++)
    set->groups[set->moves[m].group].member_count++;
  int at = 0;
  for (int g = 0; g < set->group_count; g++) {
    set->groups[g].member_first = at;
    at += set->groups[g].member_count;
    set->groups[g].member_count = 0;
  }
  for (int m = 0; m < set->move_count; m++) {
    authored_group *g = &set->groups[set->moves[m].group];
    const authored_room *room = &set->rooms[set->moves[m].room];
    set->members[g->member_first + g->member_count++] = m;
    g->weight += room->weight;
    g->shim = g->shim && (room->tag_bits & AUTHORED_TAG_SHIM) != 0;
  }
}

/* The groups and the moves by the facing of their open doorway, for the
 * search's expansion. 0 or DG_ENOMEM. */
static int index_by_facing(authored_roomset *set) {
  for (int f = 0; f < 4; f++) {
    set->by_facing[f] = calloc((size_t)set->group_count + 1, sizeof(int));
    if (set->by_facing[f] == NULL)
      return DG_ENOMEM;
  }
  for (int g = 0; g < set->group_count; g++) {
    int f = set->groups[g].open_facing;
    set->by_facing[f][set->by_facing_count[f]++] = g;
  }
  for (int f = 0; f < 4; f++)
    if ((set->moves_by_facing[f] = calloc((size_t)set->move_count + 1, sizeof(int))) == NULL)
      return DG_ENOMEM;
  for (int m = 0; m < set->move_count; m++) {
    const authored_move *move = &set->moves[m];
    int f = move->open_facing;
    authored_box *r = &set->reach[f];
    if (set->moves_by_facing_count[f] == 0)
      *r = move->bounds;
    *r = (authored_box){r->x0 < move->bounds.x0 ? r->x0 : move->bounds.x0,
                        r->y0 < move->bounds.y0 ? r->y0 : move->bounds.y0,
                        r->z0 < move->bounds.z0 ? r->z0 : move->bounds.z0,
                        r->x1 > move->bounds.x1 ? r->x1 : move->bounds.x1,
                        r->y1 > move->bounds.y1 ? r->y1 : move->bounds.y1,
                        r->z1 > move->bounds.z1 ? r->z1 : move->bounds.z1};
    set->moves_by_facing[f][set->moves_by_facing_count[f]++] = m;
  }
  return 0;
}

int authored_roomset_build_moves(authored_roomset *set) {
  int move_capacity = 0;
  keyed *order = NULL;
  int *group_of_first = NULL;
  int rc = allocate_moves(set, &move_capacity);
  if (rc != 0)
    goto done;
  order = calloc((size_t)move_capacity + 1, sizeof *order);
  group_of_first = calloc((size_t)move_capacity + 1, sizeof *group_of_first);
  rc = DG_ENOMEM;
  if (order == NULL || group_of_first == NULL)
    goto done;
  /* A start room is the dungeon's entrance: placed once, at the origin,
   * never as a move. */
  for (int r = 0; r < set->room_count; r++)
    for (int c = 0;
         c < set->rooms[r].connector_count && !(set->rooms[r].tag_bits & AUTHORED_TAG_START); c++)
      for (int rotation = 0; rotation < 4; rotation++)
        build_move(set, r, c, rotation, &set->moves[set->move_count++]);
  assert(set->move_count == move_capacity);
  group_moves(set, order, group_of_first);
  lay_out_members(set);
  rc = index_by_facing(set);
done:
  free(order);
  free(group_of_first);
  return rc;
}
