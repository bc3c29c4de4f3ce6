/* Internal: growable arrays, the one `reserve` of the library. A vector is
 * a struct with `items`, `count` and `capacity` members (DG_VEC declares
 * one); it grows by doubling, so pushing n items costs O(n) copies and
 * O(log n) allocations. Arrays that share a count but not an element type
 * (parallel arrays) call dg_vec_grow on each. No I/O, no globals; a vector
 * belongs to whoever embeds it, so thread-safety is the owner's. */
#ifndef DUNGEON_CORE_VEC_H
#define DUNGEON_CORE_VEC_H

#include <stddef.h>
#include <stdlib.h>

#include "dungeon/error.h"

/* A vector of `type`: items[0 .. count) in use, room for capacity. */
#define DG_VEC(type)                                                                               \
  struct {                                                                                         \
    type *items;  /* owned, NULL until the first reserve */                                        \
    int count;    /* elements in use */                                                            \
    int capacity; /* elements allocated */                                                         \
  }

/* Grows the array whose pointer is stored at `items` (a `T **`, passed as
 * void * so that any element type works) to hold at least `needed`
 * elements of `size` bytes: capacity doubles from 64. 0 or DG_ENOMEM; on
 * failure the array and *capacity are unchanged. */
int dg_vec_grow(void *items, int *capacity, int needed, size_t size);

/* Room for `needed` elements in vector `v` (evaluated more than once). */
#define dg_vec_reserve(v, needed)                                                                  \
  dg_vec_grow(&(v)->items, &(v)->capacity, (needed), sizeof *(v)->items)

/* Appends one element (an expression of the element type, commas allowed)
 * to vector `v`. 0 or DG_ENOMEM. */
#define dg_vec_push(v, ...)                                                                        \
  (dg_vec_reserve((v), (v)->count + 1) != 0 ? DG_ENOMEM                                            \
                                            : ((v)->items[(v)->count++] = (__VA_ARGS__), 0))

/* Frees the items; the vector is empty and reusable afterwards. */
#define dg_vec_free(v)                                                                             \
  do {                                                                                             \
    free((v)->items);                                                                              \
    (v)->items = NULL;                                                                             \
    (v)->count = (v)->capacity = 0;                                                                \
  } while (0)

#endif
