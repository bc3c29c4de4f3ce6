/* libmicrohttpd driven from the libuv loop (DESIGN.md "One thread owns the
 * daemon's state", NOTES.md "libmicrohttpd 0.9.75 driven from libuv").
 * MHD runs without threads of its own (MHD_USE_EPOLL, external polling);
 * its epoll fd sits in a uv_poll_t, MHD_get_timeout arms a uv_timer_t, and
 * http_pump() runs MHD and re-arms the timer. Because MHD_resume_connection
 * does not wake the loop in this mode, whoever resumes a connection calls
 * http_pump() itself. This file also holds the response helpers, request
 * ids, the per-request log line and the drain on SIGTERM. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

static void on_timer(uv_timer_t *timer) {
  http_pump(timer->data);
}

static void on_poll(uv_poll_t *poll, int status, int events) {
  (void)status;
  (void)events;
  http_pump(poll->data);
}

static void maybe_stop(server *s);

void http_pump(server *s) {
  if (s->stopped)
    return;
  if (s->in_pump) {
    /* A resume from inside MHD_run (a job dropped while being submitted):
     * run MHD once more before leaving. */
    s->pump_again = true;
    return;
  }
  s->in_pump = true;
  do {
    s->pump_again = false;
    MHD_run(s->mhd);
  } while (s->pump_again);
  s->in_pump = false;
  MHD_UNSIGNED_LONG_LONG timeout = 0;
  if (MHD_get_timeout(s->mhd, &timeout) == MHD_YES)
    uv_timer_start(&s->mhd_timer, on_timer, (uint64_t)timeout, 0);
  else
    uv_timer_stop(&s->mhd_timer);
  maybe_stop(s);
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
  server *s = r->srv;
  snprintf(r->id, sizeof r->id, "%08x-%012llx", s->id_prefix, (unsigned long long)++s->id_counter);
}

static void add_common_headers(request *r, struct MHD_Response *response,
                               const char *content_type) {
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  MHD_add_response_header(response, "X-Request-Id", r->id);
  if (r->has_job) {
    char timing[160];
    snprintf(timing, sizeof timing, "queue;dur=%.3f, gen;dur=%.3f, ser;dur=%.3f", r->queue_ms,
             r->generation_ms, r->serialise_ms);
    MHD_add_response_header(response, "Server-Timing", timing);
  }
  if (r->pregen != NULL)
    MHD_add_response_header(response, "X-Pregen", r->pregen);
  if (r->srv->draining)
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
}

