/* Fractal noise: deterministic by seed, different seeds differ, values in
 * [-1, 1] and spread out, continuous (neighbouring samples close), the
 * fill equals pointwise sampling bit for bit, parameters validated. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/error.h"
#include "noise/noise.h"

Test(noise, deterministic_and_seeded) {
  dg_noise a, b, c;
  cr_assert_eq(dg_noise_init(&a, 42, 4, 1.0f / 16, 2.0f, 0.5f), 0);
  cr_assert_eq(dg_noise_init(&b, 42, 4, 1.0f / 16, 2.0f, 0.5f), 0);
  cr_assert_eq(dg_noise_init(&c, 43, 4, 1.0f / 16, 2.0f, 0.5f), 0);
  int differ = 0;
  for (int i = 0; i < 500; i++) {
    float x = (float)(i % 37) * 1.3f, y = (float)(i / 37) * 0.7f;
    float va = dg_noise_sample(&a, x, y), vb = dg_noise_sample(&b, x, y);
    cr_assert(memcmp(&va, &vb, sizeof va) == 0);
    differ += fabsf(va - dg_noise_sample(&c, x, y)) > 1e-3f;
  }
  cr_assert_gt(differ, 400, "another seed must give another field");
}

Test(noise, range_spread_and_continuity) {
  dg_noise n;
  cr_assert_eq(dg_noise_init(&n, 7, 4, 1.0f / 24, 2.0f, 0.5f), 0);
  float lo = 1, hi = -1;
  double sum = 0;
  for (int y = 0; y < 120; y++)
    for (int x = 0; x < 120; x++) {
      float v = dg_noise_sample(&n, (float)x, (float)y);
      cr_assert(v >= -1.0f && v <= 1.0f);
      lo = fminf(lo, v);
      hi = fmaxf(hi, v);
      sum += v;
      float right = dg_noise_sample(&n, (float)x + 0.01f, (float)y);
      cr_assert_lt(fabsf(right - v), 0.05f, "noise must be continuous");
    }
  cr_assert_gt(hi - lo, 0.6f, "field too flat: [%f, %f]", lo, hi);
  cr_assert_lt(fabs(sum / 14400), 0.25, "field biased: mean %f", sum / 14400);
  cr_assert_eq(dg_noise_perlin(99, 3.0f, 5.0f), 0.0f, "zero on lattice points");
}

Test(noise, fill_matches_samples_bit_for_bit) {
  const int w = 83, h = 41;
  dg_noise n;
  cr_assert_eq(dg_noise_init(&n, 12345, 5, 1.0f / 13, 2.0f, 0.55f), 0);
  float *field = malloc(sizeof(float) * w * h);
  void *scratch = malloc(dg_noise_scratch_size(w));
  cr_assert_eq(dg_noise_fill(&n, field, w, h, scratch), 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float v = dg_noise_sample(&n, (float)x, (float)y);
      cr_assert(memcmp(&v, &field[y * w + x], sizeof v) == 0, "(%d, %d): %a vs %a", x, y, v,
                field[y * w + x]);
    }
  cr_assert_eq(dg_noise_fill(&n, field, 0, h, scratch), DG_EINVAL);
  free(field);
  free(scratch);
}

Test(noise, parameters_checked) {
  dg_noise n;
  cr_assert_eq(dg_noise_init(&n, 1, 0, 0.1f, 2, 0.5f), DG_EINVAL);
  cr_assert_eq(dg_noise_init(&n, 1, DG_NOISE_OCTAVES_MAX + 1, 0.1f, 2, 0.5f), DG_EINVAL);
  cr_assert_eq(dg_noise_init(&n, 1, 4, 0, 2, 0.5f), DG_EINVAL);
  cr_assert_eq(dg_noise_init(&n, 1, 4, 0.1f, 0.5f, 0.5f), DG_EINVAL);
  cr_assert_eq(dg_noise_init(&n, 1, 4, 0.1f, 2, 1.5f), DG_EINVAL);
  cr_assert_eq(dg_noise_init(&n, 1, 4, 0.1f, 2, NAN), DG_EINVAL);
}

/* dg_noise_fill_where gives the wanted tiles the very bits of
 * dg_noise_fill, also when a tile spans several lattice cells (frequency
 * above 1: the gradient cache must not assume neighbouring columns). */
Test(noise, fill_where_matches_fill_on_wanted_tiles) {
  const int w = 67, h = 29;
  const float frequencies[2] = {1.0f / 7, 1.7f};
  float *full = malloc(sizeof(float) * w * h), *part = malloc(sizeof(float) * w * h);
  uint8_t *want = malloc((size_t)w * h);
  void *scratch = malloc(dg_noise_scratch_size(w));
  for (int i = 0; i < w * h; i++)
    want[i] = (uint8_t)((i * 7 + i / w) % 3 != 0);
  for (int f = 0; f < 2; f++) {
    dg_noise n;
    cr_assert_eq(dg_noise_init(&n, 777, 4, frequencies[f], 2.0f, 0.5f), 0);
    cr_assert_eq(dg_noise_fill(&n, full, w, h, scratch), 0);
    cr_assert_eq(dg_noise_fill_where(&n, part, w, h, want, scratch), 0);
    for (int i = 0; i < w * h; i++) {
      float v = dg_noise_sample(&n, (float)(i % w), (float)(i / w));
      cr_assert(memcmp(&v, &full[i], sizeof v) == 0, "fill, tile %d: %a vs %a", i, v, full[i]);
      if (want[i])
        cr_assert(memcmp(&full[i], &part[i], sizeof v) == 0, "tile %d: %a vs %a", i, full[i],
                  part[i]);
    }
  }
  free(full);
  free(part);
  free(want);
  free(scratch);
}
