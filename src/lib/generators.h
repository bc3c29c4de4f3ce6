/* Internal: the algorithm descriptors that registry.c lists. Each generator
 * defines exactly one of these in its own file. */
#ifndef DUNGEON_GENERATORS_H
#define DUNGEON_GENERATORS_H

#include "dungeon/algorithm.h"

extern const dg_algorithm dg_algorithm_classic;
extern const dg_algorithm dg_algorithm_nonlinear;
extern const dg_algorithm dg_algorithm_landmark;
extern const dg_algorithm dg_algorithm_authored;

#endif
