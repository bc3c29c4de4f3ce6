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
#include "transport/problem_body.h"
#include "transport/transport.h"

/* The daemon's own error codes, below the library's (dungeon/error.h ends
 * at -10), for conditions only a service has. */
enum {
  SRV_EDRAINING = -101,       /* the daemon is shutting down: 503, retry elsewhere */
  SRV_EQUEUE_FULL = -102,     /* the interactive queue is full (interactive_queue_max): 503 */
  SRV_ELOBBIES = -103,        /* limits.lobbies_max lobbies exist: 503 */
  SRV_ELOBBY_BYTES = -104,    /* lobby state would not fit limits.lobby_bytes_max: 503 */
  SRV_EGONE = -105,           /* the lobby a start waited on was disbanded or expired: 409 */
  SRV_ESYSTEM = HTTP_ESYSTEM, /* the operating system refused (socket, epoll): start-up only */
};

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
