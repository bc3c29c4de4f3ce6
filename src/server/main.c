/* dungeond: the level-generation daemon. Parses flags, loads the
 * configuration, sizes libuv's thread pool, starts libmicrohttpd on the
 * loop and runs until SIGTERM/SIGINT has drained it; exits 0 after a clean
 * drain with every handle closed (uv_loop_close returns 0). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "daemon.h"
#include "state/roomsets.h"

#define DEFAULT_CONFIG "config/dungeond.json"

static void usage(FILE *out) {
  fputs("usage: dungeond [--config FILE] [--listen HOST:PORT] [--health-listen HOST:PORT]\n"
        "                [--workers N] [--check-config] [--help] [--version]\n"
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
        "latest after limits.drain_timeout_ms.\n",
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
  PUT(speculative_queue_max);
  PUT(connections_max);
  PUT(connection_timeout_s);
  PUT(connections_per_ip_max);
  PUT(header_timeout_ms);
  PUT(body_timeout_ms);
  PUT(send_queue_bytes_max);
  PUT(send_stall_ms);
  PUT(health_connections_max);
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
#undef PUT
  /* Tokens are secrets: --check-config says how many, never which. */
  json_t *root = json_pack(
      "{s:s, s:s, s:i, s:b, s:o, s:o, s:s, s:i, s:s, s:o}", "listen", cfg->listen, "health_listen",
      cfg->health_listen, "workers", cfg->workers, "log_requests", cfg->log_requests, "limits",
      limits, "profiles", cfg->profiles != NULL ? json_incref(cfg->profiles) : json_object(),
      "default_profile", cfg->default_profile, "auth_tokens",
      (int)json_array_size(cfg->auth_tokens), "roomsets_dir", cfg->roomsets_dir, "roomsets",
      dg_context_roomsets_to_json(roomsets));
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

int main(int argc, char **argv) {
  const char *config_path = NULL, *listen = NULL, *health_listen = NULL;
  long workers = 0;
  bool check_only = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(argv[i], "--version") == 0) {
      printf("dungeond %s (libdungeon %s)\n", DUNGEON_VERSION, dg_version());
      return 0;
    } else if (strcmp(argv[i], "--check-config") == 0) {
      check_only = true;
    } else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      config_path = argv[++i];
    } else if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
      listen = argv[++i];
    } else if (strcmp(argv[i], "--health-listen") == 0 && i + 1 < argc) {
      health_listen = argv[++i];
    } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
      char *end = NULL;
      workers = strtol(argv[++i], &end, 10);
      if (*end != '\0' || workers < 1 || workers > 256) {
        fprintf(stderr, "dungeond: --workers must be an integer from 1 to 256\n");
        return 2;
      }
    } else {
      fprintf(stderr, "dungeond: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }

  config cfg;
  config_defaults(&cfg);
  dg_error err;
  dg_error_clear(&err);
  if (config_path == NULL) {
    FILE *probe = fopen(DEFAULT_CONFIG, "r");
    if (probe != NULL) {
      fclose(probe);
      config_path = DEFAULT_CONFIG;
    }
  }
  if (config_path != NULL && config_load(&cfg, config_path, &err) != 0) {
    fprintf(stderr, "dungeond: config %s: %s\n", config_path, err.message);
    config_close(&cfg);
    return 2;
  }
  if (listen != NULL && config_set_listen(&cfg, listen, &err) != 0) {
    fprintf(stderr, "dungeond: --listen: %s\n", err.message);
    config_close(&cfg);
    return 2;
  }
  if (health_listen != NULL && config_set_health_listen(&cfg, health_listen, &err) != 0) {
    fprintf(stderr, "dungeond: --health-listen: %s\n", err.message);
    config_close(&cfg);
    return 2;
  }
  if (workers > 0)
    cfg.workers = (int)workers;
  /* Room sets are part of the configuration: a broken file stops the
   * daemon (and --check-config) with the file and the library's error. */
  dg_context *roomsets = NULL;
  if (roomsets_load(cfg.roomsets_dir, cfg.roomsets_dir_set, stderr, &roomsets) != 0) {
    config_close(&cfg);
    return 2;
  }
  if (check_only) {
    print_config(&cfg, roomsets);
    dg_context_free(roomsets);
    config_close(&cfg);
    return 0;
  }

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
           jobs_pool_size(cfg.workers, (int)cfg.limits.speculative_reserved_workers));
  setenv("UV_THREADPOOL_SIZE", pool_size, 1);

  static server s; /* large (stats rings): static storage, not the stack */
  uv_loop_t loop;
  int rc = 1;
  if (uv_loop_init(&loop) != 0) {
    fprintf(stderr, "dungeond: cannot start the event loop\n");
    dg_context_free(roomsets);
    config_close(&cfg);
    return 1;
  }
  uint64_t entropy[2] = {0, 0};
  if (getrandom(entropy, sizeof entropy, 0) != (ssize_t)sizeof entropy) {
    fprintf(stderr, "dungeond: cannot read random bytes for seeds\n");
    goto fail_loop;
  }
  if (server_start(&s, &cfg, &loop, roomsets, entropy, true, &err) != 0) {
    fprintf(stderr, "dungeond: %s\n", err.message);
    uv_run(&loop, UV_RUN_DEFAULT); /* lets the closed handles finish */
    goto fail_loop;
  }
  char health[CONFIG_LISTEN_MAX + 48] = "";
  if (s.http.health.mhd != NULL)
    snprintf(health, sizeof health, ",\"health_listen\":\"%s\",\"health_port\":%d",
             cfg.health_listen, s.http.health.port);
  fprintf(stderr,
          "{\"level\":\"info\",\"event\":\"listening\",\"listen\":\"%s\",\"port\":%d%s,"
          "\"workers\":%d,\"roomsets\":%d,\"version\":\"%s\"}\n",
          cfg.listen, s.http.api.port, health, cfg.workers, dg_context_roomset_count(roomsets),
          DUNGEON_VERSION);
  uv_run(&loop, UV_RUN_DEFAULT);
  rc = 0;
fail_loop:
  if (uv_loop_close(&loop) != 0) {
    fprintf(stderr, "dungeond: handles still open at exit\n");
    rc = 1;
  }
  if (rc == 0)
    fprintf(stderr, "{\"level\":\"info\",\"event\":\"stopped\"}\n");
  dg_context_free(roomsets);
  config_close(&cfg);
  return rc;
}
