/* See http.h. libmicrohttpd runs without threads of its own (MHD_USE_EPOLL,
 * external polling); its epoll fd sits in a uv_poll_t, MHD_get_timeout arms
 * a uv_timer_t, and pump() runs MHD and re-arms the timer. Because
 * MHD_resume_connection does not wake the loop in this mode, http_resume
 * arms a zero timer that runs MHD at the loop's next turn. There are two such listeners: the API,
 * and the optional health listener (health_listen) that serves only the probes and /metrics, so
 * that liveness is answered whatever the API's clients do. This file also holds request ids, the
 * per-request log line and the answers written past MHD to half-closed clients; conns.c guards the
 * connections. */
#include "transport/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "transport/listen.h"
#include "transport/log.h"
#include "transport/problem_body.h"

static void pump(listener *endpoint);

static void on_timer(uv_timer_t *timer) {
  pump(timer->data);
}

static void on_poll(uv_poll_t *poll, int status, int events) {
  (void)status;
  (void)events;
  pump(poll->data);
}

static void pump(listener *endpoint) {
  http *transport = endpoint->owner;
  if (transport->stopped || endpoint->mhd == NULL)
    return;
  if (endpoint->in_pump) {
    /* A resume from inside MHD_run (a job dropped while being submitted):
     * run MHD once more before leaving. */
    endpoint->pump_again = true;
    return;
  }
  endpoint->in_pump = true;
  int reruns = 0;
  do {
    endpoint->pump_again = false;
    uint64_t closed = endpoint->closed;
    MHD_run(endpoint->mhd);
    /* Issue 12 item 1: at connections_max (or after an accept() error such
     * as EMFILE) MHD 0.9.75 takes its listening socket out of its epoll set,
     * and puts it back only at the start of a later run. When connections
     * closed during this run, that later run is now, or the listener would
     * wait for an unrelated event that may never come. */
    if (endpoint->closed != closed && reruns++ < 4)
      endpoint->pump_again = true;
  } while (endpoint->pump_again);
  /* Issue 24 item 2: at the limit, idle keep-alives make room for
   * connections waiting in the backlog (MHD would leave them there). */
  conns_reclaim(transport, endpoint, endpoint->listen_fd);
  endpoint->in_pump = false;
  MHD_UNSIGNED_LONG_LONG timeout = 0;
  if (MHD_get_timeout(endpoint->mhd, &timeout) == MHD_YES)
    uv_timer_start(&endpoint->timer, on_timer, (uint64_t)timeout, 0);
  else
    uv_timer_stop(&endpoint->timer);
}

void http_pump(http *transport) {
  pump(&transport->api);
  pump(&transport->health);
}

/* Accepts the caller's X-Request-Id when it is short and plain, else makes
 * one, so the id is safe to echo and to log unescaped. */
static void set_request_id(request *r) {
  const char *given = MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, "X-Request-Id");
  if (given != NULL) {
    size_t length = strlen(given);
    bool plain = length > 0 && length < REQUEST_ID_MAX;
    for (size_t i = 0; plain && i < length; i++) {
      char c = given[i];
      plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == ':';
    }
    if (plain) {
      memcpy(r->id, given, length + 1);
      return;
    }
  }
  http *transport = r->transport;
  snprintf(r->id, sizeof r->id, "%08x-%012llx", transport->settings.id_prefix,
           (unsigned long long)++transport->id_counter);
}

