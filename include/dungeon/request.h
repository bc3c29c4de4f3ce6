/* A validated generation request: which algorithm, which seed, and the
 * effective value of every parameter (defaults filled in).
 *
 * Requests come from JSON (the daemon, tests) or from `name=value` text (the
 * CLI); both paths use the algorithm's parameter table and report a bad value
 * with the field name and the allowed range. A dg_request is a plain value:
 * copy it freely; it holds no pointers but the static algorithm. The JSON
 * entry points (dg_request_from_json, dg_request_set_json, dg_request_to_json,
 * seeds, parameters and targets to and from JSON) are in dungeon/json.h, so that this header
 * and the generators that include it do not need jansson. */
#ifndef DUNGEON_REQUEST_H
#define DUNGEON_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "dungeon/algorithm.h"
#include "dungeon/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Structural targets (docs/level-format.md, `targets`): figures a level
 * must reach; dg_generate tries seed-derived candidates until one does. */
typedef enum dg_target_id {
  DG_TARGET_PATH_MIN,         /* walking distance entrance -> exit at least */
  DG_TARGET_PATH_MAX,         /* ... at most */
  DG_TARGET_CYCLES_MIN,       /* metrics.cycles at least */
  DG_TARGET_CYCLES_MAX,       /* ... at most */
  DG_TARGET_DEAD_ENDS_MIN,    /* metrics.dead_ends at least */
  DG_TARGET_DEAD_ENDS_MAX,    /* ... at most */
  DG_TARGET_ROOMS_MIN,        /* metrics.rooms at least */
  DG_TARGET_ROOMS_MAX,        /* ... at most */
  DG_TARGET_SPAWN_SPREAD_MAX, /* largest - smallest spawn-to-exit distance at most */
  DG_TARGET_LOCKS_MIN,        /* progression.locks_placed at least */
  DG_TARGET_LOCKS_MAX,        /* ... at most */
  DG_TARGET_COUNT
} dg_target_id;

#define DG_TARGET_VALUE_MAX 1000000   /* every target value is 0..this */
#define DG_TARGET_ATTEMPTS_DEFAULT 16 /* candidates tried when attempts_max is not given */
#define DG_TARGET_ATTEMPTS_MAX 1000   /* the library's bound on attempts_max */

typedef struct dg_targets {
  uint32_t set_mask;          /* bit i: target i was asked for; 0: no targets */
  int value[DG_TARGET_COUNT]; /* the bound of each target that is set */
  int attempts_max;           /* candidates tried at most (0 means the default) */
} dg_targets;

/* How the candidates fared (the level's `targets` member). */
typedef struct dg_target_report {
  int attempts;                  /* candidates generated */
  int chosen;                    /* the kept one: 0 is the request's own seed */
  uint64_t seed;                 /* the seed that made the kept candidate */
  bool met;                      /* it meets every target */
  uint32_t missed_mask;          /* bit i: target i missed by the kept candidate */
  int achieved[DG_TARGET_COUNT]; /* its figure for each target */
} dg_target_report;

/* The players a level's spawns are for (issue 21, item 2): their ids,
 * sorted bytewise, so that the same party gets the same spawns whatever
 * the order it joined in. Spawn i belongs to id[i]; with no ids, spawns
 * carry only their index. */
#define DG_PLAYER_IDS_MAX 64 /* ids a request carries: params.spawns' own maximum */
#define DG_PLAYER_ID_MAX 64  /* bytes of one id, of [A-Za-z0-9._-] */
typedef struct dg_player_ids {
  int count;                                        /* ids held, 0..DG_PLAYER_IDS_MAX */
  char id[DG_PLAYER_IDS_MAX][DG_PLAYER_ID_MAX + 1]; /* sorted, distinct, NUL-terminated */
} dg_player_ids;

struct dg_request {
  const dg_algorithm *algorithm; /* static registry entry */
  uint64_t seed;                 /* the seed generation uses */
  bool seed_given;               /* false until a seed is set */
  dg_params params;              /* every parameter's effective value */
  dg_targets targets;            /* structural targets; all zero for none */
  dg_player_ids players;         /* whose spawns; count 0 for anonymous spawns */
};

