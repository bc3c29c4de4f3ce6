/* The daemon's state and the pieces that share it. One struct, owned and
 * touched only by the libuv loop thread (DESIGN.md "One thread owns the
 * daemon's state"): libmicrohttpd runs in external-polling mode from that
 * loop, generation runs in the thread pool through jobs.c, and every
 * request's context lives from its first byte to MHD's completion
 * callback. */
#ifndef DUNGEOND_SERVER_H
#define DUNGEOND_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>
#include <uv.h>

#include "config.h"
#include "conns.h"
#include "dungeon/dungeon.h"
#include "jobs.h"
#include "lobby.h"
#include "stats.h"

#define REQUEST_ID_MAX 65
#define REQUEST_PATH_MAX 160

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
} listener;

typedef struct server {
  const config *cfg;           /* read-only configuration */
  uv_loop_t *loop;             /* the one loop */
  listener http;               /* the API listener (listen) */
  listener health;             /* the probe listener (health_listen); mhd NULL when off */
  conns conns;                 /* connection guard: limits, deadlines, send budget */
  uv_timer_t drain_timer;      /* SIGTERM: cancels running jobs when it fires */
  uv_signal_t sigterm, sigint; /* start the drain */
  jobs queues;                 /* generation queues */
  stats counters;              /* statistics */
  lobbies lobbies;             /* lobby table and pre-generated levels */
  dg_rng seeds;                /* chooses seeds for requests without one */
  uint32_t id_prefix;          /* random part of generated request ids */
  uint64_t id_counter;         /* sequence part of generated request ids */
  long requests_open;          /* request contexts alive (not completed) */
  struct detached *detached;   /* answers written past MHD to half-closed clients */
  bool draining;               /* SIGTERM/SIGINT received */
  bool drain_expired;          /* drain_timeout_ms ran out: connections closed */
  bool stopped;                /* MHD stopped, handles closing */
} server;

typedef enum route_id {
  ROUTE_NONE,
  ROUTE_LEVELS,
  ROUTE_ALGORITHMS,
  ROUTE_STATS,
  ROUTE_METRICS,
  ROUTE_LIVEZ,
  ROUTE_READYZ,
  ROUTE_ROOMSETS, /* GET /v1/roomsets (roomsets.c loads them) */
  ROUTE_LOBBIES,  /* /v1/lobbies/... (lobby.c parses the rest) */
  ROUTE_VIEWER,   /* GET / : the viewer page (viewer.c) */
} route_id;

/* One HTTP request, from its headers to MHD's completion callback. */
struct request {
  server *srv;                       /* back pointer */
  listener *owner;                   /* the listener it came in on */
  conn *conn;                        /* the guard's record of its connection, or NULL */
  struct MHD_Connection *connection; /* MHD's connection */
  uint64_t start_ns;                 /* first call of the access handler */
  char id[REQUEST_ID_MAX];           /* X-Request-Id, echoed or made */
  char method[8];                    /* "GET", "POST"... (truncated) */
  char path[REQUEST_PATH_MAX];       /* URL path: printable UTF-8, other bytes as %XX */
  int path_problem;                  /* 0, or 400 (not UTF-8 / controls) or 414 (too long) */
  route_id route;                    /* matched route, ROUTE_NONE if unknown */
  char *body;                        /* request body so far, malloc'd */
  size_t body_length, body_capacity;
  bool answered;                                /* a response was queued */
  bool detached;                                /* answered past MHD (half-closed client) */
  bool suspended;                               /* waiting for its job */
  bool has_job;                                 /* `work` was submitted */
  job work;                                     /* the generation job, when any */
  struct MHD_Response *pending;                 /* built after the job, queued on resume */
  int status;                                   /* status sent */
  int pending_status;                           /* status of `pending` */
  const char *algorithm;                        /* static name, for stats and the log */
  uint64_t seed;                                /* the level's seed, for the log */
  double queue_ms, generation_ms, serialise_ms; /* -1 when no job */
  size_t bytes_out;                             /* response body length */
  const char *pregen;                           /* X-Pregen: hit, wait, miss; NULL otherwise */
  request *next_waiter;                         /* lobby start requests waiting for one job */
  int format;            /* negotiated JOB_FORMAT_*, -1: none acceptable (negotiate.c) */
  job_encoding encoding; /* gzip, ETag and cacheability of a level answer (negotiate.c) */
  dg_svg_options svg;    /* SVG options from the query (svg_graph, svg_labels, svg_tile) */
};

