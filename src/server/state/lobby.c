/* Lobby state, speculative pre-generation and match start (lobby.h); the
 * HTTP side is lobby_routes.c, and nothing here answers a request: a start
 * that waits registers a callback.
 *
 * A lobby's effective request is computed exactly as POST /v1/levels
 * computes one (level_request.c), from the body {algorithm, seed, params,
 * profile, players} its settings and members make, so a pre-generated
 * level is byte-for-byte what a direct request would return. Each change
 * is judged on its own first, so a refused one leaves the lobby and its
 * in-flight job alone; an accepted one recomputes the request, and when it
 * changed, the stale work is dropped (queued job removed, running job
 * cancelled through dg_cancel, ready level freed) and a new speculative
 * job is queued after limits.lobby_debounce_ms, so a burst of joins makes
 * one job. Every job runs under the lobby's deadline (issue 12): a
 * speculative one from when it enters the pool, a promoted one from the
 * start that waits for it. All lobby state, settings and players as well
 * as ready levels, counts against one budget, limits.lobby_bytes_max:
 * ready levels are evicted least recently used first to make room, and a
 * change that still does not fit is refused (SRV_ELOBBY_BYTES). */
#include "state/lobby.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/errors.h"
#include "state/level_request.h"
#include "state/seedhash.h"

/* How often idle lobbies and finished grace periods are looked for. */
#define TTL_SCAN_MS 250

static uint64_t hash_id(const char *id) {
  uint64_t hash = 1469598103934665603ull; /* FNV-1a */
  for (; *id; id++)
    hash = (hash ^ (unsigned char)*id) * 1099511628211ull;
  return hash;
}

static lobby **slot_of(lobbies *table, const char *id) {
  lobby **link = &table->buckets[hash_id(id) % LOBBY_BUCKETS];
  while (*link != NULL && strcmp((*link)->id, id) != 0)
    link = &(*link)->next;
  return link;
}

static bool same_request(const dg_request *a, const dg_request *b) {
  if (a->algorithm != b->algorithm || a->seed != b->seed)
    return false;
  for (int i = 0; i < a->algorithm->param_count; i++)
    if (a->params.number[i] != b->params.number[i] ||
        strcmp(a->params.text[i], b->params.text[i]) != 0)
      return false;
  return dg_player_ids_equal(&a->players, &b->players);
}

/* An estimate of the heap bytes jansson holds for `value` on 64-bit glibc,
 * measured with mallinfo2: an object 80 bytes plus, per member, its hash
 * pair and bucket (96 bytes with the key) and its value; a number 32 bytes;
 * true, false and null are shared. A player of A attributes with names of
 * k bytes thus counts about 80 + A * (128 + k). */
static size_t json_cost(const json_t *value) {
  size_t bytes = 0;
  const char *key;
  const json_t *member;
  size_t index;
  switch (json_typeof(value)) {
  case JSON_OBJECT:
    bytes = 80;
    json_object_foreach((json_t *)value, key, member) bytes += 96 + strlen(key) + json_cost(member);
    break;
  case JSON_ARRAY:
    bytes = 64;
    json_array_foreach(value, index, member) bytes += 8 + json_cost(member);
    break;
  case JSON_STRING: bytes = 32 + json_string_length(value) + 1; break;
  case JSON_INTEGER:
  case JSON_REAL: bytes = 32; break;
  default: bytes = 0; break;
  }
  return bytes;
}

/* Recounts the lobby's own bytes (struct, settings, players) after a
 * change. */
static void account(lobbies *table, lobby *game) {
  table->state_bytes -= game->state_bytes;
  game->state_bytes = sizeof *game + json_cost(game->settings) + json_cost(game->players);
  table->state_bytes += game->state_bytes;
}

static size_t lobby_bytes(const lobbies *table) {
  return table->state_bytes + table->ready_bytes;
}

static void drop_ready(lobbies *table, lobby *game) {
  if (game->ready == NULL)
    return;
  table->ready_bytes -= game->ready_length;
  free(game->ready);
  game->ready = NULL;
  game->ready_length = 0;
}

