/* What the routes keep per request beside the transport's request: the
 * level negotiation (format, encoding, SVG options), and what the answer's
 * headers, the stats and the log line report (job timings, algorithm,
 * seed, pre-generation outcome). It lives in the request's `data` (the
 * transport allocates it with the request, zeroed), and the transport
 * reaches it only through the hooks below. Loop thread. */
#ifndef DUNGEOND_EXCHANGE_H
#define DUNGEOND_EXCHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "server.h"

typedef struct exchange {
  bool has_job;                                 /* a generation job ran for it */
  double queue_ms, generation_ms, serialise_ms; /* when has_job */
  uint64_t queued_ns;                           /* when has_job: the job entered its queue */
  const char *algorithm;                        /* static name, for stats and the log */
  const char *route;                            /* a stats_route_names entry; NULL: "other" */
  uint64_t seed;                                /* the level's seed, for the log */
  const char *pregen;                           /* X-Pregen: hit, wait, miss; NULL otherwise */
  int format;                                   /* JOB_FORMAT_*, -1: none acceptable */
  job_encoding encoding;                        /* gzip, ETag and cacheability of a level */
  dg_svg_options svg;                           /* SVG options from the query */
  dg_view view; /* `view` from the body or the query (level_view_query); DG_VIEW_DEFAULT without */
  char timing[160]; /* Server-Timing's value, when has_job */
  uint64_t client;  /* who asked, for fairness: its bearer token when tokens are set, else its
                       IPv4 address (routes.c) */
  job_audit audit;  /* POST /v1/audit: the seeds to run (audit.c); seeds 0 otherwise */
} exchange;

/* The route state of `r`. */
static inline exchange *exchange_of(request *r) {
  return r->data;
}

/* The server `r` came to. */
static inline server *server_of(const request *r) {
  return r->transport->data;
}

/* The transport's hooks (http.h): every answer's Server-Timing and
 * X-Pregen headers, and a completed request's stats and log members. */
int exchange_answer_headers(const request *r, const char **names, const char **values);

/* The request's Origin when cors_allowed_origins allows it (borrowed from
 * the request), else NULL: CORS headers go on answers to it (issue 21). */
const char *exchange_cors_origin(const request *r);
void exchange_completed(request *r, json_line *line);

#endif
