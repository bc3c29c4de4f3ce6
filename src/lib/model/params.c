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

bool dg_param_takes_points(const dg_param_def *def) {
  return def->type == DG_PARAM_ENUM && def->choices == dg_pacing_choices;
}

/* Control points are kept in the parameter's text slot, two bytes a point
 * (x + 1, y + 1: never 0, so the text stays a C string), so that a
 * dg_params stays plain data the generators copy. */
int dg_pacing_points(const char *text, int *xs, int *ys) {
  int count = 0;
  for (; count < DG_PACING_POINTS_MAX && text[2 * count] != '\0' && text[2 * count + 1] != '\0';
       count++) {
    xs[count] = (unsigned char)text[2 * count] - 1;
    ys[count] = (unsigned char)text[2 * count + 1] - 1;
  }
  return count;
}

const char *dg_pacing_points_text(const char *text, char *buffer, size_t size) {
  int xs[DG_PACING_POINTS_MAX], ys[DG_PACING_POINTS_MAX];
  int count = dg_pacing_points(text, xs, ys);
  size_t at = 0;
  buffer[0] = '\0';
  for (int i = 0; i < count && at < size; i++)
    at += (size_t)snprintf(buffer + at, size - at, "%s%d:%d", i > 0 ? "," : "", xs[i], ys[i]);
  return buffer;
}

/* Parses "x:y,x:y,..." (2 to DG_PACING_POINTS_MAX points, x rising
 * strictly from 0 to 100, y from 0 to 100) into the compact form. */
static bool parse_points(const char *text, char compact[DG_PARAM_STRING_MAX]) {
  int count = 0, last_x = -1;
  const char *at = text;
  for (;;) {
    int value[2];
    for (int k = 0; k < 2; k++) {
      if (*at < '0' || *at > '9')
        return false;
      value[k] = 0;
      for (int digits = 0; *at >= '0' && *at <= '9'; at++, digits++) {
        if (digits >= 3)
          return false;
        value[k] = value[k] * 10 + (*at - '0');
      }
      if (value[k] > 100 || (k == 0 && *at++ != ':'))
        return false;
    }
    if (count == DG_PACING_POINTS_MAX || value[0] <= last_x || (count == 0 && value[0] != 0))
      return false;
    compact[2 * count] = (char)(value[0] + 1);
    compact[2 * count + 1] = (char)(value[1] + 1);
    count++;
    last_x = value[0];
    if (*at == '\0')
      break;
    if (*at++ != ',')
      return false;
  }
  compact[2 * count] = '\0';
  return count >= DG_PACING_POINTS_MIN && last_x == 100;
}

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
    if (dg_param_takes_points(def) && at < size)
      snprintf(buffer + at, (size_t)(size - at),
               ", or %d to %d control points [[x,y],...] (\"x:y,...\" in text) with x rising "
               "from 0 to 100 and y from 0 to 100",
               DG_PACING_POINTS_MIN, DG_PACING_POINTS_MAX);
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
    if (dg_param_takes_points(def) && text != NULL) {
      char compact[DG_PARAM_STRING_MAX];
      if (parse_points(text, compact)) {
        *index = DG_PACING_POINTS;
        return 0;
      }
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
  if (def->type == DG_PARAM_ENUM && choice == DG_PACING_POINTS)
    parse_points(text, request->params.text[index]);
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
      int xs[DG_PACING_POINTS_MAX], ys[DG_PACING_POINTS_MAX];
      bool points = dg_param_takes_points(def) && number == DG_PACING_POINTS &&
                    memchr(text, '\0', DG_PARAM_STRING_MAX) != NULL &&
                    dg_pacing_points(text, xs, ys) >= DG_PACING_POINTS_MIN;
      if (!points && !(number >= 0 && number < choices && number == floor(number)))
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
