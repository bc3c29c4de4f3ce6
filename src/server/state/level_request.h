/* The request builder: a level request's JSON body (POST /v1/levels, a
 * GET query made into one, or a lobby's settings and players) becomes the
 * dg_request to generate and its deadline, checked against the daemon's
 * members, profiles, room sets and limits. Pure: no I/O and no state but
 * what it is given, so the level routes and the lobbies judge a request
 * identically. Thread-safe when `seeds` is not shared. */
#ifndef DUNGEOND_LEVEL_REQUEST_H
#define DUNGEOND_LEVEL_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "state/config.h"

/* Where a member of a level request may stand: every member the daemon
 * takes is in one table (level_members), which the builder, the GET query
 * and the lobby settings all ask. */
enum {
  LEVEL_MEMBER_BODY = 1,     /* a POST /v1/levels body, or a lobby's request */
  LEVEL_MEMBER_QUERY = 2,    /* a GET /v1/levels query (besides parameters) */
  LEVEL_MEMBER_SETTINGS = 4, /* a lobby's settings */
  LEVEL_MEMBER_LEVELS = 8,   /* POST or GET /v1/levels only (floors) */
};

/* True when `name` may stand where `where` (LEVEL_MEMBER_* bits) says. */
bool level_member_allowed(const char *name, unsigned where);

/* The members allowed at `where`, comma-separated, into `out`. */
void level_members_text(unsigned where, char *out, size_t size);

/* The `floors` member of `body` (borrowed): 1 when absent or null, else an
 * integer from 1 to limits.floors_max. 0, or DG_EINVAL with `err` naming
 * floors and the range. */
int level_request_floors(const config *cfg, const json_t *body, int *floors, dg_error *err);

/* Builds the request `body` (borrowed) asks for: its members are
 * algorithm, seed, params, players, profile, deadline_ms, roomset and
 * targets (a top-level `roomset` is params.roomset; the named set must be
 * in `roomsets`, which may be NULL). The profile, named or the default
 * one when players are given, derives parameters from the players, and
 * explicit params go over them. Limits apply over the algorithm's own
 * ranges, found through the parameters' roles: width * height within
 * limits.grid_cells_max and a room count within limits.rooms_max (a
 * default above it is lowered to it). Without a seed one is drawn from
 * `seeds` (which may be NULL only when every body names its seed). Returns
 * 0 with *out and *deadline_ms set, or an error code with `err` naming the
 * field; problem_of() gives its HTTP status. */
int level_request_build(const config *cfg, const dg_context *roomsets, dg_rng *seeds,
                        const json_t *body, dg_request *out, long *deadline_ms, dg_error *err);

#endif
