/* Connection guard: what libmicrohttpd 0.9.75 does not do for a daemon that
 * faces hostile clients. It tracks every open connection of both listeners
 * (MHD_OPTION_NOTIFY_CONNECTION) and
 * - refuses a connection past limits.connections_per_ip_max from one IPv4
 *   address (MHD's accept-policy callback);
 * - cuts a connection whose request headers are not complete within
 *   limits.header_timeout_ms, or whose body is not complete within
 *   limits.body_timeout_ms after its headers (MHD only has an idle timeout,
 *   which a client sending one byte a second never reaches), with a 408;
 * - counts the response bytes queued to clients and not yet sent in one
 *   budget, limits.send_queue_bytes_max: past it, the connections whose
 *   reader has stalled (less than 64 KiB taken in limits.send_stall_ms) are
 *   closed, oldest response first, and a response that still does not fit
 *   is refused (503);
 * - closes what is left when the drain timeout runs out;
 * - counts and logs (one JSON line per kind and second at most) these
 *   events and libmicrohttpd's own accept errors (EMFILE...).
 * Everything here runs on the loop thread. */
#ifndef DUNGEOND_CONNS_H
#define DUNGEOND_CONNS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>
#include <uv.h>

#include "transport/transport.h"

#define CONNS_IP_BUCKETS 256            /* per-IP table buckets (a power of two) */
#define CONNS_SMALL_RESPONSE (64 << 10) /* never refused by the send budget */
#define CONNS_PENALTIES 4096            /* header-timeout penalties remembered at once */

struct http;
struct listener;
struct request;

typedef enum conn_phase {
  CONN_HEADERS, /* waiting for a request's headers: header deadline */
  CONN_BODY,    /* headers read, body arriving: body deadline */
  CONN_BUSY,    /* request read: generating or sending, no read deadline */
  CONN_IDLE,    /* keep-alive between requests: MHD's idle timeout */
} conn_phase;

typedef struct conn {
  struct http *transport;             /* back pointer */
  struct listener *owner;             /* the listener that accepted it */
  struct conn *prev, *next;           /* every open connection */
  struct conn *ip_prev, *ip_next;     /* same per-IP bucket */
  struct conn *send_prev, *send_next; /* connections with a queued response, oldest first */
  struct request *req;                /* the request being read or answered, or NULL */
  int fd;                             /* the socket */
  int linger_fd;        /* a dup of fd to drain once MHD closes it (early 413), or -1 */
  uint64_t ip;          /* peer key (conns_peer_key): IPv4 or IPv6 /64; 0 unknown */
  conn_phase phase;     /* what it waits for */
  uint64_t deadline_ns; /* CONN_HEADERS, CONN_BODY: cut after this */
  uint64_t idle_bytes;  /* bytes received when it went idle */
  uint64_t idle_ns;     /* CONN_IDLE: when it went idle */
  size_t queued_bytes;  /* body bytes of its queued response; 0: none */
  uint64_t acked_bytes; /* bytes the peer had acknowledged at the last look */
  uint64_t progress_ns; /* when acked_bytes last grew (or the response was queued) */
  bool sending;         /* in the send list */
  bool closing;         /* shut down by us, waiting for MHD to notice */
  int target_problem;   /* the current request target: 0, 400 (%00) or 414 (too big) */
  long target_params;   /* 414: query parameters the target had */
  size_t target_bytes;  /* 414: bytes the target had */
} conn;

/* A slot an address lost to header_timeout_ms: it counts against that
 * address's per-IP limit on that listener until `until_ns`. */
typedef struct conn_penalty {
  const struct listener *owner; /* the listener it trickled on */
  uint64_t ip;                  /* peer key (conns_peer_key) */
  uint64_t until_ns;            /* end of the penalty; 0: free entry */
} conn_penalty;

