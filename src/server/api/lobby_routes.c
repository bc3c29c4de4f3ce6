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
#include "profile.h"
#include "server.h"
#include "state/level_request.h"
#include "state/negotiate.h"
#include "state/seedhash.h"
#include "transport/json_text.h"

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

/* Every answer about a lobby carries the entity tag of its state. */
static void respond_lobby(request *r, int status, const lobby *game) {
  char etag[LOBBY_ETAG_MAX];
  lobby_etag(game, etag);
  json_t *value = lobby_json(game);
  size_t length = 0;
  char *text = value != NULL ? json_text(value, &length) : NULL;
  json_decref(value);
  if (text == NULL) {
    respond_out_of_memory(r);
    return;
  }
  respond(r, status, "application/json", text, length, "ETag", etag);
}

/* Settings members, checked here; the lobby judges their values. With
 * `whole`, `players` is allowed too (the whole-lobby PUT and the start's
 * party) and is left in `body` for whole_from_body. */
static int settings_from_body(json_t *body, bool whole, uint64_t *seed, dg_error *err) {
  const char *key;
  json_t *value;
  json_object_foreach(body, key, value) {
    if (!level_member_allowed(key, LEVEL_MEMBER_SETTINGS) && (!whole || strcmp(key, "players"))) {
      char allowed[160];
      level_members_text(LEVEL_MEMBER_SETTINGS, allowed, sizeof allowed);
      return dg_error_set(err, DG_ENOENT, key, "unknown member '%s'; allowed: %s%s", key, allowed,
                          whole ? ", players" : " (players: the whole lobby)");
    }
  }
  const json_t *given_seed = json_object_get(body, "seed");
  int rc = 0;
  if (given_seed != NULL && !json_is_null(given_seed))
    rc = dg_seed_from_json(given_seed, "seed", seed, err);
  json_object_del(body, "seed");
  return rc;
}

/* A whole lobby from `body` (issue 21, item 1): its settings (the body
 * without players and seed; *settings a new reference), its players
 * (`players`: an object of player id -> attributes; *players_by_id a new
 * reference) and its seed (given, else the one lobby `id` gets on every
 * replica sharing lobby_seed_secret). 0, or the error naming the field. */
static int whole_from_body(const server *daemon, const char *id, json_t *body, json_t **settings,
                           json_t **players_by_id, uint64_t *seed, dg_error *err) {
  *settings = NULL;
  *players_by_id = NULL;
  *seed = lobby_seed_derive(daemon->cfg->lobby_seed_key, id);
  int rc = settings_from_body(body, true, seed, err);
  if (rc != 0)
    return rc;
  const json_t *players = json_object_get(body, "players");
  if (!json_is_object(players))
    return dg_error_set(err, DG_ETYPE, "players",
                        "players must be an object of player id -> attributes, e.g. "
                        "{\"ann\": {\"level\": 12}}");
  party_limits bounds = party_limits_of(&daemon->cfg->limits);
  const char *player;
  json_t *attributes;
  json_object_foreach((json_t *)players, player, attributes) {
    char field[DG_ERROR_FIELD_MAX];
    snprintf(field, sizeof field, "players.%.55s", player);
    if (!plain_id(player, strlen(player)))
      return dg_error_set(err, DG_EINVAL, field,
                          "%s: a player id must be 1 to %d characters of [A-Za-z0-9._-]", field,
                          LOBBY_ID_MAX - 1);
    if (json_is_object(attributes) && json_object_get(attributes, "id") != NULL)
      return dg_error_set(err, DG_EINVAL, field, "%s: the player's id is its key, not a member",
                          field);
    if ((rc = player_attributes_check(attributes, &bounds, field, err)) != 0)
      return rc;
  }
  *players_by_id = json_deep_copy(players);
  json_object_del(body, "players");
  *settings = json_deep_copy(body);
  if (*players_by_id == NULL || *settings == NULL) {
    json_decref(*players_by_id);
    json_decref(*settings);
    return dg_error_set(err, DG_ENOMEM, "", "out of memory");
  }
  return 0;
}

