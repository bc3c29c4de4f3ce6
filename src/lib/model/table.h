/* Internal: a content table (docs/population.md, "Content tables"): the
 * encounters and loot a game gives the population pass to fill each room's
 * budgets with. Parsed and validated from JSON by json/tables_json.c, kept
 * read-only in a dg_context (model/context_tables.c), borrowed by a level
 * for the length of its generation (dg_population.table). */
#ifndef DUNGEON_TABLE_H
#define DUNGEON_TABLE_H

#include "dungeon/context.h"
#include "dungeon/digest.h"
#include "dungeon/level.h"

#define DG_TABLE_ENTRIES_MAX 4096  /* encounters, and loot entries, one table may hold */
#define DG_TABLE_COST_MAX 100000   /* an encounter's cost in threat points */
#define DG_TABLE_WEIGHT_MAX 100000 /* so 4096 weights sum below 2^32 */
#define DG_TABLE_FOOTPRINT_MAX 16  /* an encounter's width and height in tiles */

/* One encounter: a group of monsters a room's threat budget pays for. */
typedef struct dg_table_encounter {
  char id[DG_ENTITY_ENTRY_MAX]; /* unique among the table's encounters */
  int cost;                     /* threat points, 1..DG_TABLE_COST_MAX */
  int min, max;                 /* the difficulty window it appears in, 0..100 */
  int weight;                   /* relative odds among the eligible, 1..DG_TABLE_WEIGHT_MAX */
  int width, height;            /* footprint in tiles, 1..DG_TABLE_FOOTPRINT_MAX */
  int tag_count;                /* tags it had (validated; entities do not carry them) */
} dg_table_encounter;

/* One loot entry: an item a room of its tier may hold. */
typedef struct dg_table_loot {
  char id[DG_ENTITY_ENTRY_MAX]; /* unique among the table's loot */
  int tier;                     /* 0..DG_LOOT_TIER_MAX */
  int weight;                   /* relative odds within the tier, 1..DG_TABLE_WEIGHT_MAX */
  int id_size;                  /* strlen(id) + 1: what an entity copies */
} dg_table_loot;

/* One encounter as the population pass's picks read it, in cost order:
 * the fields they need, contiguous, instead of the wide entries through
 * an index (that indirection showed in classic's profile). */
typedef struct dg_table_pick {
  int cost;          /* threat points */
  int min, max;      /* the difficulty window */
  int width, height; /* footprint */
  int weight;        /* relative odds */
  const char *id;    /* the entry's id (inside encounters, which never move) */
  int id_size;       /* strlen(id) + 1: what an entity copies */
} dg_table_pick;

typedef struct dg_table {
  char name[DG_TABLE_NAME_MAX];    /* what params.table names */
  char sha256[DG_SHA256_HEX_SIZE]; /* of the file's canonical JSON */
  dg_table_encounter *encounters;  /* encounter_count, in file order */
  int *by_cost;                    /* encounter indices, cheapest first, ties in file order */
  dg_table_pick *picks;            /* encounter_count, in by_cost's order */
  int encounter_count;
  dg_table_loot *loot; /* loot_count, in file order */
  int loot_count;
  /* The loot grouped by tier once at load (it does not depend on the
   * request): loot_by_tier[tier_first[t] .. tier_first[t + 1]) is tier t,
   * in file order (the walk of a pick), and tier_weight[t] their weights
   * summed. loot_sum[k] is the weight of loot_by_tier[0 .. k) (loot_count +
   * 1 running sums), so a pick in tier t is a search between
   * loot_sum[tier_first[t]] and loot_sum[tier_first[t + 1]], not a walk of
   * the tier's entries. */
  const dg_table_loot **loot_by_tier;
  uint32_t *loot_sum;
  int tier_first[DG_LOOT_TIER_MAX + 2];
  uint32_t tier_weight[DG_LOOT_TIER_MAX + 1];
} dg_table;

/* Frees a table. NULL is a no-op. */
void dg_table_free(dg_table *table);

/* The loaded table called `name`, or NULL. */
const dg_table *dg_context_find_table(const dg_context *context, const char *name);

/* Adds a parsed table (ownership passes to the context, also on failure).
 * 0, or DG_EINVAL (the name is taken, field "name") / DG_ENOMEM. */
int dg_context_add_parsed_table(dg_context *context, dg_table *table, dg_error *err);

/* Frees the tables a context holds (dg_context_free calls it). */
void dg_context_close_tables(dg_context *context);

#endif
