/* Internal: the content picks of the population pass (docs/population.md,
 * "Entities"): a content table's encounters and loot placed into the
 * budgets the pass computed. See entities.c. */
#ifndef DUNGEON_ENTITIES_H
#define DUNGEON_ENTITIES_H

#include <stddef.h>

#include "dungeon/level.h"
#include "dungeon/rng.h"
#include "model/table.h"

/* Loot points a room's share pays per loot entity, and the most loot
 * entities one room gets (docs/population.md). */
#define DG_LOOT_POINTS_PER_ITEM 25
#define DG_LOOT_ITEMS_MAX 8

/* Bytes of scratch dg_population_fill needs for `level` and `table`
 * (0 for a level without a grid). */
size_t dg_population_fill_bytes(const dg_level *level, const dg_table *table);

/* Fills the threat budget and loot share of every room of `level` (whose
 * population budgets are computed) with weighted picks from `table`
 * (borrowed), drawing only from `rng` (the population stream), and appends
 * the entities to level->population. `scratch` (borrowed, 8-byte aligned)
 * holds dg_population_fill_bytes: the caller allocates it with its own
 * scratch, one allocation per level. A budget it cannot fill is reported
 * in the room (`unfilled`), never an error. 0 or DG_ENOMEM. */
int dg_population_fill(dg_level *level, const dg_table *table, dg_rng *rng, void *scratch);

#endif
