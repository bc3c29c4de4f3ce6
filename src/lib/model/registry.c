/* The table of generators. Adding an algorithm means one line here (and its
 * own file or folder); everything that lists or validates algorithms reads
 * this table. */
#include <string.h>

#include "dungeon/algorithm.h"
#include "generators.h"

/* The first is the default (dg_algorithm_default). */
static const dg_algorithm *const registry[] = {
    &dg_algorithm_classic,
    &dg_algorithm_landmark,
    &dg_algorithm_nonlinear,
    &dg_algorithm_authored,
};

const dg_algorithm *const *dg_algorithms(int *count) {
  *count = (int)(sizeof registry / sizeof registry[0]);
  return registry;
}

const dg_algorithm *dg_algorithm_find(const char *name) {
  if (name == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}

const dg_algorithm *dg_algorithm_default(void) {
  return registry[0];
}
