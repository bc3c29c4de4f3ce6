/* The daemon's JSON writer (src/server/transport/json_text.c): reals in
 * their shortest round-trip form, everything else as jansson writes it;
 * and the log's batch of lines (src/server/transport/log.c), which writes
 * whole lines only, when full or flushed, in the order they came. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/json_text.h"
#include "transport/log.h"

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

/* The request log's reals, written without printf where that is safe
 * (json_text.c), against jansson itself at every precision that path
 * takes, and at 17: milliseconds of every magnitude, values a hair from a
 * tie between two roundings (x.5 at the last digit, either side), from a
 * power of ten, from the switch to exponent form, and negative ones. */
static void assert_real_as_jansson(double value, int precision) {
  json_t *real = json_real(value);
  char *expected = json_dumps(real, JSON_ENCODE_ANY | JSON_REAL_PRECISION(precision));
  char mine[JSON_REAL_TEXT_MAX];
  json_real_text_jansson(value, precision, mine);
  if (strcmp(mine, expected) != 0)
    cr_assert_fail("%.17g at precision %d: %s, jansson %s", value, precision, mine, expected);
  free(expected);
  json_decref(real);
}

Test(json_text, log_reals_as_jansson) {
  unsigned long long state = 0x2545F4914F6CDD1Dull;
  for (int i = 0; i < 300000; i++) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    int precision = 1 + (int)(state % 9);
    double unit = (double)(state >> 11) * 0x1p-53; /* [0, 1) */
    double value = pow(10.0, -6.0 + 16.0 * unit);  /* 1e-6 to 1e10 */
    if ((state >> 8) % 4 == 0) {                   /* at a tie, to a few ulps */
      double step = pow(10.0, floor(log10(value)) - precision + 1);
      value = (floor(value / step) + 0.5) * step;
      value = nextafter(value, (state >> 9) % 2 ? 0.0 : 1e300);
    } else if ((state >> 8) % 4 == 1) { /* next to a power of ten */
      value = pow(10.0, round(log10(value)));
      for (int n = (int)((state >> 12) % 3); n > 0; n--)
        value = nextafter(value, (state >> 9) % 2 ? 0.0 : 1e300);
    }
    if ((state >> 10) % 5 == 0)
      value = -value;
    assert_real_as_jansson(value, precision);
    assert_real_as_jansson(value, 6);
    if (i % 16 == 0)
      assert_real_as_jansson(value, 17);
  }
  const double fixed[] = {1e-4, 9.9999949999999e-5, 999999.5, 999999.4999999, 1e9, 0.5,
                          2.5,  100000.0,           123456.5, 0.000123456,    1e6, 9999995.0};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    for (int precision = 1; precision <= 9; precision++)
      assert_real_as_jansson(fixed[i], precision);
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

/* json_text_sorted (the canonical request of every level id) against
 * json_dumps with JSON_SORT_KEYS: reals of every form at jansson's
 * default precision, keys out of order, escaped, sharing prefixes, an
 * object of more keys than the writer sorts on its stack, nesting. */
Test(json_text, sorted_as_jansson_dumps) {
  json_t *wide = json_object();
  for (int i = 0; i < 150; i++) {
    char key[16];
    snprintf(key, sizeof key, "k%d", (i * 37) % 150);
    json_object_set_new(wide, key, json_integer(i));
  }
  json_t *value =
      json_pack("{s:f, s:f, s:f, s:s, s:[f, f, {s:i, s:i}], s:o, s:{s:b, s:n, s:s}, s:f, s:i}",
                "zeta", 0.20000000000000001, "alpha", 1e-7, "alphabet", 123456789012.5,
                "a\"quoted\\key", "v\n", "list", 0.1 + 0.2, 100.0, "b", 2, "a", 1, "wide", wide,
                "nested", "yes", 1, "nothing", "text", "caf\xc3\xa9", "Upper", 5e-324, "", -3);
  cr_assert_not_null(value);
  char *expected = json_dumps(value, JSON_COMPACT | JSON_SORT_KEYS);
  size_t length = 0;
  char *mine = json_text_sorted(value, &length);
  cr_assert_str_eq(mine, expected);
  cr_assert_eq(length, strlen(expected));
  free(mine);
  free(expected);
  json_decref(value);
}

/* The request log's line written through json_line, member by member, is
 * the text json_dumps writes for the same object built as a json_t (as
 * the line was before), JSON_REAL_PRECISION(6): escapes, nesting, reals of
 * every form, and a value written from a json_t. */