/* Lets go of the lobby's job: removed if queued, cancelled if running; its
 * result will be dropped. */
static void drop_job(lobbies *table, lobby *game) {
  pregen *p = game->job;
  if (p == NULL)
    return;
  game->job = NULL;
  p->owner = NULL;
  jobs_cancel(table->queues, &p->work);
}

/* Calls every waiter of `l` with `outcome`. Waiters only answer their
 * client (lobby_waiter's contract), so the table is unchanged after. A
 * delivered answer restarts the lobby's clocks: its grace period and idle
 * TTL run from when the start that waited got its level, so a start that
 * waited longer than lobby_grace_ms still leaves the level fetchable for
 * that long. */
static void answer_waiters(lobby *game, const lobby_outcome *outcome) {
  lobby_waiter *w = game->waiters;
  if (w == NULL)
    return;
  game->waiters = NULL;
  while (w != NULL) {
    lobby_waiter *next = w->next;
    w->next = NULL;
    w->done(w, outcome);
    w = next;
  }
  uint64_t now = dg_monotonic_ns();
  game->touched_ns = now;
  if (game->started_ns != 0)
    game->started_ns = now;
}

static void answer_waiters_error(lobby *game, const dg_error *err) {
  lobby_outcome outcome = {.code = err->code, .err = err};
  answer_waiters(game, &outcome);
}

/* Debounce deadlines are all "now + lobby_debounce_ms", so appending keeps
 * the list sorted and one timer set to its head serves every lobby. */
static void debounce_cancel(lobbies *table, lobby *game) {
  if (game->debounce_at_ns == 0)
    return;
  if (game->debounce_prev != NULL)
    game->debounce_prev->debounce_next = game->debounce_next;
  else
    table->debounce_head = game->debounce_next;
  if (game->debounce_next != NULL)
    game->debounce_next->debounce_prev = game->debounce_prev;
  else
    table->debounce_tail = game->debounce_prev;
  game->debounce_prev = game->debounce_next = NULL;
  game->debounce_at_ns = 0;
  table->debounce_pending--;
}

static void on_debounce(uv_timer_t *timer);

static void debounce_arm(lobbies *table) {
  lobby *head = table->debounce_head;
  if (head == NULL) {
    uv_timer_stop(&table->debounce);
    return;
  }
  uint64_t now = dg_monotonic_ns();
  uint64_t wait_ms =
      head->debounce_at_ns > now ? (head->debounce_at_ns - now + 999999u) / 1000000u : 0;
  uv_timer_start(&table->debounce, on_debounce, wait_ms, 0);
}

static void lobby_free(lobbies *table, lobby *game) {
  drop_job(table, game);
  if (game->waiters != NULL) {
    dg_error gone;
    dg_error_set(&gone, SRV_EGONE, "", "lobby %s was disbanded or expired", game->id);
    answer_waiters_error(game, &gone);
  }
  drop_ready(table, game);
  debounce_cancel(table, game);
  table->state_bytes -= game->state_bytes;
  json_decref(game->settings);
  json_decref(game->players);
  free(game);
  table->count--;
}

void lobby_remove(lobbies *table, lobby *game) {
  lobby **link = slot_of(table, game->id);
  /* Every lobby is in its bucket under its id (lobby_put adds it, only
   * this unlinks it): not finding it would leave a freed lobby linked. */
  assert(*link == game);
  *link = game->next;
  lobby_free(table, game);
}

/* Evicts ready levels, least recently used first, until all lobby state
 * plus `extra` bytes fits limits.lobby_bytes_max and the ready levels fit
 * their own share, limits.lobby_cache_bytes_max. False when even without
 * any ready level it would not fit. */
