/* What the transport is given and what it counts: its settings (the
 * listeners, the limits it enforces) and its counters (refusals and
 * connection events). Types only. The daemon fills the settings from its
 * configuration and reads the counters when it renders its stats, so the
 * transport needs nothing of the daemon above it (a libuv-style layer: it
 * hands requests back to its owner through callbacks and `void *data`). */
#ifndef DUNGEOND_TRANSPORT_H
#define DUNGEOND_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The transport's own error: the operating system refused a socket or
 * epoll call (start-up only). The daemon's error table (api/problem.h)
 * knows it as SRV_ESYSTEM. */
#define HTTP_ESYSTEM (-106)

/* Proxies whose X-Forwarded-For the access log believes, at most. */
#define HTTP_TRUSTED_PROXIES_MAX 16

/* The longest HOST:PORT a listener takes. */
#define HTTP_LISTEN_MAX 128

/* Connection events (conns.c): each is counted, and logged at most once a
 * second per kind. */
typedef enum conn_event {
  CONN_EVENT_LIMIT,          /* connections_max reached: accepting paused or a connection refused */
  CONN_EVENT_PER_IP,         /* a connection refused by connections_per_ip_max */
  CONN_EVENT_ACCEPT_ERROR,   /* accept() failed: EMFILE, ENFILE, ENOBUFS, ENOMEM */
  CONN_EVENT_HEADER_TIMEOUT, /* headers not complete within header_timeout_ms: closed */
  CONN_EVENT_BODY_TIMEOUT,   /* body not complete within body_timeout_ms: closed */
  CONN_EVENT_SLOW_READER,    /* closed to keep queued responses under send_queue_bytes_max */
  CONN_EVENT_DRAIN_CLOSED,   /* still open when drain_timeout_ms ran out: closed */
  CONN_EVENT_IDLE_CLOSED,    /* the longest-idle keep-alive, closed at the limit for a new one */
  CONN_EVENT_COUNT
} conn_event;

/* The names used in logs, /v1/stats and /metrics, by conn_event. */
extern const char *const conn_event_names[CONN_EVENT_COUNT];

/* The transport's settings: copied at http_start, never changed after. The
 * names are the configuration's (docs/config.md), which the messages
 * name. */
typedef struct http_settings {
  const char *listen;                 /* HOST:PORT of the API (borrowed for the call) */
  const char *health_listen;          /* HOST:PORT of the probes, "" for none (borrowed) */
  bool log_requests;                  /* one JSON line per request on stderr */
  long body_bytes_max;                /* larger bodies are refused with 413 */
  long connections_max;               /* open API connections */
  long health_connections_max;        /* open probe connections */
  long connection_timeout_s;          /* idle keep-alive timeout */
  long connections_per_ip_max;        /* open API connections from one IPv4 address; 0: no limit */
  long health_connections_per_ip_max; /* open probe connections from one address; 0: none */
  long health_idle_timeout_ms;        /* probe keep-alives (and first headers) closed after */
  long header_timeout_ms;             /* a request's headers must arrive within this */
  long header_timeout_penalty_ms;     /* a slot cut at header_timeout_ms stays counted this long */
  long linger_ms;                     /* early 413: drain the unread body at most this long */
  long linger_bytes_max;              /* and at most this many bytes */
  long query_params_max;              /* parameters in a request target's query (414 above) */
  long request_target_bytes_max;      /* bytes of a request target (414 above) */
  long body_timeout_ms;               /* its body within this after its headers */
  long send_queue_bytes_max;          /* budget of response bytes queued to clients */
  long send_stall_ms;                 /* a reader taking < 64 KiB in this long has stalled */
  long retry_after_s;                 /* Retry-After of every 503 */
  long drain_timeout_ms;              /* named in the drain timeout's log lines */
  size_t request_data_size;           /* bytes of the owner's per-request data (request.data) */
  uint32_t id_prefix;                 /* random part of generated request ids */
  /* trusted_proxies: networks as 16-byte IPv6 addresses (IPv4 ones mapped,
   * ::ffff:a.b.c.d) and masks; an address is in one when address & mask ==
   * network, byte by byte */
  uint8_t trusted_proxies[HTTP_TRUSTED_PROXIES_MAX][16];
  uint8_t trusted_proxy_masks[HTTP_TRUSTED_PROXIES_MAX][16];
  int trusted_proxy_count;
} http_settings;

/* What the transport refused or saw, for the owner's statistics. */
typedef struct http_counters {
  uint64_t rejected_too_large;            /* 413 */
  uint64_t rejected_send_queue;           /* 503: send_queue_bytes_max full of active readers */
  uint64_t conn_events[CONN_EVENT_COUNT]; /* connection events by kind */
} http_counters;

#endif
