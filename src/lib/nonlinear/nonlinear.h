/* Internal state of one `nonlinear` generation (seeds/002, "Pre-Connecting
 * Random Non-Linear Dungeons, SubMethod II"): the dice tables, the coarse
 * grid of areas the dungeon grows on, and the bookkeeping that turns rolls
 * into rooms, corridors and labelled points. Shared by the files of
 * src/lib/nonlinear/ and by tests/unit/test_nonlinear.c, which checks the
 * dice tables directly. */
#ifndef DUNGEON_NONLINEAR_H
#define DUNGEON_NONLINEAR_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "dungeon/level.h"
#include "dungeon/rng.h"

/* Parameter indices: the order of the table in nonlinear.c. */
enum nl_param {
  NL_P_WIDTH,
  NL_P_HEIGHT,
  NL_P_AREA_WIDTH,
  NL_P_AREA_HEIGHT,
  NL_P_METHOD,
  NL_P_THRESHOLD,
  NL_P_ROOMS,
  NL_P_START_EXITS,
  NL_P_ROOM_EXITS_MAX,
  NL_P_SUBLEVEL_CHANCE,
  NL_P_ROOM_TABLE,
  NL_P_COMMON, /* the common parameters (DG_COMMON_PARAM_DEFS) */
  NL_P_COUNT = NL_P_COMMON + DG_COMMON_PARAM_COUNT
};

/* How a corridor's destination is rolled (seed 002). */
enum { NL_METHOD_CLOCK, NL_METHOD_GRID };

/* What the d10 finds in an unmapped area (seed 002). */
typedef enum nl_area_roll { NL_DEAD_END, NL_JUNCTION, NL_ROOM } nl_area_roll;

#define NL_ROOM_TABLE_MAX 12

/* One line of the room size and shape table. */
typedef struct nl_room_entry {
  int width, height; /* floor extent in tiles before clamping to the area */
  bool cross;        /* floor corners cut away: a plus-shaped room */
} nl_room_entry;

typedef struct nl_room_table {
  nl_room_entry entries[NL_ROOM_TABLE_MAX]; /* rolled with a d(count) */
  int count;                                /* 1..NL_ROOM_TABLE_MAX */
} nl_room_table;

/* --- dice.c: the seed's tables, pure functions --- */

/* Sides of the destination die: 12 for the clock, 8 for the grid. */
int nl_destination_sides(int method);

/* The area offset (in areas) that destination `roll` (1..sides) names.
 * Clock: the twelve areas two steps away, 12 due north, 3 due east, 6 due
 * south, 9 due west. Grid: the eight neighbours, 1 north, clockwise. */
void nl_destination_offset(int method, int roll, int *dx, int *dy);

/* One destination roll: 1..12 (clock) or 1..8 (grid). */
int nl_roll_destination(dg_rng *dice, int method);

/* One d10 numbered 0..9, as the seed reads it ("on a 0"). */
int nl_roll_d10(dg_rng *dice);

/* What a d10 roll means: 0 a dead end, 1..threshold a junction, above it a
 * room. */
nl_area_roll nl_area_of_d10(int roll, int threshold);

/* Parses a room table such as "3x2_4x3_5x3c": entries WxH (cross-shaped
 * with a trailing c) separated by '_', 1 to NL_ROOM_TABLE_MAX of them, each
 * side 1 to 40. 0, or DG_EINVAL with `err` naming params.room_table. */
int nl_room_table_parse(const char *text, nl_room_table *table, dg_error *err);

/* --- grow.c: the generator proper --- */

/* Per-area record on the coarse grid. */
typedef struct nl_cell {
  int node;      /* graph node whose point lies here, or -1 */
  int edge;      /* graph edge whose corridor passes through, or -1 */
  uint8_t links; /* NL_NORTH...: directions a corridor leaves this centre */
} nl_cell;

enum { NL_NORTH = 1, NL_EAST = 2, NL_SOUTH = 4, NL_WEST = 8 };

/* What the designer reads about one point (parallel to the graph nodes). */
typedef struct nl_point {
  char label[DG_LABEL_MAX]; /* the node's label, copied when growth ends */
  const char *kind;         /* the node's kind (static), copied likewise */
  int cell;                 /* area index: row * columns + column */
  int owner;                /* number of the room whose corridors reached it */
  int d10;                  /* the d10 that made it, -1 if none (start, crossings) */
  int rolls[2];             /* a junction's two destination rolls, else -1 */
  const char *form;         /* static: "start", "room", "turn", "intersection",
                             * "crossing", "joined", "fork", "dead_end", "below",
                             * "above" */
  int shape_entry;          /* rooms: the room table line rolled (1-based), else 0 */
  int exits;                /* exits rolled from here */
} nl_point;

/* One exit waiting for its corridor. */
typedef struct nl_exit {
  int node; /* where the corridor starts */
  int roll; /* its destination roll */
} nl_exit;

/* The extension data a nonlinear level carries (JSON and legend). */
typedef struct nl_extension {
  int method;        /* NL_METHOD_* */
  int columns, rows; /* areas */
  int area_width, area_height;
  int origin_x, origin_y; /* top-left tile of area (0, 0) */
  nl_room_table table;    /* the room table in use */
  nl_point *points;       /* one per graph node, owned */
  int point_count;
} nl_extension;

typedef struct nl_state {
  dg_level *level;
  const dg_params *params;
  dg_arena arena;
  dg_rng dice;     /* destination rolls, d10, junction rolls */
  dg_rng layout;   /* room table rolls and exit counts */
  dg_rng crossing; /* sublevel chance and its direction */
  int method, threshold, rooms_target, start_exits, room_exits_max;
  double sublevel_chance;
  nl_room_table table;
  int columns, rows, area_width, area_height, origin_x, origin_y;
  nl_cell *cells;    /* columns * rows */
  nl_point *points;  /* one per graph node; at most one node per area */
  int *corner;       /* per graph edge: the area where its corridor turns */
  int edge_capacity; /* entries in corner */
  int *letters;      /* per room number: sub-point letters handed out */
  nl_exit *queue;    /* exits, first in first out */
  int queue_head, queue_tail, queue_capacity;
  int *pending; /* scratch: areas entered by the corridor being dug */
  int pending_count;
  int64_t exits_rolled, exits_merged, exits_off_map, joins, forks, crossings, sublevels;
  int64_t exits_reopened; /* exits rooms rolled again after every exit was spent */
  int64_t d10_counts[3], turns, intersections;
} nl_state;

/* Grows the whole dungeon from the start room (seed 002's procedure), into
 * state->level's grid, rooms, doors and graph. 0, DG_ENOMEM, DG_ECANCELED or
 * DG_ETIMEDOUT. */
int nl_grow(nl_state *state, dg_cancel *cancel);

/* The centre tile of area `cell`. */
void nl_cell_centre(const nl_state *state, int cell, int *x, int *y);

/* The names of the NL_METHOD_* values (nonlinear.c's parameter choices,
 * NULL-terminated), also used by output.c. */
extern const char *const nl_method_names[];

/* output.c, the level's extension (data: an nl_extension): its members of
 * the level JSON through the library's JSON writer (0 or the writer's
 * failure), and the legend under the ASCII map (dg_level_extension's
 * to_text: a malloc'd string in *text; 0 or DG_ENOMEM). */
struct dg_writer;
int nl_write_json(const void *data, struct dg_writer *w);
int nl_write_text(const dg_level *level, char **text);

#endif
