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
/* Lines log_write could not write whole (a full disk, RLIMIT_FSIZE with
 * SIGXFSZ ignored, a closed pipe): counted, never fatal. Any thread. */
unsigned long long log_write_failures(void);

#endif
