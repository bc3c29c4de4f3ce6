/* Cooperative cancellation: an atomic flag plus a monotonic deadline.
 *
 * The daemon hands one to every job; generators call dg_cancel_check() in
 * their outer loops (not in the innermost ones: it may read the clock) and
 * give up with its code when it is non-zero. A NULL dg_cancel never cancels. */
#ifndef DUNGEON_CANCEL_H
#define DUNGEON_CANCEL_H

#include <stdatomic.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dg_cancel {
  atomic_int requested;         /* non-zero once dg_cancel_request() was called */
  _Atomic uint64_t deadline_ns; /* CLOCK_MONOTONIC nanoseconds; 0 means no deadline */
} dg_cancel;

/* Prepares `cancel` with an absolute monotonic deadline (0 for none). */
void dg_cancel_init(dg_cancel *cancel, uint64_t deadline_ns);

/* Moves the deadline to `deadline_ns` (0: none), e.g. when a client starts
 * waiting for work that began without one. Thread-safe: the worker polling
 * `cancel` sees the new deadline at its next check. */
void dg_cancel_set_deadline(dg_cancel *cancel, uint64_t deadline_ns);

/* Asks the job to stop. Thread-safe: any thread may call it at any time. */
void dg_cancel_request(dg_cancel *cancel);

/* 0 to go on, DG_ECANCELED if cancellation was requested, DG_ETIMEDOUT if
 * the deadline has passed. `cancel` may be NULL (always 0). Thread-safe. */
int dg_cancel_check(dg_cancel *cancel);

/* Current CLOCK_MONOTONIC time in nanoseconds. Thread-safe. */
uint64_t dg_monotonic_ns(void);

#ifdef __cplusplus
}
#endif
#endif
