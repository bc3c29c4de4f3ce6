/* Lobby state, speculative pre-generation and match start (issue 4).
 *
 * A lobby's effective request is computed exactly as POST /v1/levels
 * computes one, from the body {algorithm, seed, params, profile, players}
 * its settings and members make, so a pre-generated level is byte-for-byte
 * what a direct request would return. Each change recomputes it; when it
 * changed, the stale work is dropped (queued job removed, running job
 * cancelled through dg_cancel, ready level freed) and a new speculative job
 * is queued after limits.lobby_debounce_ms, so a burst of joins makes one
 * job. Every job runs under the lobby's deadline (issue 12): a speculative
 * one from when it enters the pool, a promoted one from the start that
 * waits for it. All lobby state, settings and players as well as ready
 * levels, counts against one budget, limits.lobby_bytes_max: ready levels
 * are evicted least recently used first to make room, and a change that
 * still does not fit is refused (503). */
#include "lobby.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "seedhash.h"
#include "server.h"

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
  return true;
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
static void account(lobbies *table, lobby *l) {
  table->state_bytes -= l->state_bytes;
  l->state_bytes = sizeof *l + json_cost(l->settings) + json_cost(l->players);
  table->state_bytes += l->state_bytes;
}

static size_t lobby_bytes(const lobbies *table) {
  return table->state_bytes + table->ready_bytes;
}

static void drop_ready(lobbies *table, lobby *l) {
  if (l->ready == NULL)
    return;
  table->ready_bytes -= l->ready_length;
  free(l->ready);
  l->ready = NULL;
  l->ready_length = 0;
}

/* Lets go of the lobby's job: removed if queued, cancelled if running; its
 * result will be dropped. */
static void drop_job(server *s, lobby *l) {
  pregen *p = l->job;
  if (p == NULL)
    return;
  l->job = NULL;
  p->owner = NULL;
  jobs_cancel(&s->queues, &p->work);
}

/* Answers and resumes every start waiting for the lobby's job; true when
 * one was resumed (the caller then pumps MHD, which may run handlers that
 * change the lobby table). */
static bool resume_waiters(lobby *l, int status, const dg_error *err) {
  request *r = l->waiters;
  l->waiters = NULL;
  bool resumed = false;
  while (r != NULL) {
    request *next = r->next_waiter;
    r->next_waiter = NULL;
    r->pregen = "wait";
    if (status == 200 && l->ready != NULL) {
      char *copy = malloc(l->ready_length + 1);
      if (copy != NULL)
        memcpy(copy, l->ready, l->ready_length);
      level_respond_stored(r, copy, l->ready_length);
    } else {
      respond_error(r, status, err);
    }
    r->suspended = false;
    MHD_resume_connection(r->connection);
    resumed = true;
    r = next;
  }
  return resumed;
}

static void answer_waiters(server *s, lobby *l, int status, const dg_error *err) {
  if (!resume_waiters(l, status, err))
    return;
  /* The started lobby's level was delivered only now: its grace period and
   * idle TTL run from here, so a start that waited longer than
   * lobby_grace_ms still leaves the level fetchable for that long. */
  uint64_t now = dg_monotonic_ns();
  l->touched_ns = now;
  if (l->started_ns != 0)
    l->started_ns = now;
  http_pump(s); /* a resume does not wake the loop: pump MHD now */
}

/* Debounce deadlines are all "now + lobby_debounce_ms", so appending keeps
 * the list sorted and one timer set to its head serves every lobby. */
static void debounce_cancel(lobbies *table, lobby *l) {
  if (l->debounce_at_ns == 0)
    return;
  if (l->debounce_prev != NULL)
    l->debounce_prev->debounce_next = l->debounce_next;
  else
    table->debounce_head = l->debounce_next;
  if (l->debounce_next != NULL)
    l->debounce_next->debounce_prev = l->debounce_prev;
  else
    table->debounce_tail = l->debounce_prev;
  l->debounce_prev = l->debounce_next = NULL;
  l->debounce_at_ns = 0;
  table->debounce_pending--;
}

