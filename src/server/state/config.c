/* Loading and checking the daemon's JSON configuration. Every limit the
 * daemon enforces is a key here, range-checked at load so that a bad value
 * stops start-up instead of surprising a client; docs/config.md is the
 * reference for each key. */
#include "state/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "transport/listen.h"

party_limits party_limits_of(const config_limits *limits) {
  return (party_limits){.players_max = limits->players_max,
                        .attributes_max = limits->player_attributes_max,
                        .name_bytes_max = limits->player_attribute_name_max,
                        .value_max = (double)limits->player_attribute_value_max};
}

void config_defaults(config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  snprintf(cfg->listen, sizeof cfg->listen, "127.0.0.1:8080");
  cfg->workers = 2;
  cfg->log_requests = true;
  /* A checkout's room sets when run from it, else the installed ones. */
  struct stat info;
  bool checkout = stat("config/roomsets", &info) == 0 && S_ISDIR(info.st_mode);
  snprintf(cfg->roomsets_dir, sizeof cfg->roomsets_dir, "%s",
           checkout ? "config/roomsets" : DUNGEON_ROOMSETS_DIR);
  /* The example tables are not installed: a checkout's, else none. */
  snprintf(cfg->tables_dir, sizeof cfg->tables_dir, "%s",
           stat("config/tables", &info) == 0 && S_ISDIR(info.st_mode) ? "config/tables" : "");
  cfg->limits = (config_limits){
      .body_bytes_max = 65536,
      .grid_cells_max = 1000000,
      .rooms_max = 10000,
      .players_max = PARTY_PLAYERS_MAX,
      .deadline_ms_default = 5000,
      .deadline_ms_max = 60000,
      .interactive_queue_max = 1024,
      .client_queued_cost_max = 16000000,
      .client_workers_max = 0,
      .heavy_job_cost_min = 250000,
      .interactive_slice_us = 100,
      .heavy_slice_us = 100000,
      .yield_percent = 75,
      .yield_linger_us = 1000,
      .lobbies_per_client_max = 1000,
      .speculative_queue_max = 256,
      .connections_max = 1024,
      .connection_timeout_s = 30,
      .connections_per_ip_max = 256,
      .header_timeout_ms = 5000,
      .header_timeout_penalty_ms = 10000,
      .body_timeout_ms = 10000,
      .linger_ms = 5000,
      .linger_bytes_max = 64L << 20,
      .send_queue_bytes_max = 256L << 20,
      .send_stall_ms = 1000,
      .health_connections_max = 32,
      .health_connections_per_ip_max = 8,
      .health_idle_timeout_ms = 2000,
      .drain_timeout_ms = 10000,
      .retry_after_s = 1,
      .lobbies_max = 10000,
      .lobby_players_max = 64,
      .lobby_idle_ttl_ms = 600000,
      .lobby_grace_ms = 60000,
      .lobby_debounce_ms = 50,
      .lobby_bytes_max = 256L << 20,
      .lobby_cache_bytes_max = 1L << 40,
      .player_attributes_max = PARTY_ATTRIBUTES_MAX,
      .player_attribute_name_max = PARTY_ATTRIBUTE_NAME_MAX,
      .player_attribute_value_max = PARTY_ATTRIBUTE_VALUE_MAX,
      .speculative_reserved_workers = 1,
      .floors_max = 8,
      .audit_seeds_max = 200,
      .target_attempts_max = 64,
      .query_params_max = 64,
      .request_target_bytes_max = 8192,
  };
  cfg->compression = (config_compression){.gzip_level = 6, .gzip_min_bytes = 1024};
}

/* The "compression" object: {"gzip_level": 0..9, "gzip_min_bytes": n}. */
static int load_compression(config *cfg, json_t *compression, dg_error *err) {
  if (!json_is_object(compression))
    return dg_error_set(err, DG_ETYPE, "compression", "compression must be an object");
  const char *key;
  json_t *value;
  json_object_foreach(compression, key, value) {
    long *slot = NULL, max = 0;
    if (strcmp(key, "gzip_level") == 0)
      slot = &cfg->compression.gzip_level, max = 9;
    else if (strcmp(key, "gzip_min_bytes") == 0)
      slot = &cfg->compression.gzip_min_bytes, max = 1L << 30;
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "compression.%s", key);
    if (slot == NULL)
      return dg_error_set(err, DG_ENOENT, field, "unknown key %s", field);
    if (!json_is_integer(value) || json_integer_value(value) < 0 || json_integer_value(value) > max)
      return dg_error_set(err, json_is_integer(value) ? DG_EINVAL : DG_ETYPE, field,
                          "%s must be an integer from 0 to %ld", field, max);
    *slot = (long)json_integer_value(value);
  }
  return 0;
}

