/* The client view of a level (issue 20 item 4): the level a game server
 * may send its players. It is built as a whitelist, a new level holding
 * only what a player may see, so that a member added to the full level
 * later (entities, a new pass's figures) stays server-only until someone
 * decides otherwise; the writers then leave out the members a client view
 * never has (docs/level-format.md, "The client view"). The reasoning is a
 * cheating client's: anything that locates a secret (a secret door, a
 * closet, a key), that measures across one (distances, metrics, the
 * traced graph), or that lets it make the full level again (seed,
 * parameters, the level id) is the server's. It lives with the writers
 * because its level_hash is the SHA-256 of the full level's JSON: the view
 * stands on the JSON writer, never the other way round. */
#include <stdlib.h>
#include <string.h>

#include "dungeon/json.h"
#include "dungeon/level.h"

int dg_level_hash(const dg_level *level, dg_cancel *cancel, char out[DG_LEVEL_HASH_SIZE]) {
  char *text = NULL;
  size_t length = 0;
  int rc = dg_level_dump_json_cancellable(level, cancel, &text, &length);
  if (rc != 0)
    return rc;
  memcpy(out, "sha256:", 7);
  dg_sha256_hex(text, length, out + 7);
  free(text);
  return 0;
}

/* A tile that shows a way on: the rest of a walkable stretch that holds
 * none of these is a piece cut off by secrets (a closet's chest). */
static bool anchors(dg_tile tile) {
  return tile == DG_TILE_FLOOR || tile == DG_TILE_DOOR || tile == DG_TILE_STAIRS_UP ||
         tile == DG_TILE_STAIRS_DOWN || tile == DG_TILE_LOCKED_DOOR ||
         (tile >= DG_TILE_ONE_WAY_NORTH && tile <= DG_TILE_ONE_WAY_WEST);
}

