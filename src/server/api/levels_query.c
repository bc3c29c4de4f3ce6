/* GET /v1/levels: the same levels as POST, asked for in the URL, so that a
 * browser, an <img src>, a CDN or a shared cache can fetch and keep them
 * (docs/pictures.md). The query becomes the JSON body POST takes, typed by
 * the algorithm's parameter table, and goes through the same parsing,
 * limits and queue. Also the SVG options, read from the query of both. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/exchange.h"
#include "api/levels.h"
#include "api/respond.h"
#include "state/level_request.h"

/* Query names that are options of the answer, not of the level. */
static bool is_svg_option(const char *name) {
  return strcmp(name, "view") == 0 || strcmp(name, "svg_graph") == 0 ||
         strcmp(name, "svg_labels") == 0 || strcmp(name, "svg_tile") == 0 ||
         strcmp(name, "storey") == 0;
}

typedef struct collect {
  json_t *pairs;      /* name -> string value, in query order */
  char duplicate[64]; /* the first name given twice, or "" */
  bool failed;        /* out of memory */
} collect;

/* `text` as a JSON string; bytes that are not UTF-8 (`width=%FF`) shown as
 * %XX, so that the value reaches the request parser, which refuses it
 * naming the parameter, instead of vanishing (jansson takes only UTF-8,
 * and a dropped pair meant the default and a cacheable 200). */
static json_t *query_string(const char *text) {
  json_t *string = json_string(text);
  if (string != NULL)
    return string;
  size_t length = strlen(text);
  char *shown = malloc(length * 3 + 1);
  if (shown == NULL)
    return NULL;
  size_t at = 0;
  for (const unsigned char *in = (const unsigned char *)text; *in != '\0'; in++)
    at += (size_t)(*in < 0x80 ? snprintf(shown + at, 4, "%c", *in)
                              : snprintf(shown + at, 4, "%%%02X", *in));
  string = json_string(shown);
  free(shown);
  return string;
}

static bool collect_pair(void *data, const char *key, const char *value) {
  collect *c = data;
  json_t *name = query_string(key);
  json_t *text = query_string(value != NULL ? value : "");
  const char *name_text = json_string_value(name);
  if (name_text == NULL || text == NULL) {
    c->failed = true;
  } else {
    if (json_object_get(c->pairs, name_text) != NULL && c->duplicate[0] == '\0')
      snprintf(c->duplicate, sizeof c->duplicate, "%s", name_text);
    if (json_object_set(c->pairs, name_text, text) != 0)
      c->failed = true;
  }
  json_decref(name);
  json_decref(text);
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
      /* "nan", "inf" and "1e999" parse, but JSON has no such number (and
       * json_real refuses them): they stay text, refused as not a number. */
      double number = strtod(text, &end);
      if (text[0] != '\0' && *end == '\0' && isfinite(number))
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

int level_view_query(request *r, json_t *body) {
  const json_t *member = body != NULL ? json_object_get(body, "view") : NULL;
  const char *value = member != NULL ? json_string_value(member) : http_query(r, "view");
  int rc = 0;
  if (member == NULL && value == NULL)
    return 0;
  dg_view view;
  if (value == NULL || dg_view_parse(value, &view) != 0) {
    dg_error err;
    rc = dg_error_set(&err, DG_EINVAL, "view", "view must be one of " DG_VIEW_CHOICES);
    respond_error(r, &err);
  } else {
    exchange_of(r)->view = view;
  }
  if (member != NULL)
    json_object_del(body, "view");
  return rc;
}

int level_svg_query(request *r) {
  const char *storey = http_query(r, "storey");
  if (storey != NULL && dg_svg_storey_parse(storey, &exchange_of(r)->svg) != 0) {
    dg_error err;
    dg_error_set(&err, DG_EINVAL, "storey",
                 "storey must be a storey's height (an integer from %d to %d), all or flat",
                 -DG_SVG_STOREY_LIMIT, DG_SVG_STOREY_LIMIT);
    respond_error(r, &err);
    return err.code;
  }
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
  if (c.failed) {
    dg_error_set(err, DG_ENOMEM, "", "out of memory");
    goto done;
  }
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
    int set;
    if (strcmp(key, "seed") == 0 || strcmp(key, "deadline_ms") == 0 || strcmp(key, "floors") == 0) {
      /* Numbers when they are; a seed above 2^63 stays a decimal string,
       * which the seed parser takes too. */
      set = json_object_set_new(
          body, key, whole_integer(text, &number) ? json_integer(number) : json_string(text));
    } else if (level_member_allowed(key, LEVEL_MEMBER_QUERY)) {
      set = json_object_set(body, key, value);
    } else {
      int index = algorithm != NULL ? dg_algorithm_param_index(algorithm, key) : -1;
      set = json_object_set_new(params, key,
                                typed_value(index >= 0 ? &algorithm->params[index] : NULL, text));
    }
    /* Every value is a valid string by now: a failure is memory. */
    if (set != 0) {
      dg_error_set(err, DG_ENOMEM, "", "out of memory");
      goto done;
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
