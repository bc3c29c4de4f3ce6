/* The progression pass shared by every algorithm (docs/progression.md):
 * locked doors on the chokepoints of the way from the entrance to the exit,
 * each with its key before it, one-way doors on loops that open from the
 * deep side, a role for every room and graph node, and a witness (spheres,
 * key order, a walk) that a game server can check. dg_generate runs it after
 * placement and before the metrics; with params.locks and params.one_way at
 * 0 it does nothing at all, so the level keeps its bytes.
 *
 * It works on the level's real connectivity: for grid levels the walkable
 * tiles and their four neighbours (the map, secret corridors and closets
 * included, so nothing a player can walk is left out), for levels without
 * a grid the room graph with each edge as a vertex of its own (a
 * connection). Either way the same steps run on one vertex graph:
 *
 * - A lock is a vertex every walk from the entrance to the exit crosses:
 *   a cut vertex separating them (Tarjan's low points over one depth-first
 *   search from the entrance, read up the tree from the exit). Cuts come in
 *   the same order on every such walk, so lock k+1 always lies after lock
 *   k, no loop can bypass a lock (a loop never crosses a cut), and every
 *   lock is needed. Only doors and corridor tiles with two opposite
 *   neighbours (grid) or connections (graph) become locks.
 * - Key k lies in the part reachable after lock k-1 and before lock k
 *   (nested: key k+1 behind lock k), on the floor tile of a room farthest
 *   from the shortest entrance-exit walk (so in dead ends and side rooms);
 *   the entrance's and exit's rooms are left out. Locks are chosen spread
 *   along the walk, so that each one has a place for its key before it and
 *   after the previous lock; when the level has fewer such chokepoints than
 *   asked it places fewer and says why.
 * - A one-way door goes on a passage that lies on a loop and opens from its
 *   deeper side (farther from the entrance) toward the shallower: a
 *   shortcut back. It is kept only if the map without any one-way door is
 *   still connected, so a party can never strand itself behind one, and no
 *   loop ever joins places that need different keys (loops stay between
 *   two consecutive locks).
 *
 * Draws only from its own random stream (DG_STREAM_PROGRESSION). */
#include "passes/progression.h"
#include "passes/tile_list.h"

#include "core/walkable16.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* What a vertex may become. */
enum {
  V_NONE,     /* not walkable (or no vertex there) */
  V_FLOOR,    /* a room's floor: may hold a key */
  V_DEAD_END, /* the end tile of a corridor (or a dead-end node): may hold a key */
  V_PASSAGE, /* a door, corridor tile or connection with two neighbours: may be a lock or one-way */
  V_OTHER,   /* walkable, nothing more */
};

/* special[v] beyond the locks (0..DG_LOCKS_MAX-1) and one-way doors. */
#define SPECIAL_NONE (-1)    /* build_from_trace sets it with memset(0xff) */
#define SPECIAL_ONE_WAY 1000 /* + index of the one-way door */

/* The vertex graph the pass works on, and its scratch. All per-vertex
 * arrays live in one block (`block`), sized once per level. */
typedef struct pgraph {
  int count;         /* vertices */
  int *offsets;      /* CSR: neighbours of v are adjacent[offsets[v] .. offsets[v+1]) */
  int *adjacent;     /* neighbour vertices; a passage has exactly two, side 0 then side 1 */
  uint8_t *kind;     /* V_* */
  uint8_t *keyable;  /* key_place's answer per vertex, set once by plan_locks */
  int *keyable_list; /* the vertices keyable says yes to, in order (plan_locks) */
  int keyable_count; /* how many */
  int *room;         /* room of a vertex, or -1 */
  int entrance;      /* the stairs up's vertex */
  int exit;          /* the stairs down's vertex */
  int *special;      /* SPECIAL_NONE, a lock's key id, or SPECIAL_ONE_WAY + i */
  int ow_from[DG_ONE_WAY_MAX], ow_to[DG_ONE_WAY_MAX]; /* one-way door i: crossed from, to */
  int one_way_count;
  int closed_lock;    /* a lock kept closed whatever the keys (a plan's check), or -1 */
  int blocked;        /* a vertex find_cuts leaves out, or -1 */
  int stairs_room[2]; /* the rooms the stairs up and down name (features), or -1 */
  /* The level's stairs features (NULL: none), found once. */
  const dg_feature *up, *down;
  /* Traced levels: the spawns' tiles (no key goes there), when there are
   * at most SPAWN_TILES_MAX of them; else spawn_count is -1 (spawn_at). */
  int spawn_count;
  int *spawn_tile, *spawn_x, *spawn_y; /* in pgraph_tables; x and y: the same tiles */
  int *dist;                           /* hops from the entrance (all doors open), -1 unreachable */
  int *queue;                          /* BFS queue, count entries */
  int *parent;                         /* BFS parent */
  int *mark;                           /* scratch labels */
  int *disc, *low, *next, *tree_parent; /* find_cuts' depth-first search */
  int *key_slots; /* places for a key in the vertex (floor tiles that are no spawn); -1: a
                   * traced room, asked when needed (key_place) */
  /* The planning steps' scratch, carved from the same block so that the
   * pass allocates a few blocks, not one per step: */
  int *depth;            /* hops from the entrance, every door open (the plan's yardstick) */
  int *depth_parent;     /* that search's parents (its shortest walks, for choose_boss) */
  int *depth_order;      /* the vertices it reached, in the order reached (parents first) */
  int reached;           /* how many it reached */
  int *cuts;             /* the entrance-exit cuts in order, then extend_locks' cuts */
  int *candidates;       /* lock or one-way candidates */
  int *off_walk;         /* hops from the shortest entrance-exit walk */
  int *key_segment;      /* keyable_list[i]'s segment (label_segments' label), -1 unreached */
  int *key_hops;         /* keyable_list[i]'s off_walk */
  bool off_walk_ready;   /* off_walk is filled in (on a small tree, only key_hops is) */
  int *path;             /* a walk's vertices (extend_locks, build_walk) */
  int *floor_before;     /* choose_locks: key places before each candidate (count + 2) */
  int *rem;              /* choose_locks: locks that fit after each candidate (count + 2) */
  uint8_t *articulation; /* cut vertices of the whole graph (one-way doors) */
  int *refused;          /* assign_spheres' refused steps, two per adjacency entry */
  /* Grid levels only (NULL otherwise): */
  int *cell; /* the tile (y * width + x) standing for the vertex: a lock or one-way goes there */
  int *side; /* a passage's tiles next to g->cell toward adjacent side 0 and side 1 */
  int *member_start; /* CSR: the vertex's tiles are members[member_start[v] .. [v+1]) */
  int *members;      /* tiles of every vertex, in flood or chain order */
  int *vertex_of;    /* the vertex of each walkable tile; unset elsewhere (see tile_vertex) */
  /* While build_from_grid runs (its scratch): the tiles of vertex v that
   * may touch another vertex are links[link_start[v] .. [v+1]), in member
   * order, so that linking visits a room's rim, not its whole floor. */
  int *link_start, *links, link_count;
  /* A grid level whose generator's traced graph is the map's (classic):
   * the vertices are its nodes and edges (build_from_trace), no tile has a
   * vertex of its own, and members / vertex_of are not used. */
  bool trace;
  /* At most SMALL_GRAPH vertices (a classic level has about 20): each
   * vertex's neighbours as one bit mask, for the searches' bit-set form. */
#define SMALL_GRAPH 64
  bool small;
  bool masks_ready;     /* graph_adjacency made them */
  uint64_t *neighbours; /* SMALL_GRAPH of them, in pgraph_tables */
  /* What the entrance reaches is a tree (tree_cuts): one path between
   * any two of its vertices, read from depth_parent (tree_leg). */
  bool tree;
  void *block; /* the per-vertex arrays above */
  /* The caller's stack buffer, which holds the block and the adjacency
   * when they fit (a classic level's do, several times over): a level of
   * ten rooms should not pay for malloc and free. */
  unsigned char *scratch;
  size_t scratch_size, scratch_used;
} pgraph;

/* pgraph's fixed-size tables, apart from it so that zeroing a pgraph for
 * each level does not zero them too (a kilobyte): read only as far as
 * they are written (spawn_count, the small graph's vertices). */
#define SPAWN_TILES_MAX 32
typedef struct pgraph_tables {
  uint64_t neighbours[SMALL_GRAPH];
  int spawn_tile[SPAWN_TILES_MAX], spawn_x[SPAWN_TILES_MAX], spawn_y[SPAWN_TILES_MAX];
} pgraph_tables;

/* The pass's stack buffer: a 64-vertex graph's block and adjacency fit. */
#define PGRAPH_SCRATCH 12288

/* `bytes` from g's stack buffer when they fit, else from malloc (NULL:
 * out of memory). Uninitialised either way; pgraph_give hands it back. */
static void *pgraph_take(pgraph *g, size_t bytes) {
  bytes = (bytes + 15) & ~(size_t)15;
  if (bytes <= g->scratch_size - g->scratch_used) {
    void *at = g->scratch + g->scratch_used;
    g->scratch_used += bytes;
    return at;
  }
  return malloc(bytes);
}

static void pgraph_give(const pgraph *g, void *p) {
  unsigned char *at = p;
  if (at < g->scratch || at >= g->scratch + g->scratch_size)
    free(p);
}

static void pgraph_free(pgraph *g) {
  pgraph_give(g, g->block);
  pgraph_give(g, g->adjacent);
  free(g->vertex_of);
}

/* Vertex v's defaults: no room, nothing special, one key place, no kind
 * beyond walkable. */
static inline void pgraph_init(pgraph *g, int v) {
  g->room[v] = -1;
  g->special[v] = SPECIAL_NONE;
  g->key_slots[v] = 1;
  g->kind[v] = V_OTHER;
}

/* Carves the per-vertex arrays for up to `capacity` vertices out of one
 * allocation; `tiles` (grid levels) also sizes the members. */
static int pgraph_alloc(pgraph *g, int capacity, int tiles) {
  int **arrays[] = {&g->room,      &g->special,      &g->dist,        &g->queue,
                    &g->parent,    &g->mark,         &g->disc,        &g->low,
                    &g->next,      &g->tree_parent,  &g->depth,       &g->depth_parent,
                    &g->key_slots, &g->cuts,         &g->path,        &g->candidates,
                    &g->off_walk,  &g->keyable_list, &g->depth_order, &g->key_segment,
                    &g->key_hops};
  const size_t count = sizeof arrays / sizeof *arrays;
  size_t n = (size_t)(capacity > 0 ? capacity : 1);
  /* The arrays above, floor_before and rem, offsets, and a grid's cell,
   * side, member_start and members: sized from the same list they are
   * carved by, so that one more array cannot overrun the block. */
  size_t ints = count * n + (2 * n + 4) + (n + 1);
  if (tiles > 0)
    ints += 4 * n + 1 + (size_t)tiles;
  g->block = pgraph_take(g, ints * sizeof(int) + 3 * n);
  if (g->block == NULL)
    return DG_ENOMEM;
  int *at = g->block;
  for (size_t i = 0; i < count; i++, at += n)
    *arrays[i] = at;
  g->floor_before = at;
  g->rem = at + n + 2;
  at += 2 * n + 4;
  g->offsets = at;
  at += n + 1;
  if (tiles > 0) {
    g->cell = at;
    g->side = at + n;
    g->member_start = at + 3 * n;
    g->members = at + 4 * n + 1;
    at += 4 * n + 1 + tiles;
  }
  g->kind = (uint8_t *)at;
  g->keyable = g->kind + n;
  g->articulation = g->keyable + n;
  g->count = capacity;
  /* A grid's capacity is its walkable tiles, many times its vertices:
   * build_from_grid sets up each vertex as it makes it (pgraph_init). */
  for (int v = 0; v < capacity && tiles == 0; v++)
    pgraph_init(g, v);
  g->closed_lock = g->blocked = -1;
  return 0;
}

/* strcmp(a, b) == 0, with the pointers and then the first letters
 * compared inline: kinds are static strings, often the very literal
 * compared with, and short words that mostly differ in their first
 * letter; the pass compares one per room, node and feature. */
