/* Lingering close (issue 24 item 5): a connection answered before its
 * request body was read (an early 413) still has the client's bytes
 * arriving. Closing it with unread data makes the kernel send a TCP reset,
 * and a client that writes its whole body before reading (Python's urllib,
 * curl with a small body) sees ECONNRESET instead of the answer. So such a
 * connection keeps a duplicate of its socket: once libmicrohttpd has sent
 * the answer and closed its own descriptor, the write side is shut (the
 * client reads the answer and end-of-file), and what the client still sends
 * is read and discarded until it closes, for at most a time and a byte
 * count. Loop thread only; knows nothing of MHD or the server. */
#ifndef DUNGEOND_LINGER_H
#define DUNGEOND_LINGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

struct lingerer;

/* The sockets being drained, and their bounds. */
typedef struct lingering {
  uv_loop_t *loop;       /* where their polls run */
  struct lingerer *head; /* sockets being drained */
  long count, count_max; /* how many; at most this many at once (more: closed at once) */
  uint64_t time_ns;      /* drain each for at most this long */
  uint64_t bytes_max;    /* and at most this many discarded bytes */
  uint64_t discarded;    /* bytes read and thrown away, all sockets */
  bool closed;           /* linger_close_all ran: no new ones */
} lingering;

/* Sets up an empty set with its bounds. */
void linger_init(lingering *set, uv_loop_t *loop, long count_max, uint64_t time_ns,
                 uint64_t bytes_max);
/* Takes `fd` (a connected socket whose answer is complete): shuts its
 * write side and drains it within the set's bounds, then closes it. When
 * it cannot (the set is full or closed, no memory), closes it now. */
void linger_start(lingering *set, int fd);
/* Ends the drains past their time (every sweep). */
void linger_sweep(lingering *set, uint64_t now_ns);
/* Ends every drain and refuses new ones (shutdown). */
void linger_close_all(lingering *set);

#endif
