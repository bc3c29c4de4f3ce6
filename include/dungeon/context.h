/* Read-only resources shared by every generation: loaded room sets and what
 * is precomputed from them. Built once at start-up (by the daemon or CLI,
 * which do the file I/O and pass parsed JSON in through
 * dg_context_add_roomset, declared with the other JSON entry points in
 * dungeon/json.h), then only read: a context may be used by any number of
 * threads at once once built.
 *
 * Room sets are the authored generator's data (seeds/003, docs/
 * roomset-format.md): hand-built rooms with connectors. Adding one validates
 * it and precomputes its moves (every room, connector and rotation) and
 * their geometric groups.
 *
 * Content tables are the population pass's data (docs/population.md): the
 * encounters and loot a game fills rooms with, added through
 * dg_context_add_table. */
#ifndef DUNGEON_CONTEXT_H
#define DUNGEON_CONTEXT_H

#include <stdint.h>

#include "dungeon/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_context dg_context;

/* A room set validated and precomputed (dg_roomset_prepare in
 * dungeon/json.h), not yet in any context. */
typedef struct dg_roomset dg_roomset;

/* Figures of one loaded room set, as `dungeon check` and GET /v1/roomsets
 * report them. Strings point into the context and live as long as it. */
typedef struct dg_roomset_info {
  const char *name;        /* what a request's `roomset` parameter names */
  const char *biome;       /* the building style */
  int rooms;               /* rooms in the set */
  int connectors;          /* connectors over all rooms */
  int shims;               /* rooms tagged "shim" */
  int moves;               /* room x entry connector x 4 rotations, before grouping */
  int move_groups;         /* moves after grouping by geometry */
  int table_states;        /* states in the cycle search's pattern database */
  int64_t table_bytes;     /* memory of that table */
  uint64_t table_build_ns; /* wall-clock time building it took at load */
  const char *sha256;      /* digest of the set's canonical JSON, as levels name it */
} dg_roomset_info;

#define DG_TABLE_NAME_MAX 64 /* bytes of a content table's name, NUL included */

/* Figures of one loaded content table (docs/population.md), as GET
 * /v1/tables reports them. Strings point into the context. */
typedef struct dg_table_info {
  const char *name;   /* what a request's `table` parameter names */
  int encounters;     /* encounter entries */
  int loot;           /* loot entries */
  const char *sha256; /* digest of the table's canonical JSON */
} dg_table_info;

/* Allocates an empty context into *out. The caller owns it. 0 or DG_ENOMEM. */
int dg_context_new(dg_context **out);

/* Frees the context and everything loaded into it. NULL is a no-op. Must not
 * run while a generation still uses it. */
void dg_context_free(dg_context *context);

/* Number of loaded room sets. */
int dg_context_roomset_count(const dg_context *context);

/* Figures of loaded room set `index` (0 .. count - 1, in load order) into
 * *info. 0 or DG_EINVAL for a bad index. */
int dg_context_roomset_info(const dg_context *context, int index, dg_roomset_info *info);

/* Adds a prepared room set to `context`, which takes it (also on failure):
 * the cheap half of dg_context_add_roomset, run in the order the sets
 * should be listed. 0, DG_EINVAL (a set of that name is loaded; field
 * "name") or DG_ENOMEM. Not thread-safe: call before sharing the context. */
int dg_context_adopt_roomset(dg_context *context, dg_roomset *set, dg_error *err);

/* Frees a prepared room set that was not adopted. NULL is ignored. */
void dg_roomset_free(dg_roomset *set);

/* Number of loaded content tables. */
int dg_context_table_count(const dg_context *context);

/* Figures of loaded table `index` (0 .. count - 1, in load order) into
 * *info. 0 or DG_EINVAL for a bad index. */
int dg_context_table_info(const dg_context *context, int index, dg_table_info *info);

#ifdef __cplusplus
}
#endif
#endif
