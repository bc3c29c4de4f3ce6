/* PCG32 (PCG-XSH-RR 64/32) exactly as the reference pcg32_random_r, plus the
 * few derived draws generators need. The published reference sequence for
 * seed 42, stream 54 is checked in tests/unit/test_rng.c. */
#include "dungeon/rng.h"

#include "core/rng_step.h"

uint32_t dg_rng_next(dg_rng *rng) {
  return dg_rng_step(rng);
}

void dg_rng_seed(dg_rng *rng, uint64_t seed, uint64_t stream) {
  rng->state = 0u;
  rng->inc = (stream << 1u) | 1u;
  dg_rng_next(rng);
  rng->state += seed;
  dg_rng_next(rng);
}

uint32_t dg_rng_below(dg_rng *rng, uint32_t bound) {
  if (bound == 0)
    return 0;
  /* The reference pcg32_boundedrand_r: reject the low 2^32 mod bound values
   * so that every residue is equally likely. */
  uint32_t threshold = (uint32_t)(-bound) % bound;
  for (;;) {
    uint32_t r = dg_rng_next(rng);
    if (r >= threshold)
      return r % bound;
  }
}

uint64_t dg_rng_below64(dg_rng *rng, uint64_t bound) {
  if (bound == 0)
    return 0;
  uint64_t hi = dg_rng_next(rng);
  uint64_t lo = dg_rng_next(rng);
  return (hi << 32 | lo) % bound;
}

int32_t dg_rng_range(dg_rng *rng, int32_t lo, int32_t hi) {
  if (hi <= lo)
    return lo;
  uint32_t span = (uint32_t)((int64_t)hi - (int64_t)lo + 1);
  return (int32_t)((int64_t)lo + dg_rng_below(rng, span));
}

double dg_rng_unit(dg_rng *rng) {
  return (double)dg_rng_next(rng) * (1.0 / 4294967296.0);
}

bool dg_rng_chance(dg_rng *rng, double p) {
  return dg_rng_unit(rng) < p;
}

int dg_rng_die(dg_rng *rng, int sides) {
  if (sides <= 1)
    return 1;
  return 1 + (int)dg_rng_below(rng, (uint32_t)sides);
}

uint64_t dg_mix64(uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}