static bool beside_secret(const dg_grid *grid, int x, int y) {
  static const int steps[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  for (int s = 0; s < 4; s++) {
    int nx = x + steps[s][0], ny = y + steps[s][1];
    if (!dg_grid_contains(grid, nx, ny))
      continue;
    dg_tile tile = dg_grid_get(grid, nx, ny);
    if (tile == DG_TILE_SECRET_DOOR || tile == DG_TILE_SECRET_CORRIDOR)
      return true;
  }
  return false;
}

/* What lies under a key: a room's floor, else a corridor's dead end,
 * which is hidden when it lies beside a secret (it may be part of one; a
 * tile hidden too many gives nothing away, one shown too many does). */
static dg_tile under_key(const dg_level *full, int x, int y) {
  const dg_grid *grid = &full->grid;
  if (full->room_of != NULL && full->room_of[(long)y * grid->width + x] >= 0)
    return DG_TILE_FLOOR;
  for (int i = 0; i < full->room_count; i++) {
    const dg_room *r = &full->rooms[i];
    if (x >= r->x && y >= r->y && x < r->x + r->width && y < r->y + r->height)
      return DG_TILE_FLOOR;
  }
  return beside_secret(grid, x, y) ? DG_TILE_STONE : DG_TILE_CORRIDOR;
}

/* Turns every walkable stretch of `grid` that no anchor tile joins (cut
 * off by the secrets just hidden, or sealed from the start) into stone.
 * 0 or DG_ENOMEM. */
static int hide_cut_off(dg_grid *grid) {
  long cells = (long)grid->width * grid->height;
  uint8_t *seen = calloc((size_t)cells, 1);
  long *queue = malloc((size_t)cells * sizeof *queue);
  int rc = DG_ENOMEM;
  if (seen == NULL || queue == NULL)
    goto done;
  for (long start = 0; start < cells; start++) {
    if (seen[start] || !dg_tile_walkable((dg_tile)grid->tiles[start]))
      continue;
    long head = 0, tail = 0;
    bool anchored = false;
    queue[tail++] = start;
    seen[start] = 1;
    while (head < tail) {
      long at = queue[head++];
      int x = (int)(at % grid->width), y = (int)(at / grid->width);
      anchored = anchored || anchors((dg_tile)grid->tiles[at]);
      const long next[4] = {x > 0 ? at - 1 : -1, x + 1 < grid->width ? at + 1 : -1,
                            y > 0 ? at - grid->width : -1,
                            y + 1 < grid->height ? at + grid->width : -1};
      for (int s = 0; s < 4; s++)
        if (next[s] >= 0 && !seen[next[s]] && dg_tile_walkable((dg_tile)grid->tiles[next[s]])) {
          seen[next[s]] = 1;
          queue[tail++] = next[s];
        }
    }
    if (!anchored)
      for (long i = 0; i < tail; i++)
        grid->tiles[queue[i]] = DG_TILE_STONE;
  }
  rc = 0;
done:
  free(seen);
  free(queue);
  return rc;
}

/* The client's tiles: secret doors as wall, secret corridors as stone,
 * keys as what lies under them, then cut-off stretches as stone. */
static int mask_grid(const dg_level *full, dg_grid *grid) {
  int rc = dg_grid_init(grid, full->grid.width, full->grid.height);
  if (rc != 0)
    return rc;
  for (int y = 0; y < grid->height; y++)
    for (int x = 0; x < grid->width; x++) {
      dg_tile tile = dg_grid_get(&full->grid, x, y);
      if (tile == DG_TILE_SECRET_DOOR)
        tile = DG_TILE_WALL;
      else if (tile == DG_TILE_SECRET_CORRIDOR)
        tile = DG_TILE_STONE;
      else if (tile == DG_TILE_KEY)
        tile = under_key(full, x, y);
      dg_grid_set(grid, x, y, tile);
    }
  return hide_cut_off(grid);
}

/* Whether a thing at (x, y) is still there for a client: on a grid, its
 * tile must still be walkable (not hidden); without a grid, always. */
static bool shown(const dg_level *client, int x, int y) {
  if (!client->has_grid)
    return true;
  return dg_grid_contains(&client->grid, x, y) &&
         dg_tile_walkable(dg_grid_get(&client->grid, x, y));
}

static int copy_things(const dg_level *full, dg_level *client) {
  int rc = 0;
  for (int i = 0; i < full->room_count && rc == 0; i++) {
    dg_room room = full->rooms[i];
    rc = dg_level_add_room(client, &room, NULL);
  }
  for (int i = 0; i < full->door_count && rc == 0; i++) {
    const dg_door *door = &full->doors[i];
    if (!door->secret && shown(client, door->x, door->y))
      rc = dg_level_add_door(client, &(dg_door){door->x, door->y, door->room, false});
  }
  /* A chest is seen, what it holds is the server's (loot is authority). */
  for (int i = 0; i < full->object_count && rc == 0; i++) {
    const dg_object *object = &full->objects[i];
    if (shown(client, object->x, object->y))
      rc = dg_level_add_object(client,
                               &(dg_object){.x = object->x, .y = object->y, .kind = object->kind});
  }
  for (int i = 0; i < full->feature_count && rc == 0; i++) {
    dg_feature feature = full->features[i];
    if (strcmp(feature.kind, "key") == 0 || !shown(client, feature.x, feature.y))
      continue;
    /* A distance measured across a secret door would reveal a shortcut;
     * a lock's key id says where its key lies. */
    feature.exit_distance = -1;
    feature.key = -1;
    for (int p = 0; feature.player_id != NULL && p < full->players.count; p++)
      if (feature.player_id == full->players.id[p])
        feature.player_id = client->players.id[p];
    rc = dg_level_add_feature(client, &feature);
  }
  return rc;
}

/* A level without a grid is its graph (rooms and their connections), so
 * the client keeps it, without the dice; a grid level's graph is traced
 * over secret doors and corridors, and the client's own map says the rest. */
static int copy_graph(const dg_level *full, dg_level *client) {
  if (full->has_grid)
    return 0;
  int rc = 0;
  for (int i = 0; i < full->graph.node_count && rc == 0; i++) {
    const dg_node *node = &full->graph.nodes[i];
    rc = dg_graph_add_node(&client->graph, node->kind, node->x, node->y, node->room, NULL);
    if (rc == 0) {
      dg_node *copy = &client->graph.nodes[client->graph.node_count - 1];
      copy->depth = node->depth;
      memcpy(copy->label, node->label, sizeof copy->label);
    }
  }
  for (int e = 0; e < full->graph.edge_count && rc == 0; e++) {
    const dg_edge *edge = &full->graph.edges[e];
    rc = dg_graph_add_edge(&client->graph, edge->from, edge->to, edge->kind, edge->length);
    if (rc == 0)
      client->graph.edges[client->graph.edge_count - 1].cycle = edge->cycle;
  }
  return rc;
}

int dg_level_client_view(const dg_level *full, dg_cancel *cancel, dg_level **out) {
  *out = NULL;
  dg_level *client = calloc(1, sizeof *client);
  if (client == NULL)
    return DG_ENOMEM;
  dg_graph_init(&client->graph);
  int rc = 0;
  if (full->level_hash[0] != '\0')
    memcpy(client->level_hash, full->level_hash, DG_LEVEL_HASH_SIZE);
  else if ((rc = dg_level_hash(full, cancel, client->level_hash)) != 0)
    goto fail;
  client->algorithm = full->algorithm;
  /* No seed and no params, not even in memory: a writer added later cannot
   * leak what the view does not hold. */
  client->players = full->players;
  client->has_grid = full->has_grid;
  client->grid_is_projection = full->grid_is_projection;
  client->client_view = true;
  client->client_progression_tiles = full->progression.placed;
  client->placement.entrance_node = client->placement.exit_node = -1;
  if (full->has_grid && (rc = mask_grid(full, &client->grid)) != 0)
    goto fail;
  if ((rc = copy_things(full, client)) != 0 || (rc = copy_graph(full, client)) != 0)
    goto fail;
  *out = client;
  return 0;
fail:
  dg_level_free(client);
  return rc;
}

int dg_view_parse(const char *name, dg_view *view) {
  if (name != NULL && strcmp(name, "full") == 0)
    *view = DG_VIEW_FULL;
  else if (name != NULL && strcmp(name, "client") == 0)
    *view = DG_VIEW_CLIENT;
  else
    return DG_EINVAL;
  return 0;
}

int dg_level_apply_view(dg_level **level, dg_view view, dg_cancel *cancel) {
  if (view == DG_VIEW_FULL)
    return dg_level_hash(*level, cancel, (*level)->level_hash);
  if (view != DG_VIEW_CLIENT)
    return 0;
  dg_level *client = NULL;
  int rc = dg_level_client_view(*level, cancel, &client);
  if (rc != 0)
    return rc;
  dg_level_free(*level);
  *level = client;
  return 0;
}
