/* Deriving parameters from the party through the configured profiles, for
 * dungeond and the dungeon command alike; the formula language is
 * described in profile.h and docs/config.md. Only + and * on doubles, each
 * product rounded on its own (dungeon/fp.h) so that no build fuses it into
 * the sum: the same party gives the same parameters whatever compiled
 * this file, so the level stays deterministic. */
#include "profile.h"

#include "dungeon/fp.h"

#include <math.h>
#include <string.h>

static bool figure_known(const char *term) {
  return strcmp(term, "players") == 0 ||
         ((strncmp(term, "mean.", 5) == 0 || strncmp(term, "max.", 4) == 0 ||
           strncmp(term, "min.", 4) == 0 || strncmp(term, "sum.", 4) == 0) &&
          strchr(term, '.')[1] != '\0');
}

/* The largest |figure| a party within the limits can give for `term`:
 * `players` up to players_max; mean, min and max of an attribute up to
 * value_max; its sum up to players_max * value_max. */
static double figure_bound(const char *term, long players_max, double value_max) {
  if (strcmp(term, "players") == 0)
    return (double)players_max;
  if (strncmp(term, "sum.", 4) == 0)
    return (double)players_max * value_max;
  return value_max;
}

int profile_check_finite(const char *name, const json_t *profile, long players_max,
                         double value_max, dg_error *err) {
  const json_t *params = json_object_get(profile, "params");
  const char *param_name;
  json_t *formula;
  json_object_foreach((json_t *)params, param_name, formula) {
    /* |value| <= |base| + sum |coefficient| * bound: rounding is monotone,
     * so when this sum is finite every evaluation's partial sums are too,
     * and without an infinity no NaN can arise (only + and * are used). */
    double bound = 0;
    const char *term;
    json_t *coefficient;
    json_object_foreach(formula, term, coefficient) {
      if (strcmp(term, "base") == 0)
        bound += fabs(json_number_value(coefficient));
      else if (strcmp(term, "min") != 0 && strcmp(term, "max") != 0)
        bound += dg_fp_mul(fabs(json_number_value(coefficient)),
                           figure_bound(term, players_max, value_max));
    }
    if (!isfinite(bound)) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "profiles.%s.params.%s", name, param_name);
      return dg_error_set(err, DG_EINVAL, field,
                          "%s can overflow to infinity (and NaN) for a party within the limits "
                          "(up to %ld players, attributes within +-%.0f: limits.players_max, "
                          "limits.player_attribute_value_max); "
                          "use smaller coefficients",
                          field, players_max, value_max);
    }
  }
  return 0;
}

int profile_check(const char *name, const json_t *profile, dg_error *err) {
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "profiles.%s", name);
  if (!json_is_object(profile))
    return dg_error_set(err, DG_ETYPE, field, "%s must be an object {algorithm, params}", field);
  const json_t *algorithm_name = json_object_get(profile, "algorithm");
  const dg_algorithm *algorithm =
      json_is_string(algorithm_name) ? dg_algorithm_find(json_string_value(algorithm_name)) : NULL;
  if (algorithm == NULL)
    return dg_error_set(err, json_is_string(algorithm_name) ? DG_ENOENT : DG_ETYPE, field,
                        "%s.algorithm must name a known algorithm", field);
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)profile, key, value) {
    if (strcmp(key, "algorithm") != 0 && strcmp(key, "params") != 0 && strcmp(key, "doc") != 0)
      return dg_error_set(err, DG_ENOENT, field, "%s has unknown key '%s'", field, key);
  }
  const json_t *params = json_object_get(profile, "params");
  if (!json_is_object(params))
    return dg_error_set(err, DG_ETYPE, field, "%s.params must be an object of formulas", field);
  const char *param_name;
  json_t *formula;
  json_object_foreach((json_t *)params, param_name, formula) {
    int index = dg_algorithm_param_index(algorithm, param_name);
    snprintf(field, sizeof field, "profiles.%s.params.%s", name, param_name);
    if (index < 0 || (algorithm->params[index].type != DG_PARAM_INT &&
                      algorithm->params[index].type != DG_PARAM_FLOAT))
      /* No such parameter, or one a formula cannot give (enum, bool, string). */
      return dg_error_set(err, index < 0 ? DG_ENOENT : DG_EINVAL, field,
                          "%s must be an integer or number parameter of %s", field,
                          algorithm->name);
    if (!json_is_object(formula))
      return dg_error_set(err, DG_ETYPE, field,
                          "%s must be an object {base, TERM: coefficient, "
                          "min, max}",
                          field);
    const char *term;
    json_t *coefficient;
    json_object_foreach(formula, term, coefficient) {
      if (strcmp(term, "base") != 0 && strcmp(term, "min") != 0 && strcmp(term, "max") != 0 &&
          !figure_known(term))
        return dg_error_set(err, DG_ENOENT, field,
                            "%s: unknown term '%s' (base, min, max, players, mean.A, max.A, "
                            "min.A, sum.A)",
                            field, term);
      if (!json_is_number(coefficient))
        return dg_error_set(err, DG_ETYPE, field, "%s.%s must be a number", field, term);
    }
    const json_t *lo = json_object_get(formula, "min"), *hi = json_object_get(formula, "max");
    if (lo != NULL && hi != NULL && json_number_value(lo) > json_number_value(hi))
      return dg_error_set(err, DG_EINVAL, field, "%s.min must be at most %s.max", field, field);
  }
  return 0;
}

