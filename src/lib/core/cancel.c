/* dg_cancel: the flag is atomic because the daemon's loop thread sets it
 * while a worker polls it; the deadline is written once before the job
 * starts and only read afterwards. */
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
  cancel->deadline_ns = deadline_ns;
}

void dg_cancel_request(dg_cancel *cancel) {
  atomic_store_explicit(&cancel->requested, 1, memory_order_release);
}

int dg_cancel_check(dg_cancel *cancel) {
  if (cancel == NULL)
    return 0;
  if (atomic_load_explicit(&cancel->requested, memory_order_acquire) != 0)
    return DG_ECANCELED;
  if (cancel->deadline_ns != 0 && dg_monotonic_ns() >= cancel->deadline_ns)
    return DG_ETIMEDOUT;
  return 0;
}
