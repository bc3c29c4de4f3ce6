/* Deriving parameters from the party through the configured profiles, for
 * dungeond and the dungeon command alike; the formula language is
 * described in profile.h and docs/config.md. Only + and * on doubles, each
 * product rounded on its own (dungeon/fp.h) so that no build fuses it into
 * the sum: the same party gives the same parameters whatever compiled
 * this file, so the level stays deterministic. */
#include "profile.h"

#include "dungeon/fp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The figure `term` names (its attribute after the dot through
 * *attribute), or -1 for none. */
static int figure_of(const char *term, const char **attribute) {
  static const struct {
    const char *prefix;
    profile_figure figure;
  } aggregates[] = {
      {"mean.", PROFILE_MEAN}, {"max.", PROFILE_MAX}, {"min.", PROFILE_MIN}, {"sum.", PROFILE_SUM}};
  *attribute = NULL;
  if (strcmp(term, "base") == 0)
    return PROFILE_BASE;
  if (strcmp(term, "players") == 0)
    return PROFILE_PLAYERS;
  for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++) {
    size_t length = strlen(aggregates[i].prefix);
    if (strncmp(term, aggregates[i].prefix, length) == 0 && term[length] != '\0') {
      *attribute = term + length;
      return (int)aggregates[i].figure;
    }
  }
  return -1;
}

/* The largest |figure| a party within the limits can give: `players` up to
 * players_max; mean, min and max of an attribute up to value_max; its sum
 * up to players_max * value_max; the base is its coefficient alone. */
static double figure_bound(profile_figure figure, long players_max, double value_max) {
  switch (figure) {
  case PROFILE_BASE: return 1;
  case PROFILE_PLAYERS: return (double)players_max;
  case PROFILE_SUM: return (double)players_max * value_max;
  default: return value_max;
  }
}

