/* The one random number generator of libdungeon: PCG32 (PCG-XSH-RR 64/32,
 * M. E. O'Neill, "PCG: A Family of Simple Fast Space-Efficient Statistically
 * Good Algorithms for Random Number Generation", 2014).
 *
 * A generator is seeded from the request's 64-bit seed and a stream id; two
 * streams with the same seed are independent sequences, so each purpose
 * (room placement, corridors, closets, ...) draws from its own stream and a
 * change to how one purpose consumes numbers does not shift the others. The
 * sequence is fixed by this file alone: no rand(), no time, no addresses. */
#ifndef DUNGEON_RNG_H
#define DUNGEON_RNG_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_rng {
  uint64_t state; /* current 64-bit LCG state */
  uint64_t inc;   /* stream increment, always odd */
} dg_rng;

/* Stream ids by purpose. Generators may use any other constant; these are
 * the shared ones. */
enum {
  DG_STREAM_LAYOUT = 1,      /* where rooms go and how large they are */
  DG_STREAM_CONNECT = 2,     /* which rooms are joined, and where */
  DG_STREAM_DETAIL = 3,      /* closets, chests, contents, decoration */
  DG_STREAM_SHAPE = 4,       /* masks, room shapes */
  DG_STREAM_NOISE = 5,       /* noise fields */
  DG_STREAM_DICE = 6,        /* tabletop dice rolls */
  DG_STREAM_CHOICE = 7,      /* weighted choices among candidates */
  DG_STREAM_PLACEMENT = 8,   /* stairs and spawns (the shared placement pass) */
  DG_STREAM_PROGRESSION = 9, /* locks, keys and one-way doors (the progression pass) */
  DG_STREAM_POPULATION = 10, /* budgets and content picks (the population pass) */
};

/* Seeds `rng` exactly as the reference pcg32_srandom_r(rng, seed, stream).
 * Thread-safe on distinct generators. */
void dg_rng_seed(dg_rng *rng, uint64_t seed, uint64_t stream);

/* Next uniformly distributed 32-bit value. */
uint32_t dg_rng_next(dg_rng *rng);

/* Uniform integer in [0, bound); bound 0 returns 0. Unbiased (rejection). */
uint32_t dg_rng_below(dg_rng *rng, uint32_t bound);

/* Integer in [0, bound) from 64 bits (two draws, the first the high
 * half), for bounds past 32 bits such as sums of spawn weights; bound 0
 * returns 0. The modulo bias is below bound / 2^64. */
uint64_t dg_rng_below64(dg_rng *rng, uint64_t bound);

/* Uniform integer in [lo, hi] (inclusive); returns lo when hi <= lo. */
int32_t dg_rng_range(dg_rng *rng, int32_t lo, int32_t hi);

/* Uniform double in [0, 1) with 32 bits of randomness. */
double dg_rng_unit(dg_rng *rng);

/* True with probability p (p <= 0 never, p >= 1 always, one draw always). */
bool dg_rng_chance(dg_rng *rng, double p);

/* One roll of an n-sided die numbered 1..n (n >= 1). */
int dg_rng_die(dg_rng *rng, int sides);

/* SplitMix64 finaliser: mixes a 64-bit value; used to derive seeds. Pure. */
uint64_t dg_mix64(uint64_t value);

#ifdef __cplusplus
}
#endif
#endif
