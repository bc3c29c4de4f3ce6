/* POST and GET /v1/levels: parse -> validate -> enqueue -> answer. The
 * body becomes a request through the pure builder (level_request.c); the
 * job runs in jobs.c's pool while the request is suspended, and its
 * completion answers and resumes it. */
#include "api/levels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "api/exchange.h"
#include "api/problem.h"
#include "api/respond.h"
#include "server.h"
#include "state/level_id.h"
#include "state/level_request.h"

/* A level job and the request waiting for it. The request outlives the
 * job: MHD keeps a suspended connection until it is resumed. */
typedef struct level_job {
  job work;
  request *client;
} level_job;

/* A job's client is still connected unless its socket reports an error
 * (a reset: the client closed with data unread, or its host is gone).
 * End-of-file is not enough: a client may half-close (shutdown(SHUT_WR))
 * after a complete request and still read the answer (issue 12 item 7), and
 * TCP cannot tell that from a full close without writing; a job whose client
 * closed for good is bounded by its deadline instead. Checked only for jobs
 * that waited, so the fast path makes no syscall. */
static bool client_still_there(job *j) {
  level_job *lj = j->data;
  request *r = lj->client;
  if (dg_monotonic_ns() - j->queued_ns < 1000000)
    return true;
  if (http_peer_gone(r)) {
    server_of(r)->counters.clients_gone++;
    return false;
  }
  return true;
}

static void on_job_done(job *j) {
  level_job *lj = j->data;
  request *r = lj->client;
  server *daemon = server_of(r);
  exchange_of(r)->queued_ns = j->queued_ns;
  exchange_of(r)->queue_ms = (double)(j->started_ns - j->queued_ns) / 1e6;
  exchange_of(r)->generation_ms = (double)(j->generated_ns - j->started_ns) / 1e6;
  exchange_of(r)->serialise_ms = (double)(j->finished_ns - j->generated_ns) / 1e6;
  if (j->rc == 0) {
    level_respond(r, j);
  } else if (j->rc == DG_ECANCELED && daemon->draining) {
    respond_draining(r);
  } else {
    if (j->rc == DG_ETIMEDOUT)
      daemon->counters.deadline_exceeded++;
    respond_error(r, &j->err);
  }
  free(j->body);
  free(lj);
  http_resume(r);
}

/* The work a request asks for, in grid cells, for fair queuing and the
 * per-client bound: width x height when the algorithm has both (else 100
 * cells per room asked for, else 10,000), times its floors and its target
 * candidates. An estimate: what matters is that a 1000x1000 landmark map
 * weighs hundreds of times a small classic one. */
static uint64_t job_cost(const dg_request *level, int floors) {
  const dg_algorithm *a = level->algorithm;
  int width = dg_algorithm_param_with_role(a, DG_PARAM_ROLE_WIDTH);
  int height = dg_algorithm_param_with_role(a, DG_PARAM_ROLE_HEIGHT);
  int rooms = dg_algorithm_param_with_role(a, DG_PARAM_ROLE_ROOM_COUNT);
  double cells = 10000;
  if (width >= 0 && height >= 0)
    cells = level->params.number[width] * level->params.number[height];
  else if (rooms >= 0)
    cells = 100 * level->params.number[rooms];
  int attempts = 1;
  if (level->targets.set_mask != 0)
    attempts =
        level->targets.attempts_max > 0 ? level->targets.attempts_max : DG_TARGET_ATTEMPTS_DEFAULT;
  double cost = cells * (floors > 1 ? floors : 1) * attempts;
  return cost < 1 ? 1 : cost > 1e15 ? (uint64_t)1e15 : (uint64_t)cost;
}

