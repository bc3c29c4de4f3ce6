/* See json_text.h. jansson prints reals with one fixed precision (17
 * digits by default, JSON_REAL_PRECISION otherwise): 17 always reads back
 * but is rarely the shortest, fewer digits lose some values. For a normal
 * double 15 digits (DBL_DIG) give its shortest form whenever that has at
 * most 15, so 15, 16, 17 would do; subnormals carry fewer digits (5e-324),
 * so precisions are tried from 1 up and the first that reads back wins:
 * at most 17 tries, on answers with a handful of reals. */
#include "transport/json_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_real_text(double value, char out[JSON_REAL_TEXT_MAX]) {
  int precision = 1;
  for (; precision <= 17; precision++) {
    snprintf(out, JSON_REAL_TEXT_MAX, "%.*g", precision, value);
    if (strtod(out, NULL) == value)
      break;
  }
  /* %g writes 100 in one digit as 1e+02: below 1e17 the integral digits
   * are written out, as jansson does ("100.0"). */
  const char *e = strchr(out, 'e');
  int exponent = e != NULL ? atoi(e + 1) : 0;
  if (e != NULL && exponent >= precision && exponent < 17)
    snprintf(out, JSON_REAL_TEXT_MAX, "%.*g", exponent + 1, value);
  if (strpbrk(out, ".eEn") == NULL) /* "1" would read back as an integer */
    strncat(out, ".0", JSON_REAL_TEXT_MAX - strlen(out) - 1);
}

/* snprintf(out, JSON_REAL_TEXT_MAX, "%.*g", precision, value) without
 * printf, for the values the request log writes on every request (times
 * in ms, at precision 6): 1e-4 <= |value| < 1e9 and precision 1 to 9, else
 * false and nothing written. One rounding scales the value to `precision`
 * digits, so its error is far below 1e-6 of a unit in the last digit; a
 * value that close to a tie between two roundings is left to snprintf,
 * which rounds the exact binary value. A unit test holds the two equal. */
static bool g_format(double value, int precision, char *out) {
  static const double powers[] = {1e0, 1e1, 1e2, 1e3,  1e4,  1e5,  1e6,
                                  1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13};
  double magnitude = fabs(value);
  if (precision < 1 || precision > 9 || !(magnitude >= 1e-4 && magnitude < 1e9))
    return false;
  int exponent = (int)floor(log10(magnitude));
  int shift = precision - 1 - exponent; /* -8 to 12 */
  double scaled = shift >= 0 ? magnitude * powers[shift] : magnitude / powers[-shift];
  /* Next to a power of ten log10 may be one off: snprintf then. */
  if (scaled < powers[precision - 1] || scaled >= powers[precision])
    return false;
  double whole = floor(scaled), part = scaled - whole;
  if (fabs(part - 0.5) < 1e-6)
    return false;
  uint64_t rounded = (uint64_t)whole + (part > 0.5);
  if (rounded == (uint64_t)powers[precision]) { /* 9.999995 to 10.0000 */
    rounded /= 10;
    exponent++;
  }
  char digits[12];
  for (int i = precision - 1; i >= 0; i--, rounded /= 10)
    digits[i] = (char)('0' + rounded % 10);
  int last = precision - 1; /* the last digit kept: %g drops trailing zeros */
  while (last > 0 && digits[last] == '0')
    last--;
  char *at = out;
  if (value < 0)
    *at++ = '-';
  if (exponent < -4 || exponent >= precision) {
    *at++ = digits[0];
    if (last > 0) {
      *at++ = '.';
      memcpy(at, digits + 1, (size_t)last);
      at += last;
    }
    at += sprintf(at, "e%c%02d", exponent < 0 ? '-' : '+', abs(exponent));
  } else if (exponent >= 0) {
    memcpy(at, digits, (size_t)exponent + 1);
    at += exponent + 1;
    if (last > exponent) {
      *at++ = '.';
      memcpy(at, digits + exponent + 1, (size_t)(last - exponent));
      at += last - exponent;
    }
  } else {
    memcpy(at, "0.000", (size_t)(1 - exponent)); /* "0." and -exponent - 1 zeros */
    at += 1 - exponent;
    memcpy(at, digits, (size_t)last + 1);
    at += last + 1;
  }
  *at = '\0';
  return true;
}

