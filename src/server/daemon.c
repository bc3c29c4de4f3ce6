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
#include "transport/log.h"

static void on_signal(uv_signal_t *handle, int signum) {
  server *s = handle->data;
  log_event("info", "drain",
            json_pack("{s:i, s:i, s:I}", "signal", signum, "running", s->queues.running, "queued",
                      (json_int_t)s->queues.depth[JOB_INTERACTIVE]));
  server_begin_drain(s);
}

static void on_retire_timer(uv_timer_t *timer) {
  server *s = timer->data;
  server_release_configs(s, false);
  if (s->retired == NULL)
    uv_timer_stop(timer);
}

static void on_sighup(uv_signal_t *handle, int signum) {
  (void)signum;
  server *s = handle->data;
  server_reload(s);
  if (s->retired != NULL && !uv_is_active((uv_handle_t *)&s->retire_timer))
    uv_timer_start(&s->retire_timer, on_retire_timer, 1000, 1000);
}

static void close_own_handles(server *s) {
  uv_close((uv_handle_t *)&s->retire_timer, NULL);
  uv_close((uv_handle_t *)&s->drain_timer, NULL);
  uv_close((uv_handle_t *)&s->stop_watch, NULL);
  if (s->signals) {
    uv_close((uv_handle_t *)&s->sigterm, NULL);
    uv_close((uv_handle_t *)&s->sigint, NULL);
    uv_close((uv_handle_t *)&s->sighup, NULL);
  }
}

/* The transport's settings are the configuration's listeners and limits;
 * its requests go to the routes, and carry the routes' exchange. */
static int start_transport(server *s, uint32_t id_prefix, dg_error *err) {
  const config_limits *limits = &s->cfg->limits;
  http_settings settings = {
      .listen = s->cfg->listen,
      .health_listen = s->cfg->health_listen,
      .log_requests = s->cfg->log_requests,
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
      .trusted_proxy_count = s->cfg->trusted_proxy_count,
  };
  _Static_assert(HTTP_TRUSTED_PROXIES_MAX == CONFIG_TRUSTED_PROXIES_MAX, "one limit, two names");
  memcpy(settings.trusted_proxies, s->cfg->trusted_proxies, sizeof settings.trusted_proxies);
  memcpy(settings.trusted_proxy_masks, s->cfg->trusted_proxy_masks,
         sizeof settings.trusted_proxy_masks);
  const http_hooks hooks = {.handle = route_handle,
                            .answer_headers = exchange_answer_headers,
                            .completed = exchange_completed};
  return http_start(&s->http, s->loop, &settings, &hooks, s, err);
}

/* The signal watchers: SIGTERM and SIGINT drain, SIGHUP reloads. 0, or
 * libuv's code with none of them left open (s->signals then false). */
static int watch_signals(server *s) {
  struct {
    uv_signal_t *handle;
    uv_signal_cb callback;
    int signum;
  } watches[] = {{&s->sigterm, on_signal, SIGTERM},
                 {&s->sigint, on_signal, SIGINT},
                 {&s->sighup, on_sighup, SIGHUP}};
  int count = (int)(sizeof watches / sizeof watches[0]), opened = 0, rc = 0;
  /* Handles [0, opened) are initialised, whichever step failed. */
  for (; opened < count && rc == 0; opened++) {
    if ((rc = uv_signal_init(s->loop, watches[opened].handle)) != 0)
      break;
    watches[opened].handle->data = s;
    rc = uv_signal_start(watches[opened].handle, watches[opened].callback, watches[opened].signum);
  }
  for (int i = 0; rc != 0 && i < opened; i++)
    uv_close((uv_handle_t *)watches[i].handle, NULL);
  s->signals = rc == 0;
  return rc;
}

/* The daemon's own timers and stop watch. libuv documents that these
 * initialisations cannot fail; the code says so rather than ignore it. */
