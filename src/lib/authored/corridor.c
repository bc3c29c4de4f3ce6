/* The old method, kept as the baseline (seed 003, "The failed prototype"):
 * cycles=corridors carves a procedural corridor between the same pairs of
 * connectors with a block-grid path-finder (A*, Manhattan heuristic times
 * the same weight w). A corridor cell is a column of floor, two blocks of
 * air and ceiling at the doorways' standing height; a step up or down one
 * block (a stair) costs 2. Cells must be free in the occupancy index; the
 * carved columns are added to it, and the path (the blocks a walker's feet
 * are in, doorway to doorway, 6-connected) is kept for the level's JSON
 * and grid.
 *
 * A stair from cell P to cell N one block higher or lower also occupies
 * the block above the lower of the two, so the path steps vertically
 * inside the lower cell's column: P, (lower's x and z at the higher y), N.
 * That block must be as free as a cell; it is the stair's headroom. A
 * corridor does not run into itself (a zig-zag shaft, a lane doubling
 * back beside itself): its cells keep clear of its own earlier cells.
 *
 * Issue 6 asks that searches do not allocate per call: the visited table
 * (stamped, so it needs no clearing), the node pool and the open list live
 * in one scratch per generation, allocated on the first corridor and grown
 * only when a search needs more nodes than any before it. */
#include "corridor.h"

#include <stdlib.h>

#include "core/fp.h"
#include "core/hash.h"

/* Cells one search may visit: past this many it has wandered too far for a
 * corridor and stops growing its frontier. */
#define CORRIDOR_CELLS_MAX (1u << 13)

typedef struct cnode {
  int x, y, z;
  int parent;
  int g;
} cnode;

struct authored_corridor_search {
  dg_hash visited;     /* cell key -> cheapest g, cleared per search */
  DG_VEC(cnode) nodes; /* the search's nodes, by index */
  dg_heap open;        /* node indices by f */
};

void authored_corridor_free(authored_state *state) {
  if (state->corridors == NULL)
    return;
  dg_hash_close(&state->corridors->visited);
  dg_vec_free(&state->corridors->nodes);
  dg_heap_close(&state->corridors->open);
  free(state->corridors);
  state->corridors = NULL;
}

static uint64_t ckey(int x, int y, int z) {
  return (uint64_t)(uint32_t)(x + (1 << 20)) << 42 | (uint64_t)(uint32_t)(y + (1 << 20)) << 21 |
         (uint64_t)(uint32_t)(z + (1 << 20));
}

static bool column_free(const authored_state *state, int x, int y, int z) {
  authored_box column = {x, y - 1, z, x + 1, y + 3, z + 1};
  int limit = dg_param_int(state->params, AUTHORED_P_VERTICAL_LIMIT);
  return y - 1 >= -limit && y + 3 <= limit && authored_occ_is_free(&state->occupancy, &column);
}

static bool near_end(int x, int z, int sx, int sz, int gx, int gz) {
  return abs(x - sx) + abs(z - sz) <= 1 || abs(x - gx) + abs(z - gz) <= 1;
}

/* What a corridor cell fills: next to a doorway only its column; elsewhere
 * the column and one block on every side, its walls, as a built corridor
 * has (the same 3-block cross-section as the room sets' passages). */
static authored_box cell_box(int x, int y, int z, int sx, int sz, int gx, int gz) {
  if (near_end(x, z, sx, sz, gx, gz))
    return (authored_box){x, y - 1, z, x + 1, y + 3, z + 1};
  return (authored_box){x - 1, y - 1, z - 1, x + 2, y + 3, z + 2};
}

static bool cell_free(const authored_state *state, int x, int y, int z, int sx, int sz, int gx,
                      int gz) {
  authored_box box = cell_box(x, y, z, sx, sz, gx, gz);
  int limit = dg_param_int(state->params, AUTHORED_P_VERTICAL_LIMIT);
  return y - 1 >= -limit && y + 3 <= limit && authored_occ_is_free(&state->occupancy, &box);
}

static int iabs(int v) {
  return v < 0 ? -v : v;
}

/* True when a cell at (x, y, z) after node `parent` would run into the
 * corridor's own earlier cells (their walls or air), such as a stair
 * climbing in a zig-zag over itself or a lane doubling back beside itself.
 * The parent and its parent are skipped: neighbouring cells share walls
 * by design. */
