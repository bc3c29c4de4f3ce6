/* Player profiles: named formulas in the configuration that derive an
 * algorithm's parameters from the party, so a lobby's level suits its
 * players. A formula is
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
  bool ids;              /* every player has an `id` (players[].id, issue 21) */
} party;

/* What a party may hold (limits.players_max and limits.player_attribute*):
 * they bound memory, and the value bound is what lets profile_check_finite
 * prove at load that no formula overflows. */
typedef struct party_limits {
  long players_max;    /* entries in `players` */
  long attributes_max; /* attributes of one player */
  long name_bytes_max; /* bytes of one attribute's name */
  double value_max;    /* largest |value| of an attribute */
} party_limits;

/* The default party limits: the daemon's configuration defaults for
 * limits.players_max and limits.player_attribute* (state/config.c), and
 * the only limits of the `dungeon` command's --players. */
#define PARTY_PLAYERS_MAX 64                 /* limits.players_max */
#define PARTY_ATTRIBUTES_MAX 32              /* limits.player_attributes_max */
#define PARTY_ATTRIBUTE_NAME_MAX 64          /* limits.player_attribute_name_max */
#define PARTY_ATTRIBUTE_VALUE_MAX 1000000000 /* limits.player_attribute_value_max */

/* The default party limits above, as a party_limits. */
party_limits party_limits_default(void);

/* A party figure a formula term reads. */
typedef enum profile_figure {
  PROFILE_BASE,    /* the constant: the coefficient itself */
  PROFILE_PLAYERS, /* the party's size */
  PROFILE_MEAN,    /* mean.A */
  PROFILE_MAX,     /* max.A */
  PROFILE_MIN,     /* min.A */
  PROFILE_SUM      /* sum.A */
} profile_figure;

/* One term of a formula: coefficient * figure (the coefficient alone for
 * PROFILE_BASE). */
typedef struct profile_term {
  profile_figure figure;
  char *attribute; /* A of mean.A and the like (owned); NULL for base and players */
  double coefficient;
} profile_term;

/* One parameter's formula, its terms in the order the configuration wrote
 * them: they are summed in that order, so the result is reproducible. */
typedef struct profile_formula {
  int param; /* index in the profile's algorithm's parameter table */
  profile_term *terms;
  int term_count;
  bool has_min, has_max;
  double min, max;
} profile_formula;

/* A profile compiled once from the configuration's JSON (at load or
 * reload): requests only evaluate it, never parse or check it again. */
typedef struct party_profile {
  char *name; /* owned */
  const dg_algorithm *algorithm;
  profile_formula *formulas; /* owned, one per derived parameter, in the file's order */
  int formula_count;
} party_profile;

/* Checks profile `name` of the configuration (`json`) and compiles it into
 * *out: its algorithm exists, each formula names an int or float parameter
 * of it, and every term and bound is a number. 0 with *out owned by the
 * caller (profile_release), or with `err` naming the key DG_ETYPE (not an
 * object, a coefficient not a number), DG_ENOENT (unknown algorithm, key,
 * parameter or term), DG_EINVAL (a parameter a formula cannot give, min
 * above max) or DG_ENOMEM, and nothing to release. */
int profile_compile(const char *name, const json_t *json, party_profile *out, dg_error *err);

/* Frees what profile_compile allocated; `p` may be zeroed or NULL. */
void profile_release(party_profile *p);

/* Checks that every formula of `p` stays finite for every party the limits
 * allow: at most `players_max` players, attributes within +-`value_max`. A
 * formula that could reach +-inf (and from there NaN, e.g. inf - inf or
 * 0 * inf) is a configuration error: 0, or DG_EINVAL with `err` naming
 * profiles.NAME.params.PARAM. */
int profile_check_finite(const party_profile *p, long players_max, double value_max, dg_error *err);

/* Checks one player's attributes object against `limits`: an object of at
 * most attributes_max numbers, names of at most name_bytes_max bytes,
 * values within +-value_max. `field` names the player in errors (e.g.
 * "players[2]"); NULL names the offending attribute instead (a lobby
 * player's body). 0, or DG_ETYPE / DG_ELIMIT with `err`. */
int player_attributes_check(const json_t *attributes, const party_limits *limits, const char *field,
                            dg_error *err);

/* Reads the request member `players` (an array of objects with numeric
 * attributes and an optional `id`, on every player or none; or a count)
 * into `out`, within `limits`.
 * 0, or DG_EINVAL / DG_ETYPE / DG_ELIMIT with `err` naming the field. */
int party_from_json(const json_t *players, const party_limits *limits, party *out, dg_error *err);

/* Sets every parameter profile `p` derives on `request` (whose algorithm
 * must be the profile's). A formula value that is not finite (impossible
 * with a configuration that passed profile_check_finite and a party within
 * its limits, checked anyway) is DG_EINVAL naming `profile`. 0 or a DG_E*
 * code with `err`. Reads `p` only: any number of threads may share it. */
int profile_apply(const party_profile *p, const party *members, dg_request *request, dg_error *err);

/* The party's spawns on `request`: one per player (`count`, clamped to the
 * parameter's range, so a larger party shares the last spawns) unless the
 * request set `spawns` itself. */
void party_spawns_default(long count, dg_request *request);

/* Keys the request's spawns by the party's ids, when its players have them
 * (a no-op otherwise). 0, or DG_ELIMIT (more than DG_PLAYER_IDS_MAX
 * players) / DG_EINVAL with `err` naming the field. */
int party_ids_apply(const party *members, dg_request *request, dg_error *err);

/* The value a formula gives for `members`, before clamping to the
 * parameter's range. Exposed for tests and docs. */
double profile_formula_value(const profile_formula *formula, const party *members);

#endif
