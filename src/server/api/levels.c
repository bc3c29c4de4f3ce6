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
  server *s = server_of(r);
  exchange_of(r)->queue_ms = (double)(j->started_ns - j->queued_ns) / 1e6;
  exchange_of(r)->generation_ms = (double)(j->generated_ns - j->started_ns) / 1e6;
  exchange_of(r)->serialise_ms = (double)(j->finished_ns - j->generated_ns) / 1e6;
  if (j->rc == 0) {
    level_respond(r, j);
  } else if (j->rc == DG_ECANCELED && s->draining) {
    respond_draining(r);
  } else {
    if (j->rc == DG_ETIMEDOUT)
      s->counters.deadline_exceeded++;
    respond_error(r, &j->err);
  }
  free(j->body);
  free(lj);
  http_resume(r);
}

void level_submit(request *r, const dg_request *level, int floors, long deadline_ms, int format) {
  server *s = server_of(r);
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
  dg_cancel_init(&j->cancel, dg_monotonic_ns() + (uint64_t)deadline_ms * 1000000u);
  j->done = on_job_done;
  j->wanted = client_still_there;
  j->data = lj;
  exchange_of(r)->has_job = true;
  if (jobs_submit(&s->queues, j, JOB_INTERACTIVE) != 0) {
    exchange_of(r)->has_job = false;
    free(lj);
    s->counters.rejected_queue_full++;
    dg_error err;
    dg_error_set(&err, SRV_EQUEUE_FULL, "",
                 "the generation queue is full (%ld waiting, limits.interactive_queue_max)",
                 s->queues.depth[JOB_INTERACTIVE]);
    respond_error(r, &err);
    return;
  }
  /* The job may have ended already (dropped at submission: answered, and
   * `lj` freed); otherwise wait for it with the connection suspended. */
  if (!r->answered)
    http_suspend(r);
}

void level_handle_body(request *r, json_t *body) {
  server *s = server_of(r);
  dg_error err;
  dg_error_clear(&err);
  /* `floors` asks for a multi-floor set: checked here, the rest of the body
   * is an ordinary level request (floor 0's). */
  int floors = 1;
  if (level_request_floors(s->cfg, body, &floors, &err) != 0) {
    respond_error(r, &err);
    return;
  }
  /* A set of floors is one JSON document or one text; pictures and Tiled
   * maps are of one level. */
  if (floors > 1 && exchange_of(r)->format != JOB_FORMAT_JSON &&
      exchange_of(r)->format != JOB_FORMAT_ASCII) {
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
  int rc = level_request_build(s->cfg, s->queues.context, &s->seeds, body, &level_request,
                               &deadline_ms, &err);
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