static bool evict(lobbies *table, size_t extra) {
  const config_limits *limits = &table->cfg->limits;
  size_t budget = (size_t)limits->lobby_bytes_max;
  size_t cache_budget = (size_t)limits->lobby_cache_bytes_max;
  while (lobby_bytes(table) + extra > budget || table->ready_bytes > cache_budget) {
    lobby *oldest = NULL;
    for (int b = 0; b < LOBBY_BUCKETS; b++)
      for (lobby *game = table->buckets[b]; game != NULL; game = game->next)
        if (game->ready != NULL && (oldest == NULL || game->touched_ns < oldest->touched_ns))
          oldest = game;
    if (oldest == NULL)
      return false;
    drop_ready(table, oldest);
    table->evicted++;
  }
  return true;
}

/* After a change that grew the lobby's state: 0 when everything fits the
 * budget (ready levels evicted as needed); otherwise SRV_ELOBBY_BYTES
 * naming `field` and the limit, and the caller undoes the change. */
static int budget_check(lobbies *table, const char *field, dg_error *err) {
  if (evict(table, 0))
    return 0;
  return dg_error_set(err, SRV_ELOBBY_BYTES, field,
                      "lobby state would take %zu bytes; all lobbies together may hold at most "
                      "%ld (limits.lobby_bytes_max), ready levels already evicted",
                      lobby_bytes(table), table->cfg->limits.lobby_bytes_max);
}

static void schedule(lobbies *table, lobby *game) {
  debounce_cancel(table, game);
  game->debounce_at_ns =
      dg_monotonic_ns() + (uint64_t)table->cfg->limits.lobby_debounce_ms * 1000000u;
  game->debounce_prev = table->debounce_tail;
  if (table->debounce_tail != NULL)
    table->debounce_tail->debounce_next = game;
  else
    table->debounce_head = game;
  table->debounce_tail = game;
  table->debounce_pending++;
  if (table->debounce_head == game)
    debounce_arm(table);
}

static void on_pregen_done(job *j) {
  pregen *p = j->data;
  lobbies *table = p->table;
  lobby *game = p->owner;
  if (game == NULL) { /* superseded or disbanded meanwhile */
    free(j->body);
    free(p);
    return;
  }
  game->job = NULL;
  if (j->rc == 0) {
    drop_ready(table, game);
    game->ready = j->body;
    game->ready_length = j->body_length;
    game->ready_request = j->request;
    game->ready_generation_s = (double)(j->finished_ns - j->started_ns) / 1e9;
    table->ready_bytes += j->body_length;
    j->body = NULL;
    game->pregen_failed = false;
    lobby_outcome ready = {.code = 0, .level = game->ready, .length = game->ready_length};
    answer_waiters(game, &ready);
    evict(table, 0);
  } else {
    free(j->body);
    /* Shown by GET until the effective request changes; a start then
     * tries again (a miss) under the lobby's deadline. */
    game->pregen_failed = true;
    game->pregen_error = j->err;
    answer_waiters_error(game, &j->err);
  }
  free(p);
}

static void start_job(lobbies *table, lobby *game) {
  if (!game->valid || game->job != NULL || table->draining ||
      (game->ready != NULL && same_request(&game->ready_request, &game->effective)))
    return;
  pregen *p = calloc(1, sizeof *p);
  if (p == NULL)
    return;
  p->owner = game;
  p->table = table;
  p->work.request = game->effective;
  p->work.format = JOB_FORMAT_JSON;
  p->work.identify = true;
  memcpy(p->work.level_key, table->cfg->lobby_seed_key, sizeof p->work.level_key);
  /* No deadline while queued (waiting for a free worker is what speculative
   * jobs do); it starts when the job enters the pool, or when a start
   * promotes it. */
  dg_cancel_init(&p->work.cancel, 0);
  p->work.budget_ns = (uint64_t)game->deadline_ms * 1000000u;
  p->work.done = on_pregen_done;
  p->work.data = p;
  game->job = p;
  if (jobs_submit(table->queues, &p->work, JOB_SPECULATIVE) != 0) {
    game->job = NULL; /* queue full: start will be a miss */
    free(p);
    return;
  }
  table->jobs_started++;
}

