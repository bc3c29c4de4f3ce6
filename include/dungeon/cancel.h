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

/* A pause hook: called by dg_cancel_check() on the generating thread, at
 * the same safe points, before the flag and the deadline are read. It may
 * block for a while to give way to other work (the daemon pauses heavy
 * jobs while light ones run). It must not generate or poll this cancel
 * itself; reading the clock (dg_monotonic_ns) is fine. */
typedef void (*dg_cancel_pause_fn)(void *data);

typedef struct dg_cancel {
  atomic_int requested;         /* non-zero once dg_cancel_request() was called */
  _Atomic uint64_t deadline_ns; /* CLOCK_MONOTONIC nanoseconds; 0 means no deadline */
  dg_cancel_pause_fn pause;     /* NULL, or called at every check */
  void *pause_data;             /* its argument */
} dg_cancel;

/* Prepares `cancel` with an absolute monotonic deadline (0 for none) and
 * no pause hook. */
void dg_cancel_init(dg_cancel *cancel, uint64_t deadline_ns);

/* Sets the pause hook (NULL: none) that every later dg_cancel_check()
 * calls with `data`. Set it before the job starts: it is not atomic. The
 * caller owns `data`, which must outlive the job. */
void dg_cancel_set_pause(dg_cancel *cancel, dg_cancel_pause_fn pause, void *data);

/* Moves the deadline to `deadline_ns` (0: none), e.g. when a client starts
 * waiting for work that began without one. Thread-safe: the worker polling
 * `cancel` sees the new deadline at its next check. */
void dg_cancel_set_deadline(dg_cancel *cancel, uint64_t deadline_ns);

/* Asks the job to stop. Thread-safe: any thread may call it at any time. */
void dg_cancel_request(dg_cancel *cancel);

/* 0 to go on, DG_ECANCELED if cancellation was requested, DG_ETIMEDOUT if
 * the deadline has passed (both read after the pause hook, if any, has
 * returned). `cancel` may be NULL (always 0). Thread-safe. */
int dg_cancel_check(dg_cancel *cancel);

/* Current CLOCK_MONOTONIC time in nanoseconds. Thread-safe. */
uint64_t dg_monotonic_ns(void);

#ifdef __cplusplus
}
#endif
#endif
