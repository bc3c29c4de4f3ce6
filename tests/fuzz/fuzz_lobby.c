/* Fuzz target: a short conversation with the real daemon about lobbies.
 * Each input is up to FUZZ_REQUESTS_MAX HTTP requests, one per block:
 *
 *   METHOD PATH [ACCEPT]
 *   body lines (optional)
 *   %%
 *
 * A line starting '&' sends its request without waiting (it is answered
 * and checked at the end, so starts can wait together on one job); '!'
 * sends it and closes the connection at once (a client that went away).
 * A PATH not starting with '/' is under /v1/lobbies/ ("a/players/p1",
 * "a/start"); others are sent as they are (/v1/levels, /v1/stats...).
 * Bytes a request line cannot carry are percent-encoded, so the daemon
 * sees them decoded, as a client could send them. Every input gets a
 * fresh daemon (tests/fuzz/dungeond-fuzz.json, fuzz_daemon.c) on a
 * loopback port, the requests in order over real sockets, then the
 * SIGTERM drain, which must close every handle.
 *
 * Must hold: every request is answered (within FUZZ_ANSWER_S), never
 * with 500 (or any 5xx but 503 busy/draining and 504 deadline), and
 * every error is application/problem+json whose status matches; after a
 * start that returned a level, POST /v1/levels with the lobby's effective
 * request returns the same bytes.
 *
 * Built two ways: with clang's libFuzzer (-Dfuzz=true) for fuzzing, and
 * with replay_main.c as an ordinary test that replays the corpus. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_daemon.h"

#define FUZZ_REQUESTS_MAX 12
#define FUZZ_PATH_MAX 512
#define LEVEL_PREFIX "{\"format\":\"dungeond.level/1\""

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct text {
  char *bytes;
  size_t length, capacity;
} text;

static void put(text *t, const char *bytes, size_t length) {
  if (t->length + length + 1 > t->capacity) {
    t->capacity = (t->length + length + 1) * 2;
    t->bytes = realloc(t->bytes, t->capacity);
    if (t->bytes == NULL)
      abort();
  }
  memcpy(t->bytes + t->length, bytes, length);
  t->length += length;
  t->bytes[t->length] = '\0';
}

static void puts_text(text *t, const char *s) {
  put(t, s, strlen(s));
}

/* A request-target: bytes outside printable ASCII, space, '#' and '%'
 * itself are percent-encoded; the rest goes as it is. */
static void put_path(text *t, const char *bytes, size_t length) {
  if (length == 0 || bytes[0] != '/')
    puts_text(t, "/v1/lobbies/");
  for (size_t i = 0; i < length && i < FUZZ_PATH_MAX; i++) {
    unsigned char c = (unsigned char)bytes[i];
    if (c <= 0x20 || c >= 0x7f || c == '#' || c == '%') {
      char escaped[4];
      snprintf(escaped, sizeof escaped, "%%%02X", c);
      put(t, escaped, 3);
    } else {
      put(t, (const char *)&c, 1);
    }
  }
}

/* The next line of [*at, end) without its '\n'. */
static bool next_line(const char **at, const char *end, const char **line, size_t *length) {
  if (*at >= end)
    return false;
  const char *newline = memchr(*at, '\n', (size_t)(end - *at));
  *line = *at;
  *length = newline != NULL ? (size_t)(newline - *at) : (size_t)(end - *at);
  *at = newline != NULL ? newline + 1 : end;
  return true;
}

static void check_answer(int status, const char *body, const char *sent) {
  bool server_error = status >= 500 && status != 503 && status != 504;
  if (status == 0 || server_error) {
    fprintf(stderr, "fuzz_lobby: answered %d to\n%s\nbody: %s\n", status, sent, body ? body : "");
    abort();
  }
  if (status >= 400) {
    json_t *problem = json_loads(body, 0, NULL);
    json_t *given = json_object_get(problem, "status");
    if (!json_is_integer(given) || json_integer_value(given) != status ||
        !json_is_string(json_object_get(problem, "detail"))) {
      fprintf(stderr, "fuzz_lobby: a %d without a problem body to\n%s\nbody: %s\n", status, sent,
              body);
      abort();
    }
    json_decref(problem);
  }
}