void respond_headers(request *r, int status, const char *content_type, char *body, size_t length,
                     const char *const *headers) {
  if (body == NULL) {
    /* Out of memory while building the answer: say so without allocating. */
    status = 500;
    content_type = "text/plain";
    body = NULL;
    length = 0;
  }
  struct MHD_Response *response = MHD_create_response_from_buffer(
      length, body != NULL ? body : (void *)"",
      body != NULL ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (response == NULL) {
    free(body);
    return;
  }
  add_common_headers(r, response, content_type);
  for (int i = 0; headers != NULL && headers[i] != NULL; i += 2)
    MHD_add_response_header(response, headers[i], headers[i + 1]);
  r->bytes_out = length;
  if (r->suspended) {
    r->pending = response;
    r->pending_status = status;
    return;
  }
  r->status = status;
  r->answered = true;
  MHD_queue_response(r->connection, (unsigned)status, response);
  MHD_destroy_response(response);
}

void respond(request *r, int status, const char *content_type, char *body, size_t length,
             const char *header_name, const char *header_value) {
  const char *headers[3] = {header_name, header_value, NULL};
  respond_headers(r, status, content_type, body, length, headers);
}

void respond_json(request *r, int status, json_t *value) {
  char *text = value != NULL ? json_dumps(value, JSON_COMPACT) : NULL;
  json_decref(value);
  respond(r, status, "application/json", text, text != NULL ? strlen(text) : 0, NULL, NULL);
}

void respond_problem(request *r, int status, const char *slug, const char *title,
                     const char *detail, json_t *errors, const char *header_name,
                     const char *header_value) {
  char type[96];
  snprintf(type, sizeof type, "urn:dungeond:problem:%s", slug);
  json_t *problem =
      json_pack("{s:s, s:s, s:i, s:s, s:s, s:s}", "type", type, "title", title, "status", status,
                "detail", detail, "instance", r->path, "request_id", r->id);
  if (problem != NULL && errors != NULL)
    json_object_set(problem, "errors", errors);
  json_decref(errors);
  char *text = problem != NULL ? json_dumps(problem, JSON_COMPACT) : NULL;
  json_decref(problem);
  respond(r, status, "application/problem+json", text, text != NULL ? strlen(text) : 0, header_name,
          header_value);
}

void respond_error(request *r, int status, const dg_error *err) {
  json_t *errors = NULL;
  if (err->field[0] != '\0')
    errors = json_pack("[{s:s, s:s}]", "field", err->field, "message", err->message);
  const char *slug = "validation", *title = "Invalid request";
  if (status == 400)
    slug = "malformed", title = "Malformed request body";
  else if (status == 504)
    slug = "deadline", title = "Deadline exceeded";
  else if (status == 503)
    slug = "unavailable", title = "Service unavailable";
  else if (status >= 500)
    slug = "internal", title = "Generation failed";
  respond_problem(r, status, slug, title, err->message, errors, NULL, NULL);
}

/* One JSON line per request on stderr, written with one fwrite. */
static void log_request(request *r) {
  if (!r->srv->cfg->log_requests)
    return;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct tm utc;
  gmtime_r(&now.tv_sec, &utc);
  char when[48], seconds[32];
  strftime(seconds, sizeof seconds, "%Y-%m-%dT%H:%M:%S", &utc);
  snprintf(when, sizeof when, "%s.%03ldZ", seconds, now.tv_nsec / 1000000);
  double total_ms = (double)(dg_monotonic_ns() - r->start_ns) / 1e6;
  json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:I}", "time", when, "level",
                           r->status >= 500 ? "error" : "info", "request_id", r->id, "method",
                           r->method, "path", r->path, "status", r->status, "total_ms", total_ms,
                           "bytes", (json_int_t)r->bytes_out);
  if (line == NULL)
    return;
  if (r->has_job) {
    json_object_set_new(line, "queue_ms", json_real(r->queue_ms));
    json_object_set_new(line, "generation_ms", json_real(r->generation_ms));
    json_object_set_new(line, "serialise_ms", json_real(r->serialise_ms));
  }
  if (r->algorithm != NULL)
    json_object_set_new(line, "algorithm", json_string(r->algorithm));
  if (r->has_job)
    json_object_set_new(line, "seed", dg_seed_to_json(r->seed));
  if (r->pregen != NULL)
    json_object_set_new(line, "pregen", json_string(r->pregen));
  char *text = json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(6));
  json_decref(line);
  if (text != NULL) {
    size_t length = strlen(text);
    text[length] = '\n';
    fwrite(text, 1, length + 1, stderr);
    free(text);
  }
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
  (void)connection;
  (void)toe;
  server *s = cls;
  request *r = *con_cls;
  if (r == NULL)
    return;
  *con_cls = NULL;
  if (!r->answered)
    r->status = 499; /* the client went away before an answer */
  double total_s = (double)(dg_monotonic_ns() - r->start_ns) / 1e9;
  stats_record(&s->counters, r->status, total_s, r->algorithm,
               r->has_job ? r->queue_ms / 1000.0 : -1.0,
               r->has_job ? (r->generation_ms + r->serialise_ms) / 1000.0 : -1.0, r->bytes_out);
  log_request(r);
  if (r->pending != NULL)
    MHD_destroy_response(r->pending);
  free(r->work.body);
  free(r->body);
  free(r);
  s->requests_open--;
}