party_limits party_limits_default(void) {
  return (party_limits){.players_max = PARTY_PLAYERS_MAX,
                        .attributes_max = PARTY_ATTRIBUTES_MAX,
                        .name_bytes_max = PARTY_ATTRIBUTE_NAME_MAX,
                        .value_max = PARTY_ATTRIBUTE_VALUE_MAX};
}

int player_attributes_check(const json_t *attributes, const party_limits *limits, const char *field,
                            dg_error *err) {
  if (!json_is_object(attributes))
    return dg_error_set(err, DG_ETYPE, field != NULL ? field : "",
                        "%s must be an object of numeric attributes, e.g. {\"level\": 12}",
                        field != NULL ? field : "a player");
  long count = 0;
  const char *key;
  const json_t *value;
  json_object_foreach((json_t *)attributes, key, value) {
    /* A request's players carry their id beside the attributes
     * (party_from_json checks it); a lobby player's id is its path. */
    if (field != NULL && strcmp(key, "id") == 0)
      continue;
    const char *name = field != NULL ? field : key;
    const char *owner = field != NULL ? field : "the player";
    if (++count > limits->attributes_max)
      return dg_error_set(err, DG_ELIMIT, name,
                          "%s has more than %ld attributes (limits.player_attributes_max); "
                          "'%.40s' is one too many",
                          owner, limits->attributes_max, key);
    if ((long)strlen(key) > limits->name_bytes_max)
      return dg_error_set(err, DG_ELIMIT, name,
                          "attribute name '%.40s...' of %s is %zu bytes; at most %ld "
                          "(limits.player_attribute_name_max)",
                          key, owner, strlen(key), limits->name_bytes_max);
    if (!json_is_number(value))
      return field != NULL
                 ? dg_error_set(err, DG_ETYPE, field, "%s.%s must be a number", field, key)
                 : dg_error_set(err, DG_ETYPE, key, "player attribute %s must be a number", key);
    if (!(fabs(json_number_value(value)) <= limits->value_max))
      return dg_error_set(err, DG_ELIMIT, name,
                          "attribute %.40s of %s must be from -%.0f to %.0f "
                          "(limits.player_attribute_value_max)",
                          key, owner, limits->value_max, limits->value_max);
  }
  return 0;
}

int party_from_json(const json_t *players, const party_limits *limits, party *out, dg_error *err) {
  long players_max = limits->players_max;
  if (json_is_integer(players)) {
    json_int_t count = json_integer_value(players);
    if (count < 0 || count > players_max)
      return dg_error_set(err, DG_EINVAL, "players", "players must be from 0 to %ld players",
                          players_max);
    *out = (party){NULL, (long)count, false};
    return 0;
  }
  if (!json_is_array(players))
    return dg_error_set(err, DG_ETYPE, "players",
                        "players must be an array of objects like {\"level\": 12}, or a count");
  if ((long)json_array_size(players) > players_max)
    return dg_error_set(err, DG_EINVAL, "players", "players must be from 0 to %ld players",
                        players_max);
  size_t i;
  const json_t *player;
  long with_id = 0;
  json_array_foreach(players, i, player) {
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "players[%zu]", i);
    int rc = player_attributes_check(player, limits, field, err);
    if (rc != 0)
      return rc;
    const json_t *id = json_object_get(player, "id");
    if (id == NULL)
      continue;
    with_id++;
    if (!json_is_string(id) || !dg_player_id_valid(json_string_value(id))) {
      char id_field[DG_ERROR_FIELD_MAX];
      snprintf(id_field, sizeof id_field, "players[%zu].id", i);
      return dg_error_set(err, DG_EINVAL, id_field,
                          "%s must be a string of 1 to %d characters of [A-Za-z0-9._-]", id_field,
                          DG_PLAYER_ID_MAX);
    }
  }
  /* Spawns go to players by id: a party where only some have one would
   * leave the others' spawns to their position in the array. */
  if (with_id != 0 && with_id != (long)json_array_size(players)) {
    json_array_foreach(players, i, player) {
      if (json_object_get(player, "id") == NULL) {
        char field[DG_ERROR_FIELD_MAX];
        snprintf(field, sizeof field, "players[%zu].id", i);
        return dg_error_set(err, DG_EINVAL, field,
                            "%s is missing: either every player has an id or none has", field);
      }
    }
  }
  *out = (party){players, (long)json_array_size(players), with_id != 0};
  return 0;
}

