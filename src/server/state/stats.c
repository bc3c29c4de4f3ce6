/* Counters, histograms and their two renderings. Everything here runs on
 * the loop thread. Histogram buckets are fixed (0.5 ms to 10 s) so that
 * Prometheus can aggregate replicas; the percentiles of /v1/stats come from
 * the last STATS_SAMPLES latencies per algorithm, exactly. */
#include "state/stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "transport/json_text.h"

static const double bucket_bounds[STATS_BUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

const char *const stats_outcome_names[OUTCOME_COUNT] = {"ok", "client_error", "server_error",
                                                        "timeout", "rejected"};
const char *const stats_route_names[STATS_ROUTES] = {"/v1/levels",
                                                     "/v1/levels/{level_id}",
                                                     "/v1/audit",
                                                     "/v1/{map}/" DG_TILED_TILESET_IMAGE,
                                                     "/v1/algorithms",
                                                     "/v1/stats",
                                                     "/metrics",
                                                     "/livez",
                                                     "/readyz",
                                                     "/v1/roomsets",
                                                     "/v1/tables",
                                                     "/v1/lobbies/{lobby}",
                                                     "/v1/lobbies/{lobby}/players/{player}",
                                                     "/v1/lobbies/{lobby}/start",
                                                     "/",
                                                     "other"};
const char *const stats_method_names[STATS_METHODS] = {"GET",    "HEAD",    "POST", "PUT",
                                                       "DELETE", "OPTIONS", "other"};

stats_outcome stats_outcome_of(int status) {
  if (status == 503)
    return OUTCOME_REJECTED;
  if (status == 504)
    return OUTCOME_TIMEOUT;
  if (status >= 500)
    return OUTCOME_SERVER_ERROR;
  if (status >= 400)
    return OUTCOME_CLIENT_ERROR;
  return OUTCOME_OK;
}

/* The index of `name` in `names` (the last one, "other", when absent). */
static int label_index(const char *const *names, int count, const char *name) {
  for (int i = 0; name != NULL && i < count - 1; i++)
    if (strcmp(names[i], name) == 0)
      return i;
  return count - 1;
}

void stats_init(stats *counters) {
  memset(counters, 0, sizeof *counters);
  counters->start_ns = dg_monotonic_ns();
}

static void observe(histogram *h, double seconds) {
  int bucket = 0;
  while (bucket < STATS_BUCKETS && seconds > bucket_bounds[bucket])
    bucket++;
  h->counts[bucket]++;
  h->count++;
  h->sum += seconds;
}

static algorithm_stats *algorithm_slot(stats *counters, const char *name) {
  for (int i = 0; i < counters->algorithm_count; i++)
    if (strcmp(counters->algorithms[i].name, name) == 0)
      return &counters->algorithms[i];
  if (counters->algorithm_count == STATS_ALGORITHMS)
    return NULL;
  algorithm_stats *slot = &counters->algorithms[counters->algorithm_count++];
  slot->name = name;
  return slot;
}

void stats_record(stats *counters, const stats_observation *o) {
  if (o->status >= 0 && o->status < STATS_STATUS_MAX)
    counters->by_status[o->status]++;
  stats_outcome outcome = stats_outcome_of(o->status);
  counters->by_outcome[outcome]++;
  int route = label_index(stats_route_names, STATS_ROUTES, o->route);
  int method = label_index(stats_method_names, STATS_METHODS, o->method);
  observe(&counters->request[route][method], o->total_s);
  counters->body_bytes_out += o->body_bytes;
  if (o->queue_s >= 0)
    observe(&counters->queue_wait, o->queue_s);
  if (o->algorithm == NULL)
    return;
  algorithm_stats *slot = algorithm_slot(counters, o->algorithm);
  if (slot == NULL)
    return;
  slot->requests++;
  slot->outcomes[outcome]++;
  if (o->generation_s >= 0)
    observe(&slot->generation, o->generation_s);
  if (o->serialise_s >= 0)
    observe(&slot->serialisation, o->serialise_s);
  slot->samples[slot->sample_next] = o->total_s * 1000.0;
  slot->sample_next = (slot->sample_next + 1) % STATS_SAMPLES;
  if (slot->sample_count < STATS_SAMPLES)
    slot->sample_count++;
}

/* {"ok": n, "client_error": n, ...} */
static json_t *outcomes_json(const uint64_t counts[OUTCOME_COUNT]) {
  json_t *o = json_object();
  for (int i = 0; o != NULL && i < OUTCOME_COUNT; i++)
    json_object_set_new(o, stats_outcome_names[i], json_integer((json_int_t)counts[i]));
  return o;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double stats_quantile(const double *samples, int count, double q, double *scratch) {
  if (count <= 0)
    return 0;
  memcpy(scratch, samples, (size_t)count * sizeof *samples);
  qsort(scratch, (size_t)count, sizeof *scratch, by_value);
  /* Nearest rank: the smallest sample with at least q of them at or below. */
  int rank = (int)(q * count + 0.999999);
  if (rank < 1)
    rank = 1;
  if (rank > count)
    rank = count;
  return scratch[rank - 1];
}

static double uptime_s(const stats *counters) {
  return (double)(dg_monotonic_ns() - counters->start_ns) / 1e9;
}

/* Per algorithm: requests, outcomes, latency quantiles, mean generation
 * and serialisation times; NULL when out of memory. */
static json_t *algorithms_json(const stats *counters) {
  json_t *algorithms = json_object();
  double scratch[STATS_SAMPLES];
  for (int i = 0; algorithms != NULL && i < counters->algorithm_count; i++) {
    const algorithm_stats *a = &counters->algorithms[i];
    json_object_set_new(
        algorithms, a->name,
        json_pack(
            "{s:I, s:o, s:{s:f, s:f, s:f}, s:f, s:f}", "requests", (json_int_t)a->requests,
            "outcomes", outcomes_json(a->outcomes), "latency_ms", "p50",
            stats_quantile(a->samples, a->sample_count, 0.50, scratch), "p90",
            stats_quantile(a->samples, a->sample_count, 0.90, scratch), "p99",
            stats_quantile(a->samples, a->sample_count, 0.99, scratch), "generation_ms_mean",
            a->generation.count ? a->generation.sum * 1000.0 / (double)a->generation.count : 0.0,
            "serialisation_ms_mean",
            a->serialisation.count ? a->serialisation.sum * 1000.0 / (double)a->serialisation.count
                                   : 0.0));
  }
  return algorithms;
}

/* Requests refused by each limit. */
static json_t *rejections_json(const stats *counters, const stats_gauges *g) {
  return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "queue_full",
                   (json_int_t)counters->rejected_queue_full, "draining",
                   (json_int_t)counters->rejected_draining, "too_large",
                   (json_int_t)g->transport->rejected_too_large, "deadline_exceeded",
                   (json_int_t)counters->deadline_exceeded, "clients_gone",
                   (json_int_t)counters->clients_gone, "send_queue_full",
                   (json_int_t)g->transport->rejected_send_queue, "client_busy",
                   (json_int_t)counters->rejected_client_busy, "client_lobbies",
                   (json_int_t)counters->rejected_client_lobbies);
}

/* Lobbies, their starts and the pre-generation cache. */
static json_t *lobbies_json(const stats_gauges *g) {
  return json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:I}", "active",
                   (int)g->lobbies, "hits", (json_int_t)g->lobby_hits, "waits",
                   (json_int_t)g->lobby_waits, "misses", (json_int_t)g->lobby_misses, "jobs",
                   (json_int_t)g->lobby_jobs, "superseded", (json_int_t)g->lobby_superseded,
                   "expired", (json_int_t)g->lobby_expired, "evicted", (json_int_t)g->lobby_evicted,
                   "generation_s_saved", g->lobby_saved_s, "ready_bytes",
                   (json_int_t)g->lobby_ready_bytes, "bytes", (json_int_t)g->lobby_bytes,
                   "bytes_max", (json_int_t)g->lobby_bytes_max);
}

