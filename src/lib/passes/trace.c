/* Grid to graph: rooms, junction blobs and dead ends become nodes; chains of
 * two-neighbour corridor tiles between them become edges. Scans run in
 * row-major order, so the graph is a deterministic function of the grid.
 * The same trace defines metrics.cycles for every grid level: a junction
 * blob takes in every 2x2 block of corridor with it, so a widened corner
 * is one node, not a ring of four tiles counted as a loop.
 *
 * All scratch arrays use padded coordinates (a one-tile border of
 * non-walkable tiles around the map) so that neighbour lookups are four
 * fixed offsets with no bounds checks: this runs once per level, on every
 * tile, and dominated generation time before it was padded. */
#include "passes/trace.h"

#include "dungeon/algorithm.h"
#include "passes/grid_metrics.h"
#include "passes/tile_list.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Scratch for one trace, indexed by padded tile. */
typedef struct tracer {
  int stride;           /* padded row length: width + 2 */
  long padded;          /* padded tile count */
  uint8_t *walk;        /* 1 where walkable */
  int *node_of;         /* node index, -1 for chain and non-walkable tiles */
  int *room_of;         /* room index or -1 */
  uint8_t *seen;        /* chain tiles already walked */
  int *queue;           /* flood-fill queue */
  int *walkable;        /* padded index of each walkable tile, reading order */
  int *unpadded;        /* the same tiles as y * width + x */
  int count;            /* walkable tiles listed */
  const uint8_t *tiles; /* the grid's tiles, y * width + x */
  int width;
} tracer;

static inline int degree(const tracer *t, long p) {
  return t->walk[p - 1] + t->walk[p + 1] + t->walk[p - t->stride] + t->walk[p + t->stride];
}

/* Walkable and in no room: a corridor, door-less passage or dead end. */
static inline bool open_tile(const tracer *t, long p) {
  return t->walk[p] && t->room_of[p] < 0;
}

/* p lies in some 2x2 block of open tiles (a double-wide stretch or corner):
 * such tiles join the junction blob they touch, or make one. */
static bool in_wide_block(const tracer *t, long p) {
  const long s = t->stride;
  const long corners[4][3] = {{-1, -s, -s - 1}, {1, -s, -s + 1}, {-1, s, s - 1}, {1, s, s + 1}};
  for (int c = 0; c < 4; c++)
    if (open_tile(t, p + corners[c][0]) && open_tile(t, p + corners[c][1]) &&
        open_tile(t, p + corners[c][2]))
      return true;
  return false;
}

/* A tile that belongs to a junction blob: three or more ways, or wide. */
static inline bool blob_tile(const tracer *t, long p) {
  return open_tile(t, p) && (degree(t, p) >= 3 || in_wide_block(t, p));
}

/* walk_chain's answer for a chain that came back to its start tile (a
 * ring with no node on it); not a node index and not an error code. */
#define CHAIN_RING (-2)

/* One step of a chain walk at tile `cur` (no node's), come from `from`:
 * marks it seen and counts it in *tiles, then finds the next tile (cur's
 * other walkable neighbour) into *next and the direction taken into *way
 * (an index of `offsets`: north, east, south, west). Returns 1 to go on,
 * CHAIN_RING back at `start`, or DG_EINTERNAL when there is no next tile
 * (which cannot happen for a two-neighbour tile). */
static inline int chain_step(tracer *t, const long offsets[4], long start, long from, long cur,
                             int *tiles, long *next, int *way) {
  if (cur == start)
    return CHAIN_RING;
  t->seen[cur] = 1;
  (*tiles)++;
  for (int d = 0; d < 4; d++) {
    long n = cur + offsets[d];
    if (t->walk[n] && n != from) {
      *next = n;
      *way = d;
      return 1;
    }
  }
  return DG_EINTERNAL;
}

