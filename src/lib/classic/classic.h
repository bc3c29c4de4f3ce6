/* Internal state of one `classic` generation (seed 000): the map being
 * dug, the rooms, connectivity bookkeeping, and scratch buffers. Shared by
 * the files of src/lib/classic/ only. */
#ifndef DUNGEON_CLASSIC_H
#define DUNGEON_CLASSIC_H

#include <stdint.h>

#include "core/arena.h"
#include "dungeon/cancel.h"
#include "dungeon/level.h"
#include "dungeon/rng.h"

/* Parameter indices: the order of the table in classic.c. */
enum classic_param {
  CLASSIC_P_WIDTH,
  CLASSIC_P_HEIGHT,
  CLASSIC_P_ROOMS_MIN,
  CLASSIC_P_ROOMS_MAX,
  CLASSIC_P_ROOM_WIDTH_MIN,
  CLASSIC_P_ROOM_WIDTH_MAX,
  CLASSIC_P_ROOM_HEIGHT_MIN,
  CLASSIC_P_ROOM_HEIGHT_MAX,
  CLASSIC_P_ROOM_GAP,
  CLASSIC_P_PLACEMENT_ATTEMPTS,
  CLASSIC_P_CORRIDOR_STYLE,
  CLASSIC_P_CLOSET_CHANCE,
  CLASSIC_P_CLOSET_STONE_CHANCE,
  CLASSIC_P_SECRET_DOOR_CHANCE,
  CLASSIC_P_COMMON, /* the common parameters (DG_COMMON_PARAM_DEFS) */
  CLASSIC_P_COUNT = CLASSIC_P_COMMON + DG_COMMON_PARAM_COUNT
};

enum { CLASSIC_STYLE_FOLLOW, CLASSIC_STYLE_CLEANUP, CLASSIC_STYLE_PLAIN };

/* One closet: three squares in a line from a corridor end (seed 000). */
typedef struct classic_closet {
  int x, y;    /* the corridor square it extends from */
  int dx, dy;  /* direction of the two added squares */
  bool sealed; /* middle square left as stone rather than secret corridor */
} classic_closet;

typedef struct classic_closets {
  classic_closet *items; /* owned */
  int count;
} classic_closets;

/* Where a closet may go: both ends of a corridor dug whole, each as the end
 * tile and its neighbour on the corridor. */
typedef struct classic_closet_site {
  int start, start_inner;
  int end, end_inner;
} classic_closet_site;

/* A path of tiles as indices y * width + x. */
typedef struct classic_path {
  int *cells;
  int count;
} classic_path;

typedef struct classic_state {
  dg_level *level;
  dg_grid *grid;
  const dg_params *params;
  dg_arena arena;
  dg_rng layout, connect, detail;
  int *parent;             /* union-find over tiles: walkable connectivity */
  int *room_of;            /* tile -> room index for floors and doors, else -1 */
  int *box_of;             /* tile -> room whose wall box (floor + walls) holds it, else -1 */
  uint32_t *stamp;         /* per-path visit marks (path loop removal) */
  int *stamp_index;        /* where on the current path a stamped tile is */
  uint32_t stamp_now;      /* current mark value */
  int *line;               /* scratch: the straight 4-connected line */
  classic_path path;       /* scratch: the routed corridor */
  classic_closets closets; /* closets made (moved into the level's extension) */
  int closet_capacity;
  classic_closet_site *sites; /* closet sites from corridors dug whole (arena) */
  int site_count, site_capacity;
  int64_t detours, intersections, tiles_dug, secret_doors, cleanup_removed;
} classic_state;

/* Tile helpers. */
static inline int cell_of(const dg_grid *grid, int x, int y) {
  return y * grid->width + x;
}

/* Makes a tile walkable with `tile` and joins it to its walkable
 * neighbours in the union-find. */
void classic_dig(classic_state *state, int x, int y, dg_tile tile);

/* True when (x, y) lies inside room r's wall box (walls included). */
bool classic_in_box(const dg_room *room, int x, int y);

/* Routes a corridor from (x0, y0) to (x1, y1): the straight line, walked
 * around every room box it meets (seed 000: "route the line around
 * intervening rooms"). Result in state->path. 0, or DG_EINTERNAL if an end
 * lies inside a room box (which room placement rules out). */
int classic_route(classic_state *state, int x0, int y0, int x1, int y1);

/* Joins every room into one connected set (seed 000's loop), polling
 * `cancel` between joins. 0, DG_ENOMEM, DG_ECANCELED or DG_ETIMEDOUT. */
int classic_join_rooms(classic_state *state, dg_cancel *cancel);

/* Builds the closets at the recorded sites where there is still space:
 * after all digging, so that nothing opens them later. 0 or DG_ENOMEM. */
int classic_make_closets(classic_state *state);

/* Removes unnecessary corridor squares until none is left (seed 000's
 * second proposal), polling `cancel` once per pass over the map. */
int classic_cleanup(classic_state *state, dg_cancel *cancel);

/* output.c: the closets (data: a classic_closets) as the level's extension
 * members, through the library's JSON writer. 0 or the writer's failure. */
struct dg_writer;
int classic_write_json(const void *data, struct dg_writer *w);

#endif
