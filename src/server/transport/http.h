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

#include "api/negotiate.h"
#include "dungeon/dungeon.h"
#include "transport/linger.h"

#define REQUEST_ID_MAX 65
#define REQUEST_PATH_MAX 160

struct server;
struct conn;
struct detached;
typedef struct request request;

/* One libmicrohttpd daemon on the loop: the API, or the health probes. */
typedef struct listener {
  struct server *srv;       /* back pointer */
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

/* Called with a request whose headers and body are read: it must answer
 * with http_respond, now or after suspending it. */
typedef void (*http_handler_fn)(request *r);

/* The transport's state in the server. */
typedef struct http {
  listener api;              /* the API listener (listen) */
  listener health;           /* the probe listener (health_listen); mhd NULL when off */
  uv_timer_t sweep;          /* connection deadlines, stalls, detached answers, MHD safety run */
  uv_timer_t wake;           /* runs MHD soon after a resume */
  http_handler_fn handle;    /* the routes */
  long requests_open;        /* request contexts alive (not completed) */
  struct detached *detached; /* answers written past MHD to half-closed clients */
  lingering linger;          /* sockets answered early, drained before they close */
  uint32_t id_prefix;        /* random part of generated request ids */
  uint64_t id_counter;       /* sequence part of generated request ids */
} http;

/* One HTTP request, from its headers to MHD's completion callback. The
 * transport fills the first part; the handlers fill what the answer, its
 * headers and the log line report. */
struct request {
  struct server *srv;                /* back pointer */
  struct conn *conn;                 /* the guard's record of its connection, or NULL */
  struct MHD_Connection *connection; /* MHD's connection */
  bool health;                       /* came in on the health listener */
  uint64_t client;                   /* who asked, for fairness: its IPv4 address, or its token */
  uint64_t start_ns;                 /* first call of the access handler */
  char id[REQUEST_ID_MAX];           /* X-Request-Id, echoed or made */
  char method[8];                    /* "GET", "POST"... (truncated) */
  bool http11;                       /* sent as HTTP/1.1 (Host required) */
  char path[REQUEST_PATH_MAX];       /* URL path: printable UTF-8, other bytes as %XX */
  int path_problem;                  /* 0, or 400 (not UTF-8 / controls) or 414 (too long) */
  int target_problem;                /* 0, or 400 (%00) or 414 (too many query parameters) */
  char *body;                        /* request body so far, malloc'd */
  size_t body_length, body_capacity;
  bool answered;                /* a response was queued */
  bool detached;                /* answered past MHD (half-closed client) */
  bool suspended;               /* waiting for http_resume */
  struct MHD_Response *pending; /* built while suspended, queued on resume */
  int status;                   /* status sent */
  int pending_status;           /* status of `pending` */
  size_t bytes_out;             /* response body length */
  /* Set by the handlers: Server-Timing, X-Pregen and the log line. */
  bool has_job;                                 /* a generation job ran for it */
  double queue_ms, generation_ms, serialise_ms; /* -1 when no job */
  const char *algorithm;                        /* static name, for stats and the log */
  uint64_t seed;                                /* the level's seed, for the log */
  const char *pregen;                           /* X-Pregen: hit, wait, miss; NULL otherwise */
  /* Level negotiation (level_response.c), for the level routes. */
  int format;            /* JOB_FORMAT_*, -1: none acceptable */
  job_encoding encoding; /* gzip, ETag and cacheability of a level answer */
  dg_svg_options svg;    /* SVG options from the query (svg_graph, svg_labels, svg_tile) */
};

/* Starts the API listener and, when health_listen is set, the probe
 * listener, both calling `handle`; 0, or an error code with `err` naming
 * the listen key. */
int http_start(struct server *s, http_handler_fn handle, dg_error *err);
/* Runs both listeners' MHD now (after something changed outside MHD). */
void http_pump(struct server *s);
/* Stops both listeners and closes the transport's handles. */
void http_stop(struct server *s);
/* True when no request context is alive and no detached answer is being
 * written: the transport holds nothing a drain must wait for. */
bool http_quiet(const struct server *s);
/* The drain timeout: every connection not waiting for a job is closed and
 * every detached answer ended. */
void http_close_all(struct server *s);

/* Queues the answer of `r` now, or keeps it until http_resume when `r` is
 * suspended. `body` is malloc'd and taken (freed even on failure; NULL
 * means out of memory and answers 500). `headers` is name, value, ...,
 * NULL (may be NULL). Every 503 gets Retry-After (limits.retry_after_s).
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

/* A request header's value, or NULL. */
const char *http_header(const request *r, const char *name);

#endif
