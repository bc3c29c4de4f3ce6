/* The job queues and their dispatch into uv_queue_work. Only the loop thread
 * touches the queues; a worker thread only reads its own job's request and
 * writes its own job's results, which libuv hands back to the loop thread
 * (the after-work callback) with the needed memory ordering. */
#include "state/jobs.h"
#include "state/level_id.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "state/errors.h"

/* How often queued jobs are checked against their deadlines. */
#define SWEEP_INTERVAL_MS 20

static void dispatch(jobs *q);

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

static void work(uv_work_t *req);

/* An idle thread: lowered once, then runs the jobs handed to it. */
static void *idle_thread(void *data) {
  jobs *q = data;
  idle_threads *t = &q->idle;
  if (set_idle(true) == 0)
    atomic_fetch_add(&t->lowered, 1);
  pthread_mutex_lock(&t->lock);
  for (;;) {
    while (t->handed == NULL && !t->stop)
      pthread_cond_wait(&t->ready, &t->lock);
    if (t->handed == NULL)
      break; /* stop, and nothing left */
    job *j = t->handed;
    t->handed = j->idle_next;
    if (t->handed == NULL)
      t->handed_tail = NULL;
    pthread_mutex_unlock(&t->lock);
    work(&j->work);
    /* A promotion may have raised this thread (root): it goes back down
     * for the next speculative job. Read before the job is handed back. */
    if (atomic_load(&j->raised))
      set_idle(true);
    pthread_mutex_lock(&t->lock);
    j->idle_next = t->done;
    t->done = j;
    pthread_mutex_unlock(&t->lock);
    uv_async_send(&t->wake);
    pthread_mutex_lock(&t->lock);
  }
  pthread_mutex_unlock(&t->lock);
  return NULL;
}

static void after_job(job *j, int status);

/* Loop thread: the jobs the idle threads finished. */
static void on_idle_done(uv_async_t *wake) {
  jobs *q = wake->data;
  pthread_mutex_lock(&q->idle.lock);
  job *done = q->idle.done;
  q->idle.done = NULL;
  pthread_mutex_unlock(&q->idle.lock);
  while (done != NULL) {
    job *j = done;
    done = j->idle_next;
    after_job(j, 0);
  }
}

static void stop_idle_threads(idle_threads *t) {
  pthread_mutex_lock(&t->lock);
  t->stop = true;
  pthread_cond_broadcast(&t->ready);
  pthread_mutex_unlock(&t->lock);
  for (int i = 0; i < t->count; i++)
    pthread_join(t->threads[i], NULL);
  t->count = 0;
}

/* Starts `count` idle threads; false (none left running) if one cannot be. */
static bool start_idle_threads(jobs *q, int count) {
  idle_threads *t = &q->idle;
  for (int i = 0; i < count; i++) {
    if (pthread_create(&t->threads[i], NULL, idle_thread, q) != 0) {
      stop_idle_threads(t);
      return false;
    }
    t->count++;
  }
  return true;
}