typedef struct limit_key {
  const char *name; /* key under "limits" */
  size_t offset;    /* of the long in config_limits */
  long min, max;    /* allowed range */
} limit_key;

#define LIMIT(field, lo, hi)                                                                       \
  { #field, offsetof(config_limits, field), lo, hi }
static const limit_key limit_keys[] = {
    LIMIT(body_bytes_max, 64, 64L << 20),
    LIMIT(grid_cells_max, 200, 100000000),
    LIMIT(rooms_max, 1, 100000),
    LIMIT(players_max, 1, 100000),
    LIMIT(deadline_ms_default, 1, 3600000),
    LIMIT(deadline_ms_max, 1, 3600000),
    LIMIT(interactive_queue_max, 0, 1000000),
    LIMIT(client_queued_cost_max, 1, 1000000000000L),
    LIMIT(client_workers_max, 0, 256),
    LIMIT(heavy_job_cost_min, 0, 1000000000000000L),
    LIMIT(interactive_slice_us, 0, 100000),
    LIMIT(heavy_slice_us, 0, 100000),
    LIMIT(yield_percent, 0, 90),
    LIMIT(yield_linger_us, 0, 100000),
    LIMIT(lobbies_per_client_max, 0, 1000000),
    LIMIT(speculative_queue_max, 0, 1000000),
    LIMIT(connections_max, 1, 100000),
    LIMIT(connection_timeout_s, 1, 86400),
    LIMIT(connections_per_ip_max, 0, 100000),
    LIMIT(header_timeout_ms, 100, 3600000),
    LIMIT(header_timeout_penalty_ms, 0, 3600000),
    LIMIT(body_timeout_ms, 100, 3600000),
    LIMIT(linger_ms, 0, 600000),
    LIMIT(linger_bytes_max, 0, 1L << 30),
    LIMIT(send_queue_bytes_max, 1L << 20, 1L << 40),
    LIMIT(send_stall_ms, 10, 600000),
    LIMIT(health_connections_max, 1, 1024),
    LIMIT(health_connections_per_ip_max, 0, 1024),
    LIMIT(health_idle_timeout_ms, 100, 3600000),
    LIMIT(drain_timeout_ms, 0, 3600000),
    LIMIT(retry_after_s, 1, 3600),
    LIMIT(lobbies_max, 0, 1000000),
    LIMIT(lobby_players_max, 1, 100000),
    LIMIT(lobby_idle_ttl_ms, 100, 86400000),
    LIMIT(lobby_grace_ms, 0, 86400000),
    LIMIT(lobby_debounce_ms, 0, 60000),
    LIMIT(lobby_bytes_max, 65536, 1L << 40),
    LIMIT(lobby_cache_bytes_max, 0, 1L << 40),
    LIMIT(player_attributes_max, 1, 10000),
    LIMIT(player_attribute_name_max, 1, 4096),
    LIMIT(player_attribute_value_max, 1, 1000000000000000L),
    LIMIT(speculative_reserved_workers, 0, 255),
    LIMIT(floors_max, 1, 64),
    LIMIT(audit_seeds_max, 1, DG_AUDIT_SEEDS_MAX),
    LIMIT(target_attempts_max, 1, 1000),
    LIMIT(query_params_max, 1, 128),
    LIMIT(request_target_bytes_max, 256, 8192),
};

static int set_address(char *out, size_t size, const char *key, const char *text, dg_error *err) {
  int rc = http_parse_listen(key, text, NULL, err);
  if (rc == 0)
    snprintf(out, size, "%s", text);
  return rc;
}

int config_set_listen(config *cfg, const char *text, dg_error *err) {
  return set_address(cfg->listen, sizeof cfg->listen, "listen", text, err);
}

int config_set_health_listen(config *cfg, const char *text, dg_error *err) {
  if (text[0] == '\0') {
    cfg->health_listen[0] = '\0';
    return 0;
  }
  return set_address(cfg->health_listen, sizeof cfg->health_listen, "health_listen", text, err);
}

static int hex_digit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

int config_set_seed_secret(config *cfg, const char *text, dg_error *err) {
  size_t length = text != NULL ? strlen(text) : 1;
  bool valid = text != NULL && (length == 0 || length == 2 * sizeof cfg->lobby_seed_key);
  for (size_t i = 0; valid && i < length; i++)
    valid = hex_digit(text[i]) >= 0;
  if (!valid)
    return dg_error_set(err, text == NULL ? DG_ETYPE : DG_EINVAL, "lobby_seed_secret",
                        "lobby_seed_secret must be 32 hexadecimal digits (a 128-bit key, e.g. "
                        "from `openssl rand -hex 16`), or \"\" for none");
  uint8_t key[sizeof cfg->lobby_seed_key] = {0};
  uint8_t any = 0;
  for (size_t i = 0; i < length / 2; i++) {
    key[i] = (uint8_t)(hex_digit(text[2 * i]) << 4 | hex_digit(text[2 * i + 1]));
    any |= key[i];
  }
  if (length > 0 && any == 0)
    return dg_error_set(err, DG_EINVAL, "lobby_seed_secret",
                        "lobby_seed_secret must not be all zeros: that key is public (anyone "
                        "could sign level ids and foresee lobby seeds); make one with `openssl "
                        "rand -hex 16`, or leave it out for a random key per process");
  memcpy(cfg->lobby_seed_key, key, sizeof key);
  cfg->lobby_seed_secret_set = length > 0;
  return 0;
}

bool config_use_process_key(config *cfg, const uint8_t process_key[16]) {
  if (cfg->lobby_seed_secret_set)
    return false;
  memcpy(cfg->lobby_seed_key, process_key, sizeof cfg->lobby_seed_key);
  return true;
}

static int load_limits(config *cfg, json_t *limits, dg_error *err) {
  if (!json_is_object(limits))
    return dg_error_set(err, DG_ETYPE, "limits", "limits must be an object");
  const char *key;
  json_t *value;
  json_object_foreach(limits, key, value) {
    const limit_key *found = NULL;
    for (size_t i = 0; i < sizeof limit_keys / sizeof limit_keys[0]; i++)
      if (strcmp(limit_keys[i].name, key) == 0)
        found = &limit_keys[i];
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "limits.%s", key);
    if (found == NULL)
      return dg_error_set(err, DG_ENOENT, field, "unknown key %s", field);
    if (!json_is_integer(value) || json_integer_value(value) < found->min ||
        json_integer_value(value) > found->max)
      return dg_error_set(err, json_is_integer(value) ? DG_EINVAL : DG_ETYPE, field,
                          "%s must be an integer from %ld to %ld", field, found->min, found->max);
    *(long *)((char *)&cfg->limits + found->offset) = (long)json_integer_value(value);
  }
  return 0;
}