void level_submit(request *r, const dg_request *level, int floors, long deadline_ms, int format) {
  server *daemon = server_of(r);
  exchange_of(r)->seed = level->seed;
  level_job *lj = calloc(1, sizeof *lj);
  if (lj == NULL) {
    respond_out_of_memory(r);
    return;
  }
  lj->client = r;
  job *j = &lj->work;
  j->request = *level;
  j->floors = floors;
  j->format = (job_format)format;
  j->svg = exchange_of(r)->svg;
  j->encoding = exchange_of(r)->encoding;
  j->view = exchange_of(r)->view;
  /* One level's JSON names itself (level_id, level_hash); floors of a set
   * are not fetched by id. A client view carries no level_id: the id
   * fetches the full level (GET /v1/levels/{level_id}), a capability the
   * game server keeps. */
  j->identify = floors == 1 && exchange_of(r)->audit.seeds == 0 && j->view != DG_VIEW_CLIENT;
  j->audit = exchange_of(r)->audit;
  memcpy(j->level_key, daemon->cfg->lobby_seed_key, sizeof j->level_key);
  dg_cancel_init(&j->cancel, dg_monotonic_ns() + (uint64_t)deadline_ms * 1000000u);
  j->done = on_job_done;
  j->wanted = client_still_there;
  j->data = lj;
  j->client_key = exchange_of(r)->client;
  j->cost = job_cost(level, floors) * (uint64_t)(j->audit.seeds > 0 ? j->audit.seeds : 1);
  exchange_of(r)->has_job = true;
  int rc = jobs_submit(&daemon->queues, j, JOB_INTERACTIVE);
  if (rc != 0) {
    exchange_of(r)->has_job = false;
    free(lj);
    dg_error err;
    if (rc == SRV_ECLIENT_BUSY) {
      daemon->counters.rejected_client_busy++;
      dg_error_set(&err, SRV_ECLIENT_BUSY, "",
                   "this client already has queued work of estimated cost above "
                   "limits.client_queued_cost_max (%ld grid cells); retry when some is done",
                   daemon->cfg->limits.client_queued_cost_max);
    } else if (rc == DG_ELIMIT) {
      daemon->counters.rejected_queue_full++;
      dg_error_set(&err, SRV_EQUEUE_FULL, "",
                   "the generation queue is full (%ld waiting, limits.interactive_queue_max)",
                   daemon->queues.depth[JOB_INTERACTIVE]);
    } else {
      dg_error_set(&err, rc, "", "the job could not be queued: %s", dg_strerror(rc));
    }
    respond_error(r, &err);
    return;
  }
  /* The job may have ended already (dropped at submission: answered, and
   * `lj` freed); otherwise wait for it with the connection suspended. */
  if (!r->answered)
    http_suspend(r);
}

void level_handle_body(request *r, json_t *body) {
  server *daemon = server_of(r);
  if (level_view_query(r, body) != 0)
    return;
  dg_error err;
  dg_error_clear(&err);
  /* `floors` asks for a multi-floor set: checked here, the rest of the body
   * is an ordinary level request (floor 0's). */
  int floors = 1;
  if (level_request_floors(daemon->cfg, body, &floors, &err) != 0) {
    respond_error(r, &err);
    return;
  }
  json_object_del(body, "floors");
  long deadline_ms = 0;
  dg_request level_request;
  int rc = level_request_build(daemon->cfg, daemon->queues.context, &daemon->seeds, body,
                               &level_request, &deadline_ms, &err);
  if (rc == 0 && floors > 1 &&
      !dg_param_bool(&level_request.params,
                     dg_common_param(level_request.algorithm, DG_COMMON_PLACEMENT)))
    rc = dg_error_set(&err, DG_EINVAL, "params.placement",
                      "floors above 1 need params.placement=true (the stairs line floors up)");
  const json_t *name = json_object_get(body, "algorithm");
  const dg_algorithm *named =
      json_is_string(name) ? dg_algorithm_find(json_string_value(name)) : NULL;
  exchange_of(r)->algorithm = named != NULL ? named->name : NULL;
  /* Only a seed the client chose names one level forever (docs/pictures.md). */
  const json_t *seed = json_object_get(body, "seed");
  exchange_of(r)->encoding.cacheable = seed != NULL && !json_is_null(seed);
  if (rc != 0) {
    respond_error(r, &err);
    return;
  }
  level_submit(r, &level_request, floors, deadline_ms, exchange_of(r)->format);
}

void levels_handle(request *r) {
  if (server_of(r)->draining) {
    respond_draining(r);
    return;
  }
  if (level_negotiate(r) < 0) {
    level_not_acceptable(r);
    return;
  }
  if (level_svg_query(r) != 0)
    return;
  dg_error err;
  dg_error_clear(&err);
  if (strcmp(r->method, "POST") != 0) {
    json_t *query = level_query_body(r, &err);
    if (query == NULL)
      respond_error(r, &err);
    else
      level_handle_body(r, query);
    json_decref(query);
    return;
  }
  if (r->body_length == 0) {
    dg_error_set(&err, DG_EPARSE, "", "the request body must be a JSON object");
    respond_error(r, &err);
    return;
  }
  json_error_t json_err;
  json_t *body = json_loadb(r->body, r->body_length, JSON_REJECT_DUPLICATES, &json_err);
  if (body == NULL) {
    dg_error_set(&err, DG_EPARSE, "", "invalid JSON at line %d column %d: %s", json_err.line,
                 json_err.column, json_err.text);
    respond_error(r, &err);
    return;
  }
  level_handle_body(r, body);
  json_decref(body);
}

/* Whether the room set a level id names (by digest) is the one loaded
 * under the name its request gives: true when it names none. Else
 * `detail` says which set, and what is loaded instead. */
