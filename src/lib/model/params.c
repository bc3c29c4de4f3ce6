/* Parameter tables: describing ranges for people, and setting a parameter
 * from CLI text with an error that names the field and the allowed range,
 * and a request's cross-parameter checks (the algorithm's own, then those
 * of the common placement parameters and the targets). Every path into dg_params goes through
 * dg_param_set_checked(), which the JSON setters (json/params.c) share through params_internal.h;
 * this file itself knows nothing of jansson, so generate.c and the generators do not depend on the
 * JSON layer. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"
#include "generators.h"
#include "model/params_internal.h"

const char *const dg_key_kind_choices[] = {"reusable", "consumable", NULL};

bool dg_progression_wanted(const dg_algorithm *algorithm, const dg_params *params) {
  return dg_param_int(params, dg_common_param(algorithm, DG_COMMON_LOCKS)) > 0 ||
         dg_param_int(params, dg_common_param(algorithm, DG_COMMON_ONE_WAY)) > 0;
}

bool dg_param_listed(const dg_algorithm *algorithm, const dg_params *params, int index) {
  int first = dg_common_param(algorithm, DG_COMMON_PROGRESSION_FIRST);
  if (index < first)
    return true;
  for (int i = first; i < algorithm->param_count; i++)
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

void dg_request_init(dg_request *request, const dg_algorithm *algorithm) {
  memset(request, 0, sizeof *request);
  request->algorithm = algorithm;
  for (int i = 0; i < algorithm->param_count; i++) {
    const dg_param_def *def = &algorithm->params[i];
    request->params.number[i] = def->default_value;
    if (def->type == DG_PARAM_STRING && def->default_string != NULL)
      snprintf(request->params.text[i], DG_PARAM_STRING_MAX, "%s", def->default_string);
  }
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
    bool ok = length >= 1 && length < DG_PARAM_STRING_MAX;
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

int dg_params_check(const dg_algorithm *algorithm, const dg_params *params, dg_error *err) {
  for (int i = 0; i < algorithm->param_count; i++) {
    const dg_param_def *def = &algorithm->params[i];
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "params.%s", def->name);
    const char *text = params->text[i];
    if (def->type == DG_PARAM_ENUM) {
      /* An enum holds an index: it must name one of the choices. */
      double number = params->number[i];
      int choices = 0;
      while (def->choices[choices] != NULL)
        choices++;
      if (!(number >= 0 && number < choices && number == floor(number)))
        return out_of_range(def, field, err);
      continue;
    }
    if (def->type == DG_PARAM_STRING && memchr(params->text[i], '\0', DG_PARAM_STRING_MAX) == NULL)
      return out_of_range(def, field, err);
    int unused;
    int rc = check_value(def, params->number[i], text, field, &unused, err);
    if (rc != 0)
      return rc;
  }
  return 0;
}

/* Text that strtod would accept but a person did not mean as a plain
 * number: hex, leading blanks, "inf", "nan". A non-integral value for an
 * integer parameter is then refused by the range check, as in JSON. */
static bool plain_number(const char *text) {
  if (*text == '-' || *text == '+')
    text++;
  if (*text < '0' || *text > '9')
    return false;
  for (; *text != '\0'; text++) {
    char c = *text;
    bool digit = c >= '0' && c <= '9';
    if (!digit && c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+')
      return false;
  }
  return true;
}

/* strtod in the C locale: "0.5" is a half whatever LC_NUMERIC the host
 * program chose (under de_DE plain strtod stops at the '.'), so the same
 * request text means the same level everywhere. A locale object per call:
 * parameter texts are few, and the library keeps no global state. 0, or
 * DG_ENOMEM when the locale object cannot be made; errno as strtod sets it. */
static int parse_c_number(const char *text, double *number, char **end) {
  locale_t c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  if (c_numeric == (locale_t)0)
    return DG_ENOMEM;
  errno = 0;
  *number = strtod_l(text, end, c_numeric);
  int saved = errno;
  freelocale(c_numeric);
  errno = saved;
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

int dg_request_set_text(dg_request *request, const char *name, const char *text, dg_error *err) {
  int index = dg_param_find(request, name, name, err);
  if (index < 0)
    return index;
  const dg_param_def *def = &request->algorithm->params[index];
  double number = 0;
  char range[160];
  switch (def->type) {
  case DG_PARAM_INT:
  case DG_PARAM_FLOAT: {
    char *end = NULL;
    errno = 0;
    int parsed = plain_number(text) ? parse_c_number(text, &number, &end) : DG_EPARSE;
    if (parsed == DG_ENOMEM)
      return dg_error_set(err, DG_ENOMEM, name, "out of memory reading %s", name);
    if (parsed != 0 || end == text || *end != '\0' || errno != 0)
      return dg_error_set(err, DG_ETYPE, name, "%s must be %s, not '%s'", name,
                          dg_param_describe_range(def, range, sizeof range), text);
    break;
  }
  case DG_PARAM_BOOL:
    if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
      number = 1;
    else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
      number = 0;
    else
      return dg_error_set(err, DG_ETYPE, name, "%s must be true or false, not '%s'", name, text);
    break;
  default: break;
  }
  return dg_param_set_checked(request, index, number, text, name, err);
}

/* Checks of the common parameters that involve two values or the map's
 * size: the forced stairs up come as a pair and lie on the map. */
static int common_validate(const dg_request *request, dg_error *err) {
  const dg_algorithm *algorithm = request->algorithm;
  const dg_params *params = &request->params;
  int x = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_STAIRS_UP_X));
  int y = dg_param_int(params, dg_common_param(algorithm, DG_COMMON_STAIRS_UP_Y));
  if ((x < 0) != (y < 0))
    return dg_error_set(err, DG_EINVAL, x < 0 ? "params.stairs_up_x" : "params.stairs_up_y",
                        "params.stairs_up_x and params.stairs_up_y must both be -1 or both be "
                        "a position");
  int width = dg_algorithm_param_index(algorithm, "width");
  int height = dg_algorithm_param_index(algorithm, "height");
  if (x >= 0 && width >= 0 && x >= dg_param_int(params, width))
    return dg_error_set(err, DG_EINVAL, "params.stairs_up_x",
                        "params.stairs_up_x must be -1 or from 0 to params.width - 1 (%d)",
                        dg_param_int(params, width) - 1);
  if (y >= 0 && height >= 0 && y >= dg_param_int(params, height))
    return dg_error_set(err, DG_EINVAL, "params.stairs_up_y",
                        "params.stairs_up_y must be -1 or from 0 to params.height - 1 (%d)",
                        dg_param_int(params, height) - 1);
  if (dg_progression_wanted(algorithm, params) &&
      !dg_param_bool(params, dg_common_param(algorithm, DG_COMMON_PLACEMENT)))
    return dg_error_set(err, DG_EINVAL,
                        dg_param_int(params, dg_common_param(algorithm, DG_COMMON_LOCKS)) > 0
                            ? "params.locks"
                            : "params.one_way",
                        "params.locks and params.one_way need params.placement=true (locks "
                        "and one-way doors lie between the entrance and the exit)");
  return dg_targets_check(request, err);
}

int dg_request_validate(const dg_request *request, dg_error *err) {
  if (request->algorithm->validate != NULL) {
    int rc = request->algorithm->validate(&request->params, err);
    if (rc != 0)
      return rc;
  }
  return common_validate(request, err);
}
