/* The HTTP API v1 (DESIGN.md "HTTP API v1"): route matching, and for each
 * route parse -> validate -> enqueue -> reply. Runs on the loop thread;
 * generation itself happens in jobs.c's workers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "profile.h"
#include "roomsets.h"
#include "server.h"

static const struct {
  const char *path;
  route_id route;
} routes[] = {
    {"/v1/levels", ROUTE_LEVELS}, {"/v1/algorithms", ROUTE_ALGORITHMS},
    {"/v1/stats", ROUTE_STATS},   {"/metrics", ROUTE_METRICS},
    {"/livez", ROUTE_LIVEZ},      {"/healthz", ROUTE_LIVEZ},
    {"/readyz", ROUTE_READYZ},    {"/v1/roomsets", ROUTE_ROOMSETS},
    {"/", ROUTE_VIEWER},
};

route_id route_match(const char *path) {
  if (strncmp(path, "/v1/lobbies/", 12) == 0)
    return ROUTE_LOBBIES;
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++)
    if (strcmp(routes[i].path, path) == 0)
      return routes[i].route;
  return ROUTE_NONE;
}

const char *route_allowed_methods(route_id route) {
  return route == ROUTE_LEVELS ? "GET, HEAD, POST" : "GET, HEAD";
}

static bool method_allowed(route_id route, const char *method) {
  if (route == ROUTE_LEVELS && strcmp(method, "POST") == 0)
    return true;
  return strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
}

static stats_gauges gauges(const server *s) {
  return (stats_gauges){
      .interactive_depth = s->queues.depth[JOB_INTERACTIVE],
      .interactive_max = s->queues.max_depth[JOB_INTERACTIVE],
      .speculative_depth = s->queues.depth[JOB_SPECULATIVE],
      .speculative_max = s->queues.max_depth[JOB_SPECULATIVE],
      .workers = s->queues.workers,
      .workers_busy = s->queues.running,
      .speculative_busy = s->queues.running_kind[JOB_SPECULATIVE],
      .speculative_idle = s->queues.idle_speculative,
      .connections = s->http.open,
      .health_connections = s->health.open,
      .send_queue_bytes = s->conns.send_queued,
      .draining = s->draining,
      .lobbies = s->lobbies.count,
      .lobby_hits = s->lobbies.hits,
      .lobby_waits = s->lobbies.waits,
      .lobby_misses = s->lobbies.misses,
      .lobby_superseded = s->lobbies.superseded,
      .lobby_expired = s->lobbies.expired,
      .lobby_evicted = s->lobbies.evicted,
      .lobby_jobs = s->lobbies.jobs_started,
      .lobby_saved_s = s->lobbies.saved_s,
      .lobby_ready_bytes = (long)s->lobbies.ready_bytes,
      .lobby_bytes = (long)(s->lobbies.ready_bytes + s->lobbies.state_bytes),
      .lobby_bytes_max = s->cfg->limits.lobby_bytes_max,
  };
}

/* A 503; respond() adds Retry-After (limits.retry_after_s) to every 503. */
static void retry_later(request *r, const char *slug, const char *title, const char *detail) {
  respond_problem(r, 503, slug, title, detail, NULL, NULL, NULL);
}

/* Which representation the client accepts (negotiate.c). */
int level_format(request *r) {
  level_negotiate(r);
  return r->format;
}

/* A job's client is still connected unless its socket reports an error
 * (a reset: the client closed with data unread, or its host is gone).
 * End-of-file is not enough: a client may half-close (shutdown(SHUT_WR))
 * after a complete request and still read the answer (issue 12 item 7), and
 * TCP cannot tell that from a full close without writing; a job whose client
 * closed for good is bounded by its deadline instead. Checked only for jobs
 * that waited, so the fast path makes no syscall. */
static bool client_still_there(job *j) {
  request *r = j->data;
  if (dg_monotonic_ns() - j->queued_ns < 1000000)
    return true;
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(r->connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == NULL)
    return true;
  char byte;
  ssize_t got = recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
    r->srv->counters.clients_gone++;
    return false;
  }
  return true;
}

static int status_of(int code) {
  switch (code) {
  case DG_EPARSE: return 400;
  case DG_ETIMEDOUT: return 504;
  case DG_ECANCELED: return 503;
  case DG_ENOMEM:
  case DG_EINTERNAL: return 500;
  default: return 422;
  }
}

