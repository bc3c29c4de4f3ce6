/* Internal: the grid part of the level metrics from a list of walkable
 * tiles, shared by metrics.c and trace.c so that a generator that traces its
 * grid does not scan it a second time. */
#ifndef DUNGEON_METRICS_INTERNAL_H
#define DUNGEON_METRICS_INTERNAL_H

#include <stdint.h>

#include "dungeon/level.h"

/* Fills the grid metrics of `m` (walkable, doors, corridor tiles, dead ends,
 * double-wide, components, connected) from `walk` (padded map, 1 where
 * walkable, a non-walkable border, row length `stride`) and `cells` (the
 * padded index of every walkable tile, row-major, `count` of them). Leaves
 * the graph metrics alone. 0 or DG_ENOMEM. */
int dg_grid_metrics_scan(const dg_level *level, const uint8_t *walk, int stride, const int *cells,
                         int count, dg_metrics *m);

#endif
