/* The connection guard (conns.h): per-IP limit, header and body deadlines,
 * the budget of bytes queued to slow readers, the drain's last close, and
 * the event lines and counters of all of these. A connection is cut by
 * shutting its socket down: libmicrohttpd then reads end-of-file on its next
 * run, closes the connection and calls its completion callbacks, so the
 * request context and the response are freed on MHD's usual path. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/http.h"
#include "transport/log.h"
#include "transport/problem_body.h"

#define MHD_EVENT CONN_EVENT_COUNT /* slot of libmicrohttpd's other messages */
/* A reader makes progress when it has taken this many more bytes: one that
 * takes a byte now and then (so that TCP acknowledges a little) is as
 * stalled as one that takes nothing. */
#define CONNS_PROGRESS_BYTES (64u << 10)

static uint64_t ms_to_ns(long ms) {
  return (uint64_t)ms * 1000000u;
}

static size_t bucket_of(uint64_t ip) {
  return (size_t)((ip * UINT64_C(0x9e3779b97f4a7c15)) >> 40) & (CONNS_IP_BUCKETS - 1);
}

#define IPV4_TAG UINT64_C(0xffffffff00000000)
/* The key of the IPv6 prefix ::/64 (::1 among others), which would be 0,
 * "unknown": a multicast prefix no peer has, apart from IPV4_TAG's. */
#define IPV6_ZERO_PREFIX UINT64_C(0xfffffffeffffffff)

uint64_t conns_peer_key(const struct sockaddr *address, socklen_t length) {
  if (address == NULL)
    return 0;
  if (address->sa_family == AF_INET && length >= (socklen_t)sizeof(struct sockaddr_in))
    return IPV4_TAG | ntohl(((const struct sockaddr_in *)address)->sin_addr.s_addr);
  if (address->sa_family != AF_INET6 || length < (socklen_t)sizeof(struct sockaddr_in6))
    return 0;
  const uint8_t *bytes = ((const struct sockaddr_in6 *)address)->sin6_addr.s6_addr;
  static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  uint64_t key = 0;
  if (memcmp(bytes, mapped, sizeof mapped) == 0) {
    for (int i = 12; i < 16; i++)
      key = key << 8 | bytes[i];
    return IPV4_TAG | key;
  }
  for (int i = 0; i < 8; i++)
    key = key << 8 | bytes[i];
  return key != 0 ? key : IPV6_ZERO_PREFIX;
}

const char *conns_peer_text(uint64_t key, char *out, size_t size) {
  if ((key & IPV4_TAG) == IPV4_TAG) {
    struct in_addr address = {.s_addr = htonl((uint32_t)key)};
    if (inet_ntop(AF_INET, &address, out, (socklen_t)size) != NULL)
      return out;
  } else if (key != 0) {
    struct in6_addr address;
    memset(&address, 0, sizeof address);
    for (int i = 0; key != IPV6_ZERO_PREFIX && i < 8; i++)
      address.s6_addr[i] = (uint8_t)(key >> (56 - 8 * i));
    size_t length = size > 4 ? size - 4 : 0;
    if (length > 0 && inet_ntop(AF_INET6, &address, out, (socklen_t)length) != NULL) {
      strcat(out, "/64");
      return out;
    }
  }
  snprintf(out, size, "?");
  return out;
}

/* Linux's struct tcp_info (since 4.1) goes on past glibc's copy, which
 * <netinet/tcp.h> declares and <linux/tcp.h> would clash with: the kernel
 * only ever appends to it, so the tail we need follows glibc's fields. */
typedef struct tcp_info_tail {
  struct tcp_info base;     /* glibc's fields, up to tcpi_total_retrans */
  uint64_t pacing_rate;     /* tcpi_pacing_rate */
  uint64_t max_pacing_rate; /* tcpi_max_pacing_rate */
  uint64_t bytes_acked;     /* tcpi_bytes_acked: sent bytes the peer acknowledged */
  uint64_t bytes_received;  /* tcpi_bytes_received: bytes received from the peer */
} tcp_info_tail;
_Static_assert(sizeof(struct tcp_info) == 104, "glibc's struct tcp_info ends at total_retrans");

/* TCP counters of a socket: bytes received from and acknowledged by the
 * peer. False when the kernel does not give them. */