static inline bool same_word(const char *a, const char *b) {
  return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

/* The level's first stairs up and down features (NULL: none), in one
 * pass over the features. */
static void find_stairs(const dg_level *level, const dg_feature **up, const dg_feature **down) {
  *up = *down = NULL;
  for (int i = 0; i < level->feature_count; i++) {
    const char *kind = level->features[i].kind;
    if (kind[0] != 's' || kind[1] != 't')
      continue; /* not stairs: "spawn", "key", ... */
    if (*up == NULL && strcmp(kind, "stairs_up") == 0)
      *up = &level->features[i];
    else if (*down == NULL && strcmp(kind, "stairs_down") == 0)
      *down = &level->features[i];
  }
}

/* A tile belongs to a room when it is floor or stairs inside the room's
 * rectangle. Corridors and doors belong to no room, even inside a
 * rectangle (a tunnel may cross one). build_from_grid's `owner` holds the
 * answer per tile, so that the flood compares one int per neighbour:
 * the room (the first whose rectangle holds the tile) for floor and
 * stairs, IN_RECTANGLE for other tiles inside some room's rectangle,
 * OUTSIDE_ROOMS for the rest (read on walkable tiles only). */
enum { OUTSIDE_ROOMS = -1, IN_RECTANGLE = -3 };
#define ROOM_TILE_MASK                                                                             \
  ((1u << DG_TILE_FLOOR) | (1u << DG_TILE_STAIRS_UP) | (1u << DG_TILE_STAIRS_DOWN))

/* Bits of ways[p]: which 4-neighbours of tile p are walkable. */
enum { WAY_NORTH = 1, WAY_EAST = 2, WAY_SOUTH = 4, WAY_WEST = 8 };

/* The walkable 4-neighbours of tile p (north, east, south, west order)
 * into around[], their count returned; `ways` is computed once per level
 * so that this costs no division and no bounds test. */
static int neighbours(const dg_grid *grid, const uint8_t *ways, int p, int around[4]) {
  int width = grid->width, n = 0, w = ways[p];
  if (w & WAY_NORTH)
    around[n++] = p - width;
  if (w & WAY_EAST)
    around[n++] = p + 1;
  if (w & WAY_SOUTH)
    around[n++] = p + width;
  if (w & WAY_WEST)
    around[n++] = p - 1;
  return n;
}

/* How many walkable 4-neighbours tile p has. */
static int way_count(const uint8_t *ways, int p) {
  static const uint8_t bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return bits[ways[p] & 15];
}

/* Fills vertex_of[] on walkable tiles (-2: not yet a vertex; other tiles
 * are left unset, and read only through tile_vertex),
 * ways[] (on walkable tiles only) and the list of walkable tiles in
 * row-major order; returns how many tiles are walkable. `walk` is scratch
 * for the map with a border of one stone tile around it, so that a tile's
 * four neighbours are read with no bounds test; `padded` holds each listed
 * tile's index there. Most of a map is stone: tiles are tested sixteen at
 * a time and only the walkable ones visited, each twice. */
static int scan_tiles(const dg_grid *grid, int *vertex_of, uint8_t *ways, int *walkable_tiles,
                      int *padded, uint8_t *walk) {
  int width = grid->width, height = grid->height, stride = width + 2;
  memset(walk, 0, (size_t)stride * (size_t)(height + 2));
  int walkable = dg_tile_list_fill(grid, stride, walk, padded, walkable_tiles);
  for (int i = 0; i < walkable; i++) {
    int p = walkable_tiles[i], q = padded[i];
    vertex_of[p] = -2;
    ways[p] = (uint8_t)(walk[q - stride] * WAY_NORTH | walk[q + 1] * WAY_EAST |
                        walk[q + stride] * WAY_SOUTH | walk[q - 1] * WAY_WEST);
  }
  return walkable;
}

/* The vertex of tile p, -1 when it is not walkable: vertex_of is set on
 * walkable tiles only (clearing the whole map for the few reads of other
 * tiles cost more than they do). */
static int tile_vertex(const dg_grid *grid, const pgraph *g, int p) {
  return dg_tile_walkable((dg_tile)grid->tiles[p]) ? g->vertex_of[p] : -1;
}

/* A tile of a chain: walkable, outside rooms, exactly two walkable
 * neighbours. */
static bool chain_tile(const int *owner, const int *vertex_of, const uint8_t *ways, int p) {
  return vertex_of[p] != -1 && way_count(ways, p) == 2 && owner[p] < 0;
}

/* Floods room part v from tile p over the room tiles of p's room,
 * appending them to g->members, and those next to anything else (a door,
 * a corridor, another room) to g->links. Most of a level's walkable tiles
 * are floor, so the loop is branch-free: whether a neighbour joins is
 * unpredictable, and a misprediction per neighbour cost more than the
 * rest of the step. */
static void flood_part(pgraph *g, const dg_grid *grid, const int *owner, const uint8_t *ways,
                       int *stack, int p, int v) {
  const uint8_t *tiles = grid->tiles;
  int *restrict vertex_of = g->vertex_of, *restrict members = g->members;
  int *restrict links = g->links;
  int top = 0, end = g->member_start[v], link_count = g->link_count, slots = 0;
  const int room = owner[p], width = grid->width;
  const int step[4] = {-width, 1, width, -1};
  vertex_of[p] = v;
  stack[top++] = p;
  while (top > 0) {
    int t = stack[--top], w = ways[t], rim = 0;
    members[end++] = t;
    slots += tiles[t] == DG_TILE_FLOOR;
    for (int d = 0; d < 4; d++) {
      if (!(w & (1 << d)))
        continue;
      int q = t + step[d];
      int same = owner[q] == room;
      int joins = same & (vertex_of[q] == -2);
      rim |= !same;
      /* The slot is always written, kept only when q joins. */
      stack[top] = q;
      top += joins;
      vertex_of[q] = joins ? v : vertex_of[q];
    }
    links[link_count] = t;
    link_count += rim;
  }
  g->key_slots[v] = slots;
  g->link_count = link_count;
  g->member_start[v + 1] = end;
}

/* Follows a chain from tile `from` in direction `d` (0 north, 1 east, 2
 * south, 3 west, as the WAY_ bits) while its tiles are chain tiles not yet
 * taken, appending them to out[]; returns how many, and the first tile
 * past the run in *past (`from` again for a ring). A chain tile has two
 * ways: the one it was entered by, and the next step. */
static int follow(const dg_grid *grid, const int *owner, const int *vertex_of, const uint8_t *ways,
                  int from, int d, int *out, int *past) {
  const int step[4] = {-grid->width, 1, grid->width, -1};
  int count = 0, next = from + step[d], back = 1 << ((d + 2) & 3);
  while (next != from && vertex_of[next] == -2 && way_count(ways, next) == 2 && owner[next] < 0) {
    out[count++] = next;
    d = __builtin_ctz((unsigned)(ways[next] & ~back));
    back = 1 << ((d + 2) & 3);
    next += step[d];
  }
  *past = next;
  return count;
}

/* Whether tile p has walkable neighbours on two opposite sides, and no
 * other. */
static bool straight(const uint8_t *ways, int p) {
  return ways[p] == (WAY_NORTH | WAY_SOUTH) || ways[p] == (WAY_EAST | WAY_WEST);
}

/* The chain through tile p as vertex v: its tiles in order from one end to
 * the other, its representative (the first door, else the first straight
 * corridor tile) and that tile's neighbours toward each end. */
static void trace_chain(pgraph *g, const dg_grid *grid, const int *owner, const uint8_t *ways,
                        int *stack, int p, int v) {
  int past_a = -1, past_b = -1;
  /* Its two ways, in neighbours()'s order: the lower bit first. */
  int first = __builtin_ctz(ways[p]), second = __builtin_ctz(ways[p] & (ways[p] - 1));
  g->vertex_of[p] = v; /* taken, so the two walks stop at it */
  int back = follow(grid, owner, g->vertex_of, ways, p, first, stack, &past_a);
  int *members = g->members + g->member_start[v], length = 0;
  for (int i = back - 1; i >= 0; i--)
    members[length++] = stack[i];
  members[length++] = p;
  int ahead = past_a == p
                  ? 0
                  : follow(grid, owner, g->vertex_of, ways, p, second, members + length, &past_b);
  length += ahead;
  g->member_start[v + 1] = g->member_start[v] + length;
  int rep = -1;
  for (int i = 0; i < length; i++)
    g->vertex_of[members[i]] = v;
  for (int pass = 0; pass < 2 && rep < 0; pass++)
    for (int i = 0; i < length && rep < 0; i++) {
      dg_tile tile = (dg_tile)grid->tiles[members[i]];
      if ((pass == 0 ? tile == DG_TILE_DOOR : tile == DG_TILE_CORRIDOR) &&
          straight(ways, members[i]))
        rep = i;
    }
  g->key_slots[v] = 0;
  g->cell[v] = members[rep >= 0 ? rep : 0];
  /* Inner tiles of a chain touch only its own tiles: its ends link it. */
  g->links[g->link_count++] = members[0];
  if (length > 1)
    g->links[g->link_count++] = members[length - 1];
  if (rep < 0 || past_a == p)
    return; /* nothing to lock, or a ring of corridor touching nothing */
  g->side[2 * v] = rep > 0 ? members[rep - 1] : past_a;
  g->side[2 * v + 1] = rep + 1 < length ? members[rep + 1] : past_b;
  g->kind[v] = V_PASSAGE;
}

/* The adjacency of the grid's vertices: for each vertex, the vertices next
 * to its tiles, each once (a room part touches a junction along several
 * tiles); a passage's two ends in order (side 0 from its first tile, side 1
 * from its last), kept even when both are the same vertex. Only the link
 * tiles are visited: every other tile of a vertex touches only the vertex. */
static int link_vertices(pgraph *g, const dg_grid *grid, const uint8_t *ways) {
  int links = g->link_start[g->count], total = 0;
  /* At most four entries a link tile; assign_spheres' refused steps
   * (two ints an entry) share the allocation. */
  size_t entries = (size_t)(links > 0 ? 4 * links : 1);
  g->adjacent = pgraph_take(g, 3 * entries * sizeof *g->adjacent);
  if (g->adjacent == NULL)
    return DG_ENOMEM;
  g->refused = g->adjacent + entries;
  for (int v = 0; v < g->count; v++)
    g->mark[v] = -1;
  for (int v = 0; v < g->count; v++) {
    g->offsets[v] = total;
    for (int i = g->link_start[v]; i < g->link_start[v + 1]; i++) {
      int around[4], n = neighbours(grid, ways, g->links[i], around);
      for (int j = 0; j < n; j++) {
        int u = g->vertex_of[around[j]];
        if (u == v || (g->mark[u] == v && g->kind[v] != V_PASSAGE))
          continue;
        g->mark[u] = v;
        g->adjacent[total++] = u;
      }
    }
  }
  g->offsets[g->count] = total;
  return 0;
}

/* Spawns are positions on floor: no key goes there. The entrance and exit
 * are the vertices of the stairs' tiles. */
static void mark_stairs_and_spawns(const dg_level *level, pgraph *g) {
  const dg_grid *grid = &level->grid;
  int width = grid->width;
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *f = &level->features[i];
    if (strcmp(f->kind, "spawn") == 0 && dg_grid_contains(grid, f->x, f->y)) {
      int v = tile_vertex(grid, g, f->y * width + f->x);
      if (v >= 0 && g->key_slots[v] > 0)
        g->key_slots[v]--;
    }
  }
  const dg_feature *up = g->up, *down = g->down;
  g->entrance = up != NULL && dg_grid_contains(grid, up->x, up->y)
                    ? tile_vertex(grid, g, up->y * width + up->x)
                    : -1;
  g->exit = down != NULL && dg_grid_contains(grid, down->x, down->y)
                ? tile_vertex(grid, g, down->y * width + down->x)
                : -1;
}

/* The grid as a small vertex graph, so that every later step costs in
 * proportion to the level's rooms and passages, not to its tiles:
 * - a room part: the connected floor (and stairs) tiles of one room, the
 *   room as a player sees it (a shaped room's rectangle may hold two parts,
 *   and a corridor crossing it is no part of it);
 * - a chain: a maximal run of walkable tiles outside rooms with exactly two
 *   walkable neighbours each (a door, a corridor between two junctions),
 *   which one tile closes; its g->cell is the first door of the run, else
 *   its first straight corridor tile: where a lock or one-way door goes;
 * - every other walkable tile outside rooms (junctions, dead ends).
 * Vertices are numbered in the row-major order of their first tile, so
 * all that follows is a function of the map. Every later step works on
 * this graph: a vertex is cut, reached or locked exactly when its tiles are
 * (a chain's tiles all have two neighbours, so closing one closes all). */
static int build_from_grid(const dg_level *level, pgraph *g) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, height = grid->height, cells = width * height;
  size_t border = (size_t)(width + 2) * (size_t)(height + 2);
  /* One block of scratch: owner, stack, walkable tiles, their padded
   * indices, link starts, links (ints), then ways and walk (bytes). */
  int *owner =
      malloc((size_t)cells * 6 * sizeof *owner + 6 * sizeof *owner + (size_t)cells + border);
  g->vertex_of = malloc((size_t)cells * sizeof *g->vertex_of);
  int rc = DG_ENOMEM;
  if (owner == NULL || g->vertex_of == NULL)
    goto done;
  int *stack = owner + cells;                        /* flood stack, then one end of a chain */
  int *walkable_tiles = stack + cells;               /* in row-major order (+ 1: see scan_tiles) */
  int *padded = walkable_tiles + cells + 1;          /* their indices in `walk` */
  g->link_start = padded + cells + 1;                /* per vertex (+ 1) */
  g->links = g->link_start + cells + 2;              /* tiles of vertices that touch others */
  uint8_t *ways = (uint8_t *)(g->links + cells + 2); /* walkable neighbours of each tile */
  int walkable = scan_tiles(grid, g->vertex_of, ways, walkable_tiles, padded, ways + cells);
  /* owner (see ROOM_TILE_MASK), written on every tile of a rectangle,
   * read on walkable tiles only. */
  for (int i = 0; i < walkable; i++)
    owner[walkable_tiles[i]] = OUTSIDE_ROOMS;
  for (int r = level->room_count - 1; r >= 0; r--) {
    const dg_room *room = &level->rooms[r];
    int x0 = room->x > 0 ? room->x : 0, y0 = room->y > 0 ? room->y : 0;
    int x1 = room->x + room->width < width ? room->x + room->width : width;
    int y1 = room->y + room->height < height ? room->y + room->height : height;
    for (int y = y0; y < y1; y++)
      for (int x = x0; x < x1; x++) {
        unsigned tile = grid->tiles[y * width + x];
        owner[y * width + x] = tile < 32u && ((ROOM_TILE_MASK >> tile) & 1u) ? r : IN_RECTANGLE;
      }
  }
  if ((rc = pgraph_alloc(g, walkable, walkable)) != 0)
    goto done;
  int count = 0;
  g->member_start[0] = 0;
  g->link_count = 0;
  for (int i = 0; i < walkable; i++) {
    int p = walkable_tiles[i];
    if (g->vertex_of[p] != -2)
      continue;
    int v = count++;
    dg_tile tile = (dg_tile)grid->tiles[p];
    pgraph_init(g, v);
    g->cell[v] = p;
    g->link_start[v] = g->link_count;
    if (owner[p] >= 0) {
      g->room[v] = owner[p];
      g->kind[v] = V_FLOOR;
      flood_part(g, grid, owner, ways, stack, p, v);
    } else if (chain_tile(owner, g->vertex_of, ways, p)) {
      trace_chain(g, grid, owner, ways, stack, p, v);
    } else {
      g->vertex_of[p] = v;
      g->members[g->member_start[v]] = p;
      g->member_start[v + 1] = g->member_start[v] + 1;
      g->links[g->link_count++] = p;
      bool dead_end =
          tile == DG_TILE_CORRIDOR && owner[p] == OUTSIDE_ROOMS && way_count(ways, p) == 1;
      g->kind[v] = dead_end ? V_DEAD_END : V_OTHER;
      g->key_slots[v] = dead_end;
    }
  }
  g->count = count;
  g->link_start[count] = g->link_count;
  mark_stairs_and_spawns(level, g);
  rc = link_vertices(g, grid, ways);
