/* Growable arrays (vec.h). */
#include "vec.h"

#include <string.h>

#define VEC_FIRST_CAPACITY 64

int dg_vec_grow(void *items, int *capacity, int needed, size_t size) {
  if (needed <= *capacity)
    return 0;
  int grown = *capacity > 0 ? *capacity : VEC_FIRST_CAPACITY;
  while (grown < needed) {
    if (grown > (1 << 29))
      return DG_ENOMEM; /* doubling again would overflow int */
    grown *= 2;
  }
  /* The pointer is copied in and out rather than accessed through a
   * void **, which would alias a T * as a void *. */
  void *old;
  memcpy(&old, items, sizeof old);
  void *bigger = realloc(old, (size_t)grown * size);
  if (bigger == NULL)
    return DG_ENOMEM;
  memcpy(items, &bigger, sizeof bigger);
  *capacity = grown;
  return 0;
}
