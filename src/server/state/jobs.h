/* Generation jobs and the two queues that feed the worker threads
 * (interactive before speculative). The loop thread owns both
 * queues. A job generates and serialises its level on a worker thread and
 * reports back on the loop thread through its `done` callback.
 *
 * Interactive jobs may fill `workers` threads of their own (the normal
 * lane; libuv's pool only if those cannot be started). A speculative
 * job starts only while fewer than `workers - reserved` jobs of either kind
 * run, on threads of its own (`idle_speculative`): `workers - reserved`
 * threads started with the queues and set to SCHED_IDLE once, which needs
 * no privilege (sched(7): lowering is always allowed; only raising back
 * needs root or RLIMIT_NICE, so these threads never go back). An
 * interactive job never waits for one, and the kernel gives it the CPU a
 * speculative job was using. If the threads cannot be started, speculative
 * jobs share the `workers` threads at normal priority instead.
 *
 * Interactive jobs are fair across clients (issue 24 item 3): each carries
 * its client's key (an address, or a token) and an estimated cost, and the
 * queue is served in start-time fair queuing order (Goyal, Vin and Cheng,
 * 1996): a job's tag is max(virtual time, its client's last finish tag),
 * the client's finish tag then grows by the job's cost, and the job with
 * the smallest tag runs next, the virtual time becoming its tag. A client
 * that sends a little is served at once however much another has queued.
 * A client may also run at most `client_running_max` jobs at once (so one
 * worker stays for everyone else) and queue at most `client_cost_max` of
 * cost (more: SRV_ECLIENT_BUSY, a 429). */
#ifndef DUNGEOND_JOBS_H
#define DUNGEOND_JOBS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uv.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "state/give_way.h"
#include "state/negotiate.h"

typedef enum job_kind { JOB_INTERACTIVE, JOB_SPECULATIVE, JOB_KINDS } job_kind;

typedef struct job job;
typedef struct job_lane job_lane;

/* An audit job (POST /v1/audit): the request over `seeds` seeds from
 * `first_seed`, answered as dungeond.audit/1 with `bins` histogram bins.
 * seeds 0: an ordinary level job. */
typedef struct job_audit {
  int seeds, bins;
  uint64_t first_seed;
} job_audit;
typedef struct job_client job_client;

#define JOB_CLIENT_BUCKETS 256 /* per-client table buckets (a power of two) */

/* Called on the loop thread once the job is over: generated (rc 0, `body`
 * set), failed, cancelled (DG_ECANCELED), expired in the queue
 * (DG_ETIMEDOUT) or dropped (DG_ECANCELED). The callee owns the job. */
typedef void (*job_done_fn)(job *j);

/* Called on the loop thread just before a queued job enters the pool;
 * false drops it (its client went away), `done` then reports DG_ECANCELED. */
typedef bool (*job_wanted_fn)(job *j);

struct job {
  uv_work_t work;       /* libuv's request; work.data unused */
  job *next;            /* queue link, or running-list link while it runs */
  struct jobs *owner;   /* the queues it went through */
  job_kind kind;        /* which queue */
  bool running;         /* handed to a worker thread */
  bool lower;           /* runs on the idle lane (set before it is handed to one) */
  job_lane *lane;       /* the lane running it, or NULL for libuv's pool */
  bool rerun;           /* promoted on an idle thread that could not be raised: run again */
  bool stopped;         /* cancelled for good (jobs_cancel, jobs_cancel_all) */
  job *idle_next;       /* link in its lane's handed or done list (`next` links it in `active`) */
  _Atomic bool raised;  /* promoted while running: back to normal priority */
  _Atomic pid_t thread; /* the worker running it (Linux thread id), 0 outside */
  dg_request request;   /* what to generate (seed already chosen) */
  const dg_context *context; /* the room sets current when it was submitted (a reload swaps them) */
  int floors;                /* > 1: a multi-floor set of that many floors (request is floor 0's) */
  job_format format;         /* serialisation wanted */
  dg_svg_options svg;        /* for JOB_FORMAT_SVG */
  job_encoding encoding;     /* gzip and ETag: inputs from the submitter, outputs from the worker */
  bool identify;             /* JSON of one level: append level_id and level_hash (issue 21) */
  dg_view view;              /* the view asked for: client replaces the level by its client view */
  job_audit audit;           /* seeds > 0: an audit of the request instead of one level */
  uint8_t level_key[16];     /* the key level ids are signed with, when identify */
  dg_cancel cancel;          /* deadline and cancellation flag */
  uint64_t budget_ns;        /* no deadline yet: now + this on entering the pool or promotion */
  job_done_fn done;          /* completion callback */
  job_wanted_fn wanted;      /* may be NULL */
  void *data;                /* the caller's */
  uint64_t client_key;       /* interactive: who asked (address or token); set by the caller */
  uint64_t cost;             /* interactive: estimated work (cells); set by the caller, >= 1 */
  uint64_t tag;              /* fair-queuing start tag, set at submission */
  bool light;                /* a light interactive job on a worker: heavy ones give way */
  give_way_job yielding;     /* heavy: its pause hook's state (give_way.h) */
  job_client *client;        /* its client's record while queued or running, or NULL */
  /* Results, written by the worker, read on the loop thread after it. */
  int rc;       /* 0 or DG_E* */
  dg_error err; /* why, when rc != 0 */
  char *body;   /* serialised level (malloc'd), NULL on failure */
  size_t body_length;
  uint64_t queued_ns, started_ns, generated_ns, finished_ns; /* monotonic */
};

