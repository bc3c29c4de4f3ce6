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
  uint32_t ip;                        /* IPv4 address (network order), 0 for others */
  conn_phase phase;                   /* what it waits for */
  uint64_t deadline_ns;               /* CONN_HEADERS, CONN_BODY: cut after this */
  uint64_t idle_bytes;                /* bytes received when it went idle */
  size_t queued_bytes;                /* body bytes of its queued response; 0: none */
  uint64_t acked_bytes;               /* bytes the peer had acknowledged at the last look */
  uint64_t progress_ns;               /* when acked_bytes last grew (or the response was queued) */
  bool sending;                       /* in the send list */
  bool closing;                       /* shut down by us, waiting for MHD to notice */
} conn;

typedef struct conns {
  conn *all;                                  /* every open connection */
  conn *by_ip[CONNS_IP_BUCKETS];              /* per-IP table, chained */
  conn *send_head, *send_tail;                /* queued responses, oldest first */
  long send_queued;                           /* bytes of those responses */
  uint64_t sweep_ms;                          /* period of conns_sweep (http.c's timer) */
  uint64_t last_log_ns[CONN_EVENT_COUNT + 1]; /* rate limit of event lines (+1: MHD's) */
  uint64_t suppressed[CONN_EVENT_COUNT + 1];  /* lines not written since the last one */
} conns;

/* Chooses the sweep period, a tenth of the shortest deadline (loop
 * thread, before the listeners start). */
void conns_init(struct http *h);
/* Cuts connections past their header or body deadline (with a 408),
 * notices idle keep-alives starting a request, tracks readers' progress and
 * closes stalled ones while over the send budget. Every sweep_ms. */
void conns_sweep(struct http *h, uint64_t now);
/* Writes a small problem answer straight to the socket of `c`, for a
 * connection that has had none queued for its current request (MHD has
 * written nothing since the previous answer completed): with Connection:
 * close, and Retry-After on a 503. Best effort: the socket is non-blocking
 * and the text far below its buffer. */
void conns_write_raw(conn *c, int status, const char *slug, const char *title, const char *detail);

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
bool conns_admit(struct http *h, size_t bytes);
void conns_request_done(struct request *r);

/* Drain timeout: closes every connection not waiting for a job. */
void conns_close_all(struct http *h);

/* Counts `event` and writes its log line unless one was written less than a
 * second ago (then the next line says how many were suppressed). */
__attribute__((format(printf, 3, 4))) void conns_event(struct http *h, conn_event event,
                                                       const char *format, ...);

#endif