static bool tcp_counters(int fd, uint64_t *received, uint64_t *acked) {
  tcp_info_tail info;
  socklen_t length = sizeof info;
  memset(&info, 0, sizeof info);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0 || length < sizeof info)
    return false;
  if (received != NULL)
    *received = info.bytes_received;
  if (acked != NULL)
    *acked = info.bytes_acked;
  return true;
}

static void write_line(http *transport, int slot, const char *name, const char *detail) {
  uint64_t now = dg_monotonic_ns();
  conns *cs = &transport->guard;
  if (cs->last_log_ns[slot] != 0 && now - cs->last_log_ns[slot] < 1000000000u) {
    cs->suppressed[slot]++;
    return;
  }
  cs->last_log_ns[slot] = now;
  char when[LOG_TIME_MAX];
  log_time(when);
  json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:I}", "time", when, "level", "warn", "event",
                           name, "detail", detail, "suppressed", (json_int_t)cs->suppressed[slot]);
  cs->suppressed[slot] = 0;
  log_write(line);
}

void conns_event(http *transport, conn_event event, const char *format, ...) {
  transport->counters.conn_events[event]++;
  char detail[256];
  va_list args;
  va_start(args, format);
  vsnprintf(detail, sizeof detail, format, args);
  va_end(args);
  write_line(transport, (int)event, conn_event_names[event], detail);
}

/* MHD_OPTION_EXTERNAL_LOGGER. libmicrohttpd 0.9.75 reports a failed accept()
 * as "Error accepting connection: <strerror>" (EMFILE, ENFILE, ENOBUFS,
 * ENOMEM), then pauses accepting until a connection closes; that message is
 * the accept_error event. Its other messages are logged (one line a second
 * at most), bytes outside printable ASCII shown as '?'. */
void conns_mhd_log(void *cls, const char *format, va_list args) {
  listener *endpoint = cls;
  http *transport = endpoint->owner;
  char message[256];
  vsnprintf(message, sizeof message, format, args);
  size_t length = strlen(message);
  while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r'))
    message[--length] = '\0';
  for (size_t i = 0; i < length; i++)
    if ((unsigned char)message[i] < 0x20 || (unsigned char)message[i] >= 0x7f)
      message[i] = '?';
  if (strstr(message, "Error accepting connection") != NULL) {
    conns_event(transport, CONN_EVENT_ACCEPT_ERROR, "%s listener: %s",
                endpoint->health ? "health" : "api", message);
  } else if (strstr(message, "connection limit") != NULL) {
    conns_event(transport, CONN_EVENT_LIMIT, "%s listener: %s", endpoint->health ? "health" : "api",
                message);
  } else if (strstr(message, "when reading request") == NULL &&
             strstr(message, "Application reported internal error") == NULL) {
    /* Not the closes that follow a cut (the socket shut down here), a
     * client going away, or this daemon's own MHD_NO after a 413 or a
     * detached answer: those are routine, and counted elsewhere. */
    write_line(transport, MHD_EVENT, "libmicrohttpd", message);
  }
}

conn *conns_of(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info != NULL ? info->socket_context : NULL;
}

static void unlink_send(conns *cs, conn *c) {
  if (!c->sending)
    return;
  if (c->send_prev != NULL)
    c->send_prev->send_next = c->send_next;
  else
    cs->send_head = c->send_next;
  if (c->send_next != NULL)
    c->send_next->send_prev = c->send_prev;
  else
    cs->send_tail = c->send_prev;
  c->send_prev = c->send_next = NULL;
  c->sending = false;
  cs->send_queued -= (long)c->queued_bytes;
  c->queued_bytes = 0;
}