static void on_debounce(uv_timer_t *timer);

static void debounce_arm(server *s) {
  lobby *head = s->lobbies.debounce_head;
  if (head == NULL) {
    uv_timer_stop(&s->lobbies.debounce);
    return;
  }
  uint64_t now = dg_monotonic_ns();
  uint64_t wait_ms =
      head->debounce_at_ns > now ? (head->debounce_at_ns - now + 999999u) / 1000000u : 0;
  uv_timer_start(&s->lobbies.debounce, on_debounce, wait_ms, 0);
}

static void lobby_free(server *s, lobby *l) {
  dg_error gone;
  dg_error_set(&gone, DG_ECANCELED, "", "lobby %s was disbanded or expired", l->id);
  drop_job(s, l);
  if (l->waiters != NULL)
    answer_waiters(s, l, 409, &gone);
  drop_ready(&s->lobbies, l);
  debounce_cancel(&s->lobbies, l);
  s->lobbies.state_bytes -= l->state_bytes;
  json_decref(l->settings);
  json_decref(l->players);
  free(l);
  s->lobbies.count--;
}

static void remove_lobby(server *s, lobby *l) {
  lobby **link = slot_of(&s->lobbies, l->id);
  if (*link == l)
    *link = l->next;
  lobby_free(s, l);
}

/* Evicts ready levels, least recently used first, until all lobby state
 * plus `extra` bytes fits limits.lobby_bytes_max and the ready levels fit
 * their own share, limits.lobby_cache_bytes_max. False when even without
 * any ready level it would not fit. */
static bool evict(server *s, size_t extra) {
  lobbies *table = &s->lobbies;
  size_t budget = (size_t)s->cfg->limits.lobby_bytes_max;
  size_t cache_budget = (size_t)s->cfg->limits.lobby_cache_bytes_max;
  while (lobby_bytes(table) + extra > budget || table->ready_bytes > cache_budget) {
    lobby *oldest = NULL;
    for (int b = 0; b < LOBBY_BUCKETS; b++)
      for (lobby *l = table->buckets[b]; l != NULL; l = l->next)
        if (l->ready != NULL && (oldest == NULL || l->touched_ns < oldest->touched_ns))
          oldest = l;
    if (oldest == NULL)
      return false;
    drop_ready(table, oldest);
    table->evicted++;
  }
  return true;
}

/* After a change that grew the lobby's state: true when everything fits
 * the budget (ready levels evicted as needed); otherwise answers 503 +
 * Retry-After naming `field` and the limit, and the caller undoes the
 * change. */
static bool budget_allows(request *r, const char *field) {
  server *s = r->srv;
  if (evict(s, 0))
    return true;
  char detail[256], seconds[24];
  snprintf(detail, sizeof detail,
           "lobby state would take %zu bytes; all lobbies together may hold at most %ld "
           "(limits.lobby_bytes_max), ready levels already evicted",
           lobby_bytes(&s->lobbies), s->cfg->limits.lobby_bytes_max);
  snprintf(seconds, sizeof seconds, "%ld", s->cfg->limits.retry_after_s);
  json_t *errors = json_pack("[{s:s, s:s}]", "field", field, "message", detail);
  respond_problem(r, 503, "lobby-bytes-full", "Lobby memory full", detail, errors, "Retry-After",
                  seconds);
  return false;
}

static void schedule(server *s, lobby *l) {
  lobbies *table = &s->lobbies;
  debounce_cancel(table, l);
  l->debounce_at_ns = dg_monotonic_ns() + (uint64_t)s->cfg->limits.lobby_debounce_ms * 1000000u;
  l->debounce_prev = table->debounce_tail;
  if (table->debounce_tail != NULL)
    table->debounce_tail->debounce_next = l;
  else
    table->debounce_head = l;
  table->debounce_tail = l;
  table->debounce_pending++;
  if (table->debounce_head == l)
    debounce_arm(s);
}

