/* Parameter tables: describing ranges for people, looking a parameter up by
 * name or role, and the one range check every path into dg_params goes
 * through, dg_param_set_checked(), which the CLI text setter (request.c) and
 * the JSON setters (json/params.c) share through params_internal.h. The
 * request functions built on it are in request.c. This file itself knows
 * nothing of jansson, so generate.c and the generators do not depend on the
 * JSON layer. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dungeon/request.h"
#include "generators.h"
#include "model/params_internal.h"

const char *const dg_key_kind_choices[] = {"reusable", "consumable", NULL};
const char *const dg_pacing_choices[] = {"flat", "linear", "s_curve", "exponential", NULL};

bool dg_population_wanted(const dg_algorithm *algorithm, const dg_params *params) {
  return dg_param_bool(params, dg_common_param(algorithm, DG_COMMON_POPULATION));
}

bool dg_progression_wanted(const dg_algorithm *algorithm, const dg_params *params) {
  return dg_param_int(params, dg_common_param(algorithm, DG_COMMON_LOCKS)) > 0 ||
         dg_param_int(params, dg_common_param(algorithm, DG_COMMON_ONE_WAY)) > 0;
}

bool dg_param_listed(const dg_algorithm *algorithm, const dg_params *params, int index) {
  int progression = dg_common_param(algorithm, DG_COMMON_PROGRESSION_FIRST);
  int population = dg_common_param(algorithm, DG_COMMON_POPULATION_FIRST);
  if (index < progression)
    return true;
  /* A group is listed whole as soon as one of its members is not at its
   * default: each pass's parameters stay out of the bytes of levels that
   * do not use that pass. */
  /* An optional string left empty (no content table) is not a value:
   * levels without one keep the bytes they had before it existed. */
  if (algorithm->params[index].type == DG_PARAM_STRING && params->text[index][0] == '\0')
    return false;
  int first = index < population ? progression : population;
  int end = index < population ? population : algorithm->param_count;
  for (int i = first; i < end; i++)
    if (params->number[i] != algorithm->params[i].default_value)
      return true;
  return false;
}

const char *dg_param_type_name(dg_param_type type) {
  switch (type) {
  case DG_PARAM_INT: return "integer";
  case DG_PARAM_FLOAT: return "number";
  case DG_PARAM_BOOL: return "boolean";
  case DG_PARAM_ENUM: return "enum";
  case DG_PARAM_STRING: return "string";
  }
  return "unknown";
}

const char *dg_param_describe_range(const dg_param_def *def, char *buffer, int size) {
  switch (def->type) {
  case DG_PARAM_INT:
    snprintf(buffer, (size_t)size, "an integer from %.0f to %.0f", def->min, def->max);
    break;
  case DG_PARAM_FLOAT:
    snprintf(buffer, (size_t)size, "a number from %g to %g", def->min, def->max);
    break;
  case DG_PARAM_BOOL: snprintf(buffer, (size_t)size, "true or false"); break;
  case DG_PARAM_ENUM: {
    int at = snprintf(buffer, (size_t)size, "one of ");
    for (int i = 0; def->choices[i] != NULL && at < size; i++)
      at += snprintf(buffer + at, (size_t)(size - at), "%s%s", i > 0 ? ", " : "", def->choices[i]);
    break;
  }
  case DG_PARAM_STRING:
    snprintf(buffer, (size_t)size, "a name of 1 to %d characters [A-Za-z0-9_.-]",
             DG_PARAM_STRING_MAX - 1);
    break;
  }
  return buffer;
}

int dg_algorithm_param_index(const dg_algorithm *algorithm, const char *name) {
  for (int i = 0; i < algorithm->param_count; i++)
    if (strcmp(algorithm->params[i].name, name) == 0)
      return i;
  return -1;
}

int dg_algorithm_param_with_role(const dg_algorithm *algorithm, dg_param_role role) {
  if (role == DG_PARAM_ROLE_NONE)
    return -1;
  for (int i = 0; i < algorithm->param_count; i++)
    if (algorithm->params[i].role == role)
      return i;
  return -1;
}

static int out_of_range(const dg_param_def *def, const char *field, dg_error *err) {
  char range[160];
  return dg_error_set(err, DG_EINVAL, field, "%s must be %s", field,
                      dg_param_describe_range(def, range, sizeof range));
}