/* The code for a failed open, fstat or read of a file the configuration
 * names. The library has no I/O code of its own, and from the
 * configuration's side the fault is the key's value, a path: DG_ENOENT when
 * it names nothing (ENOENT, ENOTDIR), DG_ENOMEM when the kernel is out of
 * memory, DG_EINVAL otherwise (permissions, EIO, ...), the path being a
 * value that does not work. The message keeps strerror's exact words. */
static int file_error_code(int error) {
  if (error == ENOENT || error == ENOTDIR)
    return DG_ENOENT;
  return error == ENOMEM ? DG_ENOMEM : DG_EINVAL;
}

/* Secrets may live in files of their own instead of the configuration, which
 * is usually readable by everyone (/etc/dungeond/dungeond.json, a ConfigMap):
 * a systemd credential or a Kubernetes Secret mounted as a file. A leading
 * "$CREDENTIALS_DIRECTORY/" is replaced by that variable, which systemd sets
 * for LoadCredential=, because the directory's path is systemd's to choose.
 * Refuses anything but a regular file, and a file other users may read or
 * write: a secret that leaked that way is no longer one. Sets *out to the
 * whole file (malloc'd, NUL-terminated, no NUL inside) and returns 0, or
 * returns a DG_E* code with `err` set and *out NULL. */
