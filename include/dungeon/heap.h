/* Binary min-heap of (priority, value) pairs over two packed arrays.
 *
 * Used by path-finders and growth queues; a heap is cleared and reused
 * between searches so that pushing allocates only when it outgrows every
 * earlier search. Ties are broken by insertion order, which keeps every
 * search deterministic. Not thread-safe: one heap per thread. */
#ifndef DUNGEON_HEAP_H
#define DUNGEON_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_heap {
  uint64_t *priorities; /* priority << 24 | insertion counter, heap-ordered */
  uint32_t *values;     /* payload of each entry, parallel to priorities */
  size_t count;         /* entries in the heap */
  size_t capacity;      /* allocated entries */
  uint32_t counter;     /* insertion order used to break priority ties */
} dg_heap;

/* Prepares an empty heap with room for `capacity` entries (may be 0).
 * Returns 0 or DG_ENOMEM. */
int dg_heap_init(dg_heap *heap, size_t capacity);

/* Frees the arrays. Safe on a zeroed heap. */
void dg_heap_close(dg_heap *heap);

/* Empties the heap, keeping its memory. */
void dg_heap_clear(dg_heap *heap);

/* Adds `value` with `priority` (must be < 2^40). Returns 0 or DG_ENOMEM. */
int dg_heap_push(dg_heap *heap, uint64_t priority, uint32_t value);

/* Removes the entry with the smallest priority (earliest pushed among equals)
 * into the out-parameters (either may be NULL). False when empty. */
bool dg_heap_pop(dg_heap *heap, uint64_t *priority, uint32_t *value);

/* Like dg_heap_push, but `key` is stored as given (all 64 bits) with no
 * insertion counter: callers that build a total order into their keys (A*'s
 * f, then larger g) use these. Do not mix with dg_heap_push on one heap
 * between clears. Returns 0 or DG_ENOMEM. */
int dg_heap_push_key(dg_heap *heap, uint64_t key, uint32_t value);

/* Removes the entry with the smallest raw key into the out-parameters
 * (either may be NULL). False when empty. */
bool dg_heap_pop_key(dg_heap *heap, uint64_t *key, uint32_t *value);

/* Makes room for `capacity` entries so that later pushes do not allocate.
 * Returns 0 or DG_ENOMEM. */
int dg_heap_reserve(dg_heap *heap, size_t capacity);

#ifdef __cplusplus
}
#endif
#endif