static void on_pregen_done(job *j) {
  pregen *p = j->data;
  server *s = p->srv;
  lobby *l = p->owner;
  if (l == NULL) { /* superseded or disbanded meanwhile */
    free(j->body);
    free(p);
    if (s->draining)
      http_pump(s);
    return;
  }
  l->job = NULL;
  if (j->rc == 0) {
    drop_ready(&s->lobbies, l);
    l->ready = j->body;
    l->ready_length = j->body_length;
    l->ready_request = j->request;
    l->ready_generation_s = (double)(j->finished_ns - j->started_ns) / 1e9;
    s->lobbies.ready_bytes += j->body_length;
    j->body = NULL;
    l->pregen_failed = false;
    answer_waiters(s, l, 200, NULL);
    evict(s, 0);
  } else {
    free(j->body);
    /* Shown by GET until the effective request changes; a start then
     * tries again (a miss) under the lobby's deadline. */
    l->pregen_failed = true;
    l->pregen_error = j->err;
    int status = j->rc == DG_ETIMEDOUT ? 504 : j->rc == DG_ECANCELED ? 503 : 422;
    if (l->waiters != NULL)
      answer_waiters(s, l, status, &j->err);
  }
  free(p);
  if (s->draining)
    http_pump(s); /* the drain may be waiting for this job to end */
}

static void start_job(server *s, lobby *l) {
  if (!l->valid || l->job != NULL ||
      (l->ready != NULL && same_request(&l->ready_request, &l->effective)))
    return;
  pregen *p = calloc(1, sizeof *p);
  if (p == NULL)
    return;
  p->owner = l;
  p->srv = s;
  p->work.request = l->effective;
  p->work.format = JOB_FORMAT_JSON;
  /* No deadline while queued (waiting for a free worker is what speculative
   * jobs do); it starts when the job enters the pool, or when a start
   * promotes it. */
  dg_cancel_init(&p->work.cancel, 0);
  p->work.budget_ns = (uint64_t)l->deadline_ms * 1000000u;
  p->work.done = on_pregen_done;
  p->work.data = p;
  l->job = p;
  if (jobs_submit(&s->queues, &p->work, JOB_SPECULATIVE) != 0) {
    l->job = NULL; /* queue full: start will be a miss */
    free(p);
    return;
  }
  s->lobbies.jobs_started++;
}

static void on_debounce(uv_timer_t *timer) {
  server *s = timer->data;
  lobbies *table = &s->lobbies;
  uint64_t now = dg_monotonic_ns();
  while (table->debounce_head != NULL && table->debounce_head->debounce_at_ns <= now &&
         !s->draining) {
    lobby *l = table->debounce_head;
    debounce_cancel(table, l);
    start_job(s, l);
  }
  debounce_arm(s);
}

static void on_tick(uv_timer_t *timer) {
  server *s = timer->data;
  lobbies *table = &s->lobbies;
  uint64_t now = dg_monotonic_ns();
  uint64_t idle_ns = (uint64_t)s->cfg->limits.lobby_idle_ttl_ms * 1000000u;
  uint64_t grace_ns = (uint64_t)s->cfg->limits.lobby_grace_ms * 1000000u;
  bool resumed = false;
  for (int b = 0; b < LOBBY_BUCKETS; b++) {
    lobby **link = &table->buckets[b];
    while (*link != NULL) {
      lobby *l = *link;
      /* The job stops at its deadline when its generator next polls; a
       * start waiting for it is answered at that deadline even if the
       * generator is slow to notice. So waiters keep a lobby alive for at
       * most its deadline_ms (limits.deadline_ms_max), then it expires by
       * the usual rules. */
      uint64_t job_deadline_ns = l->job != NULL ? atomic_load(&l->job->work.cancel.deadline_ns) : 0;
      if (l->waiters != NULL && job_deadline_ns != 0 && now >= job_deadline_ns) {
        dg_error late;
        dg_error_set(&late, DG_ETIMEDOUT, "deadline_ms",
                     "the lobby's level was not ready by its deadline (deadline_ms %ld)",
                     l->deadline_ms);
        s->counters.deadline_exceeded++;
        resumed |= resume_waiters(l, 504, &late); /* pumped after the scan */
      }
      if (l->waiters == NULL && ((l->started_ns != 0 && now - l->started_ns >= grace_ns) ||
                                 now - l->touched_ns >= idle_ns)) {
        *link = l->next;
        table->expired++;
        lobby_free(s, l);
        continue;
      }
      link = &l->next;
    }
  }
  if (resumed)
    http_pump(s); /* NOTES.md: a resume does not wake the loop */
}