static void init_own_handles(server *s) {
  int rc = uv_timer_init(s->loop, &s->drain_timer);
  rc |= uv_prepare_init(s->loop, &s->stop_watch);
  rc |= uv_timer_init(s->loop, &s->retire_timer);
  assert(rc == 0);
  (void)rc;
  s->drain_timer.data = s->stop_watch.data = s->retire_timer.data = s;
}

int server_start(server *s, const config *cfg, uv_loop_t *loop, const dg_context *roomsets,
                 const uint64_t entropy[2], bool signals, dg_error *err) {
  memset(s, 0, sizeof *s);
  s->cfg = cfg;
  s->loop = loop;
  stats_init(&s->counters);
  dg_rng_seed(&s->seeds, entropy[0], entropy[1]);
  int rc =
      jobs_init(&s->queues, loop, cfg->workers, (int)cfg->limits.speculative_reserved_workers,
                cfg->limits.interactive_queue_max, cfg->limits.speculative_queue_max, roomsets);
  if (rc != 0)
    return dg_error_set(err, DG_ENOMEM, "", "cannot start the job queues: %s", uv_strerror(rc));
  /* One worker stays free of any single client (issue 24 item 3). */
  long client_workers = cfg->limits.client_workers_max;
  if (client_workers == 0)
    client_workers = cfg->workers > 1 ? cfg->workers - 1 : 1;
  jobs_set_client_limits(&s->queues, (uint64_t)cfg->limits.client_queued_cost_max,
                         (int)client_workers);
  if ((rc = lobbies_init(&s->lobbies, loop, cfg, &s->queues, &s->counters)) != 0) {
    jobs_close(&s->queues);
    return dg_error_set(err, DG_ENOMEM, "", "cannot start the lobbies: %s", uv_strerror(rc));
  }
  init_own_handles(s);
  if (signals && (rc = watch_signals(s)) != 0)
    rc = dg_error_set(err, DG_ENOMEM, "", "cannot watch signals: %s", uv_strerror(rc));
  if (rc == 0)
    rc = start_transport(s, (uint32_t)(entropy[1] >> 17), err);
  if (rc != 0) {
    close_own_handles(s);
    jobs_close(&s->queues);
    lobbies_close(&s->lobbies);
  }
  return rc;
}

static void on_stop_watch(uv_prepare_t *watch) {
  server *s = watch->data;
  if (s->stopped || !http_quiet(&s->http) || s->queues.running > 0)
    return;
  s->stopped = true;
  uv_prepare_stop(&s->stop_watch);
  close_own_handles(s);
  jobs_close(&s->queues);
  lobbies_close(&s->lobbies);
  http_stop(&s->http);
}

static void on_drain_timeout(uv_timer_t *timer) {
  server *s = timer->data;
  /* Issue 12 item 5: the drain ends at drain_timeout_ms whatever clients
   * do: running jobs are cancelled (their requests answered 503), and every
   * connection not waiting for a job is closed, a half-sent request with a
   * 503, so no client can keep the daemon alive. */
  s->drain_expired = true;
  jobs_cancel_all(&s->queues, true);
  http_close_all(&s->http);
}

void server_begin_drain(server *s) {
  if (s->draining || s->stopped)
    return;
  s->draining = true;
  http_begin_drain(&s->http);
  /* The listeners stay open: until the load balancer has taken this
   * replica out (readyz answers 503 now), new connections are still
   * answered, with Connection: close, and generation gets 503 +
   * Retry-After. Queued jobs are answered 503 now; running ones may finish
   * until the drain timeout. */
  lobbies_drain(&s->lobbies);
  jobs_cancel_all(&s->queues, false);
  uv_timer_start(&s->drain_timer, on_drain_timeout, (uint64_t)s->cfg->limits.drain_timeout_ms, 0);
  uv_prepare_start(&s->stop_watch, on_stop_watch);
  http_pump(&s->http);
}