/* Walks a chain from tile `from` into tile `cur`; returns the node it ends at
 * (or CHAIN_RING if it came back to `start`), counting chain tiles in
 * *tiles, and says where it stopped: the node tile into *node and the
 * chain tile before it into *last (padded; `cur` and `from` as given when
 * the chain has no tile on this side), and the node tile as y * width + x
 * into *node_flat, carried step by step from `cur_flat` (cur's) rather
 * than divided out of the padded index; with `record`, sets *doors when a
 * chain tile it walks is a door (a load and an or off the walk's chain of
 * dependent loads, so nearly free). Without it `cur_flat` may be anything:
 * only added to, never read through. DG_EINTERNAL if the chain stops at a
 * tile that is not a node. */
static inline int walk_chain_to(tracer *t, bool record, long start, long from, long cur,
                                int cur_flat, int *tiles, long *node, long *last, int *node_flat,
                                bool *doors) {
  const long offsets[4] = {-t->stride, 1, t->stride, -1};
  const int steps[4] = {-t->width, 1, t->width, -1};
  bool door = false;
  while (t->node_of[cur] < 0) {
    long next;
    int way, rc = chain_step(t, offsets, start, from, cur, tiles, &next, &way);
    if (rc != 1)
      return rc;
    if (record)
      door |= t->tiles[cur_flat] == DG_TILE_DOOR;
    from = cur;
    cur = next;
    cur_flat += steps[way];
  }
  *node = cur;
  *last = from;
  *node_flat = cur_flat;
  *doors |= door;
  return t->node_of[cur];
}

/* walk_chain_to when where it stopped is not wanted (the trace without
 * progression): inlined, the stores and the carried index are dead and
 * the loop is the same. */
static int walk_chain(tracer *t, long start, long from, long cur, int *tiles) {
  long node, last;
  int node_flat;
  bool doors = false;
  return walk_chain_to(t, false, start, from, cur, 0, tiles, &node, &last, &node_flat, &doors);
}

/* A step between padded tiles (one of the four offsets) as a step in
 * y * width + x. */
static inline int flat_step(const tracer *t, long step) {
  /* A row is two tiles narrower unpadded: +-stride becomes +-width. With
   * no branch: which way a chain ends is a coin toss to the predictor. */
  int rows = (step == t->stride) - (step == -t->stride);
  return (int)step - 2 * rows;
}

/* For the progression pass: per edge, the tile closing it and its
 * neighbours toward `from` and `to` (3 ints), with room for `capacity`
 * edges, grown as edges are added (a level has tens of edges, and a block
 * for the most a map could hold took a large allocation per level). Apart
 * from the tracer, so that the loops of the trace without progression,
 * which never touch it, keep the tracer's fields in registers. */
typedef struct passage_list {
  int *ints;
  int capacity;
} passage_list;

/* Room in `list` for `edges` edges. 0 or DG_ENOMEM. */
static int reserve_passages(passage_list *list, int edges) {
  if (edges <= list->capacity)
    return 0;
  int capacity = list->capacity;
  while (capacity < edges)
    capacity *= 2;
  int *grown = realloc(list->ints, 3 * (size_t)capacity * sizeof *grown);
  if (grown == NULL)
    return DG_ENOMEM;
  list->ints = grown;
  list->capacity = capacity;
  return 0;
}

/* Adds an edge of length 1 between two node tiles side by side unless the
 * pair already has one (a wide junction may touch a door along two tiles);
 * its index to *edge, and whether it is new to *added. */
static int link_adjacent(dg_graph *graph, int a, int b, int first_direct_edge, int *edge,
                         bool *added) {
  *added = false;
  for (int e = first_direct_edge; e < graph->edge_count; e++) {
    const dg_edge *found = &graph->edges[e];
    if ((found->from == a && found->to == b) || (found->from == b && found->to == a)) {
      *edge = e;
      return 0;
    }
  }
  *added = true;
  *edge = graph->edge_count;
  return dg_graph_add_edge(graph, a, b, "corridor", 1);
}