/* Name of target `id` ("path_min"...), static; NULL when out of range. */
const char *dg_target_name(int id);

/* Sets target `name` (or "attempts_max") to `value`, checking its range;
 * errors name `field` ("targets.path_min"). 0, DG_ENOENT (unknown name) or
 * DG_EINVAL. */
int dg_targets_set(dg_targets *targets, const char *name, double value, const char *field,
                   dg_error *err);

/* Sets one target from CLI text "name=value" (--target): errors as
 * dg_targets_set, naming "targets.<name>". (From JSON: dg_targets_from_json
 * in dungeon/json.h.) */
int dg_targets_set_text(dg_targets *targets, const char *assignment, dg_error *err);

/* Checks targets filled by hand (ranges) and against the request: targets
 * on the entrance-to-exit path or spawns need params.placement. 0 or
 * DG_EINVAL. */
int dg_targets_check(const dg_request *request, dg_error *err);

/* The seed of candidate / floor `index` derived from `seed` for `purpose`
 * (DG_DERIVE_*): index 0 is `seed` itself; others are mixed (SplitMix64)
 * and kept within DG_SEED_SAFE_MAX so they print as JSON numbers. Pure. */
enum { DG_DERIVE_TARGET_ATTEMPT = 1, DG_DERIVE_FLOOR = 2 };
uint64_t dg_seed_derive(uint64_t seed, int purpose, uint64_t index);

/* Largest seed that round-trips through a JSON number in every client
 * (JavaScript's Number.MAX_SAFE_INTEGER); larger seeds are accepted as
 * decimal strings and printed as strings. */
#define DG_SEED_SAFE_MAX 9007199254740991ULL

/* Starts a request for `algorithm` with every parameter at its default and
 * no seed. */
void dg_request_init(dg_request *request, const dg_algorithm *algorithm);

/* Sets parameter `name` from text ("80", "0.25", "true", "follow"), as the
 * CLI's --param name=value does. Returns 0, DG_ENOENT (unknown parameter),
 * DG_ETYPE (not a value of the parameter's type) or DG_EINVAL (out of range)
 * with `err` filled. */
int dg_request_set_text(dg_request *request, const char *name, const char *text, dg_error *err);

/* Checks every value in `params` against `algorithm`'s table (type, finite,
 * integral, in range, enum index, string charset), as the setters do. For
 * callers that fill dg_params by hand; dg_generate runs it. 0 or DG_EINVAL
 * naming the first bad field. */
int dg_params_check(const dg_algorithm *algorithm, const dg_params *params, dg_error *err);

/* True when `id` is a valid player id: 1 to DG_PLAYER_ID_MAX bytes of
 * [A-Za-z0-9._-]. */
bool dg_player_id_valid(const char *id);

/* Sets the request's players to the `count` ids at `ids` (any order),
 * stored sorted bytewise. Errors name `field` with the index ("players[2].id"
 * when field is "players"): DG_EINVAL for an id outside the pattern or given
 * twice, DG_ELIMIT for more than DG_PLAYER_IDS_MAX ids. 0 on success; the
 * request is unchanged on error. */
int dg_request_set_players(dg_request *request, const char *const *ids, int count,
                           const char *field, dg_error *err);

/* True when `a` and `b` hold the same ids. */
bool dg_player_ids_equal(const dg_player_ids *a, const dg_player_ids *b);

/* Runs the algorithm's cross-parameter checks (dg_algorithm.validate). */
int dg_request_validate(const dg_request *request, dg_error *err);

/* Typed access to parameter `index` of the request's algorithm. */
static inline int dg_param_int(const dg_params *params, int index) {
  return (int)params->number[index];
}
static inline double dg_param_float(const dg_params *params, int index) {
  return params->number[index];
}
static inline bool dg_param_bool(const dg_params *params, int index) {
  return params->number[index] != 0.0;
}
static inline int dg_param_enum(const dg_params *params, int index) {
  return (int)params->number[index];
}
static inline const char *dg_param_string(const dg_params *params, int index) {
  return params->text[index];
}

#ifdef __cplusplus
}
#endif
#endif