static void on_debounce(uv_timer_t *timer) {
  lobbies *table = timer->data;
  uint64_t now = dg_monotonic_ns();
  while (table->debounce_head != NULL && table->debounce_head->debounce_at_ns <= now &&
         !table->draining) {
    lobby *game = table->debounce_head;
    debounce_cancel(table, game);
    start_job(table, game);
  }
  debounce_arm(table);
}

/* How long ago `since` was at `now`, 0 when it is later: a clock stamped
 * after `now` was read (answer_waiters runs inside the tick that read it)
 * must not wrap to an age of 584 years and expire the lobby at once. */
static uint64_t age_ns(uint64_t now, uint64_t since) {
  return now > since ? now - since : 0;
}

static void on_tick(uv_timer_t *timer) {
  lobbies *table = timer->data;
  const config_limits *limits = &table->cfg->limits;
  uint64_t now = dg_monotonic_ns();
  uint64_t idle_ns = (uint64_t)limits->lobby_idle_ttl_ms * 1000000u;
  uint64_t grace_ns = (uint64_t)limits->lobby_grace_ms * 1000000u;
  for (int b = 0; b < LOBBY_BUCKETS; b++) {
    lobby **link = &table->buckets[b];
    while (*link != NULL) {
      lobby *game = *link;
      /* The job stops at its deadline when its generator next polls; a
       * start waiting for it is answered at that deadline even if the
       * generator is slow to notice. So waiters keep a lobby alive for at
       * most its deadline_ms (limits.deadline_ms_max), then it expires by
       * the usual rules. */
      uint64_t job_deadline_ns =
          game->job != NULL ? atomic_load(&game->job->work.cancel.deadline_ns) : 0;
      if (game->waiters != NULL && job_deadline_ns != 0 && now >= job_deadline_ns) {
        dg_error late;
        dg_error_set(&late, DG_ETIMEDOUT, "deadline_ms",
                     "the lobby's level was not ready by its deadline (deadline_ms %ld)",
                     game->deadline_ms);
        table->counters->deadline_exceeded++;
        answer_waiters_error(game, &late);
      }
      if (game->waiters == NULL &&
          ((game->started_ns != 0 && age_ns(now, game->started_ns) >= grace_ns) ||
           age_ns(now, game->touched_ns) >= idle_ns)) {
        *link = game->next;
        table->expired++;
        lobby_free(table, game);
        continue;
      }
      link = &game->next;
    }
  }
}

int lobbies_init(lobbies *table, uv_loop_t *loop, const config *cfg, jobs *queues,
                 stats *counters) {
  memset(table, 0, sizeof *table);
  table->cfg = cfg;
  table->queues = queues;
  table->counters = counters;
  table->tick.data = table;
  table->debounce.data = table;
  int rc = uv_timer_init(loop, &table->tick);
  if (rc == 0)
    rc = uv_timer_init(loop, &table->debounce);
  if (rc == 0)
    rc = uv_timer_start(&table->tick, on_tick, TTL_SCAN_MS, TTL_SCAN_MS);
  return rc;
}

void lobbies_drain(lobbies *table) {
  table->draining = true;
  while (table->debounce_head != NULL)
    debounce_cancel(table, table->debounce_head);
  uv_timer_stop(&table->debounce);
}

void lobbies_close(lobbies *table) {
  for (int b = 0; b < LOBBY_BUCKETS; b++) {
    while (table->buckets[b] != NULL) {
      lobby *game = table->buckets[b];
      table->buckets[b] = game->next;
      lobby_free(table, game);
    }
  }
  uv_close((uv_handle_t *)&table->tick, NULL);
  uv_close((uv_handle_t *)&table->debounce, NULL);
}

lobby *lobby_find(lobbies *table, const char *id) {
  return *slot_of(table, id);
}

/* The request `settings`, `players_by_id` and `seed` make, checked as
 * POST /v1/levels would check it: 0 with *fresh and *deadline_ms filled,
 * or the error code with `err` filled. Touches no lobby state, so a change
 * can be judged before it is applied. */