static int read_secret_file(const char *key, const char *path, char **out, dg_error *err) {
  static const char prefix[] = "$CREDENTIALS_DIRECTORY/";
  char expanded[CONFIG_PATH_MAX];
  *out = NULL;
  if (strncmp(path, prefix, sizeof prefix - 1) == 0) {
    const char *dir = getenv("CREDENTIALS_DIRECTORY");
    /* DG_ENOENT: the path names a variable that does not exist here. */
    if (dir == NULL || dir[0] == '\0')
      return dg_error_set(err, DG_ENOENT, key,
                          "%s names $CREDENTIALS_DIRECTORY, which is not set (systemd sets it "
                          "for LoadCredential=)",
                          key);
    if ((size_t)snprintf(expanded, sizeof expanded, "%s/%s", dir, path + sizeof prefix - 1) >=
        sizeof expanded)
      return dg_error_set(err, DG_EINVAL, key, "%s: the path is too long", key);
    path = expanded;
  }
  /* O_NONBLOCK: a FIFO put there by mistake must not hang start-up. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return dg_error_set(err, file_error_code(errno), key, "%s %s: %s", key, path, strerror(errno));
  struct stat st;
  char *text = NULL;
  int rc;
  if (fstat(fd, &st) != 0) {
    rc = dg_error_set(err, file_error_code(errno), key, "%s %s: %s", key, path, strerror(errno));
    goto fail;
  }
  if (!S_ISREG(st.st_mode)) {
    rc = dg_error_set(err, DG_EINVAL, key, "%s %s is not a regular file", key, path);
    goto fail;
  }
  if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0) {
    rc = dg_error_set(err, DG_EINVAL, key,
                      "%s %s may be read or written by other users (mode %04o): chmod o-rwx it",
                      key, path, (unsigned)(st.st_mode & 07777));
    goto fail;
  }
  size_t size = (size_t)st.st_size, used = 0;
  text = malloc(size + 1);
  if (text == NULL) {
    rc = dg_error_set(err, DG_ENOMEM, key, "%s %s: out of memory", key, path);
    goto fail;
  }
  while (used < size) {
    ssize_t got = read(fd, text + used, size - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      rc = dg_error_set(err, file_error_code(errno), key, "%s %s: %s", key, path, strerror(errno));
      goto fail;
    }
    if (got == 0)
      break; /* shrank while read: take what is there */
    used += (size_t)got;
  }
  text[used] = '\0';
  /* The file's text is the key's value: a NUL in it is a bad value. */
  if (strlen(text) != used) {
    rc = dg_error_set(err, DG_EINVAL, key, "%s %s holds a NUL byte: it must be text", key, path);
    goto fail;
  }
  close(fd);
  *out = text;
  return 0;
fail:
  free(text);
  close(fd);
  return rc;
}

/* "auth_tokens_file": one token a line; blank lines and lines starting with
 * '#' are skipped, spaces around a token ignored. Its tokens are added to
 * those of "auth_tokens" in `root`, so one check (routes.c) serves both. */
static int load_auth_tokens_file(json_t *root, const char *path, dg_error *err) {
  static const char key[] = "auth_tokens_file";
  char *text;
  int rc = read_secret_file(key, path, &text, err);
  if (rc != 0)
    return rc;
  json_t *inline_tokens = json_object_get(root, "auth_tokens");
  /* A malformed inline list is left for the key loop to report. */
  json_t *tokens = json_is_array(inline_tokens) ? json_copy(inline_tokens) : json_array();
  int line = 0, added = 0;
  if (tokens == NULL) {
    rc = dg_error_set(err, DG_ENOMEM, key, "%s: out of memory", key);
    goto done;
  }
  for (char *next = text; next != NULL;) {
    char *start = next, *end = strchr(next, '\n');
    next = end != NULL ? end + 1 : NULL;
    if (end == NULL)
      end = start + strlen(start);
    line++;
    while (start < end && (*start == ' ' || *start == '\t'))
      start++;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
      end--;
    if (start == end || *start == '#')
      continue;
    for (const char *c = start; c < end; c++)
      if (*c < 0x21 || *c > 0x7e) {
        rc = dg_error_set(err, DG_EINVAL, key,
                          "%s %s line %d: a token must be printable ASCII without spaces", key,
                          path, line);
        goto done;
      }
    if (end - start < 16) {
      rc = dg_error_set(err, DG_EINVAL, key,
                        "%s %s line %d: a token must be at least 16 characters", key, path, line);
      goto done;
    }
    if (json_array_append_new(tokens, json_stringn(start, (size_t)(end - start))) != 0) {
      rc = dg_error_set(err, DG_ENOMEM, key, "%s: out of memory", key);
      goto done;
    }
    added++;
  }
  /* An empty file must not silently turn authentication off. */
  if (added == 0) {
    rc = dg_error_set(err, DG_EINVAL, key,
                      "%s %s holds no token (one a line; '#' starts a comment)", key, path);
    goto done;
  }
  /* A malformed inline value is kept for the key loop's message (rc is 0). */
  if (!json_is_array(inline_tokens) && inline_tokens != NULL)
    goto done;
  if (json_object_set(root, "auth_tokens", tokens) != 0)
    rc = dg_error_set(err, DG_ENOMEM, key, "%s: out of memory", key);
done:
  json_decref(tokens);
  free(text);
  return rc;
}

