/* The lobby state machine on its own (src/server/state/lobby.c): a real
 * libuv loop, the real job queues and generation, the shipped
 * configuration's profiles, and no HTTP. A lobby pre-generates its level,
 * a start is a hit, a wait or a miss, a refused change leaves the lobby and
 * its work as they were, a disband answers a waiting start with
 * SRV_EGONE, limits are held, and idle lobbies expire. */
#include <criterion/criterion.h>
#include <string.h>

#include "dungeon/json.h"
#include "state/config.h"
#include "state/errors.h"
#include "state/jobs.h"
#include "state/level_id.h"
#include "state/lobby.h"
#include "state/stats.h"

typedef struct fixture {
  uv_loop_t loop;
  config cfg;
  jobs queues;
  stats counters;
  lobbies table;
} fixture;

static fixture f;

static void setup(void) {
  cr_assert_eq(uv_loop_init(&f.loop), 0);
  config_defaults(&f.cfg);
  dg_error err;
  cr_assert_eq(config_load(&f.cfg, TEST_DATA_DIR "/../../config/dungeond.json", &err), 0, "%s",
               err.message);
  f.cfg.limits.lobby_debounce_ms = 1;
  cr_assert_eq(jobs_init(&f.queues, &f.loop, 1, 0, 8, 8, NULL), 0);
  stats_init(&f.counters);
  cr_assert_eq(lobbies_init(&f.table, &f.loop, &f.cfg, &f.queues, &f.counters), 0);
}

static void teardown(void) {
  /* Every job must be over before the table is freed. */
  while (f.queues.running > 0)
    uv_run(&f.loop, UV_RUN_ONCE);
  lobbies_close(&f.table);
  jobs_close(&f.queues);
  uv_run(&f.loop, UV_RUN_DEFAULT);
  config_close(&f.cfg);
  cr_assert_eq(uv_loop_close(&f.loop), 0, "a handle was left open");
}

TestSuite(lobby, .init = setup, .fini = teardown);

/* Runs the loop until `*ready` is set, for at most ten seconds. */
static void run_until_ready(char *const *ready) {
  uint64_t until = dg_monotonic_ns() + 10000000000ull;
  while (*ready == NULL && dg_monotonic_ns() < until)
    uv_run(&f.loop, UV_RUN_ONCE);
  cr_assert_not_null(*ready, "the lobby's level was not pre-generated within 10 s");
}

static lobby *new_lobby(const char *id, uint64_t seed) {
  lobby *game = NULL;
  dg_error err;
  cr_assert_eq(lobby_create(&f.table, id, 0, &game, &err), 0, "%s", err.message);
  json_t *settings = json_pack("{s:s}", "algorithm", "classic");
  cr_assert_eq(lobby_put_settings(&f.table, game, settings, seed, &err), 0, "%s", err.message);
  return game;
}

static void join(lobby *game, const char *player, int level) {
  dg_error err;
  cr_assert_eq(lobby_put_player(&f.table, game, player, json_pack("{s:i}", "level", level), &err),
               0, "%s", err.message);
}

Test(lobby, a_ready_level_is_a_hit_and_the_same_as_a_fresh_one) {
  lobby *game = new_lobby("hit", 42);
  join(game, "ann", 12);
  join(game, "bob", 7);
  run_until_ready(&game->ready);
  lobby_start_result result;
  lobby_start(&f.table, game, true, NULL, &result);
  cr_assert_eq(result.kind, LOBBY_HIT);
  cr_assert_eq(f.table.hits, 1);
  /* The same effective request generated afresh gives the same bytes. */
  dg_level *level = NULL;
  dg_error err;
  cr_assert_eq(dg_generate(NULL, &game->effective, NULL, &level, &err), 0, "%s", err.message);
  size_t length = 0;
  char *fresh = NULL;
  cr_assert_eq(dg_level_dump_json(level, &fresh, &length), 0);
  /* Pre-generated levels carry their identity (level_id, level_hash). */
  cr_assert_eq(level_identify(f.cfg.lobby_seed_key, &game->effective, level->roomset_sha256,
                              level->table_sha256, &fresh, &length),
               0);
  cr_assert_eq(length, result.length);
  cr_assert(memcmp(fresh, result.level, length) == 0, "a hit differs from a fresh level");
  free(fresh);
  dg_level_free(level);
}

