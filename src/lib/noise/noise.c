/* Fractal Perlin noise (src/lib/noise/noise.h) for the `landmark`
 * generator's rock-density layer (seed 001, step 3). Gradients are one of
 * eight unit directions chosen by an integer hash of the lattice point, so
 * a field is a pure function of the seed. dg_noise_fill computes exactly
 * what dg_noise_sample does, in the same order, but hashes each lattice
 * point once per lattice row of tiles instead of once per tile, and
 * (with GCC or clang on x86-64 or AArch64) fills four tiles at once. */
/* Floating-point results feed the level, so they must not depend on the
 * compiler fusing a * b + c into one rounding where the target has FMA:
 * every product that feeds a sum goes through dg_fp_mulf (core/fp.h),
 * whatever the flags. */
#include "noise/noise.h"

#include <stdbool.h>
#include <stddef.h>

#include "core/fp.h"

#include "dungeon/error.h"
#include "dungeon/rng.h"

/* Eight unit gradients; scaled so that the output spans about [-1, 1]
 * (2D Perlin with unit gradients peaks near sqrt(1/2)). */
#define D 0.70710678f
static const float grad_x[8] = {1, -1, 0, 0, D, -D, D, -D};
static const float grad_y[8] = {0, 0, 1, -1, D, D, -D, -D};
#undef D
#define RANGE_SCALE 1.41421356f

static inline uint32_t lattice_hash(uint32_t seed, int32_t x, int32_t y) {
  uint32_t h = seed ^ ((uint32_t)x * 0x8da6b343u) ^ ((uint32_t)y * 0xd8163841u);
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h >> 29;
}

static inline float fade(float t) {
  return t * t * t * (dg_fp_mulf(t, dg_fp_mulf(t, 6.0f) - 15.0f) + 10.0f);
}

static inline int32_t floor_int(float v) {
  int32_t i = (int32_t)v;
  return i - (v < (float)i);
}

static inline float clamp1(float v) {
  return v > 1.0f ? 1.0f : v < -1.0f ? -1.0f : v;
}

int dg_noise_init(dg_noise *noise, uint64_t seed, int octaves, float frequency, float lacunarity,
                  float gain) {
  if (octaves < 1 || octaves > DG_NOISE_OCTAVES_MAX || !(frequency > 0.0f) || frequency > 1e3f ||
      !(lacunarity >= 1.0f) || lacunarity > 16.0f || !(gain > 0.0f) || gain > 1.0f)
    return DG_EINVAL;
  *noise = (dg_noise){.octaves = octaves};
  float f = frequency, a = 1.0f, total = 0.0f;
  for (int o = 0; o < octaves; o++) {
    total += a;
    a *= gain;
  }
  a = 1.0f;
  uint64_t state = dg_mix64(seed ^ 0x6e6f697365ull); /* "noise" */
  for (int o = 0; o < octaves; o++) {
    state = dg_mix64(state + (uint64_t)o);
    noise->seed[o] = (uint32_t)state;
    noise->frequency[o] = f;
    noise->amplitude[o] = a / total;
    /* Shifts in [0, 256) with 1/256 steps: exact in a float. */
    noise->offset_x[o] = (float)((state >> 32) & 0xffff) / 256.0f;
    noise->offset_y[o] = (float)((state >> 48) & 0xffff) / 256.0f;
    f *= lacunarity;
    a *= gain;
  }
  return 0;
}

/* Perlin noise of the cell with corner gradients g00..g11 at fractional
 * position (fx, fy) with faded weights (sx, sy). */
