/* See level_request.h. */
#include "state/level_request.h"

#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "state/roomsets.h"

typedef struct level_member {
  const char *name; /* the JSON member (and query name) */
  unsigned where;   /* LEVEL_MEMBER_* */
} level_member;

#define EVERYWHERE (LEVEL_MEMBER_BODY | LEVEL_MEMBER_QUERY | LEVEL_MEMBER_SETTINGS)

/* Every member a level request may have, in the order messages list them. */
static const level_member level_members[] = {
    {"algorithm", EVERYWHERE},
    {"seed", EVERYWHERE},
    {"params", LEVEL_MEMBER_BODY | LEVEL_MEMBER_SETTINGS},
    {"players", LEVEL_MEMBER_BODY},
    {"profile", EVERYWHERE},
    {"deadline_ms", EVERYWHERE},
    {"roomset", EVERYWHERE},
    {"targets", LEVEL_MEMBER_BODY},
    {"floors", LEVEL_MEMBER_LEVELS},
};

#define MEMBER_COUNT (sizeof level_members / sizeof level_members[0])

bool level_member_allowed(const char *name, unsigned where) {
  for (size_t i = 0; i < MEMBER_COUNT; i++)
    if ((level_members[i].where & where) != 0 && strcmp(level_members[i].name, name) == 0)
      return true;
  return false;
}

void level_members_text(unsigned where, char *out, size_t size) {
  size_t at = 0;
  out[0] = '\0';
  for (size_t i = 0; i < MEMBER_COUNT && at < size; i++)
    if ((level_members[i].where & where) != 0)
      at += (size_t)snprintf(out + at, size - at, "%s%s", at ? ", " : "", level_members[i].name);
}

int level_request_floors(const config *cfg, const json_t *body, int *floors, dg_error *err) {
  *floors = 1;
  const json_t *member = json_object_get(body, "floors");
  if (member == NULL || json_is_null(member))
    return 0;
  if (!json_is_integer(member) || json_integer_value(member) < 1 ||
      json_integer_value(member) > cfg->limits.floors_max)
    return dg_error_set(err, DG_EINVAL, "floors",
                        "floors must be an integer from 1 to %ld (limits.floors_max)",
                        cfg->limits.floors_max);
  *floors = (int)json_integer_value(member);
  return 0;
}

/* Step 1: every member is one the body may have. */
static int check_members(const json_t *body, dg_error *err) {
  if (!json_is_object(body))
    return dg_error_set(err, DG_EPARSE, "", "the request body must be a JSON object");
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)body, key, value) {
    if (!level_member_allowed(key, LEVEL_MEMBER_BODY)) {
      char allowed[160];
      level_members_text(LEVEL_MEMBER_BODY, allowed, sizeof allowed);
      return dg_error_set(err, DG_ENOENT, key,
                          "unknown member '%s'; allowed: %s (and floors on /v1/levels)", key,
                          allowed);
    }
  }
  return 0;
}

/* The profile the body names, or the default one when it brings players
 * for the default profile's algorithm; NULL for none. */
static int find_profile(const config *cfg, const json_t *body, const dg_request *parsed,
                        const party_profile **out, dg_error *err) {
  const json_t *players = json_object_get(body, "players");
  const json_t *profile_name = json_object_get(body, "profile");
  *out = NULL;
  if (profile_name != NULL && !json_is_null(profile_name)) {
    if (!json_is_string(profile_name))
      return dg_error_set(err, DG_ETYPE, "profile", "profile must be a string");
    const party_profile *named = config_profile(cfg, json_string_value(profile_name));
    if (named == NULL) {
      char names[160] = "";
      for (int i = 0; i < cfg->profile_count; i++) {
        size_t at = strlen(names);
        snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", cfg->profile_list[i].name);
      }
      return dg_error_set(err, DG_ENOENT, "profile", "unknown profile '%s'; known: %s",
                          json_string_value(profile_name), names[0] ? names : "(none)");
    }
    if (named->algorithm != parsed->algorithm)
      return dg_error_set(err, DG_EINVAL, "profile", "profile '%s' is for algorithm %s, not %s",
                          named->name, named->algorithm->name, parsed->algorithm->name);
    *out = named;
  } else if (players != NULL && !json_is_null(players) && cfg->default_profile[0]) {
    const party_profile *fallback = config_profile(cfg, cfg->default_profile);
    if (fallback != NULL && fallback->algorithm == parsed->algorithm)
      *out = fallback;
  }
  return 0;
}

/* Step 2: the party (its ids key the spawns) and its profile. Derived parameters first, then the
 * explicit ones over them. *player_count is the party's size when the
 * body names one, else -1. */
static int apply_profile(const config *cfg, const json_t *body, dg_request *parsed,
                         long *player_count, dg_error *err) {
  party_limits party_bounds = party_limits_of(&cfg->limits);
  const json_t *players = json_object_get(body, "players");
  bool has_players = players != NULL && !json_is_null(players);
  *player_count = -1;
  const party_profile *profile = NULL;
  int rc = find_profile(cfg, body, parsed, &profile, err);
  if (rc != 0)
    return rc;
  party members = {NULL, 0, false};
  if (has_players && (rc = party_from_json(players, &party_bounds, &members, err)) != 0)
    return rc;
  if (has_players)
    *player_count = members.count;
  if (profile == NULL)
    return party_ids_apply(&members, parsed, err);
  dg_request derived;
  dg_request_init(&derived, parsed->algorithm);
  derived.seed = parsed->seed;
  derived.seed_given = parsed->seed_given;
  derived.targets = parsed->targets;
  if ((rc = profile_apply(profile, &members, &derived, err)) != 0)
    return rc;
  const json_t *params = json_object_get(body, "params");
  rc = params != NULL && !json_is_null(params) ? dg_request_set_params_json(&derived, params, err)
                                               : dg_request_validate(&derived, err);
  if (rc != 0)
    return rc;
  *parsed = derived;
  return party_ids_apply(&members, parsed, err);
}

