/* The profile formulas (src/common/profile.c) under a compiler told to
 * fuse multiply-adds: this file includes profile.c itself, built with
 * -ffp-contract=fast (tests/meson.build) and, on x86-64, for processors
 * with FMA, so that an unguarded `value += coefficient * figure` there is
 * one fused multiply-add. The formula below sits where that changes the
 * parameter: base c = -(1/2 + 2^-26 + 2^-27 + 2^-53), coefficient
 * a = 1 + 2^-26, figure b = 1 + 2^-27. The product a * b rounds to
 * 1 + 2^-26 + 2^-27 (a tie, to even), so c + a * b is 1/2 - 2^-53 and the
 * integer parameter 0; fused, the sum is exactly 1/2 and the parameter 1.
 * The same request would make another level on such a build; the golden
 * catalogue holds the same formula through `dungeon generate --profile`. */
#include <criterion/criterion.h>

#if defined(__x86_64__) && defined(__clang__)
#pragma clang attribute push(__attribute__((target("fma"))), apply_to = function)
#elif defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("fma")
#endif
#include "profile.c"
#if defined(__x86_64__) && defined(__clang__)
#pragma clang attribute pop
#elif defined(__x86_64__) && defined(__GNUC__)
#pragma GCC pop_options
#endif

static bool can_fuse(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
#else
  return true; /* other targets: the code runs as built, fused or not */
#endif
}

static const double base = -0.5000000223517419;       /* -(1/2 + 2^-26 + 2^-27 + 2^-53) */
static const double coefficient = 1.0000000149011612; /* 1 + 2^-26 */
static const double level = 1.0000000074505806;       /* 1 + 2^-27 */

static json_t *parse(const char *text) {
  json_error_t error;
  json_t *value = json_loads(text, 0, &error);
  cr_assert_not_null(value, "bad test JSON: %s", error.text);
  return value;
}

Test(profile_fp, the_constants_are_the_ones_meant) {
  cr_assert_eq(base, -(0.5 + 0x1p-26 + 0x1p-27 + 0x1p-53));
  cr_assert_eq(coefficient, 1 + 0x1p-26);
  cr_assert_eq(level, 1 + 0x1p-27);
}

Test(profile_fp, the_formula_rounds_its_product_alone) {
  if (!can_fuse())
    cr_skip_test("no FMA on this processor: nothing to fuse");
  json_t *json = parse("{\"algorithm\": \"classic\", \"params\": {\"width\": "
                       "{\"base\": -0.5000000223517419, \"max.level\": 1.0000000149011612}}}");
  party_profile profile;
  cr_assert_eq(profile_compile("p", json, &profile, NULL), 0);
  const profile_formula *formula = &profile.formulas[0];
  json_t *players = parse("[{\"level\": 1.0000000074505806}]");
  party members = {players, 1, false};
  cr_assert_eq(profile_formula_value(formula, &members), 0.5 - 0x1p-53,
               "the product was fused into the sum: %a", profile_formula_value(formula, &members));
  profile_release(&profile);
  json_decref(json);
  json_decref(players);
}

Test(profile_fp, the_derived_parameter_is_the_unfused_one) {
  if (!can_fuse())
    cr_skip_test("no FMA on this processor: nothing to fuse");
  json_t *json = parse("{\"algorithm\": \"classic\", \"params\": {\"locks\": "
                       "{\"base\": -0.5000000223517419, \"max.level\": 1.0000000149011612}}}");
  party_profile profile;
  cr_assert_eq(profile_compile("p", json, &profile, NULL), 0);
  json_t *players = parse("[{\"level\": 1.0000000074505806}]");
  party members = {players, 1, false};
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(profile_apply(&profile, &members, &request, &err), 0, "%s", err.message);
  int locks = dg_algorithm_param_index(request.algorithm, "locks");
  cr_assert_eq(dg_param_int(&request.params, locks), 0, "1/2 - 2^-53 rounds to 0 locks, not 1");
  profile_release(&profile);
  json_decref(json);
  json_decref(players);
}