uint64_t http_new_id(http *transport) {
  /* splitmix64 (Steele, Lea, Flood 2014) of key + n * golden ratio. */
  uint64_t z = transport->span_key + ++transport->span_counter * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

typedef struct trace_headers {
  int traceparents;                /* traceparent headers seen */
  const char *traceparent;         /* the first */
  char state[TRACE_STATE_MAX + 2]; /* every tracestate, joined by commas */
  size_t state_length;
  bool state_too_long;
} trace_headers;

static enum MHD_Result collect_trace(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value) {
  (void)kind;
  trace_headers *t = cls;
  if (value == NULL)
    return MHD_YES;
  if (strcasecmp(key, "traceparent") == 0) {
    if (t->traceparents++ == 0)
      t->traceparent = value;
  } else if (strcasecmp(key, "tracestate") == 0) {
    /* Several tracestate headers are one list (RFC 9110 5.3). */
    size_t n = strlen(value), sep = t->state_length > 0;
    if (t->state_length + sep + n > TRACE_STATE_MAX)
      t->state_too_long = true;
    else {
      if (sep)
        t->state[t->state_length++] = ',';
      memcpy(t->state + t->state_length, value, n + 1);
      t->state_length += n;
    }
  }
  return MHD_YES;
}

/* The request's trace: the caller's when it sent exactly one valid
 * traceparent (then its tracestate too, if valid), else a new trace; the
 * daemon's span either way (W3C Trace Context, section 3: an invalid
 * traceparent starts a new trace, and tracestate goes with it). New traces
 * are sampled (flag 01): their spans are written to the log. */
static void set_trace(request *r) {
  trace_headers t = {0};
  MHD_get_connection_values(r->connection, MHD_HEADER_KIND, collect_trace, &t);
  trace_context *c = &r->trace;
  if (t.traceparents == 1 && trace_parse_parent(t.traceparent, c)) {
    if (!t.state_too_long && t.state_length > 0 && trace_state_valid(t.state))
      memcpy(c->state, t.state, t.state_length + 1);
  } else {
    uint64_t high = http_new_id(r->transport), low = http_new_id(r->transport);
    trace_id_text(high, low, c->trace_id);
    c->parent_id[0] = '\0';
    c->flags = 1;
  }
  trace_span_text(http_new_id(r->transport), c->span_id);
  trace_format_parent(c, r->traceparent);
}

/* The headers the owner adds to every answer of `r`. */
static int owner_headers(const request *r, const char **names, const char **values) {
  const http *transport = r->transport;
  if (transport->hooks.answer_headers == NULL)
    return 0;
  int count = transport->hooks.answer_headers(r, names, values);
  return count < 0 ? 0 : count > HTTP_HEADERS_MAX ? HTTP_HEADERS_MAX : count;
}

static void add_common_headers(request *r, struct MHD_Response *response,
                               const char *content_type) {
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  MHD_add_response_header(response, "X-Request-Id", r->id);
  MHD_add_response_header(response, "traceparent", r->traceparent);
  if (r->trace.state[0] != '\0')
    MHD_add_response_header(response, "tracestate", r->trace.state);
  const char *names[HTTP_HEADERS_MAX], *values[HTTP_HEADERS_MAX];
  int count = owner_headers(r, names, values);
  for (int i = 0; i < count; i++)
    MHD_add_response_header(response, names[i], values[i]);
  if (r->transport->draining)
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* An answer written to a half-closed client past MHD. libmicrohttpd
 * 0.9.75 closes a connection as soon as it reads end-of-file, and a
 * suspended connection whose client half-closed (shutdown(SHUT_WR) after a
 * complete request, issue 12 item 7) reads it on resume: the answer was
 * lost. So the answer of such a request goes to a duplicate of its socket
 * from the loop, and MHD is left to close its own descriptor. */
typedef struct detached {
  uv_poll_t poll;               /* writable events of `fd` */
  http *transport;              /* back pointer */
  struct detached *prev, *next; /* the transport's list */
  int fd;                       /* dup of the connection's socket */
  char *data;                   /* head and body */
  size_t length, sent;          /* bytes in `data`, bytes written */
  uint64_t progress_ns;         /* last write that made progress */
} detached;

static void on_detached_closed(uv_handle_t *handle) {
  detached *w = handle->data;
  close(w->fd);
  free(w->data);
  free(w);
}

static void detached_end(detached *w) {
  http *transport = w->transport;
  if (w->prev != NULL)
    w->prev->next = w->next;
  else
    transport->detached = w->next;
  if (w->next != NULL)
    w->next->prev = w->prev;
  transport->guard.send_queued -= (long)(w->length - w->sent);
  shutdown(w->fd, SHUT_WR);
  uv_close((uv_handle_t *)&w->poll, on_detached_closed);
}

static void on_detached_writable(uv_poll_t *poll, int status, int events) {
  (void)events;
  detached *w = poll->data;
  while (status == 0 && w->sent < w->length) {
    ssize_t wrote =
        send(w->fd, w->data + w->sent, w->length - w->sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (wrote <= 0) {
      if (wrote < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
      break;
    }
    w->sent += (size_t)wrote;
    w->transport->guard.send_queued -= (long)wrote;
    w->progress_ns = dg_monotonic_ns();
  }
  detached_end(w);
}

/* Ends detached answers without progress for connection_timeout_s, or all
 * of them (`all`: drain timeout). */
static void sweep_detached(http *transport, uint64_t now, bool all) {
  uint64_t idle = (uint64_t)transport->settings.connection_timeout_s * 1000000000u;
  for (detached *w = transport->detached, *next; w != NULL; w = next) {
    next = w->next;
    if (all || now - w->progress_ns >= idle)
      detached_end(w);
  }
}

/* The peer has shut down its sending side (or closed): a read would see
 * end-of-file. */
static bool peer_half_closed(request *r) {
  if (r->conn == NULL || r->conn->closing)
    return false;
  char byte;
  return recv(r->conn->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Writes the whole answer of `r` to a duplicate of its socket (see
 * `detached`); false when it cannot (then MHD answers as usual). */
static bool answer_detached(request *r, int status, const char *content_type, char *body,
                            size_t length, const char *const *headers) {
  http *transport = r->transport;
  char head[2560], date[64], extra[1536] = "";
  time_t now = time(NULL);
  struct tm utc;
  gmtime_r(&now, &utc);
  strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  size_t at = (size_t)snprintf(extra, sizeof extra, "traceparent: %s\r\n", r->traceparent);
  if (r->trace.state[0] != '\0' && at < sizeof extra)
    at += (size_t)snprintf(extra + at, sizeof extra - at, "tracestate: %s\r\n", r->trace.state);
  const char *names[HTTP_HEADERS_MAX], *values[HTTP_HEADERS_MAX];
  int count = owner_headers(r, names, values);
  for (int i = 0; i < count && at < sizeof extra; i++)
    at += (size_t)snprintf(extra + at, sizeof extra - at, "%s: %s\r\n", names[i], values[i]);
  if ((status == 503 || status == 429) && at < sizeof extra)
    at += (size_t)snprintf(extra + at, sizeof extra - at, "Retry-After: %ld\r\n",
                           transport->settings.retry_after_s);
  for (int i = 0; headers != NULL && headers[i] != NULL && at < sizeof extra; i += 2)
    if (!((status == 503 || status == 429) &&
          strcasecmp(headers[i], MHD_HTTP_HEADER_RETRY_AFTER) == 0))
      at +=
          (size_t)snprintf(extra + at, sizeof extra - at, "%s: %s\r\n", headers[i], headers[i + 1]);
  if (at >= sizeof extra)
    return false;
  /* HEAD and 304 answers carry no body (RFC 9110 9.3.2, 15.4.5). */
  size_t body_bytes = strcmp(r->method, "HEAD") == 0 || status == 304 ? 0 : length;
  const char *reason = MHD_get_reason_phrase_for((unsigned int)status);
  int head_length = snprintf(head, sizeof head,
                             "HTTP/1.1 %d %s\r\nDate: %s\r\nConnection: close\r\nContent-Type: "
                             "%s\r\nX-Request-Id: %s\r\n%sContent-Length: %zu\r\n\r\n",
                             status, reason, date, content_type, r->id, extra, length);
  if (head_length <= 0 || (size_t)head_length >= sizeof head)
    return false;
  detached *w = calloc(1, sizeof *w);
  char *data = malloc((size_t)head_length + body_bytes + 1);
  int fd = dup(r->conn->fd);
  if (w == NULL || data == NULL || fd < 0 || uv_poll_init(transport->loop, &w->poll, fd) != 0) {
    if (fd >= 0)
      close(fd);
    free(data);
    free(w);
    return false;
  }
  memcpy(data, head, (size_t)head_length);
  memcpy(data + head_length, body, body_bytes);
  free(body);
  w->transport = transport;
  w->fd = fd;
  w->data = data;
  w->length = (size_t)head_length + body_bytes;
  w->progress_ns = dg_monotonic_ns();
  w->poll.data = w;
  w->next = transport->detached;
  if (transport->detached != NULL)
    transport->detached->prev = w;
  transport->detached = w;
  transport->guard.send_queued += (long)w->length;
  uv_poll_start(&w->poll, UV_WRITABLE, on_detached_writable);
  r->status = status;
  r->answered = true;
  r->detached = true;
  r->bytes_out = length;
  return true;
}

void http_respond(request *r, int status, const char *content_type, char *body, size_t length,
                  const char *const *headers) {
  if (body == NULL) {
    /* Out of memory while building the answer: say so without allocating. */
    status = 500;
    content_type = "text/plain";
    body = NULL;
    length = 0;
  }
  http *transport = r->transport;
  if (body != NULL && !conns_admit(transport, length)) {
    /* Issue 12 item 4: the budget of bytes queued to clients is full of
     * readers that are still reading: refuse this answer rather than hold
     * it (the stalled ones were closed already). */
    free(body);
    transport->counters.rejected_send_queue++;
    char detail[160];
    snprintf(detail, sizeof detail,
             "%ld response bytes are queued to clients (limits.send_queue_bytes_max %ld); "
             "retry later",
             transport->guard.send_queued, transport->settings.send_queue_bytes_max);
    size_t problem_length = 0;
    char *problem = problem_body(503, "send-queue-full", "Too busy sending", detail, r->path, r->id,
                                 NULL, &problem_length);
    http_respond(r, 503, "application/problem+json", problem, problem_length, NULL);
    return;
  }
  if (r->suspended && body != NULL && peer_half_closed(r) &&
      answer_detached(r, status, content_type, body, length, headers))
    return;
  struct MHD_Response *response = MHD_create_response_from_buffer(
      length, body != NULL ? body : (void *)"",
      body != NULL ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (response == NULL) {
    free(body);
    return;
  }
  add_common_headers(r, response, content_type);
  /* Every 503 and 429 says when to come back, with the configured delay. */
  bool retry = status == 503 || status == 429;
  if (retry) {
    char seconds[24];
    snprintf(seconds, sizeof seconds, "%ld", transport->settings.retry_after_s);
    MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, seconds);
  }
  for (int i = 0; headers != NULL && headers[i] != NULL; i += 2)
    if (!(retry && strcasecmp(headers[i], MHD_HTTP_HEADER_RETRY_AFTER) == 0))
      MHD_add_response_header(response, headers[i], headers[i + 1]);
  r->bytes_out = length;
  if (r->suspended) {
    r->pending = response;
    r->pending_status = status;
    return;
  }
  r->status = status;
  r->answered = true;
  if (MHD_queue_response(r->connection, (unsigned)status, response) == MHD_YES)
    conns_response_queued(r, length);
  MHD_destroy_response(response);
}

static void on_wake(uv_timer_t *timer) {
  http_pump(timer->data);
}

void http_suspend(request *r) {
  if (r->answered || r->suspended)
    return;
  r->suspended = true;
  MHD_suspend_connection(r->connection);
}

/* Hands a suspended connection back to MHD; false when it was not
 * suspended. The caller then runs MHD, now or soon. */
static bool resume_connection(request *r) {
  if (!r->suspended)
    return false;
  r->suspended = false;
  MHD_resume_connection(r->connection);
  return true;
}

void http_resume(request *r) {
  /* A resume does not wake the loop in external-polling mode: run MHD now,
   * which sends the answer (from inside MHD_run, pump runs once more). */
  if (resume_connection(r))
    http_pump(r->transport);
}

void http_resume_soon(request *r) {
  if (!resume_connection(r))
    return;
  http *transport = r->transport;
  if (!uv_is_active((uv_handle_t *)&transport->wake))
    uv_timer_start(&transport->wake, on_wake, 0, 0);
}

const char *http_header(const request *r, const char *name) {
  return MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, name);
}

bool http_peer_gone(const request *r) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(r->connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == NULL)
    return false;
  char byte;
  ssize_t got = recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return got < 0 && errno != EAGAIN && errno != EWOULDBLOCK;
}

const char *http_query(const request *r, const char *name) {
  return MHD_lookup_connection_value(r->connection, MHD_GET_ARGUMENT_KIND, name);
}

typedef struct query_walk {
  bool (*each)(void *data, const char *name, const char *value); /* the caller's */
  void *data;                                                    /* its data */
} query_walk;

static enum MHD_Result query_pair(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value) {
  (void)kind;
  const query_walk *walk = cls;
  return walk->each(walk->data, key, value != NULL ? value : "") ? MHD_YES : MHD_NO;
}

int http_query_each(const request *r, bool (*each)(void *data, const char *name, const char *value),
                    void *data) {
  query_walk walk = {each, data};
  return MHD_get_connection_values(r->connection, MHD_GET_ARGUMENT_KIND, query_pair, &walk);
}

/* The transport's part of the request's log line, opened; the owner adds
 * its own members in its completed hook. Written straight into the line:
 * built as a json_t, it was about a third of the event loop's instructions
 * per request. */
static void log_line(const request *r, json_line *line) {
  char when[LOG_TIME_MAX];
  log_time(when);
  double total_ms = (double)(dg_monotonic_ns() - r->start_ns) / 1e6;
  json_line_open(line, NULL, '{');
  json_line_string(line, "time", when);
  json_line_string(line, "level", r->status >= 500 ? "error" : "info");
  json_line_string(line, "request_id", r->id);
  json_line_string(line, "peer", r->peer);
  json_line_string(line, "method", r->method);
  json_line_string(line, "path", r->path);
  json_line_int(line, "status", r->status);
  json_line_real(line, "total_ms", total_ms);
  json_line_int(line, "bytes", (long long)r->bytes_out);
  if (r->forwarded[0] != '\0')
    json_line_string(line, "forwarded_for", r->forwarded);
  json_line_string(line, "trace_id", r->trace.trace_id);
  json_line_string(line, "span_id", r->trace.span_id);
  if (r->trace.parent_id[0] != '\0')
    json_line_string(line, "parent_id", r->trace.parent_id);
}

static void on_log_flush(uv_timer_t *timer) {
  http *transport = timer->data;
  log_batch_flush(&transport->request_log);
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
  (void)connection;
  (void)toe;
  listener *endpoint = cls;
  http *transport = endpoint->owner;
  request *r = *con_cls;
  if (r == NULL)
    return;
  *con_cls = NULL;
  conns_request_done(r);
  if (!r->answered)
    r->status = 499; /* the client went away before an answer */
  json_line *line = NULL;
  if (transport->settings.log_requests) {
    line = &transport->log_text;
    json_line_clear(line);
    log_line(r, line);
  }
  if (transport->hooks.completed != NULL)
    transport->hooks.completed(r, line);
  if (line != NULL) {
    json_line_close(line, '}');
    if (line->failed)
      log_batch_lost(1);
    else
      log_batch_add(&transport->request_log, line->data, line->length);
    if (transport->stopped) {
      /* The listeners' last requests, completing as http_stop closes
       * them: no timer will write their lines, so they go out now. */
      log_batch_free(&transport->request_log);
      json_line_free(line);
    } else if (!uv_is_active((uv_handle_t *)&transport->log_flush)) {
      uv_timer_start(&transport->log_flush, on_log_flush, LOG_FLUSH_MS, 0);
    }
  }
  if (r->pending != NULL)
    MHD_destroy_response(r->pending);
  free(r->body);
  free(r);
  transport->requests_open--;
}

/* Bytes of one UTF-8 character at `text` that is valid (shortest form, no
 * surrogate, at most U+10FFFF) and not a control character; 0 otherwise. */
static size_t printable_char(const unsigned char *text) {
  unsigned char c = text[0];
  if (c >= 0x20 && c < 0x7f)
    return 1;
  size_t length;
  unsigned char low = 0x80, high = 0xbf; /* range of the second byte */
  if (c >= 0xc2 && c <= 0xdf)
    length = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c == 0xe0)
      low = 0xa0;
    else if (c == 0xed)
      high = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c == 0xf0)
      low = 0x90;
    else if (c == 0xf4)
      high = 0x8f;
  } else
    return 0;
  if (text[1] < low || text[1] > high)
    return 0;
  for (size_t i = 2; i < length; i++)
    if (text[i] < 0x80 || text[i] > 0xbf)
      return 0;
  return length;
}

/* Copies `text` into `out` (`size` bytes) as printable UTF-8, writing each
 * other byte as %XX, so that it is always safe in JSON and in a log line;
 * stops at a character boundary when `out` is full. Returns 0, 400 when
 * `text` had other bytes, 414 when it did not fit. */
static int copy_printable(char *out, size_t size, const char *text) {
  const unsigned char *in = (const unsigned char *)text;
  size_t at = 0;
  int problem = 0;
  while (*in != '\0') {
    size_t length = printable_char(in);
    if (length == 0) {
      problem = 400;
      if (at + 3 >= size)
        break;
      snprintf(out + at, size - at, "%%%02X", *in);
      at += 3;
      in++;
      continue;
    }
    if (at + length >= size)
      break;
    memcpy(out + at, in, length);
    at += length;
    in += length;
  }
  out[at] = '\0';
  return *in != '\0' && problem == 0 ? 414 : problem;
}

/* The peer's address as "IP:port" ("[IP]:port" for IPv6) into r->peer, and
 * as 16 bytes in `ip` (an IPv4 one mapped, ::ffff:a.b.c.d); false when the
 * peer has no IP address. */
static bool set_peer(request *r, uint8_t ip[16]) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(r->connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL)
    return false;
  char text[INET6_ADDRSTRLEN];
  if (info->client_addr->sa_family == AF_INET) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)info->client_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    memcpy(ip, mapped, sizeof mapped);
    memcpy(ip + 12, &in->sin_addr, 4);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    snprintf(r->peer, sizeof r->peer, "%s:%u", text, ntohs(in->sin_port));
    return true;
  }
  if (info->client_addr->sa_family == AF_INET6) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)info->client_addr;
    memcpy(ip, &in6->sin6_addr, 16);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    snprintf(r->peer, sizeof r->peer, "[%s]:%u", text, ntohs(in6->sin6_port));
    return true;
  }
  return false;
}

