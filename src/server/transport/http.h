/* The transport: libmicrohttpd driven from the libuv loop, and the request
 * contexts it hands to the routes. Nothing here knows a route, a job or a
 * lobby: a complete request goes to the handler given to http_start, which
 * answers it with http_respond (now, or after http_suspend ...
 * http_resume). This is the only file that suspends or resumes an MHD
 * connection, and the only one that runs MHD. conns.c (the connection
 * guard) is the other half of the transport. Everything runs on the loop
 * thread. */
#ifndef DUNGEOND_HTTP_H
#define DUNGEOND_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <microhttpd.h>
#include <uv.h>

#include "dungeon/dungeon.h"
#include "transport/conns.h"
#include "transport/json_text.h"
#include "transport/linger.h"
#include "transport/log.h"
#include "transport/trace_context.h"
#include "transport/transport.h"

#define REQUEST_ID_MAX 65
#define REQUEST_PATH_MAX 8192 /* fits a level_id (issue 21) and nginx's default request line */
#define REQUEST_PEER_MAX 56   /* "[IPv6]:port" */
#define HTTP_HEADERS_MAX 8    /* extra answer headers an owner adds to every answer */

struct http;
struct conn;
struct detached;
typedef struct request request;

/* One libmicrohttpd daemon on the loop: the API, or the health probes. */
typedef struct listener {
  struct http *owner;       /* the transport */
  struct MHD_Daemon *mhd;   /* external polling; NULL when not started */
  uv_poll_t poll;           /* watches MHD's epoll fd */
  uv_timer_t timer;         /* MHD_get_timeout */
  bool health;              /* the probe listener: /livez, /healthz, /readyz, /metrics */
  bool in_pump, pump_again; /* MHD_run re-entry guard */
  long open;                /* connections open */
  uint64_t closed;          /* connections closed so far */
  int port;                 /* the port actually bound */
  int listen_fd;            /* MHD's listening socket (conns_reclaim looks at its backlog) */
} listener;

/* What the transport calls back, all on the loop thread. */
typedef struct http_hooks {
  /* A request whose headers and body are read: it must be answered with
   * http_respond, now or after http_suspend. */
  void (*handle)(request *r);
  /* Fills `names` and `values` with up to HTTP_HEADERS_MAX headers that
   * every answer of `r` carries after X-Request-Id (Server-Timing...) and
   * returns how many; their text must live as long as `r`. May be NULL. */
  int (*answer_headers)(const request *r, const char **names, const char **values);
  /* `r` is done (answered, or its client left: status 499): the owner
   * records it and may add members to its log line, an open object
   * (`line` is NULL when log_requests is off, and json_line's writers then
   * write nothing; borrowed). The request is freed next. */
  void (*completed)(request *r, json_line *line);
} http_hooks;

/* The transport: both listeners, their requests and connections. */
typedef struct http {
  void *data;                /* the owner's, as libuv's handle->data */
  uv_loop_t *loop;           /* the loop it runs on */
  http_settings settings;    /* limits and listeners, fixed at http_start */
  http_hooks hooks;          /* the owner's callbacks */
  http_counters counters;    /* refusals and connection events */
  conns guard;               /* connection guard: limits, deadlines, send budget */
  listener api;              /* the API listener (listen) */
  listener health;           /* the probe listener (health_listen); mhd NULL when off */
  uv_timer_t sweep;          /* connection deadlines, stalls, detached answers, MHD safety run */
  uv_timer_t wake;           /* runs MHD soon after a resume */
  uv_timer_t log_flush;      /* writes the request lines LOG_FLUSH_MS after the first */
  log_batch request_log;     /* request lines not yet written */
  json_line log_text;        /* the request line being written; its buffer is kept */
  long requests_open;        /* request contexts alive (not completed) */
  struct detached *detached; /* answers written past MHD to half-closed clients */
  lingering linger;          /* sockets answered early, drained before they close */
  uint64_t id_counter;       /* sequence part of generated request ids */
  uint64_t span_key;         /* random at start: new trace and span ids */
  uint64_t span_counter;     /* ids made so far */
  bool draining;             /* answers say Connection: close */
  bool closed_all;           /* http_close_all ran: new connections are refused */
  bool stopped;              /* http_stop ran */
} http;

/* One HTTP request, from its headers to MHD's completion callback. The
 * transport fills it; the owner keeps its own per-request state in `data`
 * (settings.request_data_size bytes, zeroed, freed with the request). */
