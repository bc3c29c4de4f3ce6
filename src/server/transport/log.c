/* See log.h. */
#include "transport/log.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "transport/json_text.h"

void log_time(char when[LOG_TIME_MAX]) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm utc;
  gmtime_r(&now.tv_sec, &utc);
  char seconds[32];
  strftime(seconds, sizeof seconds, "%Y-%m-%dT%H:%M:%S", &utc);
  snprintf(when, LOG_TIME_MAX, "%s.%03ldZ", seconds, now.tv_nsec / 1000000);
}

/* The one counter the log keeps; a process has one stderr. */
static atomic_ullong write_failures;

unsigned long long log_write_failures(void) {
  return atomic_load(&write_failures);
}

/* Lines in `length` bytes of text: what a failed write cut or lost. */
static unsigned long long lines_in(const char *text, size_t length) {
  unsigned long long lines = 0;
  for (const char *at = text; (at = memchr(at, '\n', length - (size_t)(at - text))) != NULL; at++)
    lines++;
  return lines;
}

/* One fwrite of whole lines, so lines from one process never interleave;
 * a short write counts the lines it cut or lost. */
static void write_lines(const char *text, size_t length) {
  if (length > 0 && fwrite(text, 1, length, stderr) != length) {
    atomic_fetch_add(&write_failures, lines_in(text, length));
    clearerr(stderr);
  }
}

/* `line` (taken) as its text with a newline, malloc'd, its length with the
 * newline in *length; NULL for none or on ENOMEM. json_dumps(line,
 * JSON_COMPACT | JSON_REAL_PRECISION(6)), byte for byte (a unit test holds
 * them equal), at about half its cost: a sixth of the event loop's time
 * went to this line under load. */
static char *line_text(json_t *line, size_t *length) {
  *length = 0;
  char *text = line != NULL ? json_text_precision(line, 6, length) : NULL;
  json_decref(line);
  if (text != NULL)
    text[(*length)++] = '\n'; /* over the NUL: json_text_precision leaves room */
  return text;
}

void log_write(json_t *line) {
  size_t length = 0;
  char *text = line_text(line, &length);
  write_lines(text, length);
  free(text);
}

void log_batch_flush(log_batch *batch) {
  write_lines(batch->text, batch->length);
  batch->length = 0;
}

void log_batch_add(log_batch *batch, const char *text, size_t length) {
  if (batch->length + length + 1 > batch->capacity) {
    log_batch_flush(batch);
    if (length + 1 > batch->capacity) {
      size_t capacity = length + 1 > LOG_BATCH_BYTES ? length + 1 : LOG_BATCH_BYTES;
      char *grown = realloc(batch->text, capacity);
      if (grown == NULL) {
        log_batch_lost(1);
        return;
      }
      batch->text = grown;
      batch->capacity = capacity;
    }
  }
  memcpy(batch->text + batch->length, text, length);
  batch->text[batch->length + length] = '\n';
  batch->length += length + 1;
}

void log_batch_lost(unsigned long long lines) {
  atomic_fetch_add(&write_failures, lines);
}

void log_batch_free(log_batch *batch) {
  log_batch_flush(batch);
  free(batch->text);
  *batch = (log_batch){0};
}

void log_event(const char *level, const char *event, json_t *members) {
  char when[LOG_TIME_MAX];
  log_time(when);
  json_t *line = json_pack("{s:s, s:s, s:s}", "time", when, "level", level, "event", event);
  if (line != NULL && members != NULL)
    json_object_update(line, members);
  json_decref(members);
  log_write(line);
}
