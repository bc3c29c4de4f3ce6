/* Lobbies and their pre-generated levels (docs/lobbies.md, issue 4):
 * game servers report joins and leaves; the daemon keeps each lobby's
 * effective request current through the profiles and generates its level
 * speculatively, so that at match start the level is ready (hit), in
 * flight (wait: the job is promoted to interactive) or made now (miss).
 * Everything here lives on the loop thread. */
#ifndef DUNGEOND_LOBBY_H
#define DUNGEOND_LOBBY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "dungeon/dungeon.h"
#include "state/config.h"
#include "state/jobs.h"
#include "state/stats.h"

#define LOBBY_ID_MAX 65
#define LOBBY_BUCKETS 1024

typedef struct lobby lobby;

/* What a start that waited gets: the level (code 0) or why not. */
typedef struct lobby_outcome {
  int code;            /* 0, or DG_ETIMEDOUT, DG_ECANCELED, SRV_EGONE, any job error */
  const dg_error *err; /* why, when code != 0 */
  const char *level;   /* the level JSON when code is 0 (borrowed for the call) */
  size_t length;
} lobby_outcome;

/* A start waiting for a lobby's job. The caller owns it and keeps it alive
 * until `done` is called, exactly once, on the loop thread; `done` must
 * not change the lobby table (it answers its client and returns). */
typedef struct lobby_waiter lobby_waiter;
struct lobby_waiter {
  void (*done)(lobby_waiter *w, const lobby_outcome *outcome);
  void *data;         /* the caller's */
  lobby_waiter *next; /* the lobby's list */
};

/* A speculative job; outlives its lobby when superseded while running. */
typedef struct pregen {
  job work;              /* the job (work.data points here) */
  lobby *owner;          /* NULL once superseded or disbanded: the result is dropped */
  struct lobbies *table; /* the table */
} pregen;

struct lobby {
  lobby *next;                          /* hash chain */
  char id[LOBBY_ID_MAX];                /* path segment */
  json_t *settings;                     /* {algorithm?, profile?, params?} (owned) */
  json_t *players;                      /* player id -> attributes object (owned) */
  uint64_t seed;                        /* derived from the id at creation, or given; kept */
  uint64_t creator;                     /* the client that made it (request.client) */
  long deadline_ms;                     /* every job of the lobby runs under it (settings) */
  size_t state_bytes;                   /* estimated bytes of this struct, settings, players */
  bool valid;                           /* `effective` holds a valid request */
  dg_request effective;                 /* what start would generate */
  dg_error invalid;                     /* why not valid (its code gives the status) */
  pregen *job;                          /* current speculative job, or NULL */
  bool pregen_failed;                   /* the last job for `effective` failed (e.g. deadline) */
  dg_error pregen_error;                /* why, while pregen_failed */
  uint64_t debounce_at_ns;              /* queue a job at this time; 0: none pending */
  lobby *debounce_prev, *debounce_next; /* the debounce list, while pending */
  char *ready;                          /* pre-generated level JSON, or NULL */
  size_t ready_length;
  dg_request ready_request;  /* the request `ready` answers */
  double ready_generation_s; /* what a hit saves */
  uint64_t touched_ns;       /* last change or start: TTL and LRU */
  uint64_t started_ns;       /* first start, 0 before */
  lobby_waiter *waiters;     /* starts waiting for `job` */
};

typedef struct lobbies {
  const config *cfg;                    /* limits, profiles (read-only) */
  jobs *queues;                         /* where speculative jobs run */
  stats *counters;                      /* deadline_exceeded, rejected_client_lobbies */
  lobby *buckets[LOBBY_BUCKETS];        /* hash table of lobbies by id */
  long count;                           /* lobbies alive */
  long debounce_pending;                /* lobbies with debounce_at_ns set */
  lobby *debounce_head, *debounce_tail; /* those lobbies, soonest first */
  uv_timer_t debounce;                  /* fires when the head is due */
  size_t ready_bytes;                   /* sum of ready_length */
  size_t state_bytes;                   /* sum of state_bytes */
  uv_timer_t tick;                      /* TTL and grace, four times a second */
  bool draining;                        /* no new speculative job */
  uint64_t hits, waits, misses;         /* start outcomes */
  uint64_t superseded, expired, evicted, jobs_started; /* speculative bookkeeping */
  double saved_s;                                      /* generation seconds saved by hits */
} lobbies;

/* Prepares the table and its timers on `loop`, under `cfg`'s limits and
 * profiles, its jobs on `queues` (whose room sets the requests use), its
 * deadlines counted in `counters`; all borrowed for the table's life. 0 or
 * a libuv error. */
int lobbies_init(lobbies *table, uv_loop_t *loop, const config *cfg, jobs *queues, stats *counters);

/* Frees every lobby (no job may still run; waiters get SRV_EGONE) and
 * closes the timers. */
