/* Floating point that decides a level, rounded as written on every build.
 *
 * A level must be the same bytes whatever compiler and flags built the
 * library (docs/level-format.md, "Determinism"). The one way ordinary
 * flags change IEEE results on today's targets is contraction: fusing
 * a * b + c into one fused multiply-add with a single rounding, which gcc
 * does across statements with -ffp-contract=fast (its default in GNU C
 * modes, e.g. -std=gnu17 -march=native) and clang with -ffp-contract=fast,
 * where clang ignores every pragma. The library's meson file passes
 * -ffp-contract=off, but a distribution's CFLAGS may come later, so the
 * code does not rely on it: every product that feeds a sum goes through
 * dg_fp_mul / dg_fp_mulf, whose result passes an empty asm statement the
 * compiler cannot see through, so it must exist as a rounded value and
 * cannot be fused. Where there is no such statement, a volatile round trip
 * does the same (and also drops x87 excess precision). The cost is one
 * register constraint per product, no instruction.
 *
 * Integer code needs none of this; geometry/delaunay.c's predicates are
 * exact by construction (their floating filter only ever decides outside
 * an error bound that a fused product stays inside). tests/unit/test_fp.c
 * and the golden catalogue (built with -ffp-contract=fast in CI) hold it. */
#ifndef DG_CORE_FP_H
#define DG_CORE_FP_H

/* For compilers that honour the standard pragma (clang unless -ffp-contract=fast);
 * gcc ignores it with a warning, so it is not shown to gcc. */
#if !defined(__GNUC__) || defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* dg_fp_round, dg_fp_roundf, dg_fp_mul, dg_fp_mulf: public, so that the
 * daemon's and the CLI's profile formulas round the same way. */
#include "dungeon/fp.h"

#endif