void conns_write_raw(conn *c, int status, const char *slug, const char *title, const char *detail) {
  http *transport = c->transport;
  request *r = c->req;
  if (c->closing)
    return;
  size_t body_length = 0;
  char *body = problem_body(status, slug, title, detail, r != NULL ? r->path : NULL,
                            r != NULL ? r->id : NULL, NULL, &body_length);
  char head[512], retry[48] = "";
  if (status == 503)
    snprintf(retry, sizeof retry, "Retry-After: %ld\r\n", transport->settings.retry_after_s);
  const char *reason = MHD_get_reason_phrase_for((unsigned int)status);
  int head_length = snprintf(head, sizeof head,
                             "HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Type: "
                             "application/problem+json\r\nContent-Length: %zu\r\n%s%s%s%s\r\n",
                             status, reason, body_length, retry, r != NULL ? "X-Request-Id: " : "",
                             r != NULL ? r->id : "", r != NULL ? "\r\n" : "");
  if (body == NULL || head_length <= 0 || (size_t)head_length >= sizeof head) {
    free(body);
    return;
  }
  struct iovec parts[2] = {{head, (size_t)head_length}, {body, body_length}};
  struct msghdr message = {.msg_iov = parts, .msg_iovlen = 2};
  ssize_t sent = sendmsg(c->fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
  free(body);
  if (sent >= 0 && r != NULL) {
    r->status = status;
    r->answered = true;
    r->bytes_out = body_length;
  }
}

/* Shuts the connection's socket down; MHD closes it on its next run. */
static void cut(conn *c) {
  if (c->closing)
    return;
  c->closing = true;
  unlink_send(&c->transport->guard, c);
  shutdown(c->fd, SHUT_RDWR);
}

static const char *ip_text(uint64_t ip, char *out, size_t size) {
  return conns_peer_text(ip, out, size);
}

static long health_idle_ms(const http *transport) {
  return transport->settings.health_idle_timeout_ms;
}

/* How long a request's headers may take on `l`: header_timeout_ms, and on
 * the health listener at most health_idle_timeout_ms, so that a connection
 * that sends nothing there is no better than an idle one. */
static uint64_t header_limit_ns(const listener *endpoint, const http *transport) {
  long limit = transport->settings.header_timeout_ms;
  if (endpoint->health && health_idle_ms(transport) < limit)
    limit = health_idle_ms(transport);
  return ms_to_ns(limit);
}

/* Issue 24 item 2: a trickler cut at its header deadline would otherwise
 * get its slot back at once and trickle again; the slot stays counted
 * against its address for header_timeout_penalty_ms. The ring forgets the
 * oldest penalty when full, so its memory is fixed. */
static void penalize(http *transport, const conn *c, uint64_t now) {
  long penalty_ms = transport->settings.header_timeout_penalty_ms;
  if (penalty_ms <= 0 || c->ip == 0)
    return;
  conns *cs = &transport->guard;
  cs->penalties[cs->penalty_next] =
      (conn_penalty){.owner = c->owner, .ip = c->ip, .until_ns = now + ms_to_ns(penalty_ms)};
  cs->penalty_next = (cs->penalty_next + 1) % CONNS_PENALTIES;
}

static long count_penalties(const conns *cs, const listener *endpoint, uint64_t ip, uint64_t now) {
  long count = 0;
  for (size_t i = 0; i < CONNS_PENALTIES; i++) {
    const conn_penalty *p = &cs->penalties[i];
    count += p->until_ns > now && p->ip == ip && p->owner == endpoint;
  }
  return count;
}

static void cut_for_timeout(conn *c, uint64_t now) {
  http *transport = c->transport;
  char ip[INET6_ADDRSTRLEN + 4];
  bool headers = c->phase == CONN_HEADERS;
  long limit = headers ? (long)(header_limit_ns(c->owner, transport) / 1000000u)
                       : transport->settings.body_timeout_ms;
  char detail[96];
  snprintf(detail, sizeof detail, "the request %s must arrive within %ld ms",
           headers ? "headers" : "body", limit);
  conns_write_raw(c, 408, "timeout", "Request Timeout", detail);
  if (headers)
    penalize(transport, c, now);
  conns_event(transport, headers ? CONN_EVENT_HEADER_TIMEOUT : CONN_EVENT_BODY_TIMEOUT,
              "%s from %s not complete after %.0f ms (limits.%s): closed",
              headers ? "headers" : "body", ip_text(c->ip, ip, sizeof ip),
              (double)(now - c->deadline_ns + ms_to_ns(limit)) / 1e6,
              headers ? "header_timeout_ms" : "body_timeout_ms");
  cut(c);
}

/* Closes stalled readers, oldest response first, while the queued bytes
 * are over the budget; `keep` (the response just queued) stays. */
static void enforce_budget(http *transport, conn *keep, uint64_t now) {
  conns *cs = &transport->guard;
  long budget = transport->settings.send_queue_bytes_max;
  uint64_t stall = ms_to_ns(transport->settings.send_stall_ms);
  conn *c = cs->send_head;
  while (cs->send_queued > budget && c != NULL) {
    conn *next = c->send_next;
    uint64_t acked = 0;
    if (c != keep && tcp_counters(c->fd, NULL, &acked)) {
      if (acked >= c->acked_bytes + CONNS_PROGRESS_BYTES) {
        c->acked_bytes = acked;
        c->progress_ns = now;
      } else if (now - c->progress_ns >= stall) {
        char ip[INET6_ADDRSTRLEN + 4];
        conns_event(transport, CONN_EVENT_SLOW_READER,
                    "%ld response bytes queued (limits.send_queue_bytes_max %ld); closed a "
                    "reader from %s stalled %.0f ms with %zu bytes queued",
                    cs->send_queued, budget, ip_text(c->ip, ip, sizeof ip),
                    (double)(now - c->progress_ns) / 1e6, c->queued_bytes);
        cut(c);
      }
    }
    c = next;
  }
}

void conns_sweep(http *transport, uint64_t now) {
  for (conn *c = transport->guard.all, *next; c != NULL; c = next) {
    next = c->next;
    if (c->closing)
      continue;
    if ((c->phase == CONN_HEADERS || c->phase == CONN_BODY) && now >= c->deadline_ns) {
      cut_for_timeout(c, now);
    } else if (c->phase == CONN_IDLE) {
      /* A keep-alive connection's next request starts its header clock at
       * its first byte (seen here, within a sweep), so idle connections are
       * left to connection_timeout_s and only a slow request is cut. On
       * the health listener they are closed after health_idle_timeout_ms
       * instead (issue 24 item 1): a probe needs no keep-alive, and idle
       * ones held for connection_timeout_s starved the probes. */
      uint64_t received = 0;
      if (tcp_counters(c->fd, &received, NULL) && received != c->idle_bytes) {
        c->phase = CONN_HEADERS;
        c->deadline_ns = now + header_limit_ns(c->owner, transport);
      } else if (c->owner->health && now - c->idle_ns >= ms_to_ns(health_idle_ms(transport))) {
        cut(c);
      }
    } else if (c->sending) {
      uint64_t acked = 0;
      if (tcp_counters(c->fd, NULL, &acked) && acked >= c->acked_bytes + CONNS_PROGRESS_BYTES) {
        c->acked_bytes = acked;
        c->progress_ns = now;
      }
    }
  }
  if (transport->guard.send_queued > transport->settings.send_queue_bytes_max)
    enforce_budget(transport, NULL, now);
}

void conns_init(http *transport) {
  const http_settings *limits = &transport->settings;
  long shortest = limits->header_timeout_ms < limits->body_timeout_ms ? limits->header_timeout_ms
                                                                      : limits->body_timeout_ms;
  if (limits->send_stall_ms < shortest)
    shortest = limits->send_stall_ms;
  if (transport->health.mhd != NULL && limits->health_idle_timeout_ms < shortest)
    shortest = limits->health_idle_timeout_ms;
  /* A tenth of the shortest deadline, so a cut comes at most 10% late. */
  long period = shortest / 10;
  transport->guard.sweep_ms = (uint64_t)(period < 10 ? 10 : period > 500 ? 500 : period);
}

/* Connections from `ip` open on listener `l` (each listener has its own
 * per-IP limit, and probes must not use up the API's, nor the reverse). */
static long count_ip(const conns *cs, const listener *endpoint, uint64_t ip) {
  long count = 0;
  for (const conn *c = cs->by_ip[bucket_of(ip)]; c != NULL; c = c->ip_next)
    count += c->ip == ip && c->owner == endpoint;
  return count;
}

enum MHD_Result conns_accept_policy(void *cls, const struct sockaddr *address,
                                    socklen_t address_length) {
  listener *endpoint = cls;
  http *transport = endpoint->owner;
  if (transport->closed_all)
    return MHD_NO; /* the daemon is about to exit */
  long max = endpoint->health ? transport->settings.health_connections_per_ip_max
                              : transport->settings.connections_per_ip_max;
  uint64_t ip = conns_peer_key(address, address_length);
  if (max <= 0 || ip == 0)
    return MHD_YES;
  long open = count_ip(&transport->guard, endpoint, ip);
  const char *key = endpoint->health ? "health_connections_per_ip_max" : "connections_per_ip_max";
  if (open >= max) {
    char text[INET6_ADDRSTRLEN + 4];
    conns_event(transport, CONN_EVENT_PER_IP,
                "%s listener: %s has %ld connections (limits.%s): refused",
                endpoint->health ? "health" : "api", ip_text(ip, text, sizeof text), max, key);
    return MHD_NO;
  }
  long penalties = count_penalties(&transport->guard, endpoint, ip, dg_monotonic_ns());
  if (open + penalties >= max) {
    char text[INET6_ADDRSTRLEN + 4];
    conns_event(transport, CONN_EVENT_PER_IP,
                "%s listener: %s has %ld connections and %ld cut at header_timeout_ms in the "
                "last limits.header_timeout_penalty_ms (%ld ms), of limits.%s %ld: refused",
                endpoint->health ? "health" : "api", ip_text(ip, text, sizeof text), open,
                penalties, transport->settings.header_timeout_penalty_ms, key, max);
    return MHD_NO;
  }
  return MHD_YES;
}

static void opened(listener *endpoint, struct MHD_Connection *connection, void **socket_context) {
  http *transport = endpoint->owner;
  const union MHD_ConnectionInfo *fd =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  conn *c = calloc(1, sizeof *c);
  if (c == NULL) {
    /* Unguarded connections are not allowed: refuse it. */
    if (fd != NULL)
      shutdown(fd->connect_fd, SHUT_RDWR);
    *socket_context = NULL;
    return;
  }
  c->transport = transport;
  c->owner = endpoint;
  c->fd = fd != NULL ? fd->connect_fd : -1;
  c->linger_fd = -1;
  const union MHD_ConnectionInfo *client =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (client != NULL && client->client_addr != NULL)
    c->ip = conns_peer_key(client->client_addr, client->client_addr->sa_family == AF_INET6
                                                    ? (socklen_t)sizeof(struct sockaddr_in6)
                                                    : (socklen_t)sizeof(struct sockaddr_in));
  c->phase = CONN_HEADERS;
  c->deadline_ns = dg_monotonic_ns() + header_limit_ns(endpoint, transport);
  conns *cs = &transport->guard;
  c->next = cs->all;
  if (cs->all != NULL)
    cs->all->prev = c;
  cs->all = c;
  conn **bucket = &cs->by_ip[bucket_of(c->ip)];
  c->ip_next = *bucket;
  if (*bucket != NULL)
    (*bucket)->ip_prev = c;
  *bucket = c;
  *socket_context = c;
  endpoint->open++;
  long max = endpoint->health ? transport->settings.health_connections_max
                              : transport->settings.connections_max;
  if (endpoint->open >= max)
    conns_event(transport, CONN_EVENT_LIMIT,
                "%s listener: %ld connections (limits.%s): not accepting until one closes",
                endpoint->health ? "health" : "api", endpoint->open,
                endpoint->health ? "health_connections_max" : "connections_max");
  if (transport->closed_all)
    cut(c);
}

static void closed(listener *endpoint, conn *c) {
  http *transport = endpoint->owner;
  conns *cs = &transport->guard;
  unlink_send(cs, c);
  if (c->prev != NULL)
    c->prev->next = c->next;
  else
    cs->all = c->next;
  if (c->next != NULL)
    c->next->prev = c->prev;
  if (c->ip_prev != NULL)
    c->ip_prev->ip_next = c->ip_next;
  else
    cs->by_ip[bucket_of(c->ip)] = c->ip_next;
  if (c->ip_next != NULL)
    c->ip_next->ip_prev = c->ip_prev;
  if (c->req != NULL)
    c->req->conn = NULL;
  if (c->linger_fd >= 0)
    linger_start(&transport->linger, c->linger_fd);
  free(c);
  endpoint->open--;
  endpoint->closed++;
}

void conns_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                  enum MHD_ConnectionNotificationCode code) {
  listener *endpoint = cls;
  if (code == MHD_CONNECTION_NOTIFY_STARTED)
    opened(endpoint, connection, socket_context);
  else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL) {
    closed(endpoint, *socket_context);
    *socket_context = NULL;
  }
}

