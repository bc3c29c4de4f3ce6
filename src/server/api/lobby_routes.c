/* /v1/lobbies/ID, /v1/lobbies/ID/players/PLAYER and /v1/lobbies/ID/start:
 * the HTTP side of lobbies. It parses paths and bodies, asks lobby.c to
 * change the state, and answers; a start that waits for a speculative job
 * registers a callback that answers and resumes it. */
#include "api/lobby_routes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/exchange.h"
#include "api/levels.h"
#include "api/problem.h"
#include "api/respond.h"
#include "server.h"
#include "state/level_request.h"
#include "state/profile.h"

static bool plain_id(const char *text, size_t length) {
  if (length == 0 || length >= LOBBY_ID_MAX)
    return false;
  for (size_t i = 0; i < length; i++) {
    char c = text[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.'))
      return false;
  }
  return true;
}

/* The request body as a JSON object (an empty body is {}), or NULL after
 * answering 400. */
static json_t *body_object(request *r) {
  if (r->body_length == 0)
    return json_object();
  json_error_t json_err;
  json_t *body = json_loadb(r->body, r->body_length, JSON_REJECT_DUPLICATES, &json_err);
  dg_error err;
  if (body == NULL || !json_is_object(body)) {
    if (body == NULL)
      dg_error_set(&err, DG_EPARSE, "", "invalid JSON at line %d column %d: %s", json_err.line,
                   json_err.column, json_err.text);
    else
      dg_error_set(&err, DG_EPARSE, "", "the request body must be a JSON object");
    json_decref(body);
    respond_error(r, &err);
    return NULL;
  }
  return body;
}

/* Settings members, checked here; the lobby judges their values. */
static int settings_from_body(json_t *body, uint64_t *seed, dg_error *err) {
  const char *key;
  json_t *value;
  json_object_foreach(body, key, value) {
    if (!level_member_allowed(key, LEVEL_MEMBER_SETTINGS)) {
      char allowed[160];
      level_members_text(LEVEL_MEMBER_SETTINGS, allowed, sizeof allowed);
      return dg_error_set(err, DG_ENOENT, key, "unknown member '%s'; allowed: %s", key, allowed);
    }
  }
  const json_t *given_seed = json_object_get(body, "seed");
  int rc = 0;
  if (given_seed != NULL && !json_is_null(given_seed))
    rc = dg_seed_from_json(given_seed, "seed", seed, err);
  json_object_del(body, "seed");
  return rc;
}

static void put_settings(request *r, lobby *l, bool created) {
  lobbies *table = &server_of(r)->lobbies;
  json_t *body = body_object(r);
  if (body == NULL) {
    if (created)
      lobby_remove(table, l);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  uint64_t seed = l->seed;
  int rc = settings_from_body(body, &seed, &err);
  if (rc == 0 && (rc = lobby_put_settings(table, l, body, seed, &err)) == 0)
    body = NULL; /* taken */
  json_decref(body);
  if (rc != 0) {
    if (created)
      lobby_remove(table, l);
    respond_error(r, &err);
    return;
  }
  respond_json(r, created ? 201 : 200, lobby_json(l));
}

static void put_player(request *r, lobby *l, const char *player, bool created) {
  server *s = server_of(r);
  json_t *attributes = body_object(r);
  if (attributes == NULL) {
    if (created)
      lobby_remove(&s->lobbies, l);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  party_limits bounds = party_limits_of(&s->cfg->limits);
  int rc = player_attributes_check(attributes, &bounds, NULL, &err);
  if (rc == 0)
    rc = lobby_put_player(&s->lobbies, l, player, attributes, &err);
  if (rc != 0) {
    json_decref(attributes);
    if (created)
      lobby_remove(&s->lobbies, l);
    respond_error(r, &err);
    return;
  }
  respond_json(r, created ? 201 : 200, lobby_json(l));
}

/* A start waiting for its lobby's job. */
typedef struct start_wait {
  lobby_waiter waiter;
  request *client;
} start_wait;

static void on_start_done(lobby_waiter *w, const lobby_outcome *outcome) {
  start_wait *wait = w->data;
  request *r = wait->client;
  free(wait);
  exchange_of(r)->pregen = "wait";
  if (outcome->code == 0) {
    char *copy = malloc(outcome->length + 1);
    if (copy != NULL)
      memcpy(copy, outcome->level, outcome->length);
    level_respond_stored(r, copy, outcome->length);
  } else if (outcome->code == DG_ECANCELED && server_of(r)->draining) {
    respond_draining(r);
  } else {
    respond_error(r, outcome->err);
  }
  /* Called while lobby.c walks its table: MHD must not run handlers now. */
  http_resume_soon(r);
}

static void start(request *r, lobby *l) {
  server *s = server_of(r);
  if (!l->valid) {
    respond_error(r, &l->invalid);
    return;
  }
  if (s->draining) {
    respond_draining(r);
    return;
  }
  int format = level_negotiate(r);
  if (format < 0) {
    level_not_acceptable(r);
    return;
  }
  if (level_svg_query(r) != 0)
    return;
  exchange_of(r)->algorithm = l->effective.algorithm->name;
  start_wait *wait = calloc(1, sizeof *wait);
  if (wait == NULL) {
    respond_out_of_memory(r);
    return;
  }
  wait->waiter.done = on_start_done;
  wait->waiter.data = wait;
  wait->client = r;
  lobby_start_result result;
  lobby_start(&s->lobbies, l, format == JOB_FORMAT_JSON, &wait->waiter, &result);
  if (result.kind == LOBBY_WAIT) {
    exchange_of(r)->pregen = "wait";
    exchange_of(r)->seed = l->effective.seed;
    http_suspend(r);
    return;
  }
  free(wait);
  if (result.kind == LOBBY_HIT) {
    exchange_of(r)->pregen = "hit";
    char *copy = malloc(result.length + 1);
    if (copy != NULL)
      memcpy(copy, result.level, result.length);
    level_respond_stored(r, copy, result.length);
    return;
  }
  exchange_of(r)->pregen = "miss";
  level_submit(r, &result.request, 1, result.deadline_ms, format);
}

void lobby_route(request *r, const char *rest) {
  server *s = server_of(r);
  const char *slash = strchr(rest, '/');
  size_t id_length = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
  char id[LOBBY_ID_MAX], player[LOBBY_ID_MAX] = "";
  enum { WHOLE, PLAYER, START } target = WHOLE;
  bool shape = plain_id(rest, id_length);
  if (shape) {
    memcpy(id, rest, id_length);
    id[id_length] = '\0';
    if (slash != NULL && strncmp(slash, "/players/", 9) == 0 &&
        plain_id(slash + 9, strlen(slash + 9))) {
      target = PLAYER;
      snprintf(player, sizeof player, "%s", slash + 9);
    } else if (slash != NULL && strcmp(slash, "/start") == 0) {
      target = START;
    } else if (slash != NULL) {
      shape = false;
    }
  }
  if (!shape) {
    char detail[REQUEST_PATH_MAX + 96];
    snprintf(detail, sizeof detail,
             "no resource at %s (lobby and player ids are 1-64 of [A-Za-z0-9._-])", r->path);
    respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
    return;
  }
  const char *allowed = target == WHOLE    ? "GET, PUT, DELETE"
                        : target == PLAYER ? "PUT, DELETE"
                                           : "POST";
  const char *m = r->method;
  bool ok = target == WHOLE    ? (!strcmp(m, "GET") || !strcmp(m, "PUT") || !strcmp(m, "DELETE"))
            : target == PLAYER ? (!strcmp(m, "PUT") || !strcmp(m, "DELETE"))
                               : !strcmp(m, "POST");
  if (!ok) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s is not allowed here; use %s", m, allowed);
    respond_problem(r, 405, "method-not-allowed", "Method not allowed", detail, NULL, "Allow",
                    allowed);
    return;
  }
  lobby *l = lobby_find(&s->lobbies, id);
  bool creates = !strcmp(m, "PUT");
  if (l == NULL && !creates) {
    char detail[128];
    snprintf(detail, sizeof detail, "no lobby '%s' (it never existed, expired or was disbanded)",
             id);
    respond_problem(r, 404, "unknown-lobby", "Unknown lobby", detail, NULL, NULL, NULL);
    return;
  }
  /* A started lobby is frozen: its level stays what start returned. */
  if (l != NULL && l->started_ns != 0 && (creates || target == PLAYER)) {
    respond_problem(r, 409, "lobby-started", "Lobby already started",
                    "the match has started; its level stays available through start", NULL, NULL,
                    NULL);
    return;
  }
  bool created = false;
  if (l == NULL) {
    if (s->draining) {
      respond_draining(r);
      return;
    }
    dg_error err;
    dg_error_clear(&err);
    if (lobby_create(&s->lobbies, id, &l, &err) != 0) {
      respond_error(r, &err);
      return;
    }
    created = true;
  }
  if (target == WHOLE && !strcmp(m, "GET")) {
    respond_json(r, 200, lobby_json(l));
  } else if (target == WHOLE && !strcmp(m, "PUT")) {
    put_settings(r, l, created);
  } else if (target == WHOLE) {
    lobby_remove(&s->lobbies, l);
    respond(r, 204, "application/json", malloc(1), 0, NULL, NULL);
  } else if (target == PLAYER && !strcmp(m, "PUT")) {
    put_player(r, l, player, created);
  } else if (target == PLAYER) {
    if (lobby_remove_player(&s->lobbies, l, player) != 0) {
      respond_problem(r, 404, "unknown-player", "Unknown player", "no such player in the lobby",
                      NULL, NULL, NULL);
      return;
    }
    respond_json(r, 200, lobby_json(l));
  } else {
    start(r, l);
  }
}
