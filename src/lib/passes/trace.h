/* Internal: derives a level's connectivity graph from its grid, so that the
 * graph's connectivity is by construction the map's. Used by grid-based
 * generators after they finish painting. */
#ifndef DUNGEON_TRACE_H
#define DUNGEON_TRACE_H

#include "dungeon/level.h"

/* Rebuilds level->graph from level->grid: one "room" node per room (in room
 * order, so node i is room i), one "junction" node per 4-connected blob of
 * corridor tiles with three or more walkable neighbours or lying in a 2x2
 * block of corridor (a widened corner is one node), one "dead_end" node
 * per corridor tile with at most one, and a "corridor" edge for every chain
 * of two-neighbour tiles between them (its length in steps) or for two node
 * tiles side by side (length 1). `room_of` maps each tile to its room index or
 * -1; NULL derives it from the rooms' rectangles and the doors. Tiles that
 * belong to no room and are not walkable are ignored. From the same scan it
 * also computes the grid part of level->metrics and sets
 * level->grid_metrics_ready, so call it after the last change to the grid. 0, DG_ENOMEM, or
 * DG_EINTERNAL if a chain of two-neighbour tiles does not end in a node. */
int dg_trace_graph(dg_level *level, const int *room_of);

/* metrics.cycles for a grid level: the independent loops (edges - nodes +
 * components) of the graph dg_trace_graph would build from the grid as it
 * is now, with level->room_of (NULL: the rooms' rectangles and doors),
 * without touching the level. The metrics count them on the tiles in one
 * pass instead (loops.c); this, building the graph, is that count's test
 * oracle. 0, DG_ENOMEM or DG_EINTERNAL. */
int dg_trace_cycles(const dg_level *level, int *cycles);

/* dg_trace_cycles, and from the same scan the grid part of the metrics
 * into *grid_part unless NULL (what dg_trace_graph leaves in
 * level->metrics), so that a level whose generator did not trace its grid
 * is scanned once, not twice. Same errors. */
int dg_trace_cycles_grid(const dg_level *level, int *cycles, dg_metrics *grid_part);

#endif