void json_real_text_jansson(double value, int precision, char out[JSON_REAL_TEXT_MAX]) {
  int length = g_format(value, precision, out)
                   ? (int)strlen(out)
                   : snprintf(out, JSON_REAL_TEXT_MAX, "%.*g", precision, value);
  if (strpbrk(out, ".e") == NULL && length + 2 < JSON_REAL_TEXT_MAX)
    memcpy(out + length, ".0", 3);
  /* "1e+06" as 1e6, "1e-07" as 1e-7: no '+', no leading zeros. */
  char *e = strchr(out, 'e');
  if (e != NULL) {
    char *digits = e + 1 + (e[1] == '-'), *from = e + 2;
    while (*from == '0')
      from++;
    memmove(digits, from, strlen(from) + 1);
  }
}

/* The writer's buffer and state: json_line (json_text.h), whose reals
 * json_text writes in the shortest form, json_text_precision and the lines
 * in jansson's %.*g. */
typedef json_line text;

static void put(text *t, const char *bytes, size_t n) {
  if (t->failed)
    return;
  if (t->length + n + 1 > t->capacity) {
    size_t capacity = (t->capacity + n + 1) * 2;
    char *grown = realloc(t->data, capacity);
    if (grown == NULL) {
      t->failed = true;
      return;
    }
    t->data = grown;
    t->capacity = capacity;
  }
  memcpy(t->data + t->length, bytes, n);
  t->length += n;
  t->data[t->length] = '\0';
}

/* A string with jansson's escapes: quote, backslash, the controls. */
static void put_string(text *t, const char *s, size_t n) {
  put(t, "\"", 1);
  size_t run = 0; /* bytes copied as they are, waiting */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *escape = NULL;
    char hex[8];
    switch (c) {
    case '"': escape = "\\\""; break;
    case '\\': escape = "\\\\"; break;
    case '\b': escape = "\\b"; break;
    case '\f': escape = "\\f"; break;
    case '\n': escape = "\\n"; break;
    case '\r': escape = "\\r"; break;
    case '\t': escape = "\\t"; break;
    default:
      if (c < 0x20) {
        snprintf(hex, sizeof hex, "\\u%04X", c);
        escape = hex;
      }
    }
    if (escape == NULL)
      continue;
    put(t, s + run, i - run);
    put(t, escape, strlen(escape));
    run = i + 1;
  }
  put(t, s + run, n - run);
  put(t, "\"", 1);
}

/* A real in the text's form; NaN and the infinities have none. */
static void put_real(text *t, double value) {
  if (!isfinite(value)) {
    t->failed = true;
    return;
  }
  char number[JSON_REAL_TEXT_MAX];
  if (t->precision == 0)
    json_real_text(value, number);
  else
    json_real_text_jansson(value, t->precision, number);
  put(t, number, strlen(number));
}

static void put_value(text *t, const json_t *v);

static int compare_keys(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object's members in key order (strcmp's, as jansson's JSON_SORT_KEYS
 * orders keys without NULs). */
static void put_sorted_members(text *t, const json_t *object) {
  size_t count = json_object_size(object);
  const char *small[64];
  const char **keys = count <= 64 ? small : malloc(count * sizeof *keys);
  if (keys == NULL) {
    t->failed = true;
    return;
  }
  size_t at = 0;
  const char *key;
  const json_t *member;
  json_object_foreach((json_t *)object, key, member) keys[at++] = key;
  qsort(keys, count, sizeof *keys, compare_keys);
  for (size_t i = 0; i < count; i++) {
    if (i > 0)
      put(t, ",", 1);
    put_string(t, keys[i], strlen(keys[i]));
    put(t, ":", 1);
    put_value(t, json_object_get(object, keys[i]));
  }
  if (keys != small)
    free(keys);
}