struct request {
  struct http *transport;              /* the transport that read it */
  void *data;                          /* the owner's per-request state */
  struct conn *conn;                   /* the guard's record of its connection, or NULL */
  struct MHD_Connection *connection;   /* MHD's connection */
  bool health;                         /* came in on the health listener */
  uint32_t peer_ip;                    /* the client's IPv4 address (network order), 0 for others */
  uint64_t start_ns;                   /* first call of the access handler */
  char id[REQUEST_ID_MAX];             /* X-Request-Id, echoed or made */
  char peer[REQUEST_PEER_MAX];         /* the client's address and port, "" if unknown */
  char forwarded[REQUEST_PEER_MAX];    /* X-Forwarded-For's client from a trusted proxy, or "" */
  trace_context trace;                 /* its W3C trace: the caller's or a new one, its span */
  char traceparent[TRACE_PARENT_TEXT]; /* the answer's traceparent: the daemon's span */
  char method[8];                      /* "GET", "POST"... (truncated) */
  bool http11;                         /* sent as HTTP/1.1 (Host required) */
  char path[REQUEST_PATH_MAX];         /* URL path: printable UTF-8, other bytes as %XX */
  int path_problem;                    /* 0, or 400 (not UTF-8 / controls) or 414 (too long) */
  int target_problem;                  /* 0, or 400 (%00) or 414 (too many query parameters) */
  char *body;                          /* request body so far, malloc'd */
  size_t body_length, body_capacity;
  bool answered;                /* a response was queued */
  bool detached;                /* answered past MHD (half-closed client) */
  bool suspended;               /* waiting for http_resume */
  struct MHD_Response *pending; /* built while suspended, queued on resume */
  int status;                   /* status sent */
  int pending_status;           /* status of `pending` */
  size_t bytes_out;             /* response body length */
};

/* Starts the API listener and, when settings->health_listen is set, the
 * probe listener on `loop`, calling `hooks`; `data` is the owner's
 * (h->data). 0, or an error code with `err` naming the listen key; on
 * error nothing is left open. */
int http_start(http *transport, uv_loop_t *loop, const http_settings *settings,
               const http_hooks *hooks, void *data, dg_error *err);
/* Runs both listeners' MHD now (after something changed outside MHD). */
void http_pump(http *transport);
/* From now on every answer says Connection: close (the drain). */
void http_begin_drain(http *transport);
/* Stops both listeners and closes the transport's handles. */
void http_stop(http *transport);
/* True when no request context is alive and no detached answer is being
 * written: the transport holds nothing a drain must wait for. */
bool http_quiet(const http *transport);
/* The drain timeout: every connection not waiting for a job is closed,
 * every detached answer ended, and new connections refused. */
void http_close_all(http *transport);

/* Queues the answer of `r` now, or keeps it until http_resume when `r` is
 * suspended. `body` is malloc'd and taken (freed even on failure; NULL
 * means out of memory and answers 500). `headers` is name, value, ...,
 * NULL (may be NULL). Every 503 gets Retry-After (settings.retry_after_s).
 * An answer that does not fit the send budget becomes a 503. */
void http_respond(request *r, int status, const char *content_type, char *body, size_t length,
                  const char *const *headers);
/* Holds `r` unanswered (its job runs); MHD keeps the connection. */
void http_suspend(request *r);
/* Sends what was answered while suspended. A resume does not wake the
 * loop in external-polling mode, so http_resume runs MHD at once, which
 * may run other requests' handlers before it returns: the caller must hold
 * no pointer into state those handlers change. http_resume_soon runs MHD
 * at the start of the loop's next turn instead, for a caller that answers
 * several requests while it walks its own state (lobby waiters); it costs
 * that turn (about 8% of throughput if every level took it, bench/http_ab.py). */
void http_resume(request *r);
void http_resume_soon(request *r);

/* 64 bits for a new trace or span id: a bijection of a counter keyed by
 * random bits read at start, so ids never repeat within a process. */
uint64_t http_new_id(http *transport);

/* A request header's value, or NULL. */
const char *http_header(const request *r, const char *name);
/* A query parameter's value (decoded, NULL when absent; "" for a name
 * without '='). */
const char *http_query(const request *r, const char *name);
/* Calls `each` for every query parameter in order, until it returns
 * false; returns how many it was called for. */
int http_query_each(const request *r, bool (*each)(void *data, const char *name, const char *value),
                    void *data);
/* True when the client of a suspended request has closed its connection
 * (it cannot read an answer any more). */
bool http_peer_gone(const request *r);

#endif
