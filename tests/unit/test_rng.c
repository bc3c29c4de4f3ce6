/* PCG32: the reference implementation's published sequence, stream
 * independence, and the derived draws' ranges and fairness. */
#include <criterion/criterion.h>
#include <math.h>

#include "dungeon/rng.h"

/* pcg32-global-demo (pcg-c-basic), seeded with initstate 42, initseq 54:
 * its first six 32-bit outputs. */
Test(rng, reference_vectors) {
  static const uint32_t expected[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                       0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
  dg_rng rng;
  dg_rng_seed(&rng, 42u, 54u);
  for (int i = 0; i < 6; i++)
    cr_assert_eq(dg_rng_next(&rng), expected[i], "output %d: 0x%08x", i, expected[i]);
}

Test(rng, same_seed_same_sequence) {
  dg_rng a, b;
  dg_rng_seed(&a, 123456789u, DG_STREAM_LAYOUT);
  dg_rng_seed(&b, 123456789u, DG_STREAM_LAYOUT);
  for (int i = 0; i < 1000; i++)
    cr_assert_eq(dg_rng_next(&a), dg_rng_next(&b));
}

Test(rng, streams_differ) {
  dg_rng a, b;
  dg_rng_seed(&a, 7u, DG_STREAM_LAYOUT);
  dg_rng_seed(&b, 7u, DG_STREAM_CONNECT);
  int equal = 0;
  for (int i = 0; i < 1000; i++)
    equal += dg_rng_next(&a) == dg_rng_next(&b);
  cr_assert_lt(equal, 3, "streams of one seed must not track each other");
}

Test(rng, range_inclusive_and_fair) {
  dg_rng rng;
  dg_rng_seed(&rng, 99u, 1u);
  int counts[7] = {0};
  const int draws = 70000;
  for (int i = 0; i < draws; i++) {
    int v = dg_rng_range(&rng, -3, 3);
    cr_assert(v >= -3 && v <= 3, "value %d outside [-3, 3]", v);
    counts[v + 3]++;
  }
  /* Chi-square with 6 degrees of freedom; 22.46 is the 0.001 quantile. */
  double chi = 0;
  for (int i = 0; i < 7; i++) {
    double expected = draws / 7.0;
    chi += (counts[i] - expected) * (counts[i] - expected) / expected;
  }
  cr_assert_lt(chi, 22.46, "chi-square %.2f", chi);
}

Test(rng, degenerate_bounds) {
  dg_rng rng;
  dg_rng_seed(&rng, 1u, 1u);
  cr_assert_eq(dg_rng_below(&rng, 0), 0u);
  cr_assert_eq(dg_rng_below(&rng, 1), 0u);
  cr_assert_eq(dg_rng_range(&rng, 5, 5), 5);
  cr_assert_eq(dg_rng_range(&rng, 5, 2), 5);
  cr_assert_eq(dg_rng_die(&rng, 1), 1);
  cr_assert(!dg_rng_chance(&rng, 0.0));
  cr_assert(dg_rng_chance(&rng, 1.0));
}

Test(rng, unit_interval) {
  dg_rng rng;
  dg_rng_seed(&rng, 5u, 5u);
  double sum = 0;
  for (int i = 0; i < 10000; i++) {
    double u = dg_rng_unit(&rng);
    cr_assert(u >= 0.0 && u < 1.0);
    sum += u;
  }
  cr_assert(fabs(sum / 10000 - 0.5) < 0.02);
}

/* The 64-bit draw is two 32-bit draws, high half first, reduced modulo the
 * bound: the authored generator's weighted choices depend on that order. */
Test(rng, below64_is_two_draws_high_first) {
  dg_rng a, b;
  dg_rng_seed(&a, 9u, 7u);
  dg_rng_seed(&b, 9u, 7u);
  uint64_t bounds[] = {1, 3, 1000, UINT64_C(1) << 40, UINT64_C(0xffffffffffffffff)};
  for (int i = 0; i < 5; i++) {
    uint64_t hi = dg_rng_next(&b), lo = dg_rng_next(&b);
    uint64_t value = dg_rng_below64(&a, bounds[i]);
    cr_assert_eq(value, (hi << 32 | lo) % bounds[i]);
    cr_assert_lt(value, bounds[i]);
  }
  cr_assert_eq(dg_rng_below64(&a, 0), 0u);
  /* Bound 0 draws nothing: both generators are still in step. */
  cr_assert_eq(dg_rng_next(&a), dg_rng_next(&b));
}
