/* Internal: deterministic fractal (fBm) Perlin gradient noise in two dimensions.
 *
 * Seed 001, step 3 plans "a rock density layer (generated with Perlin
 * noise) to determine the cost of traversing each cell". Gradients come from
 * integer hashing of the lattice point and a per-octave seed derived from
 * the request's seed, so a field depends on the seed alone: no permutation
 * table, no global state, no libm transcendental functions (the fade curve
 * is a polynomial; amplitudes and frequencies are repeated products). Pure
 * and thread-safe. */
#ifndef DUNGEON_NOISE_H
#define DUNGEON_NOISE_H

#include <stdint.h>

#include "dungeon/cancel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_NOISE_OCTAVES_MAX 12

typedef struct dg_noise {
  int octaves;                           /* 1..DG_NOISE_OCTAVES_MAX */
  uint32_t seed[DG_NOISE_OCTAVES_MAX];   /* gradient hash seed per octave */
  float frequency[DG_NOISE_OCTAVES_MAX]; /* lattice cells per tile */
  float amplitude[DG_NOISE_OCTAVES_MAX]; /* weight, divided by the total */
  float offset_x[DG_NOISE_OCTAVES_MAX];  /* per-octave shift, so that the  */
  float offset_y[DG_NOISE_OCTAVES_MAX];  /* origin is not a lattice point */
} dg_noise;

/* Prepares an fBm field: `octaves` layers, the first with `frequency`
 * lattice cells per unit (e.g. 1/32), each next one `lacunarity` times finer
 * and `gain` times weaker. Returns 0 or DG_EINVAL (octaves outside
 * 1..DG_NOISE_OCTAVES_MAX, frequency not in (0, 1e3], lacunarity not in
 * [1, 16], gain not in (0, 1]). */
int dg_noise_init(dg_noise *noise, uint64_t seed, int octaves, float frequency, float lacunarity,
                  float gain);

/* One octave of Perlin noise with hash seed `seed` at (x, y); in [-1, 1],
 * 0 on lattice points. Pure. */
float dg_noise_perlin(uint32_t seed, float x, float y);

/* The fBm field at (x, y), in [-1, 1]. Pure. */
float dg_noise_sample(const dg_noise *noise, float x, float y);

/* Fills out[y * width + x] with dg_noise_sample(noise, x, y) for the grid
 * (bit for bit the same values), reusing each lattice cell's gradients
 * across the tiles it covers. `scratch` is caller memory of
 * dg_noise_scratch_size(width) bytes, aligned for float (per-column
 * positions and products). Returns 0 or DG_EINVAL (size < 1). */
int dg_noise_fill(const dg_noise *noise, float *out, int width, int height, void *scratch);

/* dg_noise_fill for the tiles where want[y * width + x] is not 0 only (all
 * when `want` is NULL); the others are left unspecified. Each wanted value
 * is bit for bit what dg_noise_fill gives it: callers that read a share of
 * the field (landmark's open rock) skip the rest. Same errors. */
int dg_noise_fill_where(const dg_noise *noise, float *out, int width, int height,
                        const uint8_t *want, void *scratch);

/* dg_noise_fill_where polling `cancel` (may be NULL) every 128 rows of
 * each octave, so a big field neither outlives its deadline by long nor
 * keeps a pause hook waiting (dungeon/cancel.h). The same values; also
 * DG_ECANCELED or DG_ETIMEDOUT, with `out` then unspecified. */
int dg_noise_fill_where_cancellable(const dg_noise *noise, float *out, int width, int height,
                                    const uint8_t *want, void *scratch, dg_cancel *cancel);

/* Bytes of scratch dg_noise_fill needs for rows of `width` tiles. */
static inline unsigned long dg_noise_scratch_size(int width) {
  /* Per column, the width rounded up to four (noise.c fills four columns
   * at once): nine floats of terms, the fraction, the lattice column. */
  unsigned long columns = ((unsigned long)(width > 0 ? width : 1) + 3) & ~3ul;
  return columns * (10 * sizeof(float) + sizeof(int));
}

#ifdef __cplusplus
}
#endif
#endif