/* Whether the 16-byte address `ip` is in one of the trusted networks. */
static bool trusted(const http_settings *settings, const uint8_t ip[16]) {
  for (int i = 0; i < settings->trusted_proxy_count; i++) {
    bool inside = true;
    for (int b = 0; b < 16 && inside; b++)
      inside = (ip[b] & settings->trusted_proxy_masks[i][b]) == settings->trusted_proxies[i][b];
    if (inside)
      return true;
  }
  return false;
}

/* From a trusted proxy, the client X-Forwarded-For names into
 * r->forwarded: the rightmost address that is not itself a trusted proxy
 * (each proxy appends the address it saw, so the ones left of the first
 * untrusted hop are the client's to write and believe nothing). Only an
 * address that parses is kept, written back by inet_ntop, so the header
 * cannot put text of its choice in the log. */
static void set_forwarded(request *r, const uint8_t peer_ip[16]) {
  const http_settings *settings = &r->transport->settings;
  if (!trusted(settings, peer_ip))
    return;
  const char *header =
      MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, "X-Forwarded-For");
  if (header == NULL)
    return;
  size_t end = strlen(header);
  while (end > 0) {
    size_t start = end;
    while (start > 0 && header[start - 1] != ',')
      start--;
    char hop[INET6_ADDRSTRLEN + 1];
    size_t from = start, to = end;
    while (from < to && (header[from] == ' ' || header[from] == '\t'))
      from++;
    while (to > from && (header[to - 1] == ' ' || header[to - 1] == '\t'))
      to--;
    if (to - from >= sizeof hop)
      return;
    memcpy(hop, header + from, to - from);
    hop[to - from] = '\0';
    uint8_t address[16] = {[10] = 0xff, [11] = 0xff};
    if (inet_pton(AF_INET, hop, address + 12) == 1) {
      inet_ntop(AF_INET, address + 12, r->forwarded, sizeof r->forwarded);
      if (!trusted(settings, address))
        return;
    } else if (inet_pton(AF_INET6, hop, address) == 1) {
      inet_ntop(AF_INET6, address, r->forwarded, sizeof r->forwarded);
      if (!trusted(settings, address))
        return;
    } else {
      return; /* not an address: keep the last good hop */
    }
    end = start > 0 ? start - 1 : 0;
  }
}