int profile_check_finite(const party_profile *p, long players_max, double value_max,
                         dg_error *err) {
  for (int f = 0; f < p->formula_count; f++) {
    const profile_formula *formula = &p->formulas[f];
    /* |value| <= |base| + sum |coefficient| * bound: rounding is monotone,
     * so when this sum is finite every evaluation's partial sums are too,
     * and without an infinity no NaN can arise (only + and * are used). */
    double bound = 0;
    for (int t = 0; t < formula->term_count; t++) {
      const profile_term *term = &formula->terms[t];
      bound += term->figure == PROFILE_BASE
                   ? fabs(term->coefficient)
                   : dg_fp_mul(fabs(term->coefficient),
                               figure_bound(term->figure, players_max, value_max));
    }
    if (!isfinite(bound)) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "profiles.%s.params.%s", p->name,
               p->algorithm->params[formula->param].name);
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

/* The algorithm profile `field` names, checked: 0 with *out, or an error. */
static int profile_algorithm(const char *field, const json_t *json, const dg_algorithm **out,
                             dg_error *err) {
  if (!json_is_object(json))
    return dg_error_set(err, DG_ETYPE, field, "%s must be an object {algorithm, params}", field);
  const json_t *algorithm_name = json_object_get(json, "algorithm");
  *out =
      json_is_string(algorithm_name) ? dg_algorithm_find(json_string_value(algorithm_name)) : NULL;
  if (*out == NULL)
    return dg_error_set(err, json_is_string(algorithm_name) ? DG_ENOENT : DG_ETYPE, field,
                        "%s.algorithm must name a known algorithm", field);
  const char *key;
  json_t *value;
  json_object_foreach((json_t *)json, key, value) {
    if (strcmp(key, "algorithm") != 0 && strcmp(key, "params") != 0 && strcmp(key, "doc") != 0)
      return dg_error_set(err, DG_ENOENT, field, "%s has unknown key '%s'", field, key);
  }
  if (!json_is_object(json_object_get(json, "params")))
    return dg_error_set(err, DG_ETYPE, field, "%s.params must be an object of formulas", field);
  return 0;
}

/* Compiles the formula `json` for parameter `param_name` of `algorithm`
 * into *out (zeroed by the caller; partly filled on failure, for
 * profile_release). `field` names it in errors. */
static int compile_formula(const dg_algorithm *algorithm, const char *param_name,
                           const json_t *json, const char *field, profile_formula *out,
                           dg_error *err) {
  int index = dg_algorithm_param_index(algorithm, param_name);
  if (index < 0 || (algorithm->params[index].type != DG_PARAM_INT &&
                    algorithm->params[index].type != DG_PARAM_FLOAT))
    /* No such parameter, or one a formula cannot give (enum, bool, string). */
    return dg_error_set(err, index < 0 ? DG_ENOENT : DG_EINVAL, field,
                        "%s must be an integer or number parameter of %s", field, algorithm->name);
  if (!json_is_object(json))
    return dg_error_set(err, DG_ETYPE, field,
                        "%s must be an object {base, TERM: coefficient, min, max}", field);
  out->param = index;
  out->terms = calloc(json_object_size(json) + 1, sizeof *out->terms);
  if (out->terms == NULL)
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  const char *term;
  json_t *coefficient;
  json_object_foreach((json_t *)json, term, coefficient) {
    bool bound = strcmp(term, "min") == 0 || strcmp(term, "max") == 0;
    const char *attribute = NULL;
    int figure = bound ? 0 : figure_of(term, &attribute);
    if (figure < 0)
      return dg_error_set(err, DG_ENOENT, field,
                          "%s: unknown term '%s' (base, min, max, players, mean.A, max.A, "
                          "min.A, sum.A)",
                          field, term);
    if (!json_is_number(coefficient))
      return dg_error_set(err, DG_ETYPE, field, "%s.%s must be a number", field, term);
    double number = json_number_value(coefficient);
    if (bound) {
      bool is_min = term[1] == 'i';
      *(is_min ? &out->has_min : &out->has_max) = true;
      *(is_min ? &out->min : &out->max) = number;
      continue;
    }
    profile_term *compiled = &out->terms[out->term_count++];
    *compiled = (profile_term){(profile_figure)figure, NULL, number};
    if (attribute != NULL && (compiled->attribute = strdup(attribute)) == NULL)
      return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  if (out->has_min && out->has_max && out->min > out->max)
    return dg_error_set(err, DG_EINVAL, field, "%s.min must be at most %s.max", field, field);
  return 0;
}

int profile_compile(const char *name, const json_t *json, party_profile *out, dg_error *err) {
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "profiles.%s", name);
  *out = (party_profile){0};
  int rc = profile_algorithm(field, json, &out->algorithm, err);
  const json_t *params = json_object_get(json, "params");
  if (rc == 0 &&
      ((out->name = strdup(name)) == NULL ||
       (out->formulas = calloc(json_object_size(params) + 1, sizeof *out->formulas)) == NULL))
    rc = dg_error_set(err, DG_ENOMEM, "", "out of memory");
  const char *param_name;
  json_t *formula;
  if (rc == 0)
    json_object_foreach((json_t *)params, param_name, formula) {
      snprintf(field, sizeof field, "profiles.%s.params.%s", name, param_name);
      if ((rc = compile_formula(out->algorithm, param_name, formula, field,
                                &out->formulas[out->formula_count++], err)) != 0)
        break;
    }
  if (rc != 0)
    profile_release(out);
  return rc;
}

void profile_release(party_profile *p) {
  if (p == NULL)
    return;
  for (int f = 0; p->formulas != NULL && f < p->formula_count; f++) {
    for (int t = 0; t < p->formulas[f].term_count; t++)
      free(p->formulas[f].terms[t].attribute);
    free(p->formulas[f].terms);
  }
  free(p->formulas);
  free(p->name);
  *p = (party_profile){0};
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

/* One party figure: the party's size, or an aggregate of one attribute
 * over the players who have it (0 when none has). */
static double party_figure(const party *members, const profile_term *term) {
  if (term->figure == PROFILE_PLAYERS)
    return (double)members->count;
  double sum = 0, low = 0, high = 0;
  long have = 0;
  size_t i;
  const json_t *player;
  if (members->players != NULL) {
    json_array_foreach(members->players, i, player) {
      const json_t *value = json_object_get(player, term->attribute);
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
  switch (term->figure) {
  case PROFILE_MEAN: return sum / (double)have;
  case PROFILE_MAX: return high;
  case PROFILE_MIN: return low;
  default: return sum;
  }
}

double profile_formula_value(const profile_formula *formula, const party *members) {
  double value = 0;
  /* Terms are summed in the formula's written order, so the
   * floating-point result is reproducible. */
  for (int t = 0; t < formula->term_count; t++) {
    const profile_term *term = &formula->terms[t];
    if (term->figure == PROFILE_BASE)
      value += term->coefficient;
    else
      value += dg_fp_mul(term->coefficient, party_figure(members, term));
  }
  if (formula->has_min && value < formula->min)
    value = formula->min;
  if (formula->has_max && value > formula->max)
    value = formula->max;
  return value;
}

int profile_apply(const party_profile *p, const party *members, dg_request *request,
                  dg_error *err) {
  /* The formulas hold parameter indexes of the profile's algorithm. */
  if (request->algorithm != p->algorithm)
    return dg_error_set(err, DG_EINTERNAL, "profile", "profile '%s' is for algorithm %s, not %s",
                        p->name, p->algorithm->name, request->algorithm->name);
  for (int f = 0; f < p->formula_count; f++) {
    const profile_formula *formula = &p->formulas[f];
    const dg_param_def *def = &request->algorithm->params[formula->param];
    double value = profile_formula_value(formula, members);
    /* NaN passes every clamp below (its comparisons are false) and jansson
     * refuses it: refuse it here, naming what made it. */
    if (!isfinite(value))
      return dg_error_set(err, DG_EINVAL, "profile",
                          "the profile's formula for params.%s gives %s for these players; "
                          "check the players' attributes and the profile",
                          def->name, isnan(value) ? "NaN" : "an infinite value");
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
    int rc = dg_request_set_json(request, def->name, json, "params.", err);
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
