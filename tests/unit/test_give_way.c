/* give_way (src/server/state/give_way.c) on real threads: a heavy job's
 * pause hook returns at once when no light job runs, waits while one runs
 * (and for the linger after), and every pause ends by itself: at the
 * percentage bound, at half the time left to the deadline, or when the job
 * is cancelled. The bounds below are wide (the machine is shared): they
 * check that a pause happens and ends, not how fast. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "state/give_way.h"

#define MS 1000000ull

static void sleep_ms(int ms) {
  nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000}, NULL);
}

/* A give_way and one heavy job that has run `ran_ms` so far under a
 * cancel with `deadline_ns` (0: none). */
typedef struct setting {
  give_way way;
  dg_cancel cancel;
  give_way_job job;
} setting;

static void prepare(setting *s, int percent, uint64_t linger_ns, uint64_t deadline_ns,
                    uint64_t ran_ms) {
  cr_assert_eq(give_way_init(&s->way, percent, linger_ns), 0);
  dg_cancel_init(&s->cancel, deadline_ns);
  s->job = (give_way_job){
      .way = &s->way, .cancel = &s->cancel, .started_ns = dg_monotonic_ns() - ran_ms * MS};
}

static void *pause_thread(void *data) {
  give_way_pause(data);
  return NULL;
}

/* Starts the heavy job's pause on its own thread and returns once it waits:
 * on a loaded machine a new thread may start many ms late, and a pause that
 * began after the light job ended is not the case under test. */
static void start_pausing(setting *s, pthread_t *heavy) {
  cr_assert_eq(pthread_create(heavy, NULL, pause_thread, &s->job), 0);
  for (int waited = 0; atomic_load(&s->way.pausing) == 0; waited++) {
    cr_assert_lt(waited, 10000, "the heavy job never started to pause");
    sleep_ms(1);
  }
}

Test(give_way, no_light_job_no_pause) {
  setting s;
  prepare(&s, 75, 0, 0, 1000);
  give_way_pause(&s.job);
  cr_assert_eq(s.job.paused_ns, 0);
  cr_assert_eq(atomic_load(&s.way.pauses), 0);
  give_way_close(&s.way);
}

Test(give_way, percent_zero_never_pauses) {
  setting s;
  prepare(&s, 0, 0, 0, 1000);
  give_way_light_started(&s.way);
  give_way_pause(&s.job);
  cr_assert_eq(s.job.paused_ns, 0);
  give_way_light_finished(&s.way);
  give_way_close(&s.way);
}

/* Paused while the light job runs; the last light job to finish wakes it
 * (no linger), long before its 3 s allowance. */
Test(give_way, pauses_until_the_light_job_is_done) {
  setting s;
  prepare(&s, 75, 0, 0, 1000);
  give_way_light_started(&s.way);
  pthread_t heavy;
  start_pausing(&s, &heavy);
  sleep_ms(40);
  give_way_light_finished(&s.way);
  pthread_join(heavy, NULL);
  cr_assert_geq(s.job.paused_ns, 30 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  cr_assert_lt(s.job.paused_ns, 2900 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  cr_assert_eq(atomic_load(&s.way.pauses), 1);
  cr_assert_eq(atomic_load(&s.way.paused_ns), s.job.paused_ns);
  give_way_close(&s.way);
}

/* A light job that just finished still holds heavy ones for the linger. */
Test(give_way, the_linger_outlasts_the_light_job) {
  setting s;
  prepare(&s, 75, 50 * MS, 0, 1000);
  give_way_light_started(&s.way);
  give_way_light_finished(&s.way);
  give_way_pause(&s.job);
  cr_assert_geq(s.job.paused_ns, 40 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  give_way_close(&s.way);
}

/* A pause that began while a light job ran ends with the linger after it,
 * not with the job's allowance (3 s here). */
Test(give_way, the_linger_ends_a_pause_that_began_during_a_light_job) {
  setting s;
  prepare(&s, 75, 30 * MS, 0, 1000);
  give_way_light_started(&s.way);
  pthread_t heavy;
  start_pausing(&s, &heavy);
  sleep_ms(20);
  give_way_light_finished(&s.way);
  pthread_join(heavy, NULL);
  cr_assert_geq(s.job.paused_ns, 40 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  cr_assert_lt(s.job.paused_ns, 1500 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  give_way_close(&s.way);
}

/* A light job that never ends: the pause ends at the bound. At 50% a job
 * that has run 40 ms may pause 40 ms, and a second pause at once gets
 * (almost) nothing more. */
Test(give_way, a_pause_ends_at_the_percentage_bound) {
  setting s;
  prepare(&s, 50, 0, 0, 40);
  give_way_light_started(&s.way);
  give_way_pause(&s.job);
  cr_assert_geq(s.job.paused_ns, 38 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  cr_assert_lt(s.job.paused_ns, 2000 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  uint64_t first = s.job.paused_ns;
  give_way_pause(&s.job);
  cr_assert_lt(s.job.paused_ns - first, 20 * MS, "the bound holds across pauses");
  give_way_light_finished(&s.way);
  give_way_close(&s.way);
}

/* With its deadline 600 ms away a job pauses at most about 300 ms, however
 * much it may pause by the percentage. */
Test(give_way, a_pause_ends_by_half_the_time_to_the_deadline) {
  setting s;
  prepare(&s, 90, 0, dg_monotonic_ns() + 600 * MS, 10000);
  give_way_light_started(&s.way);
  give_way_pause(&s.job);
  cr_assert_geq(s.job.paused_ns, 250 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  cr_assert_eq(dg_cancel_check(&s.cancel), 0, "still time to finish");
  give_way_light_finished(&s.way);
  give_way_close(&s.way);
}

/* A cancelled job stops pausing as soon as it is woken. */
Test(give_way, cancelling_ends_a_pause) {
  setting s;
  prepare(&s, 90, 0, 0, 100000); /* may pause 900 s */
  give_way_light_started(&s.way);
  pthread_t heavy;
  start_pausing(&s, &heavy);
  sleep_ms(20);
  dg_cancel_request(&s.cancel);
  give_way_wake(&s.way);
  pthread_join(heavy, NULL);
  cr_assert_lt(s.job.paused_ns, 5000 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  give_way_light_finished(&s.way);
  give_way_close(&s.way);
}

/* Through dg_cancel_check, as generators call it: the hook pauses, then
 * the check reports the cancel's state. */
Test(give_way, as_the_cancel_pause_hook) {
  setting s;
  prepare(&s, 75, 30 * MS, 0, 1000);
  dg_cancel_set_pause(&s.cancel, give_way_pause, &s.job);
  cr_assert_eq(dg_cancel_check(&s.cancel), 0);
  cr_assert_eq(s.job.paused_ns, 0, "no light job: no pause");
  give_way_light_started(&s.way);
  give_way_light_finished(&s.way);
  cr_assert_eq(dg_cancel_check(&s.cancel), 0);
  cr_assert_geq(s.job.paused_ns, 20 * MS, "paused %.1f ms", s.job.paused_ns / 1e6);
  give_way_close(&s.way);
}
