/* Parameters from and to JSON: one parameter or a whole `params` object set
 * on a request with an error that names the field and the allowed range, and
 * the effective parameters as a JSON object. The lookup and range check are
 * the ones CLI text goes through (params.c, via params_internal.h). */
#include <stdbool.h>
#include <stdio.h>

#include "dungeon/json.h"
#include "model/params_internal.h"
#include "json/pacing_json.h"

/* [[x,y],...] as "x:y,x:y,..." into `buffer`; false when an element is
 * not a pair of integers from 0 to 999 or there are too many to be valid
 * (the range check that follows names the field). */
static bool points_text(const json_t *value, char *buffer, size_t size) {
  size_t at = 0, i;
  const json_t *point;
  buffer[0] = '\0';
  if (json_array_size(value) > DG_PACING_POINTS_MAX)
    return false;
  json_array_foreach(value, i, point) {
    const json_t *x = json_array_get(point, 0), *y = json_array_get(point, 1);
    if (!json_is_array(point) || json_array_size(point) != 2 || !json_is_integer(x) ||
        !json_is_integer(y) || json_integer_value(x) < 0 || json_integer_value(x) > 999 ||
        json_integer_value(y) < 0 || json_integer_value(y) > 999)
      return false;
    at += (size_t)snprintf(buffer + at, size - at, "%s%d:%d", i > 0 ? "," : "",
                           (int)json_integer_value(x), (int)json_integer_value(y));
  }
  return true;
}

/* The control points of a DG_PACING_POINTS parameter as [[x,y],...]. */
json_t *dg_pacing_points_to_json(const char *text) {
  int xs[DG_PACING_POINTS_MAX], ys[DG_PACING_POINTS_MAX];
  int count = dg_pacing_points(text, xs, ys);
  json_t *list = json_array();
  for (int i = 0; list != NULL && i < count; i++)
    if (json_array_append_new(list, json_pack("[i,i]", xs[i], ys[i])) != 0) {
      json_decref(list);
      list = NULL;
    }
  return list;
}

int dg_request_set_json(dg_request *request, const char *name, const json_t *value,
                        const char *field_prefix, dg_error *err) {
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "%s%s", field_prefix != NULL ? field_prefix : "", name);
  int index = dg_param_find(request, name, field, err);
  if (index < 0)
    return index;
  const dg_param_def *def = &request->algorithm->params[index];
  double number = 0;
  const char *text = "";
  char points[16 * (DG_PACING_POINTS_MAX + 1)];
  bool type_ok;
  switch (def->type) {
  case DG_PARAM_INT:
  case DG_PARAM_FLOAT:
    type_ok = json_is_number(value);
    if (type_ok)
      number = json_number_value(value);
    break;
  case DG_PARAM_BOOL:
    type_ok = json_is_boolean(value);
    if (type_ok)
      number = json_is_true(value) ? 1 : 0;
    break;
  default:
    type_ok = json_is_string(value);
    if (type_ok)
      text = json_string_value(value);
    /* Control points as JSON, [[x,y],...]: the text form "x:y,..." for
     * the one check every setter shares. Anything else that is not a
     * pair of small integers is out of range there. */
    if (dg_param_takes_points(def) && json_is_array(value)) {
      type_ok = points_text(value, points, sizeof points);
      text = points;
    }
    break;
  }
  if (!type_ok) {
    char range[160];
    return dg_error_set(err, DG_ETYPE, field, "%s must be %s", field,
                        dg_param_describe_range(def, range, sizeof range));
  }
  return dg_param_set_checked(request, index, number, text, field, err);
}

int dg_request_set_params_json(dg_request *request, const json_t *params, dg_error *err) {
  if (!json_is_object(params))
    return dg_error_set(err, DG_ETYPE, "params", "params must be an object of name: value");
  const char *name;
  json_t *value;
  json_object_foreach((json_t *)params, name, value) {
    int rc = dg_request_set_json(request, name, value, "params.", err);
    if (rc != 0)
      return rc;
  }
  return dg_request_validate(request, err);
}

json_t *dg_params_to_json(const dg_algorithm *algorithm, const dg_params *params) {
  json_t *object = json_object();
  if (object == NULL)
    return NULL;
  for (int i = 0; i < algorithm->param_count; i++) {
    const dg_param_def *def = &algorithm->params[i];
    json_t *value = NULL;
    if (!dg_param_listed(algorithm, params, i))
      continue;
    switch (def->type) {
    case DG_PARAM_INT: value = json_integer((json_int_t)params->number[i]); break;
    case DG_PARAM_FLOAT: value = json_real(params->number[i]); break;
    case DG_PARAM_BOOL: value = json_boolean(params->number[i] != 0.0); break;
    case DG_PARAM_ENUM:
      value = params->number[i] == DG_PACING_POINTS && dg_param_takes_points(def)
                  ? dg_pacing_points_to_json(params->text[i])
                  : json_string(def->choices[(int)params->number[i]]);
      break;
    case DG_PARAM_STRING: value = json_string(params->text[i]); break;
    }
    if (json_object_set_new(object, def->name, value) != 0) {
      json_decref(object);
      return NULL;
    }
  }
  return object;
}
