/* Internal: the population pass every algorithm shares (per-room threat
 * budgets from a pacing curve, loot tiers from a heat map), run by
 * dg_generate after progression and before the metrics. See population.c
 * and docs/population.md. */
#ifndef DUNGEON_POPULATION_H
#define DUNGEON_POPULATION_H

#include "dungeon/level.h"
#include "dungeon/rng.h"

/* Gives every room of `level` a threat budget, a loot heat, tier and share
 * of params.loot, and reports the curve achieved (level->population).
 * Does nothing when params.population is false, so the level keeps its
 * bytes. Reads the placement (entrance and exit nodes, spawns) and the
 * progression (spheres, boss room) already on the level. With a content
 * table (level->population.table, set by dg_generate from params.table)
 * it then fills the budgets with entities (passes/entities.c), drawing
 * from `rng` (the level seed's population stream); the budgets never draw
 * from it. 0, or DG_ENOMEM with `err` filled. */
int dg_pass_population(dg_level *level, const dg_request *request, dg_rng *rng, dg_error *err);

#endif
