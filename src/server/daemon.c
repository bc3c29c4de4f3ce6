/* The daemon's lifecycle (daemon.h): start-up in dependency order, the
 * drain on SIGTERM/SIGINT, and the stop. The stop runs from a uv_prepare_t,
 * which the loop calls at the start of every iteration before it waits for
 * I/O, so outside every libmicrohttpd run and without delay, once nothing
 * is in flight: no request context, no detached answer, no job in the
 * pool. Closing every handle then lets uv_run return, and main()'s
 * uv_loop_close proves nothing leaked a handle. */
#include "daemon.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "api/exchange.h"
#include "api/problem.h"
#include "api/routes.h"
#include "reload.h"
#include "state/slice.h"
#include "transport/log.h"

static void on_signal(uv_signal_t *handle, int signum) {
  server *daemon = handle->data;
  log_event("info", "drain",
            json_pack("{s:i, s:i, s:I}", "signal", signum, "running", daemon->queues.running,
                      "queued", (json_int_t)daemon->queues.depth[JOB_INTERACTIVE]));
  server_begin_drain(daemon);
}

static void on_retire_timer(uv_timer_t *timer) {
  server *daemon = timer->data;
  server_release_configs(daemon, false);
  if (daemon->retired == NULL)
    uv_timer_stop(timer);
}

static void on_sighup(uv_signal_t *handle, int signum) {
  (void)signum;
  server *daemon = handle->data;
  server_reload(daemon);
  if (daemon->retired != NULL && !uv_is_active((uv_handle_t *)&daemon->retire_timer))
    uv_timer_start(&daemon->retire_timer, on_retire_timer, 1000, 1000);
}

static void close_own_handles(server *daemon) {
  uv_close((uv_handle_t *)&daemon->retire_timer, NULL);
  uv_close((uv_handle_t *)&daemon->drain_timer, NULL);
  uv_close((uv_handle_t *)&daemon->stop_watch, NULL);
  if (daemon->signals) {
    uv_close((uv_handle_t *)&daemon->sigterm, NULL);
    uv_close((uv_handle_t *)&daemon->sigint, NULL);
    uv_close((uv_handle_t *)&daemon->sighup, NULL);
  }
}

/* The transport's settings are the configuration's listeners and limits;
 * its requests go to the routes, and carry the routes' exchange. */
static int start_transport(server *daemon, uint32_t id_prefix, dg_error *err) {
  const config_limits *limits = &daemon->cfg->limits;
  http_settings settings = {
      .listen = daemon->cfg->listen,
      .health_listen = daemon->cfg->health_listen,
      .log_requests = daemon->cfg->log_requests,
      .body_bytes_max = limits->body_bytes_max,
      .connections_max = limits->connections_max,
      .health_connections_max = limits->health_connections_max,
      .connection_timeout_s = limits->connection_timeout_s,
      .connections_per_ip_max = limits->connections_per_ip_max,
      .health_connections_per_ip_max = limits->health_connections_per_ip_max,
      .health_idle_timeout_ms = limits->health_idle_timeout_ms,
      .header_timeout_ms = limits->header_timeout_ms,
      .header_timeout_penalty_ms = limits->header_timeout_penalty_ms,
      .linger_ms = limits->linger_ms,
      .linger_bytes_max = limits->linger_bytes_max,
      .query_params_max = limits->query_params_max,
      .request_target_bytes_max = limits->request_target_bytes_max,
      .body_timeout_ms = limits->body_timeout_ms,
      .send_queue_bytes_max = limits->send_queue_bytes_max,
      .send_stall_ms = limits->send_stall_ms,
      .retry_after_s = limits->retry_after_s,
      .drain_timeout_ms = limits->drain_timeout_ms,
      .request_data_size = sizeof(exchange),
      .id_prefix = id_prefix,
      .trusted_proxy_count = daemon->cfg->trusted_proxy_count,
  };
  _Static_assert(HTTP_TRUSTED_PROXIES_MAX == CONFIG_TRUSTED_PROXIES_MAX, "one limit, two names");
  memcpy(settings.trusted_proxies, daemon->cfg->trusted_proxies, sizeof settings.trusted_proxies);
  memcpy(settings.trusted_proxy_masks, daemon->cfg->trusted_proxy_masks,
         sizeof settings.trusted_proxy_masks);
  const http_hooks hooks = {.handle = route_handle,
                            .answer_headers = exchange_answer_headers,
                            .completed = exchange_completed};
  return http_start(&daemon->http, daemon->loop, &settings, &hooks, daemon, err);
}

/* The signal watchers: SIGTERM and SIGINT drain, SIGHUP reloads. 0, or
 * libuv's code with none of them left open (daemon->signals then false). */
static int watch_signals(server *daemon) {
  struct {
    uv_signal_t *handle;
    uv_signal_cb callback;
    int signum;
  } watches[] = {{&daemon->sigterm, on_signal, SIGTERM},
                 {&daemon->sigint, on_signal, SIGINT},
                 {&daemon->sighup, on_sighup, SIGHUP}};
  int count = (int)(sizeof watches / sizeof watches[0]), opened = 0, rc = 0;
  /* Handles [0, opened) are initialised, whichever step failed. */
  for (; opened < count && rc == 0; opened++) {
    if ((rc = uv_signal_init(daemon->loop, watches[opened].handle)) != 0)
      break;
    watches[opened].handle->data = daemon;
    rc = uv_signal_start(watches[opened].handle, watches[opened].callback, watches[opened].signum);
  }
  for (int i = 0; rc != 0 && i < opened; i++)
    uv_close((uv_handle_t *)watches[i].handle, NULL);
  daemon->signals = rc == 0;
  return rc;
}