done:
  free(owner);
  g->link_start = g->links = NULL;
  return rc;
}

/* The adjacency of a graph's vertices: nodes first, then one vertex per
 * edge (a loop edge has no neighbours), each edge's vertex next to its
 * `from` node first. Uses g->mark as scratch. */
static int graph_adjacency(const dg_graph *graph, pgraph *g) {
  int nodes = graph->node_count;
  size_t entries = (size_t)(graph->edge_count > 0 ? 4 * graph->edge_count : 1);
  g->adjacent = pgraph_take(g, 3 * entries * sizeof *g->adjacent); /* and the refused steps */
  if (g->adjacent == NULL)
    return DG_ENOMEM;
  g->refused = g->adjacent + entries;
  int *degree = g->mark, *offsets = g->offsets, *adjacent = g->adjacent, count = g->count;
  const dg_edge *edges = graph->edges;
  /* Only the nodes' degrees are counted: an edge's vertex has its two
   * ends (none for a loop), written straight to its place. */
  memset(degree, 0, (size_t)nodes * sizeof *degree);
  int links = 0; /* edges that are no loop */
  for (int e = 0; e < graph->edge_count; e++)
    if (edges[e].from != edges[e].to) {
      degree[edges[e].from]++;
      degree[edges[e].to]++;
      links++;
    }
  /* degree[v] becomes the end of v's list, filled backward below, edges
   * in reverse order: each list ends in edge order, as a forward fill
   * would leave it, with no second count and no pass for the edges'
   * offsets, which are set as the fill goes. */
  offsets[0] = 0;
  for (int v = 0; v < nodes; v++)
    degree[v] = offsets[v + 1] = offsets[v] + degree[v];
  /* A small graph's neighbour masks (small_masks) come with the lists. */
  bool small = count <= SMALL_GRAPH;
  uint64_t *mask = g->neighbours;
  if (small)
    memset(mask, 0, (size_t)count * sizeof *mask);
  int at = offsets[nodes] + 2 * links;
  for (int e = graph->edge_count - 1; e >= 0; e--) {
    int a = edges[e].from, b = edges[e].to, v = nodes + e;
    offsets[v + 1] = at;
    if (a == b)
      continue;
    at -= 2;
    adjacent[--degree[a]] = v;
    adjacent[--degree[b]] = v;
    adjacent[at] = a;
    adjacent[at + 1] = b;
    if (small) {
      mask[a] |= (uint64_t)1 << v;
      mask[b] |= (uint64_t)1 << v;
      mask[v] = (uint64_t)1 << a | (uint64_t)1 << b;
    }
  }
  g->masks_ready = small;
  return 0;
}

/* The room graph as a vertex graph (graph_adjacency): an edge is a
 * connection, which may become a lock or a one-way door. Stairs lie on
 * their room's node; forced stairs up outside every room on their own
 * "stairs" node (placement.c joins it to the room their way reaches). */
static int build_from_graph(const dg_level *level, pgraph *g) {
  const dg_graph *graph = &level->graph;
  int nodes = graph->node_count;
  int rc = pgraph_alloc(g, nodes + graph->edge_count, 0);
  if (rc != 0 || (rc = graph_adjacency(graph, g)) != 0)
    return rc;
  for (int e = 0; e < graph->edge_count; e++)
    if (graph->edges[e].from != graph->edges[e].to)
      g->kind[nodes + e] = V_PASSAGE;
  for (int n = 0; n < nodes; n++) {
    g->room[n] = graph->nodes[n].room;
    int ways = g->offsets[n + 1] - g->offsets[n];
    g->kind[n] = graph->nodes[n].room >= 0 ? V_FLOOR : ways == 1 ? V_DEAD_END : V_OTHER;
  }
  const dg_feature *up = g->up, *down = g->down;
  g->entrance = g->exit = -1;
  for (int n = 0; n < nodes; n++) {
    if (up != NULL && g->entrance < 0 && up->room >= 0 && graph->nodes[n].room == up->room)
      g->entrance = n;
    if (up != NULL && g->entrance < 0 && up->room < 0 &&
        strcmp(graph->nodes[n].kind, "stairs") == 0 && graph->nodes[n].x == up->x &&
        graph->nodes[n].y == up->y)
      g->entrance = n;
    if (down != NULL && g->exit < 0 && down->room >= 0 && graph->nodes[n].room == down->room)
      g->exit = n;
  }
  return 0;
}

/* Whether a spawn stands on tile p. */
static bool spawn_at(const dg_level *level, int p) {
  int x = p % level->grid.width, y = p / level->grid.width;
  for (int i = 0; i < level->feature_count; i++)
    if (level->features[i].x == x && level->features[i].y == y &&
        strcmp(level->features[i].kind, "spawn") == 0)
      return true;
  return false;
}

/* spawn_at from the spawns build_from_trace listed. */
static bool is_spawn(const dg_level *level, const pgraph *g, int p) {
  if (g->spawn_count < 0)
    return spawn_at(level, p);
  for (int i = 0; i < g->spawn_count; i++)
    if (g->spawn_tile[i] == p)
      return true;
  return false;
}

/* A traced level: room `room`'s floor tile number `pick` (row by row)
 * among those that hold no spawn, or -1 when it has fewer; with `count`,
 * how many it has into *count (and -1 returned), the first `list_max` of
 * them into `listed`, which has room for list_max + 1. */
/* Room `room`'s rectangle within the map, [x0, x1) x [y0, y1), into r[0..3];
 * returns whether a spawn may lie inside it (true also when the spawns
 * were too many to list), so that a room's floor, mostly free, is read
 * with no spawn test per tile. */
static bool room_rect(const dg_level *level, const pgraph *g, int room, int r[4]) {
  const dg_room *box = &level->rooms[room];
  const dg_grid *grid = &level->grid;
  r[0] = box->x > 0 ? box->x : 0;
  r[1] = box->y > 0 ? box->y : 0;
  r[2] = box->x + box->width < grid->width ? box->x + box->width : grid->width;
  r[3] = box->y + box->height < grid->height ? box->y + box->height : grid->height;
  bool spawns = g->spawn_count < 0;
  for (int i = 0; i < g->spawn_count && !spawns; i++) {
    int x = g->spawn_x[i], y = g->spawn_y[i];
    spawns = x >= r[0] && x < r[2] && y >= r[1] && y < r[3];
  }
  return spawns;
}

static int room_floor_tiles(const dg_level *level, const pgraph *g, int room, int pick, int *count,
                            int *listed, int list_max) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, found = 0, r[4];
  bool spawns = room_rect(level, g, room, r);
  int x0 = r[0], y0 = r[1], x1 = r[2], y1 = r[3];
  if (count != NULL && !spawns) {
    /* Counting a room with no spawn, without a branch per tile: every
     * tile is written to the list, and kept only if it is a place
     * (listed[list_max] takes the rest). */
    for (int y = y0; y < y1; y++) {
      const uint8_t *tiles = grid->tiles + (long)y * width;
      const int *owner = level->room_of + (long)y * width;
      for (int x = x0; x < x1; x++) {
        listed[found < list_max ? found : list_max] = y * width + x;
        found += (owner[x] == room) & (tiles[x] == DG_TILE_FLOOR);
      }
    }
    *count = found;
    return -1;
  }
  for (int y = y0; y < y1; y++) {
    const uint8_t *tiles = grid->tiles + (long)y * width;
    const int *owner = level->room_of + (long)y * width;
    for (int x = x0; x < x1; x++) {
      int t = y * width + x;
      if (owner[x] != room || tiles[x] != DG_TILE_FLOOR || (spawns && is_spawn(level, g, t)))
        continue;
      if (count == NULL && found == pick)
        return t;
      if (found < list_max)
        listed[found] = t;
      found++;
    }
  }
  if (count != NULL)
    *count = found;
  return -1;
}

static int room_floor_tile(const dg_level *level, const pgraph *g, int room, int pick) {
  return room_floor_tiles(level, g, room, pick, NULL, NULL, 0);
}

/* Whether a traced room's node tile (its rectangle's centre) is one of the
 * places room_floor_tiles counts: then the room has one, and its rectangle
 * need not be scanned to say so (a room's centre is nearly always its
 * floor). */
static bool room_centre_is_place(const dg_level *level, const pgraph *g, int v) {
  const dg_room *box = &level->rooms[g->room[v]];
  const dg_grid *grid = &level->grid;
  int x = level->graph.nodes[v].x, y = level->graph.nodes[v].y, p = y * grid->width + x;
  return dg_grid_contains(grid, x, y) && x >= box->x && x < box->x + box->width && y >= box->y &&
         y < box->y + box->height && level->room_of[p] == g->room[v] &&
         grid->tiles[p] == DG_TILE_FLOOR && !is_spawn(level, g, p);
}

/* Whether the graph the generator traced from the map (dg_trace_graph,
 * with level->trace_passages) still is the map's: the trace saw the map
 * as it is now (placement digging a way or putting stairs on a corridor
 * clears grid_metrics_ready), no node stands for stairs outside the rooms,
 * and each staircase lies on a tile of a room (node r is room r). */
static bool trace_usable(const dg_level *level, const pgraph *g) {
  const dg_grid *grid = &level->grid;
  if (!level->has_grid || level->grid_is_projection || !level->grid_metrics_ready ||
      level->trace_passages == NULL || level->room_of == NULL ||
      level->trace_passage_count > level->graph.edge_count)
    return false;
  if (level->graph.node_count < level->room_count)
    return false;
  for (int n = 0; n < level->graph.node_count; n++) {
    const dg_node *node = &level->graph.nodes[n];
    if (node->room != (n < level->room_count ? n : -1) ||
        (n >= level->room_count && !same_word(node->kind, "junction") &&
         !same_word(node->kind, "dead_end")))
      return false;
  }
  const dg_feature *stairs[2] = {g->up, g->down};
  for (int i = 0; i < 2; i++) {
    const dg_feature *f = stairs[i];
    if (f != NULL &&
        (!dg_grid_contains(grid, f->x, f->y) || level->room_of[f->y * grid->width + f->x] < 0 ||
         level->room_of[f->y * grid->width + f->x] >= level->graph.node_count))
      return false;
  }
  return true;
}

/* A traced grid level's graph as the vertex graph (graph_adjacency), with
 * each vertex's tiles read from the map only where a step needs them:
 * - a room's node: its floor tiles (room_of) are its key places;
 * - a dead end's node: its corridor tile, one key place;
 * - a chain's edge: a passage when the trace found a tile that closes it
 *   (level->trace_passages: a door at its end or a straight door or
 *   corridor tile of it), its g->cell, with the tiles beside it toward
 *   each end in g->side;
 * - junctions and the edges between node tiles side by side: nothing.
 * The same steps then run as on build_from_grid's graph, in proportion
 * to the level's rooms and corridors, with no scan of the map. */
static int build_from_trace(const dg_level *level, pgraph *g) {
  const dg_graph *graph = &level->graph;
  const dg_grid *grid = &level->grid;
  int nodes = graph->node_count, width = grid->width;
  int rc = pgraph_alloc(g, nodes + graph->edge_count, 1);
  if (rc != 0)
    return rc;
  g->trace = true;
  if ((rc = graph_adjacency(graph, g)) != 0)
    return rc;
  /* Each vertex is set up below, as a node or an edge (no pgraph_init):
   * a store per array and vertex, not a default and then the value. */
  memset(g->special, 0xff, (size_t)g->count * sizeof *g->special); /* SPECIAL_NONE */
  for (int e = 0; e < graph->edge_count; e++) {
    int v = nodes + e;
    const int *passage = e < level->trace_passage_count ? &level->trace_passages[3 * e] : NULL;
    g->room[v] = -1;
    g->key_slots[v] = 0;
    bool closes = graph->edges[e].from != graph->edges[e].to && passage != NULL && passage[0] >= 0;
    g->kind[v] = closes ? V_PASSAGE : V_OTHER;
    if (!closes)
      continue;
    g->cell[v] = passage[0];
    g->side[2 * v] = passage[1];
    g->side[2 * v + 1] = passage[2];
  }
  g->spawn_count = 0;
  for (int i = 0; i < level->feature_count && g->spawn_count >= 0; i++) {
    const dg_feature *f = &level->features[i];
    if (!same_word(f->kind, "spawn"))
      continue;
    if (g->spawn_count == SPAWN_TILES_MAX || !dg_grid_contains(grid, f->x, f->y))
      g->spawn_count = -1;
    else {
      g->spawn_x[g->spawn_count] = f->x;
      g->spawn_y[g->spawn_count] = f->y;
      g->spawn_tile[g->spawn_count++] = f->y * width + f->x;
    }
  }
  for (int n = 0; n < nodes; n++) {
    const dg_node *node = &graph->nodes[n];
    int p = node->y * width + node->x;
    g->cell[n] = p;
    g->key_slots[n] = 0;
    g->room[n] = -1;
    g->kind[n] = V_OTHER;
    if (node->room >= 0) {
      g->room[n] = node->room;
      g->kind[n] = V_FLOOR;
      /* Whether it has a key place is asked by key_place, only of the
       * rooms that pass its other tests; the tile is drawn among all of
       * them only for a room that gets a key (choose_key_cells). */
      g->key_slots[n] = -1;
    } else if (same_word(node->kind, "dead_end") && grid->tiles[p] == DG_TILE_CORRIDOR) {
      g->kind[n] = V_DEAD_END;
      g->key_slots[n] = !is_spawn(level, g, p);
    }
  }
  const dg_feature *up = g->up, *down = g->down;
  g->entrance = up != NULL ? level->room_of[up->y * width + up->x] : -1;
  g->exit = down != NULL ? level->room_of[down->y * width + down->x] : -1;
  return 0;
}

/* Whether a walker may step from `v` to its neighbour `u` holding `keys`
 * keys (locks 0..keys-1 open): a closed lock is a wall, a one-way door is
 * entered only from its `from` side and left only to its `to` side. */
