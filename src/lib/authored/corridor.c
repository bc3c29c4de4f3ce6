/* The old method, kept as the baseline (seed 003, "The failed prototype"):
 * cycles=corridors carves a procedural corridor between the same pairs of
 * connectors with a block-grid path-finder (A*, Manhattan heuristic times
 * the same weight w). A corridor cell is a column of floor, two blocks of
 * air and ceiling at the doorways' standing height; a step up or down one
 * block (a stair) costs 2. Cells must be free in the occupancy index; the
 * carved columns are added to it. */
#include <stdlib.h>

#include "authored.h"

typedef struct cnode {
  int x, y, z;
  int parent;
  int g;
} cnode;

static uint32_t cslot(uint64_t key, uint32_t mask) {
  return (uint32_t)dg_mix64(key) & mask;
}

static uint64_t ckey(int x, int y, int z) {
  return (uint64_t)(uint32_t)(x + (1 << 20)) << 42 | (uint64_t)(uint32_t)(y + (1 << 20)) << 21 |
         (uint64_t)(uint32_t)(z + (1 << 20));
}

static bool column_free(const au_state *s, int x, int y, int z) {
  rs_box column = {x, y - 1, z, x + 1, y + 3, z + 1};
  int limit = dg_param_int(s->params, P_VERTICAL_LIMIT);
  return y - 1 >= -limit && y + 3 <= limit && occ_is_free(&s->occupancy, &column);
}

/* A corridor cell away from the doorways also needs its walls: the
 * column and one block on every side, as a built corridor has (the same
 * 3-block cross-section as the room sets' passages). */
static bool cell_free(const au_state *s, int x, int y, int z, int sx, int sz, int gx, int gz) {
  if (abs(x - sx) + abs(z - sz) <= 1 || abs(x - gx) + abs(z - gz) <= 1)
    return column_free(s, x, y, z);
  rs_box walls = {x - 1, y - 1, z - 1, x + 2, y + 3, z + 2};
  int limit = dg_param_int(s->params, P_VERTICAL_LIMIT);
  return y - 1 >= -limit && y + 3 <= limit && occ_is_free(&s->occupancy, &walls);
}

static int iabs(int v) {
  return v < 0 ? -v : v;
}

int au_corridor(au_state *s, int from, int to, bool *built, int *length, int64_t *expanded) {
  const au_connector *a = &s->connectors[from], *b = &s->connectors[to];
  int sx = a->x + facing_dx(a->facing), sy = a->y, sz = a->z + facing_dz(a->facing);
  int gx = b->x + facing_dx(b->facing), gy = b->y, gz = b->z + facing_dz(b->facing);
  double w = dg_param_float(s->params, P_WEIGHT);
  int expansions_max = dg_param_int(s->params, P_EXPANSIONS_MAX);
  int reach = dg_param_int(s->params, P_CANDIDATE_DISTANCE) * 2;
  *built = false;
  *expanded = 0;
  if (!column_free(s, sx, sy, sz) || !column_free(s, gx, gy, gz))
    return 0;
  uint32_t slots = 1u << 14;
  uint64_t *keys = malloc((size_t)slots * sizeof *keys);
  int *best = malloc((size_t)slots * sizeof *best);
  cnode *nodes = NULL;
  int node_count = 0, node_capacity = 0, rc = DG_ENOMEM;
  uint32_t used = 0;
  dg_heap open = {0};
  if (keys == NULL || best == NULL || dg_heap_init(&open, 256) != 0)
    goto done;
  for (uint32_t i = 0; i < slots; i++)
    keys[i] = UINT64_MAX;
  node_capacity = 256;
  if ((nodes = malloc((size_t)node_capacity * sizeof *nodes)) == NULL)
    goto done;
  nodes[node_count++] = (cnode){sx, sy, sz, -1, 0};
  if (dg_heap_push(&open, 0, 0) != 0)
    goto done;
  uint32_t at;
  int found = -1;
  static const int dx[4] = {0, 1, 0, -1}, dz[4] = {-1, 0, 1, 0};
  while (found < 0 && dg_heap_pop(&open, NULL, &at) && *expanded < expansions_max) {
    cnode n = nodes[at];
    if (n.x == gx && n.y == gy && n.z == gz) {
      found = (int)at;
      break;
    }
    (*expanded)++;
    int stop = (*expanded & 4095) == 0 ? dg_cancel_check(s->cancel) : 0;
    if (stop != 0) {
      rc = stop;
      goto done;
    }
    for (int d = 0; d < 4; d++)
      for (int up = -1; up <= 1; up++) {
        int x = n.x + dx[d], y = n.y + up, z = n.z + dz[d], g = n.g + (up != 0 ? 2 : 1);
        if (iabs(x - sx) > reach || iabs(z - sz) > reach)
          continue;
        uint64_t key = ckey(x, y, z);
        uint32_t slot = cslot(key, slots - 1);
        while (keys[slot] != UINT64_MAX && keys[slot] != key)
          slot = (slot + 1) & (slots - 1);
        if (keys[slot] == key && best[slot] <= g)
          continue;
        if (!cell_free(s, x, y, z, sx, sz, gx, gz))
          continue;
        /* A stair needs headroom over the lower of its two cells. */
        if (up != 0 && !column_free(s, n.x, n.y + 1, n.z) && !column_free(s, x, y - up, z))
          continue;
        if (keys[slot] != key) {
          if ((used + 1) * 2 > slots) {
            /* Full enough: the search has wandered too far for a corridor. */
            continue;
          }
          used++;
          keys[slot] = key;
        }
        best[slot] = g;
        if (node_count == node_capacity) {
          node_capacity *= 2;
          cnode *bigger = realloc(nodes, (size_t)node_capacity * sizeof *nodes);
          if (bigger == NULL)
            goto done;
          nodes = bigger;
        }
        int h = iabs(gx - x) + iabs(gy - y) + iabs(gz - z);
        nodes[node_count] = (cnode){x, y, z, (int)at, g};
        if (dg_heap_push(&open, (uint64_t)((g + w * h) * 16.0), (uint32_t)node_count++) != 0)
          goto done;
      }
  }
  if (found >= 0) {
    /* Carve: every column of the path joins the occupancy. */
    int cells = 0;
    for (int i = found; i >= 0; i = nodes[i].parent) {
      rs_box column = {nodes[i].x,     nodes[i].y - 1, nodes[i].z,
                       nodes[i].x + 1, nodes[i].y + 3, nodes[i].z + 1};
      bool near_end = abs(nodes[i].x - sx) + abs(nodes[i].z - sz) <= 1 ||
                      abs(nodes[i].x - gx) + abs(nodes[i].z - gz) <= 1;
      if (!near_end)
        column = (rs_box){nodes[i].x - 1, nodes[i].y - 1, nodes[i].z - 1,
                          nodes[i].x + 2, nodes[i].y + 3, nodes[i].z + 2};
      if (occ_add(&s->occupancy, &column, -1) != 0)
        goto done;
      cells++;
    }
    *length = nodes[found].g + 2;
    *built = true;
    if ((rc = au_connect(s, from, to, "corridor", s->cycles->count)) != 0)
      goto done;
  }
  rc = 0;
done:
  free(keys);
  free(best);
  free(nodes);
  dg_heap_close(&open);
  return rc;
}
