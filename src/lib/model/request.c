/* Requests (dungeon/request.h): starting one with every parameter at its
 * default, setting a parameter from CLI text in the C locale, and the
 * request's cross-parameter checks (the algorithm's own, then those of the
 * common placement parameters and the targets). The parameter tables
 * themselves, the one lookup and range check every setter shares
 * (model/params_internal.h) and dg_params_check, which is that range check
 * over a whole table, are in params.c; the targets and seed
 * derivation in targets.c, the players in players.c. This file knows
 * nothing of jansson, so generate.c and the generators do not depend on the
 * JSON layer. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"
#include "generators.h"
#include "model/params_internal.h"

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
  if (dg_population_wanted(algorithm, params) &&
      !dg_param_bool(params, dg_common_param(algorithm, DG_COMMON_PLACEMENT)))
    return dg_error_set(err, DG_EINVAL, "params.population",
                        "params.population needs params.placement=true (threat rises with the "
                        "distance from the entrance)");
  if (dg_param_string(params, dg_common_param(algorithm, DG_COMMON_TABLE))[0] != '\0' &&
      !dg_population_wanted(algorithm, params))
    return dg_error_set(err, DG_EINVAL, "params.table",
                        "params.table needs params.population=true (a table fills the "
                        "population's budgets)");
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
