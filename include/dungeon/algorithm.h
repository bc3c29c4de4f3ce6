/* The generator registry: every algorithm declares itself once, as a name,
 * a parameter table and a generate function. That one table drives request
 * validation, defaults, `GET /v1/algorithms`, `dungeon algorithms`,
 * `dungeon generate --help` and the docs, so a parameter is declared once.
 *
 * Everything here is static, read-only data: thread-safe. */
#ifndef DUNGEON_ALGORITHM_H
#define DUNGEON_ALGORITHM_H

#include <stdbool.h>
#include <stdint.h>

#include "dungeon/cancel.h"
#include "dungeon/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_PARAMS_MAX 48 /* parameters one algorithm may declare, common ones included */
#define DG_PARAM_STRING_MAX 64

typedef enum dg_param_type {
  DG_PARAM_INT,    /* integer within [min, max] */
  DG_PARAM_FLOAT,  /* real number within [min, max] */
  DG_PARAM_BOOL,   /* true or false */
  DG_PARAM_ENUM,   /* one of `choices` */
  DG_PARAM_STRING, /* short text (a name), at most DG_PARAM_STRING_MAX - 1 bytes */
} dg_param_type;

/* What a parameter means to code outside its generator: the daemon's limits
 * (and anything else that must find "the width" of any algorithm) look a
 * parameter up by role with dg_algorithm_param_with_role() instead of
 * guessing from its name, so a new algorithm opts into a limit by tagging
 * its table, and renaming a parameter cannot silently drop a limit. Roles
 * never appear in JSON or in level bytes. */
typedef enum dg_param_role {
  /* No meaning outside the generator; no daemon limit applies. The value
   * of every entry that does not name a role, the common parameters
   * included. */
  DG_PARAM_ROLE_NONE = 0,
  /* Integer: the level grid's width in tiles. With DG_PARAM_ROLE_HEIGHT it
   * gives the grid's cells, which a service caps (dungeond:
   * limits.grid_cells_max over width * height). */
  DG_PARAM_ROLE_WIDTH,
  /* Integer: the level grid's height in tiles; see DG_PARAM_ROLE_WIDTH. */
  DG_PARAM_ROLE_HEIGHT,
  /* Integer: the most rooms the generator places (it may place fewer). A
   * service caps it (dungeond: limits.rooms_max, lowering a default above
   * the cap and refusing an explicit value above it). */
  DG_PARAM_ROLE_ROOM_COUNT,
  /* String: the name of a room set of the dg_context that generation
   * reads. A service that loads room sets checks the name against them and
   * takes it as a top-level `roomset` member too. */
  DG_PARAM_ROLE_ROOMSET,
} dg_param_role;

typedef struct dg_param_def {
  const char *name;           /* snake_case, unique within the algorithm */
  dg_param_type type;         /* how values are parsed and checked */
  double default_value;       /* int/float/bool (0/1)/enum (index) default */
  double min, max;            /* inclusive range for int and float */
  const char *const *choices; /* enum: NULL-terminated names, else NULL */
  const char *default_string; /* string default, else NULL */
  const char *doc;            /* one line for people */
  dg_param_role role;         /* meaning outside the generator, usually NONE */
} dg_param_def;

/* The effective value of every parameter of one algorithm, by table index. */
typedef struct dg_params {
  double number[DG_PARAMS_MAX];                  /* int, float, bool, enum index */
  char text[DG_PARAMS_MAX][DG_PARAM_STRING_MAX]; /* string parameters */
  uint64_t explicit_mask;                        /* bit i: set by the caller */
} dg_params;

typedef struct dg_context dg_context;
typedef struct dg_level dg_level;
typedef struct dg_request dg_request;

/* A generator: fills `level` (already initialised: algorithm, seed and
 * params set, everything else empty) or returns a negative code with `err`
 * filled. Must be pure: no I/O, no globals, reentrant. */
typedef int (*dg_generate_fn)(const dg_context *context, const dg_request *request,
                              dg_cancel *cancel, dg_level *level, dg_error *err);

/* Cross-parameter checks after each value passed its own range check
 * ("room_width_min <= room_width_max"). Returns 0 or DG_EINVAL with `err`. */
typedef int (*dg_validate_fn)(const dg_params *params, dg_error *err);

typedef struct dg_algorithm {
  const char *name;           /* "classic", "landmark", ... */
  const char *summary;        /* one line */
  const char *source;         /* the technique it follows and where it comes from */
  const dg_param_def *params; /* parameter table */
  int param_count;            /* entries in `params`, <= DG_PARAMS_MAX */
  dg_validate_fn validate;    /* may be NULL */
  dg_generate_fn generate;    /* never NULL */
} dg_algorithm;

/* Parameters every algorithm shares: where the level's entrance, exit and
 * player spawns go (the placement pass that dg_generate runs after every
 * generator), then the locks, keys and one-way doors of the progression
 * pass that follows it, then the population pass's budgets and pacing. They are the last
 * DG_COMMON_PARAM_COUNT entries of every algorithm's table, in this order, so that one table per
 * algorithm still drives validation, defaults, `GET /v1/algorithms` and `--help`. */
