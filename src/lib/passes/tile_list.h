/* Internal: the walkable tiles of a grid as a list, in padded coordinates
 * (a one-tile border of non-walkable tiles round the map, so that a
 * neighbour is a fixed offset with no bounds test), and the room of each.
 * Shared by the trace (trace.c) and the loop count (loops.c), which both
 * visit only these tiles: most of a map is stone. Pure functions of their
 * arguments; thread-safe on separate outputs. */
#ifndef DUNGEON_TILE_LIST_H
#define DUNGEON_TILE_LIST_H

#include <stdint.h>

#include "dungeon/level.h"

/* Walkable tiles of the grid (sixteen tested at a time). */
int dg_tile_list_count(const dg_grid *grid);

/* Sets walk[] (padded, row length `stride` = width + 2, zeroed by the
 * caller) to 1 on walkable tiles and lists them in reading order: the
 * padded index into padded[], y * width + x into flat[] unless it is
 * NULL (both with room for dg_tile_list_count's answer). Returns how
 * many. */
int dg_tile_list_fill(const dg_grid *grid, int stride, uint8_t *walk, int *padded, int *flat);

/* room_of[] (padded) on the `count` listed tiles from the level's rooms'
 * rectangles and then its doors (a door's room, -1 for none), for levels
 * that keep no tile -> room map; -1 on listed tiles in neither. */
void dg_tile_list_rooms(const dg_level *level, int stride, const uint8_t *walk, const int *padded,
                        int count, int *room_of);

#endif
