/* The job queues and their dispatch to the lanes' threads (libuv's pool as
 * a fallback). Only the loop thread touches the queues; a worker thread only
 * reads its own job's request and writes its own job's results, which the
 * lane's done list (under its mutex) or libuv's after-work callback hands
 * back to the loop thread with the needed memory ordering. */
#include "state/jobs.h"
#include "state/level_id.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "state/errors.h"
#include "state/slice.h"

/* How often queued jobs are checked against their deadlines. */
#define SWEEP_INTERVAL_MS 20

static void dispatch(jobs *queues);

/* Workers speculative jobs may use: never all of them. */
static int speculative_slots(int workers, int reserved) {
  return workers - (reserved < workers ? reserved : workers - 1);
}

int jobs_pool_size(int workers, int reserved) {
  (void)reserved;
  return workers;
}

/* SCHED_IDLE threads still get a little CPU; that is the point of running
 * speculative jobs there rather than not at all. Entering it is always
 * allowed; leaving it for SCHED_OTHER at nice 0 needs privilege or an
 * RLIMIT_NICE that reaches 0 (sched(7)), which a pod's non-root user has
 * not: so the speculative threads are lowered once, at their start, and
 * stay there. 0, or the errno of the refusal. */
static int set_idle(bool idle) {
  struct sched_param no_priority = {.sched_priority = 0};
  return pthread_setschedparam(pthread_self(), idle ? SCHED_IDLE : SCHED_OTHER, &no_priority);
}

static int lower_to_idle(void) {
  return set_idle(true);
}

/* A thread's nice value is its own on Linux (setpriority on its thread
 * id); raising it (lower priority) needs no privilege. */
static int lower_to_heavy(void) {
  return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), JOBS_HEAVY_NICE) == 0 ? 0 : errno;
}

/* The interactive lane's threads stay as they were started. */
static int stay(void) {
  return 0;
}

static void work(uv_work_t *req);

/* Worker thread: hands `j` back to the loop. Only the thread that finds
 * `done` empty writes the eventfd; the loop reads the eventfd before it
 * takes the list, so a job added after the take finds the list empty and
 * wakes the loop again, and none is left unseen. */
static void lane_finished(job_lane *lane, job *j) {
  pthread_mutex_lock(&lane->lock);
  bool first = lane->done == NULL;
  j->idle_next = lane->done;
  lane->done = j;
  pthread_mutex_unlock(&lane->lock);
  if (first) {
    uint64_t one = 1;
    /* EAGAIN: the counter is full, so the loop is woken anyway. */
    while (write(lane->wake_fd, &one, sizeof one) < 0 && errno == EINTR)
      ;
  }
}

/* Worker thread: asks for the lane's slice `wanted` (what the thread
 * last asked for is `asked`), and keeps the lane's count of refusals. */
static void follow_slice(job_lane *lane, uint64_t wanted, uint64_t *asked, bool *refused) {
  *asked = wanted;
  bool now_refused = slice_set(wanted) != 0;
  if (now_refused != *refused)
    atomic_fetch_add(&lane->slices_refused, now_refused ? 1 : -1);
  *refused = now_refused;
}

/* A lane's thread: lowered once, then runs the jobs handed to it. */
static void *lane_thread(void *data) {
  job_lane *lane = data;
  if (lane->lower() == 0)
    atomic_fetch_add(&lane->lowered, 1);
  /* Asks once at start even for the default: a thread inherits the slice
   * of the thread that made it. */
  uint64_t slice_ns = UINT64_MAX;
  bool refused = false;
  pid_t thread = (pid_t)syscall(SYS_gettid); /* asked once, not per job */
  pthread_mutex_lock(&lane->lock);
  for (;;) {
    uint64_t wanted = atomic_load(&lane->slice_ns);
    if (wanted != slice_ns) { /* at start, and after jobs_set_slices */
      pthread_mutex_unlock(&lane->lock);
      follow_slice(lane, wanted, &slice_ns, &refused);
      pthread_mutex_lock(&lane->lock);
      continue;
    }
    if (lane->handed == NULL) {
      if (lane->stop)
        break; /* nothing left */
      pthread_cond_wait(&lane->ready, &lane->lock);
      continue;
    }
    job *j = lane->handed;
    lane->handed = j->idle_next;
    if (lane->handed == NULL)
      lane->handed_tail = NULL;
    pthread_mutex_unlock(&lane->lock);
    atomic_store(&j->thread, thread);
    work(&j->work);
    /* A promotion may have raised this thread (root): it goes back down
     * for the next job. Read before the job is handed back. */
    if (atomic_load(&j->raised))
      lane->lower();
    lane_finished(lane, j);
    pthread_mutex_lock(&lane->lock);
  }
  pthread_mutex_unlock(&lane->lock);
  return NULL;
}

