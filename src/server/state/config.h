/* The daemon's configuration: listen address, worker count, every limit and
 * the named player profiles, read from a JSON file (config/dungeond.json),
 * then overridden by command-line flags. docs/config.md documents each key.
 * Loaded once on the main thread before the loop starts; read-only after. */
#ifndef DUNGEOND_CONFIG_H
#define DUNGEOND_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"
#include "profile.h"

#define CONFIG_LISTEN_MAX 128
#define CONFIG_PATH_MAX 4096
#define CONFIG_TRUSTED_PROXIES_MAX 16 /* entries of trusted_proxies */

typedef struct config_limits {
  long body_bytes_max;         /* largest request body accepted (413 above) */
  long grid_cells_max;         /* width * height ceiling for any algorithm (422 above) */
  long rooms_max;              /* ceiling for room-count parameters (422 above) */
  long players_max;            /* entries in `players` (422 above) */
  long deadline_ms_default;    /* deadline of a request without deadline_ms */
  long deadline_ms_max;        /* largest deadline_ms accepted (422 above) */
  long interactive_queue_max;  /* queued POST /v1/levels jobs (503 above) */
  long client_queued_cost_max; /* estimated cost one client may have queued (429 above) */
  long client_workers_max;     /* interactive jobs one client may run at once; 0: workers - 1 */
  long heavy_job_cost_min; /* estimated cost from which an interactive job runs lowered; 0: never */
  long interactive_slice_us; /* kernel time slice of the loop and interactive workers; 0: default */
  long heavy_slice_us;       /* kernel time slice of the heavy lane's threads; 0: default */
  long yield_percent;        /* most of its time a heavy job pauses for light ones */
  long yield_linger_us;      /* such a pause goes on this long after the last light job */
  long lobbies_per_client_max;    /* lobbies one client may have made and alive (429 above) */
  long speculative_queue_max;     /* queued pre-generation jobs (dropped above) */
  long connections_max;           /* simultaneous HTTP connections */
  long connection_timeout_s;      /* idle connection timeout */
  long connections_per_ip_max;    /* connections from one IPv4 address; 0: no limit */
  long header_timeout_ms;         /* a request's headers must arrive within this */
  long header_timeout_penalty_ms; /* an address's slot cut by header_timeout_ms stays taken */
  long linger_ms;                 /* early 413: drain the unread body this long at most */
  long linger_bytes_max;          /* and at most this many bytes */
  long body_timeout_ms;           /* a request's body must arrive within this after its headers */
  long send_queue_bytes_max;      /* response bytes queued to clients; stalled dropped above */
  long send_stall_ms;             /* a reader with no byte acknowledged this long is stalled */
  long health_connections_max;    /* simultaneous connections on health_listen */
  long health_connections_per_ip_max; /* connections from one address on health_listen; 0: none */
  long health_idle_timeout_ms;        /* health_listen: idle keep-alive (and first header) limit */
  long drain_timeout_ms;              /* SIGTERM: how long running jobs may finish */
  long retry_after_s;                 /* Retry-After sent with 503 */
  long lobbies_max;                   /* lobbies alive at once (503 above) */
  long lobby_players_max;             /* players in one lobby (422 above) */
  long lobby_idle_ttl_ms;             /* a lobby unchanged this long is removed */
  long lobby_grace_ms;                /* a started lobby's level stays fetchable this long */
  long lobby_debounce_ms;             /* wait after a change before pre-generating */
  long lobby_bytes_max;               /* all lobby state: settings, players, ready levels */
  long lobby_cache_bytes_max;         /* of that, ready levels at most (LRU evicted) */
  long player_attributes_max;         /* attributes of one player (422 above) */
  long player_attribute_name_max;     /* bytes of an attribute's name (422 above) */
  long player_attribute_value_max;    /* largest |value| of an attribute (422 above) */
  long speculative_reserved_workers;  /* workers pre-generation may not use */
  long floors_max;                    /* floors of one multi-floor set (422 above) */
  long audit_seeds_max;               /* seeds of one POST /v1/audit (422 above) */
  long target_attempts_max;           /* targets.attempts_max ceiling (422 above) */
  long query_params_max;              /* parameters in one request target's query (414 above) */
  long request_target_bytes_max;      /* bytes of one request target, path and query (414 above) */
} config_limits;

/* gzip of level responses (negotiate.c). */
typedef struct config_compression {
  long gzip_level;     /* zlib level 1..9; 0 never compresses */
  long gzip_min_bytes; /* bodies smaller than this are sent as they are */
} config_compression;