/* One request as bytes (Accept only when `accept` is not NULL). */
static void build(text *raw, const char *method, const char *path, size_t path_length,
                  const char *accept, size_t accept_length, const char *body, size_t body_length) {
  puts_text(raw, method);
  puts_text(raw, " ");
  put_path(raw, path, path_length);
  puts_text(raw, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
  if (accept != NULL) {
    puts_text(raw, "Accept: ");
    for (size_t i = 0; i < accept_length; i++)
      if (isprint((unsigned char)accept[i]))
        put(raw, &accept[i], 1);
    puts_text(raw, "\r\n");
  }
  char header[64];
  snprintf(header, sizeof header, "Content-Length: %zu\r\n\r\n", body_length);
  puts_text(raw, header);
  if (body_length > 0)
    put(raw, body, body_length);
}

static void trace(const char *how, const char *raw, int status, const char *answer) {
  if (getenv("FUZZ_TRACE") != NULL)
    fprintf(stderr, "%s%.*s -> %d %s\n", how, (int)strcspn(raw, "\r"), raw, status,
            answer != NULL ? answer : "");
}

/* Sends one request, waits for and checks the answer; *answer is the body
 * (caller frees). */
static void exchange(server *daemon, uv_loop_t *loop, const char *method, const char *path,
                     size_t path_length, const char *accept, size_t accept_length, const char *body,
                     size_t body_length, int *status, char **answer) {
  text raw = {0};
  build(&raw, method, path, path_length, accept, accept_length, body, body_length);
  fuzz_http(daemon, loop, raw.bytes, raw.length, status, answer);
  trace("", raw.bytes, *status, *answer);
  check_answer(*status, *answer, raw.bytes);
  free(raw.bytes);
}

/* Determinism across the two ways to a level: what a lobby's start
 * returned (often pre-generated while the lobby changed) must be byte for
 * byte what POST /v1/levels makes from the lobby's effective request. */
static void check_same_level(server *daemon, uv_loop_t *loop, const char *id, size_t id_length,
                             const char *started) {
  int status = 0;
  char *lobby_text = NULL;
  exchange(daemon, loop, "GET", id, id_length, NULL, 0, NULL, 0, &status, &lobby_text);
  json_t *lobby_json = json_loads(lobby_text, 0, NULL);
  json_t *effective = json_object_get(lobby_json, "effective");
  char *request_text = effective != NULL ? json_dumps(effective, JSON_COMPACT) : NULL;
  if (status != 200 || request_text == NULL) {
    fprintf(stderr, "fuzz_lobby: a started lobby answered GET with %d: %s\n", status, lobby_text);
    abort();
  }
  char *fresh = NULL;
  exchange(daemon, loop, "POST", "/v1/levels", 10, NULL, 0, request_text, strlen(request_text),
           &status, &fresh);
  /* 504: the fresh generation ran out of its deadline; nothing to compare. */
  if (status == 200 && strcmp(fresh, started) != 0) {
    fprintf(stderr, "fuzz_lobby: start and POST /v1/levels %s disagree:\n%s\n%s\n", request_text,
            started, fresh);
    abort();
  }
  free(fresh);
  free(request_text);
  json_decref(lobby_json);
  free(lobby_text);
}

/* Requests sent with '&', answered at the end of the input. */
typedef struct in_flight {
  int fd;
  char *raw;
} in_flight;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static server s; /* large (stats rings): static storage */
  static uv_loop_t loop;
  fuzz_server_start(&s, &loop);
  in_flight pending[FUZZ_REQUESTS_MAX];
  int pending_count = 0;
  const char *at = (const char *)data, *end = at + size;
  const char *line;
  size_t length;
  for (int n = 0; n < FUZZ_REQUESTS_MAX && next_line(&at, end, &line, &length); n++) {
    /* [&!]METHOD PATH [ACCEPT] */
    const char *line_end = line + length;
    char mode = length > 0 && (line[0] == '&' || line[0] == '!') ? line[0] : ' ';
    char method[8] = "";
    size_t m = 0;
    const char *p = mode != ' ' ? line + 1 : line;
    for (; p < line_end && *p != ' '; p++)
      if (isupper((unsigned char)*p) && m + 1 < sizeof method)
        method[m++] = *p;
    method[m] = '\0';
    if (m == 0)
      snprintf(method, sizeof method, "GET");
    if (p < line_end)
      p++;
    const char *path = p;
    while (p < line_end && *p != ' ')
      p++;
    size_t path_length = (size_t)(p - path);
    const char *accept = p < line_end ? p + 1 : NULL;
    size_t accept_length = accept != NULL ? (size_t)(line_end - accept) : 0;
    /* The body: lines up to "%%". */
    text body = {0};
    const char *body_line;
    size_t body_length;
    while (next_line(&at, end, &body_line, &body_length) &&
           !(body_length == 2 && memcmp(body_line, "%%", 2) == 0)) {
      put(&body, body_line, body_length);
      put(&body, "\n", 1);
    }
    if (mode != ' ') {
      /* '&': in flight while the next requests run; '!': the client sends
       * and goes away without reading. */
      text raw = {0};
      build(&raw, method, path, path_length, accept, accept_length, body.bytes, body.length);
      int fd = fuzz_http_send(&s, &loop, raw.bytes, raw.length);
      if (mode == '&') {
        pending[pending_count++] = (in_flight){fd, raw.bytes};
      } else {
        close(fd);
        trace("!", raw.bytes, 0, NULL);
        free(raw.bytes);
      }
      free(body.bytes);
      continue;
    }
    int status = 0;
    char *answer = NULL;
    exchange(&s, &loop, method, path, path_length, accept, accept_length, body.bytes, body.length,
             &status, &answer);
    if (status == 200 && strcmp(method, "POST") == 0 && path_length > 6 && path[0] != '/' &&
        memcmp(path + path_length - 6, "/start", 6) == 0 &&
        strncmp(answer, LEVEL_PREFIX, strlen(LEVEL_PREFIX)) == 0)
      check_same_level(&s, &loop, path, path_length - 6, answer);
    free(answer);
    free(body.bytes);
  }
  for (int i = 0; i < pending_count; i++) {
    int status = 0;
    char *answer = NULL;
    fuzz_http_answer(&loop, pending[i].fd, &status, &answer);
    trace("&", pending[i].raw, status, answer);
    check_answer(status, answer, pending[i].raw);
    free(answer);
    free(pending[i].raw);
  }
  fuzz_server_stop(&s, &loop);
  return 0;
}
