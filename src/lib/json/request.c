/* A JSON request body to a dg_request: algorithm, seed, params. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/json.h"

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
