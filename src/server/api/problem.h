/* Problem answers (RFC 9457), built without I/O: the one table that turns
 * an error code into an HTTP status, the body of a problem, and the one
 * draining answer. Every error the daemon reports over HTTP carries a code
 * (the library's DG_E*, or one of the daemon's below) and its status comes
 * from problem_of(), so one failure has one status wherever it happens.
 * Pure functions: thread-safe, no state. */
#ifndef DUNGEOND_PROBLEM_H
#define DUNGEOND_PROBLEM_H

#include <stddef.h>

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "state/errors.h"
#include "transport/problem_body.h"

/* What an error code becomes on the wire. */
typedef struct problem_kind {
  int status;        /* HTTP status */
  const char *slug;  /* type is urn:dungeond:problem:<slug> */
  const char *title; /* short, the same for every problem of the kind */
} problem_kind;

/* The kind of problem for `code` (0 is not an error: 500). Unknown codes
 * are validation errors (422), the status of a request the library refused
 * as outside its ranges. */
problem_kind problem_of(int code);

/* The {field, message} list of `err`, or NULL when it names no field. New
 * reference. */
json_t *problem_errors(const dg_error *err);

#endif