void route_job_done(job *j) {
  request *r = j->data;
  server *s = r->srv;
  r->queue_ms = (double)(j->started_ns - j->queued_ns) / 1e6;
  r->generation_ms = (double)(j->generated_ns - j->started_ns) / 1e6;
  r->serialise_ms = (double)(j->finished_ns - j->generated_ns) / 1e6;
  if (j->rc == 0) {
    level_respond(r, j);
  } else if (j->rc == DG_ECANCELED && s->draining) {
    s->counters.rejected_draining++;
    retry_later(r, "draining", "Shutting down", "the daemon is shutting down; retry elsewhere");
  } else {
    if (j->rc == DG_ETIMEDOUT)
      s->counters.deadline_exceeded++;
    respond_error(r, status_of(j->rc), &j->err);
  }
  if (r->suspended) {
    r->suspended = false;
    MHD_resume_connection(r->connection);
    /* NOTES.md: a resume does not wake the loop in external-polling mode. */
    http_pump(s);
  }
}

static const char *const body_members[] = {
    "algorithm", "seed", "params", "players", "profile", "deadline_ms", "roomset", "targets", NULL};

/* Checks the daemon's own members and limits; fills the request, the
 * deadline and `err`. Returns the HTTP status to answer with, 0 if valid. */
static int parse_body(server *s, const json_t *body, dg_request *out, long *deadline_ms,
                      dg_error *err) {
  const config_limits *limits = &s->cfg->limits;
  party_limits party_bounds = party_limits_of(limits);
  if (!json_is_object(body))
    return dg_error_set(err, DG_ETYPE, "", "the request body must be a JSON object"), 400;
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)body, key, value) {
    bool known = false;
    for (int i = 0; body_members[i] != NULL; i++)
      known = known || strcmp(body_members[i], key) == 0;
    if (!known) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "%s", key);
      return dg_error_set(err, DG_ENOENT, field,
                          "unknown member '%s'; allowed: algorithm, seed, params, players, "
                          "profile, deadline_ms, roomset, targets (and floors on /v1/levels)",
                          key),
             422;
    }
  }
  dg_request parsed;
  int rc = dg_request_from_json(body, &parsed, err);
  if (rc != 0)
    return status_of(rc);
  long player_count = -1; /* players in the party, when the body names them */

  /* Profiles: derived parameters first, then the explicit ones over them. */
  const json_t *players = json_object_get(body, "players");
  const json_t *profile_name = json_object_get(body, "profile");
  const json_t *profile = NULL;
  if (profile_name != NULL && !json_is_null(profile_name)) {
    if (!json_is_string(profile_name))
      return dg_error_set(err, DG_ETYPE, "profile", "profile must be a string"), 422;
    profile = s->cfg->profiles != NULL
                  ? json_object_get(s->cfg->profiles, json_string_value(profile_name))
                  : NULL;
    if (profile == NULL) {
      char names[160] = "";
      const char *name;
      json_t *ignored;
      if (s->cfg->profiles != NULL)
        json_object_foreach(s->cfg->profiles, name, ignored) {
          size_t at = strlen(names);
          snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", name);
        }
      return dg_error_set(err, DG_ENOENT, "profile", "unknown profile '%s'; known: %s",
                          json_string_value(profile_name), names[0] ? names : "(none)"),
             422;
    }
  } else if (players != NULL && !json_is_null(players) && s->cfg->default_profile[0]) {
    profile = json_object_get(s->cfg->profiles, s->cfg->default_profile);
    if (strcmp(json_string_value(json_object_get(profile, "algorithm")), parsed.algorithm->name) !=
        0)
      profile = NULL;
  }
  if (profile != NULL) {
    const char *profile_algorithm = json_string_value(json_object_get(profile, "algorithm"));
    if (strcmp(profile_algorithm, parsed.algorithm->name) != 0)
      return dg_error_set(err, DG_EINVAL, "profile", "profile '%s' is for algorithm %s, not %s",
                          json_string_value(profile_name), profile_algorithm,
                          parsed.algorithm->name),
             422;
    party members = {NULL, 0};
    if (players != NULL && !json_is_null(players) &&
        (rc = party_from_json(players, &party_bounds, &members, err)) != 0)
      return 422;
    if (players != NULL && !json_is_null(players))
      player_count = members.count;
    dg_request derived;
    dg_request_init(&derived, parsed.algorithm);
    derived.seed = parsed.seed;
    derived.seed_given = parsed.seed_given;
    derived.targets = parsed.targets;
    if ((rc = profile_apply(profile, &members, &derived, err)) != 0)
      return status_of(rc);
    const json_t *params = json_object_get(body, "params");
    rc = params != NULL && !json_is_null(params) ? dg_request_set_params_json(&derived, params, err)
                                                 : dg_request_validate(&derived, err);
    if (rc != 0)
      return status_of(rc);
    parsed = derived;
  } else if (players != NULL && !json_is_null(players)) {
    party members;
    if (party_from_json(players, &party_bounds, &members, err) != 0)
      return 422;
    player_count = members.count;
  }
  /* One spawn per player unless the request says otherwise; a party above
   * the parameter's range shares its last spawns. */
  int spawns = dg_common_param(parsed.algorithm, DG_COMMON_SPAWNS);
  if (player_count >= 0 && !(parsed.params.explicit_mask & (UINT64_C(1) << spawns))) {
    double most = parsed.algorithm->params[spawns].max;
    parsed.params.number[spawns] = player_count < most ? (double)player_count : most;
  }
  if (parsed.targets.attempts_max > limits->target_attempts_max)
    return dg_error_set(err, DG_ELIMIT, "targets.attempts_max",
                        "targets.attempts_max must be an integer from 1 to %ld "
                        "(limits.target_attempts_max)",
                        limits->target_attempts_max),
           422;
  if (parsed.targets.set_mask != 0) {
    if (parsed.targets.attempts_max == 0)
      parsed.targets.attempts_max = DG_TARGET_ATTEMPTS_DEFAULT < limits->target_attempts_max
                                        ? DG_TARGET_ATTEMPTS_DEFAULT
                                        : (int)limits->target_attempts_max;
  }

  /* Daemon limits over the algorithm's own ranges. */
  int width = dg_algorithm_param_index(parsed.algorithm, "width");
  int height = dg_algorithm_param_index(parsed.algorithm, "height");
  if (width >= 0 && height >= 0) {
    double cells = parsed.params.number[width] * parsed.params.number[height];
    if (cells > (double)limits->grid_cells_max)
      return dg_error_set(err, DG_ELIMIT, "params.width",
                          "params.width * params.height must be at most %ld cells (limits."
                          "grid_cells_max); asked for %.0f",
                          limits->grid_cells_max, cells),
             422;
  }
  /* A room count the caller asked for above the limit is an error; a default
   * above it (landmark's "no cap" 20000) is lowered to the limit, which the
   * level's echoed params then show, so the default request always works. */
  static const char *const room_params[] = {"rooms_max", "rooms", "room_count", NULL};
  bool capped = false;
  for (int i = 0; room_params[i] != NULL; i++) {
    int index = dg_algorithm_param_index(parsed.algorithm, room_params[i]);
    if (index < 0 || parsed.params.number[index] <= (double)limits->rooms_max)
      continue;
    if (!(parsed.params.explicit_mask & (UINT64_C(1) << index))) {
      parsed.params.number[index] = (double)limits->rooms_max;
      capped = true;
      continue;
    }
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "params.%s", room_params[i]);
    return dg_error_set(err, DG_ELIMIT, field, "%s must be at most %ld (limits.rooms_max)", field,
                        limits->rooms_max),
           422;
  }
  if (capped && (rc = dg_request_validate(&parsed, err)) != 0)
    return status_of(rc);
  *deadline_ms = limits->deadline_ms_default;
  const json_t *deadline = json_object_get(body, "deadline_ms");
  if (deadline != NULL && !json_is_null(deadline)) {
    if (!json_is_integer(deadline) || json_integer_value(deadline) < 1 ||
        json_integer_value(deadline) > limits->deadline_ms_max)
      return dg_error_set(err, DG_EINVAL, "deadline_ms",
                          "deadline_ms must be an integer from 1 to %ld", limits->deadline_ms_max),
             422;
    *deadline_ms = (long)json_integer_value(deadline);
  }
  if (!parsed.seed_given) {
    /* DESIGN.md "Determinism": the daemon picks the seed and the level says
     * which; kept within 2^53 - 1 so every JSON client reads it exactly. */
    uint64_t high = dg_rng_next(&s->seeds), low = dg_rng_next(&s->seeds);
    parsed.seed = ((high << 32) | low) & DG_SEED_SAFE_MAX;
    parsed.seed_given = true;
  }
  *out = parsed;
  return 0;
}

