/* Internal: what a dg_context holds. Only the library sees the layout. */
#ifndef DUNGEON_CONTEXT_INTERNAL_H
#define DUNGEON_CONTEXT_INTERNAL_H

#include "dungeon/context.h"

struct dg_context {
  int roomset_count; /* loaded room sets (the authored generator's) */
};

#endif