int lobbies_init(server *s) {
  memset(&s->lobbies, 0, sizeof s->lobbies);
  s->lobbies.tick.data = s;
  s->lobbies.debounce.data = s;
  int rc = uv_timer_init(s->loop, &s->lobbies.tick);
  if (rc == 0)
    rc = uv_timer_init(s->loop, &s->lobbies.debounce);
  if (rc == 0)
    rc = uv_timer_start(&s->lobbies.tick, on_tick, TTL_SCAN_MS, TTL_SCAN_MS);
  return rc;
}

void lobbies_drain(server *s) {
  /* Speculative work stops; waiters of a cancelled job get 503 through
   * their job's completion. */
  while (s->lobbies.debounce_head != NULL)
    debounce_cancel(&s->lobbies, s->lobbies.debounce_head);
  uv_timer_stop(&s->lobbies.debounce);
}

void lobbies_close(server *s) {
  for (int b = 0; b < LOBBY_BUCKETS; b++) {
    while (s->lobbies.buckets[b] != NULL) {
      lobby *l = s->lobbies.buckets[b];
      s->lobbies.buckets[b] = l->next;
      lobby_free(s, l);
    }
  }
  uv_close((uv_handle_t *)&s->lobbies.tick, NULL);
  uv_close((uv_handle_t *)&s->lobbies.debounce, NULL);
}

/* The lobby's effective request, through the same parser as POST
 * /v1/levels. */
/* The request `settings`, `players_by_id` and `seed` make, checked as
 * POST /v1/levels would check it: 0 with *fresh and *deadline_ms filled,
 * or the HTTP status with `err` filled. Touches no lobby state, so a change
 * can be judged before it is applied (a rejected PUT leaves the lobby and
 * its in-flight job exactly as they were). */
static int evaluate(server *s, const json_t *settings, const json_t *players_by_id, uint64_t seed,
                    dg_request *fresh, long *deadline_ms, dg_error *err) {
  json_t *body = json_deep_copy(settings);
  json_t *players = json_array();
  const char *id;
  json_t *attributes;
  json_object_foreach((json_t *)players_by_id, id, attributes)
      json_array_append(players, attributes);
  if (json_object_get(body, "algorithm") == NULL) {
    /* Without an algorithm: the profile's, else classic. */
    const json_t *profile_name = json_object_get(body, "profile");
    const char *name =
        json_is_string(profile_name) ? json_string_value(profile_name) : s->cfg->default_profile;
    const json_t *profile =
        s->cfg->profiles != NULL ? json_object_get(s->cfg->profiles, name) : NULL;
    const json_t *algorithm = json_object_get(profile, "algorithm");
    json_object_set_new(
        body, "algorithm",
        json_string(json_is_string(algorithm) ? json_string_value(algorithm) : "classic"));
  }
  json_object_set_new(body, "seed", dg_seed_to_json(seed));
  if (json_array_size(players) > 0)
    json_object_set(body, "players", players);
  dg_error_clear(err);
  int status = level_request_parse(s, body, fresh, deadline_ms, err);
  json_decref(players);
  json_decref(body);
  return status;
}

