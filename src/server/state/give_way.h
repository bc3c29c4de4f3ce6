/* Heavy work gives way to light work (issue 24 item 3).
 *
 * Priorities alone cannot keep a light request's latency near an idle
 * daemon's on two cores: a heavy map at nice 10 still holds a core, and
 * the event loop, the light job and its client then queue for the other
 * one; now and then a runnable thread waits a whole scheduler tick behind
 * the heavy one. So heavy jobs pause outright, at their next safe point
 * (the dg_cancel_check() pause hook, a few ms apart at most), while a
 * light interactive job runs.
 *
 * A pause lasts `linger_ns` beyond the last light job: a light client's
 * next request comes soon after its answer (the answer's write, the
 * client's turn, the next request's parse all need a core too), and a heavy
 * job that took its core back at once would meet it there. Measured with
 * bench/fairness.py (light p99 flooded / idle, median of 5 runs): 2.27
 * without the linger, about what no pauses give; 1.33 with 1 ms.
 *
 * Bounded: a job pauses at most `percent` of its own time (paused time
 * <= percent / (100 - percent) of its running time so far) and each pause
 * ends by half the time left to its deadline, so a stream of light work
 * slows a heavy map at most by 100 / (100 - percent) and never starves
 * it. A cancelled job stops pausing. */
#ifndef DUNGEOND_GIVE_WAY_H
#define DUNGEOND_GIVE_WAY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dungeon/cancel.h"

typedef struct give_way {
  _Atomic int light_running;      /* light interactive jobs on a worker now */
  _Atomic int pausing;            /* jobs waiting in give_way_pause */
  _Atomic int percent;            /* the bound above; 0: never pause */
  _Atomic uint64_t linger_ns;     /* pauses go on this long after the last light job */
  _Atomic uint64_t light_done_ns; /* when the last light job finished */
  pthread_mutex_t lock;           /* with `over`: the pausing jobs' wait */
  pthread_cond_t over;            /* light_running fell to 0, or a job was cancelled */
  _Atomic uint64_t pauses;        /* pauses taken, for /v1/stats */
  _Atomic uint64_t paused_ns;     /* their total length */
  bool started;
} give_way;

/* Prepares `way` with `percent` and `linger_ns`. 0, or an errno (no job
 * ever pauses then). */
int give_way_init(give_way *way, int percent, uint64_t linger_ns);

/* Frees the lock; no job may be pausing. */
void give_way_close(give_way *way);

/* Sets the bound and the linger (a reload); pausing jobs see them at
 * their next pause. Any thread. */
void give_way_set(give_way *way, int percent, uint64_t linger_ns);

/* A light job starts, or is over (loop thread). The last one to finish
 * wakes the pausing jobs. */
void give_way_light_started(give_way *way);
void give_way_light_finished(give_way *way);

/* Wakes the pausing jobs to look at their cancel flags again. Any
 * thread. */
void give_way_wake(give_way *way);

/* What a pausing job is: its start and its paused time so far (the
 * worker's own), and its dg_cancel (requested: no more pauses; its
 * deadline bounds each pause). */
typedef struct give_way_job {
  give_way *way;
  uint64_t started_ns;
  uint64_t paused_ns;
  dg_cancel *cancel;
} give_way_job;

/* The dg_cancel pause hook (`data`: a give_way_job): waits while light
 * jobs run, within the bounds above. Worker thread. */
void give_way_pause(void *data);

#endif
