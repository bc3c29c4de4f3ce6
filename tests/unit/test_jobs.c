/* The job queues on their own (src/server/state/jobs.c), on a real libuv
 * loop and thread pool with real generation: interactive jobs go before
 * queued speculative ones, a full queue refuses, a queued job can be
 * cancelled or dropped, a job without a deadline is refused, and every
 * job is reported exactly once, after which the queues close cleanly. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "dungeon/dungeon.h"
#include "state/jobs.h"

#define MAX_DONE 16

typedef struct record {
  int order[MAX_DONE]; /* the `data` tag of each job reported, in order */
  int codes[MAX_DONE]; /* its rc */
  int count;
} record;

typedef struct tagged {
  job work;
  record *log;
  int tag;
} tagged;

static void on_done(job *j) {
  tagged *t = j->data;
  t->log->order[t->log->count] = t->tag;
  t->log->codes[t->log->count] = j->rc;
  t->log->count++;
  free(j->body);
  j->body = NULL;
}

static void prepare(tagged *t, record *log, int tag, int width) {
  memset(t, 0, sizeof *t);
  t->log = log;
  t->tag = tag;
  dg_request_init(&t->work.request, dg_algorithm_find("classic"));
  char text[16];
  snprintf(text, sizeof text, "%d", width);
  dg_error err;
  cr_assert_eq(dg_request_set_text(&t->work.request, "width", text, &err), 0, "%s", err.message);
  t->work.request.seed = (uint64_t)tag;
  t->work.request.seed_given = true;
  t->work.format = JOB_FORMAT_JSON;
  t->work.done = on_done;
  t->work.data = t;
  dg_cancel_init(&t->work.cancel, dg_monotonic_ns() + 30000000000ull);
}

static void run_until(uv_loop_t *loop, const record *log, int count) {
  while (log->count < count)
    uv_run(loop, UV_RUN_ONCE);
}

static void close_clean(uv_loop_t *loop, jobs *queues) {
  jobs_close(queues);
  uv_run(loop, UV_RUN_DEFAULT);
  cr_assert_eq(uv_loop_close(loop), 0, "a handle was left open");
}

/* Without the right to restore a worker's priority (not root, no
 * RLIMIT_NICE) speculative jobs share the interactive workers: the mode the
 * test forces, whoever runs it. */
Test(jobs, interactive_jobs_go_before_queued_speculative_ones) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  jobs q;
  cr_assert_eq(jobs_init(&q, &loop, 1, 0, 8, 8, NULL), 0);
  q.idle_speculative = false;
  record log = {0};
  static tagged running, speculative, interactive;
  /* One worker: the first job takes it, the other two wait in the queues. */
  prepare(&running, &log, 1, 400);
  prepare(&speculative, &log, 2, 40);
  prepare(&interactive, &log, 3, 40);
  cr_assert_eq(jobs_submit(&q, &running.work, JOB_SPECULATIVE), 0);
  cr_assert_eq(jobs_submit(&q, &speculative.work, JOB_SPECULATIVE), 0);
  cr_assert_eq(jobs_submit(&q, &interactive.work, JOB_INTERACTIVE), 0);
  cr_assert_eq(q.running, 1);
  cr_assert_eq(q.depth[JOB_INTERACTIVE], 1);
  cr_assert_eq(q.depth[JOB_SPECULATIVE], 1);
  run_until(&loop, &log, 3);
  cr_assert_eq(log.order[0], 1);
  cr_assert_eq(log.order[1], 3, "the interactive job ran second (got tag %d)", log.order[1]);
  cr_assert_eq(log.order[2], 2);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(log.codes[i], 0);
  close_clean(&loop, &q);
}

/* With idle-priority threads of their own, a running speculative job holds
 * no interactive worker: an interactive job starts at once beside it. */
