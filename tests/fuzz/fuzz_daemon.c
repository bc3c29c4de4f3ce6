/* See fuzz_daemon.h. The start-up is main.c's (configuration, room sets,
 * pool size, loop, server_start) with fixed entropy and without signal
 * handlers, so that libFuzzer keeps its own. */
#include "fuzz_daemon.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "state/roomsets.h"

#ifndef FUZZ_SOURCE_ROOT
#define FUZZ_SOURCE_ROOT "."
#endif

static void die(const char *what) {
  fprintf(stderr, "fuzz_daemon: %s\n", what);
  abort();
}

const fuzz_setup *fuzz_setup_get(void) {
  static fuzz_setup setup;
  static bool loaded;
  if (loaded)
    return &setup;
  config_defaults(&setup.cfg);
  dg_error err;
  dg_error_clear(&err);
  if (config_load(&setup.cfg, FUZZ_SOURCE_ROOT "/tests/fuzz/dungeond-fuzz.json", &err) != 0) {
    fprintf(stderr, "fuzz_daemon: %s: %s\n", err.field, err.message);
    die("cannot load tests/fuzz/dungeond-fuzz.json");
  }
  char dir[CONFIG_PATH_MAX + 64];
  snprintf(dir, sizeof dir, "%s/%s", FUZZ_SOURCE_ROOT, setup.cfg.roomsets_dir);
  if (roomsets_load(dir, true, stderr, &setup.roomsets) != 0)
    die("cannot load the fuzz room sets");
  /* As main.c: libuv sizes its pool once, at the first uv_queue_work. */
  char pool_size[16];
  snprintf(pool_size, sizeof pool_size, "%d",
           jobs_pool_size(setup.cfg.workers, (int)setup.cfg.limits.speculative_reserved_workers));
  setenv("UV_THREADPOOL_SIZE", pool_size, 1);
  loaded = true;
  return &setup;
}

void fuzz_server_start(server *daemon, uv_loop_t *loop) {
  const fuzz_setup *setup = fuzz_setup_get();
  if (uv_loop_init(loop) != 0)
    die("uv_loop_init");
  static const uint64_t entropy[2] = {0x5eed, 0xf022};
  dg_error err;
  dg_error_clear(&err);
  if (server_start(daemon, &setup->cfg, loop, setup->roomsets, entropy, false, &err) != 0) {
    fprintf(stderr, "fuzz_daemon: %s\n", err.message);
    die("server_start");
  }
}

void fuzz_server_stop(server *daemon, uv_loop_t *loop) {
  server_begin_drain(daemon);
  uint64_t give_up = dg_monotonic_ns() + (uint64_t)FUZZ_ANSWER_S * 1000000000u;
  while (uv_run(loop, UV_RUN_ONCE) != 0)
    if (dg_monotonic_ns() > give_up)
      die("the daemon did not stop after the drain");
  if (uv_loop_close(loop) != 0)
    die("handles still open after the drain");
}

/* Runs the loop for what is ready now, then waits up to 20 ms for the
 * loop or the client socket `fd` (events `want`). */
static void step(uv_loop_t *loop, int fd, short want) {
  uv_run(loop, UV_RUN_NOWAIT);
  int timeout = uv_backend_timeout(loop);
  if (timeout < 0 || timeout > 20)
    timeout = 20;
  struct pollfd fds[2] = {{fd, want, 0}, {uv_backend_fd(loop), POLLIN, 0}};
  poll(fds, 2, timeout);
}

static int parse_status(const char *answer, size_t length) {
  if (length < 12 || strncmp(answer, "HTTP/1.", 7) != 0)
    return 0;
  return atoi(answer + 9);
}

int fuzz_http_send(server *daemon, uv_loop_t *loop, const char *raw, size_t length) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    die("socket");
  struct sockaddr_in address = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)daemon->http.api.port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0 && errno != EINPROGRESS)
    die("connect");
  size_t sent = 0;
  uint64_t give_up = dg_monotonic_ns() + (uint64_t)FUZZ_ANSWER_S * 1000000000u;
  while (sent < length) {
    ssize_t wrote = send(fd, raw + sent, length - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (wrote > 0) {
      sent += (size_t)wrote;
      continue;
    }
    if (wrote < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN)
      break; /* the daemon closed early (413, 400): its answer is there to read */
    if (dg_monotonic_ns() > give_up)
      die("the request could not be sent within FUZZ_ANSWER_S seconds");
    step(loop, fd, POLLOUT);
  }
  uv_run(loop, UV_RUN_NOWAIT);
  return fd;
}

void fuzz_http_answer(uv_loop_t *loop, int fd, int *status, char **body) {
  *status = 0;
  if (body != NULL)
    *body = NULL;
  char *answer = NULL;
  size_t answer_length = 0, answer_capacity = 0;
  uint64_t give_up = dg_monotonic_ns() + (uint64_t)FUZZ_ANSWER_S * 1000000000u;
  for (;;) {
    if (answer_length + 4096 + 1 > answer_capacity) {
      answer_capacity = (answer_length + 4096 + 1) * 2;
      answer = realloc(answer, answer_capacity);
      if (answer == NULL)
        die("out of memory");
    }
    ssize_t got =
        recv(fd, answer + answer_length, answer_capacity - answer_length - 1, MSG_DONTWAIT);
    if (got > 0) {
      answer_length += (size_t)got;
      continue;
    }
    if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN))
      break;
    if (dg_monotonic_ns() > give_up)
      die("no answer within FUZZ_ANSWER_S seconds");
    step(loop, fd, POLLIN);
  }
  close(fd);
  /* Let the daemon see the close and complete the request. */
  uv_run(loop, UV_RUN_NOWAIT);
  answer[answer_length] = '\0';
  *status = parse_status(answer, answer_length);
  if (body != NULL) {
    const char *start = strstr(answer, "\r\n\r\n");
    *body = strdup(start != NULL ? start + 4 : "");
  }
  free(answer);
}

void fuzz_http(server *daemon, uv_loop_t *loop, const char *raw, size_t length, int *status,
               char **body) {
  fuzz_http_answer(loop, fuzz_http_send(daemon, loop, raw, length), status, body);
}
