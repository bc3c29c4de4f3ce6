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

/* Whether a wall beside `tile` draws joined: walls and every kind of door. */
static bool joins_tile(dg_tile tile) {
  return tile == DG_TILE_WALL || tile == DG_TILE_DOOR || tile == DG_TILE_SECRET_DOOR ||
         tile == DG_TILE_LOCKED_DOOR ||
         (tile >= DG_TILE_ONE_WAY_NORTH && tile <= DG_TILE_ONE_WAY_WEST);
}

static bool joins_wall(const dg_grid *grid, int x, int y) {
  return dg_grid_contains(grid, x, y) && joins_tile(dg_grid_get(grid, x, y));
}

/* Tile values dg_grid_glyph_row's tables cover: every dg_tile. */
#define GLYPH_TABLE 32

void dg_grid_glyph_row(const dg_grid *grid, int y, char *out) {
  /* Per tile value below GLYPH_TABLE: its plain glyph, its joined glyph
   * ('\0': none) and whether it joins a wall beside it; values past the
   * legend are '?' and join nothing. */
  _Static_assert(DG_TILE_COUNT <= GLYPH_TABLE, "every tile has a row in the glyph tables");
  char plain[GLYPH_TABLE], joined[GLYPH_TABLE];
  bool joins[GLYPH_TABLE];
  for (int t = 0; t < GLYPH_TABLE; t++) {
    bool known = t < DG_TILE_COUNT;
    plain[t] = known ? dg_legend[t].glyph : '?';
    joined[t] = known ? dg_legend[t].joined_glyph : '\0';
    joins[t] = known && joins_tile((dg_tile)t);
  }
  const uint8_t *row = grid->tiles + (long)y * grid->width;
  int width = grid->width;
  for (int x = 0; x < width; x++) {
    uint8_t t = row[x];
    if (t >= GLYPH_TABLE) {
      out[x] = '?';
      continue;
    }
    char glyph = plain[t];
    if (joined[t] != '\0' && ((x > 0 && row[x - 1] < GLYPH_TABLE && joins[row[x - 1]]) ||
                              (x + 1 < width && row[x + 1] < GLYPH_TABLE && joins[row[x + 1]])))
      glyph = joined[t];
    out[x] = glyph;
  }
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