Test(jobs, with_idle_threads_speculative_work_holds_no_interactive_worker) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  jobs q;
  cr_assert_eq(jobs_init(&q, &loop, 1, 0, 8, 8, NULL), 0);
  q.idle_speculative = true;
  record log = {0};
  static tagged speculative, queued, interactive;
  prepare(&speculative, &log, 1, 400);
  prepare(&queued, &log, 2, 40);
  prepare(&interactive, &log, 3, 40);
  cr_assert_eq(jobs_submit(&q, &speculative.work, JOB_SPECULATIVE), 0);
  cr_assert_eq(jobs_submit(&q, &queued.work, JOB_SPECULATIVE), 0);
  cr_assert_eq(jobs_submit(&q, &interactive.work, JOB_INTERACTIVE), 0);
  cr_assert_eq(q.running, 2, "the interactive job runs beside the speculative one");
  cr_assert_eq(q.running_kind[JOB_INTERACTIVE], 1);
  cr_assert_eq(q.depth[JOB_SPECULATIVE], 1, "one speculative slot: the second waits");
  run_until(&loop, &log, 3);
  cr_assert_eq(log.order[2], 2, "the queued speculative job runs last");
  close_clean(&loop, &q);
}

Test(jobs, a_full_queue_refuses_and_a_queued_job_can_be_cancelled) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  jobs q;
  cr_assert_eq(jobs_init(&q, &loop, 1, 0, 1, 1, NULL), 0);
  record log = {0};
  static tagged running, queued, refused;
  prepare(&running, &log, 1, 400);
  prepare(&queued, &log, 2, 40);
  prepare(&refused, &log, 3, 40);
  cr_assert_eq(jobs_submit(&q, &running.work, JOB_INTERACTIVE), 0);
  cr_assert_eq(jobs_submit(&q, &queued.work, JOB_INTERACTIVE), 0);
  cr_assert_eq(jobs_submit(&q, &refused.work, JOB_INTERACTIVE), DG_ELIMIT,
               "interactive_queue_max 1: the second queued job is refused");
  jobs_cancel(&q, &queued.work);
  cr_assert_eq(q.depth[JOB_INTERACTIVE], 0);
  run_until(&loop, &log, 2);
  cr_assert_eq(log.order[0], 2, "the cancelled job is reported at once");
  cr_assert_eq(log.codes[0], DG_ECANCELED);
  cr_assert_eq(log.order[1], 1);
  cr_assert_eq(log.codes[1], 0, "rc %d: %s", log.codes[1], running.work.err.message);
  close_clean(&loop, &q);
}

Test(jobs, a_job_without_deadline_or_budget_is_refused) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  jobs q;
  cr_assert_eq(jobs_init(&q, &loop, 1, 0, 4, 4, NULL), 0);
  record log = {0};
  static tagged unbounded;
  prepare(&unbounded, &log, 1, 40);
  dg_cancel_init(&unbounded.work.cancel, 0);
  unbounded.work.budget_ns = 0;
  cr_assert_eq(jobs_submit(&q, &unbounded.work, JOB_INTERACTIVE), DG_EINVAL);
  cr_assert_eq(log.count, 0, "a refused job is the caller's: never reported");
  close_clean(&loop, &q);
}

static bool not_wanted(job *j) {
  (void)j;
  return false;
}

Test(jobs, cancel_all_reports_every_queued_job_once) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  jobs q;
  cr_assert_eq(jobs_init(&q, &loop, 1, 0, 4, 4, NULL), 0);
  record log = {0};
  static tagged running, a, b, dropped;
  prepare(&running, &log, 1, 300);
  prepare(&a, &log, 2, 40);
  prepare(&b, &log, 3, 40);
  cr_assert_eq(jobs_submit(&q, &running.work, JOB_INTERACTIVE), 0);
  cr_assert_eq(jobs_submit(&q, &a.work, JOB_INTERACTIVE), 0);
  cr_assert_eq(jobs_submit(&q, &b.work, JOB_SPECULATIVE), 0);
  jobs_cancel_all(&q, false);
  run_until(&loop, &log, 3);
  int cancelled = 0;
  for (int i = 0; i < 3; i++)
    cancelled += log.codes[i] == DG_ECANCELED;
  cr_assert_eq(cancelled, 2, "both queued jobs are cancelled, the running one finishes");
  /* A job whose client left before it reached a worker is dropped. */
  prepare(&dropped, &log, 4, 40);
  dropped.work.wanted = not_wanted;
  cr_assert_eq(jobs_submit(&q, &dropped.work, JOB_INTERACTIVE), 0);
  run_until(&loop, &log, 4);
  cr_assert_eq(log.order[3], 4);
  cr_assert_eq(log.codes[3], DG_ECANCELED);
  cr_assert_eq(q.dropped, 1);
  close_clean(&loop, &q);
}