/* One party figure: "players", or an aggregate of one attribute. */
static double party_figure(const party *members, const char *term) {
  if (strcmp(term, "players") == 0)
    return (double)members->count;
  const char *attribute = strchr(term, '.') + 1;
  double sum = 0, low = 0, high = 0;
  long have = 0;
  size_t i;
  const json_t *player;
  if (members->players != NULL) {
    json_array_foreach(members->players, i, player) {
      const json_t *value = json_object_get(player, attribute);
      if (value == NULL || !json_is_number(value))
        continue;
      double number = json_number_value(value);
      low = have == 0 || number < low ? number : low;
      high = have == 0 || number > high ? number : high;
      sum += number;
      have++;
    }
  }
  if (have == 0)
    return 0;
  if (strncmp(term, "mean.", 5) == 0)
    return sum / (double)have;
  if (strncmp(term, "max.", 4) == 0)
    return high;
  if (strncmp(term, "min.", 4) == 0)
    return low;
  return sum;
}

double profile_formula_value(const json_t *formula, const party *members) {
  double value = 0;
  const char *term;
  const json_t *coefficient;
  /* Terms are summed in the formula's key order (jansson keeps insertion
   * order), so the floating-point result is reproducible. */
  json_object_foreach((json_t *)formula, term, coefficient) {
    if (strcmp(term, "base") == 0)
      value += json_number_value(coefficient);
    else if (strcmp(term, "min") != 0 && strcmp(term, "max") != 0)
      value += dg_fp_mul(json_number_value(coefficient), party_figure(members, term));
  }
  const json_t *lo = json_object_get(formula, "min"), *hi = json_object_get(formula, "max");
  if (lo != NULL && value < json_number_value(lo))
    value = json_number_value(lo);
  if (hi != NULL && value > json_number_value(hi))
    value = json_number_value(hi);
  return value;
}

int profile_apply(const json_t *profile, const party *members, dg_request *request, dg_error *err) {
  const json_t *params = json_object_get(profile, "params");
  const char *name;
  const json_t *formula;
  json_object_foreach((json_t *)params, name, formula) {
    int index = dg_algorithm_param_index(request->algorithm, name);
    if (index < 0)
      return dg_error_set(err, DG_EINTERNAL, "profile", "profile parameter %s vanished", name);
    const dg_param_def *def = &request->algorithm->params[index];
    double value = profile_formula_value(formula, members);
    /* NaN passes every clamp below (its comparisons are false) and jansson
     * refuses it: refuse it here, naming what made it. */
    if (!isfinite(value))
      return dg_error_set(err, DG_EINVAL, "profile",
                          "the profile's formula for params.%s gives %s for these players; "
                          "check the players' attributes and the profile",
                          name, isnan(value) ? "NaN" : "an infinite value");
    if (value < def->min)
      value = def->min;
    if (value > def->max)
      value = def->max;
    json_t *json = NULL;
    if (def->type == DG_PARAM_INT)
      json = json_integer((json_int_t)(value >= 0 ? value + 0.5 : value - 0.5));
    else
      json = json_real(value);
    if (json == NULL)
      return dg_error_set(err, DG_ENOMEM, "", "out of memory");
    int rc = dg_request_set_json(request, name, json, "params.", err);
    json_decref(json);
    if (rc != 0)
      return rc;
  }
  return 0;
}

void party_spawns_default(long count, dg_request *request) {
  int spawns = dg_common_param(request->algorithm, DG_COMMON_SPAWNS);
  if (request->params.explicit_mask & (UINT64_C(1) << spawns))
    return;
  double most = request->algorithm->params[spawns].max;
  request->params.number[spawns] = count < most ? (double)count : most;
}

int party_ids_apply(const party *members, dg_request *request, dg_error *err) {
  if (!members->ids)
    return 0;
  const char *ids[DG_PLAYER_IDS_MAX];
  if (members->count > DG_PLAYER_IDS_MAX)
    return dg_error_set(err, DG_ELIMIT, "players",
                        "a party with ids has at most %d players (one spawn each)",
                        DG_PLAYER_IDS_MAX);
  for (long i = 0; i < members->count; i++)
    ids[i] = json_string_value(json_object_get(json_array_get(members->players, (size_t)i), "id"));
  return dg_request_set_players(request, ids, (int)members->count, "players", err);
}