char *stats_json(const stats *counters, const stats_gauges *g, size_t *length) {
  json_t *root = json_object(), *statuses = json_object(), *algorithms = algorithms_json(counters);
  char *text = NULL;
  if (root == NULL || statuses == NULL || algorithms == NULL)
    goto done;
  uint64_t total = 0;
  for (int code = 0; code < STATS_STATUS_MAX; code++) {
    if (counters->by_status[code] == 0)
      continue;
    char key[8];
    snprintf(key, sizeof key, "%d", code);
    json_object_set_new(statuses, key, json_integer((json_int_t)counters->by_status[code]));
    total += counters->by_status[code];
  }
  json_object_set_new(root, "version", json_string(DUNGEON_VERSION));
  json_object_set_new(root, "uptime_s", json_real(uptime_s(counters)));
  json_object_set_new(root, "draining", json_boolean(g->draining));
  json_object_set_new(root, "config",
                      json_pack("{s:I, s:I, s:I}", "generation", (json_int_t)g->config_generation,
                                "reloads", (json_int_t)g->reloads_ok, "reload_failures",
                                (json_int_t)g->reloads_failed));
  json_object_set_new(root, "requests",
                      json_pack("{s:I, s:O, s:o}", "total", (json_int_t)total, "by_status",
                                statuses, "by_outcome", outcomes_json(counters->by_outcome)));
  json_object_set(root, "algorithms", algorithms);
  json_object_set_new(root, "queues",
                      json_pack("{s:{s:i, s:i}, s:{s:i, s:i}}", "interactive", "depth",
                                (int)g->interactive_depth, "max", (int)g->interactive_max,
                                "speculative", "depth", (int)g->speculative_depth, "max",
                                (int)g->speculative_max));
  json_object_set_new(
      root, "workers",
      json_pack("{s:i, s:i, s:i, s:s, s:I, s:s, s:s, s:I, s:I}", "total", g->workers, "busy",
                g->workers_busy, "speculative_busy", g->speculative_busy, "speculative_priority",
                g->speculative_idle ? "idle" : "shared", "speculative_reruns",
                (json_int_t)g->speculative_reruns, "heavy_priority",
                g->heavy_priority != NULL ? g->heavy_priority : "off", "time_slices",
                g->time_slices != NULL ? g->time_slices : "off", "pauses", (json_int_t)g->pauses,
                "paused_ms", (json_int_t)(g->paused_ns / 1000000u)));
  json_object_set_new(root, "connections", json_integer(g->connections));
  json_object_set_new(root, "health_connections", json_integer(g->health_connections));
  json_object_set_new(root, "send_queue_bytes", json_integer(g->send_queue_bytes));
  json_object_set_new(root, "log_write_failures", json_integer((json_int_t)g->log_write_failures));
  json_t *events = json_object();
  for (int i = 0; events != NULL && i < CONN_EVENT_COUNT; i++)
    json_object_set_new(events, conn_event_names[i],
                        json_integer((json_int_t)g->transport->conn_events[i]));
  json_object_set_new(root, "connection_events", events);
  json_object_set_new(root, "rejections", rejections_json(counters, g));
  json_object_set_new(root, "lobbies", lobbies_json(g));
  text = json_text(root, length);
done:
  json_decref(statuses);
  json_decref(algorithms);
  json_decref(root);
  return text;
}

