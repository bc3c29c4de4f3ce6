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
  server *s = server_of(r);
  double total_s = (double)(dg_monotonic_ns() - r->start_ns) / 1e9;
  stats_record(&s->counters, r->status, total_s, x->algorithm,
               x->has_job ? x->queue_ms / 1000.0 : -1.0,
               x->has_job ? (x->generation_ms + x->serialise_ms) / 1000.0 : -1.0, r->bytes_out);
  if (line == NULL)
    return;
  if (x->has_job) {
    json_object_set_new(line, "queue_ms", json_real(x->queue_ms));
    json_object_set_new(line, "generation_ms", json_real(x->generation_ms));
    json_object_set_new(line, "serialise_ms", json_real(x->serialise_ms));
  }
  if (x->algorithm != NULL)
    json_object_set_new(line, "algorithm", json_string(x->algorithm));
  if (x->has_job)
    json_object_set_new(line, "seed", dg_seed_to_json(x->seed));
  if (x->pregen != NULL)
    json_object_set_new(line, "pregen", json_string(x->pregen));
}
