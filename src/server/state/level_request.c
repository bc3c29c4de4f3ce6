/* See level_request.h. */
#include "state/level_request.h"

#include <stdio.h>
#include <string.h>

#include "state/profile.h"
#include "state/roomsets.h"

static const char *const body_members[] = {
    "algorithm", "seed", "params", "players", "profile", "deadline_ms", "roomset", "targets", NULL};

/* Checks the daemon's own members and limits; fills the request, the
 * deadline and `err`. Returns 0 or the error code. */
static int parse_body(const config *cfg, dg_rng *seeds, const json_t *body, dg_request *out,
                      long *deadline_ms, dg_error *err) {
  const config_limits *limits = &cfg->limits;
  party_limits party_bounds = party_limits_of(limits);
  if (!json_is_object(body))
    return dg_error_set(err, DG_EPARSE, "", "the request body must be a JSON object");
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)body, key, value) {
    bool known = false;
    for (int i = 0; body_members[i] != NULL; i++)
      known = known || strcmp(body_members[i], key) == 0;
    if (!known) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "%s", key);
      return dg_error_set(err, DG_ENOENT, field,
                          "unknown member '%s'; allowed: algorithm, seed, params, players, "
                          "profile, deadline_ms, roomset, targets (and floors on /v1/levels)",
                          key);
    }
  }
  dg_request parsed;
  int rc = dg_request_from_json(body, &parsed, err);
  if (rc != 0)
    return rc;
  long player_count = -1; /* players in the party, when the body names them */

  /* Profiles: derived parameters first, then the explicit ones over them. */
  const json_t *players = json_object_get(body, "players");
  const json_t *profile_name = json_object_get(body, "profile");
  const json_t *profile = NULL;
  if (profile_name != NULL && !json_is_null(profile_name)) {
    if (!json_is_string(profile_name))
      return dg_error_set(err, DG_ETYPE, "profile", "profile must be a string");
    profile = cfg->profiles != NULL
                  ? json_object_get(cfg->profiles, json_string_value(profile_name))
                  : NULL;
    if (profile == NULL) {
      char names[160] = "";
      const char *name;
      json_t *ignored;
      if (cfg->profiles != NULL)
        json_object_foreach(cfg->profiles, name, ignored) {
          size_t at = strlen(names);
          snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", name);
        }
      return dg_error_set(err, DG_ENOENT, "profile", "unknown profile '%s'; known: %s",
                          json_string_value(profile_name), names[0] ? names : "(none)");
    }
  } else if (players != NULL && !json_is_null(players) && cfg->default_profile[0]) {
    profile = json_object_get(cfg->profiles, cfg->default_profile);
    if (strcmp(json_string_value(json_object_get(profile, "algorithm")), parsed.algorithm->name) !=
        0)
      profile = NULL;
  }
  if (profile != NULL) {
    const char *profile_algorithm = json_string_value(json_object_get(profile, "algorithm"));
    if (strcmp(profile_algorithm, parsed.algorithm->name) != 0)
      return dg_error_set(err, DG_EINVAL, "profile", "profile '%s' is for algorithm %s, not %s",
                          json_string_value(profile_name), profile_algorithm,
                          parsed.algorithm->name);
    party members = {NULL, 0};
    if (players != NULL && !json_is_null(players) &&
        (rc = party_from_json(players, &party_bounds, &members, err)) != 0)
      return rc;
    if (players != NULL && !json_is_null(players))
      player_count = members.count;
    dg_request derived;
    dg_request_init(&derived, parsed.algorithm);
    derived.seed = parsed.seed;
    derived.seed_given = parsed.seed_given;
    derived.targets = parsed.targets;
    if ((rc = profile_apply(profile, &members, &derived, err)) != 0)
      return rc;
    const json_t *params = json_object_get(body, "params");
    rc = params != NULL && !json_is_null(params) ? dg_request_set_params_json(&derived, params, err)
                                                 : dg_request_validate(&derived, err);
    if (rc != 0)
      return rc;
    parsed = derived;
  } else if (players != NULL && !json_is_null(players)) {
    party members;
    if ((rc = party_from_json(players, &party_bounds, &members, err)) != 0)
      return rc;
    player_count = members.count;
  }
  /* One spawn per player unless the request says otherwise; a party above
   * the parameter's range shares its last spawns. */
  int spawns = dg_common_param(parsed.algorithm, DG_COMMON_SPAWNS);
  if (player_count >= 0 && !(parsed.params.explicit_mask & (UINT64_C(1) << spawns))) {
    double most = parsed.algorithm->params[spawns].max;
    parsed.params.number[spawns] = player_count < most ? (double)player_count : most;
  }
  if (parsed.targets.attempts_max > limits->target_attempts_max)
    return dg_error_set(err, DG_ELIMIT, "targets.attempts_max",
                        "targets.attempts_max must be an integer from 1 to %ld "
                        "(limits.target_attempts_max)",
                        limits->target_attempts_max);
  if (parsed.targets.set_mask != 0) {
    if (parsed.targets.attempts_max == 0)
      parsed.targets.attempts_max = DG_TARGET_ATTEMPTS_DEFAULT < limits->target_attempts_max
                                        ? DG_TARGET_ATTEMPTS_DEFAULT
                                        : (int)limits->target_attempts_max;
  }

  /* Daemon limits over the algorithm's own ranges, on the parameters the
   * table gives those roles (whatever their names). */
  const dg_param_def *defs = parsed.algorithm->params;
  int width = dg_algorithm_param_with_role(parsed.algorithm, DG_PARAM_ROLE_WIDTH);
  int height = dg_algorithm_param_with_role(parsed.algorithm, DG_PARAM_ROLE_HEIGHT);
  if (width >= 0 && height >= 0) {
    double cells = parsed.params.number[width] * parsed.params.number[height];
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
  bool capped = false;
  int rooms = dg_algorithm_param_with_role(parsed.algorithm, DG_PARAM_ROLE_ROOM_COUNT);
  if (rooms >= 0 && parsed.params.number[rooms] > (double)limits->rooms_max) {
    if (parsed.params.explicit_mask & (UINT64_C(1) << rooms)) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "params.%s", defs[rooms].name);
      return dg_error_set(err, DG_ELIMIT, field, "%s must be at most %ld (limits.rooms_max)", field,
                          limits->rooms_max);
    }
    parsed.params.number[rooms] = (double)limits->rooms_max;
    capped = true;
  }
  if (capped && (rc = dg_request_validate(&parsed, err)) != 0)
    return rc;
  *deadline_ms = limits->deadline_ms_default;
  const json_t *deadline = json_object_get(body, "deadline_ms");
  if (deadline != NULL && !json_is_null(deadline)) {
    if (!json_is_integer(deadline) || json_integer_value(deadline) < 1 ||
        json_integer_value(deadline) > limits->deadline_ms_max)
      return dg_error_set(err, DG_EINVAL, "deadline_ms",
                          "deadline_ms must be an integer from 1 to %ld", limits->deadline_ms_max);
    *deadline_ms = (long)json_integer_value(deadline);
  }
  if (!parsed.seed_given) {
    /* The daemon picks the seed and the level says which, so it can be
     * asked for again; kept within 2^53 - 1 so every JSON client reads it
     * exactly. */
    if (seeds == NULL)
      return dg_error_set(err, DG_EINTERNAL, "seed", "a lobby request without a seed");
    uint64_t high = dg_rng_next(seeds), low = dg_rng_next(seeds);
    parsed.seed = ((high << 32) | low) & DG_SEED_SAFE_MAX;
    parsed.seed_given = true;
  }
  *out = parsed;
  return 0;
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
