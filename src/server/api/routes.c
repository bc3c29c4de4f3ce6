/* The HTTP API v1: which handler answers a request (route table, the
 * health listener's subset, bearer tokens, methods), and the small
 * resources that need no module of their own: algorithms, stats, metrics,
 * probes and room sets. Loop thread. */
#include "api/routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/audit.h"
#include "api/exchange.h"
#include "api/levels.h"
#include "api/lobby_routes.h"
#include "api/respond.h"
#include "api/viewer.h"
#include "server.h"
#include "transport/log.h"

typedef enum route_id {
  ROUTE_NONE,
  ROUTE_LEVELS,
  ROUTE_ALGORITHMS,
  ROUTE_STATS,
  ROUTE_METRICS,
  ROUTE_LIVEZ,
  ROUTE_READYZ,
  ROUTE_ROOMSETS,            /* GET /v1/roomsets */
  ROUTE_TABLES,              /* GET /v1/tables */
  ROUTE_LOBBIES,             /* /v1/lobbies/... (lobby_routes.c parses the rest) */
  ROUTE_LEVEL_ID,            /* GET /v1/levels/{level_id} (levels.c) */
  ROUTE_AUDIT,               /* POST /v1/audit (audit.c) */
  ROUTE_TILESET,             /* GET .../dungeond-tiles.png beside any map (viewer.c) */
  ROUTE_TILESET_PROGRESSION, /* GET .../dungeond-tiles-progression.png, the same */
  ROUTE_VIEWER,              /* GET / : the viewer page (viewer.c) */
} route_id;

/* `label` is the route's value of the stats' route label (stats.c's
 * stats_route_names): /healthz is /livez's alias and counted with it. */
static const struct {
  const char *path;
  route_id route;
  const char *label;
} routes[] = {
    {"/v1/levels", ROUTE_LEVELS, "/v1/levels"},
    {"/v1/audit", ROUTE_AUDIT, "/v1/audit"},
    {"/v1/algorithms", ROUTE_ALGORITHMS, "/v1/algorithms"},
    {"/v1/stats", ROUTE_STATS, "/v1/stats"},
    {"/metrics", ROUTE_METRICS, "/metrics"},
    {"/livez", ROUTE_LIVEZ, "/livez"},
    {"/healthz", ROUTE_LIVEZ, "/livez"},
    {"/readyz", ROUTE_READYZ, "/readyz"},
    {"/v1/roomsets", ROUTE_ROOMSETS, "/v1/roomsets"},
    {"/v1/tables", ROUTE_TABLES, "/v1/tables"},
    {"/", ROUTE_VIEWER, "/"},
};

static route_id route_match(const char *path, const char **label) {
  *label = NULL;
  /* Before the others: a map from /v1/levels, /v1/levels/{id} or a lobby's
   * start names its tileset beside itself. */
  size_t length = strlen(path), image = strlen("/" DG_TILED_TILESET_IMAGE);
  if (strncmp(path, "/v1/", 4) == 0 && length > image &&
      strcmp(path + length - image, "/" DG_TILED_TILESET_IMAGE) == 0) {
    *label = "/v1/{map}/" DG_TILED_TILESET_IMAGE;
    return ROUTE_TILESET;
  }
  size_t progression = strlen("/" DG_TILED_TILESET_IMAGE_PROGRESSION);
  if (strncmp(path, "/v1/", 4) == 0 && length > progression &&
      strcmp(path + length - progression, "/" DG_TILED_TILESET_IMAGE_PROGRESSION) == 0) {
    *label = "/v1/{map}/" DG_TILED_TILESET_IMAGE_PROGRESSION;
    return ROUTE_TILESET_PROGRESSION;
  }
  if (strncmp(path, "/v1/lobbies/", 12) == 0)
    return ROUTE_LOBBIES; /* lobby_route names the label */
  if (strncmp(path, "/v1/levels/", 11) == 0) {
    *label = "/v1/levels/{level_id}";
    return ROUTE_LEVEL_ID;
  }
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
    if (strcmp(routes[i].path, path) == 0) {
      *label = routes[i].label;
      return routes[i].route;
    }
  return ROUTE_NONE;
}

static const char *route_allowed_methods(route_id route) {
  return route == ROUTE_LEVELS ? "GET, HEAD, POST" : route == ROUTE_AUDIT ? "POST" : "GET, HEAD";
}

static bool method_allowed(route_id route, const char *method) {
  if (route == ROUTE_LEVELS && strcmp(method, "POST") == 0)
    return true;
  if (route == ROUTE_AUDIT)
    return strcmp(method, "POST") == 0;
  return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
}