static void after_job(job *j, int status);

/* Loop thread: the jobs a lane's threads finished, reported oldest first. */
static void on_lane_done(uv_poll_t *wake, int status, int events) {
  (void)events;
  job_lane *lane = wake->data;
  /* libuv stopped the poll on an error: without it no job of this lane
   * would ever be reported again. */
  if (status < 0)
    uv_poll_start(wake, UV_READABLE, on_lane_done);
  uint64_t count;
  while (read(lane->wake_fd, &count, sizeof count) < 0 && errno == EINTR)
    ;
  pthread_mutex_lock(&lane->lock);
  job *newest = lane->done;
  lane->done = NULL;
  pthread_mutex_unlock(&lane->lock);
  job *done = NULL;
  while (newest != NULL) {
    job *j = newest;
    newest = j->idle_next;
    j->idle_next = done;
    done = j;
  }
  while (done != NULL) {
    job *j = done;
    done = j->idle_next;
    after_job(j, 0);
  }
}

/* Hands `j` to one of the lane's threads. */
static void lane_hand(job_lane *lane, job *j) {
  pthread_mutex_lock(&lane->lock);
  j->idle_next = NULL;
  if (lane->handed_tail != NULL)
    lane->handed_tail->idle_next = j;
  else
    lane->handed = j;
  lane->handed_tail = j;
  pthread_mutex_unlock(&lane->lock);
  /* After the unlock: a thread woken under the lock would find it held
   * and sleep on it again at once (two more system calls a job). A
   * waiter rechecks `handed` under the lock, so no wake-up is lost. */
  pthread_cond_signal(&lane->ready);
}

static void stop_lane_threads(job_lane *lane) {
  pthread_mutex_lock(&lane->lock);
  lane->stop = true;
  pthread_cond_broadcast(&lane->ready);
  pthread_mutex_unlock(&lane->lock);
  for (int i = 0; i < lane->count; i++)
    pthread_join(lane->threads[i], NULL);
  lane->count = 0;
  lane->stop = false;
}

/* Prepares `lane` on `loop` with its lowering; no thread yet. 0 or a
 * libuv error (nothing to close then). */
static int lane_init(job_lane *lane, uv_loop_t *loop, int (*lower)(void)) {
  lane->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (lane->wake_fd < 0)
    return uv_translate_sys_error(errno);
  lane->wake.data = lane;
  int rc = uv_poll_init(loop, &lane->wake, lane->wake_fd);
  if (rc != 0) {
    close(lane->wake_fd);
    return rc;
  }
  if ((rc = uv_poll_start(&lane->wake, UV_READABLE, on_lane_done)) != 0) {
    uv_close((uv_handle_t *)&lane->wake, NULL);
    close(lane->wake_fd);
    return rc;
  }
  pthread_mutex_init(&lane->lock, NULL);
  pthread_cond_init(&lane->ready, NULL);
  lane->lower = lower;
  lane->started = true;
  return 0;
}

/* Starts `count` threads on `lane` and waits (at most a second) for
 * each to lower itself, so that /v1/stats reports what the kernel was
 * told. True when all run lowered; otherwise none is left running and the
 * lane's jobs go elsewhere (lane_of). */