static int evaluate(const lobbies *table, const json_t *settings, const json_t *players_by_id,
                    uint64_t seed, dg_request *fresh, long *deadline_ms, dg_error *err) {
  const config *cfg = table->cfg;
  json_t *body = json_deep_copy(settings);
  json_t *players = json_array();
  dg_error_clear(err);
  if (body == NULL || players == NULL) {
    json_decref(body);
    json_decref(players);
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  const char *id;
  json_t *attributes;
  /* Each player with its id, so the level's spawns are keyed by it. */
  json_object_foreach((json_t *)players_by_id, id, attributes) {
    json_t *player = json_copy(attributes);
    if (player == NULL || json_object_set_new(player, "id", json_string(id)) != 0 ||
        json_array_append_new(players, player) != 0) {
      json_decref(player);
      json_decref(body);
      json_decref(players);
      return dg_error_set(err, DG_ENOMEM, "", "out of memory");
    }
  }
  if (json_object_get(body, "algorithm") == NULL) {
    /* Without an algorithm: the profile's, else classic. */
    const json_t *profile_name = json_object_get(body, "profile");
    const char *name =
        json_is_string(profile_name) ? json_string_value(profile_name) : cfg->default_profile;
    const party_profile *named = config_profile(cfg, name);
    json_object_set_new(
        body, "algorithm",
        json_string(named != NULL ? named->algorithm->name : dg_algorithm_default()->name));
  }
  json_object_set_new(body, "seed", dg_seed_to_json(seed));
  if (json_array_size(players) > 0)
    json_object_set(body, "players", players);
  int rc = level_request_build(cfg, table->queues->context, NULL, body, fresh, deadline_ms, err);
  json_decref(players);
  json_decref(body);
  return rc;
}

/* Makes `fresh` (already judged valid by evaluate, with its deadline) the
 * lobby's effective request: when it differs, the stale job and ready
 * level are dropped and the new level is scheduled. */
static void adopt(lobbies *table, lobby *game, const dg_request *fresh, long deadline_ms) {
  bool was_valid = game->valid;
  game->valid = true;
  dg_error_clear(&game->invalid);
  game->deadline_ms = deadline_ms;
  if (was_valid && same_request(fresh, &game->effective))
    return;
  game->effective = *fresh;
  game->pregen_failed = false;
  if (game->job != NULL && !same_request(&game->job->work.request, fresh)) {
    drop_job(table, game);
    table->superseded++;
  }
  if (game->ready != NULL && !same_request(&game->ready_request, fresh))
    drop_ready(table, game);
  schedule(table, game);
}

/* Judges the lobby's current settings and party and adopts the result; an
 * invalid lobby keeps why in l->invalid and runs no job. For changes that
 * were not judged before they were applied (a player leaving, creation). */
static void recompute(lobbies *table, lobby *game) {
  long deadline_ms;
  dg_request fresh;
  if (evaluate(table, game->settings, game->players, game->seed, &fresh, &deadline_ms,
               &game->invalid) != 0) {
    game->valid = false;
    drop_job(table, game);
    return;
  }
  adopt(table, game, &fresh, deadline_ms);
}

json_t *lobby_json(const lobby *game) {
  const char *state = "none";
  if (game->ready != NULL && game->valid && same_request(&game->ready_request, &game->effective))
    state = "ready";
  else if (game->job != NULL)
    state = game->job->work.running ? "running" : "queued";
  else if (game->debounce_at_ns != 0)
    state = "queued";
  else if (game->valid && game->pregen_failed)
    state = "failed";
  json_t *effective = json_null();
  if (game->valid) {
    /* With the players' ids: POST /v1/levels with this body gives the
     * start's bytes, spawns keyed by the same ids. */
    json_t *ids = json_array();
    for (int i = 0; ids != NULL && i < game->effective.players.count; i++)
      json_array_append_new(ids, json_pack("{s:s}", "id", game->effective.players.id[i]));
    effective = json_pack("{s:s, s:o, s:o, s:o}", "algorithm", game->effective.algorithm->name,
                          "seed", dg_seed_to_json(game->effective.seed), "params",
                          dg_params_to_json(game->effective.algorithm, &game->effective.params),
                          "players", ids);
  }
  json_t *root = json_pack(
      "{s:s, s:O, s:O, s:o, s:o, s:s, s:b, s:I, s:I}", "id", game->id, "settings", game->settings,
      "players", game->players, "seed", dg_seed_to_json(game->seed), "effective", effective,
      "pregen", state, "started", game->started_ns != 0, "deadline_ms",
      (json_int_t)game->deadline_ms, "bytes", (json_int_t)(game->state_bytes + game->ready_length));
  if (root != NULL && game->valid && game->pregen_failed && game->job == NULL)
    json_object_set_new(root, "pregen_error",
                        json_pack("{s:s, s:s}", "field", game->pregen_error.field, "message",
                                  game->pregen_error.message));
  if (root != NULL && !game->valid)
    json_object_set_new(
        root, "error",
        json_pack("{s:s, s:s}", "field", game->invalid.field, "message", game->invalid.message));
  return root;
}

/* Lobbies alive that `creator` made. A walk of the table: creation is
 * rare next to the requests a lobby then serves. */
static long lobbies_of(const lobbies *table, uint64_t creator) {
  long count = 0;
  for (int b = 0; b < LOBBY_BUCKETS; b++)
    for (const lobby *game = table->buckets[b]; game != NULL; game = game->next)
      count += game->creator == creator;
  return count;
}

int lobby_create(lobbies *table, const char *id, uint64_t creator, lobby **out, dg_error *err) {
  const config *cfg = table->cfg;
  *out = NULL;
  if (table->count >= cfg->limits.lobbies_max)
    return dg_error_set(err, SRV_ELOBBIES, "", "at most %ld lobbies may exist (limits.lobbies_max)",
                        cfg->limits.lobbies_max);
  /* Issue 24 item 3: one client cannot fill lobbies_max for everyone. */
  long per_client = cfg->limits.lobbies_per_client_max;
  if (per_client > 0 && lobbies_of(table, creator) >= per_client) {
    table->counters->rejected_client_lobbies++;
    return dg_error_set(err, SRV_ECLIENT_LOBBIES, "",
                        "this client has %ld lobbies alive (limits.lobbies_per_client_max); "
                        "disband some or retry when they expire",
                        per_client);
  }
  lobby *game = calloc(1, sizeof *game);
  if (game == NULL || (game->settings = json_object()) == NULL ||
      (game->players = json_object()) == NULL) {
    if (game != NULL) {
      json_decref(game->settings);
      free(game);
    }
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  snprintf(game->id, sizeof game->id, "%s", id);
  game->creator = creator;
  /* The lobby's seed is fixed now and kept, so the pre-generated level is
   * exactly what start generates. It is a keyed hash of the id, not a
   * random draw, so every replica sharing lobby_seed_secret makes the same
   * lobby alike, whichever of them a request reaches (issue 12, item 8). */
  game->seed = lobby_seed_derive(cfg->lobby_seed_key, id);
  game->deadline_ms = cfg->limits.deadline_ms_default;
  game->touched_ns = dg_monotonic_ns();
  lobby **link = slot_of(table, id);
  *link = game;
  table->count++;
  account(table, game);
  int rc = budget_check(table, "", err);
  if (rc != 0) {
    lobby_remove(table, game);
    return rc;
  }
  recompute(table, game);
  *out = game;
  return 0;
}

int lobby_put_settings(lobbies *table, lobby *game, json_t *settings, uint64_t seed,
                       dg_error *err) {
  /* The new settings are judged before anything of the lobby changes: a
   * refused PUT must not cancel the job in flight for the old ones. They
   * are put in place only for the byte budget, and taken back if refused. */
  dg_request candidate;
  long candidate_deadline_ms;
  int rc = evaluate(table, settings, game->players, seed, &candidate, &candidate_deadline_ms, err);
  if (rc != 0)
    return rc;
  json_t *old_settings = game->settings;
  uint64_t old_seed = game->seed;
  game->settings = settings;
  game->seed = seed;
  account(table, game);
  if ((rc = budget_check(table, "settings", err)) != 0) {
    game->settings = old_settings;
    game->seed = old_seed;
    account(table, game);
    return rc;
  }
  /* Judged above: adopted as it is, not evaluated a second time. */
  adopt(table, game, &candidate, candidate_deadline_ms);
  json_decref(old_settings);
  game->touched_ns = dg_monotonic_ns();
  return 0;
}

int lobby_put_whole(lobbies *table, lobby *game, json_t *settings, json_t *players_by_id,
                    uint64_t seed, dg_error *err) {
  const config_limits *limits = &table->cfg->limits;
  if ((long)json_object_size(players_by_id) > limits->lobby_players_max)
    return dg_error_set(err, DG_ELIMIT, "players",
                        "a lobby holds at most %ld players (limits.lobby_players_max)",
                        limits->lobby_players_max);
  /* Judged as a whole before anything changes, as a settings change is. */
  dg_request candidate;
  long candidate_deadline_ms;
  int rc = evaluate(table, settings, players_by_id, seed, &candidate, &candidate_deadline_ms, err);
  if (rc != 0)
    return rc;
  json_t *old_settings = game->settings, *old_players = game->players;
  uint64_t old_seed = game->seed;
  game->settings = settings;
  game->players = players_by_id;
  game->seed = seed;
  account(table, game);
  if ((rc = budget_check(table, "players", err)) != 0) {
    game->settings = old_settings;
    game->players = old_players;
    game->seed = old_seed;
    account(table, game);
    return rc;
  }
  /* Judged above: adopted as it is, not evaluated a second time. */
  adopt(table, game, &candidate, candidate_deadline_ms);
  json_decref(old_settings);
  json_decref(old_players);
  game->touched_ns = dg_monotonic_ns();
  return 0;
}

/* The first member of object `want` that `have` lacks or holds otherwise,
 * or of `have` that `want` lacks; NULL when they are equal. */
static const char *first_difference(const json_t *have, const json_t *want) {
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)want, key, value) {
    if (!json_equal(json_object_get(have, key), value))
      return key;
  }
  json_object_foreach((json_t *)have, key, value) {
    if (json_object_get(want, key) == NULL)
      return key;
  }
  return NULL;
}