/* What /v1/stats says of the time slices (server_apply_slices). */
static const char *time_slices(const server *daemon) {
  const config *cfg = daemon->cfg;
  if (cfg->limits.interactive_slice_us == 0 && cfg->limits.heavy_slice_us == 0)
    return "off";
  if (daemon->loop_slice_refused || jobs_slices_refused(&daemon->queues) > 0)
    return "refused";
  /* libuv's pool, the fallback for interactive jobs, does not ask. */
  return daemon->queues.own_threads ? "custom" : "partial";
}

static stats_gauges gauges(const server *daemon) {
  return (stats_gauges){
      .transport = &daemon->http.counters,
      .interactive_depth = daemon->queues.depth[JOB_INTERACTIVE],
      .interactive_max = daemon->queues.max_depth[JOB_INTERACTIVE],
      .speculative_depth = daemon->queues.depth[JOB_SPECULATIVE],
      .speculative_max = daemon->queues.max_depth[JOB_SPECULATIVE],
      .workers = daemon->queues.workers,
      .workers_busy = daemon->queues.running,
      .speculative_busy = daemon->queues.running_kind[JOB_SPECULATIVE],
      .speculative_idle = daemon->queues.idle_speculative,
      .heavy_priority = daemon->queues.heavy_cost_min == 0 ? "off"
                        : daemon->queues.heavy_lowered     ? "lowered"
                                                           : "shared",
      .time_slices = time_slices(daemon),
      .pauses = atomic_load(&daemon->queues.way.pauses),
      .paused_ns = atomic_load(&daemon->queues.way.paused_ns),
      .speculative_reruns = daemon->queues.reruns,
      .connections = daemon->http.api.open,
      .health_connections = daemon->http.health.open,
      .send_queue_bytes = daemon->http.guard.send_queued,
      .log_write_failures = log_write_failures(),
      .draining = daemon->draining,
      .lobbies = daemon->lobbies.count,
      .lobby_hits = daemon->lobbies.hits,
      .lobby_waits = daemon->lobbies.waits,
      .lobby_misses = daemon->lobbies.misses,
      .lobby_superseded = daemon->lobbies.superseded,
      .lobby_expired = daemon->lobbies.expired,
      .lobby_evicted = daemon->lobbies.evicted,
      .lobby_jobs = daemon->lobbies.jobs_started,
      .lobby_saved_s = daemon->lobbies.saved_s,
      .lobby_ready_bytes = (long)daemon->lobbies.ready_bytes,
      .lobby_bytes = (long)(daemon->lobbies.ready_bytes + daemon->lobbies.state_bytes),
      .lobby_bytes_max = daemon->cfg->limits.lobby_bytes_max,
      .config_generation = daemon->config_generation,
      .reloads_ok = daemon->reloads_ok,
      .reloads_failed = daemon->reloads_failed,
  };
}

/* Compares without an early exit, so the time taken does not reveal how
 * much of a token matched. */
static bool same_secret(const char *given, const char *expected) {
  size_t given_length = strlen(given), expected_length = strlen(expected);
  unsigned char difference = given_length != expected_length;
  for (size_t i = 0; i < expected_length; i++)
    difference |= (unsigned char)(given[i < given_length ? i : 0] ^ expected[i]);
  return difference == 0;
}

/* Optional bearer tokens (docs/config.md, auth_tokens) for
 * every /v1/ path. Health checks and /metrics stay open for probes and
 * scrapers. The scheme name is case-insensitive and may be followed by
 * several spaces (RFC 7235 section 2.1). */
static bool authorized(request *r) {
  const json_t *tokens = server_of(r)->cfg->auth_tokens;
  if (tokens == NULL || json_array_size(tokens) == 0 || strncmp(r->path, "/v1/", 4) != 0)
    return true;
  const char *header = http_header(r, MHD_HTTP_HEADER_AUTHORIZATION);
  bool ok = false;
  if (header != NULL && strncasecmp(header, "Bearer", 6) == 0 &&
      (header[6] == ' ' || header[6] == '\t')) {
    const char *given = header + 6;
    while (*given == ' ' || *given == '\t')
      given++;
    size_t i;
    const json_t *token;
    size_t matched = 0; /* 1 + the index of the token given, kept without a branch */
    json_array_foreach(tokens, i, token) {
      bool same = same_secret(given, json_string_value(token));
      ok |= same;
      matched |= ((size_t)0 - (size_t)same) & (i + 1);
    }
    /* With tokens, a client is its token (behind a proxy every address is
     * the proxy's): fairness and per-client caps go by it. */
    if (ok)
      exchange_of(r)->client = (1ull << 32) | (uint64_t)matched;
  }
  if (!ok)
    respond_problem(r, 401, "unauthorized", "Unauthorized",
                    header == NULL ? "this endpoint needs Authorization: Bearer TOKEN"
                                   : "the bearer token is not accepted",
                    NULL, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"dungeond\"");
  return ok;
}