/* "lobby_seed_secret_file": the whole file, final line breaks removed, is
 * the value of "lobby_seed_secret" (lobby seeds derive from it and the lobby
 * id, so every replica given the same secret makes the same level). */
static int load_lobby_seed_secret_file(json_t *root, const char *path, dg_error *err) {
  static const char key[] = "lobby_seed_secret_file";
  if (json_object_get(root, "lobby_seed_secret") != NULL)
    return dg_error_set(err, DG_EINVAL, key,
                        "set lobby_seed_secret or lobby_seed_secret_file, not both");
  char *text;
  int rc = read_secret_file(key, path, &text, err);
  if (rc != 0)
    return rc;
  size_t length = strlen(text);
  while (length > 0 && (text[length - 1] == '\n' || text[length - 1] == '\r'))
    length--;
  json_t *secret = length > 0 ? json_stringn(text, length) : NULL;
  if (length == 0)
    rc = dg_error_set(err, DG_EINVAL, key, "%s %s is empty", key, path);
  else if (secret == NULL)
    rc = dg_error_set(err, DG_EINVAL, key, "%s %s must be UTF-8 text", key, path);
  else if (json_object_set_new(root, "lobby_seed_secret", secret) != 0)
    rc = dg_error_set(err, DG_ENOMEM, key, "%s: out of memory", key);
  free(text);
  return rc;
}

/* Replaces the *_file keys of `root` by the values their files hold, before
 * the keys are checked, so a secret read from a file passes the same checks
 * as one written inline. */
static int load_secret_files(json_t *root, dg_error *err) {
  static const char *const keys[] = {"auth_tokens_file", "lobby_seed_secret_file"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    json_t *value = json_object_get(root, keys[i]);
    if (value == NULL)
      continue;
    if (!json_is_string(value) || json_string_length(value) == 0 ||
        json_string_length(value) >= CONFIG_PATH_MAX)
      return dg_error_set(err, json_is_string(value) ? DG_EINVAL : DG_ETYPE, keys[i],
                          "%s must be a file path", keys[i]);
    int rc = i == 0 ? load_auth_tokens_file(root, json_string_value(value), err)
                    : load_lobby_seed_secret_file(root, json_string_value(value), err);
    if (rc != 0)
      return rc;
    json_object_del(root, keys[i]);
  }
  return 0;
}

/* "a.b.c.d[/bits]" or an IPv6 "x:y::z[/bits]" into a 16-byte network and
 * mask. An IPv4 network is stored IPv4-mapped (::ffff:a.b.c.d, its bits
 * counted after the 96 of the prefix), the form a peer's IPv4 address is
 * compared in, so one comparison serves both families. */
