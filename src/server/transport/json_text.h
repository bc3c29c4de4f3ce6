/* The daemon's JSON answers as text: jansson's compact form, but every real
 * number written in the fewest digits that read back as the same double
 * (0.18, not jansson's 0.17999999999999999). */
#ifndef DUNGEOND_JSON_TEXT_H
#define DUNGEOND_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* A JSON text written piece by piece, for a line written on every request
 * (the request log's), without building a json_t first: strings with
 * jansson's escapes, reals as json_text (precision 0) or as
 * json_text_precision writes them. Start from {.precision = P} zeroed;
 * every writer takes the key of the member it writes (NULL inside an
 * array) and ignores a NULL line, so a caller without a line writes
 * nothing. An allocation failure sets `failed`; the text is then incomplete
 * and later writes are ignored until json_line_clear. One thread's. */
typedef struct json_line {
  char *data;      /* the text so far, NUL-terminated once anything is written */
  size_t length;   /* bytes written */
  size_t capacity; /* bytes allocated */
  bool failed;     /* an allocation failed, or a real had no JSON form */
  int precision;   /* reals: 0 the shortest, else jansson's %.*g */
  bool more;       /* the open object or array has a member already: a comma first */
  bool sorted;     /* json_line_value writes objects with their keys in order */
} json_line;
/* Opens an object ('{') or array ('['), as member `key` of the one open. */
void json_line_open(json_line *line, const char *key, char bracket);
/* Closes the innermost open object ('}') or array (']'). */
void json_line_close(json_line *line, char bracket);
void json_line_string(json_line *line, const char *key, const char *value);
void json_line_int(json_line *line, const char *key, long long value);
void json_line_real(json_line *line, const char *key, double value);
/* Any value, as json_text writes it (nothing for a NULL value). */
void json_line_value(json_line *line, const char *key, const json_t *value);
/* Empties the line for the next one, keeping its buffer. */
void json_line_clear(json_line *line);
/* Frees the line's buffer; it is empty and usable after. */
void json_line_free(json_line *line);

/* Writes `value` into `out` (at least JSON_REAL_TEXT_MAX bytes) in the
 * shortest form that strtod reads back as `value`, with ".0" added to an
 * integral value so that it stays a real. */
#define JSON_REAL_TEXT_MAX 32
void json_real_text(double value, char out[JSON_REAL_TEXT_MAX]);

/* `value` as compact JSON (keys in insertion order): a malloc'd,
 * NUL-terminated text the caller frees, its length in *length (may be
 * NULL); NULL on ENOMEM or a value with no JSON form (NaN). */
char *json_text(const json_t *value, size_t *length);

/* json_text with reals as json_dumps writes them under
 * JSON_REAL_PRECISION(precision) (1 to 17): the same bytes as
 * json_dumps(value, JSON_COMPACT | JSON_REAL_PRECISION(precision)) without
 * its per-piece callbacks, for the log's line per request. precision 0:
 * the shortest reals, as json_text. */
char *json_text_precision(const json_t *value, int precision, size_t *length);

/* `value` as json_dumps(value, JSON_COMPACT | JSON_SORT_KEYS) writes it,
 * byte for byte (reals at jansson's default 17 digits), at a fraction of
 * its cost: the canonical request inside every level id (level_id.c).
 * Malloc'd as json_text's, NULL on ENOMEM or a value with no JSON form. */
char *json_text_sorted(const json_t *value, size_t *length);

/* A real as jansson writes it with `precision` digits: %.*g, ".0" after an
 * integral value, the exponent without '+' or leading zeros. */
void json_real_text_jansson(double value, int precision, char out[JSON_REAL_TEXT_MAX]);

#endif