/* A growing text buffer for the Prometheus rendering. */
typedef struct text_buffer {
  char *data;
  size_t length, capacity;
  bool failed; /* an allocation failed: the text is incomplete */
} text_buffer;

__attribute__((format(printf, 2, 3))) static void append(text_buffer *b, const char *fmt, ...) {
  if (b->failed)
    return;
  for (;;) {
    va_list args;
    va_start(args, fmt);
    /* Before the first allocation data is NULL: NULL + 0 is undefined
     * behaviour (clang's UBSan, found by fuzz_lobby), vsnprintf(NULL, 0) is not. */
    int needed =
        vsnprintf(b->data != NULL ? b->data + b->length : NULL, b->capacity - b->length, fmt, args);
    va_end(args);
    if (needed < 0) {
      b->failed = true;
      return;
    }
    if (b->length + (size_t)needed < b->capacity) {
      b->length += (size_t)needed;
      return;
    }
    size_t capacity = (b->capacity + (size_t)needed + 1) * 2;
    char *grown = realloc(b->data, capacity);
    if (grown == NULL) {
      b->failed = true;
      return;
    }
    b->data = grown;
    b->capacity = capacity;
  }
}

static void append_histogram(text_buffer *b, const char *name, const char *labels,
                             const histogram *h) {
  uint64_t cumulative = 0;
  const char *sep = labels[0] ? "," : "";
  for (int i = 0; i < STATS_BUCKETS; i++) {
    cumulative += h->counts[i];
    append(b, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, bucket_bounds[i],
           (unsigned long long)cumulative);
  }
  cumulative += h->counts[STATS_BUCKETS];
  append(b, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)cumulative);
  if (labels[0]) {
    append(b, "%s_sum{%s} %.9g\n", name, labels, h->sum);
    append(b, "%s_count{%s} %llu\n", name, labels, (unsigned long long)h->count);
  } else {
    append(b, "%s_sum %.9g\n", name, h->sum);
    append(b, "%s_count %llu\n", name, (unsigned long long)h->count);
  }
}