static bool roomset_still_loaded(const server *daemon, const json_t *body,
                                 const level_origin *origin, char *detail, size_t detail_size) {
  if (origin->roomset_sha256[0] == '\0')
    return true;
  const char *name = json_string_value(json_object_get(json_object_get(body, "params"), "roomset"));
  const dg_context *loaded = daemon->queues.context;
  int count = loaded != NULL ? dg_context_roomset_count(loaded) : 0;
  for (int i = 0; name != NULL && i < count; i++) {
    dg_roomset_info info;
    if (dg_context_roomset_info(loaded, i, &info) != 0 || strcmp(info.name, name) != 0)
      continue;
    if (strcmp(info.sha256, origin->roomset_sha256) == 0)
      return true;
    snprintf(detail, detail_size,
             "this level id was made with room set '%s' of sha256 %.12s...; the '%s' loaded now "
             "is %.12s... (changed or reloaded), which makes other bytes for it",
             name, origin->roomset_sha256, name, info.sha256);
    return false;
  }
  snprintf(detail, detail_size,
           "this level id was made with room set '%s' of sha256 %.12s..., which is no longer "
           "loaded",
           name != NULL ? name : "?", origin->roomset_sha256);
  return false;
}

/* Whether the content table a level id names (by digest) is the one
 * loaded under the name its request gives (params.table): true when it
 * names none. Else `detail` says which table, and what is loaded instead:
 * another table would place other entities, so the id cannot be served. */
static bool table_still_loaded(const server *daemon, const json_t *body, const level_origin *origin,
                               char *detail, size_t detail_size) {
  if (origin->table_sha256[0] == '\0')
    return true;
  const char *name = json_string_value(json_object_get(json_object_get(body, "params"), "table"));
  const dg_context *loaded = daemon->queues.context;
  int count = loaded != NULL ? dg_context_table_count(loaded) : 0;
  for (int i = 0; name != NULL && i < count; i++) {
    dg_table_info info;
    if (dg_context_table_info(loaded, i, &info) != 0 || strcmp(info.name, name) != 0)
      continue;
    if (strcmp(info.sha256, origin->table_sha256) == 0)
      return true;
    snprintf(detail, detail_size,
             "this level id was made with content table '%s' of sha256 %.12s...; the '%s' loaded "
             "now is %.12s... (changed or reloaded), which places other entities for it",
             name, origin->table_sha256, name, info.sha256);
    return false;
  }
  snprintf(detail, detail_size,
           "this level id was made with content table '%s' of sha256 %.12s..., which is no "
           "longer loaded",
           name != NULL ? name : "?", origin->table_sha256);
  return false;
}

void level_by_id_handle(request *r, const char *level_id) {
  server *daemon = server_of(r);
  if (daemon->draining) {
    respond_draining(r);
    return;
  }
  if (level_negotiate(r) < 0) {
    level_not_acceptable(r);
    return;
  }
  if (level_svg_query(r) != 0)
    return;
  json_t *body = NULL;
  level_origin origin;
  int rc = level_id_parse(daemon->cfg->lobby_seed_key, level_id, &body, &origin);
  char detail[320];
  json_t *errors;
  switch (rc) {
  case 0:
    if (!roomset_still_loaded(daemon, body, &origin, detail, sizeof detail)) {
      errors = json_pack("[{s:s, s:s}]", "field", "level_id", "message", detail);
      respond_problem(r, 410, "level-roomset-gone", "Level made with another room set", detail,
                      errors, NULL, NULL);
    } else if (!table_still_loaded(daemon, body, &origin, detail, sizeof detail)) {
      errors = json_pack("[{s:s, s:s}]", "field", "level_id", "message", detail);
      respond_problem(r, 410, "level-table-gone", "Level made with another content table", detail,
                      errors, NULL, NULL);
    } else {
      level_handle_body(r, body);
    }
    json_decref(body);
    return;
  case LEVEL_ID_EMALFORMED:
    snprintf(detail, sizeof detail,
             "not a level id: it must be the level_id member of a level, whole (base64url, a dot, "
             "a 22-character signature); this one is truncated or altered");
    errors = json_pack("[{s:s, s:s}]", "field", "level_id", "message", detail);
    respond_problem(r, 400, "malformed-level-id", "Malformed level id", detail, errors, NULL, NULL);
    return;
  case LEVEL_ID_EFORGED:
    snprintf(detail, sizeof detail,
             "no such level: this level id was not signed with this deployment's key "
             "(lobby_seed_secret)");
    respond_problem(r, 404, "unknown-level", "Unknown level", detail, NULL, NULL, NULL);
    return;
  case LEVEL_ID_EVERSION:
    snprintf(detail, sizeof detail,
             "this level id was made by %s; this daemon runs generator version %d (dungeond %s), "
             "which makes other bytes for it and cannot serve it",
             origin.maker, DG_GENERATOR_VERSION, DUNGEON_VERSION);
    errors = json_pack("[{s:s, s:s}]", "field", "level_id", "message", detail);
    respond_problem(r, 410, "level-version-gone", "Level made by another version", detail, errors,
                    NULL, NULL);
    return;
  default: respond_out_of_memory(r); return;
  }
}