static inline float cell_value(uint32_t g00, uint32_t g10, uint32_t g01, uint32_t g11, float fx,
                               float fy, float sx, float sy) {
  float n00 = dg_fp_mulf(grad_x[g00], fx) + dg_fp_mulf(grad_y[g00], fy);
  float n10 = dg_fp_mulf(grad_x[g10], fx - 1.0f) + dg_fp_mulf(grad_y[g10], fy);
  float n01 = dg_fp_mulf(grad_x[g01], fx) + dg_fp_mulf(grad_y[g01], fy - 1.0f);
  float n11 = dg_fp_mulf(grad_x[g11], fx - 1.0f) + dg_fp_mulf(grad_y[g11], fy - 1.0f);
  float nx0 = n00 + dg_fp_mulf(sx, n10 - n00);
  float nx1 = n01 + dg_fp_mulf(sx, n11 - n01);
  return (nx0 + dg_fp_mulf(sy, nx1 - nx0)) * RANGE_SCALE;
}

float dg_noise_perlin(uint32_t seed, float x, float y) {
  int32_t xi = floor_int(x), yi = floor_int(y);
  float fx = x - (float)xi, fy = y - (float)yi;
  return clamp1(cell_value(lattice_hash(seed, xi, yi), lattice_hash(seed, xi + 1, yi),
                           lattice_hash(seed, xi, yi + 1), lattice_hash(seed, xi + 1, yi + 1), fx,
                           fy, fade(fx), fade(fy)));
}

float dg_noise_sample(const dg_noise *noise, float x, float y) {
  float sum = 0.0f;
  for (int o = 0; o < noise->octaves; o++) {
    float px = dg_fp_mulf(x, noise->frequency[o]) + noise->offset_x[o];
    float py = dg_fp_mulf(y, noise->frequency[o]) + noise->offset_y[o];
    sum += dg_fp_mulf(noise->amplitude[o], dg_noise_perlin(noise->seed[o], px, py));
  }
  return clamp1(sum);
}

int dg_noise_fill(const dg_noise *noise, float *out, int width, int height, void *scratch) {
  return dg_noise_fill_where(noise, out, width, height, NULL, scratch);
}

/* What every tile of one column shares within one lattice row, one array
 * per term so that four columns side by side are one vector: the four
 * corners' x products (gradient x times the distance to the corner in x:
 * corners 00, 10, 01, 11), the corners' y gradients, and fade(fx). A
 * tile then computes only the y half. Each array has `columns` entries
 * (the width rounded up to four), the extra ones zero. */
typedef struct column_terms {
  float *ax[4];
  float *gy[4];
  float *sx;
} column_terms;

/* The arrays of `terms`, the fractions and the lattice columns in the
 * caller's scratch (dg_noise_scratch_size). */
static void split_scratch(void *scratch, int width, column_terms *terms, float **fxs,
                          int32_t **xis) {
  size_t columns = ((size_t)width + 3) & ~(size_t)3;
  float *at = scratch;
  for (int c = 0; c < 4; c++) {
    terms->ax[c] = at + (size_t)c * columns;
    terms->gy[c] = at + (size_t)(4 + c) * columns;
  }
  terms->sx = at + 8 * columns;
  *fxs = at + 9 * columns;
  *xis = (int32_t *)(*fxs + columns);
  for (size_t x = (size_t)width; x < columns; x++) {
    for (int c = 0; c < 4; c++)
      terms->ax[c][x] = terms->gy[c][x] = 0.0f;
    terms->sx[x] = 0.0f;
  }
}

/* The terms for lattice row yi. Neighbouring lattice columns share an
 * edge, so a step right hashes two corners, not four. The products are the
 * ones cell_value forms, rounded alike (dg_fp_mulf), so the sums are bit
 * for bit the same. */