/* http.c: libmicrohttpd on the libuv loop. http_start starts the API
 * listener and, when health_listen is set, the probe listener. http_pump
 * runs the API listener's MHD (after a resume); http_pump_all both. */
int http_start(server *s, dg_error *err);
void http_pump(server *s);
void http_pump_all(server *s);
void http_begin_drain(server *s);
void http_close(server *s);
/* Closes detached answers without progress for connection_timeout_s, or
 * all of them (`all`: drain timeout). Loop thread. */
void http_sweep_detached(server *s, uint64_t now, bool all);

/* Responses (http.c). Each queues the response now, or keeps it for after
 * the resume when the request is suspended. `body` is malloc'd and taken
 * (freed even on failure). */
void respond(request *r, int status, const char *content_type, char *body, size_t length,
             const char *header_name, const char *header_value);
/* The same with any number of headers: name, value, ..., NULL. */
void respond_headers(request *r, int status, const char *content_type, char *body, size_t length,
                     const char *const *headers);
void respond_json(request *r, int status, json_t *value);
/* An RFC 9457 problem: `errors` (stolen, may be NULL) is the list of
 * {field, message}; `header_*` adds one header (Allow, Retry-After) or NULL. */
void respond_problem(request *r, int status, const char *slug, const char *title,
                     const char *detail, json_t *errors, const char *header_name,
                     const char *header_value);
void respond_error(request *r, int status, const dg_error *err);

/* routes.c */
route_id route_match(const char *path);
const char *route_allowed_methods(route_id route);
void route_handle(request *r);
void route_job_done(job *j);
/* The request parsing of POST /v1/levels, shared with lobbies: fills *out
 * and the deadline; returns 0 or the HTTP status with `err` filled. */
int level_request_parse(server *s, const json_t *body, dg_request *out, long *deadline_ms,
                        dg_error *err);
/* JOB_FORMAT_* the client accepts, -1 for none (406); also records in `r`
 * whether it accepts gzip (negotiate.c). */
int level_format(request *r);
/* The level routes' answer: a body JSON object (POST) or one built from
 * the query (GET) is parsed, validated and submitted (routes.c). `body` is
 * borrowed. */
void level_handle_body(request *r, json_t *body);

/* level_response.c: fills r->format, r->encoding (from the config) and r->svg
 * (defaults) from the request's headers. */
void level_negotiate(request *r);
/* A lobby's pre-generated level JSON (`body` malloc'd, taken), sent as
 * stored: uncompressed, with Vary and Cache-Control: no-store. */
void level_respond_stored(request *r, char *body, size_t length);
/* 406 with a problem listing the media types levels are served as. */
void level_not_acceptable(request *r);
/* The answer to a finished level job: Vary, Content-Encoding, ETag and
 * Cache-Control as negotiated, 304 when If-None-Match matches. Takes the
 * job's body. */
void level_respond(request *r, job *j);

/* levels_query.c: GET /v1/levels?algorithm=..&seed=..&NAME=VALUE: the
 * query becomes the body POST takes; svg_graph, svg_labels and svg_tile
 * set SVG options (for POST too). level_svg_query answers 422 itself and
 * returns -1 when an SVG option is malformed. */
void level_handle_query(request *r);
int level_svg_query(request *r);

/* viewer.c: GET / */
void viewer_respond(request *r);
/* Queues `level` as an interactive job for `r` and suspends `r` (or answers
 * 503 when the queue is full). */
void level_submit(request *r, const dg_request *level, long deadline_ms, int format);

#endif