bool lobby_same_party(const lobby *game, const json_t *settings, const json_t *players_by_id,
                      uint64_t seed, dg_error *err) {
  const char *key = first_difference(game->players, players_by_id);
  if (key != NULL) {
    bool known = json_object_get(game->players, key) != NULL;
    bool sent = json_object_get(players_by_id, key) != NULL;
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "players.%s", key);
    dg_error_set(err, SRV_EMISMATCH, field,
                 "%s %s; this replica's lobby has %zu players: re-send the lobby with PUT "
                 "/v1/lobbies/%s, or start with the party it has",
                 field,
                 !sent    ? "is in the lobby but not in the start's party"
                 : !known ? "is in the start's party but not in the lobby"
                          : "has other attributes in the lobby",
                 json_object_size(game->players), game->id);
    return false;
  }
  if ((key = first_difference(game->settings, settings)) != NULL) {
    dg_error_set(err, SRV_EMISMATCH, key,
                 "%s differs from the lobby's setting on this replica (re-send the lobby with PUT)",
                 key);
    return false;
  }
  if (seed != game->seed) {
    dg_error_set(err, SRV_EMISMATCH, "seed", "seed differs from the lobby's seed on this replica");
    return false;
  }
  return true;
}

/* Fixed, public key: the tag only has to be the same for the same state
 * on every replica, not unguessable (the state is the client's own). */
