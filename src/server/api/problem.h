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

/* The daemon's own error codes, below the library's (dungeon/error.h ends
 * at -10), for conditions only a service has. */
enum {
  SRV_EDRAINING = -101,       /* the daemon is shutting down: 503, retry elsewhere */
  SRV_EQUEUE_FULL = -102,     /* the interactive queue is full (interactive_queue_max): 503 */
  SRV_ELOBBIES = -103,        /* limits.lobbies_max lobbies exist: 503 */
  SRV_ELOBBY_BYTES = -104,    /* lobby state would not fit limits.lobby_bytes_max: 503 */
  SRV_EGONE = -105,           /* the lobby a start waited on was disbanded or expired: 409 */
  SRV_ESYSTEM = -106,         /* the operating system refused (socket, epoll): start-up only */
  SRV_ECLIENT_BUSY = -107,    /* this client has limits.client_queued_cost_max queued: 429 */
  SRV_ECLIENT_LOBBIES = -108, /* this client made limits.lobbies_per_client_max lobbies: 429 */
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

/* The one draining answer: every request refused because of a drain, by
 * libmicrohttpd's path or written straight to a socket at the drain
 * timeout, says this. */
#define PROBLEM_DRAINING_SLUG "draining"
#define PROBLEM_DRAINING_TITLE "Shutting down"
#define PROBLEM_DRAINING_DETAIL "the daemon is shutting down; retry elsewhere"

/* The JSON text of a problem: type, title, status, detail, then instance
 * and request_id unless NULL and, when `errors` (borrowed, may be NULL) is
 * set, the list of {field, message}. Returns malloc'd text (*length its size) or NULL
 * when out of memory. */
char *problem_body(int status, const char *slug, const char *title, const char *detail,
                   const char *instance, const char *request_id, const json_t *errors,
                   size_t *length);

/* The {field, message} list of `err`, or NULL when it names no field. New
 * reference. */
json_t *problem_errors(const dg_error *err);

#endif