static bool can_step(const pgraph *g, int v, int u, int keys) {
  int su = g->special[u], sv = g->special[v];
  if (su >= 0 && su < SPECIAL_ONE_WAY && (su >= keys || su == g->closed_lock))
    return false;
  if (su >= SPECIAL_ONE_WAY && g->ow_from[su - SPECIAL_ONE_WAY] != v)
    return false;
  if (sv >= SPECIAL_ONE_WAY && g->ow_to[sv - SPECIAL_ONE_WAY] != u)
    return false;
  return true;
}

/* The searches on a graph of at most SMALL_GRAPH vertices, a level of the
 * search at a time on bit masks: whether a neighbour is new, open or a
 * one-way door is a mask operation, not a branch per step (each step is
 * a coin toss to the branch predictor, and this is where the pass's time
 * went). small_rules gives the locks closed with `keys` keys (none when
 * keys < 0, every door open both ways) and the one-way doors (none then
 * either); small_step the neighbours of v a walker may step to, less
 * `taken`. */
static void small_rules(const pgraph *g, int keys, uint64_t *closed, uint64_t *one_way) {
  *closed = *one_way = 0;
  for (int v = 0; v < g->count && keys >= 0; v++) {
    int s = g->special[v];
    *closed |= (uint64_t)(s >= 0 && s < SPECIAL_ONE_WAY && (s >= keys || s == g->closed_lock)) << v;
    *one_way |= (uint64_t)(s >= SPECIAL_ONE_WAY) << v;
  }
}

static uint64_t small_step(const pgraph *g, int v, uint64_t taken, uint64_t closed,
                           uint64_t one_way) {
  uint64_t step = g->neighbours[v] & ~closed & ~taken;
  if ((one_way >> v) & 1) {
    int to = g->ow_to[g->special[v] - SPECIAL_ONE_WAY];
    step &= to >= 0 ? (uint64_t)1 << to : 0;
  }
  for (uint64_t doors = step & one_way; doors != 0; doors &= doors - 1) {
    int u = __builtin_ctzll(doors);
    if (g->ow_from[g->special[u] - SPECIAL_ONE_WAY] != v)
      step &= ~((uint64_t)1 << u);
  }
  return step;
}

/* bfs on a small graph: within a level of the search, vertices are taken
 * in index order, and a vertex's parent is the first of them to reach it. */
static int bfs_small(pgraph *g, int source, int target, int keys) {
  uint64_t closed, one_way;
  small_rules(g, keys, &closed, &one_way);
  for (int v = 0; v < g->count; v++)
    g->dist[v] = -1;
  uint64_t seen = (uint64_t)1 << source, front = seen;
  int tail = 0, depth = 0;
  g->dist[source] = 0;
  g->parent[source] = -1;
  g->queue[tail++] = source;
  while (front != 0 && (target < 0 || !((front >> target) & 1))) {
    uint64_t next = 0;
    for (uint64_t left = front; left != 0; left &= left - 1) {
      int v = __builtin_ctzll(left);
      uint64_t step = small_step(g, v, seen | next, closed, one_way);
      next |= step;
      for (; step != 0; step &= step - 1) {
        int u = __builtin_ctzll(step);
        g->dist[u] = depth + 1;
        g->parent[u] = v;
        g->queue[tail++] = u;
      }
    }
    seen |= next;
    front = next;
    depth++;
  }
  return tail;
}

/* Sets g->small, and on a small graph each vertex's neighbour mask. */
static void small_masks(pgraph *g) {
  g->small = g->count <= SMALL_GRAPH;
  if (!g->small || g->masks_ready)
    return;
  const int *offsets = g->offsets, *adjacent = g->adjacent;
  for (int v = 0, count = g->count; v < count; v++) {
    uint64_t mask = 0;
    for (int i = offsets[v]; i < offsets[v + 1]; i++)
      mask |= (uint64_t)1 << adjacent[i];
    g->neighbours[v] = mask;
  }
}

/* Breadth-first search from `source` over steps allowed with `keys` keys
 * (keys < 0: every door open, both ways); fills g->dist and g->parent and
 * stops early when `target` (>= 0) is reached. Returns how many vertices
 * were reached. */
/* bfs_small with every door open and no target (the depth search): the
 * same depths and parents (a vertex's parent is its least neighbour in
 * the layer before, the one bfs_small's scan claims it from), but each
 * layer listed in index order rather than by parent. The depth search's
 * readers need only parents first, and a layer is then two loops instead
 * of one per vertex in it. */
static int bfs_small_open(pgraph *g, int source) {
  for (int v = 0; v < g->count; v++)
    g->dist[v] = -1;
  uint64_t seen = (uint64_t)1 << source, front = seen;
  int tail = 0;
  g->dist[source] = 0;
  g->parent[source] = -1;
  g->queue[tail++] = source;
  for (int depth = 1; front != 0; depth++) {
    uint64_t next = 0;
    for (uint64_t left = front; left != 0; left &= left - 1)
      next |= g->neighbours[__builtin_ctzll(left)];
    next &= ~seen;
    for (uint64_t left = next; left != 0; left &= left - 1) {
      int u = __builtin_ctzll(left);
      g->dist[u] = depth;
      g->parent[u] = __builtin_ctzll(g->neighbours[u] & front);
      g->queue[tail++] = u;
    }
    seen |= next;
    front = next;
  }
  return tail;
}

static int bfs(pgraph *g, int source, int target, int keys) {
  if (g->small)
    return bfs_small(g, source, target, keys);
  for (int v = 0; v < g->count; v++)
    g->dist[v] = -1;
  int head = 0, tail = 0;
  g->dist[source] = 0;
  g->parent[source] = -1;
  g->queue[tail++] = source;
  while (head < tail) {
    int v = g->queue[head++];
    if (v == target)
      break;
    for (int i = g->offsets[v]; i < g->offsets[v + 1]; i++) {
      int u = g->adjacent[i];
      if (g->dist[u] >= 0 || (keys >= 0 && !can_step(g, v, u, keys)))
        continue;
      g->dist[u] = g->dist[v] + 1;
      g->parent[u] = v;
      g->queue[tail++] = u;
    }
  }
  return tail;
}

/* The depth search: from the entrance with every door open, into
 * g->depth, depth_parent and depth_order; returns how many it reached
 * (also into g->reached). The search's arrays become the depths, and the
 * depths' arrays (as long) the next searches' scratch: no copies. */
static int depth_search(pgraph *g) {
  int reached = g->small ? bfs_small_open(g, g->entrance) : bfs(g, g->entrance, -1, -1);
  int *swapped = g->depth;
  g->depth = g->dist;
  g->dist = swapped;
  swapped = g->depth_parent;
  g->depth_parent = g->parent;
  g->parent = swapped;
  swapped = g->depth_order;
  g->depth_order = g->queue;
  g->queue = swapped;
  g->reached = reached;
  return reached;
}

/* The cuts between the entrance and the exit, in order from the entrance:
 * one iterative depth-first search from the entrance computes discovery
 * times and low points; a vertex v on the tree path to the exit separates
 * them exactly when its child c on that path has low[c] >= disc[v]. Also
 * marks in `articulation` (may be NULL) every cut vertex of the graph (for one-way
 * doors, which must lie on loops). Writes the cuts to cuts[0..*count). */
static int find_cuts(pgraph *g, uint8_t *articulation, int *cuts, int *count) {
  int *disc = g->disc, *low = g->low, *next = g->next, *tree_parent = g->tree_parent;
  memset(disc, 0, (size_t)g->count * sizeof *disc);
  int *stack = g->queue, top = 0, time = 0, root_children = 0;
  int s = g->entrance;
  disc[s] = low[s] = ++time;
  next[s] = g->offsets[s];
  tree_parent[s] = -1;
  stack[top++] = s;
  while (top > 0) {
    int v = stack[top - 1];
    if (next[v] < g->offsets[v + 1]) {
      int u = g->adjacent[next[v]++];
      if (u == g->blocked)
        continue;
      if (disc[u] == 0) {
        tree_parent[u] = v;
        disc[u] = low[u] = ++time;
        next[u] = g->offsets[u];
        stack[top++] = u;
        root_children += v == s;
      } else if (u != tree_parent[v] && disc[u] < low[v]) {
        low[v] = disc[u];
      }
      continue;
    }
    top--;
    int p = tree_parent[v];
    if (p >= 0) {
      if (low[v] < low[p])
        low[p] = low[v];
      if (p != s && low[v] >= disc[p] && articulation != NULL)
        articulation[p] = 1;
    }
  }
  if (articulation != NULL)
    articulation[s] = articulation[s] || root_children > 1;
  *count = 0;
  if (disc[g->exit] != 0) {
    for (int c = g->exit, v = tree_parent[c]; v >= 0 && v != s; c = v, v = tree_parent[v])
      if (low[c] >= disc[v])
        cuts[(*count)++] = v;
    for (int i = 0, j = *count - 1; i < j; i++, j--) {
      int swap = cuts[i];
      cuts[i] = cuts[j];
      cuts[j] = swap;
    }
  }
  return 0;
}

/* find_cuts' answers when what the entrance reaches (`reached` vertices,
 * g->depth >= 0) is a tree, as a classic level's graph nearly always is:
 * every vertex there with two neighbours or more is a cut vertex, and the
 * cuts between the entrance and the exit are the inner vertices of the one
 * path, read from the depth search's parents. The depth-first search was
 * the pass's largest step. Returns false, with articulation all 0 and
 * no cut written, when that part of the graph has a loop (its degrees
 * then sum above 2 * (reached - 1)); sets g->tree otherwise. */
static bool tree_cuts(pgraph *g, int reached, uint8_t *articulation, int *cuts, int *count) {
  long degrees = 0;
  const int *depth = g->depth, *offsets = g->offsets;
  for (int v = 0, n = g->count; v < n; v++) {
    int ways = depth[v] >= 0 ? offsets[v + 1] - offsets[v] : 0;
    degrees += ways;
    articulation[v] = ways >= 2;
  }
  if (degrees != 2L * (reached - 1)) {
    memset(articulation, 0, (size_t)g->count); /* find_cuts marks its own */
    return false;
  }
  g->tree = true;
  if (depth[g->exit] < 0) {
    *count = 0;
    return true;
  }
  const int *parent = g->depth_parent;
  int found = 0;
  for (int v = parent[g->exit], entrance = g->entrance; v >= 0 && v != entrance; v = parent[v])
    cuts[found++] = v;
  *count = found;
  for (int i = 0, j = *count - 1; i < j; i++, j--) {
    int swap = cuts[i];
    cuts[i] = cuts[j];
    cuts[j] = swap;
  }
  return true;
}

/* On a tree (g->tree): the one path between `from` and `to`, into leg as
 * build_walk's search leaves it (leg[0] is `to`, leg[*length - 1] `from`),
 * climbed from both ends to where they meet. DG_EINTERNAL when a step of
 * it is not allowed with `keys` keys, as the search would fail then. */
static int tree_leg(pgraph *g, int from, int to, int keys, int *leg, int *length) {
  const int *depth = g->depth, *parent = g->depth_parent;
  int *climbed = g->queue, n = 0, m = 0, a = from, b = to;
  if (depth[from] < 0 || depth[to] < 0)
    return DG_EINTERNAL;
  while (depth[b] > depth[a]) {
    leg[n++] = b;
    b = parent[b];
  }
  while (depth[a] > depth[b]) {
    climbed[m++] = a;
    a = parent[a];
  }
  while (a != b) {
    leg[n++] = b;
    b = parent[b];
    climbed[m++] = a;
    a = parent[a];
  }
  leg[n++] = a;
  while (m > 0)
    leg[n++] = climbed[--m];
  for (int i = n - 1; i > 0; i--)
    if (!can_step(g, leg[i], leg[i - 1], keys))
      return DG_EINTERNAL;
  *length = n;
  return 0;
}

/* label_segments on a tree (g->tree), where the candidates are cuts on
 * the one entrance-exit path, in order: a vertex's segment is the number
 * of the last candidate above it (1-based), 0 below none. One pass in the
 * order the depth search reached the vertices (parents first); g->path
 * holds each candidate's number meanwhile. */
static void tree_segments(pgraph *g, const int *candidates, int count) {
  const int *parent = g->depth_parent, *order = g->depth_order;
  int *segment = g->mark, *number = g->path;
  for (int v = 0; v < g->count; v++)
    segment[v] = -1;
  segment[g->entrance] = 0;
  for (int i = 0; i < count; i++) {
    segment[candidates[i]] = -2;
    number[candidates[i]] = i + 1;
  }
  for (int i = 1; i < g->reached; i++) {
    int w = order[i], u = parent[w];
    int above = segment[u] == -2 ? number[u] : segment[u];
    segment[w] = segment[w] == -2 ? -2 : above;
  }
}

/* label_segments' and distance_from_walk's answers for the key places
 * alone (key_segment, key_hops), on a small tree whose exit the entrance
 * reaches; false, with nothing done, on any other graph. A key place's
 * nearest place on the walk is its nearest ancestor there, and its
 * segment that ancestor's, or the ancestor's number when it is a
 * candidate (the candidates lie on the walk): a climb of a few hops per
 * key place instead of two passes over every vertex. g->mark holds the
 * walk's segments and g->path the candidates' numbers meanwhile. */
static bool tree_key_segments(pgraph *g, const int *candidates, int count) {
  if (!g->tree || !g->small || g->depth[g->exit] < 0)
    return false;
  const int *parent = g->depth_parent;
  int *walk_segment = g->mark, *number = g->path, *walk = g->queue, length = 0;
  uint64_t on_walk = 0, candidate = 0;
  for (int i = 0; i < count; i++) {
    candidate |= (uint64_t)1 << candidates[i];
    number[candidates[i]] = i + 1;
  }
  for (int v = g->exit; v >= 0; v = parent[v]) {
    on_walk |= (uint64_t)1 << v;
    walk[length++] = v;
  }
  for (int i = length - 1, segment = 0; i >= 0; i--) {
    int w = walk[i];
    bool is_candidate = (candidate >> w) & 1;
    walk_segment[w] = is_candidate ? -2 : segment;
    segment = is_candidate ? number[w] : segment;
  }
  for (int i = 0; i < g->keyable_count; i++) {
    int v = g->keyable_list[i], u = v, hops = 0;
    if (g->depth[v] < 0) {
      g->key_segment[i] = g->key_hops[i] = -1;
      continue;
    }
    for (; !((on_walk >> u) & 1); hops++)
      u = parent[u];
    g->key_segment[i] = u == v || !((candidate >> u) & 1) ? walk_segment[u] : number[u];
    g->key_hops[i] = hops;
  }
  return true;
}