/* The owner's data follows the request in the same allocation. */
#define REQUEST_DATA_OFFSET                                                                        \
  ((sizeof(request) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * _Alignof(max_align_t))

/* MHD_OPTION_URI_LOG_CALLBACK: the request target as the client sent it,
 * before libmicrohttpd 0.9.75 splits and decodes it (issue 24 item 6).
 * Decoding cuts a value at %00 ("nul%00evil" would be lobby "nul", and
 * "40%00junk" width 40), so a %00 anywhere is a 400. A query of more than
 * limits.query_params_max parameters, or a target of more than
 * limits.request_target_bytes_max bytes, is a 414: such a query overflows
 * MHD's per-connection memory pool and MHD closed the connection without an
 * answer. Its parameters are not parsed at all: the query is emptied in
 * MHD's own read buffer (MHD ends the path at the '?' and parses what
 * follows it, now nothing), and the answer comes from on_headers. Returns
 * NULL: the request context is made later. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *connection) {
  listener *endpoint = cls;
  const http_settings *limits = &endpoint->owner->settings;
  conn *c = conns_of(connection);
  if (c == NULL || uri == NULL)
    return NULL;
  c->target_problem = 0;
  size_t bytes = strlen(uri);
  char *query = strchr(uri, '?');
  long params = 0;
  for (const char *at = query; at != NULL && at[1] != '\0'; at = strchr(at + 1, '&'))
    params++;
  for (const char *at = strchr(uri, '%'); at != NULL; at = strchr(at + 1, '%'))
    if (at[1] == '0' && at[2] == '0')
      c->target_problem = 400;
  if (c->target_problem == 0 &&
      (params > limits->query_params_max || (long)bytes > limits->request_target_bytes_max)) {
    c->target_problem = 414;
    c->target_params = params;
    c->target_bytes = bytes;
  }
  if (c->target_problem != 0 && query != NULL)
    query[1] = '\0'; /* MHD's buffer, writable: see above */
  return NULL;
}