static bool parse_network(const char *text, uint8_t network[16], uint8_t mask[16]) {
  char host[INET6_ADDRSTRLEN];
  const char *slash = strchr(text, '/');
  size_t length = slash != NULL ? (size_t)(slash - text) : strlen(text);
  if (length >= sizeof host)
    return false;
  memcpy(host, text, length);
  host[length] = '\0';
  long width, offset;
  struct in_addr v4;
  if (inet_pton(AF_INET, host, &v4) == 1) {
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    memcpy(network, mapped, sizeof mapped);
    memcpy(network + 12, &v4, 4);
    width = 32;
    offset = 96;
  } else if (inet_pton(AF_INET6, host, network) == 1) {
    width = 128;
    offset = 0;
  } else {
    return false;
  }
  long bits = width;
  if (slash != NULL) {
    char *end = NULL;
    bits = strtol(slash + 1, &end, 10);
    if (slash[1] < '0' || slash[1] > '9' || *end != '\0' || bits < 0 || bits > width)
      return false;
  }
  bits += offset;
  for (int b = 0; b < 16; b++) {
    long left = bits - 8L * b;
    mask[b] = left >= 8 ? 0xff : left <= 0 ? 0 : (uint8_t)(0xff << (8 - left));
    network[b] &= mask[b];
  }
  return true;
}

/* "trusted_proxies": the IPv4 or IPv6 addresses or networks of the proxies
 * (nginx) whose X-Forwarded-For the access log believes. */
static int load_trusted_proxies(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_array(value) || json_array_size(value) > CONFIG_TRUSTED_PROXIES_MAX)
    return dg_error_set(err, json_is_array(value) ? DG_EINVAL : DG_ETYPE, "trusted_proxies",
                        "trusted_proxies must be an array of at most %d IPv4 or IPv6 addresses "
                        "or networks",
                        CONFIG_TRUSTED_PROXIES_MAX);
  size_t i;
  const json_t *address;
  json_array_foreach(value, i, address) {
    if (!json_is_string(address) ||
        !parse_network(json_string_value(address), cfg->trusted_proxies[i],
                       cfg->trusted_proxy_masks[i]))
      return dg_error_set(err, json_is_string(address) ? DG_EINVAL : DG_ETYPE, "trusted_proxies",
                          "trusted_proxies[%zu] must be an IPv4 or IPv6 address such as 10.0.0.5 "
                          "or fd00::5, or a network such as 10.244.0.0/16 or fd00::/64",
                          i);
  }
  cfg->trusted_proxy_count = (int)json_array_size(value);
  return 0;
}

/* Drops the compiled profiles. */
static void release_profiles(config *cfg) {
  for (int i = 0; i < cfg->profile_count; i++)
    profile_release(&cfg->profile_list[i]);
  free(cfg->profile_list);
  cfg->profile_list = NULL;
  cfg->profile_count = 0;
}

/* Compiles `profiles` once, so that requests only evaluate them. 0, or
 * profile_compile's error naming the profile's key. */
static int compile_profiles(config *cfg, dg_error *err) {
  release_profiles(cfg);
  if (cfg->profiles == NULL)
    return 0;
  cfg->profile_list = calloc(json_object_size(cfg->profiles) + 1, sizeof *cfg->profile_list);
  if (cfg->profile_list == NULL)
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  const char *name;
  json_t *json;
  json_object_foreach(cfg->profiles, name, json) {
    int rc = profile_compile(name, json, &cfg->profile_list[cfg->profile_count], err);
    if (rc != 0) {
      release_profiles(cfg);
      return rc;
    }
    cfg->profile_count++;
  }
  return 0;
}

static int load_listen(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_string(value))
    return dg_error_set(err, DG_ETYPE, "listen", "listen must be a string HOST:PORT");
  return config_set_listen(cfg, json_string_value(value), err);
}

static int load_health_listen(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_string(value))
    return dg_error_set(err, DG_ETYPE, "health_listen",
                        "health_listen must be a string HOST:PORT or \"\"");
  return config_set_health_listen(cfg, json_string_value(value), err);
}

static int load_workers(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_integer(value) || json_integer_value(value) < 1 || json_integer_value(value) > 256)
    return dg_error_set(err, json_is_integer(value) ? DG_EINVAL : DG_ETYPE, "workers",
                        "workers must be an integer from 1 to 256");
  cfg->workers = (int)json_integer_value(value);
  return 0;
}

static int load_log_requests(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_boolean(value))
    return dg_error_set(err, DG_ETYPE, "log_requests", "log_requests must be true or false");
  cfg->log_requests = json_is_true(value);
  return 0;
}

/* Kept as JSON here; compile_profiles checks and compiles them once the
 * whole file (its limits too) is read. */