void conns_headers_read(request *r) {
  conn *c = r->conn;
  if (c == NULL)
    return;
  c->req = r;
  if (c->phase == CONN_HEADERS || c->phase == CONN_IDLE) {
    c->phase = CONN_BODY;
    c->deadline_ns = dg_monotonic_ns() + ms_to_ns(r->transport->settings.body_timeout_ms);
  }
}

void conns_body_read(request *r) {
  if (r->conn != NULL && r->conn->phase == CONN_BODY)
    r->conn->phase = CONN_BUSY;
}

void conns_response_queued(request *r, size_t bytes) {
  conn *c = r->conn;
  if (c == NULL)
    return;
  c->phase = CONN_BUSY;
  if (bytes == 0 || c->closing || c->sending)
    return;
  http *transport = r->transport;
  conns *cs = &transport->guard;
  uint64_t now = dg_monotonic_ns();
  c->queued_bytes = bytes;
  c->progress_ns = now;
  tcp_counters(c->fd, NULL, &c->acked_bytes);
  c->sending = true;
  c->send_prev = cs->send_tail;
  c->send_next = NULL;
  if (cs->send_tail != NULL)
    cs->send_tail->send_next = c;
  else
    cs->send_head = c;
  cs->send_tail = c;
  cs->send_queued += (long)bytes;
  if (cs->send_queued > transport->settings.send_queue_bytes_max)
    enforce_budget(transport, c, now);
}