/* Length of the valid UTF-8 sequence at `text`, 0 when it is not one
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_sequence(const unsigned char *text) {
  unsigned char c = text[0];
  if (c < 0x80)
    return 1;
  size_t length = c >= 0xc2 && c <= 0xdf   ? 2
                  : c >= 0xe0 && c <= 0xef ? 3
                  : c >= 0xf0 && c <= 0xf4 ? 4
                                           : 0;
  for (size_t i = 1; i < length; i++)
    if ((text[i] & 0xc0) != 0x80)
      return 0;
  if ((c == 0xe0 && text[1] < 0xa0) || (c == 0xed && text[1] > 0x9f) ||
      (c == 0xf0 && text[1] < 0x90) || (c == 0xf4 && text[1] > 0x8f))
    return 0;
  return length;
}

static bool utf8_valid(const char *text) {
  for (size_t step; *text != '\0'; text += step)
    if ((step = utf8_sequence((const unsigned char *)text)) == 0)
      return false;
  return true;
}

/* r->path goes into JSON (problem `instance`, the log line), which must be
 * UTF-8: bytes of a broken or truncated sequence become '?'. */
static void utf8_sanitize(char *text) {
  for (size_t step; *text != '\0'; text += step)
    if ((step = utf8_sequence((const unsigned char *)text)) == 0) {
      *text = '?';
      step = 1;
    }
}

static request *request_new(server *s, struct MHD_Connection *connection, const char *url,
                            const char *method) {
  request *r = calloc(1, sizeof *r);
  if (r == NULL)
    return NULL;
  r->srv = s;
  r->connection = connection;
  r->start_ns = dg_monotonic_ns();
  snprintf(r->method, sizeof r->method, "%s", method);
  snprintf(r->path, sizeof r->path, "%s", url);
  utf8_sanitize(r->path);
  r->route = route_match(url);
  r->queue_ms = r->generation_ms = r->serialise_ms = -1;
  set_request_id(r);
  s->requests_open++;
  return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
  (void)version;
  server *s = cls;
  request *r = *con_cls;
  if (r == NULL) {
    r = request_new(s, connection, url, method);
    if (r == NULL)
      return MHD_NO;
    *con_cls = r;
    /* Refuse an announced oversized body before reading it. */
    const char *declared =
        MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (declared != NULL && strtoll(declared, NULL, 10) > s->cfg->limits.body_bytes_max)
      r->too_large = true;
    return MHD_YES;
  }
  if (r->answered)
    return MHD_YES;
  if (r->pending != NULL) {
    /* Resumed after its job: send what the job produced. */
    r->status = r->pending_status;
    r->answered = true;
    enum MHD_Result rc = MHD_queue_response(connection, (unsigned)r->status, r->pending);
    MHD_destroy_response(r->pending);
    r->pending = NULL;
    return rc;
  }
  if (*upload_data_size > 0) {
    size_t chunk = *upload_data_size;
    *upload_data_size = 0;
    if (r->too_large || r->body_length + chunk > (size_t)s->cfg->limits.body_bytes_max) {
      r->too_large = true;
      free(r->body);
      r->body = NULL;
      r->body_length = r->body_capacity = 0;
      return MHD_YES;
    }
    if (r->body_length + chunk + 1 > r->body_capacity) {
      size_t capacity = (r->body_length + chunk + 1) * 2;
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
  if (r->too_large) {
    s->counters.rejected_too_large++;
    char detail[128];
    snprintf(detail, sizeof detail, "the request body must be at most %ld bytes",
             s->cfg->limits.body_bytes_max);
    respond_problem(r, 413, "too-large", "Request body too large", detail, NULL, NULL, NULL);
    return MHD_YES;
  }
  if (!utf8_valid(url)) {
    /* Found by tests/fuzz/fuzz_lobby.c: such a path made every JSON answer
     * fail (500, empty body, no log line). */
    respond_problem(r, 400, "malformed", "Malformed request", "the path must be valid UTF-8", NULL,
                    NULL, NULL);
    return MHD_YES;
  }
  route_handle(r);
  return MHD_YES;
}

static int parse_listen(const char *listen, struct sockaddr_in *address, dg_error *err) {
  char host[CONFIG_LISTEN_MAX];
  snprintf(host, sizeof host, "%s", listen);
  char *colon = strrchr(host, ':');
  if (colon == NULL)
    return dg_error_set(err, -1, "listen", "listen must be HOST:PORT");
  *colon = '\0';
  memset(address, 0, sizeof *address);
  address->sin_family = AF_INET;
  address->sin_port = htons((uint16_t)atoi(colon + 1));
  if (strcmp(host, "localhost") == 0)
    snprintf(host, sizeof host, "127.0.0.1");
  if (inet_pton(AF_INET, host, &address->sin_addr) != 1)
    return dg_error_set(err, -1, "listen",
                        "listen's host must be an IPv4 address such as 127.0.0.1, not '%s'", host);
  return 0;
}

int http_start(server *s, dg_error *err) {
  struct sockaddr_in address;
  if (parse_listen(s->cfg->listen, &address, err) != 0)
    return -1;
  const config_limits *limits = &s->cfg->limits;
  s->mhd = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO, 0, NULL, NULL,
                            on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)limits->connections_max,
                            MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned int)limits->connection_timeout_s, MHD_OPTION_NOTIFY_COMPLETED,
                            on_completed, s, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_END);
  if (s->mhd == NULL)
    return dg_error_set(err, -1, "listen", "cannot listen on %s (address in use?)", s->cfg->listen);
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);
  const union MHD_DaemonInfo *port = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
  s->port = port != NULL ? port->port : ntohs(address.sin_port);
  if (info == NULL || uv_poll_init(s->loop, &s->mhd_poll, info->epoll_fd) != 0) {
    MHD_stop_daemon(s->mhd);
    s->mhd = NULL;
    return dg_error_set(err, -1, "", "cannot watch libmicrohttpd's epoll descriptor");
  }
  s->mhd_poll.data = s;
  uv_timer_init(s->loop, &s->mhd_timer);
  s->mhd_timer.data = s;
  uv_poll_start(&s->mhd_poll, UV_READABLE, on_poll);
  http_pump(s);
  return 0;
}

