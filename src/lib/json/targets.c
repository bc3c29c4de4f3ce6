/* Structural targets and requests to and from JSON: a request's `targets`
 * object checked through dg_targets_set (targets.c), so JSON and CLI text
 * give the same error words, and a request written back as JSON (the
 * effective request of each floor of a multi-floor set). */
#include <stdio.h>

#include "dungeon/json.h"

int dg_targets_from_json(const json_t *object, dg_targets *targets, dg_error *err) {
  if (!json_is_object(object))
    return dg_error_set(err, DG_ETYPE, "targets",
                        "targets must be an object of name: integer, e.g. {\"path_min\": 40}");
  dg_targets parsed = *targets;
  const char *name;
  json_t *value;
  json_object_foreach((json_t *)object, name, value) {
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "targets.%s", name);
    if (!json_is_number(value)) {
      /* Name the allowed range even for a wrong type: look the name up. */
      dg_targets probe = {0};
      int rc = dg_targets_set(&probe, name, -1, field, err);
      if (rc == DG_ENOENT)
        return rc;
      if (err != NULL)
        err->code = DG_ETYPE;
      return DG_ETYPE;
    }
    int rc = dg_targets_set(&parsed, name, json_number_value(value), field, err);
    if (rc != 0)
      return rc;
  }
  *targets = parsed;
  return 0;
}

json_t *dg_request_to_json(const dg_request *request) {
  json_t *object = json_object();
  json_t *params = dg_params_to_json(request->algorithm, &request->params);
  json_t *seed = dg_seed_to_json(request->seed);
  if (object == NULL || params == NULL || seed == NULL ||
      json_object_set_new(object, "algorithm", json_string(request->algorithm->name)) != 0 ||
      json_object_set_new(object, "seed", seed) != 0 ||
      json_object_set_new(object, "params", params) != 0) {
    json_decref(object);
    return NULL;
  }
  const dg_targets *t = &request->targets;
  if (t->set_mask != 0) {
    json_t *targets = json_object();
    if (targets == NULL || json_object_set_new(object, "targets", targets) != 0) {
      json_decref(object);
      return NULL;
    }
    for (int i = 0; i < DG_TARGET_COUNT; i++)
      if (t->set_mask & (1u << i))
        json_object_set_new(targets, dg_target_name(i), json_integer(t->value[i]));
    if (t->attempts_max != 0)
      json_object_set_new(targets, "attempts_max", json_integer(t->attempts_max));
  }
  return object;
}
