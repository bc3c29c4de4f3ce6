/* core/fp.h: a product passed through dg_fp_mulf / dg_fp_mul is rounded on
 * its own even where the compiler fuses multiply-adds. This file is built
 * with -ffp-contract=fast (tests/meson.build), and on x86-64 the checks run
 * in functions compiled for FMA when the processor has it, so an unguarded
 * a * b + c there is fused: the first check shows that it is, the second
 * that the guarded one is not. */
#include <criterion/criterion.h>
#include <math.h>

#include "core/fp.h"

/* a = b = 1 + 2^-12: a * b = 1 + 2^-11 + 2^-24, which rounds to 1 + 2^-11
 * (a tie, to even). With c = -(1 + 2^-11) the separately rounded sum is 0
 * and the fused one 2^-24. */
static volatile float fa = 1.0f + 0x1p-12f, fb = 1.0f + 0x1p-12f, fc = -(1.0f + 0x1p-11f);
/* The same in double: 1 + 2^-27 squared is 1 + 2^-26 + 2^-54. */
static volatile double da = 1.0 + 0x1p-27, db = 1.0 + 0x1p-27, dc = -(1.0 + 0x1p-26);

#if defined(__x86_64__) && defined(__GNUC__)
#define FUSING __attribute__((target("fma"), noinline))
static bool can_fuse(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
}
#else
#define FUSING __attribute__((noinline))
static bool can_fuse(void) {
  return false;
}
#endif

FUSING static float plain_f(float a, float b, float c) {
  return a * b + c;
}
FUSING static float guarded_f(float a, float b, float c) {
  return dg_fp_mulf(a, b) + c;
}
FUSING static double plain_d(double a, double b, double c) {
  return a * b + c;
}
FUSING static double guarded_d(double a, double b, double c) {
  return dg_fp_mul(a, b) + c;
}

Test(fp, unguarded_products_fuse_here) {
  if (!can_fuse())
    cr_skip_test("no FMA on this processor: nothing to fuse");
  cr_assert_eq(plain_f(fa, fb, fc), 0x1p-24f, "the compiler did not fuse: this test shows nothing");
  cr_assert_eq(plain_d(da, db, dc), 0x1p-54, "the compiler did not fuse: this test shows nothing");
}

Test(fp, guarded_products_round_alone) {
  cr_assert_eq(guarded_f(fa, fb, fc), 0.0f);
  cr_assert_eq(guarded_d(da, db, dc), 0.0);
  cr_assert_eq(dg_fp_roundf(fa * fb), 1.0f + 0x1p-11f);
  cr_assert_eq(dg_fp_round(da * db), 1.0 + 0x1p-26);
}
