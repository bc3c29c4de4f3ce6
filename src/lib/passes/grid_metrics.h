/* Internal: the grid part of the level metrics (walkable tiles, doors,
 * corridor tiles, dead ends, double-wide corridor, components, connected)
 * from a list of walkable tiles. Below the scans that need it: the trace
 * (trace.c), the loop count (loops.c) and metrics.c itself, so that a
 * grid is scanned once, by whichever of them runs. */
#ifndef DUNGEON_GRID_METRICS_H
#define DUNGEON_GRID_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "dungeon/level.h"

/* Fills the grid metrics of `m` (walkable, doors, corridor tiles, dead ends,
 * double-wide, components, connected) from `walk` (padded map, 1 where
 * walkable, a non-walkable border, row length `stride`) and `cells` (the
 * padded index of every walkable tile, row-major, `count` of them). Leaves
 * the graph metrics alone. 0 or DG_ENOMEM. */
int dg_grid_metrics_scan(const dg_level *level, const uint8_t *walk, int stride, const int *cells,
                         int count, dg_metrics *m);

/* The per-tile tallies of the grid metrics for walkable tile `at` (its
 * place in the grid's tiles, row length `width`), padded index p in
 * `walk` (row length `stride`): doors, corridor tiles, dead ends and
 * double-wide corridor. Inline: both grid scans (this one and the loop
 * count's, loops.c) run it on every walkable tile of every level. */
static inline bool dg_metrics_corridor_near(const uint8_t *walk, long p, int stride,
                                            const uint8_t *at, int width, int dx, int dy) {
  /* walk[] is 0 on the border, so a neighbour off the map is never read. */
  return walk[p + (long)dy * stride + dx] && at[(long)dy * width + dx] == DG_TILE_CORRIDOR;
}

static inline void dg_metrics_tally_tile(dg_metrics *m, const uint8_t *at, int width,
                                         const uint8_t *walk, long p, int stride) {
  dg_tile tile = (dg_tile)*at;
  if (tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR)
    m->doors++;
  if (tile == DG_TILE_CORRIDOR || tile == DG_TILE_SECRET_CORRIDOR || tile == DG_TILE_CHEST) {
    m->corridor_tiles++;
    if (walk[p - 1] + walk[p + 1] + walk[p - stride] + walk[p + stride] == 1)
      m->dead_ends++;
  }
  /* Inside some 2x2 block of corridor: the "double-wide" ugliness the
   * seed's follow and cleanup styles exist to avoid. */
  if (tile == DG_TILE_CORRIDOR) {
    bool up = dg_metrics_corridor_near(walk, p, stride, at, width, 0, -1);
    bool down = dg_metrics_corridor_near(walk, p, stride, at, width, 0, 1);
    bool left = dg_metrics_corridor_near(walk, p, stride, at, width, -1, 0);
    bool right = dg_metrics_corridor_near(walk, p, stride, at, width, 1, 0);
    m->double_wide +=
        (up && left && dg_metrics_corridor_near(walk, p, stride, at, width, -1, -1)) ||
        (up && right && dg_metrics_corridor_near(walk, p, stride, at, width, 1, -1)) ||
        (down && left && dg_metrics_corridor_near(walk, p, stride, at, width, -1, 1)) ||
        (down && right && dg_metrics_corridor_near(walk, p, stride, at, width, 1, 1));
  }
}

/* Whether every room's first walkable tile (reading order within its
 * rectangle) lies in one component of the union-find `component` over the
 * padded walkable tiles; false when a room has none. */
bool dg_metrics_rooms_connected(const dg_level *level, const uint8_t *walk, int stride,
                                int *component);

#endif