void lobbies_close(lobbies *table);

/* Cancels every pending debounce and starts no speculative job from now
 * on: for the drain. Waiters of a cancelled job get DG_ECANCELED through
 * its completion. */
void lobbies_drain(lobbies *table);

/* The lobby `id`, or NULL. */
lobby *lobby_find(lobbies *table, const char *id);

/* Creates lobby `id` (absent) for client `creator` with no settings and no
 * players, its seed a keyed hash of the id: 0 with *out set, SRV_ELOBBIES
 * at limits.lobbies_max, SRV_ECLIENT_LOBBIES when `creator` has
 * limits.lobbies_per_client_max alive, SRV_ELOBBY_BYTES when its state does
 * not fit limits.lobby_bytes_max, or DG_ENOMEM; `err` says which. */
int lobby_create(lobbies *table, const char *id, uint64_t creator, lobby **out, dg_error *err);

/* Disbands `l` (freed): its job is dropped, waiters get SRV_EGONE. */
void lobby_remove(lobbies *table, lobby *game);

/* Each change is judged before it is applied, exactly as POST /v1/levels
 * would judge the request it makes: 0 when applied (the effective request
 * recomputed, stale work dropped, a new job debounced); otherwise the
 * lobby, its job and its ready level are as they were and the code and
 * `err` say why (a status through problem_of, SRV_ELOBBY_BYTES for the
 * budget, naming `field`).
 * lobby_put_settings takes `settings` (an object of algorithm, profile,
 * params, roomset, deadline_ms) on success only, and `seed` replaces the
 * lobby's. lobby_put_player takes `attributes` on success only.
 * lobby_remove_player is DG_ENOENT for an unknown player. */
int lobby_put_settings(lobbies *table, lobby *game, json_t *settings, uint64_t seed, dg_error *err);
int lobby_put_player(lobbies *table, lobby *game, const char *player, json_t *attributes,
                     dg_error *err);
int lobby_remove_player(lobbies *table, lobby *game, const char *player);

/* Replaces the whole lobby at once (issue 21, item 1): `settings` as for
 * lobby_put_settings and `players_by_id` (an object of player id ->
 * attributes, each already checked) judged together, so the same PUT
 * twice leaves the same lobby. Takes both on success only; otherwise the
 * lobby is as it was (codes as lobby_put_settings; more players than
 * lobby_players_max is DG_ELIMIT on `players`). */
int lobby_put_whole(lobbies *table, lobby *game, json_t *settings, json_t *players_by_id,
                    uint64_t seed, dg_error *err);

/* True when a start's party (`settings`, `players_by_id`, `seed`, as a
 * whole PUT would set them) is exactly lobby `l`; otherwise false with
 * `err` SRV_EMISMATCH naming the first member that differs
 * ("players.bob", "settings.profile", "seed"). */
bool lobby_same_party(const lobby *game, const json_t *settings, const json_t *players_by_id,
                      uint64_t seed, dg_error *err);

/* The entity tag of the lobby's state (settings, players, seed): a
 * quoted hex SipHash of their canonical JSON, the same on every replica
 * for the same state, so a lobby rebuilt elsewhere by a whole PUT keeps
 * its tag. `out` holds LOBBY_ETAG_MAX bytes. */
#define LOBBY_ETAG_MAX 24
void lobby_etag(const lobby *game, char out[LOBBY_ETAG_MAX]);

/* The lobby as GET shows it (new reference, NULL when out of memory). */
json_t *lobby_json(const lobby *game);

/* How a start is served. */
typedef enum lobby_start_kind {
  LOBBY_HIT,  /* the level is ready: `level` (borrowed until the next change) */
  LOBBY_WAIT, /* its job is on the way: the waiter is called when it ends */
  LOBBY_MISS, /* nothing usable: generate `request` under `deadline_ms` now */
} lobby_start_kind;

typedef struct lobby_start_result {
  lobby_start_kind kind;
  const char *level; /* LOBBY_HIT */
  size_t length;
  dg_request request; /* LOBBY_MISS */
  long deadline_ms;
} lobby_start_result;

/* Starts the match of a valid lobby (l->valid): freezes it, then a hit
 * when the ready level is the effective one, a wait (the job promoted to
 * interactive, `waiter` registered) when that job is on the way, else a
 * miss. Only the JSON representation is pre-generated: `json` false is
 * always a miss. */
void lobby_start(lobbies *table, lobby *game, bool json, lobby_waiter *waiter,
                 lobby_start_result *out);

/* Starts a valid lobby this replica has just rebuilt from a start's party
 * (it did not know it: a restart, a lost replica): freezes it and answers
 * a miss for its effective request, with no speculative job. */
void lobby_start_rebuilt(lobbies *table, lobby *game, lobby_start_result *out);

#endif
