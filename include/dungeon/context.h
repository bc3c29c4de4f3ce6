/* Read-only resources shared by every generation: loaded room sets and what
 * is precomputed from them. Built once at start-up (by the daemon or CLI,
 * which do the file I/O and pass parsed JSON in), then only read: a context
 * may be used by any number of threads at once once built. */
#ifndef DUNGEON_CONTEXT_H
#define DUNGEON_CONTEXT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_context dg_context;

/* Allocates an empty context into *out. The caller owns it. 0 or DG_ENOMEM. */
int dg_context_new(dg_context **out);

/* Frees the context and everything loaded into it. NULL is a no-op. Must not
 * run while a generation still uses it. */
void dg_context_free(dg_context *context);

#ifdef __cplusplus
}
#endif
#endif