/* t->room_of and t->node_of on the walkable tiles: rooms are the first
 * nodes. node_of and room_of are defined on walkable tiles only; every read
 * of a neighbour checks walk first. */
static void assign_rooms(const dg_level *level, const int *room_of, tracer *t) {
  if (room_of == NULL)
    dg_tile_list_rooms(level, t->stride, t->walk, t->walkable, t->count, t->room_of);
  /* Read once, here and in the steps below: a store through node_of
   * could alias t->count, and the compiler would reload it per tile. */
  const int count = t->count;
  for (int k = 0; k < count; k++) {
    if (room_of != NULL)
      t->room_of[t->walkable[k]] = room_of[t->unpadded[k]];
    t->node_of[t->walkable[k]] = t->room_of[t->walkable[k]];
  }
}

/* One "room" node per room, in room order, so that node r is room r. */
static int add_room_nodes(const dg_level *level, dg_graph *graph) {
  for (int r = 0; r < level->room_count; r++) {
    const dg_room *room = &level->rooms[r];
    if (dg_graph_add_node(graph, "room", room->x + room->width / 2, room->y + room->height / 2, r,
                          NULL) != 0)
      return DG_ENOMEM;
    /* The label copy below relies on node r being room r. */
    assert(graph->node_count == r + 1);
    memcpy(graph->nodes[r].label, room->label, DG_LABEL_MAX);
  }
  return 0;
}

/* Gives every tile of the junction blob around `p` the node `node`
 * (breadth first through t->queue). */
static void fill_blob(tracer *t, long p, int node) {
  const long offsets[4] = {-t->stride, 1, t->stride, -1};
  int head = 0, tail = 0;
  t->node_of[p] = node;
  t->queue[tail++] = (int)p;
  while (head < tail) {
    long c = t->queue[head++];
    for (int d = 0; d < 4; d++) {
      long n = c + offsets[d];
      if (blob_tile(t, n) && t->node_of[n] < 0) {
        t->node_of[n] = node;
        t->queue[tail++] = (int)n;
      }
    }
  }
  /* Each walkable tile enters the queue at most once (its node_of is set
   * as it does), so the queue of t->count slots never overflows. */
  assert(tail <= t->count);
}

/* Junction blobs (three or more walkable neighbours, or wide) and dead ends
 * (at most one) become nodes. */
static int add_blob_nodes(tracer *t, int width, dg_graph *graph) {
  const int count = t->count;
  for (int k = 0; k < count; k++) {
    long p = t->walkable[k];
    if (t->node_of[p] >= 0)
      continue;
    /* Coordinates only for a new node: a division per chain tile showed. */
    int deg = degree(t, p);
    if (deg <= 1) {
      int x = t->unpadded[k] % width, y = t->unpadded[k] / width;
      if (dg_graph_add_node(graph, "dead_end", x, y, -1, &t->node_of[p]) != 0)
        return DG_ENOMEM;
      continue;
    }
    if (!blob_tile(t, p))
      continue;
    int x = t->unpadded[k] % width, y = t->unpadded[k] / width, node;
    if (dg_graph_add_node(graph, "junction", x, y, -1, &node) != 0)
      return DG_ENOMEM;
    fill_blob(t, p, node);
  }
  return 0;
}

/* A door at the end of a chain that closes the chain's edge when closed:
 * its only walkable neighbours are the chain's last tile `last` and, on
 * the opposite side, a tile of its own node (so the node keeps the rest
 * of its tiles). `door_tile` is the door's y * width + x. Returns the
 * inner tile (padded), or -1. */
/* end_door_inner's test with no branch: the loads of both sides' tests
 * are all within the padded map (`door` is walkable, so not on its
 * border), and node_of is read only through a select on walk. */