/* The process_* families as Prometheus' client libraries write them
 * (no dungeond_ prefix: dashboards made for any process read them). */
static void append_process(text_buffer *b, const process_figures *p) {
  char cpu[JSON_REAL_TEXT_MAX], start[JSON_REAL_TEXT_MAX];
  json_real_text(p->cpu_seconds, cpu);
  json_real_text(p->start_time_s, start);
  if (p->known)
    append(b,
           "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
           "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %s\n"
           "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
           "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %.0f\n"
           "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
           "# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %.0f\n"
           "# HELP process_start_time_seconds Start time of the process since unix epoch in "
           "seconds.\n"
           "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %s\n",
           cpu, p->resident_bytes, p->virtual_bytes, start);
  if (p->open_fds >= 0)
    append(b,
           "# HELP process_open_fds Number of open file descriptors.\n"
           "# TYPE process_open_fds gauge\nprocess_open_fds %ld\n",
           p->open_fds);
  if (p->max_fds >= 0)
    append(b,
           "# HELP process_max_fds Maximum number of open file descriptors.\n"
           "# TYPE process_max_fds gauge\nprocess_max_fds %ld\n",
           p->max_fds);
}

/* The daemon's identity and state: build, uptime, draining, configuration reloads. */
static void append_daemon(text_buffer *b, const stats *counters, const stats_gauges *g) {
  append(b,
         "# HELP dungeond_build_info Version of dungeond and libdungeon; always 1.\n"
         "# TYPE dungeond_build_info gauge\n"
         "dungeond_build_info{version=\"%s\",libdungeon=\"%s\"} 1\n",
         DUNGEON_VERSION, dg_version());
  append(b,
         "# HELP dungeond_uptime_seconds Seconds since the daemon started.\n"
         "# TYPE dungeond_uptime_seconds gauge\ndungeond_uptime_seconds %.3f\n",
         uptime_s(counters));
  append(b,
         "# HELP dungeond_draining 1 after SIGTERM while the daemon drains.\n"
         "# TYPE dungeond_draining gauge\ndungeond_draining %d\n",
         g->draining ? 1 : 0);
  append(b,
         "# HELP dungeond_config_generation Configuration reloads applied since start (SIGHUP).\n"
         "# TYPE dungeond_config_generation gauge\ndungeond_config_generation %llu\n"
         "# HELP dungeond_config_reloads_total Configuration reloads by result.\n"
         "# TYPE dungeond_config_reloads_total counter\n"
         "dungeond_config_reloads_total{result=\"ok\"} %llu\n"
         "dungeond_config_reloads_total{result=\"failed\"} %llu\n",
         (unsigned long long)g->config_generation, (unsigned long long)g->reloads_ok,
         (unsigned long long)g->reloads_failed);
}

