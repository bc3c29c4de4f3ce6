/* Internal: what a dg_context holds. Only the library sees the layout. */
#ifndef DUNGEON_CONTEXT_INTERNAL_H
#define DUNGEON_CONTEXT_INTERNAL_H

#include "dungeon/context.h"

struct authored_roomset;
struct dg_table;

struct dg_context {
  int roomset_count;                  /* loaded room sets (the authored generator's) */
  int roomset_capacity;               /* allocated entries in roomsets */
  struct authored_roomset **roomsets; /* owned, in load order */
  /* Frees what a generator loaded into the context, set by the loader (the
   * authored generator's room sets): the model knows no generator. NULL
   * while the context holds nothing. */
  void (*release)(dg_context *context);
  int table_count;          /* loaded content tables (the population pass's, model/table.h) */
  int table_capacity;       /* allocated entries in tables */
  struct dg_table **tables; /* owned, in load order */
};

/* Frees the room sets a context holds (dg_context_free calls it). */
void dg_context_close_roomsets(dg_context *context);

/* Precomputes a parsed, validated room set's moves and pattern database,
 * making it a dg_roomset. 0, or DG_ENOMEM with `err` set and the set
 * freed. Thread-safe: touches only `set`. */
int authored_roomset_precompute(struct authored_roomset *set, dg_error *err);

/* The loaded room set called `name`, or NULL. */
const struct authored_roomset *dg_context_find_roomset(const dg_context *context, const char *name);

#endif
