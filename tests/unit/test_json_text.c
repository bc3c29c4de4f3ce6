/* The daemon's JSON writer (src/server/transport/json_text.c): reals in
 * their shortest round-trip form, everything else as jansson writes it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdbool.h>
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

/* The next xorshift64 state as a double: false for NaN and infinities. */
static bool next_finite(unsigned long long *bits, double *value) {
  *bits ^= *bits << 13;
  *bits ^= *bits >> 7;
  *bits ^= *bits << 17;
  memcpy(value, bits, sizeof *value);
  return *value == *value && *value - *value == 0;
}

Test(json_text, every_real_reads_back) {
  /* Random bit patterns: all 17-digit cases and the rest. */
  unsigned long long bits = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 100000; i++) {
    double value;
    if (!next_finite(&bits, &value))
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

/* json_text_precision against json_dumps itself with JSON_REAL_PRECISION,
 * the form of the log's lines: an access line's shape, then reals of
 * every kind (random bit patterns, integral values, powers of ten across
 * the exponent's forms) inside objects and arrays, at several precisions. */
static void assert_as_jansson(const json_t *value, int precision) {
  char *expected = json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(precision));
  size_t length = 0;
  char *mine = json_text_precision(value, precision, &length);
  cr_assert_not_null(expected);
  cr_assert_not_null(mine);
  cr_assert_str_eq(mine, expected, "precision %d", precision);
  cr_assert_eq(length, strlen(expected));
  free(expected);
  free(mine);
}

Test(json_text, precision_as_jansson_dumps) {
  json_t *line = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:I, s:[{s:s, s:f, s:f}], s:s, s:i}", "time",
      "2026-12-05T02:21:45.410Z", "level", "info", "request_id", "8bd5c9dd-000000000001", "peer",
      "127.0.0.1:46422", "method", "POST", "path", "/v1/levels?x=\"q\"\t", "status", 200,
      "total_ms", 0.796134, "bytes", (json_int_t)5399, "spans", "name", "queue", "start_ms",
      0.103034, "duration_ms", 12345678.9, "algorithm", "classic", "seed", 3);
  cr_assert_not_null(line);
  for (int precision = 1; precision <= 17; precision++)
    assert_as_jansson(line, precision);
  json_decref(line);
  const double fixed[] = {0.0,   -0.0,   1.0,      100.0,  1e6,      1e-7,     1e21, 1.5e-300,
                          1e300, 5e-324, 123456.5, -2e-05, 0.000123, 999999.5, 1e15};
  json_t *list = json_array();
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    json_array_append_new(list, json_real(fixed[i]));
  unsigned long long bits = 0x2545F4914F6CDD1Dull;
  for (int i = 0; i < 2000; i++) {
    double value;
    if (!next_finite(&bits, &value))
      continue;
    json_array_append_new(list, i % 2 ? json_real(value) : json_real((double)(bits % 100000) / 7));
  }
  json_t *holder = json_pack("{s:o, s:{s:[]}}", "reals", list, "nested", "empty");
  for (int precision = 1; precision <= 17; precision += 4)
    assert_as_jansson(holder, precision);
  assert_as_jansson(holder, 6);
  json_decref(holder);
}
