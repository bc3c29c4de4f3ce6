/* The daemon's lifecycle: start-up in dependency order, the drain on
 * SIGTERM/SIGINT, and the stop (daemon.c). The top layer: it wires the
 * routes (api/) to the transport and the state below them. Loop thread. */
#ifndef DUNGEOND_DAEMON_H
#define DUNGEOND_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "dungeon/dungeon.h"
#include "server.h"

/* Starts the daemon on `loop`: queues over `roomsets` (borrowed, may be
 * NULL), lobbies, the listeners and, when `signals`, SIGTERM and SIGINT
 * handlers that drain. `entropy` seeds the seeds of requests without one
 * and the request ids. 0, or an error code with `err` set; on error every
 * handle is closing and the caller runs the loop until they are closed. */
int server_start(server *daemon, const config *cfg, uv_loop_t *loop, const dg_context *roomsets,
                 const uint64_t entropy[2], bool signals, dg_error *err);

/* Asks the kernel for the time slices of limits.interactive_slice_us (the
 * calling loop thread and the interactive workers) and
 * limits.heavy_slice_us (the heavy lane), see state/slice.h, and sets
 * limits.yield_percent and yield_linger_us (state/give_way.h). At start and on each reload.
 * Loop thread. */
void server_apply_slices(server *daemon);

/* Starts the drain (what SIGTERM does): readyz turns 503, queued jobs are
 * answered 503, running ones may finish until limits.drain_timeout_ms, new
 * connections are still answered. Once nothing is in flight the server
 * stops and closes its handles, so uv_run returns. */
void server_begin_drain(server *daemon);

#endif
