/* The real daemon inside a fuzz target: the configuration of
 * tests/fuzz/dungeond-fuzz.json and its room sets, loaded once, then
 * servers started and stopped as dungeond's main() does (all of
 * src/server but main.c), on a free loopback port, and HTTP requests sent
 * to them over real sockets while the calling thread runs the loop. */
#ifndef FUZZ_DAEMON_H
#define FUZZ_DAEMON_H

#include <stddef.h>

#include "daemon.h"

/* The loaded configuration and room sets, shared by every server the
 * target starts. Aborts when they cannot be loaded (a broken harness). */
typedef struct fuzz_setup {
  config cfg;
  dg_context *roomsets;
} fuzz_setup;

const fuzz_setup *fuzz_setup_get(void);

/* Starts the daemon on `loop` (initialised here) with a zeroed `s`, seeds
 * fixed so runs repeat. Aborts on failure. */
void fuzz_server_start(server *daemon, uv_loop_t *loop);

/* SIGTERM's path: drains, runs the loop until every handle is closed and
 * closes it. Aborts when handles stay open (a leak the fuzzer must see). */
void fuzz_server_stop(server *daemon, uv_loop_t *loop);

/* Sends the `length` bytes of one raw HTTP request on a new connection and
 * runs the loop until the daemon has answered and closed it, or `length`
 * could not be sent. The answer's status code goes to *status (0 when
 * none came) and its body, NUL-terminated and malloc'd, to *body (may be
 * NULL: not kept). Aborts when no answer comes within FUZZ_ANSWER_S. */
#define FUZZ_ANSWER_S 20
void fuzz_http(server *daemon, uv_loop_t *loop, const char *raw, size_t length, int *status,
               char **body);

/* fuzz_http in two halves, for requests in flight together: the first
 * connects and sends (running the loop meanwhile) and returns the socket;
 * the second reads the answer until the daemon closes, then closes it.
 * Closing the socket instead is a client that went away. */
int fuzz_http_send(server *daemon, uv_loop_t *loop, const char *raw, size_t length);
void fuzz_http_answer(uv_loop_t *loop, int fd, int *status, char **body);

#endif
