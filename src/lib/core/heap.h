/* Internal: binary min-heap of (priority, value) pairs, side by side.
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

/* One entry: key and value side by side, so that comparing two children
 * and moving one touches one cache line, not one in each of two arrays
 * (the sift-down was A*'s hottest loop). */
typedef struct dg_heap_entry {
  uint64_t key;   /* priority << 24 | insertion counter, or a raw key (push_key) */
  uint32_t value; /* payload */
  uint32_t unused;
} dg_heap_entry;

typedef struct dg_heap {
  dg_heap_entry *entries; /* heap-ordered on key */
  size_t count;           /* entries in the heap */
  size_t capacity;        /* allocated entries */
  uint32_t counter;       /* insertion order used to break priority ties */
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
  dg_heap_entry *entries = heap->entries;
  size_t at = heap->count++;
  while (at > 0) {
    size_t parent = (at - 1) / 2;
    if (entries[parent].key <= key)
      break;
    entries[at] = entries[parent];
    at = parent;
  }
  entries[at] = (dg_heap_entry){key, value, 0};
  return 0;
}

/* Removes the entry with the smallest raw key into the out-parameters
 * (either may be NULL). False when empty. */
static inline bool dg_heap_pop_key(dg_heap *heap, uint64_t *out_key, uint32_t *value) {
  if (heap->count == 0)
    return false;
  dg_heap_entry *entries = heap->entries;
  if (out_key != NULL)
    *out_key = entries[0].key;
  if (value != NULL)
    *value = entries[0].value;
  size_t count = --heap->count;
  dg_heap_entry last = entries[count];
  size_t at = 0;
  for (;;) {
    size_t child = 2 * at + 1;
    if (child >= count)
      break;
    /* The smaller child, the left one on a tie, by arithmetic: which one
     * it is cannot be predicted, and a mispredicted branch here cost more
     * than the rest of the step. */
    if (child + 1 < count)
      child += entries[child + 1].key < entries[child].key;
    if (last.key <= entries[child].key)
      break;
    entries[at] = entries[child];
    at = child;
  }
  entries[at] = last;
  return true;
}

/* The smallest key in a non-empty heap, left in place. */
static inline uint64_t dg_heap_min_key(const dg_heap *heap) {
  return heap->entries[0].key;
}

#ifdef __cplusplus
}
#endif
#endif