/* Labels g->mark with segments: 0 for what the entrance reaches without
 * crossing a lock candidate, i for what lies between candidates i and i+1
 * (1-based), -2 on the candidates themselves. Floods once in all. */
static void label_segments(pgraph *g, const int *candidates, int count) {
  if (g->tree) {
    tree_segments(g, candidates, count);
    return;
  }
  for (int v = 0; v < g->count; v++)
    g->mark[v] = -1;
  for (int i = 0; i < count; i++)
    g->mark[candidates[i]] = -2;
  for (int segment = 0; segment <= count; segment++) {
    int start = -1;
    if (segment == 0) {
      start = g->entrance;
    } else {
      int c = candidates[segment - 1];
      for (int i = g->offsets[c]; i < g->offsets[c + 1]; i++)
        if (g->mark[g->adjacent[i]] == -1)
          start = g->adjacent[i];
    }
    if (start < 0)
      continue; /* two candidates side by side: an empty segment */
    int head = 0, tail = 0;
    g->mark[start] = segment;
    g->queue[tail++] = start;
    while (head < tail) {
      int v = g->queue[head++];
      for (int i = g->offsets[v]; i < g->offsets[v + 1]; i++) {
        int u = g->adjacent[i];
        if (g->mark[u] == -1) {
          g->mark[u] = segment;
          g->queue[tail++] = u;
        }
      }
    }
  }
}

/* A vertex that may hold a key: a room's floor or a corridor's dead end,
 * not the stairs, not a spawn, not in the entrance's or the exit's room. */
static bool key_place(const pgraph *g, const dg_level *level, int v, int entrance_room,
                      int exit_room) {
  if ((g->kind[v] != V_FLOOR && g->kind[v] != V_DEAD_END) || v == g->entrance || v == g->exit ||
      g->special[v] != SPECIAL_NONE)
    return false;
  if (g->room[v] == entrance_room || g->room[v] == exit_room)
    return false;
  /* Nor in the rooms the stairs name: an authored room's rectangle may
   * overlap another's, so the room the stairs' tile is counted in (the
   * first whose rectangle holds it) need not be the room that takes the
   * entrance's or exit's role, and a key there would lose its role. */
  if (g->room[v] >= 0 && (g->room[v] == g->stairs_room[0] || g->room[v] == g->stairs_room[1]))
    return false;
  if (g->key_slots[v] < 0) /* a traced room (build_from_trace) */
    return room_centre_is_place(level, g, v) || room_floor_tile(level, g, g->room[v], 0) >= 0;
  return g->key_slots[v] > 0;
}

/* The lock plan: which candidates become locks and where their keys go. */
typedef struct plan {
  int locks;                          /* locks chosen */
  int lock[DG_LOCKS_MAX];             /* vertex of lock k */
  int lock_segment[DG_LOCKS_MAX + 1]; /* candidate index (1-based) of lock k; [locks] = end */
  int key[DG_LOCKS_MAX];              /* vertex of key k */
  int key_cell[DG_LOCKS_MAX];         /* grid levels: the tile of key k, in its vertex */
  const char *why;                    /* why fewer than asked, or NULL */
} plan;

/* Chooses the locks among the candidates (cuts that are passages, in
 * order): lock k at candidate j needs a key place in the segments after
 * the previous lock and before j; with a boss room, the segments after the
 * last lock need a room too. rem[j] is how many more locks fit after a lock
 * at j (-1: none, and j cannot be last), computed from the end; then each
 * lock takes the fitting candidate nearest its share of the walk. */
static int choose_locks(pgraph *g, const dg_level *level, const int *candidates, int m, int wanted,
                        bool boss, dg_rng *rng, plan *out) {
  int *floor_before = g->floor_before; /* F[j]: places in segs < j */
  int *rem = g->rem;
  memset(floor_before, 0, ((size_t)m + 2) * sizeof *floor_before);
  for (int i = 0; i < g->keyable_count; i++)
    if (g->key_segment[i] >= 0)
      floor_before[g->key_segment[i] + 1]++;
  for (int j = 1; j <= m + 1; j++)
    floor_before[j] += floor_before[j - 1];
  /* A room for the boss after the last lock: any room's floor counts. */
  for (int j = m; j >= 1; j--) {
    bool last_ok = !boss || floor_before[m + 1] - floor_before[j] > 0;
    int next = j + 1;
    while (next <= m && floor_before[next] <= floor_before[j])
      next++;
    int more = next <= m && rem[next] >= 0 ? 1 + rem[next] : -1;
    rem[j] = more > (last_ok ? 0 : -1) ? more : (last_ok ? 0 : -1);
  }
  int first = 1;
  while (first <= m && floor_before[first] <= 0)
    first++;
  int most = first <= m && rem[first] >= 0 ? 1 + rem[first] : 0;
  int locks = wanted < most ? wanted : most;
  if (locks < wanted && out->why == NULL)
    out->why = m == 0 ? "no door or corridor lies on every way from the entrance to the exit"
               : most == 0
                   ? "no chokepoint of the way to the exit has a room before it for its key"
                   : "too few chokepoints on the way to the exit with a room for a key between "
                     "them";
  int total = g->depth[g->exit] > 0 ? g->depth[g->exit] : 1;
  int previous = 0;
  for (int k = 0; k < locks; k++) {
    int share = total / (locks + 1);
    int aim = share * (k + 1) + (share > 4 ? dg_rng_range(rng, -share / 4, share / 4) : 0);
    int best = -1, best_gap = INT_MAX;
    for (int j = previous + 1; j <= m; j++) {
      if (floor_before[j] <= floor_before[previous] || rem[j] < locks - k - 1)
        continue;
      int gap = abs(g->depth[candidates[j - 1]] - aim);
      if (gap < best_gap) {
        best = j;
        best_gap = gap;
      }
    }
    out->lock[k] = candidates[best - 1];
    out->lock_segment[k] = best;
    previous = best;
  }
  out->lock_segment[locks] = m + 1;
  out->locks = locks;
  return 0;
}

/* Puts key k on the place between lock k-1 and lock k farthest from the
 * shortest entrance-exit walk (key_hops: hops from it), choosing at
 * random among those within two hops of the farthest: one draw over the
 * list of them (g->path), not one per place. */
static void place_keys(pgraph *g, const dg_level *level, plan *p, dg_rng *rng) {
  int *near = g->path;
  const int *segment = g->key_segment, *hops_from_walk = g->key_hops;
  for (int k = 0; k < p->locks; k++) {
    int low = k == 0 ? 0 : p->lock_segment[k - 1], high = p->lock_segment[k] - 1;
    int farthest = -1, ties = 0;
    /* Branch-free: whether a vertex qualifies is a coin toss to the
     * predictor, and a miss per vertex cost more than the rest. */
    const int *keyable = g->keyable_list;
    for (int i = 0; i < g->keyable_count; i++) {
      int in = (segment[i] >= low) & (segment[i] <= high);
      int hops = (hops_from_walk[i] + 1) * in - 1; /* -1 outside, with no branch */
      farthest = hops > farthest ? hops : farthest;
    }
    for (int i = 0; i < g->keyable_count; i++) {
      int in = (segment[i] >= low) & (segment[i] <= high);
      near[ties] = keyable[i];
      ties += in & (hops_from_walk[i] >= farthest - 2);
    }
    p->key[k] = ties == 0 ? -1 : near[ties > 1 ? (int)dg_rng_below(rng, (uint32_t)ties) : 0];
  }
}

/* Hops from the shortest entrance-exit walk (every door open) into
 * off_walk; marks that walk's vertices 0. */
static void distance_from_walk(pgraph *g, int *off_walk) {
  /* The walk is read from the search from the entrance with every door
   * open (dg_pass_progression's depths). */
  for (int v = 0; v < g->count; v++)
    off_walk[v] = -1;
  if (g->tree && g->depth[g->exit] >= 0) {
    /* The walk is the tree's path from the entrance to the exit, and a
     * vertex's nearest place on it is its nearest ancestor there: one
     * pass in the depth search's order (parents first). */
    const int *parent = g->depth_parent, *order = g->depth_order;
    for (int v = g->exit; v >= 0; v = parent[v])
      off_walk[v] = 0;
    for (int i = 1; i < g->reached; i++) {
      int w = order[i];
      /* A select, not a branch: walk places come in no pattern. */
      off_walk[w] = off_walk[w] == 0 ? 0 : off_walk[parent[w]] + 1;
    }
    return;
  }
  int head = 0, tail = 0;
  /* No walk when the exit is out of reach: the search never set its
   * parent. */
  for (int v = g->depth[g->exit] >= 0 ? g->exit : -1; v >= 0; v = g->depth_parent[v]) {
    off_walk[v] = 0;
    g->mark[tail++] = v;
  }
  if (g->small) {
    uint64_t seen = 0;
    for (int i = 0; i < tail; i++)
      seen |= (uint64_t)1 << g->mark[i];
    for (uint64_t front = seen, hops = 1; front != 0; hops++) {
      uint64_t next = 0;
      for (uint64_t left = front; left != 0; left &= left - 1)
        next |= g->neighbours[__builtin_ctzll(left)];
      next &= ~seen;
      for (uint64_t left = next; left != 0; left &= left - 1)
        off_walk[__builtin_ctzll(left)] = (int)hops;
      seen |= next;
      front = next;
    }
    return;
  }
  /* g->mark as the multi-source queue (segments are recomputed later). */
  while (head < tail) {
    int v = g->mark[head++];
    for (int i = g->offsets[v]; i < g->offsets[v + 1]; i++) {
      int u = g->adjacent[i];
      if (off_walk[u] < 0) {
        off_walk[u] = off_walk[v] + 1;
        g->mark[tail++] = u;
      }
    }
  }
}

/* Checks a plan the way the suite's checker would, for plans whose locks
 * are not all cuts (a lock on a loop whose bypass became a one-way door):
 * for each sphere k (locks 0..k-1 open, one-way doors obeyed) the
 * entrance reaches key k (the exit for the last), reaches no later key,
 * and every place it reaches can still reach that target (no stranding);
 * with lock k kept closed the exit is out of reach (the lock is needed);
 * and lock k is the only closed lock next to sphere k (so a consumable key
 * can only be spent there). Uses g->dist, g->mark and g->queue. */
static bool verify_plan(pgraph *g, const plan *p) {
  for (int k = 0; k <= p->locks; k++) {
    int target = k < p->locks ? p->key[k] : g->exit;
    int reached = bfs(g, g->entrance, -1, k);
    if (g->dist[target] < 0)
      return false;
    for (int j = k + 1; j < p->locks; j++)
      if (g->dist[p->key[j]] >= 0)
        return false;
    for (int i = 0; i < reached; i++) {
      int v = g->queue[i];
      for (int e = g->offsets[v]; e < g->offsets[v + 1]; e++) {
        int u = g->adjacent[e], su = g->special[u];
        if (su >= 0 && su < SPECIAL_ONE_WAY && su >= k && su != k && g->dist[u] < 0)
          return false; /* another closed lock within reach */
      }
    }
    /* Backwards from the target over the same steps: every reached place
     * must lie on some way to it. g->mark holds the forward reach. */
    for (int v = 0; v < g->count; v++)
      g->mark[v] = g->dist[v] >= 0 ? 1 : 0;
    int head = 0, tail = 0, back = 1;
    g->mark[target] = 2;
    g->queue[tail++] = target;
    while (head < tail) {
      int u = g->queue[head++];
      for (int e = g->offsets[u]; e < g->offsets[u + 1]; e++) {
        int v = g->adjacent[e];
        if (g->mark[v] == 1 && can_step(g, v, u, k)) {
          g->mark[v] = 2;
          g->queue[tail++] = v;
          back++;
        }
      }
    }
    if (back != reached)
      return false;
    if (k < p->locks) {
      g->closed_lock = k;
      bfs(g, g->entrance, g->exit, p->locks);
      g->closed_lock = -1;
      if (g->dist[g->exit] >= 0)
        return false;
    }
  }
  return true;
}

/* Key place for lock k of a lock-on-a-loop: reachable with locks 0..k-1
 * open and lock k closed, not reachable before lock k-1 opens, farthest
 * from the walk (near-farthest at random). -1 when there is none. */
static int key_for(pgraph *g, const dg_level *level, const int *off_walk, int k, dg_rng *rng) {
  for (int v = 0; v < g->count; v++)
    g->mark[v] = 0;
  int reached = bfs(g, g->entrance, -1, k);
  for (int i = 0; i < reached; i++)
    g->mark[g->queue[i]] = 1;
  if (k > 0) {
    reached = bfs(g, g->entrance, -1, k - 1);
    for (int i = 0; i < reached; i++)
      g->mark[g->queue[i]] = 0;
  }
  int farthest = -1, ties = 0, chosen = -1;
  for (int v = 0; v < g->count; v++)
    if (g->mark[v] && g->keyable[v] && off_walk[v] > farthest)
      farthest = off_walk[v];
  for (int v = 0; v < g->count; v++)
    if (g->mark[v] && g->keyable[v] && off_walk[v] >= farthest - 2 &&
        dg_rng_below(rng, (uint32_t)++ties) == 0)
      chosen = v;
  return chosen;
}

/* Tries lock k on vertex `lock` (a passage of the walk that is not a cut):
 * the walks that go round it must all cross one vertex (a cut of the map
 * without the lock), which becomes a one-way door opening from the deep
 * side, so that going round is a shortcut back, not a way in. Keeps it,
 * with its key, only if verify_plan agrees. */
