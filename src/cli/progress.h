/* Progress of long CLI work on stderr, so that a minute of work is never a
 * minute of silence (issue 25 item 5). On a terminal one line is rewritten
 * in place, at most ten times a second; otherwise (a pipe, a CI log) a line
 * is printed at each step of a phase of few steps (a timed run) and at most
 * every five seconds within one (a thousand seeds). The
 * figures on stdout are untouched, so `--json` stays one JSON object. */
#ifndef DUNGEON_CLI_PROGRESS_H
#define DUNGEON_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cli_progress {
  FILE *stream;      /* where the lines go (stderr) */
  bool tty;          /* stream is a terminal: rewrite one line */
  bool shown;        /* a line is on screen and not yet ended */
  uint64_t last_ns;  /* when the last line was written */
  const char *phase; /* the phase of the last line (a string literal) */
  long done;         /* the step of the last line */
} cli_progress;

/* Starts reporting on `stream` (not owned). */
void cli_progress_init(cli_progress *progress, FILE *stream);

/* Reports that `done` of `total` steps of `phase` (a string that outlives
 * the report) are over, with a short printf-style note (may be NULL). Prints
 * only when a line is due: a new phase, or enough time since the last. */
void cli_progress_step(cli_progress *progress, const char *phase, long done, long total,
                       const char *note_format, ...) __attribute__((format(printf, 5, 6)));

/* Ends the progress line on a terminal, so that what follows starts on a
 * line of its own. */
void cli_progress_end(cli_progress *progress);

#endif