static void put_settings(request *r, lobby *game, bool created) {
  server *daemon = server_of(r);
  lobbies *table = &daemon->lobbies;
  json_t *body = body_object(r);
  if (body == NULL) {
    if (created)
      lobby_remove(table, game);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  int rc;
  if (json_object_get(body, "players") != NULL) {
    /* The whole lobby: settings, seed and every player at once. */
    json_t *settings = NULL, *players = NULL;
    uint64_t seed;
    rc = whole_from_body(daemon, game->id, body, &settings, &players, &seed, &err);
    if (rc == 0 && (rc = lobby_put_whole(table, game, settings, players, seed, &err)) == 0)
      settings = players = NULL; /* taken */
    json_decref(settings);
    json_decref(players);
  } else {
    uint64_t seed = game->seed;
    rc = settings_from_body(body, false, &seed, &err);
    if (rc == 0 && (rc = lobby_put_settings(table, game, body, seed, &err)) == 0)
      body = NULL; /* taken */
  }
  json_decref(body);
  if (rc != 0) {
    if (created)
      lobby_remove(table, game);
    respond_error(r, &err);
    return;
  }
  respond_lobby(r, created ? 201 : 200, game);
}

static void put_player(request *r, lobby *game, const char *player, bool created) {
  server *daemon = server_of(r);
  json_t *attributes = body_object(r);
  if (attributes == NULL) {
    if (created)
      lobby_remove(&daemon->lobbies, game);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  party_limits bounds = party_limits_of(&daemon->cfg->limits);
  int rc = player_attributes_check(attributes, &bounds, NULL, &err);
  if (rc == 0)
    rc = lobby_put_player(&daemon->lobbies, game, player, attributes, &err);
  if (rc != 0) {
    json_decref(attributes);
    if (created)
      lobby_remove(&daemon->lobbies, game);
    respond_error(r, &err);
    return;
  }
  respond_lobby(r, created ? 201 : 200, game);
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

static void start(request *r, lobby *game, bool rebuilt) {
  server *daemon = server_of(r);
  if (!game->valid) {
    respond_error(r, &game->invalid);
    return;
  }
  if (daemon->draining) {
    respond_draining(r);
    return;
  }
  int format = level_negotiate(r);
  if (format < 0) {
    level_not_acceptable(r);
    return;
  }
  if (level_svg_query(r) != 0 || level_view_query(r, NULL) != 0)
    return;
  exchange_of(r)->algorithm = game->effective.algorithm->name;
  start_wait *wait = calloc(1, sizeof *wait);
  if (wait == NULL) {
    respond_out_of_memory(r);
    return;
  }
  wait->waiter.done = on_start_done;
  wait->waiter.data = wait;
  wait->client = r;
  lobby_start_result result;
  if (rebuilt)
    lobby_start_rebuilt(&daemon->lobbies, game, &result);
  else
    /* The pre-generated level is the full view's JSON: any other answer
     * (a picture, a client view) is made now, as a miss. */
    lobby_start(&daemon->lobbies, game,
                format == JOB_FORMAT_JSON && exchange_of(r)->view != DG_VIEW_CLIENT, &wait->waiter,
                &result);
  if (result.kind == LOBBY_WAIT) {
    exchange_of(r)->pregen = "wait";
    exchange_of(r)->seed = game->effective.seed;
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

/* True when a header's value is "*" (surrounding blanks allowed). */
static bool is_star(const char *value) {
  while (*value == ' ' || *value == '\t')
    value++;
  if (*value++ != '*')
    return false;
  while (*value == ' ' || *value == '\t')
    value++;
  return *value == '\0';
}

/* If-Match and If-None-Match on a lobby (issue 21, item 1): a change
 * made for a lobby the client knows (If-Match: its ETag) is refused when
 * this replica holds another state or none at all (it restarted, or the
 * lobby's replica was lost), instead of silently making a new lobby;
 * If-None-Match: * on the lobby's PUT creates only. True when it answered 412. */
static bool preconditions_refuse(request *r, const lobby *game, const char *id, bool whole) {
  const char *if_match = http_header(r, "If-Match");
  const char *if_none_match = http_header(r, "If-None-Match");
  char etag[LOBBY_ETAG_MAX] = "";
  if (game != NULL)
    lobby_etag(game, etag);
  char detail[LOBBY_ID_MAX + 200];
  if (if_match != NULL && (game == NULL || !negotiate_etag_matches(if_match, etag))) {
    if (game == NULL)
      snprintf(detail, sizeof detail,
               "If-Match: this replica does not know lobby '%s' (restarted or lost): re-send "
               "the whole lobby with PUT /v1/lobbies/%s and its players",
               id, id);
    else
      snprintf(detail, sizeof detail,
               "If-Match: lobby '%s' is now %s, not the state you sent; GET it and re-send", id,
               etag);
    respond_problem(r, 412, "precondition-failed", "Lobby is not the one you know", detail,
                    json_pack("[{s:s, s:s}]", "field", "If-Match", "message", detail),
                    game != NULL ? "ETag" : NULL, game != NULL ? etag : NULL);
    return true;
  }
  if (if_none_match != NULL && game != NULL && is_star(if_none_match) &&
      !strcmp(r->method, "PUT")) {
    snprintf(detail, sizeof detail, "If-None-Match: *: lobby '%s' exists already (%s)", id, etag);
    respond_problem(r, 412, "precondition-failed", "Lobby exists", detail,
                    json_pack("[{s:s, s:s}]", "field", "If-None-Match", "message", detail), "ETag",
                    etag);
    return true;
  }
  return false;
}

/* The start's party (its body: a whole lobby, as PUT takes it) into
 * settings, players and seed; NULL after answering the error. */
static int party_of_start(request *r, const char *id, json_t **settings, json_t **players,
                          uint64_t *seed) {
  json_t *body = body_object(r);
  if (body == NULL)
    return -1;
  /* `view` is the answer's, not the lobby's: taken out before the party
   * is compared with the lobby this replica knows. */
  if (level_view_query(r, body) != 0) {
    json_decref(body);
    return -1;
  }
  dg_error err;
  dg_error_clear(&err);
  int rc = whole_from_body(server_of(r), id, body, settings, players, seed, &err);
  json_decref(body);
  if (rc != 0)
    respond_error(r, &err);
  return rc;
}

/* A start with its party for a lobby this replica knows: the party must
 * be that lobby, else 409 naming the member that differs; never a level
 * for another party than the one the client holds. */
static void start_known_party(request *r, lobby *game) {
  json_t *settings = NULL, *players = NULL;
  uint64_t seed;
  if (party_of_start(r, game->id, &settings, &players, &seed) != 0)
    return;
  dg_error err;
  dg_error_clear(&err);
  bool same = lobby_same_party(game, settings, players, seed, &err);
  json_decref(settings);
  json_decref(players);
  if (!same) {
    char etag[LOBBY_ETAG_MAX];
    lobby_etag(game, etag);
    respond_problem(r, 409, "lobby-mismatch", "Not the lobby this replica knows", err.message,
                    json_pack("[{s:s, s:s}]", "field", err.field, "message", err.message), "ETag",
                    etag);
    return;
  }
  start(r, game, false);
}

/* A start with its party for a lobby this replica does not know: the lobby
 * is rebuilt from the party (the seed from its id and lobby_seed_secret,
 * as every replica derives it) and its level made now, a miss: exactly the
 * level the lost lobby would have made. */
static void start_with_party(request *r, const char *id) {
  server *daemon = server_of(r);
  json_t *settings = NULL, *players = NULL;
  uint64_t seed;
  if (party_of_start(r, id, &settings, &players, &seed) != 0)
    return;
  if (daemon->draining) {
    json_decref(settings);
    json_decref(players);
    respond_draining(r);
    return;
  }
  dg_error err;
  dg_error_clear(&err);
  lobby *game = NULL;
  int rc = lobby_create(&daemon->lobbies, id, exchange_of(r)->client, &game, &err);
  if (rc == 0 && (rc = lobby_put_whole(&daemon->lobbies, game, settings, players, seed, &err)) == 0)
    settings = players = NULL; /* taken */
  json_decref(settings);
  json_decref(players);
  if (rc != 0) {
    if (game != NULL)
      lobby_remove(&daemon->lobbies, game);
    respond_error(r, &err);
    return;
  }
  start(r, game, true);
}

/* What a lobby path names: the lobby, one of its players, or its start. */
typedef enum lobby_target { LOBBY_WHOLE, LOBBY_PLAYER, LOBBY_START } lobby_target;

typedef struct lobby_path {
  char id[LOBBY_ID_MAX], player[LOBBY_ID_MAX];
  lobby_target target;
} lobby_path;

/* Reads `rest` ("{lobby}", "{lobby}/players/{player}" or "{lobby}/start")
 * into *path and names the route for the log and metrics. False after
 * answering: 400 for a player id outside the pattern, 404 for any other
 * shape. */
static bool parse_lobby_path(request *r, const char *rest, lobby_path *path) {
  const char *slash = strchr(rest, '/');
  size_t id_length = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
  *path = (lobby_path){.target = LOBBY_WHOLE};
  bool shape = plain_id(rest, id_length);
  if (shape) {
    memcpy(path->id, rest, id_length);
    path->id[id_length] = '\0';
    if (slash != NULL && strncmp(slash, "/players/", 9) == 0) {
      /* A player id outside the pattern is a bad value for a known
       * resource shape, not a missing resource (issue 21, item 7). */
      if (!plain_id(slash + 9, strlen(slash + 9))) {
        dg_error err;
        dg_error_set(&err, DG_EINVAL, "player",
                     "the player id must be 1 to %d characters of [A-Za-z0-9._-]",
                     LOBBY_ID_MAX - 1);
        respond_error(r, &err);
        return false;
      }
      path->target = LOBBY_PLAYER;
      snprintf(path->player, sizeof path->player, "%s", slash + 9);
    } else if (slash != NULL && strcmp(slash, "/start") == 0) {
      path->target = LOBBY_START;
    } else if (slash != NULL) {
      shape = false;
    }
  }
  if (!shape) {
    char detail[REQUEST_PATH_MAX + 96];
    snprintf(detail, sizeof detail,
             "no resource at %s (lobby and player ids are 1-64 of [A-Za-z0-9._-])", r->path);
    respond_problem(r, 404, "not-found", "Not found", detail, NULL, NULL, NULL);
    return false;
  }
  exchange_of(r)->route = path->target == LOBBY_WHOLE    ? "/v1/lobbies/{lobby}"
                          : path->target == LOBBY_PLAYER ? "/v1/lobbies/{lobby}/players/{player}"
                                                         : "/v1/lobbies/{lobby}/start";
  return true;
}

/* Whether the method suits the target; false after answering 405 with
 * Allow. */
static bool method_allowed(request *r, lobby_target target) {
  const char *allowed = target == LOBBY_WHOLE    ? "GET, PUT, DELETE"
                        : target == LOBBY_PLAYER ? "PUT, DELETE"
                                                 : "POST";
  const char *m = r->method;
  bool ok = target == LOBBY_WHOLE ? (!strcmp(m, "GET") || !strcmp(m, "PUT") || !strcmp(m, "DELETE"))
            : target == LOBBY_PLAYER ? (!strcmp(m, "PUT") || !strcmp(m, "DELETE"))
                                     : !strcmp(m, "POST");
  if (!ok) {
    char detail[96];
    snprintf(detail, sizeof detail, "%s is not allowed here; use %s", m, allowed);
    respond_problem(r, 405, "method-not-allowed", "Method not allowed", detail, NULL, "Allow",
                    allowed);
  }
  return ok;
}

/* The lobby `path` names, created by a PUT when missing (*created then
 * true). False after answering: a start with a party for a lobby this
 * replica does not know (made here from the party), 404 for an unknown
 * lobby, 409 for a change to a started one, 503 while draining, or the
 * creation's error. */
static bool lobby_for(request *r, const lobby_path *path, lobby **out, bool *created) {
  server *daemon = server_of(r);
  lobby *game = lobby_find(&daemon->lobbies, path->id);
  bool creates = !strcmp(r->method, "PUT");
  *created = false;
  if (preconditions_refuse(r, game, path->id, path->target == LOBBY_WHOLE))
    return false;
  if (path->target == LOBBY_START && game == NULL && r->body_length > 0) {
    start_with_party(r, path->id);
    return false;
  }
  if (game == NULL && !creates) {
    char detail[128];
    snprintf(detail, sizeof detail, "no lobby '%s' (it never existed, expired or was disbanded)",
             path->id);
    respond_problem(r, 404, "unknown-lobby", "Unknown lobby", detail, NULL, NULL, NULL);
    return false;
  }
  /* A started lobby is frozen: its level stays what start returned. */
  if (game != NULL && game->started_ns != 0 && (creates || path->target == LOBBY_PLAYER)) {
    respond_problem(r, 409, "lobby-started", "Lobby already started",
                    "the match has started; its level stays available through start", NULL, NULL,
                    NULL);
    return false;
  }
  if (game == NULL) {
    if (daemon->draining) {
      respond_draining(r);
      return false;
    }
    dg_error err;
    dg_error_clear(&err);
    if (lobby_create(&daemon->lobbies, path->id, exchange_of(r)->client, &game, &err) != 0) {
      respond_error(r, &err);
      return false;
    }
    *created = true;
  }
  *out = game;
  return true;
}

void lobby_route(request *r, const char *rest) {
  lobby_path path;
  lobby *game = NULL;
  bool created = false;
  if (!parse_lobby_path(r, rest, &path) || !method_allowed(r, path.target) ||
      !lobby_for(r, &path, &game, &created))
    return;
  const char *m = r->method;
  if (path.target == LOBBY_WHOLE && !strcmp(m, "GET")) {
    respond_lobby(r, 200, game);
  } else if (path.target == LOBBY_WHOLE && !strcmp(m, "PUT")) {
    put_settings(r, game, created);
  } else if (path.target == LOBBY_WHOLE) {
    lobby_remove(&server_of(r)->lobbies, game);
    respond(r, 204, "application/json", malloc(1), 0, NULL, NULL);
  } else if (path.target == LOBBY_PLAYER && !strcmp(m, "PUT")) {
    put_player(r, game, path.player, created);
  } else if (path.target == LOBBY_PLAYER) {
    if (lobby_remove_player(&server_of(r)->lobbies, game, path.player) != 0) {
      respond_problem(r, 404, "unknown-player", "Unknown player", "no such player in the lobby",
                      NULL, NULL, NULL);
      return;
    }
    respond_lobby(r, 200, game);
  } else if (r->body_length > 0) {
    start_known_party(r, game);
  } else {
    start(r, game, false);
  }
}