typedef struct config {
  char listen[CONFIG_LISTEN_MAX];        /* "host:port"; port 0 picks a free port */
  char health_listen[CONFIG_LISTEN_MAX]; /* probe listener "host:port"; "" for none */
  int workers;                           /* generation threads (libuv pool size) */
  bool log_requests;                     /* one JSON line per request on stderr */
  config_limits limits;                  /* every hard limit */
  config_compression compression;        /* gzip of level responses */
  json_t *profiles;                      /* object name -> profile (owned reference) */
  party_profile *profile_list;           /* `profiles` compiled at load, in its order (owned) */
  int profile_count;
  char default_profile[64];     /* profile used when `players` come without one */
  json_t *auth_tokens;          /* array of accepted bearer tokens; NULL or empty: none asked */
  json_t *cors_allowed_origins; /* browser origins allowed by CORS ("*": any); NULL: none */
  char roomsets_dir[CONFIG_PATH_MAX]; /* room-set directory loaded at start-up; "" for none */
  bool roomsets_dir_set;              /* given in the file: then it must exist */
  char tables_dir[CONFIG_PATH_MAX];   /* content-table directory loaded at start-up; "" for none */
  bool tables_dir_set;                /* given in the file: then it must exist */
  uint8_t lobby_seed_key[16];         /* lobby seeds (SipHash-2-4) and level ids (HMAC) key */
  bool lobby_seed_secret_set;         /* lobby_seed_secret given; else the process's random key */
  /* trusted_proxies: networks whose X-Forwarded-For is logged, as 16-byte
   * IPv6 addresses and masks (IPv4 ones mapped, ::ffff:a.b.c.d/96+bits). */
  uint8_t trusted_proxies[CONFIG_TRUSTED_PROXIES_MAX][16];
  uint8_t trusted_proxy_masks[CONFIG_TRUSTED_PROXIES_MAX][16];
  int trusted_proxy_count;
} config;

/* Fills `cfg` with the built-in defaults (those of config/dungeond.json). */
void config_defaults(config *cfg);

/* The party limits of the configuration: players_max and the
 * player_attribute* keys. */
party_limits party_limits_of(const config_limits *limits);

/* Reads the JSON file `path` over the defaults. Unknown keys and values out
 * of range are errors naming the key. 0, or a negative DG_E* code with
 * `err` filled: DG_ENOENT (a file missing, an unknown key or profile
 * name), DG_EPARSE (malformed JSON), DG_ETYPE (a value of the wrong JSON
 * type), DG_EINVAL (a value out of range, a secret file refused),
 * DG_ENOMEM. */
int config_load(config *cfg, const char *path, dg_error *err);

/* As config_load, from the `size` bytes at `data` (a whole configuration
 * file's text); `name` stands for the path in messages. For tests and the
 * fuzz targets. 0, or a DG_E* code with `err` filled, as config_load. */
int config_loadb(config *cfg, const char *data, size_t size, const char *name, dg_error *err);

/* Parses "--listen" text into cfg->listen after checking it with
 * http_parse_listen (transport/listen.h). 0 or its error. */
int config_set_listen(config *cfg, const char *text, dg_error *err);

/* The same for "--health-listen" into cfg->health_listen; "" turns the
 * health listener off. 0 or a DG_E* code, as config_set_listen. */
int config_set_health_listen(config *cfg, const char *text, dg_error *err);

/* Sets the lobby seed key from `text`: 32 hexadecimal digits, or "" for
 * none (config_use_process_key then gives the key); NULL stands for a JSON
 * value that is not a string. 0, or with `err` (the secret is not quoted)
 * DG_ETYPE for NULL, DG_EINVAL for anything else that is not such a key,
 * or for the all-zero key (what an unconfigured daemon once used: anyone
 * could forge level ids and foresee lobby seeds with it). */
int config_set_seed_secret(config *cfg, const char *text, dg_error *err);

/* When `cfg` has no lobby_seed_secret, makes `process_key` (16 random
 * bytes drawn once per process) its key, so level ids cannot be forged and
 * lobby seeds not foreseen; they then hold only within this process.
 * Returns whether it did (the caller warns). */
bool config_use_process_key(config *cfg, const uint8_t process_key[16]);

/* The compiled profile called `name`, or NULL when there is none. The
 * configuration owns it; it lives as long as `cfg`. */
const party_profile *config_profile(const config *cfg, const char *name);

/* Checks cross-key rules and the profiles against the algorithm tables.
 * 0, or a DG_E* code with `err` naming the key (DG_EINVAL for a rule
 * broken, DG_ENOENT for a default_profile not in profiles, profile_check's
 * codes for a profile). */
int config_validate(const config *cfg, dg_error *err);

/* Releases what config_load allocated. */
void config_close(config *cfg);

#endif