typedef struct conns {
  conn *all;                                  /* every open connection */
  conn *by_ip[CONNS_IP_BUCKETS];              /* per-IP table, chained */
  conn *send_head, *send_tail;                /* queued responses, oldest first */
  long send_queued;                           /* bytes of those responses */
  uint64_t sweep_ms;                          /* period of conns_sweep (http.c's timer) */
  conn_penalty penalties[CONNS_PENALTIES];    /* ring of header-timeout penalties */
  size_t penalty_next;                        /* next entry of the ring to (over)write */
  uint64_t last_log_ns[CONN_EVENT_COUNT + 1]; /* rate limit of event lines (+1: MHD's) */
  uint64_t suppressed[CONN_EVENT_COUNT + 1];  /* lines not written since the last one */
} conns;

/* Chooses the sweep period, a tenth of the shortest deadline (loop
 * thread, before the listeners start). */
void conns_init(struct http *transport);
/* Cuts connections past their header or body deadline (with a 408),
 * notices idle keep-alives starting a request, tracks readers' progress and
 * closes stalled ones while over the send budget. Every sweep_ms. */
void conns_sweep(struct http *transport, uint64_t now);
/* Writes a small problem answer straight to the socket of `c`, for a
 * connection that has had none queued for its current request (MHD has
 * written nothing since the previous answer completed): with Connection:
 * close, and Retry-After on a 503. Best effort: the socket is non-blocking
 * and the text far below its buffer. */
void conns_write_raw(conn *c, int status, const char *slug, const char *title, const char *detail);

/* The key limits.connections_per_ip_max counts a peer by (issue 21): an
 * IPv4 address (also IPv4-mapped IPv6) as 0xffffffff00000000 | address,
 * which no IPv6 unicast prefix is (ff00::/8 is multicast); an IPv6
 * address by its /64 prefix, the block one host or subscriber usually
 * holds whole, so rotating the low 64 bits does not escape the limit.
 * 0 for anything else. */
uint64_t conns_peer_key(const struct sockaddr *address, socklen_t length);

/* The peer key as text ("192.0.2.7", "2001:db8:1:2::/64", "?") into `out`
 * (at least INET6_ADDRSTRLEN + 4 bytes). */
const char *conns_peer_text(uint64_t key, char *out, size_t size);

/* libmicrohttpd callbacks; `cls` is the listener. */
enum MHD_Result conns_accept_policy(void *cls, const struct sockaddr *address,
                                    socklen_t address_length);
void conns_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                  enum MHD_ConnectionNotificationCode code);
void conns_mhd_log(void *cls, const char *format, va_list args);

/* The guard's record of an MHD connection, or NULL. */
conn *conns_of(struct MHD_Connection *connection);

/* Request milestones: its headers are read (body deadline starts), its body
 * is read, a response of `bytes` body bytes is queued, it completed. */
void conns_headers_read(struct request *r);
void conns_body_read(struct request *r);
void conns_response_queued(struct request *r, size_t bytes);
/* Whether a response of `bytes` fits limits.send_queue_bytes_max, after
 * closing stalled readers to make room. Responses of at most
 * CONNS_SMALL_RESPONSE bytes always fit (problem answers, probes). */
bool conns_admit(struct http *transport, size_t bytes);
void conns_request_done(struct request *r);

/* At the connection limit of `l` with a connection waiting in its listen
 * backlog (`listen_fd` readable): closes the longest-idle keep-alive of
 * `l`, so that the new connection is accepted on MHD's next run. Cheap
 * below the limit (no system call). Loop thread. */
void conns_reclaim(struct http *transport, struct listener *endpoint, int listen_fd);

/* The answer of `c` is sent before its request body was read (an early
 * 413): when MHD closes it, its socket is drained (linger.h) rather than
 * closed with unread bytes, which would reset it. */
void conns_linger(conn *c);

/* Drain timeout: closes every connection not waiting for a job. */
void conns_close_all(struct http *transport);

/* Counts `event` and writes its log line unless one was written less than a
 * second ago (then the next line says how many were suppressed). */
__attribute__((format(printf, 3, 4))) void conns_event(struct http *transport, conn_event event,
                                                       const char *format, ...);

#endif
