/* Internal: the content picks of the population pass (docs/population.md,
 * "Entities"): a content table's encounters and loot placed into the
 * budgets the pass computed. See entities.c. */
#ifndef DUNGEON_ENTITIES_H
#define DUNGEON_ENTITIES_H

#include "dungeon/level.h"
#include "dungeon/rng.h"
#include "model/table.h"

/* Loot points a room's share pays per loot entity, and the most loot
 * entities one room gets (docs/population.md). */
#define DG_LOOT_POINTS_PER_ITEM 25
#define DG_LOOT_ITEMS_MAX 8

/* Fills the threat budget and loot share of every room of `level` (whose
 * population budgets are computed) with weighted picks from `table`
 * (borrowed), drawing only from `rng` (the population stream), and appends
 * the entities to level->population. A budget it cannot fill is reported
 * in the room (`unfilled`), never an error. 0 or DG_ENOMEM. */
int dg_population_fill(dg_level *level, const dg_table *table, dg_rng *rng);

#endif