static const uint8_t etag_key[16] = "dungeond-lobbyET";

void lobby_etag(const lobby *game, char out[LOBBY_ETAG_MAX]) {
  json_t *state = json_pack("{s:O, s:O, s:o}", "settings", game->settings, "players", game->players,
                            "seed", dg_seed_to_json(game->seed));
  char *text = state != NULL ? json_dumps(state, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
  json_decref(state);
  /* Out of memory: a tag that matches nothing a client holds. */
  uint64_t hash = text != NULL ? siphash24(etag_key, text, strlen(text)) : 0;
  free(text);
  snprintf(out, LOBBY_ETAG_MAX, "\"%016llx\"", (unsigned long long)hash);
}

int lobby_put_player(lobbies *table, lobby *game, const char *player, json_t *attributes,
                     dg_error *err) {
  const config_limits *limits = &table->cfg->limits;
  if (json_object_get(game->players, player) == NULL &&
      (long)json_object_size(game->players) >= limits->lobby_players_max)
    return dg_error_set(err, DG_ELIMIT, "players",
                        "a lobby holds at most %ld players (limits.lobby_players_max)",
                        limits->lobby_players_max);
  /* As for settings: the party with this player is judged on a copy, so a
   * refused join leaves the lobby and its in-flight job untouched. */
  json_t *joined = json_copy(game->players);
  if (joined == NULL || json_object_set(joined, player, attributes) != 0) {
    json_decref(joined);
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  dg_request candidate;
  long candidate_deadline_ms;
  int rc =
      evaluate(table, game->settings, joined, game->seed, &candidate, &candidate_deadline_ms, err);
  json_decref(joined);
  if (rc != 0)
    return rc;
  json_t *previous = json_object_get(game->players, player);
  json_incref(previous);
  json_object_set(game->players, player, attributes);
  account(table, game);
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "players.%s", player);
  if ((rc = budget_check(table, field, err)) != 0) {
    if (previous != NULL)
      json_object_set(game->players, player, previous);
    else
      json_object_del(game->players, player);
    account(table, game);
    json_decref(previous);
    return rc;
  }
  json_decref(attributes); /* taken: l->players holds its own reference now */
  /* Judged above: adopted as it is, not evaluated a second time. */
  adopt(table, game, &candidate, candidate_deadline_ms);
  json_decref(previous);
  game->touched_ns = dg_monotonic_ns();
  return 0;
}

int lobby_remove_player(lobbies *table, lobby *game, const char *player) {
  if (json_object_del(game->players, player) != 0)
    return DG_ENOENT;
  account(table, game);
  recompute(table, game);
  game->touched_ns = dg_monotonic_ns();
  return 0;
}

void lobby_start_rebuilt(lobbies *table, lobby *game, lobby_start_result *out) {
  memset(out, 0, sizeof *out);
  uint64_t now = dg_monotonic_ns();
  game->started_ns = now;
  game->touched_ns = now;
  /* Generated by the start itself: no speculative job for it. */
  debounce_cancel(table, game);
  table->misses++;
  out->kind = LOBBY_MISS;
  out->request = game->effective;
  out->deadline_ms = game->deadline_ms;
}

void lobby_start(lobbies *table, lobby *game, bool json, lobby_waiter *waiter,
                 lobby_start_result *out) {
  memset(out, 0, sizeof *out);
  uint64_t now = dg_monotonic_ns();
  if (game->started_ns == 0)
    game->started_ns = now;
  game->touched_ns = now;
  if (json && game->ready != NULL && same_request(&game->ready_request, &game->effective)) {
    table->hits++;
    table->saved_s += game->ready_generation_s;
    out->kind = LOBBY_HIT;
    out->level = game->ready;
    out->length = game->ready_length;
    return;
  }
  if (json && game->job == NULL && game->debounce_at_ns != 0) {
    /* A change is waiting out its debounce: start it now. */
    debounce_cancel(table, game);
    start_job(table, game);
  }
  if (json && game->job != NULL && same_request(&game->job->work.request, &game->effective)) {
    table->waits++;
    jobs_promote(table->queues, &game->job->work);
    waiter->next = game->waiters;
    game->waiters = waiter;
    out->kind = LOBBY_WAIT;
    return;
  }
  table->misses++;
  out->kind = LOBBY_MISS;
  out->request = game->effective;
  out->deadline_ms = game->deadline_ms;
}
