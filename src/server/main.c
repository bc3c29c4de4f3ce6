/* dungeond: the level-generation daemon. Parses flags, loads the
 * configuration, sizes libuv's thread pool, starts libmicrohttpd on the
 * loop and runs until SIGTERM/SIGINT has drained it; exits 0 after a clean
 * drain with every handle closed (uv_loop_close returns 0). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "daemon.h"
#include "reload.h"
#include "state/roomsets.h"
#include "transport/log.h"

#define DEFAULT_CONFIG "config/dungeond.json"

static void usage(FILE *out) {
  fputs("usage: dungeond [--config FILE] [--listen HOST:PORT] [--health-listen HOST:PORT]\n"
        "                [--workers N] [--check-config] [--help] [--version]\n"
        "  (each value as --name VALUE or --name=VALUE)\n"
        "  --config FILE      JSON configuration (default " DEFAULT_CONFIG " when it exists;\n"
        "                     see docs/config.md)\n"
        "  --listen HOST:PORT address to serve on (default 127.0.0.1:8080; port 0 picks\n"
        "                     a free port, printed in the start-up log line)\n"
        "  --health-listen HOST:PORT\n"
        "                     a second listener for /livez, /healthz, /readyz and\n"
        "                     /metrics only, so probes are answered whatever the API's\n"
        "                     clients do (default off; \"\" turns it off)\n"
        "  --workers N        generation threads, 1 to 256 (default 2)\n"
        "  --check-config     load and check the configuration and the room sets of\n"
        "                     roomsets_dir, print them, exit\n"
        "  --help             this text\n"
        "  --version          print the version\n"
        "Signals: SIGTERM or SIGINT drain (readyz turns 503, in-flight requests finish,\n"
        "queued ones get 503, new connections are still answered) and exit 0, at the\n"
        "latest after limits.drain_timeout_ms. SIGHUP reloads the configuration file\n"
        "and its room sets (a broken one is refused, the old one keeps running).\n",
        out);
}

static void print_config(const config *cfg, const dg_context *roomsets) {
  json_t *limits = json_object();
#define PUT(field) json_object_set_new(limits, #field, json_integer(cfg->limits.field))
  PUT(body_bytes_max);
  PUT(grid_cells_max);
  PUT(rooms_max);
  PUT(players_max);
  PUT(deadline_ms_default);
  PUT(deadline_ms_max);
  PUT(interactive_queue_max);
  PUT(client_queued_cost_max);
  PUT(client_workers_max);
  PUT(interactive_slice_us);
  PUT(heavy_slice_us);
  PUT(yield_percent);
  PUT(yield_linger_us);
  PUT(lobbies_per_client_max);
  PUT(speculative_queue_max);
  PUT(connections_max);
  PUT(connection_timeout_s);
  PUT(connections_per_ip_max);
  PUT(header_timeout_ms);
  PUT(header_timeout_penalty_ms);
  PUT(body_timeout_ms);
  PUT(linger_ms);
  PUT(linger_bytes_max);
  PUT(send_queue_bytes_max);
  PUT(send_stall_ms);
  PUT(health_connections_max);
  PUT(health_connections_per_ip_max);
  PUT(health_idle_timeout_ms);
  PUT(drain_timeout_ms);
  PUT(retry_after_s);
  PUT(lobbies_max);
  PUT(lobby_players_max);
  PUT(lobby_idle_ttl_ms);
  PUT(lobby_grace_ms);
  PUT(lobby_debounce_ms);
  PUT(lobby_bytes_max);
  PUT(lobby_cache_bytes_max);
  PUT(player_attributes_max);
  PUT(player_attribute_name_max);
  PUT(player_attribute_value_max);
  PUT(speculative_reserved_workers);
  PUT(floors_max);
  PUT(target_attempts_max);
  PUT(query_params_max);
  PUT(request_target_bytes_max);
#undef PUT
  /* Tokens are secrets: --check-config says how many, never which. */
  json_t *root = json_pack(
      "{s:s, s:s, s:i, s:b, s:o, s:o, s:s, s:i, s:s, s:o, s:s, s:o}", "listen", cfg->listen,
      "health_listen", cfg->health_listen, "workers", cfg->workers, "log_requests",
      cfg->log_requests, "limits", limits, "profiles",
      cfg->profiles != NULL ? json_incref(cfg->profiles) : json_object(), "default_profile",
      cfg->default_profile, "auth_tokens", (int)json_array_size(cfg->auth_tokens), "roomsets_dir",
      cfg->roomsets_dir, "roomsets", dg_context_roomsets_to_json(roomsets), "tables_dir",
      cfg->tables_dir, "tables", dg_context_tables_to_json(roomsets));
  /* The seed key is a secret too: only whether it is set. */
  if (root != NULL)
    json_object_set_new(root, "lobby_seed_secret",
                        json_string(cfg->lobby_seed_secret_set ? "(set)" : ""));
  if (root != NULL) {
    json_dumpf(root, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
  }
  json_decref(root);
}