static bool crosses_itself(const struct authored_corridor_search *search, int parent, int x, int y,
                           int z) {
  int skip = 2;
  for (int i = parent; i >= 0; i = search->nodes.items[i].parent) {
    if (skip > 0) {
      skip--;
      continue;
    }
    const cnode *n = &search->nodes.items[i];
    if (abs(n->x - x) <= 1 && abs(n->z - z) <= 1 && abs(n->y - y) <= 3)
      return true;
  }
  return false;
}

/* The stair block between cells p and n (heights one apart): the lower
 * cell's x and z at the higher cell's y. */
static authored_block stair_block(const cnode *p, const cnode *n) {
  return n->y > p->y ? (authored_block){p->x, n->y, p->z} : (authored_block){n->x, p->y, n->z};
}

/* Appends the path from doorway `a` through the search's nodes ending at
 * `found` to doorway `b` onto state->path, and carves it into the occupancy.
 * *first and *count locate it. 0 or DG_ENOMEM. */
static int carve(authored_state *state, const struct authored_corridor_search *search, int found,
                 const authored_connector *a, const authored_connector *b, int sx, int sz, int gx,
                 int gz, int *first, int *count) {
  const cnode *nodes = search->nodes.items;
  int total = 2;
  for (int i = found; i >= 0; i = nodes[i].parent)
    total += 1 + (nodes[i].parent >= 0 && nodes[nodes[i].parent].y != nodes[i].y);
  if (dg_vec_reserve(&state->path, state->path.count + total) != 0)
    return DG_ENOMEM;
  authored_block *path = state->path.items + state->path.count;
  int at = total - 1;
  path[at--] = (authored_block){b->x, b->y, b->z};
  for (int i = found; i >= 0; i = nodes[i].parent) {
    const cnode *n = &nodes[i];
    path[at--] = (authored_block){n->x, n->y, n->z};
    if (n->parent >= 0 && nodes[n->parent].y != n->y)
      path[at--] = stair_block(&nodes[n->parent], n);
  }
  path[at] = (authored_block){a->x, a->y, a->z};
  for (int i = 1; i < total - 1; i++) {
    authored_box box = cell_box(path[i].x, path[i].y, path[i].z, sx, sz, gx, gz);
    if (authored_occ_add(&state->occupancy, &box, -1) != 0)
      return DG_ENOMEM;
  }
  *first = state->path.count;
  *count = total;
  state->path.count += total;
  return 0;
}

/* One corridor search's ends and limits. */
typedef struct corridor_ends {
  int sx, sy, sz; /* the cell in front of the first doorway */
  int gx, gy, gz; /* the cell in front of the second */
  double weight;  /* w in f = g + w h */
  int reach;      /* how far in x or z from the start a cell may lie */
} corridor_ends;

/* The search scratch, created on the first corridor (a half-built one is
 * freed by authored_corridor_free), cleared and holding the start node. */
static int start_search(authored_state *state, const corridor_ends *ends) {
  if (state->corridors == NULL) {
    if ((state->corridors = calloc(1, sizeof *state->corridors)) == NULL ||
        dg_heap_init(&state->corridors->open, 256) != 0 ||
        dg_hash_init(&state->corridors->visited, CORRIDOR_CELLS_MAX) != 0)
      return DG_ENOMEM;
  }
  struct authored_corridor_search *search = state->corridors;
  dg_hash_clear(&search->visited);
  dg_heap_clear(&search->open);
  search->nodes.count = 0;
  if (dg_vec_push(&search->nodes, (cnode){ends->sx, ends->sy, ends->sz, -1, 0}) != 0 ||
      dg_heap_push(&search->open, 0, 0) != 0)
    return DG_ENOMEM;
  return 0;
}

/* Pushes the neighbours of node `at` (n): level steps and stairs in the
 * four directions, within reach, free, not crossing the corridor itself,
 * cheaper than before, while the visited table has room. 0 or
 * DG_ENOMEM. */
