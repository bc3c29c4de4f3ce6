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

/* A request of `status` on POST /v1/levels (algorithm NULL: another route). */
static void record(stats *counters, int status, double total_s, const char *algorithm,
                   double queue_s, double generation_s, double serialise_s) {
  stats_observation o = {.status = status,
                         .total_s = total_s,
                         .route = algorithm != NULL ? "/v1/levels" : NULL,
                         .method = "POST",
                         .algorithm = algorithm,
                         .queue_s = queue_s,
                         .generation_s = generation_s,
                         .serialise_s = serialise_s,
                         .body_bytes = 10};
  stats_record(counters, &o);
}

Test(stats, outcomes_from_status) {
  cr_assert_eq(stats_outcome_of(200), OUTCOME_OK);
  cr_assert_eq(stats_outcome_of(304), OUTCOME_OK);
  cr_assert_eq(stats_outcome_of(422), OUTCOME_CLIENT_ERROR);
  cr_assert_eq(stats_outcome_of(499), OUTCOME_CLIENT_ERROR);
  cr_assert_eq(stats_outcome_of(500), OUTCOME_SERVER_ERROR);
  cr_assert_eq(stats_outcome_of(503), OUTCOME_REJECTED);
  cr_assert_eq(stats_outcome_of(504), OUTCOME_TIMEOUT);
}

Test(stats, json_counts_by_status_and_algorithm) {
  static stats s;
  stats_init(&s);
  record(&s, 200, 0.002, "classic", 0.0001, 0.0015, 0.0001);
  record(&s, 200, 0.004, "classic", 0.0001, 0.0030, 0.0001);
  record(&s, 422, 0.0001, "classic", -1, -1, -1);
  record(&s, 504, 0.0001, "classic", -1, -1, -1);
  record(&s, 404, 0.0001, NULL, -1, -1, -1);
  size_t length = 0;
  char *text = stats_json(&s, &gauges, &length);
  cr_assert_not_null(text);
  json_t *root = json_loads(text, 0, NULL);
  cr_assert_not_null(root);
  cr_assert_eq(json_integer_value(json_object_get(json_object_get(root, "requests"), "total")), 5);
  json_t *by_outcome = json_object_get(json_object_get(root, "requests"), "by_outcome");
  cr_assert_eq(json_integer_value(json_object_get(by_outcome, "client_error")), 2);
  cr_assert_eq(json_integer_value(json_object_get(by_outcome, "timeout")), 1);
  json_t *classic = json_object_get(json_object_get(root, "algorithms"), "classic");
  cr_assert_eq(json_integer_value(json_object_get(classic, "requests")), 4);
  json_t *outcomes = json_object_get(classic, "outcomes");
  cr_assert_eq(json_integer_value(json_object_get(outcomes, "ok")), 2);
  cr_assert_eq(json_integer_value(json_object_get(outcomes, "client_error")), 1);
  cr_assert_eq(json_integer_value(json_object_get(outcomes, "timeout")), 1);
  cr_assert_eq(json_integer_value(json_object_get(outcomes, "server_error")), 0);
  cr_assert_float_eq(json_real_value(json_object_get(classic, "serialisation_ms_mean")), 0.1, 1e-9);
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
  record(&s, 200, 0.0004, "classic", 0, 0.0003, 0.0001); /* first bucket */
  record(&s, 200, 0.02, "classic", 0, 0.004, 0.016);     /* le 0.025 */
  record(&s, 503, 100.0, "classic", -1, -1, -1);         /* +Inf only */
  size_t length = 0;
  char *text = stats_prometheus(&s, &gauges, &length);
  cr_assert_not_null(text);
  cr_assert_eq(strlen(text), length);
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_bucket{route=\"/v1/"
                                  "levels\",method=\"POST\",le=\"0.0005\"} 1\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_bucket{route=\"/v1/"
                                  "levels\",method=\"POST\",le=\"0.025\"} 2\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_bucket{route=\"/v1/"
                                  "levels\",method=\"POST\",le=\"30\"} 2\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_bucket{route=\"/v1/"
                                  "levels\",method=\"POST\",le=\"+Inf\"} 3\n"));
  cr_assert_not_null(strstr(
      text,
      "dungeond_http_request_duration_seconds_count{route=\"/v1/levels\",method=\"POST\"} 3\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_requests_total{code=\"503\"} 1\n"));
  cr_assert_not_null(strstr(text, "dungeond_queue_depth{queue=\"interactive\"} 3\n"));
  cr_assert_not_null(strstr(text, "dungeond_build_info{version=\""));
  /* Generation and serialisation apart: 0.004 s is le 0.005, 0.016 le 0.025. */
  cr_assert_not_null(strstr(
      text, "dungeond_generation_duration_seconds_bucket{algorithm=\"classic\",le=\"0.005\"} 2\n"));
  cr_assert_not_null(strstr(
      text,
      "dungeond_serialisation_duration_seconds_bucket{algorithm=\"classic\",le=\"0.01\"} 1\n"));
  cr_assert_not_null(strstr(
      text,
      "dungeond_serialisation_duration_seconds_bucket{algorithm=\"classic\",le=\"0.025\"} 2\n"));
  cr_assert_not_null(strstr(
      text, "dungeond_level_requests_total{algorithm=\"classic\",outcome=\"rejected\"} 1\n"));
  cr_assert_not_null(strstr(text, "dungeond_http_responses_total{outcome=\"ok\"} 2\n"));
  free(text);
}

Test(stats, route_and_method_labels_are_bounded) {
  static stats s;
  stats_init(&s);
  stats_observation o = {.status = 404, .route = NULL, .method = "BREW", .queue_s = -1};
  stats_record(&s, &o);
  o.route = "/v1/some/path/a/client/made/up";
  stats_record(&s, &o);
  size_t length = 0;
  char *text = stats_prometheus(&s, &gauges, &length);
  cr_assert_not_null(text);
  cr_assert_not_null(strstr(text, "dungeond_http_request_duration_seconds_count{route=\"other\","
                                  "method=\"other\"} 2\n"));
  free(text);
}