static int try_loop_lock(pgraph *g, const dg_level *level, const int *off_walk, int lock, plan *p,
                         int *cuts, dg_rng *rng, bool *kept) {
  int k = p->locks, w = g->one_way_count, cut_count = 0, door = -1;
  *kept = false;
  g->special[lock] = k;
  g->blocked = lock;
  int rc = find_cuts(g, NULL, cuts, &cut_count);
  g->blocked = -1;
  if (rc != 0)
    return rc;
  /* The cut nearest the exit that lies beyond the previous lock. */
  if (k > 0)
    bfs(g, g->entrance, -1, k - 1);
  for (int i = cut_count - 1; i >= 0 && door < 0; i--) {
    int v = cuts[i];
    if (g->kind[v] == V_PASSAGE && g->special[v] == SPECIAL_NONE && (k == 0 || g->dist[v] < 0))
      door = v;
  }
  if (door < 0 || w >= DG_ONE_WAY_MAX) {
    g->special[lock] = SPECIAL_NONE;
    return 0;
  }
  /* Its shallow side is the neighbour the entrance reaches without it. */
  g->special[door] = SPECIAL_ONE_WAY + w;
  g->ow_from[w] = g->ow_to[w] = -1; /* a wall while the sides are found */
  g->one_way_count++;
  bfs(g, g->entrance, -1, k);
  int a = g->adjacent[g->offsets[door]], b = g->adjacent[g->offsets[door] + 1];
  int shallow = g->dist[a] >= 0 ? a : b, deep = shallow == a ? b : a;
  g->ow_from[w] = deep;
  g->ow_to[w] = shallow;
  int key = g->dist[deep] < 0 ? key_for(g, level, off_walk, k, rng) : -1;
  if (key >= 0) {
    p->lock[k] = lock;
    p->key[k] = key;
    p->locks++;
    if (verify_plan(g, p)) {
      *kept = true;
      return 0;
    }
    p->locks--;
  }
  g->special[door] = SPECIAL_NONE;
  g->one_way_count--;
  g->special[lock] = SPECIAL_NONE;
  return 0;
}

/* Passages tried per lock on a loop: each try is a depth-first search of
 * the map, and on a level with hundreds of loops (authored at 1,000 rooms)
 * no single door closes a bypass, so a few tries tell. */
#define LOOP_LOCK_TRIES 6

/* More locks than the chokepoints allow, when one-way doors are asked
 * for: a lock on a loop of the walk beyond the last lock, its bypass made
 * a one-way door (Dungeon Architect's and Unexplored's trick), one door
 * per lock, each plan checked. Candidates are the walk's passages, tried
 * in a random order, at most LOOP_LOCK_TRIES of them. */
static int extend_locks(pgraph *g, const dg_level *level, int *off_walk, int wanted,
                        int one_way_wanted, dg_rng *rng, plan *p, bool *extended) {
  /* The entrance-exit cuts are spent (plan_locks has its candidates). */
  int *path = g->path, *cuts = g->cuts, rc = 0;
  /* key_for reads every vertex's hops; on a small tree plan_locks had
   * only the key places'. */
  if (!g->off_walk_ready && p->locks < wanted && g->one_way_count < one_way_wanted) {
    distance_from_walk(g, off_walk);
    g->off_walk_ready = true;
  }
  while (rc == 0 && p->locks < wanted && g->one_way_count < one_way_wanted) {
    int k = p->locks, length = 0;
    bfs(g, g->entrance, g->exit, k);
    for (int v = g->exit; v >= 0 && g->dist[g->exit] >= 0; v = g->parent[v])
      if (g->kind[v] == V_PASSAGE && g->special[v] == SPECIAL_NONE)
        path[length++] = v;
    /* Only past the previous lock. */
    if (k > 0) {
      int kept_length = 0;
      bfs(g, g->entrance, -1, k - 1);
      for (int i = 0; i < length; i++)
        if (g->dist[path[i]] < 0)
          path[kept_length++] = path[i];
      length = kept_length;
    }
    for (int i = length - 1; i > 0; i--) {
      int j = (int)dg_rng_below(rng, (uint32_t)i + 1), swap = path[i];
      path[i] = path[j];
      path[j] = swap;
    }
    bool kept = false;
    for (int i = 0; i < length && i < LOOP_LOCK_TRIES && !kept && rc == 0; i++)
      rc = try_loop_lock(g, level, off_walk, path[i], p, cuts, rng, &kept);
    if (!kept)
      break;
    *extended = true;
  }
  return rc;
}

/* One-way doors: passages on loops (not cut vertices, not locks) whose two
 * sides lie at different depths, in a random order; each opens from the
 * deeper side and is kept only if the graph without every one-way door is
 * still connected, so that nobody can be stranded behind one. */
static int place_one_way(pgraph *g, const uint8_t *articulation, const int *depth, int wanted,
                         const plan *check, dg_rng *rng, const char **why) {
  int *candidates = g->candidates, count = 0, reachable = 0;
  /* On a tree every passage the entrance reaches is a cut vertex: no
   * candidate, nothing drawn. */
  for (int v = 0; v < g->count && !g->tree; v++)
    reachable += depth[v] >= 0;
  for (int v = 0; v < g->count && !g->tree; v++) {
    if (g->kind[v] != V_PASSAGE || articulation[v] || g->special[v] != SPECIAL_NONE || depth[v] < 0)
      continue;
    int a = g->adjacent[g->offsets[v]], b = g->adjacent[g->offsets[v] + 1];
    if (depth[a] != depth[b])
      candidates[count++] = v;
  }
  for (int i = count - 1; i > 0; i--) {
    int j = (int)dg_rng_below(rng, (uint32_t)i + 1);
    int swap = candidates[i];
    candidates[i] = candidates[j];
    candidates[j] = swap;
  }
  int tries = 8 * wanted + 16;
  for (int i = 0; i < count && g->one_way_count < wanted && tries > 0; i++, tries--) {
    int v = candidates[i];
    int a = g->adjacent[g->offsets[v]], b = g->adjacent[g->offsets[v] + 1];
    int deep = depth[a] > depth[b] ? a : b, shallow = deep == a ? b : a;
    int w = g->one_way_count;
    g->special[v] = SPECIAL_ONE_WAY + w;
    g->ow_from[w] = deep;
    g->ow_to[w] = shallow;
    /* Connected without any one-way door: count what the entrance reaches
     * when one-way doors are walls. */
    for (int u = 0; u < g->count; u++)
      g->mark[u] = g->special[u] >= SPECIAL_ONE_WAY ? 1 : 0;
    int head = 0, tail = 0, reached = 1;
    g->mark[g->entrance] = 1;
    g->queue[tail++] = g->entrance;
    while (head < tail) {
      int x = g->queue[head++];
      for (int k = g->offsets[x]; k < g->offsets[x + 1]; k++) {
        int u = g->adjacent[k];
        if (!g->mark[u]) {
          g->mark[u] = 1;
          g->queue[tail++] = u;
          reached++;
        }
      }
    }
    /* Everything the entrance reached before, less the one-way doors (a
     * sealed closet or a separate part of the map does not count). */
    bool keep = reached == reachable - (w + 1);
    if (keep) {
      g->one_way_count++;
      /* With locks on loops, the whole plan is checked again. */
      if (check != NULL && !verify_plan(g, check)) {
        g->one_way_count--;
        keep = false;
      }
    }
    if (!keep)
      g->special[v] = SPECIAL_NONE;
  }
  if (g->one_way_count < wanted)
    *why = count == 0 ? "no door or corridor on a loop joins places at different depths"
                      : "too few loops can take a one-way door without cutting a place off";
  return 0;
}

const char *dg_role_name(dg_role role) {
  static const char *const names[DG_ROLE_COUNT] = {
      [DG_ROLE_ORDINARY] = "ordinary", [DG_ROLE_ENTRANCE] = "entrance",
      [DG_ROLE_EXIT] = "exit",         [DG_ROLE_BOSS] = "boss",
      [DG_ROLE_KEY] = "key",           [DG_ROLE_TREASURE] = "treasure",
      [DG_ROLE_SECRET] = "secret"};
  return (unsigned)role < DG_ROLE_COUNT ? names[role] : "ordinary";
}

/* One step of the sphere flood from v to u: u joins `sphere` (queued at
 * *tail) when the keys of spheres before it open the way, else the step
 * is kept in `refused` (*count pairs) to try again with the next key. */
static void sphere_step(pgraph *g, int v, int u, int sphere, int *tail, int *refused, int *count) {
  if (g->mark[u] >= 0)
    return;
  if (can_step(g, v, u, sphere)) {
    g->mark[u] = sphere;
    g->queue[(*tail)++] = u;
  } else {
    refused[2 * *count] = v;
    refused[2 * (*count)++ + 1] = u;
  }
}

/* assign_spheres' flood on a tree (g->tree): a vertex's sphere is its
 * parent's, or the keys its own lock needs when more; -1 past a one-way
 * door the wrong way or a lock kept closed, as the flood never crosses
 * them. One pass in the order the depth search reached the vertices,
 * which puts each parent before its children. */
static void tree_spheres(pgraph *g, int locks) {
  const int *parent = g->depth_parent;
  int *sphere = g->mark;
  for (int v = 0; v < g->count; v++)
    sphere[v] = -1;
  sphere[g->entrance] = 0;
  if (g->one_way_count == 0 && g->closed_lock < 0) {
    /* No one-way door and every lock open: every step can be taken, and
     * a vertex's sphere is its parent's or what its own lock needs. */
    for (int i = 1; i < g->reached; i++) {
      int w = g->depth_order[i], at = sphere[parent[w]], lock = g->special[w];
      int need = lock >= 0 && lock < SPECIAL_ONE_WAY ? lock + 1 : 0;
      sphere[w] = need > at ? need : at;
    }
    return;
  }
  for (int i = 1; i < g->reached; i++) {
    int w = g->depth_order[i], at = sphere[parent[w]], lock = g->special[w];
    if (at >= 0 && !can_step(g, parent[w], w, locks))
      at = -1;
    else if (at >= 0 && lock >= 0 && lock < SPECIAL_ONE_WAY && lock + 1 > at)
      at = lock + 1;
    sphere[w] = at;
  }
}

/* One flood obeying one-way doors (a lock on a loop whose bypass is a
 * one-way door is crossed on some walks and not on others), grown sphere
 * by sphere: more keys only add steps, so sphere n+1 is sphere n's reach
 * plus what the steps refused before now allow. */
static void flood_spheres(pgraph *g, int locks) {
  int *refused = g->refused;
  for (int v = 0; v < g->count; v++)
    g->mark[v] = -1;
  int head = 0, tail = 0, refusals = 0;
  g->mark[g->entrance] = 0;
  g->queue[tail++] = g->entrance;
  for (int sphere = 0; sphere <= locks; sphere++) {
    int kept = 0;
    for (int i = 0; i < refusals; i++)
      sphere_step(g, refused[2 * i], refused[2 * i + 1], sphere, &tail, refused, &kept);
    refusals = kept;
    while (head < tail) {
      int v = g->queue[head++];
      for (int i = g->offsets[v]; i < g->offsets[v + 1]; i++)
        sphere_step(g, v, g->adjacent[i], sphere, &tail, refused, &refusals);
    }
  }
}

/* Spheres, as the witness defines them: sphere n is what the entrance
 * reaches with locks 0..n-1 open (one-way doors obeyed), less the spheres
 * before. Leaves each vertex's sphere in g->mark (-1: never
 * reached); a room's sphere is the first that reaches any tile of it (an authored room's bounding
 * box may reach past a lock), a key's the one its tile is in. */
static int assign_spheres(pgraph *g, const dg_level *level, const plan *p, dg_progression *out) {
  if (g->tree)
    tree_spheres(g, p->locks);
  else
    flood_spheres(g, p->locks);
  int *room_sphere = out->room_sphere;
  const int *room = g->room, *sphere = g->mark;
  for (int r = 0; r < level->room_count; r++)
    room_sphere[r] = -1;
  /* A traced level's edges lie in no room: only its nodes are read. */
  for (int v = 0, n = g->trace ? level->graph.node_count : g->count; v < n; v++) {
    int r = room[v];
    if (r >= 0 && sphere[v] >= 0 && (room_sphere[r] < 0 || sphere[v] < room_sphere[r]))
      room_sphere[r] = sphere[v];
  }
  for (int k = 0; k < p->locks; k++)
    out->key_sphere[k] = g->mark[p->key[k]];
  out->sphere_count = p->locks + 1;
  return 0;
}

/* Room for `more` rooms after the walk's out->walk_length. */
static int walk_reserve(dg_progression *out, int *capacity, int more) {
  if (out->walk_length + more <= *capacity)
    return 0;
  int grown = *capacity > 0 ? *capacity : 32;
  while (grown < out->walk_length + more)
    grown *= 2;
  int *walk = realloc(out->walk, (size_t)grown * sizeof *walk);
  if (walk == NULL)
    return DG_ENOMEM;
  out->walk = walk;
  *capacity = grown;
  return 0;
}

/* Appends the rooms of leg[length - 1] down to leg[0] (reserved), each
 * unless it is no room or the room just walked (a corridor between
 * rooms): written always and kept by a select, not a branch per step. */
static void walk_append_leg(const pgraph *g, const int *leg, int length, dg_progression *out) {
  int *walk = out->walk, at = out->walk_length, last = at > 0 ? walk[at - 1] : -1;
  for (int i = length - 1; i >= 0; i--) {
    int room = g->room[leg[i]];
    bool kept = room >= 0 && room != last;
    walk[at] = room;
    at += kept;
    last = kept ? room : last;
  }
  out->walk_length = at;
}

/* The witness walk: shortest legs from the entrance to key 0, to key 1...,
 * then to the exit, each over the steps allowed with the keys held, one
 * lock opened per key; the rooms the legs enter, in order. */
