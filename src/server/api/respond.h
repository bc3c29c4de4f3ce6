/* The answers every route builds the same way, over http_respond: JSON,
 * problem+json, an error through the one error->status table (problem.h),
 * and the draining 503. Loop thread. */
#ifndef DUNGEOND_RESPOND_H
#define DUNGEOND_RESPOND_H

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "transport/http.h"

/* One answer with at most one extra header (`header_name` NULL: none).
 * `body` is malloc'd and taken. */
void respond(request *r, int status, const char *content_type, char *body, size_t length,
             const char *header_name, const char *header_value);

/* `value` (taken) as compact JSON. */
void respond_json(request *r, int status, json_t *value);

/* An RFC 9457 problem: `errors` (taken, may be NULL) is the list of
 * {field, message}; `header_*` adds one header (Allow, WWW-Authenticate) or
 * NULL. */
void respond_problem(request *r, int status, const char *slug, const char *title,
                     const char *detail, json_t *errors, const char *header_name,
                     const char *header_value);

/* The problem for `err`: status, type and title from err->code
 * (problem_of), detail the message, errors the field when it names one. */
void respond_error(request *r, const dg_error *err);

/* 500: memory ran out while handling `r` (DG_ENOMEM through the table). */
void respond_out_of_memory(request *r);

/* 503 + Retry-After: the daemon is draining. Counts the refusal. */
void respond_draining(request *r);

#endif