Test(lobby, a_refused_join_leaves_the_ready_level_and_the_party) {
  lobby *game = new_lobby("refused", 7);
  join(game, "ann", 12);
  run_until_ready(&game->ready);
  const char *ready = game->ready;
  dg_error err;
  json_t *bad = json_pack("{s:s}", "level", "high");
  cr_assert_neq(lobby_put_player(&f.table, game, "cat", bad, &err), 0);
  json_decref(bad); /* not taken on failure */
  cr_assert_str_neq(err.field, "");
  cr_assert_eq(json_object_size(game->players), 1);
  cr_assert_eq(game->ready, ready, "the ready level was dropped by a refused change");
  lobby_start_result result;
  lobby_start(&f.table, game, true, NULL, &result);
  cr_assert_eq(result.kind, LOBBY_HIT);
}

typedef struct waited {
  lobby_waiter waiter;
  int calls;
  int code;
  size_t length;
} waited;

static void on_waited(lobby_waiter *w, const lobby_outcome *outcome) {
  waited *seen = w->data;
  seen->calls++;
  seen->code = outcome->code;
  seen->length = outcome->code == 0 ? outcome->length : 0;
}

Test(lobby, a_start_while_the_job_runs_waits_for_it) {
  lobby *game = new_lobby("wait", 3);
  join(game, "ann", 30);
  /* Start at once: the change's debounce is cut short and the job awaited. */
  waited seen = {.waiter = {.done = on_waited}};
  seen.waiter.data = &seen;
  lobby_start_result result;
  lobby_start(&f.table, game, true, &seen.waiter, &result);
  cr_assert_eq(result.kind, LOBBY_WAIT);
  uint64_t until = dg_monotonic_ns() + 10000000000ull;
  while (seen.calls == 0 && dg_monotonic_ns() < until)
    uv_run(&f.loop, UV_RUN_ONCE);
  cr_assert_eq(seen.calls, 1, "the waiter is called exactly once");
  cr_assert_eq(seen.code, 0);
  cr_assert_gt(seen.length, 0);
  cr_assert_eq(f.table.waits, 1);
}

Test(lobby, a_start_for_another_representation_is_a_miss) {
  lobby *game = new_lobby("miss", 5);
  run_until_ready(&game->ready);
  lobby_start_result result;
  lobby_start(&f.table, game, false, NULL, &result);
  cr_assert_eq(result.kind, LOBBY_MISS);
  cr_assert_eq(result.request.seed, game->effective.seed);
  cr_assert_eq(f.table.misses, 1);
}

Test(lobby, disbanding_answers_a_waiting_start_with_gone) {
  lobby *game = new_lobby("gone", 9);
  waited seen = {.waiter = {.done = on_waited}};
  seen.waiter.data = &seen;
  lobby_start_result result;
  lobby_start(&f.table, game, true, &seen.waiter, &result);
  cr_assert_eq(result.kind, LOBBY_WAIT);
  lobby_remove(&f.table, game);
  cr_assert_eq(seen.calls, 1);
  cr_assert_eq(seen.code, SRV_EGONE);
  cr_assert_null(lobby_find(&f.table, "gone"));
}

Test(lobby, lobbies_max_is_held) {
  f.cfg.limits.lobbies_max = 2;
  new_lobby("a", 1);
  new_lobby("b", 2);
  lobby *third = NULL;
  dg_error err;
  cr_assert_eq(lobby_create(&f.table, "c", 0, &third, &err), SRV_ELOBBIES);
  cr_assert_null(third);
  cr_assert_eq(f.table.count, 2);
}

Test(lobby, an_idle_lobby_expires) {
  f.cfg.limits.lobby_idle_ttl_ms = 50;
  lobby *game = new_lobby("idle", 11);
  run_until_ready(&game->ready);
  uint64_t until = dg_monotonic_ns() + 5000000000ull;
  while (lobby_find(&f.table, "idle") != NULL && dg_monotonic_ns() < until)
    uv_run(&f.loop, UV_RUN_ONCE);
  cr_assert_null(lobby_find(&f.table, "idle"), "an idle lobby outlived lobby_idle_ttl_ms");
  cr_assert_eq(f.table.expired, 1);
}