/* HTTP answers: by status, bytes sent, by outcome. */
static void append_http(text_buffer *b, const stats *counters) {
  append(b, "# HELP dungeond_http_requests_total HTTP responses by status code.\n"
            "# TYPE dungeond_http_requests_total counter\n");
  for (int code = 0; code < STATS_STATUS_MAX; code++)
    if (counters->by_status[code] != 0)
      append(b, "dungeond_http_requests_total{code=\"%d\"} %llu\n", code,
             (unsigned long long)counters->by_status[code]);
  append(b,
         "# HELP dungeond_http_response_bytes_total Response body bytes sent.\n"
         "# TYPE dungeond_http_response_bytes_total counter\n"
         "dungeond_http_response_bytes_total %llu\n",
         (unsigned long long)counters->body_bytes_out);
  append(b, "# HELP dungeond_http_responses_total HTTP responses by outcome.\n"
            "# TYPE dungeond_http_responses_total counter\n");
  for (int i = 0; i < OUTCOME_COUNT; i++)
    append(b, "dungeond_http_responses_total{outcome=\"%s\"} %llu\n", stats_outcome_names[i],
           (unsigned long long)counters->by_outcome[i]);
}

/* The latency histograms: per route and method, queue wait, generation and serialisation per
 * algorithm. */
static void append_durations(text_buffer *b, const stats *counters) {
  append(b, "# HELP dungeond_http_request_duration_seconds Time from first byte read to "
            "response queued, by route and method.\n"
            "# TYPE dungeond_http_request_duration_seconds histogram\n");
  for (int route = 0; route < STATS_ROUTES; route++)
    for (int method = 0; method < STATS_METHODS; method++) {
      /* Only pairs seen: most of the table never is (GET /v1/levels/start). */
      if (counters->request[route][method].count == 0)
        continue;
      char labels[96];
      snprintf(labels, sizeof labels, "route=\"%s\",method=\"%s\"", stats_route_names[route],
               stats_method_names[method]);
      append_histogram(b, "dungeond_http_request_duration_seconds", labels,
                       &counters->request[route][method]);
    }
  append(b, "# HELP dungeond_queue_wait_seconds Time generation jobs spent queued.\n"
            "# TYPE dungeond_queue_wait_seconds histogram\n");
  append_histogram(b, "dungeond_queue_wait_seconds", "", &counters->queue_wait);
  append(b, "# HELP dungeond_generation_duration_seconds Generation time per level, "
            "without serialisation.\n# TYPE dungeond_generation_duration_seconds histogram\n");
  for (int i = 0; i < counters->algorithm_count; i++) {
    char labels[80];
    snprintf(labels, sizeof labels, "algorithm=\"%s\"", counters->algorithms[i].name);
    append_histogram(b, "dungeond_generation_duration_seconds", labels,
                     &counters->algorithms[i].generation);
  }
  append(b, "# HELP dungeond_serialisation_duration_seconds Time to write a generated level "
            "in the format asked for.\n"
            "# TYPE dungeond_serialisation_duration_seconds histogram\n");
  for (int i = 0; i < counters->algorithm_count; i++) {
    char labels[80];
    snprintf(labels, sizeof labels, "algorithm=\"%s\"", counters->algorithms[i].name);
    append_histogram(b, "dungeond_serialisation_duration_seconds", labels,
                     &counters->algorithms[i].serialisation);
  }
}

/* Level answers by algorithm and outcome. */
static void append_levels(text_buffer *b, const stats *counters) {
  append(b, "# HELP dungeond_level_requests_total POST /v1/levels answers by algorithm "
            "and outcome.\n# TYPE dungeond_level_requests_total counter\n");
  for (int i = 0; i < counters->algorithm_count; i++)
    for (int o = 0; o < OUTCOME_COUNT; o++)
      append(b, "dungeond_level_requests_total{algorithm=\"%s\",outcome=\"%s\"} %llu\n",
             counters->algorithms[i].name, stats_outcome_names[o],
             (unsigned long long)counters->algorithms[i].outcomes[o]);
}

