/* Fuzz target: a POST /v1/levels body as the daemon handles it, with the
 * daemon's own code: the JSON read as levels.c reads it, then the pure
 * request builder (level_request.c: the daemon's members and limits, the
 * `roomset` shorthand, profiles from tests/fuzz/dungeond-fuzz.json applied
 * to `players` by profile.c, the room-set check) and the error table
 * (problem.c) that gives its status. Must never crash or
 * leak; a rejected body is a 4xx with a message (a 5xx here is a bug: the
 * body is the client's fault or nobody's); an accepted one respects the
 * configured limits and is generated under its deadline and serialised,
 * as the worker does. The fuzz configuration keeps every level small.
 *
 * Built two ways: with clang's libFuzzer (-Dfuzz=true) for fuzzing, and
 * with replay_main.c as an ordinary test that replays the corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/problem.h"
#include "fuzz_daemon.h"
#include "state/level_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const dg_error *err) {
  fprintf(stderr, "fuzz_levels: %s (%s: %s)\n", what, err->field, err->message);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const fuzz_setup *setup = fuzz_setup_get();
  /* Each input starts from the same seed stream, so a run repeats. */
  dg_rng seeds;
  dg_rng_seed(&seeds, 0x5eed, 0xf022);
  json_t *body = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
  if (body == NULL)
    return 0;
  dg_request level_request;
  dg_error err;
  dg_error_clear(&err);
  long deadline_ms = -1;
  int built = level_request_build(&setup->cfg, setup->roomsets, &seeds, body, &level_request,
                                  &deadline_ms, &err);
  int status = built != 0 ? problem_of(built).status : 0;
  /* `floors` is read by levels.c, not the request builder: within
   * limits.floors_max, the job generates a multi-floor set (jobs.c). */
  const json_t *floors_member = json_object_get(body, "floors");
  int floors = json_is_integer(floors_member) && json_integer_value(floors_member) >= 2 &&
                       json_integer_value(floors_member) <= setup->cfg.limits.floors_max
                   ? (int)json_integer_value(floors_member)
                   : 1;
  json_decref(body);
  if (status != 0) {
    if (status < 400 || status > 499)
      fail("a request body was answered with a server error", &err);
    if (err.message[0] == '\0')
      fail("a rejected body without a message", &err);
    return 0;
  }
  const config_limits *limits = &setup->cfg.limits;
  if (deadline_ms < 1 || deadline_ms > limits->deadline_ms_max)
    fail("the deadline is outside 1..deadline_ms_max", &err);
  if (!level_request.seed_given)
    fail("an accepted request without a seed", &err);
  int width = dg_algorithm_param_with_role(level_request.algorithm, DG_PARAM_ROLE_WIDTH);
  int height = dg_algorithm_param_with_role(level_request.algorithm, DG_PARAM_ROLE_HEIGHT);
  if (width >= 0 && height >= 0 &&
      level_request.params.number[width] * level_request.params.number[height] >
          (double)limits->grid_cells_max)
    fail("an accepted request above grid_cells_max", &err);
  int rooms = dg_algorithm_param_with_role(level_request.algorithm, DG_PARAM_ROLE_ROOM_COUNT);
  if (rooms >= 0 && level_request.params.number[rooms] > (double)limits->rooms_max)
    fail("an accepted request above rooms_max", &err);
  if (dg_request_validate(&level_request, &err) != 0)
    fail("an accepted request does not validate", &err);
  /* What the worker does with it (jobs.c): generate under the deadline,
   * then serialise. */
  dg_cancel cancel;
  dg_cancel_init(&cancel, dg_monotonic_ns() + (uint64_t)deadline_ms * 1000000u);
  if (floors > 1) {
    dg_level *levels[DG_FLOORS_MAX] = {0};
    dg_request requests[DG_FLOORS_MAX];
    int rc = dg_levelset_generate(setup->roomsets, &level_request, floors, &cancel, levels,
                                  requests, &err);
    if (rc == DG_EINTERNAL)
      fail("a multi-floor generation broke an invariant", &err);
    if (rc == 0) {
      char *text = NULL;
      size_t length = 0;
      if (dg_levelset_dump_json(levels, requests, floors, &text, &length) != 0)
        fail("cannot serialise a generated floor set", &err);
      free(text);
    }
    for (int k = 0; k < floors; k++)
      dg_level_free(levels[k]);
    return 0;
  }
  dg_level *level = NULL;
  int rc = dg_generate(setup->roomsets, &level_request, &cancel, &level, &err);
  if (rc == DG_EINTERNAL)
    fail("generation broke an invariant", &err);
  if (rc == 0) {
    char *text = NULL;
    if (dg_level_dump_json(level, &text, NULL) != 0)
      fail("cannot serialise a generated level", &err);
    free(text);
    dg_level_free(level);
  }
  return 0;
}
