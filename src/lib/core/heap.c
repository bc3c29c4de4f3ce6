/* Binary heap of key-value entries. The insertion counter in the low 24 bits
 * of each key makes equal priorities pop in push order, so searches do not
 * depend on the heap's internal layout. */
#include "core/heap.h"

#include <stdlib.h>

#include "dungeon/error.h"

#define COUNTER_BITS 24u
#define COUNTER_MASK ((1u << COUNTER_BITS) - 1u)

int dg_heap_init(dg_heap *heap, size_t capacity) {
  heap->entries = NULL;
  heap->count = 0;
  heap->capacity = 0;
  heap->counter = 0;
  if (capacity == 0)
    return 0;
  heap->entries = malloc(capacity * sizeof *heap->entries);
  if (heap->entries == NULL)
    return DG_ENOMEM;
  heap->capacity = capacity;
  return 0;
}

void dg_heap_close(dg_heap *heap) {
  free(heap->entries);
  heap->entries = NULL;
  heap->count = heap->capacity = 0;
}

void dg_heap_clear(dg_heap *heap) {
  heap->count = 0;
  heap->counter = 0;
}

int dg_heap_grow(dg_heap *heap) {
  size_t capacity = heap->capacity != 0 ? heap->capacity * 2 : 64;
  dg_heap_entry *entries = realloc(heap->entries, capacity * sizeof *entries);
  if (entries == NULL)
    return DG_ENOMEM;
  heap->entries = entries;
  heap->capacity = capacity;
  return 0;
}

int dg_heap_push(dg_heap *heap, uint64_t priority, uint32_t value) {
  return dg_heap_push_key(heap, (priority << COUNTER_BITS) | (heap->counter++ & COUNTER_MASK),
                          value);
}

bool dg_heap_pop(dg_heap *heap, uint64_t *priority, uint32_t *value) {
  uint64_t key = 0;
  if (!dg_heap_pop_key(heap, &key, value))
    return false;
  if (priority != NULL)
    *priority = key >> COUNTER_BITS;
  return true;
}