static inline bool door_closes(const tracer *t, long door, int door_tile, long last) {
  long inner = 2 * door - last;
  int inner_node = t->walk[inner] ? t->node_of[inner] : -2;
  return (t->tiles[door_tile] == DG_TILE_DOOR) & (degree(t, door) == 2) &
         (inner_node == t->node_of[door]);
}

static long end_door_inner(const tracer *t, long door, int door_tile, long last) {
  long inner = 2 * door - last;
  if (t->tiles[door_tile] != DG_TILE_DOOR || degree(t, door) != 2 || !t->walk[inner] ||
      t->node_of[inner] != t->node_of[door])
    return -1;
  return inner;
}

/* Where a lock or one-way door closes a chain that has no such door at
 * either end: walked in order from the edge's `from` node (`from_node`,
 * then `first`, the chain's tile next to it, `first_flat` as
 * y * width + x) to its `to` node, the first
 * door whose two neighbours on the chain lie on opposite sides, else the
 * first such corridor tile; into out[0..2] with its neighbours toward
 * `from` and `to` (all y * width + x); -1 three times when there is none.
 * Read-only: the chain was walked (seen, counted) already. */
static void first_straight_tile(const tracer *t, long from_node, long first, int first_flat,
                                bool doors, int *out) {
  const long offsets[4] = {-t->stride, 1, t->stride, -1};
  const int steps[4] = {-t->width, 1, t->width, -1};
  long cur = first, s = t->stride, came_step = first - from_node;
  /* Directions as offsets' indices; the next tile is the one open way
   * that is not back (a chain tile has two), found from a mask of the
   * four rather than by a test per direction, and kept or passed over by
   * selects: whether a tile is straight, a door or a corridor comes in no
   * pattern, and a mispredicted branch per tile cost more than the walk. */
  unsigned came = came_step == -s ? 0u : came_step == 1 ? 1u : came_step == s ? 2u : 3u;
  int at = first_flat, corridor = -1, corridor_step = 0;
  while (t->node_of[cur] < 0) {
    unsigned open = (unsigned)t->walk[cur - s] | (unsigned)t->walk[cur + 1] << 1 |
                    (unsigned)t->walk[cur + s] << 2 | (unsigned)t->walk[cur - 1] << 3;
    open &= ~(1u << ((came + 2) & 3));
    if (open == 0)
      break; /* a chain tile has two walkable neighbours: cannot happen */
    unsigned way = (unsigned)__builtin_ctz(open);
    uint8_t tile = t->tiles[at];
    bool straight = way == came;
    if (straight & (tile == DG_TILE_DOOR)) {
      out[0] = at;
      out[1] = at - steps[way];
      out[2] = at + steps[way];
      return;
    }
    bool take = straight & (tile == DG_TILE_CORRIDOR) & (corridor < 0);
    corridor = take ? at : corridor;
    corridor_step = take ? steps[way] : corridor_step;
    /* With no door on the chain the first straight corridor tile is the
     * answer: most chains have one a few tiles from their start, so the
     * walk rarely goes on to the far end. */
    if (take & !doors)
      break;
    cur += offsets[way];
    at += steps[way];
    came = way;
  }
  out[0] = corridor;
  out[1] = corridor < 0 ? -1 : corridor - corridor_step;
  out[2] = corridor < 0 ? -1 : corridor + corridor_step;
}

/* The edge of a chain walked from tile k's two ends to nodes a and b (or
 * a ring, a == CHAIN_RING, which gets a node of its own at tile k and a
 * loop edge), `tiles` long. */
static int add_chain_edge(const tracer *t, int k, int a, int b, int tiles, dg_graph *graph) {
  if (a == CHAIN_RING) {
    int node;
    if (dg_graph_add_node(graph, "junction", t->unpadded[k] % t->width, t->unpadded[k] / t->width,
                          -1, &node) != 0 ||
        dg_graph_add_edge(graph, node, node, "corridor", tiles) != 0)
      return DG_ENOMEM;
    return 0;
  }
  if (a < 0 || b < 0)
    return DG_EINTERNAL;
  return dg_graph_add_edge(graph, a, b, "corridor", tiles + 1) != 0 ? DG_ENOMEM : 0;
}

