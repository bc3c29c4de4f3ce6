/* Internal: what the SVG and Tiled renderers share. */
#ifndef DUNGEON_RENDER_INTERNAL_H
#define DUNGEON_RENDER_INTERNAL_H

#include "dungeon/level.h"

/* The drawn extent of a level in tiles, half-open [x0, x1) x [y0, y1): the
 * grid, or for a level without one the rooms with their walls, the doors,
 * the objects, the features and the graph's nodes (at least 1x1). */
void dg_render_extent(const dg_level *level, int *x0, int *y0, int *x1, int *y1);

#endif
