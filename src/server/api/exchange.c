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
static void job_spans(request *r, const exchange *x, json_line *line) {
  static const char *const names[3] = {"queue", "generation", "serialisation"};
  double durations[3] = {x->queue_ms, x->generation_ms, x->serialise_ms};
  double start_ms = x->queued_ns > r->start_ns ? (double)(x->queued_ns - r->start_ns) / 1e6 : 0.0;
  json_line_open(line, "spans", '[');
  for (int i = 0; i < 3; i++) {
    char span_id[TRACE_SPAN_TEXT];
    trace_span_text(http_new_id(r->transport), span_id);
    json_line_open(line, NULL, '{');
    json_line_string(line, "name", names[i]);
    json_line_string(line, "span_id", span_id);
    json_line_string(line, "parent_id", r->trace.span_id);
    json_line_real(line, "start_ms", start_ms);
    json_line_real(line, "duration_ms", durations[i]);
    json_line_close(line, '}');
    start_ms += durations[i];
  }
  json_line_close(line, ']');
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

void exchange_completed(request *r, json_line *line) {
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
    json_line_real(line, "queue_ms", x->queue_ms);
    json_line_real(line, "generation_ms", x->generation_ms);
    json_line_real(line, "serialise_ms", x->serialise_ms);
    job_spans(r, x, line);
  }
  if (x->algorithm != NULL)
    json_line_string(line, "algorithm", x->algorithm);
  if (x->has_job) {
    json_t *seed = dg_seed_to_json(x->seed);
    json_line_value(line, "seed", seed);
    json_decref(seed);
  }
  if (x->pregen != NULL)
    json_line_string(line, "pregen", x->pregen);
}