/* Checks one value against its table entry; for enums `text` is the
 * choice's name and *index receives its position. */
static int check_value(const dg_param_def *def, double number, const char *text, const char *field,
                       int *index, dg_error *err) {
  switch (def->type) {
  case DG_PARAM_INT:
    if (!isfinite(number) || number != floor(number) || number < def->min || number > def->max)
      return out_of_range(def, field, err);
    return 0;
  case DG_PARAM_FLOAT:
    if (!isfinite(number) || number < def->min || number > def->max)
      return out_of_range(def, field, err);
    return 0;
  case DG_PARAM_BOOL:
    if (number != 0.0 && number != 1.0)
      return out_of_range(def, field, err);
    return 0;
  case DG_PARAM_ENUM:
    for (int i = 0; def->choices[i] != NULL; i++)
      if (text != NULL && strcmp(def->choices[i], text) == 0) {
        *index = i;
        return 0;
      }
    return out_of_range(def, field, err);
  case DG_PARAM_STRING: {
    size_t length = strlen(text);
    /* A string whose default is empty is optional: "" means none. */
    bool optional = def->default_string != NULL && def->default_string[0] == '\0';
    bool ok = (length >= 1 || optional) && length < DG_PARAM_STRING_MAX;
    for (size_t i = 0; ok && i < length; i++) {
      char c = text[i];
      ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
    }
    return ok ? 0 : out_of_range(def, field, err);
  }
  }
  return out_of_range(def, field, err);
}

int dg_param_set_checked(dg_request *request, int index, double number, const char *text,
                         const char *field, dg_error *err) {
  const dg_param_def *def = &request->algorithm->params[index];
  int choice = 0;
  int rc = check_value(def, number, text, field, &choice, err);
  if (rc != 0)
    return rc;
  if (def->type == DG_PARAM_ENUM)
    number = choice;
  if (def->type == DG_PARAM_STRING)
    snprintf(request->params.text[index], DG_PARAM_STRING_MAX, "%s", text);
  request->params.number[index] = number;
  request->params.explicit_mask |= UINT64_C(1) << index;
  return 0;
}

/* Reports parameter `def` of a dg_params as out of range, naming
 * "params.<name>". */
static int params_out_of_range(const dg_param_def *def, dg_error *err) {
  char field[DG_ERROR_FIELD_MAX];
  snprintf(field, sizeof field, "params.%s", def->name);
  return out_of_range(def, field, err);
}

int dg_params_check(const dg_algorithm *algorithm, const dg_params *params, dg_error *err) {
  /* This runs on every generation: a field's name is only formatted for
   * an error, so that each parameter a table gains costs a comparison,
   * not a snprintf. */
  for (int i = 0; i < algorithm->param_count; i++) {
    const dg_param_def *def = &algorithm->params[i];
    const char *text = params->text[i];
    if (def->type == DG_PARAM_ENUM) {
      /* An enum holds an index: it must name one of the choices. */
      double number = params->number[i];
      int choices = 0;
      while (def->choices[choices] != NULL)
        choices++;
      if (!(number >= 0 && number < choices && number == floor(number)))
        return params_out_of_range(def, err);
      continue;
    }
    if (def->type == DG_PARAM_STRING && memchr(params->text[i], '\0', DG_PARAM_STRING_MAX) == NULL)
      return params_out_of_range(def, err);
    int unused;
    if (check_value(def, params->number[i], text, "", &unused, NULL) != 0) {
      char field[DG_ERROR_FIELD_MAX];
      snprintf(field, sizeof field, "params.%s", def->name);
      return check_value(def, params->number[i], text, field, &unused, err);
    }
  }
  return 0;
}

int dg_param_find(const dg_request *request, const char *name, const char *field, dg_error *err) {
  int index = dg_algorithm_param_index(request->algorithm, name);
  if (index < 0) {
    char names[400];
    int at = 0;
    names[0] = '\0';
    for (int i = 0; i < request->algorithm->param_count && at < (int)sizeof names; i++)
      at += snprintf(names + at, sizeof names - (size_t)at, "%s%s", i > 0 ? ", " : "",
                     request->algorithm->params[i].name);
    return dg_error_set(err, DG_ENOENT, field, "unknown parameter '%s' for algorithm %s; known: %s",
                        name, request->algorithm->name, names);
  }
  return index;
}
