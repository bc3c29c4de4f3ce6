/* Tile grid storage and the one legend (names and glyphs, core/legend.h)
 * all output uses. */
#include "dungeon/grid.h"

#include <stdlib.h>
#include <string.h>

#include "core/legend.h"
#include "dungeon/error.h"

/* Far above any configured limit; protects the multiplication only. */
#define GRID_CELLS_MAX (1L << 26)

const dg_legend_entry dg_legend[DG_TILE_COUNT] = {
    [DG_TILE_STONE] = {"stone", ' ', '\0'},
    [DG_TILE_FLOOR] = {"floor", '.', '\0'},
    [DG_TILE_CORRIDOR] = {"corridor", '#', '\0'},
    [DG_TILE_WALL] = {"wall", '|', '-'},
    [DG_TILE_DOOR] = {"door", '+', '\0'},
    [DG_TILE_SECRET_DOOR] = {"secret_door", 'S', '\0'},
    [DG_TILE_SECRET_CORRIDOR] = {"secret_corridor", '=', '\0'},
    [DG_TILE_CHEST] = {"chest", '(', '\0'},
    [DG_TILE_STAIRS_UP] = {"stairs_up", '<', '\0'},
    [DG_TILE_STAIRS_DOWN] = {"stairs_down", '>', '\0'},
    [DG_TILE_VOID] = {"void", '~', '\0'},
    [DG_TILE_LOCKED_DOOR] = {"locked_door", 'L', '\0'},
    [DG_TILE_KEY] = {"key", 'k', '\0'},
    [DG_TILE_ONE_WAY_NORTH] = {"one_way_north", '^', '\0'},
    [DG_TILE_ONE_WAY_EAST] = {"one_way_east", '}', '\0'},
    [DG_TILE_ONE_WAY_SOUTH] = {"one_way_south", 'v', '\0'},
    [DG_TILE_ONE_WAY_WEST] = {"one_way_west", '{', '\0'},
};

int dg_grid_init(dg_grid *grid, int width, int height) {
  grid->width = 0;
  grid->height = 0;
  grid->tiles = NULL;
  /* Sides fit in 16 bits, so coordinates can be packed two to a word. */
  if (width < 1 || height < 1 || width > 65535 || height > 65535 ||
      (long)width * height > GRID_CELLS_MAX)
    return DG_EINVAL;
  grid->tiles = calloc((size_t)width * (size_t)height, 1);
  if (grid->tiles == NULL)
    return DG_ENOMEM;
  grid->width = width;
  grid->height = height;
  return 0;
}

void dg_grid_close(dg_grid *grid) {
  free(grid->tiles);
  grid->tiles = NULL;
  grid->width = grid->height = 0;
}

const char *dg_tile_name(dg_tile tile) {
  if ((unsigned)tile >= DG_TILE_COUNT)
    return "unknown";
  return dg_legend[tile].name;
}

static bool joins_wall(const dg_grid *grid, int x, int y) {
  if (!dg_grid_contains(grid, x, y))
    return false;
  dg_tile tile = dg_grid_get(grid, x, y);
  return tile == DG_TILE_WALL || tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR ||
         tile == DG_TILE_LOCKED_DOOR ||
         (tile >= DG_TILE_ONE_WAY_NORTH && tile <= DG_TILE_ONE_WAY_WEST);
}

char dg_grid_glyph(const dg_grid *grid, int x, int y) {
  dg_tile tile = dg_grid_get(grid, x, y);
  if ((unsigned)tile >= DG_TILE_COUNT)
    return '?';
  if (dg_legend[tile].joined_glyph != '\0' &&
      (joins_wall(grid, x - 1, y) || joins_wall(grid, x + 1, y)))
    return dg_legend[tile].joined_glyph;
  return dg_legend[tile].glyph;
}