static int expand_cell(authored_state *state, struct authored_corridor_search *search,
                       const corridor_ends *ends, uint32_t at, const cnode *n) {
  static const int dx[4] = {0, 1, 0, -1}, dz[4] = {-1, 0, 1, 0};
  int sx = ends->sx, sz = ends->sz, gx = ends->gx, gy = ends->gy, gz = ends->gz;
  for (int d = 0; d < 4; d++)
    for (int up = -1; up <= 1; up++) {
      int x = n->x + dx[d], y = n->y + up, z = n->z + dz[d], g = n->g + (up != 0 ? 2 : 1);
      if (iabs(x - sx) > ends->reach || iabs(z - sz) > ends->reach)
        continue;
      uint64_t key = ckey(x, y, z);
      int32_t *best = dg_hash_get(&search->visited, key);
      if (best != NULL && *best <= g)
        continue;
      if (!cell_free(state, x, y, z, sx, sz, gx, gz) || crosses_itself(search, (int)at, x, y, z))
        continue;
      if (up != 0) {
        cnode next = {x, y, z, (int)at, g};
        authored_block stair = stair_block(n, &next);
        if (!cell_free(state, stair.x, stair.y, stair.z, sx, sz, gx, gz))
          continue;
      }
      if (best != NULL)
        *best = g;
      else if (search->visited.used >= CORRIDOR_CELLS_MAX)
        continue;
      else if (dg_hash_put(&search->visited, key, g, &best) < 0)
        return DG_ENOMEM;
      int h = iabs(gx - x) + iabs(gy - y) + iabs(gz - z);
      uint32_t id = (uint32_t)search->nodes.count;
      if (dg_vec_push(&search->nodes, (cnode){x, y, z, (int)at, g}) != 0 ||
          dg_heap_push(&search->open, (uint64_t)((g + dg_fp_mul(ends->weight, h)) * 16.0), id) != 0)
        return DG_ENOMEM;
    }
  return 0;
}

int authored_corridor(authored_state *state, int from, int to, int cycle, bool *built, int *length,
                      int64_t *expanded) {
  const authored_connector *a = &state->connectors.items[from], *b = &state->connectors.items[to];
  corridor_ends ends = {.sx = a->x + facing_dx(a->facing),
                        .sy = a->y,
                        .sz = a->z + facing_dz(a->facing),
                        .gx = b->x + facing_dx(b->facing),
                        .gy = b->y,
                        .gz = b->z + facing_dz(b->facing),
                        .weight = dg_param_float(state->params, AUTHORED_P_WEIGHT),
                        .reach = dg_param_int(state->params, AUTHORED_P_CANDIDATE_DISTANCE) * 2};
  int expansions_max = dg_param_int(state->params, AUTHORED_P_EXPANSIONS_MAX);
  *built = false;
  *expanded = 0;
  if (!column_free(state, ends.sx, ends.sy, ends.sz) ||
      !column_free(state, ends.gx, ends.gy, ends.gz))
    return 0;
  int rc = start_search(state, &ends);
  if (rc != 0)
    return rc;
  /* The search scratch belongs to the state: no exit below frees
   * anything. */
  struct authored_corridor_search *search = state->corridors;
  uint32_t at;
  int found = -1;
  while (found < 0 && dg_heap_pop(&search->open, NULL, &at) && *expanded < expansions_max) {
    /* A copy: pushing neighbours may move the node pool. */
    cnode n = search->nodes.items[at];
    if (n.x == ends.gx && n.y == ends.gy && n.z == ends.gz) {
      found = (int)at;
      break;
    }
    (*expanded)++;
    if ((*expanded & 4095) == 0 && (rc = dg_cancel_check(state->cancel)) != 0)
      return rc;
    if ((rc = expand_cell(state, search, &ends, at, &n)) != 0)
      return rc;
  }
  if (found < 0)
    return 0;
  int first = 0, count = 0;
  if ((rc = carve(state, search, found, a, b, ends.sx, ends.sz, ends.gx, ends.gz, &first,
                  &count)) != 0)
    return rc;
  *length = search->nodes.items[found].g + 2;
  *built = true;
  if ((rc = authored_connect(state, from, to, "corridor", cycle)) != 0)
    return rc;
  state->connections.items[state->connections.count - 1].path_first = first;
  state->connections.items[state->connections.count - 1].path_count = count;
  return 0;
}
