/* The daemon's pure halves (issue 14 item 1): the one error->status table
 * (problem.c) and the request builder (level_request.c) that POST
 * /v1/levels and the lobbies share, exercised without a server. */
#include <criterion/criterion.h>
#include <string.h>

#include "api/problem.h"
#include "state/config.h"
#include "state/level_request.h"

Test(problem, one_status_per_error_code) {
  struct {
    int code, status;
    const char *slug;
  } table[] = {
      {DG_EPARSE, 400, "malformed"},
      {DG_ETYPE, 422, "validation"},
      {DG_EINVAL, 422, "validation"},
      {DG_ENOENT, 422, "validation"},
      {DG_ELIMIT, 422, "validation"},
      {DG_EUNSAT, 422, "validation"},
      {DG_ETIMEDOUT, 504, "deadline"},
      {DG_ECANCELED, 503, "unavailable"},
      {DG_ENOMEM, 500, "internal"},
      {DG_EINTERNAL, 500, "internal"},
      {SRV_EDRAINING, 503, "draining"},
      {SRV_EQUEUE_FULL, 503, "queue-full"},
      {SRV_ELOBBIES, 503, "too-many-lobbies"},
      {SRV_ELOBBY_BYTES, 503, "lobby-bytes-full"},
      {SRV_EGONE, 409, "lobby-gone"},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    problem_kind kind = problem_of(table[i].code);
    cr_expect_eq(kind.status, table[i].status, "code %d: status %d", table[i].code, kind.status);
    cr_expect_str_eq(kind.slug, table[i].slug, "code %d", table[i].code);
    cr_expect(kind.title != NULL && kind.title[0] != '\0', "code %d has no title", table[i].code);
  }
  cr_expect_str_eq(problem_of(SRV_EDRAINING).slug, PROBLEM_DRAINING_SLUG);
  cr_expect_str_eq(problem_of(SRV_EDRAINING).title, PROBLEM_DRAINING_TITLE);
}

Test(problem, body_has_every_member_and_escapes) {
  json_t *errors = json_pack("[{s:s, s:s}]", "field", "params.width", "message", "too wide");
  size_t length = 0;
  char *text = problem_body(422, "validation", "Invalid request", "a \"quoted\" detail", "/v1/a\"b",
                            "id-1", errors, &length);
  cr_assert_not_null(text);
  cr_expect_eq(length, strlen(text));
  json_t *doc = json_loads(text, 0, NULL);
  cr_assert_not_null(doc, "not JSON: %s", text);
  cr_expect_str_eq(json_string_value(json_object_get(doc, "type")),
                   "urn:dungeond:problem:validation");
  cr_expect_eq(json_integer_value(json_object_get(doc, "status")), 422);
  cr_expect_str_eq(json_string_value(json_object_get(doc, "instance")), "/v1/a\"b");
  cr_expect_str_eq(json_string_value(json_object_get(doc, "detail")), "a \"quoted\" detail");
  cr_expect_str_eq(json_string_value(
                       json_object_get(json_array_get(json_object_get(doc, "errors"), 0), "field")),
                   "params.width");
  json_decref(doc);
  free(text);
  /* Without instance and request id (a raw answer before any request). */
  text = problem_body(503, "draining", "Shutting down", "bye", NULL, NULL, NULL, &length);
  doc = json_loads(text, 0, NULL);
  cr_assert_not_null(doc);
  cr_expect_null(json_object_get(doc, "instance"));
  cr_expect_null(json_object_get(doc, "request_id"));
  cr_expect_null(json_object_get(doc, "errors"));
  json_decref(doc);
  free(text);
  json_decref(errors);
}

/* Builds `text` (a JSON body) with the default configuration and `limits`
 * adjusted by the caller; returns the code. */
static int build(const config *cfg, const char *text, dg_request *out, long *deadline_ms,
                 dg_error *err) {
  json_t *body = json_loads(text, 0, NULL);
  cr_assert_not_null(body, "bad test JSON: %s", text);
  dg_rng seeds;
  dg_rng_seed(&seeds, 1, 2);
  dg_error_clear(err);
  int rc = level_request_build(cfg, NULL, &seeds, body, out, deadline_ms, err);
  json_decref(body);
  return rc;
}

