/* Player profiles: named formulas in the configuration that derive an
 * algorithm's parameters from the party (DESIGN.md "Player-dependent
 * parameters"). A formula is
 *   value = clamp(base + sum(coefficient * party figure), min, max)
 * where a party figure is "players" (the count) or "mean.A", "max.A",
 * "min.A", "sum.A" over the numeric attribute A of the players who have it
 * (0 when none has it). Integer parameters round half away from zero; every
 * result is clamped again to the parameter's own range, so a profile never
 * makes a request invalid. Explicit `params` in the request win. */
#ifndef DUNGEOND_PROFILE_H
#define DUNGEOND_PROFILE_H

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

/* The party of a request: `players` as sent (borrowed) and its size. */
typedef struct party {
  const json_t *players; /* array of objects, or NULL when given as a count */
  long count;            /* number of players */
} party;

/* Checks profile `name` of the configuration: its algorithm exists, each
 * formula names an int or float parameter of it, and every term and bound
 * is a number. 0, or -1 with `err` naming the key. */
int profile_check(const char *name, const json_t *profile, dg_error *err);

/* Reads the request member `players` (an array of objects with numeric
 * attributes, or a count) into `out`; at most `players_max` players.
 * 0, or DG_EINVAL / DG_ETYPE with `err` naming the field. */
int party_from_json(const json_t *players, long players_max, party *out, dg_error *err);

/* Sets every parameter the profile derives on `request` (whose algorithm
 * must be the profile's). 0 or a DG_E* code with `err`. */
int profile_apply(const json_t *profile, const party *members, dg_request *request, dg_error *err);

/* The value a formula gives for `members`, before clamping to the
 * parameter's range. Exposed for tests and docs. */
double profile_formula_value(const json_t *formula, const party *members);

#endif
