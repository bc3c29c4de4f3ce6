/* Generation jobs and the two queues that feed libuv's thread pool
 * (interactive before speculative). The loop thread owns both
 * queues. A job generates and serialises its level on a worker thread and
 * reports back on the loop thread through its `done` callback.
 *
 * Interactive jobs may fill `workers` threads. A speculative job starts only
 * while fewer than `workers - reserved` jobs of either kind run. Where the
 * process may lower a thread's priority and raise it back (`idle_speculative`),
 * speculative jobs run at SCHED_IDLE on extra pool threads beyond `workers`:
 * an interactive job never waits for one, and the kernel gives it the CPU a
 * speculative job was using. Elsewhere speculative jobs share the `workers`
 * threads, and delay an interactive job by at most the job already running. */
#ifndef DUNGEOND_JOBS_H
#define DUNGEOND_JOBS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "state/negotiate.h"

typedef enum job_kind { JOB_INTERACTIVE, JOB_SPECULATIVE, JOB_KINDS } job_kind;

typedef struct job job;

/* Called on the loop thread once the job is over: generated (rc 0, `body`
 * set), failed, cancelled (DG_ECANCELED), expired in the queue
 * (DG_ETIMEDOUT) or dropped (DG_ECANCELED). The callee owns the job. */
typedef void (*job_done_fn)(job *j);

/* Called on the loop thread just before a queued job enters the pool;
 * false drops it (its client went away), `done` then reports DG_ECANCELED. */
typedef bool (*job_wanted_fn)(job *j);

struct job {
  uv_work_t work;        /* libuv's request; work.data unused */
  job *next;             /* queue link, or running-list link inside the pool */
  struct jobs *owner;    /* the queues it went through */
  job_kind kind;         /* which queue */
  bool running;          /* inside the pool */
  bool lower;            /* run at idle priority (set before it enters the pool) */
  _Atomic bool raised;   /* promoted while running: back to normal priority */
  _Atomic pid_t thread;  /* the worker running it (Linux thread id), 0 outside */
  dg_request request;    /* what to generate (seed already chosen) */
  int floors;            /* > 1: a multi-floor set of that many floors (request is floor 0's) */
  job_format format;     /* serialisation wanted */
  dg_svg_options svg;    /* for JOB_FORMAT_SVG */
  job_encoding encoding; /* gzip and ETag: inputs from the submitter, outputs from the worker */
  dg_cancel cancel;      /* deadline and cancellation flag */
  uint64_t budget_ns;    /* no deadline yet: now + this on entering the pool or promotion */
  job_done_fn done;      /* completion callback */
  job_wanted_fn wanted;  /* may be NULL */
  void *data;            /* the caller's */
  /* Results, written by the worker, read on the loop thread after it. */
  int rc;       /* 0 or DG_E* */
  dg_error err; /* why, when rc != 0 */
  char *body;   /* serialised level (malloc'd), NULL on failure */
  size_t body_length;
  uint64_t queued_ns, started_ns, generated_ns, finished_ns; /* monotonic */
};

typedef struct jobs {
  uv_loop_t *loop;
  uv_timer_t sweep; /* expires queued jobs past their deadline */
  job *head[JOB_KINDS], *tail[JOB_KINDS];
  long depth[JOB_KINDS];       /* jobs queued, per queue */
  long max_depth[JOB_KINDS];   /* queue limits */
  int workers;                 /* pool size: most jobs inside it */
  int reserved;                /* workers speculative jobs may not use (< workers) */
  int running;                 /* jobs inside the pool now */
  int running_kind[JOB_KINDS]; /* of those, per kind (a promoted job counts as interactive) */
  job *active;                 /* those jobs, linked through `next` */
  const dg_context *context;   /* shared read-only resources, may be NULL */
  uint64_t expired, dropped;   /* jobs that never ran: deadline, client gone */
  bool idle_speculative;       /* speculative jobs run at idle priority on extra threads */
} jobs;

/* Threads libuv's pool needs for `workers` interactive workers, of which
 * `reserved` are never given to speculative jobs: more than `workers` when
 * speculative jobs can run at idle priority on threads of their own. Call
 * before the pool starts (UV_THREADPOOL_SIZE). Thread-safe. */
int jobs_pool_size(int workers, int reserved);

/* Prepares the queues on `loop`. 0 or a libuv error. */
int jobs_init(jobs *q, uv_loop_t *loop, int workers, int reserved, long interactive_max,
              long speculative_max, const dg_context *context);

/* Queues `j` (request, format, cancel, done set by the caller) on queue
 * `kind` and starts it as soon as a worker is free. Every job runs under a
 * deadline: the caller sets cancel's, or leaves it 0 and sets budget_ns
 * (speculative jobs, whose time in the queue does not count). A job with
 * neither is refused (DG_EINVAL). DG_ELIMIT when that queue is full (the
 * job is not taken). */
int jobs_submit(jobs *q, job *j, job_kind kind);

/* Cancels `j`: removed and reported with DG_ECANCELED if still queued,
 * asked to stop through its dg_cancel if running. */
void jobs_cancel(jobs *q, job *j);

/* Makes a speculative job interactive (a lobby's match started while its
 * level was on the way): its deadline becomes now + budget_ns (a client
 * waits from now; never earlier than it was), a queued one moves to the
 * tail of the interactive queue, a running one gets its worker's normal
 * priority back. So a lobby job holds a worker at most twice its budget:
 * once speculatively, once for the start that waits. */
void jobs_promote(jobs *q, job *j);

/* Cancels every queued job (reported with DG_ECANCELED), asks running
 * speculative ones to stop and, when `running_too`, running interactive
 * ones as well. For shutdown. */
void jobs_cancel_all(jobs *q, bool running_too);

/* Closes the sweep timer; `q` must have no job left. */
void jobs_close(jobs *q);

#endif