/* The daemon's own timers and stop watch. libuv documents that these
 * initialisations cannot fail; the code says so rather than ignore it. */
static void init_own_handles(server *daemon) {
  int rc = uv_timer_init(daemon->loop, &daemon->drain_timer);
  rc |= uv_prepare_init(daemon->loop, &daemon->stop_watch);
  rc |= uv_timer_init(daemon->loop, &daemon->retire_timer);
  assert(rc == 0);
  (void)rc;
  daemon->drain_timer.data = daemon->stop_watch.data = daemon->retire_timer.data = daemon;
}

void server_apply_slices(server *daemon) {
  const config *cfg = daemon->cfg;
  daemon->loop_slice_refused = slice_set((uint64_t)cfg->limits.interactive_slice_us * 1000) != 0;
  jobs_set_slices(&daemon->queues, (uint64_t)cfg->limits.interactive_slice_us * 1000,
                  (uint64_t)cfg->limits.heavy_slice_us * 1000);
  jobs_set_yield(&daemon->queues, (int)cfg->limits.yield_percent,
                 (uint64_t)cfg->limits.yield_linger_us * 1000);
}

int server_start(server *daemon, const config *cfg, uv_loop_t *loop, const dg_context *roomsets,
                 const uint64_t entropy[2], bool signals, dg_error *err) {
  memset(daemon, 0, sizeof *daemon);
  daemon->cfg = cfg;
  daemon->loop = loop;
  stats_init(&daemon->counters);
  dg_rng_seed(&daemon->seeds, entropy[0], entropy[1]);
  int rc =
      jobs_init(&daemon->queues, loop, cfg->workers, (int)cfg->limits.speculative_reserved_workers,
                cfg->limits.interactive_queue_max, cfg->limits.speculative_queue_max, roomsets);
  if (rc != 0)
    return dg_error_set(err, DG_ENOMEM, "", "cannot start the job queues: %s", uv_strerror(rc));
  /* One worker stays free of any single client (issue 24 item 3). */
  long client_workers = cfg->limits.client_workers_max;
  if (client_workers == 0)
    client_workers = cfg->workers > 1 ? cfg->workers - 1 : 1;
  jobs_set_client_limits(&daemon->queues, (uint64_t)cfg->limits.client_queued_cost_max,
                         (int)client_workers);
  /* Heavy maps yield the CPU to light ones (issue 24 item 3): without the
   * lane they share the pool at normal priority, as /v1/stats then says. */
  jobs_set_heavy_lane(&daemon->queues, (uint64_t)cfg->limits.heavy_job_cost_min);
  /* Light work takes the core at once from heavy work and from other
   * processes (issue 24 item 3, issue 26 item 5). */
  server_apply_slices(daemon);
  if ((rc = lobbies_init(&daemon->lobbies, loop, cfg, &daemon->queues, &daemon->counters)) != 0) {
    jobs_close(&daemon->queues);
    return dg_error_set(err, DG_ENOMEM, "", "cannot start the lobbies: %s", uv_strerror(rc));
  }
  init_own_handles(daemon);
  if (signals && (rc = watch_signals(daemon)) != 0)
    rc = dg_error_set(err, DG_ENOMEM, "", "cannot watch signals: %s", uv_strerror(rc));
  if (rc == 0)
    rc = start_transport(daemon, (uint32_t)(entropy[1] >> 17), err);
  if (rc != 0) {
    close_own_handles(daemon);
    jobs_close(&daemon->queues);
    lobbies_close(&daemon->lobbies);
  }
  return rc;
}

static void on_stop_watch(uv_prepare_t *watch) {
  server *daemon = watch->data;
  if (daemon->stopped || !http_quiet(&daemon->http) || daemon->queues.running > 0)
    return;
  daemon->stopped = true;
  uv_prepare_stop(&daemon->stop_watch);
  close_own_handles(daemon);
  jobs_close(&daemon->queues);
  lobbies_close(&daemon->lobbies);
  http_stop(&daemon->http);
}

static void on_drain_timeout(uv_timer_t *timer) {
  server *daemon = timer->data;
  /* Issue 12 item 5: the drain ends at drain_timeout_ms whatever clients
   * do: running jobs are cancelled (their requests answered 503), and every
   * connection not waiting for a job is closed, a half-sent request with a
   * 503, so no client can keep the daemon alive. */
  daemon->drain_expired = true;
  jobs_cancel_all(&daemon->queues, true);
  http_close_all(&daemon->http);
}

void server_begin_drain(server *daemon) {
  if (daemon->draining || daemon->stopped)
    return;
  daemon->draining = true;
  http_begin_drain(&daemon->http);
  /* The listeners stay open: until the load balancer has taken this
   * replica out (readyz answers 503 now), new connections are still
   * answered, with Connection: close, and generation gets 503 +
   * Retry-After. Queued jobs are answered 503 now; running ones may finish
   * until the drain timeout. */
  lobbies_drain(&daemon->lobbies);
  jobs_cancel_all(&daemon->queues, false);
  uv_timer_start(&daemon->drain_timer, on_drain_timeout,
                 (uint64_t)daemon->cfg->limits.drain_timeout_ms, 0);
  uv_prepare_start(&daemon->stop_watch, on_stop_watch);
  http_pump(&daemon->http);
}