/* Step 3: spawns from the party, and the daemon's limits over the
 * algorithm's own ranges, on the parameters the table gives those roles
 * (whatever their names). */
static int apply_limits(const config_limits *limits, long player_count, dg_request *parsed,
                        dg_error *err) {
  /* One spawn per player unless the request says otherwise; a party above
   * the parameter's range shares its last spawns. */
  if (player_count >= 0)
    party_spawns_default(player_count, parsed);
  if (parsed->targets.attempts_max > limits->target_attempts_max)
    return dg_error_set(err, DG_ELIMIT, "targets.attempts_max",
                        "targets.attempts_max must be an integer from 1 to %ld "
                        "(limits.target_attempts_max)",
                        limits->target_attempts_max);
  if (parsed->targets.set_mask != 0 && parsed->targets.attempts_max == 0)
    parsed->targets.attempts_max = DG_TARGET_ATTEMPTS_DEFAULT < limits->target_attempts_max
                                       ? DG_TARGET_ATTEMPTS_DEFAULT
                                       : (int)limits->target_attempts_max;
  const dg_param_def *defs = parsed->algorithm->params;
  int width = dg_algorithm_param_with_role(parsed->algorithm, DG_PARAM_ROLE_WIDTH);
  int height = dg_algorithm_param_with_role(parsed->algorithm, DG_PARAM_ROLE_HEIGHT);
  if (width >= 0 && height >= 0) {
    double cells = parsed->params.number[width] * parsed->params.number[height];
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "params.%s", defs[width].name);
    if (cells > (double)limits->grid_cells_max)
      return dg_error_set(err, DG_ELIMIT, field,
                          "params.%s * params.%s must be at most %ld cells (limits."
                          "grid_cells_max); asked for %.0f",
                          defs[width].name, defs[height].name, limits->grid_cells_max, cells);
  }
  /* A room count the caller asked for above the limit is an error; a default
   * above it (landmark's "no cap" 20000) is lowered to the limit, which the
   * level's echoed params then show, so the default request always works. */
  int rooms = dg_algorithm_param_with_role(parsed->algorithm, DG_PARAM_ROLE_ROOM_COUNT);
  if (rooms < 0 || parsed->params.number[rooms] <= (double)limits->rooms_max)
    return 0;
  if (parsed->params.explicit_mask & (UINT64_C(1) << rooms)) {
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "params.%s", defs[rooms].name);
    return dg_error_set(err, DG_ELIMIT, field, "%s must be at most %ld (limits.rooms_max)", field,
                        limits->rooms_max);
  }
  parsed->params.number[rooms] = (double)limits->rooms_max;
  return dg_request_validate(parsed, err);
}

/* Step 4: the deadline, within limits.deadline_ms_max. */
static int read_deadline(const config_limits *limits, const json_t *body, long *deadline_ms,
                         dg_error *err) {
  *deadline_ms = limits->deadline_ms_default;
  const json_t *deadline = json_object_get(body, "deadline_ms");
  if (deadline == NULL || json_is_null(deadline))
    return 0;
  if (!json_is_integer(deadline) || json_integer_value(deadline) < 1 ||
      json_integer_value(deadline) > limits->deadline_ms_max)
    return dg_error_set(err, DG_EINVAL, "deadline_ms",
                        "deadline_ms must be an integer from 1 to %ld", limits->deadline_ms_max);
  *deadline_ms = (long)json_integer_value(deadline);
  return 0;
}

/* Step 5: the seed. The daemon picks one when none is given and the level
 * says which, so it can be asked for again; kept within 2^53 - 1 so every
 * JSON client reads it exactly. */
static int choose_seed(dg_rng *seeds, dg_request *parsed, dg_error *err) {
  if (parsed->seed_given)
    return 0;
  if (seeds == NULL)
    return dg_error_set(err, DG_EINTERNAL, "seed", "a lobby request without a seed");
  uint64_t high = dg_rng_next(seeds), low = dg_rng_next(seeds);
  parsed->seed = ((high << 32) | low) & DG_SEED_SAFE_MAX;
  parsed->seed_given = true;
  return 0;
}

/* The daemon's own members and limits over the library's request: fills
 * the request, the deadline and `err`. Returns 0 or the error code. */
static int parse_body(const config *cfg, dg_rng *seeds, const json_t *body, dg_request *out,
                      long *deadline_ms, dg_error *err) {
  dg_request parsed;
  long player_count = -1;
  int rc = check_members(body, err);
  if (rc == 0)
    rc = dg_request_from_json(body, &parsed, err);
  if (rc == 0)
    rc = apply_profile(cfg, body, &parsed, &player_count, err);
  if (rc == 0)
    rc = apply_limits(&cfg->limits, player_count, &parsed, err);
  if (rc == 0)
    rc = read_deadline(&cfg->limits, body, deadline_ms, err);
  if (rc == 0)
    rc = choose_seed(seeds, &parsed, err);
  if (rc == 0)
    *out = parsed;
  return rc;
}

int level_request_build(const config *cfg, const dg_context *roomsets, dg_rng *seeds,
                        const json_t *body, dg_request *out, long *deadline_ms, dg_error *err) {
  json_t *moved = NULL;
  int rc = roomsets_move_member(body, &moved, err);
  if (rc == 0)
    rc = parse_body(cfg, seeds, moved != NULL ? moved : body, out, deadline_ms, err);
  if (rc == 0)
    rc = roomsets_check_request(roomsets, out, err);
  json_decref(moved);
  return rc;
}