enum {
  DG_COMMON_PLACEMENT,        /* bool: place stairs and spawns at all */
  DG_COMMON_EXIT_DISTANCE,    /* float 0..1: exit at least this fraction of the farthest distance */
  DG_COMMON_SPAWNS,           /* int: spawn points, one per player */
  DG_COMMON_STAIRS_UP_X,      /* int: the up stairs' column, -1 to let placement choose */
  DG_COMMON_STAIRS_UP_Y,      /* int: the up stairs' row, -1 to let placement choose */
  DG_COMMON_LOCKS,            /* int 0..16: locked doors on the way to the exit */
  DG_COMMON_KEY_KIND,         /* enum: DG_KEY_REUSABLE or DG_KEY_CONSUMABLE */
  DG_COMMON_ONE_WAY,          /* int 0..16: one-way doors, opening from the deep side */
  DG_COMMON_BOSS_ROOM,        /* bool: mark the room before the exit, behind the last lock */
  DG_COMMON_POPULATION,       /* bool: give every room a threat budget and a loot tier */
  DG_COMMON_DIFFICULTY,       /* int 0..100: the threat budget's scale */
  DG_COMMON_PACING,           /* enum DG_PACING_*: how threat rises from entrance to exit */
  DG_COMMON_LOOT,             /* int 0..DG_LOOT_MAX: loot points shared among the rooms */
  DG_COMMON_EASE_AFTER_LOCKS, /* int 0..100: percent off the threat of rooms just past a lock */
  DG_COMMON_TABLE,            /* string: the content table filling the budgets, "" for none */
  DG_COMMON_PARAM_COUNT
};

/* The first progression parameter: DG_COMMON_LOCKS up to
 * DG_COMMON_BOSS_ROOM. */
#define DG_COMMON_PROGRESSION_FIRST DG_COMMON_LOCKS
/* The first population parameter: DG_COMMON_POPULATION up to the end. */
#define DG_COMMON_POPULATION_FIRST DG_COMMON_POPULATION

/* Values of DG_COMMON_PACING: the threat curve over a room's progress
 * (its distance from the entrance over the farthest room's), see
 * docs/population.md. */
enum {
  DG_PACING_FLAT,
  DG_PACING_LINEAR,
  DG_PACING_S_CURVE,
  DG_PACING_EXPONENTIAL,
  /* Control points instead of a name: piecewise linear through them. Not
   * one of the enum's choices; the points live in the parameter's text
   * (dg_pacing_points). */
  DG_PACING_POINTS
};

#define DG_PACING_POINTS_MIN 2  /* control points a pacing curve needs */
#define DG_PACING_POINTS_MAX 16 /* and may have */

/* The control points of a pacing parameter set to DG_PACING_POINTS
 * (`text`: its dg_params text) into xs and ys (DG_PACING_POINTS_MAX
 * each), x rising from 0 to 100, y within 0..100. Returns how many, 0 when
 * `text` holds none. Pure. */
int dg_pacing_points(const char *text, int *xs, int *ys);

#define DG_DIFFICULTY_MAX 100 /* the range of DG_COMMON_DIFFICULTY */
#define DG_LOOT_MAX 100000    /* the range of DG_COMMON_LOOT */

/* Values of DG_COMMON_KEY_KIND: a reusable key opens its own lock (key k,
 * lock k); consumable keys are alike (any key opens any lock) and are
 * spent on the lock they open. */
enum { DG_KEY_REUSABLE, DG_KEY_CONSUMABLE };

#define DG_LOCKS_MAX 16   /* the range of DG_COMMON_LOCKS */
#define DG_ONE_WAY_MAX 16 /* the range of DG_COMMON_ONE_WAY */

/* Index in `algorithm`'s table of common parameter `which` (DG_COMMON_*). */
static inline int dg_common_param(const dg_algorithm *algorithm, int which) {
  return algorithm->param_count - DG_COMMON_PARAM_COUNT + which;
}

/* Whether parameter `index` of `algorithm` is written where a level or a
 * request lists its effective parameters (the level's `params`, a floor's
 * `request`): every parameter is, except the progression parameters
 * (DG_COMMON_LOCKS to DG_COMMON_BOSS_ROOM) while all of them hold their
 * defaults, and likewise the population parameters as a group, so that a
 * level that does not use a pass keeps the bytes it had before the pass
 * existed. Pure. */
bool dg_param_listed(const dg_algorithm *algorithm, const dg_params *params, int index);

/* True when `params` ask the progression pass for anything (locks or
 * one-way doors). Pure. */
bool dg_progression_wanted(const dg_algorithm *algorithm, const dg_params *params);

/* True when `params` ask for the population pass (params.population).
 * Pure. */
bool dg_population_wanted(const dg_algorithm *algorithm, const dg_params *params);

/* The registered algorithms, in a fixed order; *count receives how many.
 * Static data. */
const dg_algorithm *const *dg_algorithms(int *count);

/* The algorithm called `name`, or NULL. */
const dg_algorithm *dg_algorithm_find(const char *name);

/* The algorithm a request that names none gets (classic): the one owner of
 * that default for the daemon, the CLI and lobbies. Static data. */
const dg_algorithm *dg_algorithm_default(void);

/* Index of parameter `name` in `algorithm`'s table, or -1. */
int dg_algorithm_param_index(const dg_algorithm *algorithm, const char *name);

/* Index in `algorithm`'s table of the first parameter whose role is `role`,
 * or -1 when the algorithm has none. DG_PARAM_ROLE_NONE (and any value
 * outside the enum) always gives -1: "no role" is not something to look up,
 * and answering with an arbitrary unroled parameter would invite a limit to
 * apply to it. `algorithm` is borrowed (static registry data); pure and
 * thread-safe. */
int dg_algorithm_param_with_role(const dg_algorithm *algorithm, dg_param_role role);

/* Writes the allowed values of parameter `def` for a person, e.g.
 * "an integer from 10 to 400" or "one of follow, cleanup, plain", into
 * `buffer` (always terminated). Returns `buffer`. */
const char *dg_param_describe_range(const dg_param_def *def, char *buffer, int size);

/* Name of a parameter type ("integer", "number", "boolean", "enum",
 * "string"). Static. */
const char *dg_param_type_name(dg_param_type type);

#ifdef __cplusplus
}
#endif
#endif