static request *request_new(listener *endpoint, struct MHD_Connection *connection, const char *url,
                            const char *method, const char *version) {
  http *transport = endpoint->owner;
  size_t data_size = transport->settings.request_data_size;
  request *r = calloc(1, REQUEST_DATA_OFFSET + data_size);
  if (r == NULL)
    return NULL;
  r->transport = transport;
  r->data = data_size > 0 ? (char *)r + REQUEST_DATA_OFFSET : NULL;
  r->health = endpoint->health;
  r->conn = conns_of(connection);
  r->connection = connection;
  r->peer_ip = r->conn != NULL ? r->conn->ip : 0;
  r->start_ns = dg_monotonic_ns();
  copy_printable(r->method, sizeof r->method, method);
  r->http11 = version != NULL && strcmp(version, MHD_HTTP_VERSION_1_1) == 0;
  r->path_problem = copy_printable(r->path, sizeof r->path, url);
  if (r->conn != NULL && r->conn->target_problem != 0) {
    r->target_problem = r->conn->target_problem;
    r->conn->target_problem = 0;
  }
  set_request_id(r);
  uint8_t peer_ip[16];
  if (set_peer(r, peer_ip))
    set_forwarded(r, peer_ip);
  set_trace(r);
  transport->requests_open++;
  conns_headers_read(r);
  return r;
}

