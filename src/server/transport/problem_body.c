/* See problem_body.h. */
#include "transport/problem_body.h"

#include <stdio.h>
#include <string.h>

#include "transport/json_text.h"

char *problem_body(int status, const char *slug, const char *title, const char *detail,
                   const char *instance, const char *request_id, const json_t *errors,
                   size_t *length) {
  char type[96];
  snprintf(type, sizeof type, "urn:dungeond:problem:%s", slug);
  json_t *problem = json_pack("{s:s, s:s, s:i, s:s}", "type", type, "title", title, "status",
                              status, "detail", detail);
  if (problem != NULL && instance != NULL)
    json_object_set_new(problem, "instance", json_string(instance));
  if (problem != NULL && request_id != NULL)
    json_object_set_new(problem, "request_id", json_string(request_id));
  if (problem != NULL && errors != NULL)
    json_object_set(problem, "errors", (json_t *)errors);
  char *text = problem != NULL ? json_text(problem, NULL) : NULL;
  json_decref(problem);
  *length = text != NULL ? strlen(text) : 0;
  return text;
}
