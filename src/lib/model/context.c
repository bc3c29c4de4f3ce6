/* The context's lifecycle (dungeon/context.h): an empty context, and
 * freeing one with everything loaded into it. What a context holds is in
 * model/context_internal.h; loading and reading room sets, the authored
 * generator's data, is in authored/context_roomsets.c; content tables, the
 * population pass's, in model/context_tables.c. */
#include <stdlib.h>

#include "dungeon/context.h"
#include "model/context_internal.h"
#include "model/table.h"

int dg_context_new(dg_context **out) {
  dg_context *context = calloc(1, sizeof *context);
  if (context == NULL)
    return DG_ENOMEM;
  *out = context;
  return 0;
}

void dg_context_free(dg_context *context) {
  if (context != NULL) {
    if (context->release != NULL)
      context->release(context);
    /* Tables are the model's own data, not a generator's. */
    dg_context_close_tables(context);
  }
  free(context);
}
