/* The daemon's JSON writer (src/server/transport/json_text.c): reals in
 * their shortest round-trip form, everything else as jansson writes it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "transport/json_text.h"

static void assert_real(double value, const char *expected) {
  char text[JSON_REAL_TEXT_MAX];
  json_real_text(value, text);
  cr_assert_str_eq(text, expected);
  cr_assert(strtod(text, NULL) == value, "%s does not read back", text);
}

Test(json_text, shortest_reals) {
  assert_real(0.18, "0.18");
  assert_real(0.1 + 0.2, "0.30000000000000004"); /* needs all 17 */
  assert_real(1.0, "1.0");
  assert_real(-2.5, "-2.5");
  assert_real(1e300, "1e+300");
  assert_real(123456789012345678.0, "1.2345678901234568e+17");
  assert_real(5e-324, "5e-324"); /* the smallest subnormal */
  assert_real(100.0, "100.0");
  assert_real(1234500.0, "1234500.0");
  assert_real(1e16, "10000000000000000.0");
  assert_real(1e17, "1e+17");
  assert_real(0.001, "0.001");
}

Test(json_text, every_real_reads_back) {
  /* Random bit patterns: all 17-digit cases and the rest. */
  unsigned long long bits = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 100000; i++) {
    bits ^= bits << 13;
    bits ^= bits >> 7;
    bits ^= bits << 17;
    double value;
    memcpy(&value, &bits, sizeof value);
    if (value != value || value - value != 0) /* NaN, infinities */
      continue;
    char text[JSON_REAL_TEXT_MAX];
    json_real_text(value, text);
    cr_assert(strtod(text, NULL) == value, "%s", text);
  }
}

Test(json_text, same_as_jansson_but_reals) {
  json_t *v = json_pack("{s:s, s:[i, b, n, f], s:{}, s:s}", "name", "a\"b\\c\n\x01/é", "list", -42,
                        1, 0.18, "empty", "last", "");
  cr_assert_not_null(v);
  size_t length = 0;
  char *mine = json_text(v, &length);
  cr_assert_not_null(mine);
  cr_assert_eq(strlen(mine), length);
  cr_assert_str_eq(mine, "{\"name\":\"a\\\"b\\\\c\\n\\u0001/é\",\"list\":[-42,true,null,0.18],"
                         "\"empty\":{},\"last\":\"\"}");
  json_t *back = json_loads(mine, 0, NULL);
  cr_assert(json_equal(back, v));
  json_decref(back);
  free(mine);
  json_decref(v);
}