Test(level_request, limits_follow_the_parameter_roles) {
  config cfg;
  config_defaults(&cfg);
  cfg.limits.grid_cells_max = 10000;
  cfg.limits.rooms_max = 50;
  dg_request request;
  long deadline_ms = 0;
  dg_error err;
  /* width * height over grid_cells_max, for every algorithm with a grid. */
  const char *grids[] = {"classic", "landmark", "nonlinear"};
  for (int i = 0; i < 3; i++) {
    char text[160];
    snprintf(text, sizeof text,
             "{\"algorithm\":\"%s\",\"seed\":1,\"params\":{\"width\":200,\"height\":60}}",
             grids[i]);
    int rc = build(&cfg, text, &request, &deadline_ms, &err);
    cr_expect_eq(rc, DG_ELIMIT, "%s: %d %s", grids[i], rc, err.message);
    cr_expect_str_eq(err.field, "params.width", "%s", grids[i]);
    cr_expect_eq(problem_of(rc).status, 422);
  }
  /* An explicit room count above rooms_max is refused, naming the
   * algorithm's own parameter; a default above it is lowered to it. */
  int rc = build(&cfg, "{\"algorithm\":\"nonlinear\",\"seed\":1,\"params\":{\"rooms\":60}}",
                 &request, &deadline_ms, &err);
  cr_expect_eq(rc, DG_ELIMIT, "%s", err.message);
  cr_expect_str_eq(err.field, "params.rooms");
  rc = build(&cfg, "{\"algorithm\":\"classic\",\"seed\":1,\"params\":{\"rooms_max\":51}}", &request,
             &deadline_ms, &err);
  cr_expect_eq(rc, DG_ELIMIT, "%s", err.message);
  cr_expect_str_eq(err.field, "params.rooms_max");
  rc = build(&cfg,
             "{\"algorithm\":\"landmark\",\"seed\":1,\"params\":{\"width\":100,\"height\":100}}",
             &request, &deadline_ms, &err);
  cr_assert_eq(rc, 0, "%s: %s", err.field, err.message);
  int rooms = dg_algorithm_param_with_role(request.algorithm, DG_PARAM_ROLE_ROOM_COUNT);
  cr_assert_geq(rooms, 0);
  cr_expect_eq(request.params.number[rooms], 50.0, "default not lowered: %g",
               request.params.number[rooms]);
  config_close(&cfg);
}

Test(level_request, codes_not_statuses_and_seeds) {
  config cfg;
  config_defaults(&cfg);
  dg_request request;
  long deadline_ms = 0;
  dg_error err;
  /* Not an object: malformed (400), not a validation error. */
  cr_expect_eq(build(&cfg, "[1]", &request, &deadline_ms, &err), DG_EPARSE);
  cr_expect_eq(problem_of(DG_EPARSE).status, 400);
  cr_expect_eq(
      build(&cfg, "{\"algorithm\":\"classic\",\"colour\":1}", &request, &deadline_ms, &err),
      DG_ENOENT);
  cr_expect_str_eq(err.field, "colour");
  cr_expect_eq(
      build(&cfg, "{\"algorithm\":\"classic\",\"deadline_ms\":0}", &request, &deadline_ms, &err),
      DG_EINVAL);
  /* A seed is drawn when none is given, within 2^53 - 1, and the same
   * stream gives the same seed. */
  cr_assert_eq(build(&cfg, "{\"algorithm\":\"classic\"}", &request, &deadline_ms, &err), 0);
  uint64_t first = request.seed;
  cr_expect(request.seed_given);
  cr_expect_leq(first, DG_SEED_SAFE_MAX);
  cr_expect_eq(deadline_ms, cfg.limits.deadline_ms_default);
  cr_assert_eq(build(&cfg, "{\"algorithm\":\"classic\"}", &request, &deadline_ms, &err), 0);
  cr_expect_eq(request.seed, first);
  /* Without a seed source, a body without a seed is an internal error
   * (only lobbies pass none, and they always name the seed). */
  json_t *body = json_loads("{\"algorithm\":\"classic\"}", 0, NULL);
  cr_expect_eq(level_request_build(&cfg, NULL, NULL, body, &request, &deadline_ms, &err),
               DG_EINTERNAL);
  json_decref(body);
  config_close(&cfg);
}

/* One table of members: each place asks it, so a member added there is
 * allowed (and listed) everywhere it belongs at once. */
Test(level_request, one_table_of_members_for_body_query_and_settings) {
  cr_assert(level_member_allowed("targets", LEVEL_MEMBER_BODY));
  cr_assert_not(level_member_allowed("targets", LEVEL_MEMBER_SETTINGS));
  cr_assert_not(level_member_allowed("players", LEVEL_MEMBER_QUERY));
  cr_assert(level_member_allowed("roomset", LEVEL_MEMBER_QUERY));
  cr_assert(level_member_allowed("floors", LEVEL_MEMBER_LEVELS));
  cr_assert_not(level_member_allowed("floors", LEVEL_MEMBER_BODY | LEVEL_MEMBER_SETTINGS));
  cr_assert_not(level_member_allowed("colour", ~0u));
  char text[160];
  level_members_text(LEVEL_MEMBER_SETTINGS, text, sizeof text);
  cr_assert_str_eq(text, "algorithm, seed, params, profile, deadline_ms, roomset");
  level_members_text(LEVEL_MEMBER_BODY, text, sizeof text);
  cr_assert_str_eq(text,
                   "algorithm, seed, params, players, profile, deadline_ms, roomset, targets");
}

Test(level_request, floors_within_the_limit) {
  config cfg;
  config_defaults(&cfg);
  dg_error err;
  int floors = 0;
  json_t *body = json_pack("{s:i}", "floors", 3);
  cr_assert_eq(level_request_floors(&cfg, body, &floors, &err), 0);
  cr_assert_eq(floors, 3);
  json_object_set_new(body, "floors", json_integer(cfg.limits.floors_max + 1));
  cr_assert_eq(level_request_floors(&cfg, body, &floors, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "floors");
  json_object_del(body, "floors");
  cr_assert_eq(level_request_floors(&cfg, body, &floors, &err), 0);
  cr_assert_eq(floors, 1, "absent: one floor");
  json_decref(body);
  config_close(&cfg);
}

Test(level_request, the_default_algorithm_has_one_owner) {
  cr_assert_not_null(dg_algorithm_default());
  cr_assert_str_eq(dg_algorithm_default()->name, "classic");
}