/* Descriptors 0, 1 and 2 closed by whoever started us would be the next
 * ones opened: libuv's epoll descriptor landed on 1 or 2, the log wrote
 * into it, and SIGTERM aborted (exit 134). Each closed one is opened on
 * /dev/null first, so every later descriptor is above 2. False when that
 * fails. */
static bool standard_descriptors_open(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
      continue;
    int opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened != fd) {
      if (opened >= 0)
        close(opened);
      return false;
    }
  }
  return true;
}

/* What the flags asked for. */
typedef struct flags {
  const char *config_path, *listen, *health_listen;
  long workers; /* 0: the configuration's */
  bool check_only;
} flags;

enum { FLAG_CONFIG = 1, FLAG_LISTEN, FLAG_HEALTH_LISTEN, FLAG_WORKERS, FLAG_CHECK, FLAG_VERSION };

static const struct option long_options[] = {
    {"config", required_argument, NULL, FLAG_CONFIG},
    {"listen", required_argument, NULL, FLAG_LISTEN},
    {"health-listen", required_argument, NULL, FLAG_HEALTH_LISTEN},
    {"workers", required_argument, NULL, FLAG_WORKERS},
    {"check-config", no_argument, NULL, FLAG_CHECK},
    {"version", no_argument, NULL, FLAG_VERSION},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The value a flag takes, for the message of a missing one. */
static const char *flag_value_name(int flag) {
  return flag == FLAG_WORKERS ? "N" : flag == FLAG_CONFIG ? "FILE" : "HOST:PORT";
}

/* Parses argv with getopt_long (--name value and --name=value). Returns -1
 * to go on, or the exit status (0 after --help or --version, 2 for a bad
 * flag, with a message on stderr). */
static int parse_flags(int argc, char **argv, flags *f) {
  opterr = 0; /* our messages, not getopt's */
  for (;;) {
    int last = optind;
    int flag = getopt_long(argc, argv, ":h", long_options, NULL);
    if (flag == -1)
      break;
    switch (flag) {
    case 'h': usage(stdout); return 0;
    case FLAG_VERSION:
      printf("dungeond %s (libdungeon %s)\n", DUNGEON_VERSION, dg_version());
      return 0;
    case FLAG_CHECK: f->check_only = true; break;
    case FLAG_CONFIG:
      if (optarg[0] == '\0') {
        fprintf(stderr, "dungeond: --config needs a file name, not \"\"\n");
        return 2;
      }
      f->config_path = optarg;
      break;
    case FLAG_LISTEN: f->listen = optarg; break;
    case FLAG_HEALTH_LISTEN: f->health_listen = optarg; break;
    case FLAG_WORKERS: {
      char *end = NULL;
      f->workers = strtol(optarg, &end, 10);
      if (optarg[0] == '\0' || *end != '\0' || f->workers < 1 || f->workers > 256) {
        fprintf(stderr, "dungeond: --workers must be an integer from 1 to 256, not '%s'\n", optarg);
        return 2;
      }
      break;
    }
    case ':':
      fprintf(stderr, "dungeond: %s needs a value: %s %s or %s=%s\n", argv[last], argv[last],
              flag_value_name(optopt), argv[last], flag_value_name(optopt));
      return 2;
    default:
      fprintf(stderr, "dungeond: unknown option '%s'\n", argv[last]);
      usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "dungeond: unexpected argument '%s' (flags start with --)\n", argv[optind]);
    usage(stderr);
    return 2;
  }
  return -1;
}

/* The configuration the file and the flags give: the file named by
 * --config, else DEFAULT_CONFIG when it exists, else the defaults; then the
 * flags over it. Returns -1 to go on (with *config_path the file read, or
 * NULL), or exit status 2 after a message naming the file or the flag. */
static int load_configuration(const flags *f, config *cfg, const char **config_path) {
  config_defaults(cfg);
  dg_error err;
  dg_error_clear(&err);
  *config_path = f->config_path;
  if (*config_path == NULL) {
    FILE *probe = fopen(DEFAULT_CONFIG, "r");
    if (probe != NULL) {
      fclose(probe);
      *config_path = DEFAULT_CONFIG;
    }
  }
  if (*config_path != NULL && config_load(cfg, *config_path, &err) != 0) {
    fprintf(stderr, "dungeond: config %s: %s\n", *config_path, err.message);
    return 2;
  }
  if (f->listen != NULL && config_set_listen(cfg, f->listen, &err) != 0) {
    fprintf(stderr, "dungeond: --listen: %s\n", err.message);
    return 2;
  }
  if (f->health_listen != NULL && config_set_health_listen(cfg, f->health_listen, &err) != 0) {
    fprintf(stderr, "dungeond: --health-listen: %s\n", err.message);
    return 2;
  }
  if (f->workers > 0)
    cfg->workers = (int)f->workers;
  return -1;
}

/* Process-wide settings that must come before the first allocation of a
 * level and the first job. */
static void prepare_process(const config *cfg) {
  /* Levels and response bodies are megabytes, made on worker threads and
   * freed on the loop thread. glibc's default raises its mmap threshold
   * after the first such free, after which they come from per-thread heaps
   * that fragment and are never given back: RSS grows with the number of
   * levels ever in flight, not with those alive. A fixed threshold keeps
   * every large block in its own mapping, returned to the system when
   * freed, so RSS follows limits.send_queue_bytes_max (docs/config.md). */
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  /* libuv sizes its pool once, at the first uv_queue_work: before any. */
  char pool_size[16];
  snprintf(pool_size, sizeof pool_size, "%d",
           jobs_pool_size(cfg->workers, (int)cfg->limits.speculative_reserved_workers));
  setenv("UV_THREADPOOL_SIZE", pool_size, 1);
}

/* The "listening" line tools read the port from, first; then, when no
 * lobby_seed_secret is configured, the warning that this process's key is
 * its own. */
static void log_listening(const server *daemon, const config *cfg, const dg_context *roomsets,
                          bool own_key) {
  json_t *listening = json_pack("{s:s, s:i}", "listen", cfg->listen, "port", daemon->http.api.port);
  if (listening != NULL && daemon->http.health.mhd != NULL) {
    json_object_set_new(listening, "health_listen", json_string(cfg->health_listen));
    json_object_set_new(listening, "health_port", json_integer(daemon->http.health.port));
  }
  if (listening != NULL) {
    json_object_set_new(listening, "workers", json_integer(cfg->workers));
    json_object_set_new(listening, "roomsets", json_integer(dg_context_roomset_count(roomsets)));
    json_object_set_new(listening, "tables", json_integer(dg_context_table_count(roomsets)));
    json_object_set_new(listening, "version", json_string(DUNGEON_VERSION));
  }
  log_event("info", "listening", listening);
  if (own_key)
    log_event("warning", "lobby_seed_secret_unset",
              json_pack("{s:s}", "message",
                        "no lobby_seed_secret configured: level ids and lobby seeds use a random "
                        "key of this process, so other replicas and a restarted daemon refuse its "
                        "level ids (404) and give its lobbies other seeds; configure the same "
                        "lobby_seed_secret on every replica (docs/config.md, Seeds)"));
}

/* Starts the server on a loop of its own and runs it until the drain has
 * closed every handle. The exit status: 0 after a clean stop, 1 when it
 * could not start or a handle stayed open. */
static int run_daemon(config *cfg, const dg_context *roomsets, const char *config_path) {
  static server s; /* large (stats rings): static storage, not the stack */
  uv_loop_t loop;
  if (uv_loop_init(&loop) != 0) {
    fprintf(stderr, "dungeond: cannot start the event loop\n");
    return 1;
  }
  int rc = 1;
  dg_error err;
  dg_error_clear(&err);
  uint64_t entropy[2] = {0, 0};
  uint8_t process_key[16];
  if (getrandom(entropy, sizeof entropy, 0) != (ssize_t)sizeof entropy ||
      getrandom(process_key, sizeof process_key, 0) != (ssize_t)sizeof process_key) {
    fprintf(stderr, "dungeond: cannot read random bytes for seeds\n");
    goto close_loop;
  }
  bool own_key = config_use_process_key(cfg, process_key);
  if (server_start(&s, cfg, &loop, roomsets, entropy, true, &err) != 0) {
    fprintf(stderr, "dungeond: %s\n", err.message);
    uv_run(&loop, UV_RUN_DEFAULT); /* lets the closed handles finish */
    goto close_loop;
  }
  log_listening(&s, cfg, roomsets, own_key);
  memcpy(s.process_key, process_key, sizeof s.process_key);
  s.config_path = config_path;
  uv_run(&loop, UV_RUN_DEFAULT);
  server_release_configs(&s, true);
  rc = 0;
close_loop:
  if (uv_loop_close(&loop) != 0) {
    fprintf(stderr, "dungeond: handles still open at exit\n");
    rc = 1;
  }
  if (rc == 0)
    log_event("info", "stopped", NULL);
  return rc;
}

int main(int argc, char **argv) {
  if (!standard_descriptors_open())
    return 1;
  /* A log past RLIMIT_FSIZE (or a full disk) must not kill the daemon:
   * the write fails instead, and log.c counts it. */
  signal(SIGXFSZ, SIG_IGN);
  flags f = {0};
  int status = parse_flags(argc, argv, &f);
  if (status >= 0)
    return status;
  config cfg;
  const char *config_path = NULL;
  dg_context *roomsets = NULL;
  status = load_configuration(&f, &cfg, &config_path);
  /* Room sets are part of the configuration: a broken file stops the
   * daemon (and --check-config) with the file and the library's error. */
  if (status < 0 && roomsets_load(cfg.roomsets_dir, cfg.roomsets_dir_set, stderr, &roomsets) != 0)
    status = 2;
  /* Content tables likewise (issue 20): a broken one names its file and field. */
  if (status < 0 && tables_load(cfg.tables_dir, cfg.tables_dir_set, stderr, roomsets) != 0)
    status = 2;
  if (status < 0 && f.check_only) {
    print_config(&cfg, roomsets);
    status = 0;
  }
  if (status < 0) {
    prepare_process(&cfg);
    status = run_daemon(&cfg, roomsets, config_path);
  }
  dg_context_free(roomsets);
  config_close(&cfg);
  return status;
}
