/* The daemon's log, shared by the transport and the connection guard. */
#ifndef DUNGEOND_LOG_H
#define DUNGEOND_LOG_H

#include <jansson.h>

/* JSON lines on stderr. `log_time` writes the current
 * UTC time as "2026-12-03T08:59:36.123Z"; `log_write` prints `line`
 * (taken: its reference is released) as one line with one fwrite. */
#define LOG_TIME_MAX 48
void log_time(char when[LOG_TIME_MAX]);
void log_write(json_t *line);
/* Writes an event line: {"time", "level", "event"} then the members of
 * `members` (an object, taken; may be NULL), so that every line of the log
 * has its time. */
void log_event(const char *level, const char *event, json_t *members);
/* Lines gathered on one thread and written together: the request lines of
 * LOG_FLUSH_MS go out in one write, not a write each. A batch writes whole
 * lines only, so lines of other threads never land inside one; it writes
 * when it holds LOG_BATCH_BYTES, and when its owner flushes it (LOG_FLUSH_MS
 * after its first line, and when the daemon stops). One thread's; not
 * thread-safe. */
#define LOG_BATCH_BYTES 65536
#define LOG_FLUSH_MS 10
typedef struct log_batch {
  char *text;      /* the lines not yet written, each with its newline */
  size_t length;   /* bytes in text */
  size_t capacity; /* bytes text can hold */
} log_batch;
/* Adds the line of `length` bytes at `text` (without its newline); writes
 * the batch first when the line would not fit. A line the batch cannot
 * grow to hold (ENOMEM) is counted in log_write_failures. */
void log_batch_add(log_batch *batch, const char *text, size_t length);
/* Writes what the batch holds (one fwrite) and empties it. */
void log_batch_flush(log_batch *batch);
/* Counts `lines` lost before they reached a batch (a line whose text
 * could not be written whole, ENOMEM) in log_write_failures. */
void log_batch_lost(unsigned long long lines);
/* Flushes, then frees the batch's memory; it is empty and usable after. */
void log_batch_free(log_batch *batch);
/* Lines log_write or a batch could not write whole (a full disk,
 * RLIMIT_FSIZE with SIGXFSZ ignored, a closed pipe, ENOMEM): counted,
 * never fatal. Any thread. */
unsigned long long log_write_failures(void);

#endif
