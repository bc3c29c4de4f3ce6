/* Internal: the PCG32 step itself, inline, for the few hot loops that draw
 * often enough for dg_rng_next's call to show (the population pass's
 * picks). dg_rng_next (core/rng.c) is this same step, so both give the one
 * reference sequence that tests/unit/test_rng.c checks. */
#ifndef DUNGEON_RNG_STEP_H
#define DUNGEON_RNG_STEP_H

#include <stdint.h>

#include "dungeon/rng.h"

#define DG_PCG_MULTIPLIER 6364136223846793005ULL

/* The next 32-bit output of `rng` (pcg32_random_r), advancing it. */
static inline uint32_t dg_rng_step(dg_rng *rng) {
  uint64_t old = rng->state;
  rng->state = old * DG_PCG_MULTIPLIER + rng->inc;
  uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
  uint32_t rot = (uint32_t)(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

#endif