/* Threads of their own for each kind of job: each lowers itself once as
 * it starts (`lower`) and never rises again, so no privilege is needed.
 * Three lanes: the interactive jobs' (not lowered), the speculative jobs'
 * (SCHED_IDLE) and the heavy interactive jobs' (nice JOBS_HEAVY_NICE). */
#define JOBS_LANE_THREADS_MAX 256
struct job_lane {
  pthread_t threads[JOBS_LANE_THREADS_MAX];
  int count;                 /* started */
  _Atomic int lowered;       /* of which `lower` succeeded */
  int (*lower)(void);        /* lowers the calling thread: 0 or the errno of the refusal */
  _Atomic uint64_t slice_ns; /* time slice its threads ask for before a job (slice.h); 0: default */
  _Atomic int slices_refused; /* threads whose last request for slice_ns the kernel did not apply */
  pthread_mutex_t lock;       /* guards the two lists and `stop` */
  pthread_cond_t ready;       /* a job was handed over, or stop */
  job *handed, *handed_tail;  /* handed to the threads, oldest first */
  job *done;                  /* finished, newest first, for the loop */
  bool stop;
  /* Tells the loop that `done` has jobs: an eventfd written by the thread
   * that finds `done` empty, read by the loop through `wake`. Not a
   * uv_async_t: libuv's loop spins (up to ~1,000 pauses, then yields) on
   * an async handle whose sender is between its two atomic steps, and on
   * two shared cores the sender is often preempted right there by the very
   * loop thread it woke. */
  int wake_fd;
  uv_poll_t wake;
  bool started; /* lock, cond, wake_fd and wake initialised */
};

/* How far heavy interactive jobs are lowered: at nice 10 a thread weighs
 * about a tenth of one at 0 (the kernel's weights fall by 1.25 a step),
 * so a light job that wakes beside a heavy one gets the core at once, and
 * the heavy one still gets what no one else wants. */
#define JOBS_HEAVY_NICE 10

/* A client with interactive jobs queued or running. */
struct job_client {
  job_client *next;     /* hash chain */
  uint64_t key;         /* job.client_key */
  uint64_t finish_tag;  /* fair-queuing finish tag of its last queued job */
  uint64_t queued_cost; /* cost of its queued jobs */
  int queued, running;  /* its jobs in the queue, in the pool */
};

typedef struct jobs {
  uv_loop_t *loop;
  job_lane normal;  /* interactive jobs, at the daemon's priority */
  job_lane idle;    /* speculative jobs, at SCHED_IDLE */
  job_lane heavy;   /* interactive jobs of cost >= heavy_cost_min, at nice JOBS_HEAVY_NICE */
  uv_timer_t sweep; /* expires queued jobs past their deadline */
  job *head[JOB_KINDS], *tail[JOB_KINDS];
  long depth[JOB_KINDS];       /* jobs queued, per queue */
  long max_depth[JOB_KINDS];   /* queue limits */
  int workers;                 /* pool size: most jobs inside it */
  int reserved;                /* workers speculative jobs may not use (< workers) */
  int running;                 /* jobs handed to worker threads now */
  int running_kind[JOB_KINDS]; /* of those, per kind (a promoted job counts as interactive) */
  job *active;                 /* those jobs, linked through `next` */
  const dg_context *context;   /* shared read-only resources, may be NULL */
  uint64_t expired, dropped;   /* jobs that never ran: deadline, client gone */
  uint64_t reruns;             /* promoted jobs run again: their idle thread could not be raised */
  bool own_threads;            /* interactive jobs run on `normal`, not libuv's pool */
  bool idle_speculative;       /* speculative jobs run on the idle threads */
  bool heavy_lowered;          /* heavy interactive jobs run on the heavy lane */
  uint64_t heavy_cost_min;     /* cost from which an interactive job is heavy; 0: none is */
  job_client *clients[JOB_CLIENT_BUCKETS]; /* clients with interactive work */
  uint64_t virtual_time;                   /* fair queuing: tag of the last job started */
  uint64_t client_cost_max;                /* queued cost one client may have */
  int client_running_max;                  /* interactive jobs one client may run at once */
  uint64_t client_refused;                 /* submissions refused by client_cost_max */
  give_way way;                            /* heavy jobs pause while light ones run */
} jobs;