static void put_value(text *t, const json_t *v) {
  char number[JSON_REAL_TEXT_MAX];
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    put(t, "{", 1);
    const char *key;
    const json_t *member;
    bool first = true;
    if (t->sorted)
      put_sorted_members(t, v);
    else
      json_object_foreach((json_t *)v, key, member) {
        if (!first)
          put(t, ",", 1);
        first = false;
        put_string(t, key, strlen(key));
        put(t, ":", 1);
        put_value(t, member);
      }
    put(t, "}", 1);
    break;
  }
  case JSON_ARRAY:
    put(t, "[", 1);
    for (size_t i = 0; i < json_array_size(v); i++) {
      if (i > 0)
        put(t, ",", 1);
      put_value(t, json_array_get(v, i));
    }
    put(t, "]", 1);
    break;
  case JSON_STRING: put_string(t, json_string_value(v), json_string_length(v)); break;
  case JSON_INTEGER:
    snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    put(t, number, strlen(number));
    break;
  case JSON_REAL: put_real(t, json_real_value(v)); break;
  case JSON_TRUE: put(t, "true", 4); break;
  case JSON_FALSE: put(t, "false", 5); break;
  case JSON_NULL: put(t, "null", 4); break;
  }
}

/* A comma before every member or element but the first of its object or
 * array; then the key, when there is one. */
static void put_key(json_line *line, const char *key) {
  if (line->more)
    put(line, ",", 1);
  line->more = true;
  if (key != NULL) {
    put_string(line, key, strlen(key));
    put(line, ":", 1);
  }
}

void json_line_open(json_line *line, const char *key, char bracket) {
  if (line == NULL)
    return;
  put_key(line, key);
  put(line, &bracket, 1);
  line->more = false;
}

void json_line_close(json_line *line, char bracket) {
  if (line == NULL)
    return;
  put(line, &bracket, 1);
  line->more = true;
}

void json_line_string(json_line *line, const char *key, const char *value) {
  if (line == NULL)
    return;
  put_key(line, key);
  put_string(line, value, strlen(value));
}

void json_line_int(json_line *line, const char *key, long long value) {
  if (line == NULL)
    return;
  char number[24];
  int length = snprintf(number, sizeof number, "%lld", value);
  put_key(line, key);
  put(line, number, (size_t)length);
}

void json_line_real(json_line *line, const char *key, double value) {
  if (line == NULL)
    return;
  put_key(line, key);
  put_real(line, value);
}

void json_line_value(json_line *line, const char *key, const json_t *value) {
  if (line == NULL || value == NULL)
    return;
  put_key(line, key);
  put_value(line, value);
}

void json_line_clear(json_line *line) {
  line->length = 0;
  line->failed = false;
  line->more = false;
  if (line->data != NULL)
    line->data[0] = '\0';
}

void json_line_free(json_line *line) {
  free(line->data);
  *line = (json_line){.precision = line->precision};
}

char *json_text(const json_t *value, size_t *length) {
  return json_text_precision(value, 0, length);
}

/* json_text_precision, and json_text_sorted with `sorted`. */
static char *text_of(const json_t *value, int precision, bool sorted, size_t *length) {
  text t = {.precision = precision, .sorted = sorted};
  if (value == NULL)
    return NULL;
  put_value(&t, value);
  if (t.failed || t.data == NULL) {
    free(t.data);
    return NULL;
  }
  if (length != NULL)
    *length = t.length;
  return t.data;
}

char *json_text_precision(const json_t *value, int precision, size_t *length) {
  return text_of(value, precision, false, length);
}

char *json_text_sorted(const json_t *value, size_t *length) {
  return text_of(value, 17, true, length);
}