static int build_walk(pgraph *g, const plan *p, dg_progression *out) {
  int capacity = 0, *leg = g->path, from = g->entrance;
  int rc = walk_reserve(out, &capacity, 1);
  if (rc == 0)
    walk_append_leg(g, &from, 1, out);
  for (int k = 0; k <= p->locks && rc == 0; k++) {
    int to = k < p->locks ? p->key[k] : g->exit, length = 0;
    if (g->tree) {
      /* A key or the exit out of reach: the plan is wrong. */
      if ((rc = tree_leg(g, from, to, k, leg, &length)) != 0)
        break;
    } else {
      bfs(g, from, to, k);
      if (g->dist[to] < 0) {
        rc = DG_EINTERNAL;
        break;
      }
      for (int v = to; v >= 0; v = g->parent[v])
        leg[length++] = v;
    }
    if ((rc = walk_reserve(out, &capacity, length)) != 0)
      break;
    walk_append_leg(g, leg, length, out);
    from = to;
  }
  return rc;
}

static int node_degree(const dg_graph *graph, int node) {
  int degree = 0;
  for (int e = 0; e < graph->edge_count; e++)
    degree += (graph->edges[e].from == node) + (graph->edges[e].to == node);
  return degree;
}

/* A tile of room `room` as build_from_grid counts them: floor or stairs,
 * and the room's own (room_of: a traced level's rooms do not overlap). */
static bool room_tile(const dg_level *level, int room, int p) {
  unsigned tile = level->grid.tiles[p];
  return level->room_of[p] == room && tile < 32u && ((ROOM_TILE_MASK >> tile) & 1u);
}

/* Whether tile q, next to a room's floor, keeps the room hidden: not
 * walkable, the room's own, or a secret door or corridor. */
static bool hides_room(const dg_level *level, int room, int q) {
  dg_tile tile = (dg_tile)level->grid.tiles[q];
  return !dg_tile_walkable(tile) || room_tile(level, room, q) || tile == DG_TILE_SECRET_DOOR ||
         tile == DG_TILE_SECRET_CORRIDOR;
}

/* hidden_on_map for a traced level: the same test over the room's
 * rectangle, with no vertex per tile. A rectangle that is all the room's
 * floor (classic's rooms) touches the rest of the map only across its
 * edge, so then only the ring of tiles around it is read. */
static bool hidden_around_room(const dg_level *level, int room) {
  const dg_grid *grid = &level->grid;
  const dg_room *box = &level->rooms[room];
  int width = grid->width, height = grid->height;
  int x0 = box->x, y0 = box->y, x1 = box->x + box->width, y1 = box->y + box->height;
  bool whole = x0 >= 0 && y0 >= 0 && x1 <= width && y1 <= height;
  for (int y = y0; y < y1 && whole; y++)
    for (int x = x0; x < x1 && whole; x++)
      whole = room_tile(level, room, y * width + x);
  if (whole) {
    for (int x = x0; x < x1; x++)
      if ((y0 > 0 && !hides_room(level, room, (y0 - 1) * width + x)) ||
          (y1 < height && !hides_room(level, room, y1 * width + x)))
        return false;
    for (int y = y0; y < y1; y++)
      if ((x0 > 0 && !hides_room(level, room, y * width + x0 - 1)) ||
          (x1 < width && !hides_room(level, room, y * width + x1)))
        return false;
    return true;
  }
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) {
      if (!dg_grid_contains(grid, x, y) || !room_tile(level, room, y * width + x))
        continue;
      int t = y * width + x;
      int around[4] = {y > 0 ? t - width : -1, x + 1 < width ? t + 1 : -1,
                       y + 1 < height ? t + width : -1, x > 0 ? t - 1 : -1};
      for (int d = 0; d < 4; d++)
        if (around[d] >= 0 && !hides_room(level, room, around[d]))
          return false;
    }
  return true;
}

/* Whether every walkable tile next to room `room`'s floor, outside it, is
 * a secret door or corridor: the map's word, since stairs lined up with
 * the floor above may open a wall that the door list does not know of. */
static bool hidden_on_map(const pgraph *g, const dg_level *level, int room) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, height = grid->height;
  if (g->trace)
    return hidden_around_room(level, room);
  for (int v = 0; v < g->count; v++) {
    if (g->room[v] != room)
      continue;
    for (int i = g->member_start[v]; i < g->member_start[v + 1]; i++) {
      int t = g->members[i], x = t % width, y = t / width;
      int around[4] = {y > 0 ? t - width : -1, x + 1 < width ? t + 1 : -1,
                       y + 1 < height ? t + width : -1, x > 0 ? t - 1 : -1};
      for (int d = 0; d < 4; d++) {
        int q = around[d];
        if (q < 0 || tile_vertex(grid, g, q) < 0 || g->room[g->vertex_of[q]] == room)
          continue;
        if (grid->tiles[q] != DG_TILE_SECRET_DOOR && grid->tiles[q] != DG_TILE_SECRET_CORRIDOR)
          return false;
      }
    }
  }
  return true;
}

/* Each room's doors and how many of them are secret, counted in one pass
 * over the doors, and the degree of graph node r for each room r, in one
 * pass over the edges (rooms from ROOM_DOORS_MAX on are counted one by
 * one). */
#define ROOM_DOORS_MAX 256
typedef struct room_doors {
  /* [rooms] counts what is no room's, so that counting needs no branch */
  int doors[ROOM_DOORS_MAX + 1], secret[ROOM_DOORS_MAX + 1], degree[ROOM_DOORS_MAX + 1];
} room_doors;

static void count_room_doors(const dg_level *level, room_doors *counted) {
  int rooms = level->room_count < ROOM_DOORS_MAX ? level->room_count : ROOM_DOORS_MAX;
  for (int r = 0; r <= rooms; r++) /* a few rooms: no call to memset */
    counted->doors[r] = counted->secret[r] = counted->degree[r] = 0;
  const dg_edge *edges = level->graph.edges;
  for (int e = 0, n = level->graph.edge_count; e < n; e++) {
    int from = edges[e].from, to = edges[e].to;
    counted->degree[from < rooms ? from : rooms]++;
    counted->degree[to < rooms ? to : rooms]++;
  }
  for (int i = 0; i < level->door_count; i++) {
    int room = level->doors[i].room, at = room >= 0 && room < rooms ? room : rooms;
    counted->doors[at]++;
    counted->secret[at] += level->doors[i].secret;
  }
}

/* A room reached only through secret doors, or one its generator calls a
 * closet or secret. */
static bool secret_room(const pgraph *g, const dg_level *level, const room_doors *counted,
                        int room) {
  const char *kind = level->rooms[room].kind;
  if (same_word(kind, "closet") || same_word(kind, "secret"))
    return true;
  int doors = 0, secret = 0;
  if (room < ROOM_DOORS_MAX) {
    doors = counted->doors[room];
    secret = counted->secret[room];
  } else {
    for (int i = 0; i < level->door_count; i++)
      if (level->doors[i].room == room) {
        doors++;
        secret += level->doors[i].secret;
      }
  }
  return doors > 0 && doors == secret && (!level->has_grid || hidden_on_map(g, level, room));
}

/* The sphere of tile p's side of its vertex: a locked or one-way chain's
 * tiles before its door lie with side 0's vertex, those after with side
 * 1's (the vertex's own sphere is where the door itself opens). */
static int tile_sphere(const pgraph *g, int v, int p) {
  if (g->special[v] == SPECIAL_NONE || g->kind[v] != V_PASSAGE || p == g->cell[v])
    return g->mark[v];
  int side = 1;
  for (int i = g->member_start[v]; i < g->member_start[v + 1] && g->members[i] != g->cell[v]; i++)
    if (g->members[i] == p)
      side = 0;
  return g->mark[g->adjacent[g->offsets[v] + side]];
}

/* The boss room: the last room before the exit's on the shortest walk that
 * lies behind the last lock; else the deepest room there. */
static int choose_boss(pgraph *g, const dg_progression *out, int locks) {
  int entrance_room = g->room[g->entrance], exit_room = g->room[g->exit];
  /* The depth search's walks: the search with every door open, done once. */
  const int *depth = g->depth, *parent = g->depth_parent;
  int boss = -1, deepest = -1, found = -1;
  for (int v = parent[g->exit]; v >= 0 && boss < 0; v = parent[v]) {
    int r = g->room[v];
    if (r >= 0 && r != exit_room && r != entrance_room && out->room_sphere[r] == locks)
      boss = r;
  }
  for (int v = 0; v < g->count && boss < 0; v++) {
    int r = g->room[v];
    if (r >= 0 && r != exit_room && r != entrance_room && out->room_sphere[r] == locks &&
        out->room_key[r] < 0 && depth[v] > deepest) {
      deepest = depth[v];
      found = r;
    }
  }
  return boss >= 0 ? boss : found;
}

/* The vertex of tile (x, y), or -1 (not walkable, off the map). */
static int vertex_at(const dg_level *level, const pgraph *g, int x, int y) {
  if (!dg_grid_contains(&level->grid, x, y))
    return -1;
  return tile_vertex(&level->grid, g, y * level->grid.width + x);
}

/* Roles of rooms, then of graph nodes (a room's node takes its room's). */
static void assign_roles(pgraph *g, const dg_level *level, const plan *p, dg_progression *out) {
  const dg_feature *up = g->up, *down = g->down;
  room_doors counted;
  count_room_doors(level, &counted);
  /* A room behind a lock with one way in is a treasure room; else one
   * reached only through secret doors (or a closet) is secret. */
  for (int r = 0; r < level->room_count; r++) {
    /* A traced level's node r is room r (trace_usable checked it). */
    int node =
        g->trace || (r < level->graph.node_count && level->graph.nodes[r].room == r) ? r : -1;
    int degree = node < 0                ? 0
                 : node < ROOM_DOORS_MAX ? counted.degree[node]
                                         : node_degree(&level->graph, node);
    out->room_key[r] = -1;
    out->room_role[r] = out->room_sphere[r] >= 1 && node >= 0 && degree == 1 ? DG_ROLE_TREASURE
                        : secret_room(g, level, &counted, r)                 ? DG_ROLE_SECRET
                                                                             : DG_ROLE_ORDINARY;
  }
  for (int k = 0; k < p->locks; k++) {
    int r = g->room[p->key[k]];
    if (r >= 0) {
      out->room_key[r] = k;
      out->room_role[r] = DG_ROLE_KEY;
    }
  }
  out->boss_room = out->boss_wanted && p->locks > 0 ? choose_boss(g, out, p->locks) : -1;
  if (out->boss_room >= 0)
    out->room_role[out->boss_room] = DG_ROLE_BOSS;
  if (down != NULL && down->room >= 0)
    out->room_role[down->room] = DG_ROLE_EXIT;
  if (up != NULL && up->room >= 0)
    out->room_role[up->room] = DG_ROLE_ENTRANCE;
  const dg_graph *graph = &level->graph;
  /* Node n is vertex n, or the vertex of the node's tile (a grid's). */
  bool vertex_is_node = !level->has_grid || g->trace;
  for (int n = 0; n < graph->node_count; n++) {
    const dg_node *node = &graph->nodes[n];
    dg_role role = DG_ROLE_ORDINARY;
    if (node->room >= 0 && node->room < level->room_count) {
      role = (dg_role)out->room_role[node->room];
    } else if (level->has_grid && dg_grid_contains(&level->grid, node->x, node->y)) {
      dg_tile tile = dg_grid_get(&level->grid, node->x, node->y);
      int v = g->trace ? n : vertex_at(level, g, node->x, node->y);
      if (tile == DG_TILE_SECRET_CORRIDOR || tile == DG_TILE_SECRET_DOOR || tile == DG_TILE_CHEST)
        role = DG_ROLE_SECRET;

      else if (same_word(node->kind, "dead_end") && v >= 0 &&
               tile_sphere(g, v, node->y * level->grid.width + node->x) >= 1)
        role = DG_ROLE_TREASURE;
    }
    /* A key on a corridor's dead end: the node there holds it. */
    int vertex = vertex_is_node ? -1 : vertex_at(level, g, node->x, node->y);
    for (int k = 0; k < p->locks && node->room < 0 && vertex >= 0; k++)
      if (p->key[k] == vertex)
        role = DG_ROLE_KEY;
    out->node_role[n] = (uint8_t)role;
  }
  for (int k = 0; k < p->locks && vertex_is_node; k++) {
    int n = p->key[k];
    if (n >= 0 && n < graph->node_count && graph->nodes[n].room < 0)
      out->node_role[n] = DG_ROLE_KEY;
  }
}

/* A traced room's key places listed in one scan (a larger room is
 * scanned again for the drawn one). */
#define KEY_PLACES_LISTED 256

/* Bit i set when tile x0 + i of a row (tiles, owner: the row's grid tiles
 * and room_of, with `readable` entries from the row's start to the grid's
 * end) is room `room`'s floor, for i below x1 - x0 and 16: with SSE2
 * sixteen at once where the grid holds sixteen from x0 (reading into the
 * next row is masked off). */
static unsigned room_floor16(const uint8_t *tiles, const int *owner, int room, int x0, int x1,
                             long readable) {
  int n = x1 - x0 < 16 ? x1 - x0 : 16;
  unsigned bits = 0;
#if defined(__SSE2__)
  if (x0 + 16 <= readable) {
    __m128i floor = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(tiles + x0)),
                                   _mm_set1_epi8(DG_TILE_FLOOR));
    __m128i own[4], id = _mm_set1_epi32(room);
    for (int i = 0; i < 4; i++)
      own[i] = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(owner + x0 + 4 * i)), id);
    __m128i ours =
        _mm_packs_epi16(_mm_packs_epi32(own[0], own[1]), _mm_packs_epi32(own[2], own[3]));
    bits = (unsigned)_mm_movemask_epi8(_mm_and_si128(floor, ours));
    return n < 16 ? bits & ((1u << n) - 1u) : bits;
  }
#endif
  for (int i = 0; i < n; i++)
    bits |= (unsigned)((owner[x0 + i] == room) & (tiles[x0 + i] == DG_TILE_FLOOR)) << i;
  return bits;
}

/* A traced room with no spawn in its rectangle and at most
 * KEY_ROWS_MAX rows: its key's tile drawn as choose_key_cells draws it,
 * into *cell (left alone when the room has no place), and true; else
 * false, nothing drawn. The places are counted row by row, sixteen tiles
 * at a time (room_floor16), and only the drawn one's row is read again. */