int jobs_init(jobs *q, uv_loop_t *loop, int workers, int reserved, long interactive_max,
              long speculative_max, const dg_context *context) {
  *q = (jobs){.loop = loop, .workers = workers, .reserved = reserved, .context = context};
  q->max_depth[JOB_INTERACTIVE] = interactive_max;
  q->max_depth[JOB_SPECULATIVE] = speculative_max;
  q->client_cost_max = UINT64_MAX; /* no per-client bound until jobs_set_client_limits */
  q->sweep.data = q;
  int rc = uv_timer_init(loop, &q->sweep);
  if (rc != 0)
    return rc;
  idle_threads *t = &q->idle;
  pthread_mutex_init(&t->lock, NULL);
  pthread_cond_init(&t->ready, NULL);
  t->wake.data = q;
  if ((rc = uv_async_init(loop, &t->wake, on_idle_done)) != 0) {
    pthread_cond_destroy(&t->ready);
    pthread_mutex_destroy(&t->lock);
    uv_close((uv_handle_t *)&q->sweep, NULL);
    return rc;
  }
  t->started = true;
  int slots = speculative_slots(workers, reserved);
  if (slots > JOBS_IDLE_THREADS_MAX)
    slots = JOBS_IDLE_THREADS_MAX;
  /* Idle only if every thread runs and every one was lowered; otherwise
   * speculative jobs share the pool at normal priority, as before. */
  q->idle_speculative = start_idle_threads(q, slots);
  /* The threads lower themselves as they start: wait (at most a second)
   * for their word, so that /v1/stats reports what the kernel was told. A
   * thread refused SCHED_IDLE never counts: then speculative jobs share
   * the pool at normal priority. */
  for (int waited_ms = 0; q->idle_speculative && atomic_load(&t->lowered) < t->count; waited_ms++) {
    if (waited_ms == 1000) {
      q->idle_speculative = false;
      break;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return 0;
}

void jobs_set_client_limits(jobs *q, uint64_t cost_max, int running_max) {
  q->client_cost_max = cost_max;
  q->client_running_max = running_max;
}

static size_t client_bucket(uint64_t key) {
  return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 56) & (JOB_CLIENT_BUCKETS - 1);
}

/* The record of `key`, made when absent; NULL when out of memory. */
static job_client *client_get(jobs *q, uint64_t key) {
  job_client **link = &q->clients[client_bucket(key)];
  while (*link != NULL && (*link)->key != key)
    link = &(*link)->next;
  if (*link == NULL && (*link = calloc(1, sizeof **link)) != NULL)
    (*link)->key = key;
  return *link;
}

/* Forgets a client with nothing queued or running (its finish tag too: a
 * client that comes back starts at the virtual time, as a new one). */
static void client_release(jobs *q, job_client *c) {
  if (c == NULL || c->queued > 0 || c->running > 0)
    return;
  job_client **link = &q->clients[client_bucket(c->key)];
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

static void work_floors(job *j) {
  dg_level *levels[DG_FLOORS_MAX] = {0};
  dg_request requests[DG_FLOORS_MAX];
  j->rc = dg_levelset_generate(j->context, &j->request, j->floors, &j->cancel, levels, requests,
                               &j->err);
  j->generated_ns = dg_monotonic_ns();
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
    rc = level_identify(j->level_key, &j->request, level->roomset_sha256, &text, &length);
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
   * the other's store raises the priority back. */
  atomic_store(&j->thread, (pid_t)syscall(SYS_gettid));
  j->started_ns = dg_monotonic_ns();
  j->rc = dg_cancel_check(&j->cancel);
  if (j->rc == 0 && j->floors > 1) {
    work_floors(j);
    return;
  }
  if (j->rc == 0 && j->audit.seeds > 0) {
    work_audit(j);
    return;
  }
  if (j->rc == 0)
    j->rc = dg_generate(j->context, &j->request, &j->cancel, &level, &j->err);
  else
    dg_error_set(&j->err, j->rc, j->rc == DG_ETIMEDOUT ? "deadline_ms" : "",
                 j->rc == DG_ETIMEDOUT ? "the deadline passed before generation started"
                                       : "generation was cancelled");
  j->generated_ns = dg_monotonic_ns();
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
static void insert_fair(jobs *q, job *j);

static bool rerun(jobs *q, job *j) {
  if (!j->rerun || j->stopped || j->rc != DG_ECANCELED)
    return false;
  j->rerun = false;
  j->lower = false;
  q->reruns++;
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
  j->tag = q->virtual_time;
  insert_fair(q, j);
  dispatch(q);
  return true;
}

static void after_job(job *j, int status) {
  jobs *q = j->owner;
  q->running--;
  q->running_kind[j->kind]--;
  j->running = false;
  if (j->client != NULL) {
    j->client->running--;
    client_release(q, j->client);
    j->client = NULL;
  }
  for (job **link = &q->active; *link != NULL; link = &(*link)->next)
    if (*link == j) {
      *link = j->next;
      break;
    }
  j->next = NULL;
  if (status == UV_ECANCELED) {
    j->rc = DG_ECANCELED;
    dg_error_set(&j->err, DG_ECANCELED, "", "generation was cancelled");
  }
  if (rerun(q, j))
    return;
  /* Start the next job before reporting, so the pool stays busy while the
   * loop thread writes the answer. */
  dispatch(q);
  j->done(j);
}

static job *pop(jobs *q, job_kind kind) {
  job *j = q->head[kind];
  if (j != NULL) {
    q->head[kind] = j->next;
    if (q->head[kind] == NULL)
      q->tail[kind] = NULL;
    q->depth[kind]--;
    j->next = NULL;
    client_dequeued(j);
  }
  return j;
}

/* The interactive job to start: the first in tag order whose client may
 * run one more (NULL when none may). Unlinked, its client charged. */
static job *pop_fair(jobs *q) {
  job *previous = NULL;
  for (job *j = q->head[JOB_INTERACTIVE]; j != NULL; previous = j, j = j->next) {
    job_client *c = j->client;
    if (c != NULL && q->client_running_max > 0 && c->running >= q->client_running_max)
      continue;
    if (previous == NULL)
      q->head[JOB_INTERACTIVE] = j->next;
    else
      previous->next = j->next;
    if (q->tail[JOB_INTERACTIVE] == j)
      q->tail[JOB_INTERACTIVE] = previous;
    q->depth[JOB_INTERACTIVE]--;
    j->next = NULL;
    client_dequeued(j);
    if (j->tag > q->virtual_time)
      q->virtual_time = j->tag;
    return j;
  }
  return NULL;
}

/* Links `j` into the interactive queue in tag order, after the jobs with
 * the same tag (first come, first served among equals). */
static void insert_fair(jobs *q, job *j) {
  job **link = &q->head[JOB_INTERACTIVE];
  while (*link != NULL && (*link)->tag <= j->tag)
    link = &(*link)->next;
  j->next = *link;
  *link = j;
  if (j->next == NULL)
    q->tail[JOB_INTERACTIVE] = j;
  q->depth[JOB_INTERACTIVE]++;
}

static bool unlink_job(jobs *q, job *target) {
  job_kind kind = target->kind;
  job *previous = NULL;
  for (job *j = q->head[kind]; j != NULL; previous = j, j = j->next) {
    if (j != target)
      continue;
    if (previous == NULL)
      q->head[kind] = j->next;
    else
      previous->next = j->next;
    if (q->tail[kind] == j)
      q->tail[kind] = previous;
    q->depth[kind]--;
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
  jobs *q = timer->data;
  uint64_t now = dg_monotonic_ns();
  /* Expired jobs are unlinked first and reported after the walk: a report
   * answers a client, which may run other requests' handlers that submit
   * or cancel jobs, so the queues must not be walked across it. */
  job *expired = NULL;
  for (int kind = 0; kind < JOB_KINDS; kind++) {
    job *j = q->head[kind];
    while (j != NULL) {
      job *next = j->next;
      uint64_t deadline_ns = atomic_load(&j->cancel.deadline_ns);
      if (deadline_ns != 0 && now >= deadline_ns) {
        unlink_job(q, j);
        q->expired++;
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
  if (q->depth[JOB_INTERACTIVE] + q->depth[JOB_SPECULATIVE] == 0)
    uv_timer_stop(&q->sweep);
}

static void dispatch(jobs *q) {
  /* Interactive first, up to `workers` of them whatever speculative jobs
   * run; speculative ones only while `reserved` workers stay free. */
  int slots = speculative_slots(q->workers, q->reserved);
  for (;;) {
    /* Without idle priority a speculative job holds one of the `workers`
     * threads, so interactive jobs have fewer. */
    int interactive_slots =
        q->workers - (q->idle_speculative ? 0 : q->running_kind[JOB_SPECULATIVE]);
    job *j = NULL;
    if (q->running_kind[JOB_INTERACTIVE] < interactive_slots)
      j = pop_fair(q);
    if (j == NULL && q->running < slots)
      j = pop(q, JOB_SPECULATIVE);
    if (j == NULL)
      break;
    if (j->wanted != NULL && !j->wanted(j)) {
      q->dropped++;
      finish_unrun(j, DG_ECANCELED, "", "the client went away");
      continue;
    }
    if (atomic_load(&j->cancel.deadline_ns) == 0)
      dg_cancel_set_deadline(&j->cancel, dg_monotonic_ns() + j->budget_ns);
    j->lower = j->kind == JOB_SPECULATIVE && q->idle_speculative;
    atomic_store(&j->raised, false);
    atomic_store(&j->thread, 0);
    j->rerun = false;
    int rc = 0;
    if (j->lower) {
      pthread_mutex_lock(&q->idle.lock);
      j->idle_next = NULL;
      if (q->idle.handed_tail != NULL)
        q->idle.handed_tail->idle_next = j;
      else
        q->idle.handed = j;
      q->idle.handed_tail = j;
      pthread_cond_signal(&q->idle.ready);
      pthread_mutex_unlock(&q->idle.lock);
    } else {
      rc = uv_queue_work(q->loop, &j->work, work, after_work);
    }
    if (rc == 0) {
      j->running = true;
      if (j->client != NULL)
        j->client->running++;
      q->running++;
      q->running_kind[j->kind]++;
      j->next = q->active;
      q->active = j;
    } else {
      finish_unrun(j, DG_EINTERNAL, "", uv_strerror(rc));
    }
  }
  if (q->depth[JOB_INTERACTIVE] + q->depth[JOB_SPECULATIVE] == 0)
    uv_timer_stop(&q->sweep);
}

int jobs_submit(jobs *q, job *j, job_kind kind) {
  if (atomic_load(&j->cancel.deadline_ns) == 0 && j->budget_ns == 0)
    return DG_EINVAL; /* issue 12: no job may hold a worker without a deadline */
  if (q->depth[kind] >= q->max_depth[kind] && q->running >= q->workers)
    return DG_ELIMIT;
  j->owner = q;
  j->context = q->context;
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
    job_client *c = client_get(q, j->client_key);
    if (c == NULL)
      return DG_ENOMEM;
    uint64_t cost = j->cost > 0 ? j->cost : 1;
    /* A job alone in its client's queue is always taken, however costly,
     * so the bound never refuses all of a client's work. */
    if (c->queued > 0 && c->queued_cost + cost > q->client_cost_max) {
      q->client_refused++;
      client_release(q, c);
      return SRV_ECLIENT_BUSY;
    }
    j->cost = cost;
    j->client = c;
    j->tag = q->virtual_time > c->finish_tag ? q->virtual_time : c->finish_tag;
    c->finish_tag = j->tag + cost;
    c->queued++;
    c->queued_cost += cost;
    insert_fair(q, j);
  } else {
    if (q->tail[kind] != NULL)
      q->tail[kind]->next = j;
    else
      q->head[kind] = j;
    q->tail[kind] = j;
    q->depth[kind]++;
  }
  dispatch(q);
  if (q->depth[JOB_INTERACTIVE] + q->depth[JOB_SPECULATIVE] > 0 &&
      !uv_is_active((uv_handle_t *)&q->sweep)) {
    uv_timer_start(&q->sweep, sweep, SWEEP_INTERVAL_MS, SWEEP_INTERVAL_MS);
  }
  return 0;
}

bool jobs_use_context(const jobs *q, const dg_context *context) {
  for (const job *j = q->active; j != NULL; j = j->next)
    if (j->context == context)
      return true;
  for (int kind = 0; kind < JOB_KINDS; kind++)
    for (const job *j = q->head[kind]; j != NULL; j = j->next)
      if (j->context == context)
        return true;
  return false;
}

void jobs_cancel(jobs *q, job *j) {
  j->stopped = true;
  if (j->running) {
    dg_cancel_request(&j->cancel);
    if (!j->lower) /* libuv's: it may not have started yet */
      uv_cancel((uv_req_t *)&j->work);
    return;
  }
  if (unlink_job(q, j))
    finish_unrun(j, DG_ECANCELED, "", "generation was cancelled");
}

void jobs_cancel_all(jobs *q, bool running_too) {
  for (int kind = 0; kind < JOB_KINDS; kind++) {
    job *j;
    while ((j = pop(q, (job_kind)kind)) != NULL)
      finish_unrun(j, DG_ECANCELED, "", "the daemon is shutting down");
  }
  for (job *j = q->active; j != NULL; j = j->next)
    if (running_too || j->kind == JOB_SPECULATIVE || j->rerun) {
      j->stopped = true;
      dg_cancel_request(&j->cancel);
    }
}

void jobs_promote(jobs *q, job *j) {
  if (j->kind != JOB_SPECULATIVE)
    return;
  /* A client now waits for this job: it gets the whole budget from now,
   * not what is left of the speculative run's (which may have spent it at
   * idle priority behind interactive jobs). */
  uint64_t deadline_ns = dg_monotonic_ns() + j->budget_ns;
  if (j->budget_ns != 0 && atomic_load(&j->cancel.deadline_ns) < deadline_ns)
    dg_cancel_set_deadline(&j->cancel, deadline_ns);
  if (j->running) {
    q->running_kind[JOB_SPECULATIVE]--;
    q->running_kind[JOB_INTERACTIVE]++;
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
  if (!unlink_job(q, j))
    return;
  /* A waiting start is served as a newcomer: at the virtual time, after
   * the jobs already tagged with it, and counted against no client (its
   * lobby was paid for by the lobby caps). */
  j->kind = JOB_INTERACTIVE;
  j->client = NULL;
  j->tag = q->virtual_time;
  insert_fair(q, j);
  dispatch(q);
}

void jobs_close(jobs *q) {
  uv_close((uv_handle_t *)&q->sweep, NULL);
  if (q->idle.started) {
    stop_idle_threads(&q->idle);
    uv_close((uv_handle_t *)&q->idle.wake, NULL);
    pthread_cond_destroy(&q->idle.ready);
    pthread_mutex_destroy(&q->idle.lock);
    q->idle.started = false;
  }
}
