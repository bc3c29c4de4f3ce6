/* See linger.h. Each drained socket is a uv_poll_t on its descriptor,
 * reading until end-of-file, an error, or the set's byte bound; the sweep
 * ends those past their time. */
#include "transport/linger.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dungeon/cancel.h"

typedef struct lingerer {
  uv_poll_t poll;               /* readable events of `fd` */
  lingering *set;               /* back pointer */
  struct lingerer *prev, *next; /* the set's list */
  int fd;                       /* the socket, ours to close */
  uint64_t until_ns;            /* end of the drain */
  uint64_t discarded;           /* bytes thrown away */
} lingerer;

void linger_init(lingering *set, uv_loop_t *loop, long count_max, uint64_t time_ns,
                 uint64_t bytes_max) {
  *set =
      (lingering){.loop = loop, .count_max = count_max, .time_ns = time_ns, .bytes_max = bytes_max};
}

static void on_closed(uv_handle_t *handle) {
  lingerer *g = handle->data;
  close(g->fd);
  free(g);
}

static void end(lingerer *g) {
  lingering *set = g->set;
  if (g->prev != NULL)
    g->prev->next = g->next;
  else
    set->head = g->next;
  if (g->next != NULL)
    g->next->prev = g->prev;
  set->count--;
  uv_close((uv_handle_t *)&g->poll, on_closed);
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  (void)events;
  lingerer *g = poll->data;
  char sink[16384];
  for (;;) {
    if (status != 0 || g->discarded >= g->set->bytes_max)
      break;
    ssize_t got = recv(g->fd, sink, sizeof sink, MSG_DONTWAIT);
    if (got > 0) {
      g->discarded += (uint64_t)got;
      g->set->discarded += (uint64_t)got;
      continue;
    }
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return; /* more later */
    break;    /* end-of-file: the client read the answer and closed */
  }
  end(g);
}

void linger_start(lingering *set, int fd) {
  lingerer *g = NULL;
  /* The answer is complete: the client reads it, then end-of-file. */
  shutdown(fd, SHUT_WR);
  if (set->closed || set->count >= set->count_max || set->time_ns == 0 || set->bytes_max == 0 ||
      (g = calloc(1, sizeof *g)) == NULL || uv_poll_init_socket(set->loop, &g->poll, fd) != 0)
    goto fail;
  g->set = set;
  g->fd = fd;
  g->until_ns = dg_monotonic_ns() + set->time_ns;
  g->poll.data = g;
  g->next = set->head;
  if (set->head != NULL)
    set->head->prev = g;
  set->head = g;
  set->count++;
  uv_poll_start(&g->poll, UV_READABLE, on_readable);
  return;
fail:
  free(g);
  close(fd);
}

void linger_sweep(lingering *set, uint64_t now_ns) {
  for (lingerer *g = set->head, *next; g != NULL; g = next) {
    next = g->next;
    if (now_ns >= g->until_ns)
      end(g);
  }
}

void linger_close_all(lingering *set) {
  set->closed = true;
  while (set->head != NULL)
    end(set->head);
}