static bool lane_start(job_lane *lane, int count) {
  count = count < JOBS_LANE_THREADS_MAX ? count : JOBS_LANE_THREADS_MAX;
  for (int i = 0; i < count; i++) {
    if (pthread_create(&lane->threads[i], NULL, lane_thread, lane) != 0) {
      stop_lane_threads(lane);
      return false;
    }
    lane->count++;
  }
  for (int waited_ms = 0; atomic_load(&lane->lowered) < lane->count; waited_ms++) {
    if (waited_ms == 1000) {
      stop_lane_threads(lane);
      return false;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return true;
}

static void lane_close(job_lane *lane) {
  if (!lane->started)
    return;
  stop_lane_threads(lane);
  /* uv_close stops the poll at once: the fd is out of epoll when closed. */
  uv_close((uv_handle_t *)&lane->wake, NULL);
  close(lane->wake_fd);
  pthread_cond_destroy(&lane->ready);
  pthread_mutex_destroy(&lane->lock);
  lane->started = false;
}

int jobs_init(jobs *queues, uv_loop_t *loop, int workers, int reserved, long interactive_max,
              long speculative_max, const dg_context *context) {
  *queues = (jobs){.loop = loop, .workers = workers, .reserved = reserved, .context = context};
  queues->max_depth[JOB_INTERACTIVE] = interactive_max;
  queues->max_depth[JOB_SPECULATIVE] = speculative_max;
  queues->client_cost_max = UINT64_MAX; /* no per-client bound until jobs_set_client_limits */
  queues->sweep.data = queues;
  /* Without its lock and condition no job ever pauses: heavy work then
   * only runs at a lower priority, as before. */
  (void)give_way_init(&queues->way, 0, 0);
  int rc = uv_timer_init(loop, &queues->sweep);
  if (rc != 0) {
    give_way_close(&queues->way);
    return rc;
  }
  /* Threads of its own, handing jobs back through an eventfd (job_lane);
   * if they cannot be started, libuv's pool as before. */
  queues->own_threads =
      lane_init(&queues->normal, loop, stay) == 0 && lane_start(&queues->normal, workers);
  if ((rc = lane_init(&queues->idle, loop, lower_to_idle)) != 0) {
    lane_close(&queues->normal);
    give_way_close(&queues->way);
    uv_close((uv_handle_t *)&queues->sweep, NULL);
    return rc;
  }
  /* Idle only if every thread runs and every one was lowered; otherwise
   * speculative jobs share the pool at normal priority, as before. */
  queues->idle_speculative = lane_start(&queues->idle, speculative_slots(workers, reserved));
  return 0;
}

void jobs_set_yield(jobs *queues, int percent, uint64_t linger_ns) {
  give_way_set(&queues->way, percent, linger_ns);
}

bool jobs_set_heavy_lane(jobs *queues, uint64_t cost_min) {
  queues->heavy_cost_min = cost_min;
  if (cost_min == 0 || queues->heavy.started)
    return queues->heavy_lowered;
  if (lane_init(&queues->heavy, queues->loop, lower_to_heavy) != 0)
    return false;
  queues->heavy_lowered = lane_start(&queues->heavy, queues->workers);
  return queues->heavy_lowered;
}

/* Wakes the lane's threads to ask for `ns` (lane_thread). */
static void lane_set_slice(job_lane *lane, uint64_t ns) {
  if (!lane->started) {
    atomic_store(&lane->slice_ns, ns); /* its threads ask as they start */
    return;
  }
  pthread_mutex_lock(&lane->lock);
  atomic_store(&lane->slice_ns, ns);
  pthread_cond_broadcast(&lane->ready);
  pthread_mutex_unlock(&lane->lock);
}

void jobs_set_slices(jobs *queues, uint64_t interactive_ns, uint64_t heavy_ns) {
  lane_set_slice(&queues->normal, interactive_ns);
  lane_set_slice(&queues->heavy, heavy_ns);
}

int jobs_slices_refused(const jobs *queues) {
  return atomic_load(&queues->normal.slices_refused) + atomic_load(&queues->heavy.slices_refused);
}

void jobs_set_client_limits(jobs *queues, uint64_t cost_max, int running_max) {
  queues->client_cost_max = cost_max;
  queues->client_running_max = running_max;
}

static size_t client_bucket(uint64_t key) {
  return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 56) & (JOB_CLIENT_BUCKETS - 1);
}

/* The record of `key`, made when absent; NULL when out of memory. */
static job_client *client_get(jobs *queues, uint64_t key) {
  job_client **link = &queues->clients[client_bucket(key)];
  while (*link != NULL && (*link)->key != key)
    link = &(*link)->next;
  if (*link == NULL && (*link = calloc(1, sizeof **link)) != NULL)
    (*link)->key = key;
  return *link;
}

/* Forgets a client with nothing queued or running (its finish tag too: a
 * client that comes back starts at the virtual time, as a new one). */
static void client_release(jobs *queues, job_client *c) {
  if (c == NULL || c->queued > 0 || c->running > 0)
    return;
  job_client **link = &queues->clients[client_bucket(c->key)];
  while (*link != c)
    link = &(*link)->next;
  *link = c->next;
  free(c);
}

/* A job leaves the interactive queue: to run, or unrun. */
static void client_dequeued(job *j) {
  job_client *c = j->client;
  if (c == NULL)
    return;
  c->queued--;
  c->queued_cost -= j->cost;
}

/* A multi-floor set: every floor in this one job, under the request's one
 * deadline (dg_levelset_generate polls it), serialised as one body. */
/* The deadline covers serialisation (issue 12): the single-level JSON
 * writer polls the cancel as it goes, the other dumps are checked once
 * done. A body finished after the deadline is not sent (504): the client
 * asked for an answer by then, and a late 200 would hide the overrun.
 * Sets j->err for any failure of the dump of `what`. */
static void after_serialising(job *j, const char *what) {
  if (j->rc == 0 && (j->rc = dg_cancel_check(&j->cancel)) != 0) {
    free(j->body);
    j->body = NULL;
    j->body_length = 0;
  }
  if (j->rc == DG_ETIMEDOUT)
    dg_error_set(&j->err, j->rc, "deadline_ms", "the deadline passed while %s was serialised",
                 what);
  else if (j->rc == DG_ECANCELED)
    dg_error_set(&j->err, j->rc, "", "generation was cancelled");
  else if (j->rc != 0)
    dg_error_set(&j->err, j->rc, "", "serialising %s failed: %s", what, dg_strerror(j->rc));
}

/* The view the job asks for (dg_level_apply_view). A full view's JSON
 * gets its level_hash from level_identify, over the bytes it sends, so it
 * is not hashed twice here. Sets j->err on failure. */
static int apply_view(job *j, dg_level **level) {
  if (j->view == DG_VIEW_FULL && j->format == JOB_FORMAT_JSON && j->identify)
    return 0;
  int rc = dg_level_apply_view(level, j->view, &j->cancel);
  if (rc != 0)
    dg_error_set(&j->err, rc, rc == DG_ETIMEDOUT ? "deadline_ms" : "",
                 "making the %s view failed: %s", j->view == DG_VIEW_CLIENT ? "client" : "full",
                 dg_strerror(rc));
  return rc;
}

static void work_floors(job *j) {
  dg_level *levels[DG_FLOORS_MAX] = {0};
  dg_request requests[DG_FLOORS_MAX];
  j->rc = dg_levelset_generate(j->context, &j->request, j->floors, &j->cancel, levels, requests,
                               &j->err);
  for (int k = 0; k < j->floors && j->rc == 0; k++)
    j->rc = apply_view(j, &levels[k]);
  j->generated_ns = dg_monotonic_ns();
  for (int k = 0; k < j->floors && j->rc == 0 && j->format == JOB_FORMAT_SVG; k++)
    j->rc = dg_svg_check_storey(levels[k], &j->svg, &j->err);
  if (j->rc == 0) {
    if (j->format == JOB_FORMAT_ASCII)
      j->rc = dg_levelset_dump_ascii(levels, requests, j->floors, &j->body, &j->body_length);
    else if (j->format == JOB_FORMAT_SVG)
      j->rc = dg_levelset_dump_svg(levels, j->floors, &j->svg, &j->body, &j->body_length);
    else if (j->format == JOB_FORMAT_TILED)
      j->rc = dg_levelset_dump_tiled(levels, j->floors, &j->body, &j->body_length);
    else
      j->rc = dg_levelset_dump_json(levels, requests, j->floors, &j->body, &j->body_length);
    if (j->rc == 0) {
      negotiate_identify(&j->encoding, levels[0]); /* every floor has the same maker */
      j->rc = negotiate_encode(&j->encoding, &j->body, &j->body_length);
    }
    after_serialising(j, "the floors");
  }
  for (int k = 0; k < j->floors; k++)
    dg_level_free(levels[k]);
  j->finished_ns = dg_monotonic_ns();
  atomic_store(&j->thread, 0);
}

/* An audit (POST /v1/audit): the request over its seeds, answered as
 * dungeond.audit/1 JSON, compressed as negotiated. */
static void work_audit(job *j) {
  dg_audit audit = {0};
  j->rc = dg_audit_run(j->context, &j->request, j->audit.first_seed, j->audit.seeds, &j->cancel,
                       NULL, NULL, &audit, &j->err);
  j->generated_ns = dg_monotonic_ns();
  if (j->rc == 0) {
    j->rc = dg_audit_dump_json(&audit, j->audit.bins, &j->body, &j->body_length);
    if (j->rc == 0)
      j->rc = negotiate_encode(&j->encoding, &j->body, &j->body_length);
    after_serialising(j, "the audit");
  }
  dg_audit_free(&audit);
  j->finished_ns = dg_monotonic_ns();
  atomic_store(&j->thread, 0);
}

/* The level's JSON with its level_id and level_hash (level_id.h), then
 * compressed as negotiated: the identity is part of the bytes, so a
 * pre-generated level and a later GET /v1/levels/{level_id} agree. */
static int identified_json(job *j, const dg_level *level) {
  char *text = NULL;
  size_t length = 0;
  int rc = dg_level_dump_json_cancellable(level, &j->cancel, &text, &length);
  if (rc == 0 && (length == 0 || text[length - 1] != '}'))
    rc = DG_EINTERNAL;
  if (rc == 0)
    rc = level_identify(j->level_key, &j->request, level->roomset_sha256, level->table_sha256,
                        &text, &length);
  if (rc == 0)
    rc = negotiate_encode(&j->encoding, &text, &length);
  if (rc != 0) {
    free(text);
    return rc;
  }
  j->body = text;
  j->body_length = length;
  return 0;
}

/* Worker thread: generate, then serialise (and compress, negotiate.c), so
 * the loop thread only copies bytes to the socket. */
static void work(uv_work_t *req) {
  job *j = (job *)req;
  dg_level *level = NULL;
  /* Scheduling policy is per thread on Linux. A promotion on the loop thread
   * may come before, during or after the lowering: whichever of the two sees
   * the other's store raises the priority back. A lane's thread stored its
   * id before the call (lane_thread: gettid is a system call, which costs
   * about a microsecond on a paravirtualised host); one of libuv's asks. */
  if (atomic_load(&j->thread) == 0)
    atomic_store(&j->thread, (pid_t)syscall(SYS_gettid));
  j->started_ns = dg_monotonic_ns();
  j->yielding.started_ns = j->started_ns;
  j->rc = dg_cancel_check(&j->cancel);
  if (j->rc == 0 && j->floors > 1) {
    work_floors(j);
    return;
  }
  if (j->rc == 0 && j->audit.seeds > 0) {
    work_audit(j);
    return;
  }
  if (j->rc == 0) {
    j->rc = dg_generate(j->context, &j->request, &j->cancel, &level, &j->err);
    if (j->rc == 0)
      j->rc = apply_view(j, &level);
  } else {
    dg_error_set(&j->err, j->rc, j->rc == DG_ETIMEDOUT ? "deadline_ms" : "",
                 j->rc == DG_ETIMEDOUT ? "the deadline passed before generation started"
                                       : "generation was cancelled");
  }
  j->generated_ns = dg_monotonic_ns();
  /* A storey this level does not have: the caller's mistake (422), named
   * with the storeys it has. */
  if (j->rc == 0 && j->format == JOB_FORMAT_SVG)
    j->rc = dg_svg_check_storey(level, &j->svg, &j->err);
  if (j->rc == 0) {
    if (j->identify && j->format == JOB_FORMAT_JSON)
      j->rc = identified_json(j, level);
    else
      j->rc = negotiate_job_output(level, j->format, &j->svg, &j->cancel, &j->encoding, &j->body,
                                   &j->body_length);
    after_serialising(j, "the level");
  }
  dg_level_free(level);
  j->finished_ns = dg_monotonic_ns();
  atomic_store(&j->thread, 0);
}

static void after_work(uv_work_t *req, int status) {
  after_job((job *)req, status);
}

/* A promoted job whose idle thread could not be raised was cancelled
 * there (jobs_promote): it runs again from the start as an interactive
 * job, queued as jobs_promote queues a waiting start. The output is the
 * same bytes (deterministic); only the idle attempt's time is lost. */
static void insert_fair(jobs *queues, job *j);

static bool rerun(jobs *queues, job *j) {
  if (!j->rerun || j->stopped || j->rc != DG_ECANCELED)
    return false;
  j->rerun = false;
  j->lower = false;
  j->lane = NULL;
  queues->reruns++;
  uint64_t deadline_ns = atomic_load(&j->cancel.deadline_ns);
  dg_cancel_init(&j->cancel, deadline_ns);
  j->rc = 0;
  dg_error_clear(&j->err);
  free(j->body);
  j->body = NULL;
  j->body_length = 0;
  /* As a promoted queued job: a newcomer at the virtual time, counted
   * against no client (jobs_promote). */
  j->client = NULL;
  j->tag = queues->virtual_time;
  insert_fair(queues, j);
  dispatch(queues);
  return true;
}

static void after_job(job *j, int status) {
  jobs *queues = j->owner;
  queues->running--;
  queues->running_kind[j->kind]--;
  j->running = false;
  if (j->client != NULL) {
    j->client->running--;
    client_release(queues, j->client);
    j->client = NULL;
  }
  for (job **link = &queues->active; *link != NULL; link = &(*link)->next)
    if (*link == j) {
      *link = j->next;
      break;
    }
  j->next = NULL;
  if (j->light) {
    j->light = false;
    give_way_light_finished(&queues->way);
  }
  if (status == UV_ECANCELED) {
    j->rc = DG_ECANCELED;
    dg_error_set(&j->err, DG_ECANCELED, "", "generation was cancelled");
  }
  if (rerun(queues, j))
    return;
  /* Start the next job before reporting, so the pool stays busy while the
   * loop thread writes the answer. */
  dispatch(queues);
  j->done(j);
}

static job *pop(jobs *queues, job_kind kind) {
  job *j = queues->head[kind];
  if (j != NULL) {
    queues->head[kind] = j->next;
    if (queues->head[kind] == NULL)
      queues->tail[kind] = NULL;
    queues->depth[kind]--;
    j->next = NULL;
    client_dequeued(j);
  }
  return j;
}

/* The interactive job to start: the first in tag order whose client may
 * run one more (NULL when none may). Unlinked, its client charged. */
static job *pop_fair(jobs *queues) {
  job *previous = NULL;
  for (job *j = queues->head[JOB_INTERACTIVE]; j != NULL; previous = j, j = j->next) {
    job_client *c = j->client;
    if (c != NULL && queues->client_running_max > 0 && c->running >= queues->client_running_max)
      continue;
    if (previous == NULL)
      queues->head[JOB_INTERACTIVE] = j->next;
    else
      previous->next = j->next;
    if (queues->tail[JOB_INTERACTIVE] == j)
      queues->tail[JOB_INTERACTIVE] = previous;
    queues->depth[JOB_INTERACTIVE]--;
    j->next = NULL;
    client_dequeued(j);
    if (j->tag > queues->virtual_time)
      queues->virtual_time = j->tag;
    return j;
  }
  return NULL;
}

/* Links `j` into the interactive queue in tag order, after the jobs with
 * the same tag (first come, first served among equals). */
static void insert_fair(jobs *queues, job *j) {
  job **link = &queues->head[JOB_INTERACTIVE];
  while (*link != NULL && (*link)->tag <= j->tag)
    link = &(*link)->next;
  j->next = *link;
  *link = j;
  if (j->next == NULL)
    queues->tail[JOB_INTERACTIVE] = j;
  queues->depth[JOB_INTERACTIVE]++;
}

static bool unlink_job(jobs *queues, job *target) {
  job_kind kind = target->kind;
  job *previous = NULL;
  for (job *j = queues->head[kind]; j != NULL; previous = j, j = j->next) {
    if (j != target)
      continue;
    if (previous == NULL)
      queues->head[kind] = j->next;
    else
      previous->next = j->next;
    if (queues->tail[kind] == j)
      queues->tail[kind] = previous;
    queues->depth[kind]--;
    j->next = NULL;
    client_dequeued(j);
    return true;
  }
  return false;
}

static void finish_unrun(job *j, int rc, const char *field, const char *message) {
  if (j->client != NULL && !j->running) {
    client_release(j->owner, j->client);
    j->client = NULL;
  }
  j->rc = rc;
  dg_error_set(&j->err, rc, field, "%s", message);
  j->started_ns = j->generated_ns = j->finished_ns = dg_monotonic_ns();
  j->done(j);
}

static void sweep(uv_timer_t *timer) {
  jobs *queues = timer->data;
  uint64_t now = dg_monotonic_ns();
  /* Expired jobs are unlinked first and reported after the walk: a report
   * answers a client, which may run other requests' handlers that submit
   * or cancel jobs, so the queues must not be walked across it. */
  job *expired = NULL;
  for (int kind = 0; kind < JOB_KINDS; kind++) {
    job *j = queues->head[kind];
    while (j != NULL) {
      job *next = j->next;
      uint64_t deadline_ns = atomic_load(&j->cancel.deadline_ns);
      if (deadline_ns != 0 && now >= deadline_ns) {
        unlink_job(queues, j);
        queues->expired++;
        j->next = expired;
        expired = j;
      }
      j = next;
    }
  }
  while (expired != NULL) {
    job *j = expired;
    expired = j->next;
    j->next = NULL;
    finish_unrun(j, DG_ETIMEDOUT, "deadline_ms",
                 "the deadline passed while the request was queued");
  }
  if (queues->depth[JOB_INTERACTIVE] + queues->depth[JOB_SPECULATIVE] == 0)
    uv_timer_stop(&queues->sweep);
}

/* Where `j` runs: the idle lane (speculative), the heavy lane
 * (interactive of cost >= heavy_cost_min), the normal lane (the rest, and
 * speculative jobs when the idle lane did not start), or libuv's pool
 * (NULL) when the normal lane did not start either. */
static job_lane *lane_of(jobs *queues, const job *j) {
  job_lane *normal = queues->own_threads ? &queues->normal : NULL;
  if (j->kind == JOB_SPECULATIVE)
    return queues->idle_speculative ? &queues->idle : normal;
  return queues->heavy_lowered && j->cost >= queues->heavy_cost_min ? &queues->heavy : normal;
}

/* Heavy jobs (the heavy lane) pause while light interactive jobs run
 * (give_way.h); light ones are counted from their hand-over to their
 * report. A light job queued behind busy workers is not counted: pausing
 * cannot give it a worker. Speculative jobs do not pause: they already run
 * at SCHED_IDLE, and in bench/lobby-bench.py pausing them too cut the
 * pre-generation hit ratio from 0.63 to 0.13-0.19 (the interactive
 * clients always had a light job running or just done) for no
 * measurable gain in interactive p99. */
static void give_way_hook(jobs *queues, job *j) {
  j->light = j->kind == JOB_INTERACTIVE &&
             (queues->heavy_cost_min == 0 || j->cost < queues->heavy_cost_min);
  if (j->lane == &queues->heavy) {
    j->yielding = (give_way_job){.way = &queues->way, .cancel = &j->cancel};
    dg_cancel_set_pause(&j->cancel, give_way_pause, &j->yielding);
  } else {
    dg_cancel_set_pause(&j->cancel, NULL, NULL);
  }
}

static void dispatch(jobs *queues) {
  /* Interactive first, up to `workers` of them whatever speculative jobs
   * run; speculative ones only while `reserved` workers stay free. */
  int slots = speculative_slots(queues->workers, queues->reserved);
  for (;;) {
    /* Without idle priority a speculative job holds one of the `workers`
     * threads, so interactive jobs have fewer. */
    int interactive_slots =
        queues->workers - (queues->idle_speculative ? 0 : queues->running_kind[JOB_SPECULATIVE]);
    job *j = NULL;
    if (queues->running_kind[JOB_INTERACTIVE] < interactive_slots)
      j = pop_fair(queues);
    if (j == NULL && queues->running < slots)
      j = pop(queues, JOB_SPECULATIVE);
    if (j == NULL)
      break;
    if (j->wanted != NULL && !j->wanted(j)) {
      queues->dropped++;
      finish_unrun(j, DG_ECANCELED, "", "the client went away");
      continue;
    }
    if (atomic_load(&j->cancel.deadline_ns) == 0)
      dg_cancel_set_deadline(&j->cancel, dg_monotonic_ns() + j->budget_ns);
    j->lane = lane_of(queues, j);
    j->lower = j->lane == &queues->idle;
    give_way_hook(queues, j);
    atomic_store(&j->raised, false);
    atomic_store(&j->thread, 0);
    j->rerun = false;
    int rc = 0;
    if (j->lane != NULL)
      lane_hand(j->lane, j);
    else
      rc = uv_queue_work(queues->loop, &j->work, work, after_work);
    if (rc == 0) {
      if (j->light)
        give_way_light_started(&queues->way);
      j->running = true;
      if (j->client != NULL)
        j->client->running++;
      queues->running++;
      queues->running_kind[j->kind]++;
      j->next = queues->active;
      queues->active = j;
    } else {
      j->light = false;
      finish_unrun(j, DG_EINTERNAL, "", uv_strerror(rc));
    }
  }
  if (queues->depth[JOB_INTERACTIVE] + queues->depth[JOB_SPECULATIVE] == 0)
    uv_timer_stop(&queues->sweep);
}

int jobs_submit(jobs *queues, job *j, job_kind kind) {
  if (atomic_load(&j->cancel.deadline_ns) == 0 && j->budget_ns == 0)
    return DG_EINVAL; /* issue 12: no job may hold a worker without a deadline */
  if (queues->depth[kind] >= queues->max_depth[kind] && queues->running >= queues->workers)
    return DG_ELIMIT;
  j->owner = queues;
  j->context = queues->context;
  j->kind = kind;
  j->next = NULL;
  j->running = false;
  j->body = NULL;
  j->body_length = 0;
  j->rc = 0;
  dg_error_clear(&j->err);
  j->queued_ns = dg_monotonic_ns();
  j->client = NULL;
  if (kind == JOB_INTERACTIVE) {
    job_client *c = client_get(queues, j->client_key);
    if (c == NULL)
      return DG_ENOMEM;
    uint64_t cost = j->cost > 0 ? j->cost : 1;
    /* A job alone in its client's queue is always taken, however costly,
     * so the bound never refuses all of a client's work. */
    if (c->queued > 0 && c->queued_cost + cost > queues->client_cost_max) {
      queues->client_refused++;
      client_release(queues, c);
      return SRV_ECLIENT_BUSY;
    }
    j->cost = cost;
    j->client = c;
    j->tag = queues->virtual_time > c->finish_tag ? queues->virtual_time : c->finish_tag;
    c->finish_tag = j->tag + cost;
    c->queued++;
    c->queued_cost += cost;
    insert_fair(queues, j);
  } else {
    if (queues->tail[kind] != NULL)
      queues->tail[kind]->next = j;
    else
      queues->head[kind] = j;
    queues->tail[kind] = j;
    queues->depth[kind]++;
  }
  dispatch(queues);
  if (queues->depth[JOB_INTERACTIVE] + queues->depth[JOB_SPECULATIVE] > 0 &&
      !uv_is_active((uv_handle_t *)&queues->sweep)) {
    uv_timer_start(&queues->sweep, sweep, SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS);
  }
  return 0;
}

bool jobs_use_context(const jobs *queues, const dg_context *context) {
  for (const job *j = queues->active; j != NULL; j = j->next)
    if (j->context == context)
      return true;
  for (int kind = 0; kind < JOB_KINDS; kind++)
    for (const job *j = queues->head[kind]; j != NULL; j = j->next)
      if (j->context == context)
        return true;
  return false;
}

void jobs_cancel(jobs *queues, job *j) {
  j->stopped = true;
  if (j->running) {
    dg_cancel_request(&j->cancel);
    give_way_wake(&queues->way);
    if (j->lane == NULL) /* libuv's: it may not have started yet */
      uv_cancel((uv_req_t *)&j->work);
    return;
  }
  if (unlink_job(queues, j))
    finish_unrun(j, DG_ECANCELED, "", "generation was cancelled");
}

void jobs_cancel_all(jobs *queues, bool running_too) {
  for (int kind = 0; kind < JOB_KINDS; kind++) {
    job *j;
    while ((j = pop(queues, (job_kind)kind)) != NULL)
      finish_unrun(j, DG_ECANCELED, "", "the daemon is shutting down");
  }
  for (job *j = queues->active; j != NULL; j = j->next)
    if (running_too || j->kind == JOB_SPECULATIVE || j->rerun) {
      j->stopped = true;
      dg_cancel_request(&j->cancel);
    }
  give_way_wake(&queues->way);
}

void jobs_promote(jobs *queues, job *j) {
  if (j->kind != JOB_SPECULATIVE)
    return;
  /* A client now waits for this job: it gets the whole budget from now,
   * not what is left of the speculative run's (which may have spent it at
   * idle priority behind interactive jobs). */
  uint64_t deadline_ns = dg_monotonic_ns() + j->budget_ns;
  if (j->budget_ns != 0 && atomic_load(&j->cancel.deadline_ns) < deadline_ns)
    dg_cancel_set_deadline(&j->cancel, deadline_ns);
  if (j->running) {
    queues->running_kind[JOB_SPECULATIVE]--;
    queues->running_kind[JOB_INTERACTIVE]++;
    j->kind = JOB_INTERACTIVE;
    if (j->lower) {
      atomic_store(&j->raised, true);
      pid_t thread = atomic_load(&j->thread);
      struct sched_param no_priority = {.sched_priority = 0};
      /* Root (or an RLIMIT_NICE reaching 0) may raise the idle thread; the
       * thread lowers itself again after the job. Anyone else may not: the
       * idle run is cancelled and the job runs again on an interactive
       * worker (rerun), rather than crawl at idle priority behind
       * interactive jobs while a client waits. thread 0: not started yet,
       * or finished (then the result stands). */
      if (thread == 0 || sched_setscheduler(thread, SCHED_OTHER, &no_priority) != 0) {
        j->rerun = true;
        dg_cancel_request(&j->cancel);
      }
    }
    return;
  }
  if (!unlink_job(queues, j))
    return;
  /* A waiting start is served as a newcomer: at the virtual time, after
   * the jobs already tagged with it, and counted against no client (its
   * lobby was paid for by the lobby caps). */
  j->kind = JOB_INTERACTIVE;
  j->client = NULL;
  j->tag = queues->virtual_time;
  insert_fair(queues, j);
  dispatch(queues);
}

void jobs_close(jobs *queues) {
  uv_close((uv_handle_t *)&queues->sweep, NULL);
  lane_close(&queues->normal);
  lane_close(&queues->idle);
  lane_close(&queues->heavy);
  give_way_close(&queues->way);
}
