/* dg_cancel: the flag and the deadline are atomic because the daemon's loop
 * thread sets them while a worker polls them (a deadline moves when a lobby's
 * speculative job gets a waiting client). Relaxed order suffices for the
 * deadline: it carries no other data. */
#include "dungeon/cancel.h"

#include <time.h>

#include "dungeon/error.h"

uint64_t dg_monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

void dg_cancel_init(dg_cancel *cancel, uint64_t deadline_ns) {
  atomic_init(&cancel->requested, 0);
  atomic_init(&cancel->deadline_ns, deadline_ns);
  cancel->pause = NULL;
  cancel->pause_data = NULL;
}

void dg_cancel_set_pause(dg_cancel *cancel, dg_cancel_pause_fn pause, void *data) {
  cancel->pause = pause;
  cancel->pause_data = data;
}

void dg_cancel_set_deadline(dg_cancel *cancel, uint64_t deadline_ns) {
  atomic_store_explicit(&cancel->deadline_ns, deadline_ns, memory_order_relaxed);
}

void dg_cancel_request(dg_cancel *cancel) {
  atomic_store_explicit(&cancel->requested, 1, memory_order_release);
}

int dg_cancel_check(dg_cancel *cancel) {
  if (cancel == NULL)
    return 0;
  if (cancel->pause != NULL)
    cancel->pause(cancel->pause_data);
  if (atomic_load_explicit(&cancel->requested, memory_order_acquire) != 0)
    return DG_ECANCELED;
  uint64_t deadline_ns = atomic_load_explicit(&cancel->deadline_ns, memory_order_relaxed);
  if (deadline_ns != 0 && dg_monotonic_ns() >= deadline_ns)
    return DG_ETIMEDOUT;
  return 0;
}
