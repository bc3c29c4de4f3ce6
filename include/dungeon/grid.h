/* A rectangular map of tiles, one byte each, row-major.
 *
 * Grid-based generators paint into a dg_grid; the level's JSON rows and the
 * ASCII map are read from it. A tile's glyph and name are fixed once, in the
 * library's one legend table (dg_tile_name, dg_grid_glyph read it),
 * so that every algorithm and every renderer agrees on the legend. */
#ifndef DUNGEON_GRID_H
#define DUNGEON_GRID_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dg_tile {
  DG_TILE_STONE = 0,       /* solid rock: ' ' */
  DG_TILE_FLOOR,           /* room floor: '.' */
  DG_TILE_CORRIDOR,        /* corridor: '#' */
  DG_TILE_WALL,            /* room wall: '-' or '|' by orientation */
  DG_TILE_DOOR,            /* door: '+' */
  DG_TILE_SECRET_DOOR,     /* secret door: 'S' */
  DG_TILE_SECRET_CORRIDOR, /* secret corridor: '=' */
  DG_TILE_CHEST,           /* corridor square holding a chest: '(' */
  DG_TILE_STAIRS_UP,       /* stairs up: '<' */
  DG_TILE_STAIRS_DOWN,     /* stairs down: '>' */
  DG_TILE_VOID,            /* outside the level's shape (masks): '~' */
  /* The progression pass's tiles (docs/progression.md). They come last so
   * that the legend and the Tiled tileset of a level without them stay
   * what they were before the pass: DG_TILE_BASE_COUNT tiles. */
  DG_TILE_LOCKED_DOOR,   /* a door that opens with a key: 'L' */
  DG_TILE_KEY,           /* a floor tile holding a key: 'k' */
  DG_TILE_ONE_WAY_NORTH, /* a one-way door crossed only northwards (up the map): '^' */
  DG_TILE_ONE_WAY_EAST,  /* ... only eastwards: '}' */
  DG_TILE_ONE_WAY_SOUTH, /* ... only southwards: 'v' */
  DG_TILE_ONE_WAY_WEST,  /* ... only westwards: '{' */
  DG_TILE_COUNT
} dg_tile;

/* Tiles every level may hold; the progression tiles follow them. */
#define DG_TILE_BASE_COUNT DG_TILE_LOCKED_DOOR

/* True for the tiles only the progression pass writes. */
static inline bool dg_tile_progression(int tile) {
  return tile >= DG_TILE_BASE_COUNT && tile < DG_TILE_COUNT;
}

typedef struct dg_grid {
  int width;      /* columns, >= 1 */
  int height;     /* rows, >= 1 */
  uint8_t *tiles; /* width * height dg_tile values, row-major, owned */
} dg_grid;

/* Allocates a width x height grid of DG_TILE_STONE. Returns 0, DG_EINVAL
 * (a side below 1 or above 65535, or more than 2^26 cells) or DG_ENOMEM. */
int dg_grid_init(dg_grid *grid, int width, int height);

/* Frees the tiles; safe on a zeroed grid. */
void dg_grid_close(dg_grid *grid);

static inline bool dg_grid_contains(const dg_grid *grid, int x, int y) {
  return x >= 0 && y >= 0 && x < grid->width && y < grid->height;
}
static inline dg_tile dg_grid_get(const dg_grid *grid, int x, int y) {
  return (dg_tile)grid->tiles[(long)y * grid->width + x];
}
static inline void dg_grid_set(dg_grid *grid, int x, int y, dg_tile tile) {
  grid->tiles[(long)y * grid->width + x] = (uint8_t)tile;
}

/* The tiles for which dg_tile_walkable holds, as a bit mask by tile value. */
#define DG_TILE_WALKABLE_MASK                                                                      \
  ((1u << DG_TILE_FLOOR) | (1u << DG_TILE_CORRIDOR) | (1u << DG_TILE_DOOR) |                       \
   (1u << DG_TILE_SECRET_DOOR) | (1u << DG_TILE_SECRET_CORRIDOR) | (1u << DG_TILE_CHEST) |         \
   (1u << DG_TILE_STAIRS_UP) | (1u << DG_TILE_STAIRS_DOWN) | (1u << DG_TILE_LOCKED_DOOR) |         \
   (1u << DG_TILE_KEY) | (1u << DG_TILE_ONE_WAY_NORTH) | (1u << DG_TILE_ONE_WAY_EAST) |            \
   (1u << DG_TILE_ONE_WAY_SOUTH) | (1u << DG_TILE_ONE_WAY_WEST))

/* True for tiles a walker can stand on once secrets are found: floor,
 * corridor, doors, secret doors, secret corridors, chests, stairs, and the
 * progression's locked doors (once opened), keys and one-way doors (in
 * their direction). Connectivity metrics thus see the map's shape. Inline:
 * every flood fill and metric calls it per tile. */
static inline bool dg_tile_walkable(dg_tile tile) {
  return (unsigned)tile < 32u && ((DG_TILE_WALKABLE_MASK >> (unsigned)tile) & 1u) != 0;
}

/* The tile's lower-case name as it appears in the level legend ("stone",
 * "secret_corridor"...). Static string; "unknown" for bad values. */
const char *dg_tile_name(dg_tile tile);

/* The tile's glyph. Walls are '-' when a wall, door or secret door lies to
 * their left or right, '|' otherwise; so the glyph depends on (x, y). */
char dg_grid_glyph(const dg_grid *grid, int x, int y);

#ifdef __cplusplus
}
#endif
#endif
