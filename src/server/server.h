/* The daemon's state and its lifecycle. One struct, owned and touched only
 * by the libuv loop thread (one thread owns the daemon's state, so nothing
 * in it needs a lock): libmicrohttpd runs in external-polling mode from
 * that loop (http.c), generation runs in the thread pool through jobs.c,
 * and every request's context lives from its first byte to MHD's
 * completion callback.
 *
 * The layers are this directory's folders (README "Layout"): server.c, then
 * api/ (routes, resources, pure builders), state/ (lobbies, queues, stats,
 * configuration), transport/ (libmicrohttpd on libuv, the connection guard,
 * the log). */
#ifndef DUNGEOND_SERVER_H
#define DUNGEOND_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "dungeon/dungeon.h"
#include "state/config.h"
#include "state/jobs.h"
#include "state/lobby.h"
#include "state/stats.h"
#include "transport/http.h"

typedef struct server {
  const config *cfg;           /* read-only configuration */
  uv_loop_t *loop;             /* the one loop */
  http http;                   /* the transport: listeners, requests, connections */
  jobs queues;                 /* generation queues */
  stats counters;              /* statistics */
  lobbies lobbies;             /* lobby table and pre-generated levels */
  dg_rng seeds;                /* chooses seeds for requests without one */
  uv_timer_t drain_timer;      /* SIGTERM: cancels running jobs when it fires */
  uv_prepare_t stop_watch;     /* while draining: stops once nothing is in flight */
  uv_signal_t sigterm, sigint; /* start the drain */
  bool signals;                /* sigterm and sigint are installed */
  bool draining;               /* SIGTERM/SIGINT received */
  bool drain_expired;          /* drain_timeout_ms ran out: connections closed */
  bool stopped;                /* MHD stopped, handles closing */
} server;

/* Starts the daemon on `loop`: queues over `roomsets` (borrowed, may be
 * NULL), lobbies, the listeners and, when `signals`, SIGTERM and SIGINT
 * handlers that drain. `entropy` seeds the seeds of requests without one
 * and the request ids. 0, or an error code with `err` set; on error every
 * handle is closing and the caller runs the loop until they are closed. */
int server_start(server *s, const config *cfg, uv_loop_t *loop, const dg_context *roomsets,
                 const uint64_t entropy[2], bool signals, dg_error *err);

/* Starts the drain (what SIGTERM does): readyz turns 503, queued jobs are
 * answered 503, running ones may finish until limits.drain_timeout_ms, new
 * connections are still answered. Once nothing is in flight the server
 * stops and closes its handles, so uv_run returns. */
void server_begin_drain(server *s);

#endif
