/* See progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <unistd.h>

#include "dungeon/dungeon.h"

#define TTY_INTERVAL_NS 100000000ull   /* a terminal line at most ten times a second */
#define PIPE_INTERVAL_NS 5000000000ull /* a log line at most every five seconds */
#define COARSE_STEPS 100               /* a phase with at most this many steps reports each */

void cli_progress_init(cli_progress *progress, FILE *stream) {
  *progress = (cli_progress){.stream = stream, .tty = isatty(fileno(stream)) == 1};
}

void cli_progress_step(cli_progress *progress, const char *phase, long done, long total,
                       const char *note_format, ...) {
  uint64_t now = dg_monotonic_ns();
  /* Due: a new phase; a new step of a phase of few steps (a run of five),
   * or its last one; otherwise only after the interval (a phase of a
   * thousand seeds would be a thousand lines). */
  bool new_step = done != progress->done;
  bool due = progress->phase != phase || (new_step && (total <= COARSE_STEPS || done == total));
  uint64_t interval = progress->tty ? TTY_INTERVAL_NS : PIPE_INTERVAL_NS;
  if (!due && now - progress->last_ns < interval)
    return;
  progress->last_ns = now;
  progress->done = done;
  progress->phase = phase;
  if (progress->tty)
    fputs("\r\033[K", progress->stream);
  fprintf(progress->stream, "dungeon: %s %ld/%ld", phase, done, total);
  if (note_format != NULL) {
    va_list args;
    va_start(args, note_format);
    fputs(": ", progress->stream);
    vfprintf(progress->stream, note_format, args);
    va_end(args);
  }
  if (progress->tty) {
    progress->shown = true;
  } else {
    fputc('\n', progress->stream);
  }
  fflush(progress->stream);
}

void cli_progress_end(cli_progress *progress) {
  if (progress->tty && progress->shown)
    fputs("\r\033[K", progress->stream);
  progress->shown = false;
  fflush(progress->stream);
}