Test(json_line, writes_what_jansson_dumps) {
  const double reals[] = {0.796134, 12345678.9, 1e-7, 0.0, 100.0, 2.5e21};
  for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++) {
    json_t *seed = json_string("18446744073709551615");
    json_t *expected_line =
        json_pack("{s:s, s:s, s:s, s:i, s:f, s:I, s:[{s:s, s:f}, {s:s, s:f}], s:O, s:[], s:{}}",
                  "time", "2026-12-05T02:21:45.410Z", "level", "info", "path",
                  "/v1/levels?x=\"q\"\t\x01\\", "status", 200, "total_ms", reals[k], "bytes",
                  (json_int_t)5399, "spans", "name", "queue", "start_ms", reals[k] / 3, "name",
                  "generation", "duration_ms", -reals[k], "seed", seed, "none", "empty");
    char *expected = json_dumps(expected_line, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_line line = {.precision = 6};
    for (int again = 0; again < 2; again++) { /* a cleared line writes the same again */
      json_line_clear(&line);
      json_line_open(&line, NULL, '{');
      json_line_string(&line, "time", "2026-12-05T02:21:45.410Z");
      json_line_string(&line, "level", "info");
      json_line_string(&line, "path", "/v1/levels?x=\"q\"\t\x01\\");
      json_line_int(&line, "status", 200);
      json_line_real(&line, "total_ms", reals[k]);
      json_line_int(&line, "bytes", 5399);
      json_line_open(&line, "spans", '[');
      json_line_open(&line, NULL, '{');
      json_line_string(&line, "name", "queue");
      json_line_real(&line, "start_ms", reals[k] / 3);
      json_line_close(&line, '}');
      json_line_open(&line, NULL, '{');
      json_line_string(&line, "name", "generation");
      json_line_real(&line, "duration_ms", -reals[k]);
      json_line_close(&line, '}');
      json_line_close(&line, ']');
      json_line_value(&line, "seed", seed);
      json_line_open(&line, "none", '[');
      json_line_close(&line, ']');
      json_line_open(&line, "empty", '{');
      json_line_close(&line, '}');
      json_line_close(&line, '}');
      cr_assert_not(line.failed);
      cr_assert_str_eq(line.data, expected, "real %g, pass %d", reals[k], again);
      cr_assert_eq(line.length, strlen(expected));
    }
    /* A NULL line (log_requests off) takes every write and writes nothing. */
    json_line_string(NULL, "level", "info");
    json_line_real(NULL, "total_ms", 1.0);
    json_line_open(NULL, "spans", '[');
    /* NaN has no JSON form: the line fails rather than write it. */
    json_line_real(&line, "nan", 0.0 / 0.0);
    cr_assert(line.failed);
    json_line_free(&line);
    free(expected);
    json_decref(expected_line);
    json_decref(seed);
  }
}

/* stderr into a fresh temporary file; its descriptor is returned. */
static int capture_stderr(void) {
  char path[] = "/tmp/test_log_batchXXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  unlink(path);
  cr_assert_geq(dup2(fd, STDERR_FILENO), 0);
  return fd;
}

/* What was written to the captured stderr so far; malloc'd, NUL-ended. */
static char *captured(int fd, size_t *length) {
  *length = (size_t)lseek(fd, 0, SEEK_END);
  char *text = malloc(*length + 1);
  cr_assert_eq(pread(fd, text, *length, 0), (ssize_t)*length);
  text[*length] = '\0';
  return text;
}

/* Line `n` of the batch test: its number, padded to `padding` bytes. */
static char *numbered_line(int n, size_t padding) {
  char *line = malloc(padding + 32);
  int length = snprintf(line, 32, "{\"n\":%d,\"pad\":\"", n);
  memset(line + length, 'x', padding);
  memcpy(line + length + padding, "\"}", 3);
  return line;
}

static void add_line(log_batch *batch, int n, size_t padding) {
  char *line = numbered_line(n, padding);
  log_batch_add(batch, line, strlen(line));
  free(line);
}

/* Every line of `text` is numbered_line(first + i), in order; returns how
 * many lines there were. */
static int assert_lines(const char *text, int first, size_t padding) {
  int count = 0;
  for (const char *at = text; *at != '\0'; count++) {
    const char *end = strchr(at, '\n');
    cr_assert_not_null(end, "line %d has no newline: a line was cut", count);
    char *expected = numbered_line(first + count, padding);
    cr_assert_eq((size_t)(end - at), strlen(expected), "line %d", count);
    cr_assert(strncmp(at, expected, strlen(expected)) == 0, "line %d: %.80s", count, at);
    free(expected);
    at = end + 1;
  }
  return count;
}

Test(log_batch, writes_whole_lines_in_order_when_flushed_or_full) {
  int fd = capture_stderr();
  log_batch batch = {0};
  for (int n = 0; n < 3; n++)
    add_line(&batch, n, 10);
  size_t length = 0;
  char *text = captured(fd, &length);
  cr_assert_eq(length, 0, "lines were written before the flush");
  free(text);
  log_batch_flush(&batch);
  text = captured(fd, &length);
  cr_assert_eq(assert_lines(text, 0, 10), 3);
  free(text);
  /* Past LOG_BATCH_BYTES the batch writes what it held, whole lines only. */
  int added = 0;
  for (; length < 4 * LOG_BATCH_BYTES; added++) {
    add_line(&batch, 3 + added, 500);
    free(captured(fd, &length));
  }
  cr_assert_gt(added, LOG_BATCH_BYTES / 600, "it wrote after %d lines", added);
  /* A line longer than a whole batch goes out whole too. */
  add_line(&batch, 3 + added, 3 * LOG_BATCH_BYTES);
  log_batch_free(&batch);
  cr_assert_null(batch.text);
  text = captured(fd, &length);
  const char *after_first = text;
  for (int i = 0; i < 3; i++)
    after_first = strchr(after_first, '\n') + 1;
  char *last = strrchr(text, '\n');
  *last = '\0';
  last = strrchr(text, '\n') + 1; /* the long line, apart: its padding differs */
  char saved = *last;
  *last = '\0';
  cr_assert_eq(assert_lines(after_first, 3, 500), added);
  *last = saved;
  char *expected = numbered_line(3 + added, 3 * LOG_BATCH_BYTES);
  cr_assert_str_eq(last, expected);
  free(expected);
  free(text);
  close(fd);
  cr_assert_eq(log_write_failures(), 0);
}