/* A problem the transport answers itself (the routes use respond.h). */
static void problem_respond(request *r, int status, const char *slug, const char *title,
                            const char *detail) {
  size_t length = 0;
  char *body = problem_body(status, slug, title, detail, r->path, r->id, NULL, &length);
  http_respond(r, status, "application/problem+json", body, length, NULL);
}

static void refuse_too_large(request *r) {
  http *transport = r->transport;
  transport->counters.rejected_too_large++;
  /* MHD sends this before the body and then closes: drain the body the
   * client is still sending, so that it reads the 413 (issue 24 item 5). */
  conns_linger(r->conn);
  char detail[128];
  snprintf(detail, sizeof detail, "the request body must be at most %ld bytes",
           transport->settings.body_bytes_max);
  problem_respond(r, 413, "too-large", "Request body too large", detail);
}

/* How often the framing headers occur in a request. */
typedef struct framing {
  int content_length, transfer_encoding; /* occurrences */
  bool chunked_only;                     /* every Transfer-Encoding is exactly "chunked" */
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value) {
  (void)kind;
  framing *f = cls;
  if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
    f->content_length++;
  else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
    f->transfer_encoding++;
    f->chunked_only = f->chunked_only && value != NULL && strcasecmp(value, "chunked") == 0;
  }
  return MHD_YES;
}

/* Issue 24 item 9: what libmicrohttpd 0.9.75 accepts but RFC 9112 does
 * not, answered before the body as problem+json (MHD then skips the body
 * and closes): an HTTP/1.1 request without Host (section 3.2), more than
 * one Content-Length, Content-Length with Transfer-Encoding (the framing
 * of request smuggling, section 6.3), all 400; a transfer coding other
 * than chunked, which MHD would wait on until body_timeout_ms, 501. False
 * when the request may go on. */
static bool refuse_framing(request *r) {
  framing f = {.chunked_only = true};
  MHD_get_connection_values(r->connection, MHD_HEADER_KIND, count_framing, &f);
  const char *detail = NULL;
  int status = 400;
  if (r->http11 &&
      MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST) == NULL)
    detail = "an HTTP/1.1 request must have a Host header (RFC 9112 section 3.2)";
  else if (f.content_length > 1)
    detail = "a request must have at most one Content-Length header";
  else if (f.content_length > 0 && f.transfer_encoding > 0)
    detail = "a request must not have both Content-Length and Transfer-Encoding "
             "(RFC 9112 section 6.3)";
  else if (f.transfer_encoding > 1 || !f.chunked_only) {
    status = 501;
    detail = "the only transfer coding accepted is Transfer-Encoding: chunked";
  }
  if (detail == NULL)
    return false;
  problem_respond(r, status, status == 501 ? "not-implemented" : "bad-framing",
                  status == 501 ? "Transfer coding not implemented" : "Malformed request framing",
                  detail);
  return true;
}

/* The first call for a request, its headers read: answers at once what can
 * be answered without the body. A response queued now makes MHD 0.9.75
 * skip the body and close the connection after the answer. */
