/* See exchange.h. */
#include "api/exchange.h"

#include <stdio.h>

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
  return count;
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
