/* See exchange.h. */
#include "api/exchange.h"

#include <stdio.h>
#include <string.h>

int exchange_answer_headers(const request *r, const char **names, const char **values) {
  exchange *x = r->data;
  int count = 0;
  if (x->has_job) {
    snprintf(x->timing, sizeof x->timing, "queue;dur=%.3f, gen;dur=%.3f, ser;dur=%.3f", x->queue_ms,
             x->generation_ms, x->serialise_ms);
    names[count] = "Server-Timing";
    values[count++] = x->timing;
  }
  if (x->pregen != NULL) {
    names[count] = "X-Pregen";
    values[count++] = x->pregen;
  }
  const char *origin = exchange_cors_origin(r);
  if (origin != NULL) {
    /* The origin itself, not "*", so answers also work with credentials;
     * hence Vary: Origin for caches. */
    names[count] = "Access-Control-Allow-Origin";
    values[count++] = origin;
    names[count] = "Vary";
    values[count++] = "Origin";
    names[count] = "Access-Control-Expose-Headers";
    values[count++] = "ETag, X-Pregen, X-Request-Id, Retry-After, Server-Timing";
  }
  return count;
}

/* The job's three phases as child spans of the request's span (W3C
 * Trace Context ids; start_ms from the request's first byte), the same
 * durations as Server-Timing's queue, gen and ser. */
static json_t *job_spans(request *r, const exchange *x) {
  static const char *const names[3] = {"queue", "generation", "serialisation"};
  double durations[3] = {x->queue_ms, x->generation_ms, x->serialise_ms};
  double start_ms = x->queued_ns > r->start_ns ? (double)(x->queued_ns - r->start_ns) / 1e6 : 0.0;
  json_t *spans = json_array();
  for (int i = 0; spans != NULL && i < 3; i++) {
    char span_id[TRACE_SPAN_TEXT];
    trace_span_text(http_new_id(r->transport), span_id);
    json_array_append_new(spans, json_pack("{s:s, s:s, s:s, s:f, s:f}", "name", names[i], "span_id",
                                           span_id, "parent_id", r->trace.span_id, "start_ms",
                                           start_ms, "duration_ms", durations[i]));
    start_ms += durations[i];
  }
  return spans;
}

const char *exchange_cors_origin(const request *r) {
  const json_t *allowed = server_of(r)->cfg->cors_allowed_origins;
  const char *origin = http_header(r, "Origin");
  if (origin == NULL || allowed == NULL)
    return NULL;
  size_t i;
  const json_t *entry;
  json_array_foreach(allowed, i, entry) {
    const char *text = json_string_value(entry);
    if (strcmp(text, "*") == 0 || strcmp(text, origin) == 0)
      return origin;
  }
  return NULL;
}

void exchange_completed(request *r, json_t *line) {
  const exchange *x = r->data;
  server *daemon = server_of(r);
  double total_s = (double)(dg_monotonic_ns() - r->start_ns) / 1e9;
  stats_observation o = {
      .status = r->status,
      .total_s = total_s,
      .route = x->route,
      .method = r->method,
      .algorithm = x->algorithm,
      .queue_s = x->has_job ? x->queue_ms / 1000.0 : -1.0,
      .generation_s = x->has_job ? x->generation_ms / 1000.0 : -1.0,
      .serialise_s = x->has_job ? x->serialise_ms / 1000.0 : -1.0,
      .body_bytes = r->bytes_out,
  };
  stats_record(&daemon->counters, &o);
  if (line == NULL)
    return;
  if (x->has_job) {
    json_object_set_new(line, "queue_ms", json_real(x->queue_ms));
    json_object_set_new(line, "generation_ms", json_real(x->generation_ms));
    json_object_set_new(line, "serialise_ms", json_real(x->serialise_ms));
    json_object_set_new(line, "spans", job_spans(r, x));
  }
  if (x->algorithm != NULL)
    json_object_set_new(line, "algorithm", json_string(x->algorithm));
  if (x->has_job)
    json_object_set_new(line, "seed", dg_seed_to_json(x->seed));
  if (x->pregen != NULL)
    json_object_set_new(line, "pregen", json_string(x->pregen));
}
