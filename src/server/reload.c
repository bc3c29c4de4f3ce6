/* See reload.h. What holds a pointer into the configuration, and why the
 * swap leaves nothing dangling:
 * - the routes read s->cfg while they handle a request, on this thread:
 *   they see the old or the new one, never half of each;
 * - the lobby table reads table->cfg the same way (swapped with s->cfg);
 *   a lobby keeps its own settings and players, and its effective request
 *   is a copy (dg_request holds no pointer), so lobbies survive as they
 *   are and take the new profiles at their next change;
 * - a job keeps the room sets it was submitted with (job.context) while a
 *   worker reads them, so a replaced configuration is freed only when no
 *   queued or running job uses its room sets (checked each second);
 * - the transport copied its settings at start: its keys cannot change
 *   without a restart, and neither can the listeners or the thread pool. */
#include "reload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "state/roomsets.h"
#include "transport/log.h"

/* Keys fixed at start. Their old values are kept in the new configuration,
 * so that what it says is what runs; `changed` gets the names of those the
 * file changed. */
static void keep_fixed_keys(config *fresh, const config *old, json_t *changed) {
#define KEEP(field, name)                                                                          \
  do {                                                                                             \
    if (memcmp(&fresh->field, &old->field, sizeof fresh->field) != 0)                              \
      json_array_append_new(changed, json_string(name));                                           \
    memcpy(&fresh->field, &old->field, sizeof fresh->field);                                       \
  } while (0)
  KEEP(listen, "listen");
  KEEP(health_listen, "health_listen");
  KEEP(workers, "workers");
  KEEP(log_requests, "log_requests");
  KEEP(trusted_proxies, "trusted_proxies");
  KEEP(trusted_proxy_masks, "trusted_proxies");
  KEEP(trusted_proxy_count, "trusted_proxies");
  KEEP(limits.speculative_reserved_workers, "limits.speculative_reserved_workers");
  KEEP(limits.body_bytes_max, "limits.body_bytes_max");
  KEEP(limits.connections_max, "limits.connections_max");
  KEEP(limits.connection_timeout_s, "limits.connection_timeout_s");
  KEEP(limits.connections_per_ip_max, "limits.connections_per_ip_max");
  KEEP(limits.header_timeout_ms, "limits.header_timeout_ms");
  KEEP(limits.body_timeout_ms, "limits.body_timeout_ms");
  KEEP(limits.send_queue_bytes_max, "limits.send_queue_bytes_max");
  KEEP(limits.send_stall_ms, "limits.send_stall_ms");
  KEEP(limits.health_connections_max, "limits.health_connections_max");
  KEEP(limits.retry_after_s, "limits.retry_after_s");
#undef KEEP
  /* trusted_proxies is three fields: name it once. */
  json_t *unique = json_array();
  size_t i;
  json_t *name;
  json_array_foreach(changed, i, name) {
    bool seen = false;
    size_t k;
    json_t *other;
    json_array_foreach(unique, k, other) seen |= json_equal(name, other);
    if (!seen)
      json_array_append(unique, name);
  }
  json_array_clear(changed);
  json_array_extend(changed, unique);
  json_decref(unique);
}

static void free_generation(config_generation *g) {
  dg_context_free(g->roomsets);
  config_close(&g->cfg);
  free(g);
}

static void refuse(const char *path, const char *field, const char *message) {
  json_t *members = json_pack("{s:s, s:s, s:s}", "path", path != NULL ? path : "", "field", field,
                              "message", message);
  log_event("error", "config_reload_failed", members);
}

/* The room sets of `cfg`, with the loader's messages (written for a
 * terminal at start-up) gathered into one text for the log line. */
static int load_roomsets(const config *cfg, dg_context **out, char *why, size_t why_size) {
  char *text = NULL;
  size_t length = 0;
  FILE *messages = open_memstream(&text, &length);
  if (messages == NULL) {
    snprintf(why, why_size, "out of memory");
    return DG_ENOMEM;
  }
  int rc = roomsets_load(cfg->roomsets_dir, cfg->roomsets_dir_set, messages, out);
  if (rc == 0 && (rc = tables_load(cfg->tables_dir, cfg->tables_dir_set, messages, *out)) != 0) {
    dg_context_free(*out);
    *out = NULL;
  }
  fclose(messages);
  /* One line: the loader's lines joined by "; ". */
  size_t at = 0;
  for (size_t i = 0; text != NULL && i < length && at + 3 < why_size; i++) {
    if (text[i] != '\n')
      why[at++] = text[i];
    else if (i + 1 < length) {
      why[at++] = ';';
      why[at++] = ' ';
    }
  }
  why[at] = '\0';
  free(text);
  return rc;
}

/* Makes `g` live; the one it replaces is kept until unused. */
static void swap_in(server *daemon, config_generation *g) {
  if (daemon->live != NULL) {
    daemon->live->next = daemon->retired;
    daemon->retired = daemon->live;
  }
  daemon->live = g;
  g->number = ++daemon->config_generation;
  daemon->cfg = &g->cfg;
  daemon->lobbies.cfg = &g->cfg;
  daemon->queues.context = g->roomsets;
  daemon->queues.max_depth[JOB_INTERACTIVE] = g->cfg.limits.interactive_queue_max;
  daemon->queues.max_depth[JOB_SPECULATIVE] = g->cfg.limits.speculative_queue_max;
  server_apply_slices(daemon);
}

void server_reload(server *daemon) {
  if (daemon->draining || daemon->stopped)
    return;
  if (daemon->config_path == NULL) {
    daemon->reloads_failed++;
    refuse(NULL, "", "started without a configuration file: nothing to reload");
    return;
  }
  config_generation *g = calloc(1, sizeof *g);
  json_t *changed = json_array();
  if (g == NULL || changed == NULL) {
    free(g);
    json_decref(changed);
    daemon->reloads_failed++;
    refuse(daemon->config_path, "", "out of memory");
    return;
  }
  config_defaults(&g->cfg);
  dg_error err;
  dg_error_clear(&err);
  char why[DG_ERROR_MESSAGE_MAX];
  if (config_load(&g->cfg, daemon->config_path, &err) != 0) {
    refuse(daemon->config_path, err.field, err.message);
    goto fail;
  }
  keep_fixed_keys(&g->cfg, daemon->cfg, changed);
  /* The same random key as before the reload: ids already given out stay valid. */
  config_use_process_key(&g->cfg, daemon->process_key);
  if (load_roomsets(&g->cfg, &g->roomsets, why, sizeof why) != 0) {
    refuse(daemon->config_path, "roomsets_dir", why);
    goto fail;
  }
  swap_in(daemon, g);
  daemon->reloads_ok++;
  log_event("info", "config_reloaded",
            json_pack("{s:s, s:I, s:i, s:o}", "path", daemon->config_path, "generation",
                      (json_int_t)g->number, "roomsets", dg_context_roomset_count(g->roomsets),
                      "not_reloaded", changed));
  server_release_configs(daemon, false);
  return;
fail:
  daemon->reloads_failed++;
  json_decref(changed);
  free_generation(g);
}

void server_release_configs(server *daemon, bool all) {
  for (config_generation **link = &daemon->retired; *link != NULL;) {
    config_generation *g = *link;
    if (all || !jobs_use_context(&daemon->queues, g->roomsets)) {
      *link = g->next;
      free_generation(g);
    } else {
      link = &g->next;
    }
  }
  if (all && daemon->live != NULL) {
    free_generation(daemon->live);
    daemon->live = NULL;
  }
}