static void fill_terms(uint32_t seed, const int32_t *xis, const float *fxs, int width, int32_t yi,
                       const column_terms *terms) {
  int32_t cached = xis[0] - 2;
  uint32_t g00 = 0, g10 = 0, g01 = 0, g11 = 0;
  for (int x = 0; x < width; x++) {
    if (xis[x] != cached) {
      if (xis[x] == cached + 1) {
        g00 = g10;
        g01 = g11;
      } else {
        g00 = lattice_hash(seed, xis[x], yi);
        g01 = lattice_hash(seed, xis[x], yi + 1);
      }
      cached = xis[x];
      g10 = lattice_hash(seed, cached + 1, yi);
      g11 = lattice_hash(seed, cached + 1, yi + 1);
    }
    float fx = fxs[x];
    terms->ax[0][x] = dg_fp_mulf(grad_x[g00], fx);
    terms->ax[1][x] = dg_fp_mulf(grad_x[g10], fx - 1.0f);
    terms->ax[2][x] = dg_fp_mulf(grad_x[g01], fx);
    terms->ax[3][x] = dg_fp_mulf(grad_x[g11], fx - 1.0f);
    terms->gy[0][x] = grad_y[g00];
    terms->gy[1][x] = grad_y[g10];
    terms->gy[2][x] = grad_y[g01];
    terms->gy[3][x] = grad_y[g11];
  }
}

/* cell_value from column x's terms: the same operations in the same order. */
static inline float column_value(const column_terms *t, int x, float fy, float sy) {
  float n00 = t->ax[0][x] + dg_fp_mulf(t->gy[0][x], fy);
  float n10 = t->ax[1][x] + dg_fp_mulf(t->gy[1][x], fy);
  float n01 = t->ax[2][x] + dg_fp_mulf(t->gy[2][x], fy - 1.0f);
  float n11 = t->ax[3][x] + dg_fp_mulf(t->gy[3][x], fy - 1.0f);
  float nx0 = n00 + dg_fp_mulf(t->sx[x], n10 - n00);
  float nx1 = n01 + dg_fp_mulf(t->sx[x], n11 - n01);
  return (nx0 + dg_fp_mulf(sy, nx1 - nx0)) * RANGE_SCALE;
}

/* Columns [0, width) of one row of one octave: row[x] += amp *
 * clamp1(column_value) where wanted (want NULL: everywhere). */
static void add_row_scalar(const column_terms *t, int from, int width, float fy, float sy,
                           float amp, const uint8_t *wanted, float *row) {
  for (int x = from; x < width; x++) {
    if (wanted != NULL && !wanted[x])
      continue;
    row[x] += dg_fp_mulf(amp, clamp1(column_value(t, x, fy, sy)));
  }
}

#if defined(__GNUC__) && defined(DG_FP_REG)
/* Four columns at once in the compiler's vector extension: IEEE single
 * precision lane by lane, the very operations of column_value in the same
 * order, each product through the same kind of barrier as dg_fp_mulf, so
 * that no flag can fuse it into the sum that follows. Loads and stores are
 * unaligned (the scratch is only aligned for float). */
typedef float noise_v4 __attribute__((vector_size(16), aligned(4)));
typedef int32_t noise_m4 __attribute__((vector_size(16), aligned(4)));

static inline noise_v4 v4_round(noise_v4 v) {
  __asm__("" : "+" DG_FP_REG(v));
  return v;
}

static inline noise_v4 v4_load(const float *at) {
  return *(const noise_v4 *)at;
}

/* mask ? a : b, lane by lane (mask lanes all ones or all zeros). */
static inline noise_v4 v4_select(noise_m4 mask, noise_v4 a, noise_v4 b) {
  return (noise_v4)((mask & (noise_m4)a) | (~mask & (noise_m4)b));
}

/* clamp1 lane by lane: 1 above 1, -1 below -1, else v itself (-0 stays). */
static inline noise_v4 v4_clamp1(noise_v4 v) {
  const noise_v4 one = {1.0f, 1.0f, 1.0f, 1.0f}, minus_one = -one;
  return v4_select(v > one, one, v4_select(v < minus_one, minus_one, v));
}