/* The kernel time slices the lanes' threads ask for (slice.h), in
 * nanoseconds, 0 for the kernel's default: `interactive_ns` for the
 * interactive threads, `heavy_ns` for the heavy lane's. A thread asks
 * before its next job, so this may be called at any time (a reload). Loop
 * thread. */
void jobs_set_slices(jobs *queues, uint64_t interactive_ns, uint64_t heavy_ns);

/* Threads of the lanes whose latest slice request the kernel did not
 * apply (an older kernel: see slice.h). Loop thread. */
int jobs_slices_refused(const jobs *queues);

/* Threads libuv's pool needs for `workers` interactive workers, should
 * the normal lane's threads not start (the pool is then the fallback):
 * `workers`. Call before the pool starts (UV_THREADPOOL_SIZE).
 * Thread-safe. */
int jobs_pool_size(int workers, int reserved);

/* Prepares the queues on `loop` and starts `workers` interactive threads
 * and `workers - reserved` idle threads for speculative jobs. 0 or a libuv
 * error. */
int jobs_init(jobs *queues, uv_loop_t *loop, int workers, int reserved, long interactive_max,
              long speculative_max, const dg_context *context);
/* The per-client bounds of interactive work (see above); after jobs_init. */
void jobs_set_client_limits(jobs *queues, uint64_t cost_max, int running_max);

/* Interactive jobs of estimated cost >= `cost_min` (0: none) run on
 * `workers` threads of their own at nice JOBS_HEAVY_NICE, so that light
 * requests beside them get the CPU first (issue 24 item 3); they still
 * count against the same `workers` slots. After jobs_init, once. Returns
 * whether the lane runs (false: the threads could not be started or
 * lowered; heavy jobs then share the interactive threads at normal priority). */
bool jobs_set_heavy_lane(jobs *queues, uint64_t cost_min);

/* Heavy jobs (on the heavy lane) pause at most `percent` of their time
 * while light interactive jobs run and for `linger_ns` after (give_way.h;
 * percent 0: never). Any time (a reload). Loop thread. */
void jobs_set_yield(jobs *queues, int percent, uint64_t linger_ns);

/* Queues `j` (request, format, cancel, done set by the caller) on queue
 * `kind` and starts it as soon as a worker is free. Every job runs under a
 * deadline: the caller sets cancel's, or leaves it 0 and sets budget_ns
 * (speculative jobs, whose time in the queue does not count). A job with
 * neither is refused (DG_EINVAL). DG_ELIMIT when that queue is full, and
 * SRV_ECLIENT_BUSY when its client already has client_cost_max of cost
 * queued (the job is not taken). */
int jobs_submit(jobs *queues, job *j, job_kind kind);

/* True when a queued or running job uses `context` (a configuration
 * reload keeps the old room sets until none does). Walks every job. */
bool jobs_use_context(const jobs *queues, const dg_context *context);

/* Cancels `j`: removed and reported with DG_ECANCELED if still queued,
 * asked to stop through its dg_cancel if running. */
void jobs_cancel(jobs *queues, job *j);

/* Makes a speculative job interactive (a lobby's match started while its
 * level was on the way): its deadline becomes now + budget_ns (a client
 * waits from now; never earlier than it was), a queued one moves to the
 * tail of the interactive queue, a running one gets its worker's normal
 * priority back. So a lobby job holds a worker at most twice its budget:
 * once speculatively, once for the start that waits. */
void jobs_promote(jobs *queues, job *j);

/* Cancels every queued job (reported with DG_ECANCELED), asks running
 * speculative ones to stop and, when `running_too`, running interactive
 * ones as well. For shutdown. */
void jobs_cancel_all(jobs *queues, bool running_too);

/* Closes the sweep timer and stops the lanes' threads; `q` must have no
 * job left. */
void jobs_close(jobs *queues);

#endif