#define KEY_ROWS_MAX 64
static bool traced_key_tile(const dg_level *level, const pgraph *g, int room, dg_rng *rng,
                            int *cell) {
  const dg_grid *grid = &level->grid;
  int width = grid->width, per_row[KEY_ROWS_MAX], places = 0, r[4];
  if (room_rect(level, g, room, r) || r[3] - r[1] > KEY_ROWS_MAX)
    return false;
  int x0 = r[0], y0 = r[1], x1 = r[2], y1 = r[3];
  for (int y = y0; y < y1; y++) {
    const uint8_t *tiles = grid->tiles + (long)y * width;
    const int *owner = level->room_of + (long)y * width;
    long readable = (long)(grid->height - y) * width;
    int in_row = 0;
    for (int x = x0; x < x1; x += 16)
      in_row += dg_bits16(room_floor16(tiles, owner, room, x, x1, readable));
    per_row[y - y0] = in_row;
    places += in_row;
  }
  if (places <= 0)
    return true;
  int pick = places > 1 ? (int)dg_rng_below(rng, (uint32_t)places) : 0, y = y0;
  for (; pick >= per_row[y - y0]; y++)
    pick -= per_row[y - y0];
  const uint8_t *tiles = grid->tiles + (long)y * width;
  const int *owner = level->room_of + (long)y * width;
  long readable = (long)(grid->height - y) * width;
  for (int x = x0;; x += 16) {
    unsigned bits = room_floor16(tiles, owner, room, x, x1, readable);
    if (pick < dg_bits16(bits)) {
      for (; pick > 0; pick--)
        bits &= bits - 1;
      *cell = y * width + x + __builtin_ctz(bits);
      return true;
    }
    pick -= dg_bits16(bits);
  }
}

/* Grid levels: the tile of each key in its vertex, uniformly among the
 * vertex's floor tiles that hold no spawn (a dead end: its one tile). */

static void choose_key_cells(const pgraph *g, const dg_level *level, plan *p, dg_rng *rng) {
  for (int k = 0; k < p->locks && level->has_grid; k++) {
    int v = p->key[k];
    p->key_cell[k] = g->cell[v];
    if (g->trace) {
      /* key_slots only said whether the room has a place: count them,
       * listing them as they are counted (a second scan to find the
       * drawn one cost as much as the first). */
      int places = 0, listed[KEY_PLACES_LISTED + 1];
      if (g->kind[v] == V_FLOOR && traced_key_tile(level, g, g->room[v], rng, &p->key_cell[k]))
        continue;
      if (g->kind[v] == V_FLOOR)
        room_floor_tiles(level, g, g->room[v], 0, &places, listed, KEY_PLACES_LISTED);
      int pick = places > 1 ? (int)dg_rng_below(rng, (uint32_t)places) : 0;
      int tile = places <= 0                ? -1
                 : pick < KEY_PLACES_LISTED ? listed[pick]
                                            : room_floor_tile(level, g, g->room[v], pick);
      p->key_cell[k] = tile >= 0 ? tile : g->cell[v];
      continue;
    }
    int pick = g->key_slots[v] > 1 ? (int)dg_rng_below(rng, (uint32_t)g->key_slots[v]) : 0;
    for (int i = g->member_start[v]; i < g->member_start[v + 1]; i++) {
      int t = g->members[i];
      if ((g->kind[v] == V_DEAD_END || level->grid.tiles[t] == DG_TILE_FLOOR) &&
          !spawn_at(level, t) && pick-- == 0) {
        p->key_cell[k] = t;
        break;
      }
    }
  }
}

static const char *const direction_names[4] = {"north", "east", "south", "west"};

/* The door's room for a lock on a door tile, else -1. */
static int door_room(const dg_level *level, int x, int y) {
  for (int i = 0; i < level->door_count; i++)
    if (level->doors[i].x == x && level->doors[i].y == y)
      return level->doors[i].room;
  return -1;
}

/* Where a vertex lies in level coordinates: its tile, or its node's
 * position (a connection: halfway between its ends). */
static void vertex_position(const dg_level *level, const pgraph *g, int v, int *x, int *y) {
  if (level->has_grid) {
    *x = g->cell[v] % level->grid.width;
    *y = g->cell[v] / level->grid.width;
    return;
  }
  const dg_graph *graph = &level->graph;
  if (v < graph->node_count) {
    *x = graph->nodes[v].x;
    *y = graph->nodes[v].y;
    return;
  }
  const dg_edge *edge = &graph->edges[v - graph->node_count];
  *x = (graph->nodes[edge->from].x + graph->nodes[edge->to].x) / 2;
  *y = (graph->nodes[edge->from].y + graph->nodes[edge->to].y) / 2;
}

/* Writes keys, locks and one-way doors onto the map and into features. */
static int apply(dg_level *level, const pgraph *g, const plan *p) {
  int rc = 0, nodes = level->graph.node_count;
  for (int k = 0; k < p->locks && rc == 0; k++) {
    dg_feature key = {.kind = "key", .room = g->room[p->key[k]], .player = -1, .key = k};
    vertex_position(level, g, p->key[k], &key.x, &key.y);
    if (level->has_grid) {
      key.x = p->key_cell[k] % level->grid.width;
      key.y = p->key_cell[k] / level->grid.width;
      dg_grid_set(&level->grid, key.x, key.y, DG_TILE_KEY);
    }
    rc = dg_level_add_feature(level, &key);
  }
  for (int k = 0; k < p->locks && rc == 0; k++) {
    dg_feature lock = {.kind = "locked_door", .room = -1, .player = -1, .key = k};
    vertex_position(level, g, p->lock[k], &lock.x, &lock.y);
    if (level->has_grid) {
      lock.room = door_room(level, lock.x, lock.y);
      dg_grid_set(&level->grid, lock.x, lock.y, DG_TILE_LOCKED_DOOR);
    } else {
      lock.edge = p->lock[k] - nodes;
    }
    rc = dg_level_add_feature(level, &lock);
  }
  for (int v = 0; v < g->count && rc == 0 && g->one_way_count > 0; v++) {
    if (g->special[v] < SPECIAL_ONE_WAY)
      continue;
    int w = g->special[v] - SPECIAL_ONE_WAY;
    dg_feature door = {.kind = "one_way_door", .room = -1, .player = -1};
    vertex_position(level, g, v, &door.x, &door.y);
    if (level->has_grid) {
      /* The tile next to the door on its `to` side: sides follow adjacency. */
      int toward = g->side[2 * v + (g->adjacent[g->offsets[v]] == g->ow_to[w] ? 0 : 1)];
      int step = toward - g->cell[v], width = level->grid.width;
      int d = step == -width ? 0 : step == 1 ? 1 : step == width ? 2 : 3;
      door.direction = direction_names[d];
      door.room = door_room(level, door.x, door.y);
      dg_grid_set(&level->grid, door.x, door.y, (dg_tile)(DG_TILE_ONE_WAY_NORTH + d));
    } else {
      door.edge = v - nodes;
      door.from = g->ow_from[w];
      door.to = g->ow_to[w];
    }
    rc = dg_level_add_feature(level, &door);
  }
  return rc;
}

/* One block for the five arrays (room_key owns it, see dg_progression):
 * five allocations and frees of a few bytes each cost a classic level's
 * pass about 600 cycles. */
static int alloc_output(dg_level *level, dg_progression *out, int locks) {
  size_t rooms = (size_t)(level->room_count > 0 ? level->room_count : 1);
  size_t nodes = (size_t)(level->graph.node_count > 0 ? level->graph.node_count : 1);
  size_t keys = (size_t)(locks > 0 ? locks : 1);
  int *ints = calloc(1, (2 * rooms + keys) * sizeof *ints + rooms + nodes);
  if (ints == NULL)
    return DG_ENOMEM;
  out->room_key = ints;
  out->room_sphere = ints + rooms;
  out->key_sphere = ints + 2 * rooms;
  out->room_role = (uint8_t *)(ints + 2 * rooms + keys);
  out->node_role = out->room_role + rooms;
  return 0;
}

/* The locks: cuts that are passages, a plan over them, keys placed. */
static int plan_locks(pgraph *g, const dg_level *level, int wanted, int one_way_wanted, bool boss,
                      dg_rng *rng, const int *cuts, int cut_count, const int *depth, plan *p,
                      bool *extended) {
  int *candidates = g->candidates, *off_walk = g->off_walk, rc = 0, m = 0;
  for (int i = 0; i < cut_count; i++)
    if (g->kind[cuts[i]] == V_PASSAGE)
      candidates[m++] = cuts[i];
  /* Where a key may go does not change while locks are planned: locks
   * and one-way doors go on passages, keys on floors and dead ends. */
  int entrance_room = g->room[g->entrance], exit_room = g->room[g->exit];
  int keyable_count = 0;
  /* A traced level's edges are never floor or dead ends: only its nodes
   * are asked. */
  int asked = g->trace ? level->graph.node_count : g->count;
  memset(g->keyable + asked, 0, (size_t)(g->count - asked));
  for (int v = 0; v < asked; v++) {
    bool keyable = key_place(g, level, v, entrance_room, exit_room);
    g->keyable[v] = keyable;
    g->keyable_list[keyable_count] = v;
    keyable_count += keyable;
  }
  g->keyable_count = keyable_count;
  g->off_walk_ready = false;
  if (!tree_key_segments(g, candidates, m)) {
    distance_from_walk(g, off_walk);
    label_segments(g, candidates, m);
    g->off_walk_ready = true;
    for (int i = 0; i < keyable_count; i++) {
      g->key_segment[i] = g->mark[g->keyable_list[i]];
      g->key_hops[i] = off_walk[g->keyable_list[i]];
    }
  }
  if ((rc = choose_locks(g, level, candidates, m, wanted, boss, rng, p)) != 0)
    goto done;
  place_keys(g, level, p, rng);
  for (int k = 0; k < p->locks; k++)
    g->special[p->lock[k]] = k;
  /* Too few chokepoints: locks on loops, their bypasses one-way. */
  if (p->locks < wanted && one_way_wanted > 0 && !boss &&
      (rc = extend_locks(g, level, off_walk, wanted, one_way_wanted, rng, p, extended)) != 0)
    goto done;
done:
  return rc;
}

/* A level whose placement found no room for stairs: nothing placed, the
 * reason given, every room in no sphere. */
static void no_stairs(const dg_level *level, dg_progression *out) {
  out->locks_why = out->locks_wanted > 0 ? "the level has no entrance and exit" : NULL;
  out->one_way_why = out->one_way_wanted > 0 ? "the level has no entrance and exit" : NULL;
  out->sphere_count = 0;
  for (int r = 0; r < level->room_count; r++) {
    out->room_sphere[r] = -1;
    out->room_key[r] = -1;
  }
}

int dg_pass_progression(dg_level *level, const dg_request *request, dg_rng *rng, dg_error *err) {
  const dg_algorithm *algorithm = level->algorithm;
  const dg_params *params = &level->params;
  (void)request;
  if (!dg_progression_wanted(algorithm, params))
    return 0;
  dg_progression *out = &level->progression;
  out->placed = true;
  out->locks_wanted = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_LOCKS));
  out->one_way_wanted = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_ONE_WAY));
  out->consumable =
      dg_param_int(params, dg_common_param(algorithm, DG_COMMON_KEY_KIND)) == DG_KEY_CONSUMABLE;
  out->boss_wanted = dg_param_bool(params, dg_common_param(algorithm, DG_COMMON_BOSS_ROOM));
  out->boss_room = -1;
  _Alignas(16) unsigned char scratch[PGRAPH_SCRATCH];
  pgraph_tables tables;
  pgraph g = {.scratch = scratch,
              .scratch_size = sizeof scratch,
              .neighbours = tables.neighbours,
              .spawn_tile = tables.spawn_tile,
              .spawn_x = tables.spawn_x,
              .spawn_y = tables.spawn_y};
  find_stairs(level, &g.up, &g.down);
  plan p = {0};
  bool extended = false; /* some lock lies on a loop, its bypass one-way */
  int rc = !level->has_grid          ? build_from_graph(level, &g)
           : trace_usable(level, &g) ? build_from_trace(level, &g)
                                     : build_from_grid(level, &g);
  if (rc == 0)
    rc = alloc_output(level, out, out->locks_wanted);
  if (rc == 0)
    small_masks(&g);
  if (rc != 0)
    goto done;
  uint8_t *articulation = g.articulation;
  int *cuts = g.cuts;
  g.stairs_room[0] = g.up != NULL ? g.up->room : -1;
  g.stairs_room[1] = g.down != NULL ? g.down->room : -1;
  if (g.entrance < 0 || g.exit < 0) {
    no_stairs(level, out);
    goto done;
  }
  int cut_count = 0, reached = depth_search(&g);
  int *depth = g.depth;
  if (!tree_cuts(&g, reached, articulation, cuts, &cut_count) &&
      (rc = find_cuts(&g, articulation, cuts, &cut_count)) != 0)
    goto done;
  if (depth[g.exit] < 0) {
    p.why = "the exit cannot be reached from the entrance";
    cut_count = 0;
  }
  if (out->locks_wanted > 0 &&
      (rc = plan_locks(&g, level, out->locks_wanted, out->one_way_wanted, out->boss_wanted, rng,
                       cuts, cut_count, depth, &p, &extended)) != 0)
    goto done;
  out->locks_placed = p.locks;
  out->locks_why = p.locks < out->locks_wanted ? p.why : NULL;
  if (out->one_way_wanted > 0 && depth[g.exit] >= 0 &&
      (rc = place_one_way(&g, articulation, depth, out->one_way_wanted, extended ? &p : NULL, rng,
                          &out->one_way_why)) != 0)
    goto done;
  out->one_way_placed = g.one_way_count;
  choose_key_cells(&g, level, &p, rng);
  if ((rc = assign_spheres(&g, level, &p, out)) != 0)
    goto done;
  assign_roles(&g, level, &p, out);
  if ((rc = build_walk(&g, &p, out)) == 0)
    rc = apply(level, &g, &p);
done:
  pgraph_free(&g);
  if (rc == 0)
    return 0;
  return dg_error_set(err, rc, "",
                      rc == DG_ENOMEM ? "out of memory"
                                      : "the progression pass found its own plan "
                                        "unwalkable");
}