static int load_profiles(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_object(value))
    return dg_error_set(err, DG_ETYPE, "profiles", "profiles must be an object of named profiles");
  json_decref(cfg->profiles);
  cfg->profiles = json_incref(value);
  return 0;
}

static int load_default_profile(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_string(value) || json_string_length(value) >= sizeof cfg->default_profile)
    return dg_error_set(err, json_is_string(value) ? DG_EINVAL : DG_ETYPE, "default_profile",
                        "default_profile must be a profile name");
  snprintf(cfg->default_profile, sizeof cfg->default_profile, "%s", json_string_value(value));
  return 0;
}

static int load_auth_tokens(config *cfg, json_t *value, dg_error *err) {
  /* Not an array or a token not a string: the wrong type; a short token: a
   * bad value. */
  int code = json_is_array(value) ? 0 : DG_ETYPE;
  size_t i;
  json_t *token;
  json_array_foreach(value, i, token) {
    if (!json_is_string(token))
      code = DG_ETYPE;
    else if (json_string_length(token) < 16 && code == 0)
      code = DG_EINVAL;
  }
  if (code != 0)
    return dg_error_set(err, code, "auth_tokens",
                        "auth_tokens must be an array of strings of at least 16 characters");
  json_decref(cfg->auth_tokens);
  cfg->auth_tokens = json_incref(value);
  return 0;
}

static int load_cors_allowed_origins(config *cfg, json_t *value, dg_error *err) {
  /* Exact origins as browsers send them (scheme://host[:port]), or "*". */
  int code = json_is_array(value) ? 0 : DG_ETYPE;
  size_t i;
  json_t *origin;
  json_array_foreach(value, i, origin) {
    if (!json_is_string(origin))
      code = DG_ETYPE;
    else if (code == 0 && strcmp(json_string_value(origin), "*") != 0 &&
             (strstr(json_string_value(origin), "://") == NULL ||
              json_string_length(origin) > 255 ||
              json_string_value(origin)[json_string_length(origin) - 1] == '/'))
      code = DG_EINVAL;
  }
  if (code != 0)
    return dg_error_set(err, code, "cors_allowed_origins",
                        "cors_allowed_origins must be an array of origins like "
                        "\"https://game.example:8443\" (no path, no trailing slash) or \"*\"");
  json_decref(cfg->cors_allowed_origins);
  cfg->cors_allowed_origins = json_incref(value);
  return 0;
}

static int load_roomsets_dir(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_string(value) || json_string_length(value) >= sizeof cfg->roomsets_dir)
    return dg_error_set(err, json_is_string(value) ? DG_EINVAL : DG_ETYPE, "roomsets_dir",
                        "roomsets_dir must be a directory path (\"\" for no room sets)");
  snprintf(cfg->roomsets_dir, sizeof cfg->roomsets_dir, "%s", json_string_value(value));
  cfg->roomsets_dir_set = true;
  return 0;
}

static int load_tables_dir(config *cfg, json_t *value, dg_error *err) {
  if (!json_is_string(value) || json_string_length(value) >= sizeof cfg->tables_dir)
    return dg_error_set(err, json_is_string(value) ? DG_EINVAL : DG_ETYPE, "tables_dir",
                        "tables_dir must be a directory path (\"\" for no content tables)");
  snprintf(cfg->tables_dir, sizeof cfg->tables_dir, "%s", json_string_value(value));
  cfg->tables_dir_set = true;
  return 0;
}

static int load_seed_secret(config *cfg, json_t *value, dg_error *err) {
  return config_set_seed_secret(cfg, json_is_string(value) ? json_string_value(value) : NULL, err);
}

static int load_comment(config *cfg, json_t *value, dg_error *err) {
  (void)cfg, (void)value, (void)err;
  return 0;
}

/* Every top-level key of the file and the function that reads it. */
static const struct {
  const char *key;
  int (*load)(config *cfg, json_t *value, dg_error *err);
} top_level_keys[] = {
    {"listen", load_listen},
    {"health_listen", load_health_listen},
    {"workers", load_workers},
    {"log_requests", load_log_requests},
    {"limits", load_limits},
    {"compression", load_compression},
    {"profiles", load_profiles},
    {"default_profile", load_default_profile},
    {"auth_tokens", load_auth_tokens},
    {"cors_allowed_origins", load_cors_allowed_origins},
    {"roomsets_dir", load_roomsets_dir},
    {"tables_dir", load_tables_dir},
    {"trusted_proxies", load_trusted_proxies},
    {"lobby_seed_secret", load_seed_secret},
    {"$comment", load_comment},
};

