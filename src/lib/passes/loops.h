/* Internal: metrics.cycles for a grid level, counted on the tiles in one
 * pass instead of from the graph the trace would build. */
#ifndef DUNGEON_LOOPS_H
#define DUNGEON_LOOPS_H

#include "dungeon/level.h"

/* The independent loops (edges - vertices + components) of the graph
 * dg_trace_graph would build from the grid as it is now with
 * level->room_of (NULL: the rooms' rectangles and doors), into *cycles,
 * without building that graph or touching the level; and unless
 * grid_part is NULL the grid part of the metrics into it (what
 * dg_trace_cycles_grid gives). dg_trace_cycles is its test oracle.
 * 0, DG_ENOMEM, or DG_EINTERNAL when room_of names a room the level does
 * not have. Thread-safe on separate levels. */
int dg_grid_loops(const dg_level *level, int *cycles, dg_metrics *grid_part);

#endif
