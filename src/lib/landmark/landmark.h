/* Internal state of one `landmark` generation (seed 001): the mask, the
 * rooms and their cells, the rock-cost field and the scratch the steps
 * share. Used by the files of src/lib/landmark/ only. */
#ifndef DUNGEON_LANDMARK_H
#define DUNGEON_LANDMARK_H

#include <stdint.h>

#include "core/arena.h"
#include "dungeon/cancel.h"
#include "dungeon/level.h"
#include "dungeon/rng.h"
#include "path/astar.h"

/* Parameter indices: the order of the table in landmark.c. */
enum landmark_param {
  LANDMARK_P_WIDTH,
  LANDMARK_P_HEIGHT,
  LANDMARK_P_MASK,
  LANDMARK_P_LANDMARKS_MIN,
  LANDMARK_P_LANDMARKS_MAX,
  LANDMARK_P_LANDMARK_STYLE,
  LANDMARK_P_LANDMARK_SIZE_MIN,
  LANDMARK_P_LANDMARK_SIZE_MAX,
  LANDMARK_P_LANDMARK_ATTEMPTS,
  LANDMARK_P_ROOM_CHANCE,
  LANDMARK_P_MEDIUM_CHANCE,
  LANDMARK_P_SMALL_SIZE_MIN,
  LANDMARK_P_SMALL_SIZE_MAX,
  LANDMARK_P_MEDIUM_SIZE_MIN,
  LANDMARK_P_MEDIUM_SIZE_MAX,
  LANDMARK_P_ROOM_GAP,
  LANDMARK_P_ROOMS_MAX,
  LANDMARK_P_TARGET_DEGREE,
  LANDMARK_P_TURN_PENALTY,
  LANDMARK_P_EXACT_TURNS,
  LANDMARK_P_HEURISTIC_WEIGHT,
  LANDMARK_P_PERIMETER_PENALTY,
  LANDMARK_P_DOOR_COST,
  LANDMARK_P_TUNNEL_COST,
  LANDMARK_P_ROCK_BASE,
  LANDMARK_P_ROCK_WEIGHT,
  LANDMARK_P_ROCK_SCALE,
  LANDMARK_P_ROCK_OCTAVES,
  LANDMARK_P_COMMON, /* the common parameters (DG_COMMON_PARAM_DEFS) */
  LANDMARK_P_COUNT = LANDMARK_P_COMMON + DG_COMMON_PARAM_COUNT
};

/* Mask shapes (seed 001: "box, cross, T-shaped, etc."); LANDMARK_MASK_RANDOM picks one. */
enum {
  LANDMARK_MASK_RANDOM,
  LANDMARK_MASK_BOX,
  LANDMARK_MASK_CROSS,
  LANDMARK_MASK_T,
  LANDMARK_MASK_L,
  LANDMARK_MASK_RING,
  LANDMARK_MASK_COUNT
};

/* Landmark painters (seed 001, step 0, and the ones it plans). */
enum {
  LANDMARK_STYLE_RANDOM,
  LANDMARK_STYLE_RECTANGLES,
  LANDMARK_STYLE_ROUND,
  LANDMARK_STYLE_CAVERN,
  LANDMARK_STYLE_COUNT
};

#define LANDMARK_RECTS_MAX 6

/* How one landmark room was painted, for the level JSON. */
typedef struct landmark_shape {
  int room;       /* index into level->rooms */
  int style;      /* LANDMARK_STYLE_RECTANGLES, LANDMARK_STYLE_ROUND or LANDMARK_STYLE_CAVERN */
  int rect_count; /* rectangles (LANDMARK_STYLE_RECTANGLES) */
  int rects[LANDMARK_RECTS_MAX][4]; /* x, y, width, height in map tiles */
} landmark_shape;

/* What the level JSON gets besides the common members. */
typedef struct landmark_extension {
  int mask;            /* the MASK_* used */
  bool flip_x, flip_y; /* the mask mirrored left-right, top-bottom */
  int shape_count;     /* landmark rooms */
  landmark_shape shapes[2];
} landmark_extension;

typedef struct landmark_state {
  dg_level *level;              /* the level being made */
  dg_grid *grid;                /* its tiles */
  const dg_params *params;      /* effective parameters */
  dg_cancel *cancel;            /* polled between steps and every few rows/tunnels */
  dg_arena arena;               /* every per-generation array below */
  dg_rng shape;                 /* mask choice and landmark shapes */
  dg_rng layout;                /* landmark positions, room packing */
  dg_rng connect;               /* the random tile of each room */
  uint64_t seed;                /* the request's seed (noise field) */
  int width, height;            /* map size */
  long cells;                   /* width * height */
  uint8_t *inside;              /* 1 where the mask keeps the level */
  uint8_t *taken;               /* 1 on a placed room's floor or wall */
  int *room_of;                 /* floor (and wall) tile -> room index, else -1 */
  int *room_start;              /* room_count + 1 offsets into room_cells */
  int *room_cells;              /* every room's floor tiles, room by room */
  uint16_t *cost;               /* A* entry cost per tile (path/astar.h) */
  int *path;                    /* scratch: one tunnel */
  landmark_extension extension; /* copied into the level's extension */
  int64_t rooms_tried, landmark_attempts, tunnels_failed, tunnel_tiles, doors_made;
} landmark_state;

static inline int cell_at(const landmark_state *state, int x, int y) {
  return y * state->width + x;
}

/* Fills state->inside for the mask chosen by parameter or at random. */
void landmark_make_mask(landmark_state *state);

/* Seed 001, step 0: 0-2 landmark rooms. 0 or DG_ENOMEM. */
int landmark_place_landmarks(landmark_state *state);

/* Seed 001, step 1: medium and small rooms packed over the odd cells. */
int landmark_pack_rooms(landmark_state *state);

/* Walls round every floor, and the per-room cell lists. 0 or DG_ENOMEM. */
int landmark_finish_rooms(landmark_state *state);

/* Seed 001, steps 2 and 3: graph (Delaunay, MST, extra edges) and tunnels
 * dug along it by A* over the rock-cost field, with doors. */
int landmark_connect(landmark_state *state);

/* The names of the MASK_* and STYLE_* values (landmark.c's parameter
 * choices, NULL-terminated), also used by output.c. */
extern const char *const landmark_mask_names[];
extern const char *const landmark_style_names[];

/* output.c: the mask and landmarks (data: a landmark_extension) as the
 * level's extension members, through the library's JSON writer. 0 or the
 * writer's failure. */
struct dg_writer;
int landmark_write_json(const void *data, struct dg_writer *w);

#endif