static void on_headers(request *r) {
  http *transport = r->transport;
  if (r->target_problem == 400) {
    problem_respond(r, 400, "bad-path", "Malformed request target",
                    "the request path and query must not contain %00 (a NUL byte)");
    return;
  }
  if (r->target_problem == 414) {
    char detail[192];
    snprintf(detail, sizeof detail,
             "the request target must have at most %ld query parameters "
             "(limits.query_params_max) and %ld bytes (limits.request_target_bytes_max); it had "
             "%ld and %zu",
             transport->settings.query_params_max, transport->settings.request_target_bytes_max,
             r->conn->target_params, r->conn->target_bytes);
    problem_respond(r, 414, "uri-too-long", "Request target too long", detail);
    return;
  }
  if (r->path_problem == 400) {
    problem_respond(r, 400, "bad-path", "Malformed request path",
                    "the request path must be UTF-8 without control characters (bytes that "
                    "are not are shown as %XX in instance)");
    return;
  }
  if (r->path_problem == 414) {
    char detail[96];
    snprintf(detail, sizeof detail, "the request path must be shorter than %d bytes",
             REQUEST_PATH_MAX);
    problem_respond(r, 414, "uri-too-long", "Request path too long", detail);
    return;
  }
  if (refuse_framing(r))
    return;
  const char *declared =
      MHD_lookup_connection_value(r->connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (declared != NULL && strtoll(declared, NULL, 10) > transport->settings.body_bytes_max)
    refuse_too_large(r);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
  listener *endpoint = cls;
  http *transport = endpoint->owner;
  request *r = *con_cls;
  if (r == NULL) {
    r = request_new(endpoint, connection, url, method, version);
    if (r == NULL)
      return MHD_NO;
    *con_cls = r;
    on_headers(r);
    return MHD_YES;
  }
  if (r->detached)
    return MHD_NO; /* answered past MHD: let it close its descriptor */
  if (r->answered) {
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (r->pending != NULL) {
    /* Resumed after its job: send what the job produced. */
    r->status = r->pending_status;
    r->answered = true;
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)r->status, r->pending);
    if (rc == MHD_YES)
      conns_response_queued(r, r->bytes_out);
    MHD_destroy_response(r->pending);
    r->pending = NULL;
    return rc;
  }
  if (*upload_data_size > 0) {
    size_t chunk = *upload_data_size;
    *upload_data_size = 0;
    if (r->body_length + chunk > (size_t)transport->settings.body_bytes_max) {
      /* Issue 12 item 6: answer 413 at the limit and stop reading. MHD
       * 0.9.75 takes no response while a body is being read, so the answer
       * goes straight to the socket (nothing was sent on it for this
       * request) and MHD_NO makes MHD close the connection now. */
      transport->counters.rejected_too_large++;
      char detail[96];
      snprintf(detail, sizeof detail, "the request body must be at most %ld bytes",
               transport->settings.body_bytes_max);
      if (r->conn != NULL && !r->conn->closing) {
        conns_write_raw(r->conn, 413, "too-large", "Request body too large", detail);
        conns_linger(r->conn); /* shuts the write side once MHD has closed */
      }
      free(r->body);
      r->body = NULL;
      r->body_length = r->body_capacity = 0;
      return MHD_NO;
    }
    if (r->body_length + chunk + 1 > r->body_capacity) {
      size_t capacity = (r->body_length + chunk + 1) * 2;
      if (capacity > (size_t)transport->settings.body_bytes_max + 1)
        capacity = (size_t)transport->settings.body_bytes_max + 1;
      char *grown = realloc(r->body, capacity);
      if (grown == NULL)
        return MHD_NO;
      r->body = grown;
      r->body_capacity = capacity;
    }
    memcpy(r->body + r->body_length, upload_data, chunk);
    r->body_length += chunk;
    return MHD_YES;
  }
  if (r->suspended)
    return MHD_YES;
  conns_body_read(r);
  transport->hooks.handle(r);
  return MHD_YES;
}

static int start_listener(http *transport, listener *endpoint, const char *address_text,
                          bool health, dg_error *err) {
  struct sockaddr_storage address;
  int rc = http_parse_listen(health ? "health_listen" : "listen", address_text, &address, err);
  bool six = address.ss_family == AF_INET6;
  if (rc != 0)
    return rc;
  const http_settings *limits = &transport->settings;
  endpoint->owner = transport;
  endpoint->health = health;
  unsigned int connections =
      (unsigned int)(health ? limits->health_connections_max : limits->connections_max);
  endpoint->mhd = MHD_start_daemon(
      MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO | MHD_USE_ERROR_LOG |
          (six ? MHD_USE_IPv6 : 0),
      0, conns_accept_policy, endpoint, on_request, endpoint, MHD_OPTION_EXTERNAL_LOGGER,
      conns_mhd_log, endpoint, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
      MHD_OPTION_CONNECTION_LIMIT, connections, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned int)limits->connection_timeout_s, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
      endpoint, MHD_OPTION_NOTIFY_CONNECTION, conns_notify, endpoint, MHD_OPTION_URI_LOG_CALLBACK,
      on_uri, endpoint, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
  if (endpoint->mhd == NULL)
    return dg_error_set(err, HTTP_ESYSTEM, health ? "health_listen" : "listen",
                        "cannot listen on %s (address in use?)", address_text);
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(endpoint->mhd, MHD_DAEMON_INFO_EPOLL_FD);
  const union MHD_DaemonInfo *port = MHD_get_daemon_info(endpoint->mhd, MHD_DAEMON_INFO_BIND_PORT);
  endpoint->port = port != NULL ? port->port
                                : ntohs(six ? ((struct sockaddr_in6 *)&address)->sin6_port
                                            : ((struct sockaddr_in *)&address)->sin_port);
  const union MHD_DaemonInfo *listen_fd =
      MHD_get_daemon_info(endpoint->mhd, MHD_DAEMON_INFO_LISTEN_FD);
  endpoint->listen_fd = listen_fd != NULL ? listen_fd->listen_fd : -1;
  if (info == NULL || uv_poll_init(transport->loop, &endpoint->poll, info->epoll_fd) != 0) {
    MHD_stop_daemon(endpoint->mhd);
    endpoint->mhd = NULL;
    return dg_error_set(err, HTTP_ESYSTEM, "", "cannot watch libmicrohttpd's epoll descriptor");
  }
  endpoint->poll.data = endpoint;
  uv_timer_init(transport->loop, &endpoint->timer);
  endpoint->timer.data = endpoint;
  uv_poll_start(&endpoint->poll, UV_READABLE, on_poll);
  return 0;
}

