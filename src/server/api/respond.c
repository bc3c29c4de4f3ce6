/* See respond.h. */
#include "api/respond.h"

#include <string.h>

#include "api/exchange.h"
#include "api/problem.h"
#include "server.h"
#include "transport/json_text.h"

void respond(request *r, int status, const char *content_type, char *body, size_t length,
             const char *header_name, const char *header_value) {
  const char *headers[3] = {header_name, header_value, NULL};
  http_respond(r, status, content_type, body, length, headers);
}

void respond_json(request *r, int status, json_t *value) {
  char *text = value != NULL ? json_text(value, NULL) : NULL;
  json_decref(value);
  respond(r, status, "application/json", text, text != NULL ? strlen(text) : 0, NULL, NULL);
}

void respond_problem(request *r, int status, const char *slug, const char *title,
                     const char *detail, json_t *errors, const char *header_name,
                     const char *header_value) {
  size_t length = 0;
  char *text = problem_body(status, slug, title, detail, r->path, r->id, errors, &length);
  json_decref(errors);
  respond(r, status, "application/problem+json", text, length, header_name, header_value);
}

void respond_error(request *r, const dg_error *err) {
  problem_kind kind = problem_of(err->code);
  respond_problem(r, kind.status, kind.slug, kind.title, err->message, problem_errors(err), NULL,
                  NULL);
}

void respond_out_of_memory(request *r) {
  dg_error err;
  dg_error_set(&err, DG_ENOMEM, "", "out of memory");
  respond_error(r, &err);
}

void respond_draining(request *r) {
  server_of(r)->counters.rejected_draining++;
  respond_problem(r, 503, PROBLEM_DRAINING_SLUG, PROBLEM_DRAINING_TITLE, PROBLEM_DRAINING_DETAIL,
                  NULL, NULL, NULL);
}
