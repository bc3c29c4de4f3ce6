/* The level resources: POST and GET /v1/levels (levels.c, levels_query.c)
 * and the answer shapes shared with lobby starts (level_response.c). Loop
 * thread. */
#ifndef DUNGEOND_LEVELS_H
#define DUNGEOND_LEVELS_H

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "state/jobs.h"
#include "transport/http.h"

/* /v1/levels: GET, HEAD or POST (the route checked the method). */
void levels_handle(request *r);

/* GET /v1/levels/{level_id} (issue 21, item 3): the level a level id
 * names, regenerated here from its signed canonical request, byte for byte
 * what any replica sharing the key answers (same ETag). 400 for a
 * malformed or truncated id, 404 for one this deployment did not sign,
 * 410 naming the version for one another version made. */
void level_by_id_handle(request *r, const char *level_id);

/* The level routes' answer: a body JSON object (POST) or one built from
 * the query (GET) is parsed, validated and submitted. `body` is borrowed. */
void level_handle_body(request *r, json_t *body);

/* Queues `level` (floors > 1: a multi-floor set) as an interactive job for
 * `r` and suspends `r` until it ends (or answers 503 when the queue is
 * full). */
void level_submit(request *r, const dg_request *level, int floors, long deadline_ms, int format);

/* level_response.c: fills the exchange's format, encoding (from the
 * config) and svg (defaults) from the request's headers; returns the format
 * (JOB_FORMAT_*, -1 when nothing acceptable). */
int level_negotiate(request *r);
/* The answer to a finished level job: Vary, Content-Encoding, ETag and
 * Cache-Control as negotiated, 304 when If-None-Match matches. Takes the
 * job's body. */
void level_respond(request *r, job *j);
/* A lobby's pre-generated level JSON (`body` malloc'd, taken), sent as
 * stored: uncompressed, with Vary and Cache-Control: no-store. */
void level_respond_stored(request *r, char *body, size_t length);
/* 406 with a problem listing the media types levels are served as. */
void level_not_acceptable(request *r);

/* levels_query.c: GET /v1/levels?algorithm=..&seed=..&NAME=VALUE: the
 * query becomes the body POST takes (a new reference), or NULL with `err`
 * (a name given twice, out of memory). svg_graph, svg_labels and svg_tile
 * set SVG options (for POST too): level_svg_query answers 422 itself and
 * returns DG_EINVAL when one is malformed. */
json_t *level_query_body(request *r, dg_error *err);
int level_svg_query(request *r);

/* `view` (full or client, docs/level-format.md "The client view") from the
 * member of `body` (may be NULL; the member is removed, so the level
 * request never sees it) or else the query, into the exchange; left as it
 * is when neither names one. 0, or DG_EINVAL after answering 422 naming
 * `view` and the values it takes. */
int level_view_query(request *r, json_t *body);

#endif