/* Refusals by limit, queues, workers. */
static void append_capacity(text_buffer *b, const stats *counters, const stats_gauges *g) {
  append(b,
         "# HELP dungeond_rejections_total Requests refused by a limit.\n"
         "# TYPE dungeond_rejections_total counter\n"
         "dungeond_rejections_total{reason=\"queue_full\"} %llu\n"
         "dungeond_rejections_total{reason=\"draining\"} %llu\n"
         "dungeond_rejections_total{reason=\"too_large\"} %llu\n"
         "dungeond_rejections_total{reason=\"deadline_exceeded\"} %llu\n"
         "dungeond_rejections_total{reason=\"client_gone\"} %llu\n"
         "dungeond_rejections_total{reason=\"send_queue_full\"} %llu\n"
         "dungeond_rejections_total{reason=\"client_busy\"} %llu\n"
         "dungeond_rejections_total{reason=\"client_lobbies\"} %llu\n",
         (unsigned long long)counters->rejected_queue_full,
         (unsigned long long)counters->rejected_draining,
         (unsigned long long)g->transport->rejected_too_large,
         (unsigned long long)counters->deadline_exceeded,
         (unsigned long long)counters->clients_gone,
         (unsigned long long)g->transport->rejected_send_queue,
         (unsigned long long)counters->rejected_client_busy,
         (unsigned long long)counters->rejected_client_lobbies);
  append(b,
         "# HELP dungeond_queue_depth Generation jobs waiting, by queue.\n"
         "# TYPE dungeond_queue_depth gauge\n"
         "dungeond_queue_depth{queue=\"interactive\"} %ld\n"
         "dungeond_queue_depth{queue=\"speculative\"} %ld\n",
         g->interactive_depth, g->speculative_depth);
  append(b,
         "# HELP dungeond_queue_capacity Most jobs each queue holds.\n"
         "# TYPE dungeond_queue_capacity gauge\n"
         "dungeond_queue_capacity{queue=\"interactive\"} %ld\n"
         "dungeond_queue_capacity{queue=\"speculative\"} %ld\n",
         g->interactive_max, g->speculative_max);
  append(b,
         "# HELP dungeond_workers Generation worker threads.\n"
         "# TYPE dungeond_workers gauge\ndungeond_workers %d\n"
         "# HELP dungeond_workers_busy Worker threads running a job.\n"
         "# TYPE dungeond_workers_busy gauge\ndungeond_workers_busy %d\n"
         "# HELP dungeond_speculative_jobs_running Pre-generation jobs running now.\n"
         "# TYPE dungeond_speculative_jobs_running gauge\n"
         "dungeond_speculative_jobs_running %d\n"
         "# HELP dungeond_job_pauses_total Pauses of heavy jobs for light ones.\n"
         "# TYPE dungeond_job_pauses_total counter\ndungeond_job_pauses_total %llu\n"
         "# HELP dungeond_job_paused_seconds_total Total length of those pauses.\n"
         "# TYPE dungeond_job_paused_seconds_total counter\n"
         "dungeond_job_paused_seconds_total %.6f\n",
         g->workers, g->workers_busy, g->speculative_busy, (unsigned long long)g->pauses,
         (double)g->paused_ns / 1e9);
}

