/* Internal: the population pass's part of the level JSON (the
 * `population` member), written by the level serialiser through its
 * writer. See docs/population.md. */
#ifndef DUNGEON_POPULATION_JSON_H
#define DUNGEON_POPULATION_JSON_H

#include "core/writer.h"
#include "dungeon/level.h"

/* Writes `,"population":{...}`: the parameters used, the farthest
 * distance, each room's budgets and why, the totals and the curve
 * achieved; with a content table each room's spending and then
 * `,"entities":[...]`. Only for a level whose population was placed. */
void dg_population_write_json(dg_writer *w, const dg_level *level);

#endif