/* add_chain_edges' work on the chain through tile p (k-th walkable, its
 * neighbours `ends`) for the progression pass: walked as walk_chain does,
 * keeping where each side stops and whether any of its tiles is a door,
 * then the tile where a lock or one-way door closes it recorded into its
 * edge's passage in `list` (a ring: none, since closing one tile leaves a
 * dead end): a door at its `from` end, else at its `to` end
 * (door_closes), else first_straight_tile's. Most chains end at a room's
 * door; one with a door at neither end is walked again from its start,
 * to its end only when a door lies on it (keeping every straight door
 * and corridor tile on every walk cost twice the plain walk). Apart, so
 * that the trace without progression keeps its plain loop. */
static __attribute__((noinline)) int add_recorded_chain(tracer *t, long p, int k,
                                                        const long ends[2], dg_graph *graph,
                                                        passage_list *list) {
  int tiles = 1, a, b = -1, node_flat[2] = {0, 0};
  long node[2] = {p, p}, last[2] = {p, p};
  bool doors = t->tiles[t->unpadded[k]] == DG_TILE_DOOR; /* a door among the chain's tiles */
  a = walk_chain_to(t, true, p, p, ends[0], t->unpadded[k] + flat_step(t, ends[0] - p), &tiles,
                    &node[0], &last[0], &node_flat[0], &doors);
  if (a != CHAIN_RING)
    b = walk_chain_to(t, true, p, p, ends[1], t->unpadded[k] + flat_step(t, ends[1] - p), &tiles,
                      &node[1], &last[1], &node_flat[1], &doors);
  int rc = add_chain_edge(t, k, a, b, tiles, graph);
  if (rc == 0)
    rc = reserve_passages(list, graph->edge_count);
  if (rc != 0)
    return rc;
  int *out = &list->ints[3 * (graph->edge_count - 1)];
  if (a == CHAIN_RING) {
    memset(out, 0xff, 3 * sizeof *out);
    return 0;
  }
  /* A door at either end, from the ends alone. */
  /* Both ends tested, then one branch: whether a chain ends at a door is
   * a coin toss to the predictor, and a miss per end test showed. */
  int into[2] = {flat_step(t, node[0] - last[0]), flat_step(t, node[1] - last[1])};
  bool at[2] = {door_closes(t, node[0], node_flat[0], last[0]),
                door_closes(t, node[1], node_flat[1], last[1])};
  if (at[0] | at[1]) {
    int side = at[0] ? 0 : 1, door = node_flat[side], toward_from = side == 0 ? 1 : -1;
    out[0] = door;
    out[1] = door + toward_from * into[side];
    out[2] = door - toward_from * into[side];
    return 0;
  }
  first_straight_tile(t, node[0], last[0], node_flat[0] - into[0], doors, out);
  return 0;
}

/* Chains of two-neighbour tiles between nodes become edges; a ring touching
 * no node gets a node of its own and a loop edge. With `list` (may be
 * NULL), each edge's passage too (add_recorded_chain). */
