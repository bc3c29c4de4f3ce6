/* See audit.h. The audit members are read and removed here; the rest of
 * the body goes through the same builder as POST /v1/levels, so an audit
 * takes exactly the requests a level does (profiles, players, targets,
 * limits) and is queued like one, its cost the level's times its seeds. */
#include "api/audit.h"

#include <string.h>

#include "api/exchange.h"
#include "api/levels.h"
#include "api/respond.h"
#include "server.h"
#include "state/level_request.h"

/* An integer member `name` of `body` within lo..hi, or `fallback` when
 * absent; removed from the body. */
static int take_integer(json_t *body, const char *name, long long lo, long long hi,
                        long long fallback, const char *limit, long long *out, dg_error *err) {
  const json_t *member = json_object_get(body, name);
  *out = fallback;
  if (member == NULL)
    return 0;
  if (!json_is_integer(member) || json_integer_value(member) < lo ||
      json_integer_value(member) > hi)
    return dg_error_set(err, DG_EINVAL, name, "%s must be an integer from %lld to %lld%s", name, lo,
                        hi, limit);
  *out = json_integer_value(member);
  json_object_del(body, name);
  return 0;
}

/* The audit members into *audit; DG_E* with `err` naming the field. */
static int take_audit(const config *cfg, json_t *body, job_audit *audit, dg_error *err) {
  if (!json_is_object(body))
    return dg_error_set(err, DG_EPARSE, "", "the request body must be a JSON object");
  static const char *const refused[] = {"seed", "floors"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    if (json_object_get(body, refused[i]) != NULL)
      return dg_error_set(err, DG_EINVAL, refused[i],
                          "an audit runs seeds first_seed to first_seed + seeds - 1 of one "
                          "floor: give first_seed and seeds, not %s",
                          refused[i]);
  long long seeds, bins, first;
  int rc = take_integer(body, "seeds", 1, cfg->limits.audit_seeds_max,
                        100 < cfg->limits.audit_seeds_max ? 100 : cfg->limits.audit_seeds_max,
                        " (limits.audit_seeds_max)", &seeds, err);
  if (rc == 0)
    rc = take_integer(body, "bins", 1, DG_AUDIT_BINS_MAX, DG_AUDIT_BINS_DEFAULT, "", &bins, err);
  /* JSON integers are signed 64-bit here: first seeds above that are not
   * worth a string form. */
  if (rc == 0)
    rc = take_integer(body, "first_seed", 0, INT64_MAX - DG_AUDIT_SEEDS_MAX, 1, "", &first, err);
  if (rc == 0)
    *audit = (job_audit){.seeds = (int)seeds, .bins = (int)bins, .first_seed = (uint64_t)first};
  return rc;
}

void audit_handle(request *r) {
  server *daemon = server_of(r);
  if (daemon->draining) {
    respond_draining(r);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  json_error_t json_err;
  json_t *body = r->body_length > 0
                     ? json_loadb(r->body, r->body_length, JSON_REJECT_DUPLICATES, &json_err)
                     : NULL;
  if (body == NULL) {
    if (r->body_length == 0)
      dg_error_set(&err, DG_EPARSE, "", "the request body must be a JSON object");
    else
      dg_error_set(&err, DG_EPARSE, "", "invalid JSON at line %d column %d: %s", json_err.line,
                   json_err.column, json_err.text);
    respond_error(r, &err);
    return;
  }
  exchange *x = exchange_of(r);
  int rc = take_audit(daemon->cfg, body, &x->audit, &err);
  long deadline_ms = 0;
  dg_request level_request;
  if (rc == 0) {
    /* Any seed: the audit replaces it with its own. */
    json_object_set_new(body, "seed", json_integer(1));
    rc = level_request_build(daemon->cfg, daemon->queues.context, &daemon->seeds, body,
                             &level_request, &deadline_ms, &err);
  }
  json_decref(body);
  if (rc != 0) {
    respond_error(r, &err);
    return;
  }
  x->algorithm = level_request.algorithm->name;
  x->format = JOB_FORMAT_JSON;
  x->encoding.cacheable = false; /* generation times differ run to run */
  level_submit(r, &level_request, 1, deadline_ms, JOB_FORMAT_JSON);
}
