/* Lobbies and their pre-generated levels (DESIGN.md "HTTP API v1", issue 4):
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
#include "jobs.h"

#define LOBBY_ID_MAX 65
#define LOBBY_BUCKETS 1024

typedef struct lobby lobby;
typedef struct request request;
typedef struct server server;

/* A speculative job; outlives its lobby when superseded while running. */
typedef struct pregen {
  job work;     /* the job (work.data points here) */
  lobby *owner; /* NULL once superseded or disbanded: the result is dropped */
  server *srv;  /* the daemon */
} pregen;

struct lobby {
  lobby *next;                          /* hash chain */
  char id[LOBBY_ID_MAX];                /* path segment */
  json_t *settings;                     /* {algorithm?, profile?, params?} (owned) */
  json_t *players;                      /* player id -> attributes object (owned) */
  uint64_t seed;                        /* derived from the id at creation, or given; kept */
  long deadline_ms;                     /* every job of the lobby runs under it (settings) */
  size_t state_bytes;                   /* estimated bytes of this struct, settings, players */
  bool valid;                           /* `effective` holds a valid request */
  dg_request effective;                 /* what start would generate */
  dg_error invalid;                     /* why not valid */
  int invalid_status;                   /* HTTP status for `invalid` */
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
  request *waiters;          /* start requests waiting for `job` */
};

typedef struct lobbies {
  lobby *buckets[LOBBY_BUCKETS];                       /* hash table of lobbies by id */
  long count;                                          /* lobbies alive */
  long debounce_pending;                               /* lobbies with debounce_at_ns set */
  lobby *debounce_head, *debounce_tail;                /* those lobbies, soonest first */
  uv_timer_t debounce;                                 /* fires when the head is due */
  size_t ready_bytes;                                  /* sum of ready_length */
  size_t state_bytes;                                  /* sum of state_bytes */
  uv_timer_t tick;                                     /* TTL and grace, once per second */
  uint64_t hits, waits, misses;                        /* start outcomes */
  uint64_t superseded, expired, evicted, jobs_started; /* speculative bookkeeping */
  double saved_s;                                      /* generation seconds saved by hits */
} lobbies;

/* Prepares the table and its timer. */
int lobbies_init(server *s);

/* Frees every lobby (no job may still run) and closes the timer. */
void lobbies_close(server *s);

/* Cancels every pending debounce and drops waiters' jobs: for the drain. */
void lobbies_drain(server *s);

/* The route handler for /v1/lobbies/...; `rest` is the path after
 * "/v1/lobbies/". */
void lobby_route(request *r, const char *rest);

#endif
