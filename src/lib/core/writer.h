/* Internal: the library's one growable text buffer, with the few JSON
 * writers the level serialiser, the generators' extensions (their
 * output.c) and the renderers need, and printf-style text for the ASCII
 * outputs. Appending never fails part-way silently: the first
 * allocation failure sets `failed` and later writes are ignored, so callers
 * check once at the end. */
#ifndef DUNGEON_JSON_WRITER_H
#define DUNGEON_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dungeon/cancel.h"

/* Bytes written between two polls of the writer's dg_cancel: a poll reads
 * the clock, so not on every write, yet a multi-megabyte level still stops
 * within a fraction of a millisecond of its deadline. */
#define DG_WRITER_POLL_BYTES 65536

typedef struct dg_writer {
  char *text;        /* NUL-terminated when length > 0; owned */
  size_t length;     /* bytes written */
  size_t capacity;   /* bytes allocated */
  bool failed;       /* an allocation failed or the cancel fired: the text is incomplete */
  dg_cancel *cancel; /* polled every DG_WRITER_POLL_BYTES; may be NULL */
  size_t next_poll;  /* length at which to poll `cancel` next */
  int cancel_rc;     /* DG_ECANCELED / DG_ETIMEDOUT once the cancel fired, else 0 */
} dg_writer;

/* Polls w->cancel now (also done every DG_WRITER_POLL_BYTES by the writers
 * below); on a non-zero code the writer fails with it. Returns that code. */
int dg_writer_poll(dg_writer *w);

void dg_writer_raw(dg_writer *w, const char *bytes, size_t length);
void dg_writer_char(dg_writer *w, char c);
void dg_writer_string(dg_writer *w, const char *text, size_t length); /* quoted, escaped */
void dg_writer_cstring(dg_writer *w, const char *text);               /* quoted, escaped */
void dg_writer_int(dg_writer *w, int64_t value);
void dg_writer_uint(dg_writer *w, uint64_t value);
void dg_writer_real(dg_writer *w, double value);               /* %.10g, always with '.' or 'e' */
void dg_writer_key(dg_writer *w, const char *key, bool first); /* [,]"key": */
void dg_writer_bool(dg_writer *w, bool value);                 /* true / false */

/* printf-style text, for the human-readable outputs (ASCII graph lists,
 * legends). */
__attribute__((format(printf, 2, 3))) void dg_writer_format(dg_writer *w, const char *format, ...);

/* Hands the text over: 0 with *text (malloc'd, NUL-terminated, "" when
 * nothing was written; the caller frees it) and *length (may be NULL), or
 * the writer's failure code with nothing handed over (the buffer freed). */
int dg_writer_take(dg_writer *w, char **text, size_t *length);

/* A string literal, its length counted by the compiler. */
#define dg_writer_literal(w, literal) dg_writer_raw((w), "" literal, sizeof(literal) - 1)

/* 0 while the writer is intact, else why it failed: the cancel's code, or
 * DG_ENOMEM. */
int dg_writer_status(const dg_writer *w);

#endif
