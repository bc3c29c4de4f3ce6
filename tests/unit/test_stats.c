/* dungeond's statistics (src/server/state/stats.c): exact nearest-rank
 * percentiles, histogram buckets, and both renderings. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "state/stats.h"

Test(stats, nearest_rank_quantiles) {
  double samples[100], scratch[100];
  for (int i = 0; i < 100; i++)
    samples[i] = (double)(100 - i); /* 100..1, unsorted on purpose */
  cr_assert_float_eq(stats_quantile(samples, 100, 0.50, scratch), 50.0, 1e-12);
  cr_assert_float_eq(stats_quantile(samples, 100, 0.99, scratch), 99.0, 1e-12);
  cr_assert_float_eq(stats_quantile(samples, 100, 1.0, scratch), 100.0, 1e-12);
  cr_assert_float_eq(stats_quantile(samples, 1, 0.5, scratch), 100.0, 1e-12);
  cr_assert_float_eq(stats_quantile(samples, 0, 0.5, scratch), 0.0, 1e-12);
}

/* What the transport counted: read through the gauges, not kept in stats. */
static http_counters transport = {.rejected_too_large = 2,
                                  .conn_events[CONN_EVENT_HEADER_TIMEOUT] = 5};

static stats_gauges gauges = {.transport = &transport,
                              .interactive_depth = 3,
                              .interactive_max = 1024,
                              .speculative_max = 256,
                              .workers = 2,
                              .workers_busy = 1,
                              .connections = 7};

Test(stats, json_counts_by_status_and_algorithm) {
  static stats s;
  stats_init(&s);
  stats_record(&s, 200, 0.002, "classic", 0.0001, 0.0015, 4000);
  stats_record(&s, 200, 0.004, "classic", 0.0001, 0.0030, 4000);
  stats_record(&s, 422, 0.0001, "classic", -1, -1, 300);
  stats_record(&s, 404, 0.0001, NULL, -1, -1, 100);
  size_t length = 0;
  char *text = stats_json(&s, &gauges, &length);
  cr_assert_not_null(text);
  json_t *root = json_loads(text, 0, NULL);
  cr_assert_not_null(root);
  cr_assert_eq(json_integer_value(json_object_get(json_object_get(root, "requests"), "total")), 4);
  json_t *classic = json_object_get(json_object_get(root, "algorithms"), "classic");
  cr_assert_eq(json_integer_value(json_object_get(classic, "requests")), 3);
  cr_assert_eq(json_integer_value(json_object_get(classic, "failures")), 1);
  double p99 = json_real_value(json_object_get(json_object_get(classic, "latency_ms"), "p99"));
  cr_assert_float_eq(p99, 4.0, 1e-9);
  cr_assert_eq(json_integer_value(json_object_get(
                   json_object_get(json_object_get(root, "queues"), "interactive"), "depth")),
               3);
  json_t *rejections = json_object_get(root, "rejections");
  cr_assert_eq(json_integer_value(json_object_get(rejections, "too_large")), 2);
  json_t *events = json_object_get(root, "connection_events");
  cr_assert_eq(json_integer_value(json_object_get(events, "header_timeout")), 5);
  json_decref(root);
  free(text);
}

Test(stats, prometheus_histograms_are_cumulative) {
  static stats s;
  stats_init(&s);
  stats_record(&s, 200, 0.0004, "classic", 0, 0.0004, 10); /* first bucket */
  stats_record(&s, 200, 0.02, "classic", 0, 0.02, 10);     /* le 0.025 */
  stats_record(&s, 503, 100.0, NULL, -1, -1, 10);          /* +Inf only */
  size_t length = 0;
  char *text = stats_prometheus(&s, &gauges, &length);
  cr_assert_not_null(text);
  cr_assert_eq(strlen(text), length);
  cr_assert_not_null(
      strstr(text, "dungeond_http_request_duration_seconds_bucket{le=\"0.0005\"} 1\n"));
  cr_assert_not_null(
      strstr(text, "dungeond_http_request_duration_seconds_bucket{le=\"0.025\"} 2\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_bucket{le=\"30\"} 2\n"));
  cr_assert_not_null(
      strstr(text, "dungeond_http_request_duration_seconds_bucket{le=\"+Inf\"} 3\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_count 3\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_requests_total{code=\"503\"} 1\n"));
  cr_assert_not_null(strstr(text, "dungeond_queue_depth{queue=\"interactive\"} 3\n"));
  cr_assert_not_null(strstr(text, "dungeond_build_info{version=\""));
  free(text);
}