static void close_listener(listener *endpoint) {
  if (endpoint->mhd == NULL)
    return;
  uv_close((uv_handle_t *)&endpoint->poll, NULL);
  uv_close((uv_handle_t *)&endpoint->timer, NULL);
  MHD_stop_daemon(endpoint->mhd);
  endpoint->mhd = NULL;
}

static void on_sweep(uv_timer_t *timer) {
  http *transport = timer->data;
  uint64_t now = dg_monotonic_ns();
  conns_sweep(transport, now);
  sweep_detached(transport, now, false);
  linger_sweep(&transport->linger, now);
  if (transport->api.mhd != NULL)
    conns_reclaim(transport, &transport->api, transport->api.listen_fd);
  if (transport->health.mhd != NULL)
    conns_reclaim(transport, &transport->health, transport->health.listen_fd);
  /* Also a safety net for item 1 of issue 12: whatever else happens, MHD
   * runs at least once a sweep, which puts its listening socket back. */
  http_pump(transport);
}

int http_start(http *transport, uv_loop_t *loop, const http_settings *settings,
               const http_hooks *hooks, void *data, dg_error *err) {
  memset(transport, 0, sizeof *transport);
  transport->data = data;
  transport->loop = loop;
  transport->settings = *settings;
  transport->hooks = *hooks;
  transport->api.owner = transport->health.owner = transport;
  transport->log_text.precision = 6; /* total_ms and the owner's reals: %.6g, as always */
  /* Trace ids must not be guessable across restarts: random, not the
   * clock, unless the kernel has no random bytes to give. */
  if (getrandom(&transport->span_key, sizeof transport->span_key, GRND_NONBLOCK) !=
      (ssize_t)sizeof transport->span_key)
    transport->span_key = dg_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ settings->id_prefix;
  int rc = start_listener(transport, &transport->api, settings->listen, false, err);
  if (rc != 0)
    return rc;
  if (settings->health_listen[0] != '\0' &&
      (rc = start_listener(transport, &transport->health, settings->health_listen, true, err)) !=
          0) {
    close_listener(&transport->api);
    return rc;
  }
  /* The addresses were the caller's for this call only. */
  transport->settings.listen = transport->settings.health_listen = NULL;
  conns_init(transport);
  linger_init(&transport->linger, loop,
              settings->connections_max + settings->health_connections_max,
              (uint64_t)settings->linger_ms * 1000000u, (uint64_t)settings->linger_bytes_max);
  uv_timer_init(loop, &transport->sweep);
  transport->sweep.data = transport;
  uv_timer_start(&transport->sweep, on_sweep, transport->guard.sweep_ms, transport->guard.sweep_ms);
  uv_timer_init(loop, &transport->wake);
  transport->wake.data = transport;
  uv_timer_init(loop, &transport->log_flush);
  transport->log_flush.data = transport;
  uv_unref((uv_handle_t *)&transport->log_flush); /* http_stop writes what is left */
  http_pump(transport);
  return 0;
}

void http_begin_drain(http *transport) {
  transport->draining = true;
}

bool http_quiet(const http *transport) {
  return transport->requests_open == 0 && transport->detached == NULL;
}

void http_close_all(http *transport) {
  transport->closed_all = true;
  conns_close_all(transport);
  sweep_detached(transport, dg_monotonic_ns(), true);
  http_pump(transport);
}

void http_stop(http *transport) {
  transport->stopped = true;
  uv_timer_stop(&transport->sweep);
  uv_close((uv_handle_t *)&transport->sweep, NULL);
  uv_close((uv_handle_t *)&transport->wake, NULL);
  close_listener(&transport->api);
  close_listener(&transport->health);
  linger_close_all(&transport->linger); /* after the listeners: their last closes linger no more */
  uv_close((uv_handle_t *)&transport->log_flush, NULL);
  log_batch_free(&transport->request_log); /* lines of before the stop */
  json_line_free(&transport->log_text);
}