static void add_row(const column_terms *t, int width, float fy, float sy, float amp,
                    const uint8_t *wanted, float *row) {
  const noise_v4 vfy = {fy, fy, fy, fy}, vsy = {sy, sy, sy, sy}, vamp = {amp, amp, amp, amp};
  const noise_v4 vfy1 = vfy - 1.0f, scale = {RANGE_SCALE, RANGE_SCALE, RANGE_SCALE, RANGE_SCALE};
  int x = 0;
  for (; x + 4 <= width; x += 4) {
    noise_v4 sx = v4_load(t->sx + x);
    noise_v4 n00 = v4_load(t->ax[0] + x) + v4_round(v4_load(t->gy[0] + x) * vfy);
    noise_v4 n10 = v4_load(t->ax[1] + x) + v4_round(v4_load(t->gy[1] + x) * vfy);
    noise_v4 n01 = v4_load(t->ax[2] + x) + v4_round(v4_load(t->gy[2] + x) * vfy1);
    noise_v4 n11 = v4_load(t->ax[3] + x) + v4_round(v4_load(t->gy[3] + x) * vfy1);
    noise_v4 nx0 = n00 + v4_round(sx * (n10 - n00));
    noise_v4 nx1 = n01 + v4_round(sx * (n11 - n01));
    noise_v4 value = v4_round((nx0 + v4_round(vsy * (nx1 - nx0))) * scale);
    /* Unwanted tiles are computed too (their values are unspecified):
     * four lanes cost what one does, and a select per lane did not. */
    *(noise_v4 *)(row + x) = v4_load(row + x) + v4_round(vamp * v4_clamp1(value));
  }
  add_row_scalar(t, x, width, fy, sy, amp, wanted, row);
}
#else
static void add_row(const column_terms *t, int width, float fy, float sy, float amp,
                    const uint8_t *wanted, float *row) {
  add_row_scalar(t, 0, width, fy, sy, amp, wanted, row);
}
#endif

int dg_noise_fill_where(const dg_noise *noise, float *out, int width, int height,
                        const uint8_t *want, void *scratch) {
  return dg_noise_fill_where_cancellable(noise, out, width, height, want, scratch, NULL);
}

int dg_noise_fill_where_cancellable(const dg_noise *noise, float *out, int width, int height,
                                    const uint8_t *want, void *scratch, dg_cancel *cancel) {
  if (width < 1 || height < 1)
    return DG_EINVAL;
  column_terms terms;
  float *fxs;
  int32_t *xis;
  split_scratch(scratch, width, &terms, &fxs, &xis);
  long cells = (long)width * height;
  for (long i = 0; i < cells; i++)
    out[i] = 0.0f;
  for (int o = 0; o < noise->octaves; o++) {
    const float f = noise->frequency[o], amp = noise->amplitude[o];
    const uint32_t seed = noise->seed[o];
    for (int x = 0; x < width; x++) {
      float px = dg_fp_mulf((float)x, f) + noise->offset_x[o];
      xis[x] = floor_int(px);
      fxs[x] = px - (float)xis[x];
      terms.sx[x] = fade(fxs[x]);
    }
    /* Rows in one lattice row share their terms: computed once. */
    bool have_row = false;
    int32_t row_yi = 0;
    for (int y = 0; y < height; y++) {
      int rc = y % 128 == 127 ? dg_cancel_check(cancel) : 0;
      if (rc != 0)
        return rc;
      float py = dg_fp_mulf((float)y, f) + noise->offset_y[o];
      int32_t yi = floor_int(py);
      float fy = py - (float)yi, sy = fade(fy);
      if (!have_row || yi != row_yi) {
        fill_terms(seed, xis, fxs, width, yi, &terms);
        have_row = true;
        row_yi = yi;
      }
      add_row(&terms, width, fy, sy, amp, want != NULL ? want + (long)y * width : NULL,
              out + (long)y * width);
    }
  }
  for (long i = 0; i < cells; i++)
    out[i] = clamp1(out[i]);
  return 0;
}