bool conns_admit(http *transport, size_t bytes) {
  long budget = transport->settings.send_queue_bytes_max;
  if (bytes <= CONNS_SMALL_RESPONSE || transport->guard.send_queued + (long)bytes <= budget)
    return true;
  conns *cs = &transport->guard;
  cs->send_queued += (long)bytes; /* as if queued, so that stalled readers make room */
  enforce_budget(transport, NULL, dg_monotonic_ns());
  cs->send_queued -= (long)bytes;
  return cs->send_queued + (long)bytes <= budget;
}

void conns_request_done(request *r) {
  conn *c = r->conn;
  if (c == NULL)
    return;
  unlink_send(&r->transport->guard, c);
  c->req = NULL;
  c->phase = CONN_IDLE;
  c->idle_ns = dg_monotonic_ns();
  c->idle_bytes = 0;
  tcp_counters(c->fd, &c->idle_bytes, NULL);
}

void conns_reclaim(http *transport, listener *endpoint, int listen_fd) {
  long max = endpoint->health ? transport->settings.health_connections_max
                              : transport->settings.connections_max;
  if (endpoint->open < max || listen_fd < 0 || transport->closed_all)
    return;
  conn *oldest = NULL;
  for (conn *c = transport->guard.all; c != NULL; c = c->next) {
    if (c->owner != endpoint)
      continue;
    if (c->closing)
      return; /* a slot is being freed already */
    if (c->phase == CONN_IDLE && (oldest == NULL || c->idle_ns < oldest->idle_ns))
      oldest = c;
  }
  struct pollfd waiting = {.fd = listen_fd, .events = POLLIN};
  if (oldest == NULL || poll(&waiting, 1, 0) != 1 || !(waiting.revents & POLLIN))
    return;
  char ip[INET6_ADDRSTRLEN + 4];
  conns_event(transport, CONN_EVENT_IDLE_CLOSED,
              "%s listener: %ld connections (limits.%s) and one waiting: closed a keep-alive "
              "from %s idle %.0f ms",
              endpoint->health ? "health" : "api", endpoint->open,
              endpoint->health ? "health_connections_max" : "connections_max",
              ip_text(oldest->ip, ip, sizeof ip),
              (double)(dg_monotonic_ns() - oldest->idle_ns) / 1e6);
  cut(oldest);
}

