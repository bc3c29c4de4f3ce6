/* GET /v1/levels: the same levels as POST, asked for in the URL, so that a
 * browser, an <img src>, a CDN or a shared cache can fetch and keep them
 * (docs/pictures.md). The query becomes the JSON body POST takes, typed by
 * the algorithm's parameter table, and goes through the same parsing,
 * limits and queue. Also the SVG options, read from the query of both. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/exchange.h"
#include "api/levels.h"
#include "api/respond.h"
#include "state/level_request.h"

static bool is_svg_option(const char *name) {
  return strcmp(name, "svg_graph") == 0 || strcmp(name, "svg_labels") == 0 ||
         strcmp(name, "svg_tile") == 0;
}

typedef struct collect {
  json_t *pairs;      /* name -> string value, in query order */
  char duplicate[64]; /* the first name given twice, or "" */
} collect;

static bool collect_pair(void *data, const char *key, const char *value) {
  collect *c = data;
  if (json_object_get(c->pairs, key) != NULL && c->duplicate[0] == '\0')
    snprintf(c->duplicate, sizeof c->duplicate, "%s", key);
  json_object_set_new(c->pairs, key, json_string(value));
  return true;
}

/* Parses the whole of `text` as a decimal integer. */
static bool whole_integer(const char *text, long long *value) {
  if (text[0] == '\0')
    return false;
  char *end = NULL;
  errno = 0;
  *value = strtoll(text, &end, 10);
  return errno == 0 && *end == '\0';
}

/* A query value as the JSON type the parameter table expects, so that the
 * request parser checks it exactly as it checks a POST body; text that is
 * not of that type stays a string and is refused with the usual message. */
static json_t *typed_value(const dg_param_def *def, const char *text) {
  long long integer;
  char *end = NULL;
  if (def != NULL) {
    switch (def->type) {
    case DG_PARAM_INT:
      if (whole_integer(text, &integer))
        return json_integer(integer);
      break;
    case DG_PARAM_FLOAT: {
      double number = strtod(text, &end);
      if (text[0] != '\0' && *end == '\0')
        return json_real(number);
      break;
    }
    case DG_PARAM_BOOL:
      if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
        return json_true();
      if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
        return json_false();
      break;
    default: break;
    }
  }
  return json_string(text);
}

int level_svg_query(request *r) {
  const char *names[3] = {"svg_graph", "svg_labels", "svg_tile"};
  for (int i = 0; i < 3; i++) {
    const char *value = http_query(r, names[i]);
    if (value == NULL)
      continue;
    dg_error err;
    long long number = 0;
    if (i < 2) {
      bool on = strcmp(value, "true") == 0 || strcmp(value, "1") == 0;
      bool off = strcmp(value, "false") == 0 || strcmp(value, "0") == 0;
      if (!on && !off) {
        dg_error_set(&err, DG_EINVAL, names[i], "%s must be true or false (or 1 or 0)", names[i]);
        respond_error(r, &err);
        return err.code;
      }
      if (i == 0)
        exchange_of(r)->svg.graph = on;
      else
        exchange_of(r)->svg.labels = on;
    } else {
      if (!whole_integer(value, &number) || number < DG_SVG_TILE_MIN || number > DG_SVG_TILE_MAX) {
        dg_error_set(&err, DG_EINVAL, names[i], "svg_tile must be an integer from %d to %d",
                     DG_SVG_TILE_MIN, DG_SVG_TILE_MAX);
        respond_error(r, &err);
        return err.code;
      }
      exchange_of(r)->svg.tile_size = (int)number;
    }
  }
  return 0;
}

json_t *level_query_body(request *r, dg_error *err) {
  collect c = {.pairs = json_object()};
  json_t *body = json_object(), *params = json_object();
  json_t *result = NULL;
  if (c.pairs == NULL || body == NULL || params == NULL) {
    dg_error_set(err, DG_ENOMEM, "", "out of memory");
    goto done;
  }
  http_query_each(r, collect_pair, &c);
  if (c.duplicate[0] != '\0') {
    dg_error_set(err, DG_EINVAL, c.duplicate, "%s is given more than once", c.duplicate);
    goto done;
  }
  const char *algorithm_name = json_string_value(json_object_get(c.pairs, "algorithm"));
  const dg_algorithm *algorithm =
      algorithm_name != NULL ? dg_algorithm_find(algorithm_name) : dg_algorithm_default();
  const char *key;
  json_t *value;
  json_object_foreach(c.pairs, key, value) {
    const char *text = json_string_value(value);
    long long number;
    if (is_svg_option(key))
      continue;
    if (strcmp(key, "seed") == 0 || strcmp(key, "deadline_ms") == 0 || strcmp(key, "floors") == 0) {
      /* Numbers when they are; a seed above 2^63 stays a decimal string,
       * which the seed parser takes too. */
      json_object_set_new(body, key,
                          whole_integer(text, &number) ? json_integer(number) : json_string(text));
    } else if (level_member_allowed(key, LEVEL_MEMBER_QUERY)) {
      json_object_set(body, key, value);
    } else {
      int index = algorithm != NULL ? dg_algorithm_param_index(algorithm, key) : -1;
      json_object_set_new(params, key,
                          typed_value(index >= 0 ? &algorithm->params[index] : NULL, text));
    }
  }
  if (json_object_size(params) > 0)
    json_object_set(body, "params", params);
  result = json_incref(body);
done:
  json_decref(c.pairs);
  json_decref(body);
  json_decref(params);
  return result;
}
