/* The body of an RFC 9457 problem answer, built without I/O. The
 * transport writes problems of its own (413, 414, 408, the drain's 503) and
 * the routes theirs (api/problem.h has the error table), in one format. */
#ifndef DUNGEOND_PROBLEM_BODY_H
#define DUNGEOND_PROBLEM_BODY_H

#include <stddef.h>

#include <jansson.h>

/* The one draining answer: every request refused because of a drain, by
 * libmicrohttpd's path or written straight to a socket at the drain
 * timeout, says this. */
#define PROBLEM_DRAINING_SLUG "draining"
#define PROBLEM_DRAINING_TITLE "Shutting down"
#define PROBLEM_DRAINING_DETAIL "the daemon is shutting down; retry elsewhere"

/* The JSON text of a problem: type, title, status, detail, then instance
 * and request_id unless NULL and, when `errors` (borrowed, may be NULL) is
 * set, the list of {field, message}. Returns malloc'd text (*length its size) or NULL
 * when out of memory. Pure: thread-safe. */
char *problem_body(int status, const char *slug, const char *title, const char *detail,
                   const char *instance, const char *request_id, const json_t *errors,
                   size_t *length);

#endif