void conns_linger(conn *c) {
  if (c != NULL && c->linger_fd < 0 && !c->closing)
    c->linger_fd = dup(c->fd);
}

void conns_close_all(http *transport) {
  for (conn *c = transport->guard.all; c != NULL; c = c->next) {
    if (c->closing || (c->req != NULL && c->req->suspended))
      continue; /* a suspended request is answered when its cancelled job ends */
    if (c->phase != CONN_BUSY || (c->req != NULL && !c->req->answered)) {
      if (c->phase != CONN_IDLE)
        conns_write_raw(c, 503, PROBLEM_DRAINING_SLUG, PROBLEM_DRAINING_TITLE,
                        PROBLEM_DRAINING_DETAIL);
      char ip[INET6_ADDRSTRLEN + 4];
      conns_event(transport, CONN_EVENT_DRAIN_CLOSED,
                  "connection from %s still open at limits.drain_timeout_ms (%ld ms): closed",
                  ip_text(c->ip, ip, sizeof ip), transport->settings.drain_timeout_ms);
    } else {
      conns_event(transport, CONN_EVENT_DRAIN_CLOSED,
                  "a response still being sent at limits.drain_timeout_ms: closed");
    }
    cut(c);
  }
}

const char *const conn_event_names[CONN_EVENT_COUNT] = {
    "connection_limit", "per_ip_limit", "accept_error", "header_timeout",
    "body_timeout",     "slow_reader",  "drain_closed", "idle_closed",
};
