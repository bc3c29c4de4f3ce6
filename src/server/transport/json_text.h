/* The daemon's JSON answers as text: jansson's compact form, but every real
 * number written in the fewest digits that read back as the same double
 * (0.18, not jansson's 0.17999999999999999). */
#ifndef DUNGEOND_JSON_TEXT_H
#define DUNGEOND_JSON_TEXT_H

#include <stddef.h>

#include <jansson.h>

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

/* A real as jansson writes it with `precision` digits: %.*g, ".0" after an
 * integral value, the exponent without '+' or leading zeros. */
void json_real_text_jansson(double value, int precision, char out[JSON_REAL_TEXT_MAX]);

#endif
