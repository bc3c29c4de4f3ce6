/* The daemon's state, types only (daemon.h has its lifecycle). One struct,
 * owned and touched only
 * by the libuv loop thread (one thread owns the daemon's state, so nothing
 * in it needs a lock): libmicrohttpd runs in external-polling mode from
 * that loop (http.c), generation runs in the thread pool through jobs.c,
 * and every request's context lives from its first byte to MHD's
 * completion callback.
 *
 * The layers are this directory's folders (README "Layout"): daemon.c, then
 * api/ (routes and resources), state/ (lobbies, queues, stats,
 * configuration, the pure request builders), transport/ (libmicrohttpd on
 * libuv, the connection guard, the log). The routes hold this struct
 * through the transport's data pointer, so only daemon.c, which wires the
 * layers together, sits above them. */
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

/* A configuration loaded by a reload, with its room sets. The one main()
 * loaded at start is not one of these: main() owns it. */
typedef struct config_generation {
  config cfg;
  dg_context *roomsets;           /* owned */
  uint64_t number;                /* 1 for the first reload */
  struct config_generation *next; /* retired list */
} config_generation;

typedef struct server {
  const config *cfg;          /* the live configuration (read-only; a reload swaps it) */
  const char *config_path;    /* what SIGHUP reloads; NULL: started without a file */
  config_generation *live;    /* the live configuration when a reload made it, else NULL */
  config_generation *retired; /* replaced ones some job may still use */
  uint64_t config_generation; /* reloads applied: 0 until the first */
  uint64_t reloads_ok, reloads_failed;
  uv_timer_t retire_timer;     /* frees retired configurations once unused */
  uv_signal_t sighup;          /* reloads */
  uv_loop_t *loop;             /* the one loop */
  http http;                   /* the transport: listeners, requests, connections */
  jobs queues;                 /* generation queues */
  stats counters;              /* statistics */
  lobbies lobbies;             /* lobby table and pre-generated levels */
  dg_rng seeds;                /* chooses seeds for requests without one */
  uint8_t process_key[16];     /* lobby_seed_key while none is configured (drawn at start) */
  uv_timer_t drain_timer;      /* SIGTERM: cancels running jobs when it fires */
  uv_prepare_t stop_watch;     /* while draining: stops once nothing is in flight */
  uv_signal_t sigterm, sigint; /* start the drain */
  bool signals;                /* sigterm and sigint are installed */
  bool draining;               /* SIGTERM/SIGINT received */
  bool drain_expired;          /* drain_timeout_ms ran out: connections closed */
  bool stopped;                /* MHD stopped, handles closing */
  bool loop_slice_refused;     /* the kernel did not apply the loop thread's slice */
} server;

#endif
