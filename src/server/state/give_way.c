/* give_way: the pause of heavy jobs while light ones run.
 * The light-job count is read without the lock on the hot path (every
 * dg_cancel_check of a heavy job); the lock only guards the wait. A job
 * that starts to wait announces itself (`pausing`) before it reads the
 * count under the lock, and the last light job lowers the count before it
 * reads `pausing`: with sequentially consistent atomics one of the two
 * sees the other, so no wake-up is lost (and every wait is timed anyway). */
#include "state/give_way.h"

#include <errno.h>
#include <time.h>

int give_way_init(give_way *way, int percent, uint64_t linger_ns) {
  atomic_init(&way->light_running, 0);
  atomic_init(&way->pausing, 0);
  atomic_init(&way->percent, percent);
  atomic_init(&way->linger_ns, linger_ns);
  atomic_init(&way->light_done_ns, 0);
  atomic_init(&way->pauses, 0);
  atomic_init(&way->paused_ns, 0);
  pthread_condattr_t attr;
  int rc = pthread_condattr_init(&attr);
  if (rc != 0)
    return rc;
  /* The deadlines are CLOCK_MONOTONIC, like dg_monotonic_ns(). */
  if ((rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)) == 0 &&
      (rc = pthread_cond_init(&way->over, &attr)) == 0) {
    if ((rc = pthread_mutex_init(&way->lock, NULL)) != 0)
      pthread_cond_destroy(&way->over);
  }
  pthread_condattr_destroy(&attr);
  way->started = rc == 0;
  return rc;
}

void give_way_close(give_way *way) {
  if (!way->started)
    return;
  pthread_cond_destroy(&way->over);
  pthread_mutex_destroy(&way->lock);
  way->started = false;
}

void give_way_set(give_way *way, int percent, uint64_t linger_ns) {
  atomic_store(&way->percent, percent);
  atomic_store(&way->linger_ns, linger_ns);
}

void give_way_light_started(give_way *way) {
  atomic_fetch_add(&way->light_running, 1);
}

void give_way_wake(give_way *way) {
  if (!way->started || atomic_load(&way->pausing) == 0)
    return;
  pthread_mutex_lock(&way->lock);
  pthread_cond_broadcast(&way->over);
  pthread_mutex_unlock(&way->lock);
}

void give_way_light_finished(give_way *way) {
  atomic_store(&way->light_done_ns, dg_monotonic_ns());
  /* Woken even with a linger: a pausing job sleeps until its allowance
   * runs out while a light job runs, and must now sleep until the linger
   * ends instead. */
  if (atomic_fetch_sub(&way->light_running, 1) == 1)
    give_way_wake(way);
}

/* Whether light work runs or ran within the linger. */
static bool light_recent(give_way *way, uint64_t now, uint64_t *until) {
  if (atomic_load(&way->light_running) > 0)
    return true;
  uint64_t end = atomic_load(&way->light_done_ns) + atomic_load(&way->linger_ns);
  if (until != NULL && end < *until)
    *until = end;
  return now < end;
}

/* Why a pause must end now. */
static bool pause_over(const give_way_job *gj, uint64_t now, uint64_t *until) {
  return !light_recent(gj->way, now, until) || atomic_load(&gj->cancel->requested) != 0;
}

void give_way_pause(void *data) {
  give_way_job *gj = data;
  give_way *way = gj->way;
  /* Every check of a heavy job comes here. With no light job running and
   * no linger, that is all; with a linger (the default), the clock read
   * below decides whether the last light job was recent. */
  if (atomic_load_explicit(&way->light_running, memory_order_relaxed) == 0 &&
      atomic_load_explicit(&way->linger_ns, memory_order_relaxed) == 0)
    return;
  uint64_t percent = (uint64_t)atomic_load(&way->percent);
  uint64_t now = dg_monotonic_ns();
  if (percent == 0 || percent >= 100 || !way->started || pause_over(gj, now, NULL))
    return;
  uint64_t elapsed = now > gj->started_ns ? now - gj->started_ns : 0;
  uint64_t ran = elapsed > gj->paused_ns ? elapsed - gj->paused_ns : 0;
  uint64_t allowed = ran / (100 - percent) * percent;
  if (allowed <= gj->paused_ns)
    return;
  uint64_t until = now + (allowed - gj->paused_ns);
  /* At most half the time left to the deadline: a job that pauses must
   * still be able to finish in time. */
  uint64_t deadline_ns = atomic_load(&gj->cancel->deadline_ns);
  if (deadline_ns != 0 && until > now + (deadline_ns > now ? deadline_ns - now : 0) / 2)
    until = now + (deadline_ns > now ? deadline_ns - now : 0) / 2;
  if (until <= now)
    return;
  pthread_mutex_lock(&way->lock);
  atomic_fetch_add(&way->pausing, 1);
  for (;;) {
    uint64_t end = until, at = dg_monotonic_ns();
    if (at >= until || pause_over(gj, at, &end))
      break;
    struct timespec limit = {.tv_sec = (time_t)(end / 1000000000u),
                             .tv_nsec = (long)(end % 1000000000u)};
    pthread_cond_timedwait(&way->over, &way->lock, &limit);
  }
  atomic_fetch_sub(&way->pausing, 1);
  pthread_mutex_unlock(&way->lock);
  uint64_t paused = dg_monotonic_ns() - now;
  gj->paused_ns += paused;
  atomic_fetch_add(&way->pauses, 1);
  atomic_fetch_add(&way->paused_ns, paused);
}