/* Connections, the send queue, log failures, connection events. */
static void append_connections(text_buffer *b, const stats_gauges *g) {
  append(b,
         "# HELP dungeond_connections Open HTTP connections.\n"
         "# TYPE dungeond_connections gauge\ndungeond_connections %ld\n",
         g->connections);
  append(b,
         "# HELP dungeond_health_connections Open connections on the health listener.\n"
         "# TYPE dungeond_health_connections gauge\ndungeond_health_connections %ld\n"
         "# HELP dungeond_send_queue_bytes Response bytes queued to clients, not yet sent.\n"
         "# TYPE dungeond_send_queue_bytes gauge\ndungeond_send_queue_bytes %ld\n",
         g->health_connections, g->send_queue_bytes);
  append(b,
         "# HELP dungeond_log_write_failures_total Log lines that could not be written "
         "(disk full, file size limit).\n# TYPE dungeond_log_write_failures_total counter\n"
         "dungeond_log_write_failures_total %llu\n",
         g->log_write_failures);
  append(b, "# HELP dungeond_connection_events_total Connections refused, cut or dropped, "
            "by event.\n# TYPE dungeond_connection_events_total counter\n");
  for (int i = 0; i < CONN_EVENT_COUNT; i++)
    append(b, "dungeond_connection_events_total{event=\"%s\"} %llu\n", conn_event_names[i],
           (unsigned long long)g->transport->conn_events[i]);
}

/* Lobbies, their starts, speculative jobs and the pre-generation cache. */
static void append_lobbies(text_buffer *b, const stats_gauges *g) {
  append(b,
         "# HELP dungeond_lobbies Lobbies alive.\n# TYPE dungeond_lobbies gauge\n"
         "dungeond_lobbies %ld\n",
         g->lobbies);
  append(b,
         "# HELP dungeond_lobby_starts_total Match starts by pre-generation outcome.\n"
         "# TYPE dungeond_lobby_starts_total counter\n"
         "dungeond_lobby_starts_total{pregen=\"hit\"} %llu\n"
         "dungeond_lobby_starts_total{pregen=\"wait\"} %llu\n"
         "dungeond_lobby_starts_total{pregen=\"miss\"} %llu\n",
         (unsigned long long)g->lobby_hits, (unsigned long long)g->lobby_waits,
         (unsigned long long)g->lobby_misses);
  append(b,
         "# HELP dungeond_speculative_jobs_total Speculative jobs by fate.\n"
         "# TYPE dungeond_speculative_jobs_total counter\n"
         "dungeond_speculative_jobs_total{fate=\"started\"} %llu\n"
         "dungeond_speculative_jobs_total{fate=\"superseded\"} %llu\n"
         "dungeond_speculative_jobs_total{fate=\"expired\"} %llu\n"
         "dungeond_speculative_jobs_total{fate=\"evicted\"} %llu\n",
         (unsigned long long)g->lobby_jobs, (unsigned long long)g->lobby_superseded,
         (unsigned long long)g->lobby_expired, (unsigned long long)g->lobby_evicted);
  append(b,
         "# HELP dungeond_pregen_saved_seconds_total Generation seconds saved by hits.\n"
         "# TYPE dungeond_pregen_saved_seconds_total counter\n"
         "dungeond_pregen_saved_seconds_total %.6f\n"
         "# HELP dungeond_pregen_ready_bytes Bytes of ready pre-generated levels.\n"
         "# TYPE dungeond_pregen_ready_bytes gauge\ndungeond_pregen_ready_bytes %ld\n"
         "# HELP dungeond_lobby_bytes Bytes of all lobby state: settings, players, ready "
         "levels.\n"
         "# TYPE dungeond_lobby_bytes gauge\ndungeond_lobby_bytes %ld\n"
         "# HELP dungeond_lobby_bytes_max The limit on dungeond_lobby_bytes.\n"
         "# TYPE dungeond_lobby_bytes_max gauge\ndungeond_lobby_bytes_max %ld\n",
         g->lobby_saved_s, g->lobby_ready_bytes, g->lobby_bytes, g->lobby_bytes_max);
}

/* The Prometheus text: one family group after another, then the process_*
 * families; NULL when an allocation failed. */
char *stats_prometheus(const stats *counters, const stats_gauges *g, size_t *length) {
  text_buffer b = {0};
  append_daemon(&b, counters, g);
  append_http(&b, counters);
  append_durations(&b, counters);
  append_levels(&b, counters);
  append_capacity(&b, counters, g);
  append_connections(&b, g);
  append_lobbies(&b, g);
  append_process(&b, &g->process);
  if (b.failed) {
    free(b.data);
    return NULL;
  }
  if (length != NULL)
    *length = b.length;
  return b.data;
}
