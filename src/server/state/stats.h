/* The daemon's statistics: plain counters and histograms owned by the loop
 * thread (no locks, as in Redis), served as JSON (/v1/stats) and as
 * Prometheus text format 0.0.4 (/metrics, every name prefixed dungeond_,
 * base units: seconds and bytes). */
#ifndef DUNGEOND_STATS_H
#define DUNGEOND_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state/process.h"
#include "transport/transport.h"

#define STATS_BUCKETS 15     /* finite histogram buckets; +Inf is extra */
#define STATS_SAMPLES 1024   /* recent latencies kept per algorithm for percentiles */
#define STATS_ALGORITHMS 16  /* distinct algorithms tracked */
#define STATS_STATUS_MAX 600 /* HTTP status codes counted: 0..599 */

typedef struct histogram {
  uint64_t counts[STATS_BUCKETS + 1]; /* per bucket (not cumulative); last is +Inf */
  uint64_t count;                     /* observations */
  double sum;                         /* sum of observations, seconds */
} histogram;

/* What became of a request, from its status: the client's mistake is not
 * the daemon's failure, and a refusal by a limit or a deadline is neither. */
typedef enum stats_outcome {
  OUTCOME_OK,           /* 1xx-3xx */
  OUTCOME_CLIENT_ERROR, /* 4xx (and 499, the client left) */
  OUTCOME_SERVER_ERROR, /* 5xx but 503 and 504 */
  OUTCOME_TIMEOUT,      /* 504: deadline_ms ran out */
  OUTCOME_REJECTED,     /* 503: a queue, a budget or the drain refused it */
  OUTCOME_COUNT
} stats_outcome;

extern const char *const stats_outcome_names[OUTCOME_COUNT];

/* The outcome of an answer with `status`. */
stats_outcome stats_outcome_of(int status);

/* Route labels: the route table's templates, so that the label's values are
 * a fixed set whatever paths clients send ("other": no route matched). */
#define STATS_ROUTES 16
extern const char *const stats_route_names[STATS_ROUTES];
/* Method labels: the methods the API knows (OPTIONS: CORS preflights),
 * "other" for the rest. */
#define STATS_METHODS 7
extern const char *const stats_method_names[STATS_METHODS];

typedef struct algorithm_stats {
  const char *name;                 /* static algorithm name */
  uint64_t requests;                /* POST /v1/levels answered for it */
  uint64_t outcomes[OUTCOME_COUNT]; /* of which, by outcome */
  histogram generation;             /* generation seconds (the worker's, without serialisation) */
  histogram serialisation;          /* serialisation seconds */
  double samples[STATS_SAMPLES];    /* recent request latencies, ms, ring */
  int sample_next, sample_count;    /* ring position and fill */
} algorithm_stats;

typedef struct stats {
  uint64_t start_ns;                              /* monotonic start time */
  uint64_t by_status[STATS_STATUS_MAX];           /* responses by status code */
  histogram request[STATS_ROUTES][STATS_METHODS]; /* total seconds by route and method */
  uint64_t by_outcome[OUTCOME_COUNT];             /* every response by outcome */
  histogram queue_wait;                           /* seconds jobs spent queued */
  algorithm_stats algorithms[STATS_ALGORITHMS];
  int algorithm_count;
  uint64_t rejected_queue_full;     /* 503: interactive queue full */
  uint64_t rejected_client_busy;    /* 429: a client's queued work over its bound */
  uint64_t rejected_client_lobbies; /* 429: a client's lobbies over its bound */
  uint64_t rejected_draining;       /* 503: shutting down */
  uint64_t deadline_exceeded;       /* 504 */
  uint64_t clients_gone;            /* queued jobs dropped: client left */
  uint64_t body_bytes_out;          /* response body bytes sent */
} stats;

/* Live figures the loop reads when it renders stats. */
typedef struct stats_gauges {
  const http_counters *transport;          /* the transport's refusals and connection events */
  long interactive_depth, interactive_max; /* queued jobs and the limit */
  long speculative_depth, speculative_max;
  int workers, workers_busy;   /* interactive workers; jobs running */
  int speculative_busy;        /* of those jobs, speculative ones */
  bool speculative_idle;       /* speculative jobs run at idle priority on threads of their own */
  const char *heavy_priority;  /* heavy interactive jobs: "lowered", "shared" or "off" */
  const char *time_slices;     /* "custom", "refused" (by the kernel) or "off" (both keys 0) */
  uint64_t pauses, paused_ns;  /* heavy jobs' pauses for light ones (give_way.h) */
  uint64_t speculative_reruns; /* promoted jobs run again (their thread could not be raised) */
  long connections;            /* open HTTP connections */
  long health_connections;     /* open connections on the health listener */
  long send_queue_bytes;       /* response bytes queued to clients, not yet sent */
  bool draining;               /* SIGTERM received */
  long lobbies;                /* lobbies alive */
  uint64_t lobby_hits, lobby_waits, lobby_misses;          /* start outcomes */
  uint64_t lobby_superseded, lobby_expired, lobby_evicted; /* speculative work lost */
  uint64_t lobby_jobs;                                     /* speculative jobs started */
  double lobby_saved_s;                                    /* generation seconds saved by hits */
  long lobby_ready_bytes;                                  /* bytes of ready pre-generated levels */
  long lobby_bytes, lobby_bytes_max; /* all lobby state (limits.lobby_bytes_max) and its limit */
  process_figures process;           /* CPU, memory, descriptors (/metrics only) */
  uint64_t config_generation;        /* configuration reloads applied (SIGHUP) */
  uint64_t reloads_ok, reloads_failed;
  unsigned long long log_write_failures; /* log lines that could not be written */
} stats_gauges;

void stats_init(stats *counters);

/* One finished request. `route` is one of stats_route_names (NULL:
 * "other"); `algorithm` is NULL for requests that did not name a known
 * algorithm; the job's seconds are < 0 when the request made no job. */
typedef struct stats_observation {
  int status;
  double total_s;
  const char *route, *method;
  const char *algorithm;
  double queue_s, generation_s, serialise_s;
  size_t body_bytes;
} stats_observation;

/* Records one finished request (loop thread). */
void stats_record(stats *counters, const stats_observation *o);

/* JSON and Prometheus renderings. Each returns a malloc'd NUL-terminated
 * text the caller frees, and its length in *length; NULL on ENOMEM. */
char *stats_json(const stats *counters, const stats_gauges *g, size_t *length);
char *stats_prometheus(const stats *counters, const stats_gauges *g, size_t *length);

/* The q-quantile (0..1) of the ring samples; 0 when empty. Exposed for
 * tests. `scratch` holds at least `count` doubles. */
double stats_quantile(const double *samples, int count, double q, double *scratch);

#endif
