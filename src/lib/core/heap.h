/* Internal: binary min-heap of (priority, value) pairs over two packed arrays.
 *
 * Used by path-finders and growth queues; a heap is cleared and reused
 * between searches so that pushing allocates only when it outgrows every
 * earlier search. Ties are broken by insertion order (a 24-bit counter: past
 * 2^24 pushes since the last clear the order among ties wraps, still
 * deterministically). Not thread-safe: one heap per thread. */
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

/* Doubles the heap's arrays (used by dg_heap_push_key when full). Returns
 * 0 or DG_ENOMEM (-2), the heap unchanged on failure. */
int dg_heap_grow(dg_heap *heap);

/* Like dg_heap_push, but `key` is stored as given (all 64 bits) with no
 * insertion counter: callers that build a total order into their keys (A*'s
 * f, then larger g) use these. Do not mix with dg_heap_push on one heap
 * between clears. Inline because path-finders call it in their innermost
 * loop. Returns 0 or DG_ENOMEM. */
static inline int dg_heap_push_key(dg_heap *heap, uint64_t key, uint32_t value) {
  if (heap->count == heap->capacity) {
    int rc = dg_heap_grow(heap);
    if (rc != 0)
      return rc;
  }
  uint64_t *priorities = heap->priorities;
  uint32_t *values = heap->values;
  size_t at = heap->count++;
  while (at > 0) {
    size_t parent = (at - 1) / 2;
    if (priorities[parent] <= key)
      break;
    priorities[at] = priorities[parent];
    values[at] = values[parent];
    at = parent;
  }
  priorities[at] = key;
  values[at] = value;
  return 0;
}

/* Removes the entry with the smallest raw key into the out-parameters
 * (either may be NULL). False when empty. */
static inline bool dg_heap_pop_key(dg_heap *heap, uint64_t *out_key, uint32_t *value) {
  if (heap->count == 0)
    return false;
  uint64_t *priorities = heap->priorities;
  uint32_t *values = heap->values;
  if (out_key != NULL)
    *out_key = priorities[0];
  if (value != NULL)
    *value = values[0];
  size_t count = --heap->count;
  uint64_t key = priorities[count];
  uint32_t payload = values[count];
  size_t at = 0;
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= count)
      break;
    /* The smaller child, the left one on a tie, by arithmetic: which one
     * it is cannot be predicted, and a mispredicted branch here cost more
     * than the rest of the step. */
    if (child + 1 < count)
      child += priorities[child + 1] < priorities[child];
    if (key <= priorities[child])
      break;
    priorities[at] = priorities[child];
    values[at] = values[child];
    at = child;
  }
  priorities[at] = key;
  values[at] = payload;
  return true;
}

#ifdef __cplusplus
}
#endif
#endif
