/* Internal: the placement pass every algorithm shares (stairs up and down,
 * player spawns), run by dg_generate between the generator and the
 * metrics. See placement.c and docs/level-format.md ("features"). */
#ifndef DUNGEON_PLACEMENT_H
#define DUNGEON_PLACEMENT_H

#include "dungeon/level.h"

/* Places the entrance, the exit and the spawns on `level` as its common
 * parameters ask (nothing when params.placement is false): fills
 * level->features and level->placement, writes the stairs onto the grid,
 * and when the stairs up are forced onto solid rock digs a connection and
 * adds it to the graph. Deterministic: draws only from the level seed's
 * placement stream. 0, DG_ENOMEM or DG_EUNSAT (no room for the stairs, or
 * forced stairs outside the map) with `err` filled. */
int dg_placement_run(dg_level *level, dg_error *err);

#endif
