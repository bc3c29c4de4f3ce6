/* Internal: the progression pass every algorithm shares (locks, keys,
 * one-way doors, room roles and the witness), run by dg_generate between
 * placement and the metrics. See progression.c and docs/progression.md. */
#ifndef DUNGEON_PROGRESSION_H
#define DUNGEON_PROGRESSION_H

#include "dungeon/level.h"
#include "dungeon/rng.h"

/* Places params.locks locked doors with their keys and params.one_way
 * one-way doors on `level` (fewer when the level cannot hold them, saying
 * why in level->progression), gives every room and graph node a role, and
 * records the witness. Does nothing when both counts are 0, so the level
 * keeps its bytes. Draws only from `rng` (the level seed's progression
 * stream). 0, or DG_ENOMEM / DG_EINTERNAL with `err` filled. */
int dg_pass_progression(dg_level *level, const dg_request *request, dg_rng *rng, dg_error *err);

#endif