static void on_drain_timeout(uv_timer_t *timer) {
  server *s = timer->data;
  jobs_cancel_all(&s->queues, true);
}

void http_begin_drain(server *s) {
  if (s->draining || s->stopped)
    return;
  s->draining = true;
  /* Stop accepting: the listening socket leaves MHD and is closed, so new
   * connections are refused while the open ones finish. */
  MHD_socket listener = MHD_quiesce_daemon(s->mhd);
  if (listener != MHD_INVALID_SOCKET)
    close(listener);
  /* Queued jobs are answered 503 now; running ones may finish until the
   * drain timeout. */
  lobbies_drain(s);
  jobs_cancel_all(&s->queues, false);
  uv_timer_start(&s->drain_timer, on_drain_timeout, (uint64_t)s->cfg->limits.drain_timeout_ms, 0);
  http_pump(s);
}

static void maybe_stop(server *s) {
  if (!s->draining || s->stopped || s->requests_open > 0 || s->queues.running > 0)
    return;
  s->stopped = true;
  uv_close((uv_handle_t *)&s->mhd_poll, NULL);
  uv_close((uv_handle_t *)&s->mhd_timer, NULL);
  uv_close((uv_handle_t *)&s->drain_timer, NULL);
  uv_close((uv_handle_t *)&s->sigterm, NULL);
  uv_close((uv_handle_t *)&s->sigint, NULL);
  jobs_close(&s->queues);
  lobbies_close(s);
  MHD_stop_daemon(s->mhd);
  s->mhd = NULL;
}

void http_close(server *s) {
  if (s->mhd != NULL) {
    MHD_stop_daemon(s->mhd);
    s->mhd = NULL;
  }
}