static void recompute(server *s, lobby *l) {
  long deadline_ms;
  dg_request fresh;
  l->invalid_status =
      evaluate(s, l->settings, l->players, l->seed, &fresh, &deadline_ms, &l->invalid);
  bool was_valid = l->valid;
  l->valid = l->invalid_status == 0;
  if (!l->valid) {
    drop_job(s, l);
    return;
  }
  l->deadline_ms = deadline_ms;
  if (was_valid && same_request(&fresh, &l->effective))
    return;
  l->effective = fresh;
  l->pregen_failed = false;
  if (l->job != NULL && !same_request(&l->job->work.request, &fresh)) {
    drop_job(s, l);
    s->lobbies.superseded++;
  }
  if (l->ready != NULL && !same_request(&l->ready_request, &fresh))
    drop_ready(&s->lobbies, l);
  schedule(s, l);
}

static json_t *lobby_json(const lobby *l) {
  const char *state = "none";
  if (l->ready != NULL && l->valid && same_request(&l->ready_request, &l->effective))
    state = "ready";
  else if (l->job != NULL)
    state = l->job->work.running ? "running" : "queued";
  else if (l->debounce_at_ns != 0)
    state = "queued";
  else if (l->valid && l->pregen_failed)
    state = "failed";
  json_t *effective = json_null();
  if (l->valid)
    effective = json_pack("{s:s, s:o, s:o}", "algorithm", l->effective.algorithm->name, "seed",
                          dg_seed_to_json(l->effective.seed), "params",
                          dg_params_to_json(l->effective.algorithm, &l->effective.params));
  json_t *root = json_pack("{s:s, s:O, s:O, s:o, s:o, s:s, s:b, s:I, s:I}", "id", l->id, "settings",
                           l->settings, "players", l->players, "seed", dg_seed_to_json(l->seed),
                           "effective", effective, "pregen", state, "started", l->started_ns != 0,
                           "deadline_ms", (json_int_t)l->deadline_ms, "bytes",
                           (json_int_t)(l->state_bytes + l->ready_length));
  if (root != NULL && l->valid && l->pregen_failed && l->job == NULL)
    json_object_set_new(root, "pregen_error",
                        json_pack("{s:s, s:s}", "field", l->pregen_error.field, "message",
                                  l->pregen_error.message));
  if (root != NULL && !l->valid)
    json_object_set_new(
        root, "error",
        json_pack("{s:s, s:s}", "field", l->invalid.field, "message", l->invalid.message));
  return root;
}