/* Applies the parsed configuration `root` (taken: decref'd here) over
 * `cfg`, each key through its loader, then compiles the profiles and checks
 * the rules across keys; `path` only names it in messages. Shared by the
 * file and the buffer loaders so both check exactly the same keys. */
static int load_root(config *cfg, json_t *root, const char *path, dg_error *err) {
  int rc = 0;
  if (!json_is_object(root))
    rc = dg_error_set(err, DG_ETYPE, "", "%s: the configuration must be a JSON object", path);
  if (rc == 0)
    rc = load_secret_files(root, err);
  const char *key;
  json_t *value;
  if (rc == 0)
    json_object_foreach(root, key, value) {
      size_t k = 0, count = sizeof top_level_keys / sizeof top_level_keys[0];
      while (k < count && strcmp(top_level_keys[k].key, key) != 0)
        k++;
      rc = k < count ? top_level_keys[k].load(cfg, value, err)
                     : dg_error_set(err, DG_ENOENT, key, "unknown key %s", key);
      if (rc != 0)
        break;
    }
  json_decref(root);
  if (rc == 0)
    rc = compile_profiles(cfg, err);
  return rc == 0 ? config_validate(cfg, err) : rc;
}

const party_profile *config_profile(const config *cfg, const char *name) {
  for (int i = 0; name != NULL && i < cfg->profile_count; i++)
    if (strcmp(cfg->profile_list[i].name, name) == 0)
      return &cfg->profile_list[i];
  return NULL;
}

int config_validate(const config *cfg, dg_error *err) {
  if (cfg->limits.deadline_ms_default > cfg->limits.deadline_ms_max)
    return dg_error_set(err, DG_EINVAL, "limits.deadline_ms_default",
                        "limits.deadline_ms_default must be at most limits.deadline_ms_max "
                        "(%ld)",
                        cfg->limits.deadline_ms_max);
  for (int i = 0; i < cfg->profile_count; i++) {
    int rc = profile_check_finite(&cfg->profile_list[i], cfg->limits.players_max,
                                  (double)cfg->limits.player_attribute_value_max, err);
    if (rc != 0)
      return rc;
  }
  if (cfg->default_profile[0] != '\0' && config_profile(cfg, cfg->default_profile) == NULL)
    return dg_error_set(err, DG_ENOENT, "default_profile",
                        "default_profile '%s' is not in profiles", cfg->default_profile);
  return 0;
}

/* The code for a configuration jansson could not load: the file missing or
 * unreadable (its errno is gone by now, so DG_ENOENT, "no such
 * configuration", as a person reads it), out of memory, or else malformed
 * JSON (a duplicate key included). */
static int json_load_error_code(const json_error_t *json_err) {
  switch (json_error_code(json_err)) {
  case json_error_cannot_open_file: return DG_ENOENT;
  case json_error_out_of_memory: return DG_ENOMEM;
  default: return DG_EPARSE;
  }
}

int config_load(config *cfg, const char *path, dg_error *err) {
  json_error_t json_err;
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &json_err);
  if (root == NULL)
    return dg_error_set(err, json_load_error_code(&json_err), "", "%s:%d: %s", path, json_err.line,
                        json_err.text);
  return load_root(cfg, root, path, err);
}

int config_loadb(config *cfg, const char *data, size_t size, const char *name, dg_error *err) {
  json_error_t json_err;
  json_t *root = json_loadb(data, size, JSON_REJECT_DUPLICATES, &json_err);
  if (root == NULL)
    return dg_error_set(err, json_load_error_code(&json_err), "", "%s:%d: %s", name, json_err.line,
                        json_err.text);
  return load_root(cfg, root, name, err);
}

void config_close(config *cfg) {
  json_decref(cfg->profiles);
  cfg->profiles = NULL;
  release_profiles(cfg);
  json_decref(cfg->auth_tokens);
  cfg->auth_tokens = NULL;
  json_decref(cfg->cors_allowed_origins);
  cfg->cors_allowed_origins = NULL;
}
