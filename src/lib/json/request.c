/* A JSON request body to a dg_request: algorithm, seed, params. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/json.h"

int dg_seed_from_json(const json_t *value, const char *field, uint64_t *seed, dg_error *err) {
  if (json_is_integer(value)) {
    json_int_t number = json_integer_value(value);
    if (number < 0)
      return dg_error_set(err, DG_EINVAL, field,
                          "%s must be an integer from 0 to 18446744073709551615", field);
    *seed = (uint64_t)number;
    return 0;
  }
  if (json_is_string(value)) {
    const char *text = json_string_value(value);
    size_t length = strlen(text);
    bool digits = length >= 1 && length <= 20;
    for (size_t i = 0; digits && i < length; i++)
      digits = text[i] >= '0' && text[i] <= '9';
    if (digits) {
      errno = 0;
      unsigned long long parsed = strtoull(text, NULL, 10);
      if (errno == 0) {
        *seed = (uint64_t)parsed;
        return 0;
      }
    }
  }
  return dg_error_set(err, json_is_string(value) ? DG_EINVAL : DG_ETYPE, field,
                      "%s must be an integer from 0 to 18446744073709551615 "
                      "(a decimal string above 9007199254740991)",
                      field);
}

json_t *dg_seed_to_json(uint64_t seed) {
  if (seed <= DG_SEED_SAFE_MAX)
    return json_integer((json_int_t)seed);
  char text[24];
  snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
  return json_string(text);
}

int dg_request_from_json(const json_t *body, dg_request *request, dg_error *err) {
  if (!json_is_object(body))
    return dg_error_set(err, DG_ETYPE, "", "the request body must be a JSON object");
  const json_t *name = json_object_get(body, "algorithm");
  if (name == NULL)
    return dg_error_set(err, DG_EINVAL, "algorithm", "algorithm is required");
  if (!json_is_string(name))
    return dg_error_set(err, DG_ETYPE, "algorithm", "algorithm must be a string");
  const dg_algorithm *algorithm = dg_algorithm_find(json_string_value(name));
  if (algorithm == NULL) {
    char names[200];
    int count, at = 0;
    const dg_algorithm *const *all = dg_algorithms(&count);
    names[0] = '\0';
    for (int i = 0; i < count && at < (int)sizeof names; i++)
      at +=
          snprintf(names + at, sizeof names - (size_t)at, "%s%s", i > 0 ? ", " : "", all[i]->name);
    return dg_error_set(err, DG_ENOENT, "algorithm", "unknown algorithm '%s'; known: %s",
                        json_string_value(name), names);
  }
  dg_request parsed;
  dg_request_init(&parsed, algorithm);
  const json_t *seed = json_object_get(body, "seed");
  if (seed != NULL && !json_is_null(seed)) {
    int rc = dg_seed_from_json(seed, "seed", &parsed.seed, err);
    if (rc != 0)
      return rc;
    parsed.seed_given = true;
  }
  const json_t *targets = json_object_get(body, "targets");
  if (targets != NULL && !json_is_null(targets)) {
    int rc = dg_targets_from_json(targets, &parsed.targets, err);
    if (rc != 0)
      return rc;
  }
  const json_t *params = json_object_get(body, "params");
  if (params != NULL && !json_is_null(params)) {
    int rc = dg_request_set_params_json(&parsed, params, err);
    if (rc != 0)
      return rc;
  } else {
    int rc = dg_request_validate(&parsed, err);
    if (rc != 0)
      return rc;
  }
  *request = parsed;
  return 0;
}