static bool plain_id(const char *text, size_t length) {
  if (length == 0 || length >= LOBBY_ID_MAX)
    return false;
  for (size_t i = 0; i < length; i++) {
    char c = text[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.'))
      return false;
  }
  return true;
}

static lobby *lobby_create(server *s, const char *id, request *r) {
  if (s->lobbies.count >= s->cfg->limits.lobbies_max) {
    char detail[128], seconds[24];
    snprintf(detail, sizeof detail, "at most %ld lobbies may exist (limits.lobbies_max)",
             s->cfg->limits.lobbies_max);
    snprintf(seconds, sizeof seconds, "%ld", s->cfg->limits.retry_after_s);
    respond_problem(r, 503, "too-many-lobbies", "Too many lobbies", detail, NULL, "Retry-After",
                    seconds);
    return NULL;
  }
  lobby *l = calloc(1, sizeof *l);
  if (l == NULL || (l->settings = json_object()) == NULL || (l->players = json_object()) == NULL) {
    if (l != NULL) {
      json_decref(l->settings);
      free(l);
    }
    respond_problem(r, 500, "internal", "Out of memory", "out of memory", NULL, NULL, NULL);
    return NULL;
  }
  snprintf(l->id, sizeof l->id, "%s", id);
  /* The lobby's seed is fixed now and kept, so the pre-generated level is
   * exactly what start generates (DESIGN.md "Player-dependent
   * parameters"). It is a keyed hash of the id, not a random draw, so every
   * replica sharing lobby_seed_secret makes the same lobby alike, whichever
   * of them a request reaches (issue 12, item 8). */
  l->seed = lobby_seed_derive(s->cfg->lobby_seed_key, id);
  l->deadline_ms = s->cfg->limits.deadline_ms_default;
  l->touched_ns = dg_monotonic_ns();
  lobby **link = slot_of(&s->lobbies, id);
  *link = l;
  s->lobbies.count++;
  account(&s->lobbies, l);
  if (!budget_allows(r, "")) {
    remove_lobby(s, l);
    return NULL;
  }
  return l;
}

static json_t *body_object(request *r) {
  if (r->body_length == 0)
    return json_object();
  json_error_t json_err;
  json_t *body = json_loadb(r->body, r->body_length, JSON_REJECT_DUPLICATES, &json_err);
  dg_error err;
  if (body == NULL || !json_is_object(body)) {
    if (body == NULL)
      dg_error_set(&err, DG_EPARSE, "", "invalid JSON at line %d column %d: %s", json_err.line,
                   json_err.column, json_err.text);
    else
      dg_error_set(&err, DG_EPARSE, "", "the request body must be a JSON object");
    json_decref(body);
    respond_error(r, 400, &err);
    return NULL;
  }
  return body;
}

static void put_settings(request *r, lobby *l, bool created) {
  server *s = r->srv;
  json_t *body = body_object(r);
  if (body == NULL) {
    if (created)
      remove_lobby(s, l);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  const char *key;
  json_t *value;
  json_object_foreach(body, key, value) {
    if (strcmp(key, "algorithm") && strcmp(key, "profile") && strcmp(key, "params") &&
        strcmp(key, "seed") && strcmp(key, "roomset") && strcmp(key, "deadline_ms")) {
      dg_error_set(&err, DG_ENOENT, key,
                   "unknown member '%s'; allowed: algorithm, profile, params, seed, roomset, "
                   "deadline_ms",
                   key);
      break;
    }
  }
  uint64_t seed = l->seed;
  const json_t *given_seed = json_object_get(body, "seed");
  if (err.code == 0 && given_seed != NULL && !json_is_null(given_seed))
    dg_seed_from_json(given_seed, "seed", &seed, &err);
  if (err.code != 0) {
    json_decref(body);
    if (created)
      remove_lobby(s, l);
    respond_error(r, 422, &err);
    return;
  }
  json_object_del(body, "seed");
  /* The new settings are judged before anything of the lobby changes: a
   * rejected PUT must not cancel the job in flight for the old ones. They
   * are put in place only for the byte budget, and taken back if refused. */
  dg_request candidate;
  long candidate_deadline_ms;
  int status = evaluate(s, body, l->players, seed, &candidate, &candidate_deadline_ms, &err);
  json_t *old_settings = l->settings;
  uint64_t old_seed = l->seed;
  l->settings = body;
  l->seed = seed;
  account(&s->lobbies, l);
  bool fits = status != 0 || budget_allows(r, "");
  if (status != 0 || !fits) {
    l->settings = old_settings;
    l->seed = old_seed;
    account(&s->lobbies, l);
    json_decref(body);
    if (created)
      remove_lobby(s, l);
    if (status != 0)
      respond_error(r, status, &err);
    return;
  }
  recompute(s, l);
  json_decref(old_settings);
  l->touched_ns = dg_monotonic_ns();
  respond_json(r, created ? 201 : 200, lobby_json(l));
}

static void put_player(request *r, lobby *l, const char *player, bool created) {
  server *s = r->srv;
  json_t *attributes = body_object(r);
  if (attributes == NULL) {
    if (created)
      remove_lobby(s, l);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  party_limits bounds = party_limits_of(&s->cfg->limits);
  player_attributes_check(attributes, &bounds, NULL, &err);
  if (err.code == 0 && json_object_get(l->players, player) == NULL &&
      (long)json_object_size(l->players) >= s->cfg->limits.lobby_players_max)
    dg_error_set(&err, DG_ELIMIT, "players",
                 "a lobby holds at most %ld players "
                 "(limits.lobby_players_max)",
                 s->cfg->limits.lobby_players_max);
  if (err.code != 0) {
    json_decref(attributes);
    if (created)
      remove_lobby(s, l);
    respond_error(r, 422, &err);
    return;
  }
  /* As for settings: the party with this player is judged on a copy, so a
   * refused join leaves the lobby and its in-flight job untouched. */
  json_t *joined = json_copy(l->players);
  int status = joined != NULL ? 0 : 500;
  if (joined != NULL && json_object_set(joined, player, attributes) != 0)
    status = 500;
  dg_request candidate;
  long candidate_deadline_ms;
  if (status == 0)
    status = evaluate(s, l->settings, joined, l->seed, &candidate, &candidate_deadline_ms, &err);
  else
    dg_error_set(&err, DG_ENOMEM, "", "out of memory");
  json_decref(joined);
  if (status != 0) {
    json_decref(attributes);
    if (created)
      remove_lobby(s, l);
    respond_error(r, status, &err);
    return;
  }
  json_t *previous = json_object_get(l->players, player);
  json_incref(previous);
  json_object_set_new(l->players, player, attributes);
  account(&s->lobbies, l);
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "players.%s", player);
  if (!budget_allows(r, field)) {
    if (previous != NULL)
      json_object_set(l->players, player, previous);
    else
      json_object_del(l->players, player);
    account(&s->lobbies, l);
    json_decref(previous);
    if (created)
      remove_lobby(s, l);
    return;
  }
  recompute(s, l);
  json_decref(previous);
  l->touched_ns = dg_monotonic_ns();
  respond_json(r, created ? 201 : 200, lobby_json(l));
}

static void start(request *r, lobby *l) {
  server *s = r->srv;
  if (!l->valid) {
    respond_error(r, l->invalid_status, &l->invalid);
    return;
  }
  if (s->draining) {
    char seconds[24];
    snprintf(seconds, sizeof seconds, "%ld", s->cfg->limits.retry_after_s);
    respond_problem(r, 503, "draining", "Shutting down", "the daemon is shutting down", NULL,
                    "Retry-After", seconds);
    return;
  }
  int format = level_format(r);
  if (format < 0) {
    level_not_acceptable(r);
    return;
  }
  if (level_svg_query(r) != 0)
    return;
  if (l->started_ns == 0)
    l->started_ns = dg_monotonic_ns();
  l->touched_ns = dg_monotonic_ns();
  r->algorithm = l->effective.algorithm->name;
  if (format == JOB_FORMAT_JSON && l->ready != NULL &&
      same_request(&l->ready_request, &l->effective)) {
    s->lobbies.hits++;
    s->lobbies.saved_s += l->ready_generation_s;
    r->pregen = "hit";
    char *copy = malloc(l->ready_length + 1);
    if (copy != NULL)
      memcpy(copy, l->ready, l->ready_length);
    level_respond_stored(r, copy, l->ready_length);
    return;
  }
  if (format == JOB_FORMAT_JSON && l->job == NULL && l->debounce_at_ns != 0) {
    /* A change is waiting out its debounce: start it now. */
    debounce_cancel(&s->lobbies, l);
    start_job(s, l);
  }
  if (format == JOB_FORMAT_JSON && l->job != NULL &&
      same_request(&l->job->work.request, &l->effective)) {
    s->lobbies.waits++;
    r->pregen = "wait";
    r->seed = l->effective.seed;
    jobs_promote(&s->queues, &l->job->work);
    r->next_waiter = l->waiters;
    l->waiters = r;
    r->suspended = true;
    MHD_suspend_connection(r->connection);
    return;
  }
  s->lobbies.misses++;
  r->pregen = "miss";
  level_submit(r, &l->effective, l->deadline_ms, format);
}

void lobby_route(request *r, const char *rest) {
  server *s = r->srv;
  const char *slash = strchr(rest, '/');
  size_t id_length = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
  char id[LOBBY_ID_MAX], player[LOBBY_ID_MAX] = "";
  enum { WHOLE, PLAYER, START } target = WHOLE;
  bool shape = plain_id(rest, id_length);
  if (shape) {
    memcpy(id, rest, id_length);
    id[id_length] = '\0';
    if (slash != NULL && strncmp(slash, "/players/", 9) == 0 &&
        plain_id(slash + 9, strlen(slash + 9))) {
      target = PLAYER;
      snprintf(player, sizeof player, "%s", slash + 9);
    } else if (slash != NULL && strcmp(slash, "/start") == 0) {
      target = START;
    } else if (slash != NULL) {
      shape = false;
    }
  }
  if (!shape) {
    char detail[REQUEST_PATH_MAX + 96];
    snprintf(detail, sizeof detail,
             "no resource at %s (lobby and player ids are 1-64 of [A-Za-z0-9._-])", r->path);
    respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
    return;
  }
  const char *allowed = target == WHOLE    ? "GET, PUT, DELETE"
                        : target == PLAYER ? "PUT, DELETE"
                                           : "POST";
  const char *m = r->method;
  bool ok = target == WHOLE    ? (!strcmp(m, "GET") || !strcmp(m, "PUT") || !strcmp(m, "DELETE"))
            : target == PLAYER ? (!strcmp(m, "PUT") || !strcmp(m, "DELETE"))
                               : !strcmp(m, "POST");
  if (!ok) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s is not allowed here; use %s", m, allowed);
    respond_problem(r, 405, "method-not-allowed", "Method not allowed", detail, NULL, "Allow",
                    allowed);
    return;
  }
  lobby *l = *slot_of(&s->lobbies, id);
  bool creates = !strcmp(m, "PUT");
  if (l == NULL && !creates) {
    char detail[128];
    snprintf(detail, sizeof detail, "no lobby '%s' (it never existed, expired or was disbanded)",
             id);
    respond_problem(r, 404, "unknown-lobby", "Unknown lobby", detail, NULL, NULL, NULL);
    return;
  }
  /* A started lobby is frozen: its level stays what start returned. */
  if (l != NULL && l->started_ns != 0 && (creates || target == PLAYER)) {
    respond_problem(r, 409, "lobby-started", "Lobby already started",
                    "the match has started; its level stays available through start", NULL, NULL,
                    NULL);
    return;
  }
  bool created = false;
  if (l == NULL) {
    if (s->draining) {
      respond_problem(r, 503, "draining", "Shutting down", "the daemon is shutting down", NULL,
                      "Retry-After", "1");
      return;
    }
    if ((l = lobby_create(s, id, r)) == NULL)
      return;
    created = true;
    recompute(s, l);
  }
  if (target == WHOLE && !strcmp(m, "GET")) {
    respond_json(r, 200, lobby_json(l));
  } else if (target == WHOLE && !strcmp(m, "PUT")) {
    put_settings(r, l, created);
  } else if (target == WHOLE) {
    remove_lobby(s, l);
    respond(r, 204, "application/json", malloc(1), 0, NULL, NULL);
  } else if (target == PLAYER && !strcmp(m, "PUT")) {
    put_player(r, l, player, created);
  } else if (target == PLAYER) {
    if (json_object_del(l->players, player) != 0) {
      respond_problem(r, 404, "unknown-player", "Unknown player", "no such player in the lobby",
                      NULL, NULL, NULL);
      return;
    }
    account(&s->lobbies, l);
    recompute(s, l);
    l->touched_ns = dg_monotonic_ns();
    respond_json(r, 200, lobby_json(l));
  } else {
    start(r, l);
  }
}
