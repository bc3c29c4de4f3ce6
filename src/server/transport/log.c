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

void log_write(json_t *line) {
  /* One fwrite per line, so lines from one process never interleave. */
  /* json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(6)), byte for byte
   * (a unit test holds them equal), at about half its cost: a sixth of the
   * event loop's time went to this line under load. */
  size_t length = 0;
  char *text = line != NULL ? json_text_precision(line, 6, &length) : NULL;
  json_decref(line);
  if (text != NULL) {
    text[length] = '\n';
    if (fwrite(text, 1, length + 1, stderr) != length + 1) {
      atomic_fetch_add(&write_failures, 1);
      clearerr(stderr);
    }
    free(text);
  }
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
