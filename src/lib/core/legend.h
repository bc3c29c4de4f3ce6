/* Internal: the one legend of the tile map. For every tile kind its name
 * and the glyph(s) that draw it; dg_tile_name and dg_grid_glyph (the ASCII
 * map and the JSON rows), the JSON `grid.legend` and the Tiled tileset's
 * glyph property all read this table (core/grid.c), so no output can
 * disagree with another. */
#ifndef DUNGEON_CORE_LEGEND_H
#define DUNGEON_CORE_LEGEND_H

#include "dungeon/grid.h"

/* Longest tile name (the JSON legend is assembled in a buffer sized by it). */
#define DG_LEGEND_NAME_MAX 31

typedef struct dg_legend_entry {
  const char *name; /* "secret_corridor"; at most DG_LEGEND_NAME_MAX bytes */
  char glyph;       /* the glyph on the map ('|' for walls) */
  /* Walls only, else '\0': the glyph of a wall with a wall, door or secret
   * door to its left or right ('-'). Listed first in the JSON legend, and
   * the glyph the Tiled tileset shows for the tile. */
  char joined_glyph;
} dg_legend_entry;

/* Indexed by dg_tile. */
extern const dg_legend_entry dg_legend[DG_TILE_COUNT];

/* The glyphs of row `y` into out[0..width): dg_grid_glyph(grid, x, y) for
 * every x, from tables made once per row instead of three lookups and
 * their bounds tests per tile (the level's JSON and the ASCII map draw
 * every row of every level). No NUL is added. Thread-safe. */
void dg_grid_glyph_row(const dg_grid *grid, int y, char *out);

#endif
