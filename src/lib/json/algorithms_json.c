/* The registry as JSON, for listings (daemon and CLI print the same). */
#include "dungeon/json.h"

static json_t *param_json(const dg_param_def *def) {
  json_t *object = json_object();
  if (object == NULL)
    return NULL;
  int rc = json_object_set_new(object, "name", json_string(def->name));
  rc |= json_object_set_new(object, "type", json_string(dg_param_type_name(def->type)));
  switch (def->type) {
  case DG_PARAM_INT:
    rc |= json_object_set_new(object, "default", json_integer((json_int_t)def->default_value));
    rc |= json_object_set_new(object, "min", json_integer((json_int_t)def->min));
    rc |= json_object_set_new(object, "max", json_integer((json_int_t)def->max));
    break;
  case DG_PARAM_FLOAT:
    rc |= json_object_set_new(object, "default", json_real(def->default_value));
    rc |= json_object_set_new(object, "min", json_real(def->min));
    rc |= json_object_set_new(object, "max", json_real(def->max));
    break;
  case DG_PARAM_BOOL:
    rc |= json_object_set_new(object, "default", json_boolean(def->default_value != 0));
    break;
  case DG_PARAM_ENUM: {
    json_t *choices = json_array();
    for (int i = 0; choices != NULL && def->choices[i] != NULL; i++)
      rc |= json_array_append_new(choices, json_string(def->choices[i]));
    rc |=
        json_object_set_new(object, "default", json_string(def->choices[(int)def->default_value]));
    rc |= json_object_set_new(object, "choices", choices);
    break;
  }
  case DG_PARAM_STRING:
    rc |= json_object_set_new(object, "default",
                              def->default_string ? json_string(def->default_string) : json_null());
    break;
  }
  rc |= json_object_set_new(object, "doc", json_string(def->doc));
  if (rc != 0) {
    json_decref(object);
    return NULL;
  }
  return object;
}

json_t *dg_algorithms_to_json(void) {
  int count;
  const dg_algorithm *const *all = dg_algorithms(&count);
  json_t *array = json_array();
  if (array == NULL)
    return NULL;
  for (int i = 0; i < count; i++) {
    json_t *params = json_array();
    for (int k = 0; params != NULL && k < all[i]->param_count; k++)
      if (json_array_append_new(params, param_json(&all[i]->params[k])) != 0) {
        json_decref(params);
        params = NULL;
      }
    json_t *item = json_pack("{s:s,s:s,s:s,s:o*}", "name", all[i]->name, "summary", all[i]->summary,
                             "source", all[i]->source, "params", params);
    if (params == NULL || item == NULL || json_array_append_new(array, item) != 0) {
      json_decref(array);
      return NULL;
    }
  }
  return array;
}