/* The body's `roomset` member becomes params.roomset before parsing, and
 * the effective room set must be loaded (roomsets.c). */
int level_request_parse(server *s, const json_t *body, dg_request *out, long *deadline_ms,
                        dg_error *err) {
  json_t *moved = NULL;
  int status = roomsets_move_member(body, &moved, err);
  if (status == 0)
    status = parse_body(s, moved != NULL ? moved : body, out, deadline_ms, err);
  if (status == 0)
    status = roomsets_check_request(s->queues.context, out, err);
  json_decref(moved);
  return status;
}

static void handle_levels(request *r) {
  server *s = r->srv;
  if (s->draining) {
    s->counters.rejected_draining++;
    retry_later(r, "draining", "Shutting down", "the daemon is shutting down; retry elsewhere");
    return;
  }
  if (level_format(r) < 0) {
    level_not_acceptable(r);
    return;
  }
  if (level_svg_query(r) != 0)
    return;
  if (strcmp(r->method, "POST") != 0) {
    level_handle_query(r);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  if (r->body_length == 0) {
    dg_error_set(&err, DG_EPARSE, "", "the request body must be a JSON object");
    respond_error(r, 400, &err);
    return;
  }
  json_error_t json_err;
  json_t *body = json_loadb(r->body, r->body_length, JSON_REJECT_DUPLICATES, &json_err);
  if (body == NULL) {
    dg_error_set(&err, DG_EPARSE, "", "invalid JSON at line %d column %d: %s", json_err.line,
                 json_err.column, json_err.text);
    respond_error(r, 400, &err);
    return;
  }
  level_handle_body(r, body);
  json_decref(body);
}

void level_handle_body(request *r, json_t *body) {
  server *s = r->srv;
  dg_error err;
  dg_error_clear(&err);
  /* `floors` asks for a multi-floor set: checked here, the rest of the body
   * is an ordinary level request (floor 0's). */
  int floors = 1;
  const json_t *floors_member = json_object_get(body, "floors");
  if (floors_member != NULL && !json_is_null(floors_member)) {
    if (!json_is_integer(floors_member) || json_integer_value(floors_member) < 1 ||
        json_integer_value(floors_member) > s->cfg->limits.floors_max) {
      dg_error_set(&err, DG_EINVAL, "floors",
                   "floors must be an integer from 1 to %ld (limits.floors_max)",
                   s->cfg->limits.floors_max);
      respond_error(r, 422, &err);
      return;
    }
    floors = (int)json_integer_value(floors_member);
  }
  /* A set of floors is one JSON document or one text; pictures and Tiled
   * maps are of one level. */
  if (floors > 1 && r->format != JOB_FORMAT_JSON && r->format != JOB_FORMAT_ASCII) {
    json_t *errors = json_pack("[{s:s, s:s}]", "field", "Accept", "message",
                               "a multi-floor set (floors > 1) is served as application/json "
                               "or text/plain; ask for the floors one by one for SVG or Tiled");
    respond_problem(r, 406, "not-acceptable", "Not acceptable",
                    "a multi-floor set is served as application/json or text/plain", errors, NULL,
                    NULL);
    return;
  }
  json_object_del(body, "floors");
  long deadline_ms = 0;
  dg_request level_request;
  int status = level_request_parse(s, body, &level_request, &deadline_ms, &err);
  if (status == 0 && floors > 1 &&
      !dg_param_bool(&level_request.params,
                     dg_common_param(level_request.algorithm, DG_COMMON_PLACEMENT))) {
    dg_error_set(&err, DG_EINVAL, "params.placement",
                 "floors above 1 need params.placement=true (the stairs line floors up)");
    status = 422;
  }
  const json_t *name = json_object_get(body, "algorithm");
  const dg_algorithm *named =
      json_is_string(name) ? dg_algorithm_find(json_string_value(name)) : NULL;
  r->algorithm = named != NULL ? named->name : NULL;
  /* Only a seed the client chose names one level forever (docs/pictures.md). */
  const json_t *seed = json_object_get(body, "seed");
  r->encoding.cacheable = seed != NULL && !json_is_null(seed);
  if (status != 0) {
    respond_error(r, status, &err);
    return;
  }
  r->work.floors = floors;
  level_submit(r, &level_request, deadline_ms, r->format);
}

void level_submit(request *r, const dg_request *level, long deadline_ms, int format) {
  server *s = r->srv;
  r->seed = level->seed;
  job *j = &r->work;
  j->request = *level;
  j->format = (job_format)format;
  j->svg = r->svg;
  j->encoding = r->encoding;
  dg_cancel_init(&j->cancel, dg_monotonic_ns() + (uint64_t)deadline_ms * 1000000u);
  j->done = route_job_done;
  j->wanted = client_still_there;
  j->data = r;
  r->has_job = true;
  if (jobs_submit(&s->queues, j, JOB_INTERACTIVE) != 0) {
    r->has_job = false;
    s->counters.rejected_queue_full++;
    char detail[128];
    snprintf(detail, sizeof detail,
             "the generation queue is full (%ld waiting, limits.interactive_queue_max)",
             s->queues.depth[JOB_INTERACTIVE]);
    retry_later(r, "queue-full", "Too busy", detail);
    return;
  }
  /* The job may have ended already (dropped at submission); otherwise wait
   * for it with the connection suspended (NOTES.md: suspend, then MHD_YES). */
  if (!r->answered) {
    r->suspended = true;
    MHD_suspend_connection(r->connection);
  }
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

/* DESIGN.md "Configuration, limits, security": optional bearer tokens for
 * every /v1/ path. Health checks and /metrics stay open for probes and
 * scrapers. The scheme name is case-insensitive and may be followed by
 * several spaces (RFC 7235 section 2.1). */
static bool authorized(request *r) {
  const json_t *tokens = r->srv->cfg->auth_tokens;
  if (tokens == NULL || json_array_size(tokens) == 0 || strncmp(r->path, "/v1/", 4) != 0)
    return true;
  const char *header =
      MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  bool ok = false;
  if (header != NULL && strncasecmp(header, "Bearer", 6) == 0 &&
      (header[6] == ' ' || header[6] == '\t')) {
    const char *given = header + 6;
    while (*given == ' ' || *given == '\t')
      given++;
    size_t i;
    const json_t *token;
    json_array_foreach(tokens, i, token) ok |= same_secret(given, json_string_value(token));
  }
  if (!ok)
    respond_problem(r, 401, "unauthorized", "Unauthorized",
                    header == NULL ? "this endpoint needs Authorization: Bearer TOKEN"
                                   : "the bearer token is not accepted",
                    NULL, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"dungeond\"");
  return ok;
}

void route_handle(request *r) {
  server *s = r->srv;
  /* The health listener serves the probes and /metrics, nothing else. */
  bool probe = r->route == ROUTE_LIVEZ || r->route == ROUTE_READYZ || r->route == ROUTE_METRICS;
  if (r->owner->health && !probe) {
    char detail[REQUEST_PATH_MAX + 96];
    snprintf(detail, sizeof detail,
             "no resource at %s on the health listener (it serves /livez, /healthz, /readyz, "
             "/metrics)",
             r->path);
    respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
    return;
  }
  if (!authorized(r))
    return;
  if (r->route == ROUTE_NONE) {
    char detail[REQUEST_PATH_MAX + 64];
    snprintf(detail, sizeof detail, "no resource at %s", r->path);
    respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
    return;
  }
  if (r->route == ROUTE_LOBBIES) {
    lobby_route(r, r->path + 12);
    return;
  }
  if (!method_allowed(r->route, r->method)) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s is not allowed here; use %s", r->method,
             route_allowed_methods(r->route));
    respond_problem(r, 405, "method-not-allowed", "Method not allowed", detail, NULL,
                    MHD_HTTP_HEADER_ALLOW, route_allowed_methods(r->route));
    return;
  }
  stats_gauges g;
  size_t length = 0;
  char *text = NULL;
  switch (r->route) {
  case ROUTE_LEVELS: handle_levels(r); break;
  case ROUTE_ALGORITHMS: respond_json(r, 200, dg_algorithms_to_json()); break;
  case ROUTE_STATS:
    g = gauges(s);
    text = stats_json(&s->counters, &g, &length);
    respond(r, 200, "application/json", text, length, NULL, NULL);
    break;
  case ROUTE_METRICS:
    g = gauges(s);
    text = stats_prometheus(&s->counters, &g, &length);
    respond(r, 200, "text/plain; version=0.0.4; charset=utf-8", text, length, NULL, NULL);
    break;
  case ROUTE_LIVEZ: respond_json(r, 200, json_pack("{s:s}", "status", "ok")); break;
  case ROUTE_ROOMSETS: respond_json(r, 200, dg_context_roomsets_to_json(s->queues.context)); break;
  case ROUTE_READYZ:
    /* Ready once the room sets are loaded (DESIGN.md) and until a drain. */
    respond_json(r, s->draining || s->queues.context == NULL ? 503 : 200,
                 json_pack("{s:s}", "status",
                           s->draining                 ? "draining"
                           : s->queues.context == NULL ? "loading"
                                                       : "ready"));
    break;
  case ROUTE_VIEWER: viewer_respond(r); break;
  case ROUTE_NONE:
  case ROUTE_LOBBIES: break;
  }
}
