/* Fuzz target: the bytes of one room-set file, read the way the daemon and
 * the CLI read them (jansson, duplicate keys rejected). Validation must
 * never crash or leak; `dungeon check`'s every-problem report and the
 * loader's first-problem error must agree on whether the set is valid; a
 * set that loads gets its moves and pattern database built, and a small
 * authored level is generated from it under a short deadline.
 *
 * Built two ways: with clang's libFuzzer (-Dfuzz=true) for fuzzing, and
 * with replay_main.c as an ordinary test that replays the corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

#define PROBLEMS_MAX 8
/* Small enough that a generation stays fast, big enough to reach the
 * cycle search; the deadline bounds sets that make placement hard. */
#define LEVEL_ROOMS 12
#define LEVEL_DEADLINE_NS (200 * 1000 * 1000ull)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void generate_small(const dg_context *context, const char *name) {
  const dg_algorithm *authored = dg_algorithm_find("authored");
  if (authored == NULL)
    abort();
  json_t *params = json_pack("{s:s, s:i}", "roomset", name, "rooms", LEVEL_ROOMS);
  dg_request request;
  dg_error err = {0};
  dg_request_init(&request, authored);
  request.seed = 1;
  request.seed_given = true;
  if (params == NULL || dg_request_set_params_json(&request, params, &err) != 0)
    abort();
  json_decref(params);
  dg_cancel cancel;
  dg_cancel_init(&cancel, dg_monotonic_ns() + LEVEL_DEADLINE_NS);
  dg_level *level = NULL;
  if (dg_generate(context, &request, &cancel, &level, &err) == 0) {
    char *text = NULL;
    if (dg_level_dump_json(level, &text, NULL) != 0)
      abort();
    free(text);
    dg_level_free(level);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *json = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
  if (json == NULL)
    return 0;
  dg_error problems[PROBLEMS_MAX];
  int count = 0;
  int checked = dg_roomset_check(json, problems, PROBLEMS_MAX, &count);
  if ((checked == 0) != (count == 0))
    abort();
  dg_context *context = NULL;
  if (dg_context_new(&context) != 0)
    abort();
  dg_error err = {0};
  int added = dg_context_add_roomset(context, json, &err);
  /* The loader may fail where the check passed only for lack of memory. */
  if (checked != 0 && added == 0)
    abort();
  if (checked == 0 && added != 0 && added != DG_ENOMEM)
    abort();
  if (added == 0) {
    dg_roomset_info info;
    if (dg_context_roomset_info(context, 0, &info) != 0)
      abort();
    json_t *listed = dg_context_roomsets_to_json(context);
    json_decref(listed);
    char name[64];
    snprintf(name, sizeof name, "%s", info.name);
    generate_small(context, name);
  }
  dg_context_free(context);
  json_decref(json);
  return 0;
}
