/* Floating point rounded as written on every build, for code outside the
 * library whose arithmetic decides a level (the daemon's and the CLI's
 * player profiles derive parameters with it).
 *
 * A level must be the same bytes whatever compiler and flags built it
 * (docs/level-format.md, "Determinism"). Contraction, fusing a * b + c
 * into one fused multiply-add with a single rounding, is what ordinary
 * flags do to IEEE results on today's targets: gcc across statements with
 * -ffp-contract=fast (its default in GNU C modes, e.g. -std=gnu17
 * -march=native), clang with -ffp-contract=fast, where it ignores every
 * pragma. A product passed through dg_fp_mul / dg_fp_mulf leaves an empty
 * asm statement the compiler cannot see through, so it exists as a rounded
 * value and cannot be fused into the sum that follows; without such a
 * statement a volatile round trip does the same (and drops x87 excess
 * precision). The cost is a register constraint per product, no
 * instruction. Header-only and thread-safe; the library uses the same
 * functions (src/lib/core/fp.h). */
#ifndef DUNGEON_FP_H
#define DUNGEON_FP_H

#if defined(__GNUC__) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#define DG_FP_REG "x"
#elif defined(__GNUC__) && defined(__aarch64__)
#define DG_FP_REG "w"
#endif

/* v, rounded to a double: the compiler may not fold it into a fused operation. */
static inline double dg_fp_round(double v) {
#ifdef DG_FP_REG
  __asm__("" : "+" DG_FP_REG(v));
  return v;
#else
  volatile double rounded = v;
  return rounded;
#endif
}

/* v, rounded to a float: the compiler may not fold it into a fused operation. */
static inline float dg_fp_roundf(float v) {
#ifdef DG_FP_REG
  __asm__("" : "+" DG_FP_REG(v));
  return v;
#else
  volatile float rounded = v;
  return rounded;
#endif
}

/* a * b rounded on its own, never fused into a following sum. */
static inline double dg_fp_mul(double a, double b) {
  return dg_fp_round(a * b);
}

/* a * b rounded on its own in float, never fused into a following sum. */
static inline float dg_fp_mulf(float a, float b) {
  return dg_fp_roundf(a * b);
}

#endif