static int add_chain_edges(tracer *t, dg_graph *graph, passage_list *list) {
  const long offsets[4] = {-t->stride, 1, t->stride, -1};
  const int count = t->count;
  for (int k = 0; k < count; k++) {
    long p = t->walkable[k];
    if (t->node_of[p] >= 0 || t->seen[p])
      continue;
    long ends[2];
    int found = 0;
    for (int d = 0; d < 4 && found < 2; d++)
      if (t->walk[p + offsets[d]])
        ends[found++] = p + offsets[d];
    /* A tile left without a node is open and neither a dead end nor a
     * blob tile: exactly two walkable neighbours. */
    assert(found == 2);
    t->seen[p] = 1;
    int rc;
    if (list != NULL) {
      rc = add_recorded_chain(t, p, k, ends, graph, list);
    } else {
      int tiles = 1, a = walk_chain(t, p, p, ends[0], &tiles);
      int b = a == CHAIN_RING ? -1 : walk_chain(t, p, p, ends[1], &tiles);
      rc = add_chain_edge(t, k, a, b, tiles, graph);
    }
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* For the progression pass: the tile that closes a direct edge whose two
 * nodes touch only at tiles p (of its `from` node) and q (of its `to`
 * node; pf and qf as y * width + x), a door at either with nothing else
 * around it (end_door_inner), into out[0..2] as add_recorded_chain does; -1
 * three times when neither is. */
static void record_contact(const tracer *t, long p, int pf, long q, int qf, int *out) {
  out[0] = out[1] = out[2] = -1;
  if (end_door_inner(t, p, pf, q) >= 0) {
    out[0] = pf;
    out[1] = 2 * pf - qf;
    out[2] = qf;
  } else if (end_door_inner(t, q, qf, p) >= 0) {
    out[0] = qf;
    out[1] = pf;
    out[2] = 2 * qf - pf;
  }
}

/* link_node_tiles' work where node tiles p (k-th walkable) and q (its
 * east or south neighbour, q_flat as y * width + x) of nodes `node` and
 * `other` touch: their edge, and with `list` its passage. Apart from the
 * scan, which visits every node tile and finds a contact at few: the
 * scan's loop stays small. 0 or DG_ENOMEM. */
static __attribute__((noinline)) int link_contact(const tracer *t, dg_graph *graph, int node,
                                                  int other, int first_direct_edge, long p, int k,
                                                  long q, int q_flat, passage_list *list) {
  int edge = -1;
  bool added = false;
  if (link_adjacent(graph, node, other, first_direct_edge, &edge, &added) != 0)
    return DG_ENOMEM;
  if (list == NULL)
    return 0;
  if (reserve_passages(list, graph->edge_count) != 0)
    return DG_ENOMEM;
  if (added)
    record_contact(t, p, t->unpadded[k], q, q_flat, &list->ints[3 * edge]);
  else
    memset(&list->ints[3 * edge], 0xff, 3 * sizeof *list->ints);
  return 0;
}

/* Node tiles of different nodes side by side become edges of length 1.
 * With `list` (may be NULL), an edge whose nodes touch at one pair of
 * tiles gets record_contact's tile, one whose nodes touch at several none
 * (closing one tile would leave the others open). */
static int link_node_tiles(const tracer *t, dg_graph *graph, passage_list *list) {
  int first_direct_edge = graph->edge_count;
  const int count = t->count;
  for (int k = 0; k < count; k++) {
    long p = t->walkable[k];
    int node = t->node_of[p];
    if (node < 0)
      continue;
    const long toward[2] = {p + 1, p + t->stride};
    for (int i = 0; i < 2; i++) {
      long q = toward[i];
      int other = t->walk[q] ? t->node_of[q] : -1;
      if (other < 0 || other == node)
        continue;
      int q_flat = t->unpadded[k] + (i == 0 ? 1 : t->width);
      if (link_contact(t, graph, node, other, first_direct_edge, p, k, q, q_flat, list) != 0)
        return DG_ENOMEM;
    }
  }
  return 0;
}

/* The trace into `graph` (cleared first); the grid part of the metrics into
 * *grid_part unless NULL; with `passages`, each chain edge's closing tile
 * (add_recorded_chain) into a new array there (3 ints an edge, *passage_count
 * edges; the caller frees it). */
static int trace_into(const dg_level *level, const int *room_of, dg_graph *graph,
                      dg_metrics *grid_part, int **passages, int *passage_count) {
  const dg_grid *grid = &level->grid;
  tracer t = {.stride = grid->width + 2,
              .padded = (long)(grid->width + 2) * (grid->height + 2),
              .tiles = grid->tiles,
              .width = grid->width};
  int rc = DG_ENOMEM;
  /* Room for a level's edges at first (reserve_passages grows it). */
  passage_list list = {.capacity = 64}, *recorded = passages != NULL ? &list : NULL;
  /* Lists as long as the walkable tiles, not the map: metrics trace every
   * grid level, and a 1000x1000 map is mostly stone (+ 1: never empty). */
  int walkable_count = dg_tile_list_count(grid);
  t.walkable = malloc(((size_t)walkable_count + 1) * sizeof *t.walkable);
  t.unpadded = malloc(((size_t)walkable_count + 1) * sizeof *t.unpadded);
  t.walk = calloc((size_t)t.padded, 1);
  t.seen = calloc((size_t)t.padded, 1);
  t.node_of = malloc((size_t)t.padded * sizeof *t.node_of);
  t.room_of = malloc((size_t)t.padded * sizeof *t.room_of);
  if (t.walk == NULL || t.seen == NULL || t.node_of == NULL || t.room_of == NULL ||
      t.walkable == NULL || t.unpadded == NULL)
    goto done;
  t.count = dg_tile_list_fill(grid, t.stride, t.walk, t.walkable, t.unpadded);
  /* Both scans use the same test per tile, so the lists are exactly full. */
  assert(t.count == walkable_count);
  assign_rooms(level, room_of, &t);
  dg_graph_clear(graph);
  if ((rc = add_room_nodes(level, graph)) != 0)
    goto done;
  rc = DG_ENOMEM;
  t.queue = malloc(((size_t)t.count + 2) * sizeof *t.queue);
  if (passages != NULL)
    list.ints = malloc(3 * (size_t)list.capacity * sizeof *list.ints);
  if (t.queue == NULL || (passages != NULL && list.ints == NULL))
    goto done;
  if ((rc = add_blob_nodes(&t, grid->width, graph)) != 0 ||
      (rc = add_chain_edges(&t, graph, recorded)) != 0 ||
      (rc = link_node_tiles(&t, graph, recorded)) != 0)
    goto done;
  if (passages != NULL) {
    *passages = list.ints;
    *passage_count = graph->edge_count;
    list.ints = NULL;
  }
  /* The metrics' grid part needs exactly this scan: do it now, once. */
  rc = grid_part != NULL
           ? dg_grid_metrics_scan(level, t.walk, t.stride, t.walkable, t.count, grid_part)
           : 0;
done:
  free(t.walk);
  free(t.seen);
  free(t.node_of);
  free(t.room_of);
  free(t.queue);
  free(t.walkable);
  free(t.unpadded);
  free(list.ints);
  return rc;
}

int dg_trace_graph(dg_level *level, const int *room_of) {
  free(level->trace_passages);
  level->trace_passages = NULL;
  level->trace_passage_count = 0;
  bool progression = dg_progression_wanted(level->algorithm, &level->params);
  int rc = trace_into(level, room_of, &level->graph, &level->metrics,
                      progression ? &level->trace_passages : NULL, &level->trace_passage_count);
  level->grid_metrics_ready = rc == 0;
  return rc;
}

int dg_trace_cycles(const dg_level *level, int *cycles) {
  return dg_trace_cycles_grid(level, cycles, NULL);
}

int dg_trace_cycles_grid(const dg_level *level, int *cycles, dg_metrics *grid_part) {
  dg_graph graph;
  dg_graph_init(&graph);
  int *component = NULL, count = 0;
  int rc = trace_into(level, level->room_of, &graph, grid_part, NULL, NULL);
  if (rc == 0 && (component = malloc((size_t)(graph.node_count + 1) * sizeof *component)) == NULL)
    rc = DG_ENOMEM;
  if (rc == 0 && (rc = dg_graph_components(&graph, component, &count)) == 0)
    *cycles = graph.edge_count - graph.node_count + count;
  free(component);
  dg_graph_close(&graph);
  return rc;
}