/* A CORS preflight (issue 21, item 6): 204 with what a browser page of an
 * allowed origin may send; 403 naming Origin for any other origin. The
 * allowed origin itself is added to the answer by exchange.c. */
static void preflight(request *r) {
  if (exchange_cors_origin(r) == NULL) {
    const char *origin = http_header(r, "Origin");
    char detail[320];
    snprintf(detail, sizeof detail, "origin %.255s is not in cors_allowed_origins",
             origin != NULL ? origin : "(none)");
    respond_problem(r, 403, "cors-origin", "Origin not allowed", detail,
                    json_pack("[{s:s, s:s}]", "field", "Origin", "message", detail), NULL, NULL);
    return;
  }
  static const char *const headers[] = {
      "Access-Control-Allow-Methods",
      "GET, HEAD, POST, PUT, DELETE",
      "Access-Control-Allow-Headers",
      "Accept, Accept-Encoding, Authorization, Content-Type, If-Match, If-None-Match",
      "Access-Control-Max-Age",
      "600",
      NULL};
  http_respond(r, 204, "text/plain", malloc(1), 0, headers);
}

/* The health listener serves the probes and /metrics, nothing else: true
 * when `route` is one of them, otherwise answers 404 and returns false. */
static bool health_route(request *r, route_id route) {
  if (route == ROUTE_LIVEZ || route == ROUTE_READYZ || route == ROUTE_METRICS)
    return true;
  char detail[REQUEST_PATH_MAX + 96];
  snprintf(detail, sizeof detail,
           "no resource at %s on the health listener (it serves /livez, /healthz, /readyz, "
           "/metrics)",
           r->path);
  respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
  return false;
}

void route_handle(request *r) {
  server *daemon = server_of(r);
  const char *label = NULL;
  route_id route = r->path_problem == 0 ? route_match(r->path, &label) : ROUTE_NONE;
  exchange_of(r)->route = label;
  if (r->health && !health_route(r, route))
    return;
  exchange_of(r)->client = r->peer_ip; /* authorized() names the token instead */
  /* A CORS preflight carries no credentials: answered before them. */
  if (strcmp(r->method, "OPTIONS") == 0 && route != ROUTE_NONE) {
    preflight(r);
    return;
  }
  if (!authorized(r))
    return;
  if (route == ROUTE_NONE) {
    char detail[REQUEST_PATH_MAX + 64];
    snprintf(detail, sizeof detail, "no resource at %s", r->path);
    respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
    return;
  }
  if (route == ROUTE_LOBBIES) {
    lobby_route(r, r->path + 12);
    return;
  }
  if (!method_allowed(route, r->method)) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s is not allowed here; use %s", r->method,
             route_allowed_methods(route));
    respond_problem(r, 405, "method-not-allowed", "Method not allowed", detail, NULL,
                    MHD_HTTP_HEADER_ALLOW, route_allowed_methods(route));
    return;
  }
  stats_gauges g;
  size_t length = 0;
  char *text = NULL;
  switch (route) {
  case ROUTE_LEVELS: levels_handle(r); break;
  case ROUTE_LEVEL_ID: level_by_id_handle(r, r->path + 11); break;
  case ROUTE_AUDIT: audit_handle(r); break;
  case ROUTE_TILESET: tileset_respond(r, false); break;
  case ROUTE_TILESET_PROGRESSION: tileset_respond(r, true); break;
  case ROUTE_ALGORITHMS: respond_json(r, 200, dg_algorithms_to_json()); break;
  case ROUTE_STATS:
    g = gauges(daemon);
    text = stats_json(&daemon->counters, &g, &length);
    respond(r, 200, "application/json", text, length, NULL, NULL);
    break;
  case ROUTE_METRICS:
    g = gauges(daemon);
    process_read(&g.process);
    text = stats_prometheus(&daemon->counters, &g, &length);
    respond(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, length, NULL, NULL);
    break;
  case ROUTE_LIVEZ: respond_json(r, 200, json_pack("{s:s}", "status", "ok")); break;
  case ROUTE_ROOMSETS:
    respond_json(r, 200, dg_context_roomsets_to_json(daemon->queues.context));
    break;
  case ROUTE_TABLES: respond_json(r, 200, dg_context_tables_to_json(daemon->queues.context)); break;
  case ROUTE_READYZ:
    /* Ready once the room sets are loaded and until a drain. */
    respond_json(r, daemon->draining || daemon->queues.context == NULL ? 503 : 200,
                 json_pack("{s:s}", "status",
                           daemon->draining                 ? "draining"
                           : daemon->queues.context == NULL ? "loading"
                                                            : "ready"));
    break;
  case ROUTE_VIEWER: viewer_respond(r); break;
  case ROUTE_NONE:
  case ROUTE_LOBBIES: break;
  }
}
