/* The Tiled export (include/dungeon/render.h, docs/pictures.md): a level as
 * a Tiled JSON map (.tmj) that the Tiled editor opens and that engine
 * importers for Tiled (Godot, Unity, Defold, Phaser...) read. Written with
 * the level serialiser's JSON writer, members in a fixed order, so the
 * bytes are a function of the level.
 *
 * The tileset is embedded: one tile per dg_tile (gid = tile + 1, so every
 * cell has a tile and gid 0, "empty", never appears), each with its class in
 * `type` and `walkable`/`glyph` properties. Its image is the strip
 * DG_TILED_TILESET_IMAGE (docs/tiled/), one 16x16 tile per dg_tile in enum
 * order, to be placed beside the map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/legend.h"
#include "core/writer.h"
#include "dungeon/levelset.h"
#include "dungeon/render.h"
#include "render_internal.h"

static void put(dg_writer *w, const char *text) {
  dg_writer_raw(w, text, strlen(text));
}

/* `text` inside a JSON string already opened: quotes, backslashes and
 * control characters escaped. */
static void put_string_chars(dg_writer *w, const char *text) {
  for (const char *c = text; *c != '\0'; c++) {
    if (*c == '"' || *c == '\\') {
      dg_writer_char(w, '\\');
      dg_writer_char(w, *c);
    } else if ((unsigned char)*c < 0x20) {
      dg_writer_char(w, ' ');
    } else {
      dg_writer_char(w, *c);
    }
  }
}

/* {"name":NAME,"type":TYPE,"value": — the caller writes the value and '}'. */
static void put_property(dg_writer *w, bool first, const char *name, const char *type) {
  put(w, first ? "{\"name\":" : ",{\"name\":");
  dg_writer_cstring(w, name);
  put(w, ",\"type\":\"");
  put(w, type);
  put(w, "\",\"value\":");
}

/* The map's members before its properties, up to `"properties":[`: one
 * orthogonal map of width x height tiles, a level's or a set's. */
static void put_map_head(dg_writer *w, int width, int height) {
  dg_writer_format(w,
                   "{\"type\":\"map\",\"version\":\"1.10\",\"tiledversion\":\"1.10.2\","
                   "\"orientation\":\"orthogonal\",\"renderorder\":\"right-down\",\"width\":%d,"
                   "\"height\":%d,\"tilewidth\":%d,\"tileheight\":%d,\"infinite\":false,"
                   "\"compressionlevel\":-1,\"backgroundcolor\":\"#16161d\",\"properties\":[",
                   width, height, DG_TILED_TILE_SIZE, DG_TILED_TILE_SIZE);
}

/* `tiles`: DG_TILE_BASE_COUNT, or DG_TILE_COUNT when the progression pass
 * ran (its tiles follow the others in the strip), so that other levels'
 * maps keep their bytes. */
static void put_tileset(dg_writer *w, int tiles, bool client_view) {
  put(w, "[{\"firstgid\":1,\"name\":\"dungeond\",\"class\":\"\",\"tilewidth\":");
  dg_writer_int(w, DG_TILED_TILE_SIZE);
  put(w, ",\"tileheight\":");
  dg_writer_int(w, DG_TILED_TILE_SIZE);
  put(w, ",\"tilecount\":");
  dg_writer_int(w, tiles);
  put(w, ",\"columns\":");
  dg_writer_int(w, tiles);
  put(w, ",\"margin\":0,\"spacing\":0,\"image\":\"");
  put(w, tiles > DG_TILE_BASE_COUNT ? DG_TILED_TILESET_IMAGE_PROGRESSION : DG_TILED_TILESET_IMAGE);
  put(w, "\",\"imagewidth\":");
  dg_writer_int(w, tiles * DG_TILED_TILE_SIZE);
  put(w, ",\"imageheight\":");
  dg_writer_int(w, DG_TILED_TILE_SIZE);
  put(w, ",\"tiles\":[");
  for (int tile = 0; tile < tiles; tile++) {
    /* A client view's map never holds these tiles, and a tileset naming
     * them would say what the map hides; their gids stay unused. */
    if (client_view &&
        (tile == DG_TILE_SECRET_DOOR || tile == DG_TILE_SECRET_CORRIDOR || tile == DG_TILE_KEY))
      continue;
    put(w, tile == 0 ? "{\"id\":" : ",{\"id\":");
    dg_writer_int(w, tile);
    put(w, ",\"type\":");
    dg_writer_cstring(w, dg_tile_name((dg_tile)tile));
    put(w, ",\"properties\":[");
    put_property(w, true, "glyph", "string");
    /* The legend's first glyph for the tile (walls: the joined '-'). */
    const dg_legend_entry *entry = &dg_legend[tile];
    dg_writer_string(w, entry->joined_glyph != '\0' ? &entry->joined_glyph : &entry->glyph, 1);
    put(w, "}");
    put_property(w, false, "walkable", "bool");
    put(w, dg_tile_walkable((dg_tile)tile) ? "true}" : "false}");
    put(w, "]}");
  }
  put(w, "]}]");
}

/* The gids, row-major: a cell's tile + 1. */
static void put_data(dg_writer *w, const dg_grid *grid) {
  static const char *const gids[DG_TILE_COUNT] = {
      "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17"};
  _Static_assert(DG_TILE_COUNT == 17, "one gid text per tile");
  long cells = (long)grid->width * grid->height;
  for (long i = 0; i < cells; i++) {
    uint8_t tile = grid->tiles[i] < DG_TILE_COUNT ? grid->tiles[i] : DG_TILE_STONE;
    if (i > 0)
      dg_writer_char(w, ',');
    put(w, gids[tile]);
  }
}

/* The gids of `grid` in a layer of width x height cells (the set's largest
 * floor), row-major; cells outside the grid are 0, Tiled's "no tile". */
static void put_data_padded(dg_writer *w, const dg_grid *grid, int width, int height) {
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      if (x > 0 || y > 0)
        dg_writer_char(w, ',');
      if (x < grid->width && y < grid->height) {
        uint8_t tile = dg_grid_get(grid, x, y);
        dg_writer_int(w, (tile < DG_TILE_COUNT ? tile : DG_TILE_STONE) + 1);
      } else {
        dg_writer_char(w, '0');
      }
    }
}

/* Opens object `id`: {"id":ID,"name":NAME,"type":TYPE,"x":..,"y":.. in
 * pixels; the caller adds size or "point" and the properties. */
static void open_object(dg_writer *w, bool first, int id, const char *name, size_t name_length,
                        const char *type, long x_px, long y_px) {
  put(w, first ? "{\"id\":" : ",{\"id\":");
  dg_writer_int(w, id);
  put(w, ",\"name\":");
  dg_writer_string(w, name, name_length);
  put(w, ",\"type\":");
  dg_writer_cstring(w, type);
  put(w, ",\"x\":");
  dg_writer_int(w, x_px);
  put(w, ",\"y\":");
  dg_writer_int(w, y_px);
  put(w, ",\"rotation\":0,\"visible\":true");
}

static void put_tile_position(dg_writer *w, bool first, int x, int y) {
  put_property(w, first, "tile_x", "int");
  dg_writer_int(w, x);
  put(w, "}");
  put_property(w, false, "tile_y", "int");
  dg_writer_int(w, y);
  put(w, "}");
}

/* One rectangle per room, named by its label (or "room N"); with `s`, only
 * the rooms on `storey`. Object ids run on from *id; `first` is the
 * layer's first. */
static void put_room_objects(dg_writer *w, const dg_level *level, int dx, int dy, int *id,
                             int first, const dg_storeys *s, int storey) {
  const long size = DG_TILED_TILE_SIZE;
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    if (s != NULL && !dg_storeys_room_on(s, i, storey))
      continue;
    char name[DG_LABEL_MAX + 16];
    size_t name_length = room->label[0] != '\0' ? strnlen(room->label, DG_LABEL_MAX) : 0;
    if (name_length > 0)
      memcpy(name, room->label, name_length);
    else
      name_length = (size_t)snprintf(name, sizeof name, "room %d", i);
    (*id)++;
    open_object(w, *id == first, *id, name, name_length, "room", (room->x + dx) * size,
                (room->y + dy) * size);
    put(w, ",\"width\":");
    dg_writer_int(w, room->width * size);
    put(w, ",\"height\":");
    dg_writer_int(w, room->height * size);
    put(w, ",\"properties\":[");
    put_property(w, true, "room", "int");
    dg_writer_int(w, i);
    put(w, "}");
    put_property(w, false, "kind", "string");
    dg_writer_cstring(w, room->kind != NULL ? room->kind : "room");
    put(w, "}");
    put_tile_position(w, false, room->x + dx, room->y + dy);
    put(w, "]}");
  }
}

/* One tile-sized rectangle per door; the full view says which are secret. Object ids run on from
 * *id; `first` is the layer's first. */
static void put_door_objects(dg_writer *w, const dg_level *level, int dx, int dy, int *id,
                             int first) {
  const long size = DG_TILED_TILE_SIZE;
  for (int i = 0; i < level->door_count; i++) {
    const dg_door *door = &level->doors[i];
    const char *type = door->secret ? "secret_door" : "door";
    bool client = level->client_view;
    (*id)++;
    open_object(w, *id == first, *id, type, strlen(type), type, (door->x + dx) * size,
                (door->y + dy) * size);
    put(w, ",\"width\":");
    dg_writer_int(w, size);
    put(w, ",\"height\":");
    dg_writer_int(w, size);
    put(w, ",\"properties\":[");
    put_property(w, true, "room", "int");
    dg_writer_int(w, door->room);
    put(w, "}");
    if (!client) {
      put_property(w, false, "secret", "bool");
      put(w, door->secret ? "true}" : "false}");
    }
    put_tile_position(w, false, door->x + dx, door->y + dy);
    put(w, "]}");
  }
}

/* One point per object; the full view adds what it holds. Object ids run on from *id; `first` is
 * the layer's first. */
static void put_item_objects(dg_writer *w, const dg_level *level, int dx, int dy, int *id,
                             int first) {
  const long size = DG_TILED_TILE_SIZE;
  for (int i = 0; i < level->object_count; i++) {
    const dg_object *object = &level->objects[i];
    const char *kind = object->kind != NULL ? object->kind : "object";
    (*id)++;
    open_object(w, *id == first, *id, kind, strlen(kind), kind, (object->x + dx) * size + size / 2,
                (object->y + dy) * size + size / 2);
    put(w, ",\"width\":0,\"height\":0,\"point\":true,\"properties\":[");
    put_tile_position(w, true, object->x + dx, object->y + dy);
    if (level->client_view) { /* what a chest holds is the server's */
      put(w, "]}");
      continue;
    }
    put_property(w, false, "gold", "int");
    dg_writer_int(w, object->gold);
    put(w, "}");
    /* Tiled properties are scalars: the contents as one comma-separated string. */
    put_property(w, false, "contents", "string");
    dg_writer_char(w, '"');
    for (int k = 0; k < object->item_count; k++) {
      if (k > 0)
        dg_writer_char(w, ',');
      put_string_chars(w, object->items[k]);
    }
    put(w, "\"}]}");
  }
}

/* One point per feature (stairs, spawns, keys, locks, one-way doors) with what
 * the view may say of it; with `s`, only those in rooms on `storey`. Object ids run on from *id;
 * `first` is the layer's first. */
static void put_feature_objects(dg_writer *w, const dg_level *level, int dx, int dy, int *id,
                                int first, const dg_storeys *s, int storey) {
  const long size = DG_TILED_TILE_SIZE;
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *feature = &level->features[i];
    if (s != NULL && !dg_storeys_room_on(s, feature->room, storey))
      continue;
    const char *kind = feature->kind != NULL ? feature->kind : "feature";
    bool spawn = strcmp(kind, "spawn") == 0;
    char name[32];
    size_t name_length = spawn ? (size_t)snprintf(name, sizeof name, "spawn %d", feature->player)
                               : (size_t)snprintf(name, sizeof name, "%s", kind);
    (*id)++;
    open_object(w, *id == first, *id, name,
                name_length < sizeof name ? name_length : sizeof name - 1, kind,
                (feature->x + dx) * size + size / 2, (feature->y + dy) * size + size / 2);
    put(w, ",\"width\":0,\"height\":0,\"point\":true,\"properties\":[");
    put_tile_position(w, true, feature->x + dx, feature->y + dy);
    put_property(w, false, "room", "int");
    dg_writer_int(w, feature->room);
    put(w, "}");
    bool key = strcmp(kind, "key") == 0, lock = strcmp(kind, "locked_door") == 0;
    bool one_way = strcmp(kind, "one_way_door") == 0;
    if (level->client_view) {
      /* No key id, no distance: the server's (dg_level_client_view). */
      if (one_way) {
        put_property(w, false, "direction", "string");
        dg_writer_cstring(w, feature->direction != NULL ? feature->direction : "");
        put(w, "}");
      }
    } else if (key || lock) {
      put_property(w, false, "key_id", "int");
      dg_writer_int(w, feature->key);
      put(w, "}");
    } else if (one_way) {
      put_property(w, false, "direction", "string");
      dg_writer_cstring(w, feature->direction != NULL ? feature->direction : "");
      put(w, "}");
    } else {
      put_property(w, false, "exit_distance", "int");
      dg_writer_int(w, feature->exit_distance);
      put(w, "}");
    }
    if (spawn) {
      put_property(w, false, "player", "int");
      dg_writer_int(w, feature->player);
      put(w, "}");
    }
    if (feature->player_id != NULL) {
      put_property(w, false, "player_id", "string");
      dg_writer_cstring(w, feature->player_id);
      put(w, "}");
    }
    put(w, "]}");
  }
}

/* Rooms as rectangles over their floor, doors as one-tile rectangles, the
 * level's objects and then its features (stairs, spawns) as points at their
 * tile's centre. Object ids run on from *count (0 for a map of one level:
 * ids from 1), which receives the last id used. */
static void put_objects(dg_writer *w, const dg_level *level, int dx, int dy, int *count) {
  const int first = *count + 1;
  put_room_objects(w, level, dx, dy, count, first, NULL, 0);
  put_door_objects(w, level, dx, dy, count, first);
  put_item_objects(w, level, dx, dy, count, first);
  put_feature_objects(w, level, dx, dy, count, first, NULL, 0);
}

/* For a level without tiles: its rooms painted as walls and floor, doors
 * over them, into `grid` (already offset by dx, dy). */
static void paint_rooms(const dg_level *level, dg_grid *grid, int dx, int dy) {
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    for (int y = room->y - 1; y <= room->y + room->height; y++)
      for (int x = room->x - 1; x <= room->x + room->width; x++) {
        bool inside =
            x >= room->x && y >= room->y && x < room->x + room->width && y < room->y + room->height;
        if (!dg_grid_contains(grid, x + dx, y + dy))
          continue;
        /* Overlapping rooms (stacked at different heights) keep floor. */
        if (inside || dg_grid_get(grid, x + dx, y + dy) != DG_TILE_FLOOR)
          dg_grid_set(grid, x + dx, y + dy, inside ? DG_TILE_FLOOR : DG_TILE_WALL);
      }
  }
  for (int i = 0; i < level->door_count; i++) {
    const dg_door *door = &level->doors[i];
    if (dg_grid_contains(grid, door->x + dx, door->y + dy))
      dg_grid_set(grid, door->x + dx, door->y + dy,
                  door->secret ? DG_TILE_SECRET_DOOR : DG_TILE_DOOR);
  }
}

/* A level's seed (the full view's), or that it is a client view (which
 * names no seed), then its level_hash when set: map or floor properties. */
static void put_identity(dg_writer *w, const dg_level *level) {
  if (level->client_view) {
    put_property(w, false, "view", "string");
    put(w, "\"client\"}");
  } else {
    /* A string: Tiled's int property is 32-bit in places, seeds are 64-bit. */
    put_property(w, false, "seed", "string");
    dg_writer_char(w, '"');
    dg_writer_uint(w, level->seed);
    put(w, "\"}");
  }
  if (level->level_hash[0] != '\0') {
    put_property(w, false, "level_hash", "string");
    dg_writer_cstring(w, level->level_hash);
    put(w, "}");
  }
}

/* The object layer "entities" (id `layer`) of a level a content table
 * filled (docs/population.md): one rectangle per entity over its
 * footprint, named by its table entry, typed by its kind, with its id,
 * room and cost or tier as properties. Object ids run on from *count.
 * Nothing for other levels, which keep their bytes. */
static void put_entity_layer(dg_writer *w, const dg_level *level, int dx, int dy, int layer,
                             int *count) {
  const long size = DG_TILED_TILE_SIZE;
  const dg_population *p = &level->population;
  dg_writer_format(w,
                   ",{\"id\":%d,\"name\":\"entities\",\"type\":\"objectgroup\","
                   "\"draworder\":\"index\",\"x\":0,\"y\":0,\"opacity\":1,\"visible\":true,"
                   "\"objects\":[",
                   layer);
  for (int i = 0; i < p->entity_count; i++) {
    const dg_entity *e = &p->entities[i];
    bool encounter = e->kind == DG_ENTITY_ENCOUNTER;
    int id = ++*count;
    open_object(w, i == 0, id, e->entry, strlen(e->entry), encounter ? "encounter" : "loot",
                (e->x + dx) * size, (e->y + dy) * size);
    dg_writer_format(w, ",\"width\":%ld,\"height\":%ld,\"properties\":[", e->width * size,
                     e->height * size);
    put_property(w, true, "entity", "string");
    dg_writer_format(w, "\"e%d\"}", i + 1);
    put_property(w, false, "room", "int");
    dg_writer_format(w, "%d}", e->room);
    put_property(w, false, encounter ? "cost" : "tier", "int");
    dg_writer_format(w, "%d}", encounter ? e->cost : e->tier);
    put_tile_position(w, false, e->x + dx, e->y + dy);
    put(w, "]}");
  }
  put(w, "]}");
}

/* The tiles a level is drawn from and the origin of its extent (*x0,
 * *y0): its grid, or for a level without one its rooms painted into
 * *painted, which the caller closes (dg_grid_close) either way. 0 or
 * DG_ENOMEM. */
static int level_tiles(const dg_level *level, dg_grid *painted, const dg_grid **grid, int *x0,
                       int *y0) {
  int x1, y1;
  dg_render_extent(level, x0, y0, &x1, &y1);
  *grid = &level->grid;
  if (level->has_grid)
    return 0;
  int rc = dg_grid_init(painted, x1 - *x0, y1 - *y0);
  if (rc != 0)
    return rc;
  paint_rooms(level, painted, -*x0, -*y0);
  *grid = painted;
  return 0;
}

/* ---- authored levels by storey ---------------------------------------- */

/* Boxes in level coordinates painted onto the map, shifted by (dx, dy). */
typedef struct paint {
  dg_grid *grid;
  dg_tile tile;
  int dx, dy;
} paint;

static void paint_box(void *data, int x, int y, int width, int height) {
  const paint *p = data;
  for (int row = y + p->dy; row < y + p->dy + height; row++)
    for (int column = x + p->dx; column < x + p->dx + width; column++)
      if (dg_grid_contains(p->grid, column, row))
        dg_grid_set(p->grid, column, row, p->tile);
}

typedef struct corridor_paint {
  dg_grid *grid;
  int storey, dx, dy;
} corridor_paint;

/* Where a carved corridor climbs off the storey: stairs up or down. */
static void paint_climb(void *data, const dg_storey_tile *at, int to) {
  const corridor_paint *p = data;
  if (dg_grid_contains(p->grid, at->x + p->dx, at->y + p->dy))
    dg_grid_set(p->grid, at->x + p->dx, at->y + p->dy,
                to > p->storey ? DG_TILE_STAIRS_UP : DG_TILE_STAIRS_DOWN);
}

/* Storey `storey` as tiles, shifted by (dx, dy): its rooms' walls, then
 * their floors, the carved corridors' tiles on it (a stair's steps
 * included) as corridor, where they climb off it stairs up or down, its
 * doorways as doors, and each of its staircases' doorways onto another
 * storey as stairs up or down. */
static void paint_storey(const dg_storeys *s, int storey, int dx, int dy, dg_grid *grid) {
  paint walls = {grid, DG_TILE_WALL, dx, dy}, floor = {grid, DG_TILE_FLOOR, dx, dy};
  for (int i = 0; i < s->plan.box_count; i++) {
    const dg_storey_box *b = &s->plan.boxes[i];
    if (dg_storeys_room_on(s, b->room, storey))
      paint_box(&walls, b->x, b->y, b->width, b->height);
  }
  for (int r = 0; r < s->room_count; r++)
    if (dg_storeys_room_on(s, r, storey))
      dg_storeys_floor(s, r, paint_box, &floor);
  for (int i = 0; i < s->plan.tile_count; i++) {
    const dg_storey_tile *t = &s->plan.tiles[i];
    if (dg_storeys_tile_on(s, i, storey) != DG_CORRIDOR_OFF &&
        dg_grid_contains(grid, t->x + dx, t->y + dy))
      dg_grid_set(grid, t->x + dx, t->y + dy, DG_TILE_CORRIDOR);
  }
  corridor_paint climbs = {grid, storey, dx, dy};
  dg_storeys_corridor_stairs(s, storey, paint_climb, &climbs);
  for (int i = 0; i < s->plan.door_count; i++) {
    const dg_storey_door *d = &s->plan.doors[i];
    if (!dg_storeys_room_on(s, d->room, storey) || !dg_grid_contains(grid, d->x + dx, d->y + dy))
      continue;
    dg_grid_set(grid, d->x + dx, d->y + dy,
                d->storey == storey  ? DG_TILE_DOOR
                : d->storey > storey ? DG_TILE_STAIRS_UP
                                     : DG_TILE_STAIRS_DOWN);
  }
}

/* Storey `storey`'s doorways as door objects, and its staircases'
 * doorways onto other storeys as "stairs" objects naming the storey they
 * reach (`to_storey`) and the way (`direction` up or down). */
static void put_storey_doors(dg_writer *w, const dg_storeys *s, int storey, int dx, int dy, int *id,
                             int first) {
  const long size = DG_TILED_TILE_SIZE;
  for (int i = 0; i < s->plan.door_count; i++) {
    const dg_storey_door *d = &s->plan.doors[i];
    if (!dg_storeys_room_on(s, d->room, storey))
      continue;
    char name[48];
    int length = d->storey == storey ? snprintf(name, sizeof name, "door")
                                     : snprintf(name, sizeof name, "stairs %s to y = %d",
                                                d->storey > storey ? "up" : "down", d->storey);
    (*id)++;
    open_object(w, *id == first, *id, name, (size_t)length, d->storey == storey ? "door" : "stairs",
                (d->x + dx) * size, (d->y + dy) * size);
    dg_writer_format(w, ",\"width\":%ld,\"height\":%ld,\"properties\":[", size, size);
    put_property(w, true, "room", "int");
    dg_writer_format(w, "%d}", d->room);
    if (d->storey != storey) {
      put_property(w, false, "to_storey", "int");
      dg_writer_format(w, "%d}", d->storey);
      put_property(w, false, "direction", "string");
      put(w, d->storey > storey ? "\"up\"}" : "\"down\"}");
    }
    put_tile_position(w, false, d->x + dx, d->y + dy);
    put(w, "]}");
  }
}

typedef struct climb_objects {
  dg_writer *w;
  int storey, dx, dy, first;
  int *id;
} climb_objects;

/* A carved corridor's climb off the storey as a "stairs" object, as a
 * staircase's doorway is, naming its corridor instead of a room. */
static void put_climb_object(void *data, const dg_storey_tile *at, int to) {
  const climb_objects *c = data;
  const long size = DG_TILED_TILE_SIZE;
  char name[48];
  int length =
      snprintf(name, sizeof name, "stairs %s to y = %d", to > c->storey ? "up" : "down", to);
  (*c->id)++;
  open_object(c->w, *c->id == c->first, *c->id, name, (size_t)length, "stairs",
              (at->x + c->dx) * size, (at->y + c->dy) * size);
  dg_writer_format(c->w, ",\"width\":%ld,\"height\":%ld,\"properties\":[", size, size);
  put_property(c->w, true, "corridor", "int");
  dg_writer_format(c->w, "%d}", at->corridor);
  put_property(c->w, false, "to_storey", "int");
  dg_writer_format(c->w, "%d}", to);
  put_property(c->w, false, "direction", "string");
  put(c->w, to > c->storey ? "\"up\"}" : "\"down\"}");
  put_tile_position(c->w, false, at->x + c->dx, at->y + c->dy);
  put(c->w, "]}");
}

/* The storey the map opens on: the start room's (its lowest). */
static int opening_storey(const dg_storeys *s) {
  for (int k = 0; k < s->count; k++)
    if (dg_storeys_room_on(s, 0, s->list[k]))
      return s->list[k];
  return s->list[0];
}

/* Storey k as a group layer "y = N" (property `storey`) holding its
 * "tiles" and "objects" layers; the level's objects (which name no room)
 * and entities go with the storey the map opens on, the only one visible
 * then (the storeys share one plane; Tiled's layer panel shows the
 * others). */
static int put_storey_group(dg_writer *w, const dg_level *level, const dg_storeys *s, int k,
                            int width, int height, int dx, int dy, int *next_layer,
                            int *next_object) {
  int storey = s->list[k];
  bool opening = storey == opening_storey(s);
  dg_grid tiles = {0};
  int rc = dg_grid_init(&tiles, width, height);
  if (rc != 0)
    return rc;
  paint_storey(s, storey, dx, dy, &tiles);
  dg_writer_format(w,
                   "%s{\"id\":%d,\"name\":\"y = %d\",\"type\":\"group\",\"x\":0,\"y\":0,"
                   "\"opacity\":1,\"visible\":%s,\"properties\":[",
                   k == 0 ? "" : ",", (*next_layer)++, storey, opening ? "true" : "false");
  put_property(w, true, "storey", "int");
  dg_writer_format(w, "%d}", storey);
  dg_writer_format(w,
                   "],\"layers\":[{\"id\":%d,\"name\":\"tiles\",\"type\":\"tilelayer\","
                   "\"x\":0,\"y\":0,\"width\":%d,\"height\":%d,\"opacity\":1,\"visible\":true,"
                   "\"data\":[",
                   (*next_layer)++, width, height);
  put_data(w, &tiles);
  dg_grid_close(&tiles);
  dg_writer_format(w,
                   "]},{\"id\":%d,\"name\":\"objects\",\"type\":\"objectgroup\","
                   "\"draworder\":\"index\",\"x\":0,\"y\":0,\"opacity\":1,\"visible\":true,"
                   "\"objects\":[",
                   (*next_layer)++);
  int first = *next_object + 1;
  put_room_objects(w, level, dx, dy, next_object, first, s, storey);
  put_storey_doors(w, s, storey, dx, dy, next_object, first);
  climb_objects climbs = {w, storey, dx, dy, first, next_object};
  dg_storeys_corridor_stairs(s, storey, put_climb_object, &climbs);
  if (opening)
    put_item_objects(w, level, dx, dy, next_object, first);
  put_feature_objects(w, level, dx, dy, next_object, first, s, storey);
  put(w, "]}");
  if (opening && level->population.filled)
    put_entity_layer(w, level, dx, dy, (*next_layer)++, next_object);
  put(w, "]}");
  return 0;
}

/* A level's map head and its properties up to origin_y (the property list
 * left open): what every one-level map starts with. */
static void put_level_head(dg_writer *w, const dg_level *level, int width, int height, int x0,
                           int y0) {
  put_map_head(w, width, height);
  put_property(w, true, "format", "string");
  put(w, "\"" DG_LEVEL_FORMAT "\"}");
  put_property(w, false, "algorithm", "string");
  dg_writer_cstring(w, level->algorithm->name);
  put(w, "}");
  put_identity(w, level);
  put_property(w, false, "origin_x", "int");
  dg_writer_format(w, "%d}", x0);
  put_property(w, false, "origin_y", "int");
  dg_writer_format(w, "%d}", y0);
}

/* A level on several storeys as one map of the level's size with a group
 * per storey, lowest first, and the number of storeys as a property. */
static int dump_storeys(const dg_level *level, const dg_storeys *s, char **text, size_t *length) {
  int x0, y0, x1, y1;
  dg_render_extent(level, &x0, &y0, &x1, &y1);
  dg_writer w = {0};
  put_level_head(&w, level, x1 - x0, y1 - y0, x0, y0);
  put_property(&w, false, "storeys", "int");
  dg_writer_format(&w, "%d}],\"tilesets\":", s->count);
  put_tileset(&w, level->progression.placed ? DG_TILE_COUNT : DG_TILE_BASE_COUNT, false);
  put(&w, ",\"layers\":[");
  int next_layer = 1, next_object = 0, rc = 0;
  for (int k = 0; k < s->count && rc == 0; k++)
    rc = put_storey_group(&w, level, s, k, x1 - x0, y1 - y0, -x0, -y0, &next_layer, &next_object);
  dg_writer_format(&w, "],\"nextlayerid\":%d,\"nextobjectid\":%d}\n", next_layer, next_object + 1);
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  return dg_writer_take(&w, text, length);
}

int dg_level_dump_tiled(const dg_level *level, char **text, size_t *length) {
  dg_storeys storeys;
  int rc = dg_storeys_open(level, &storeys);
  if (rc == 0 && storeys.count > 1) {
    rc = dump_storeys(level, &storeys, text, length);
    dg_storeys_close(&storeys);
    return rc;
  }
  dg_storeys_close(&storeys);
  if (rc != 0)
    return rc;
  int x0, y0;
  dg_grid painted = {0};
  const dg_grid *grid = NULL;
  rc = level_tiles(level, &painted, &grid, &x0, &y0);
  if (rc != 0)
    return rc;
  int dx = -x0, dy = -y0;
  dg_writer w = {0};
  put_level_head(&w, level, grid->width, grid->height, x0, y0);
  put(&w, "],\"tilesets\":");
  put_tileset(&w,
              level->progression.placed || level->client_progression_tiles ? DG_TILE_COUNT
                                                                           : DG_TILE_BASE_COUNT,
              level->client_view);
  put(&w, ",\"layers\":[{\"id\":1,\"name\":\"tiles\",\"type\":\"tilelayer\",\"x\":0,\"y\":0,"
          "\"width\":");
  dg_writer_int(&w, grid->width);
  put(&w, ",\"height\":");
  dg_writer_int(&w, grid->height);
  put(&w, ",\"opacity\":1,\"visible\":true,\"data\":[");
  put_data(&w, grid);
  put(&w, "]},{\"id\":2,\"name\":\"objects\",\"type\":\"objectgroup\",\"draworder\":\"index\","
          "\"x\":0,\"y\":0,\"opacity\":1,\"visible\":true,\"objects\":[");
  int count = 0;
  put_objects(&w, level, dx, dy, &count);
  put(&w, "]}");
  if (level->population.filled)
    put_entity_layer(&w, level, dx, dy, 3, &count);
  put(&w, level->population.filled ? "],\"nextlayerid\":4,\"nextobjectid\":"
                                   : "],\"nextlayerid\":3,\"nextobjectid\":");
  dg_writer_int(&w, count + 1);
  put(&w, "}\n");
  dg_grid_close(&painted);
  if (w.failed) {
    free(w.text);
    return DG_ENOMEM;
  }
  *text = w.text;
  if (length != NULL)
    *length = w.length;
  return 0;
}

/* Floor k of a set as a group layer (ids from *next_layer, objects from
 * *next_object): its tiles padded to the set's size, its objects, and its
 * seed and origin as properties. Only floor 1 is visible when the map
 * opens: the floors share one plane, and Tiled's layer panel shows the
 * others. */
static int put_floor_group(dg_writer *w, const dg_level *level, int k, int floors, int width,
                           int height, int *next_layer, int *next_object) {
  int x0, y0;
  dg_grid painted = {0};
  const dg_grid *grid = NULL;
  int rc = level_tiles(level, &painted, &grid, &x0, &y0);
  if (rc != 0)
    return rc;
  const char *visible = k == 0 ? "true" : "false";
  dg_writer_format(w,
                   "%s{\"id\":%d,\"name\":\"floor %d\",\"type\":\"group\",\"x\":0,\"y\":0,"
                   "\"opacity\":1,\"visible\":%s,\"properties\":[",
                   k == 0 ? "" : ",", (*next_layer)++, k + 1, visible);
  put_property(w, true, "floor", "int");
  dg_writer_format(w, "%d}", k + 1);
  put_property(w, false, "of", "int");
  dg_writer_format(w, "%d}", floors);
  put_identity(w, level);
  put_property(w, false, "origin_x", "int");
  dg_writer_format(w, "%d}", x0);
  put_property(w, false, "origin_y", "int");
  dg_writer_format(w, "%d}", y0);
  dg_storeys storeys;
  if ((rc = dg_storeys_open(level, &storeys)) == 0 && storeys.count > 1) {
    /* An authored floor on several storeys: its storeys' groups, as alone. */
    put(w, "],\"layers\":[");
    for (int s = 0; s < storeys.count && rc == 0; s++)
      rc =
          put_storey_group(w, level, &storeys, s, width, height, -x0, -y0, next_layer, next_object);
    put(w, "]}");
    dg_storeys_close(&storeys);
    dg_grid_close(&painted);
    return rc;
  }
  dg_storeys_close(&storeys);
  if (rc != 0) {
    dg_grid_close(&painted);
    return rc;
  }
  dg_writer_format(w,
                   "],\"layers\":[{\"id\":%d,\"name\":\"tiles\",\"type\":\"tilelayer\","
                   "\"x\":0,\"y\":0,\"width\":%d,\"height\":%d,\"opacity\":1,\"visible\":true,"
                   "\"data\":[",
                   (*next_layer)++, width, height);
  put_data_padded(w, grid, width, height);
  dg_writer_format(w,
                   "]},{\"id\":%d,\"name\":\"objects\",\"type\":\"objectgroup\","
                   "\"draworder\":\"index\",\"x\":0,\"y\":0,\"opacity\":1,\"visible\":true,"
                   "\"objects\":[",
                   (*next_layer)++);
  put_objects(w, level, -x0, -y0, next_object);
  put(w, "]}");
  if (level->population.filled)
    put_entity_layer(w, level, -x0, -y0, (*next_layer)++, next_object);
  put(w, "]}");
  dg_grid_close(&painted);
  return 0;
}

int dg_levelset_dump_tiled(dg_level *const *levels, int floors, char **text, size_t *length) {
  if (floors < 1 || floors > DG_FLOORS_MAX)
    return DG_EINVAL;
  int width = 1, height = 1, tiles = DG_TILE_BASE_COUNT;
  for (int k = 0; k < floors; k++) {
    int x0, y0, x1, y1;
    dg_render_extent(levels[k], &x0, &y0, &x1, &y1);
    width = x1 - x0 > width ? x1 - x0 : width;
    height = y1 - y0 > height ? y1 - y0 : height;
    if (levels[k]->progression.placed || levels[k]->client_progression_tiles)
      tiles = DG_TILE_COUNT;
  }
  dg_writer w = {0};
  put_map_head(&w, width, height);
  put_property(&w, true, "format", "string");
  put(&w, "\"" DG_LEVELSET_FORMAT "\"}");
  put_property(&w, false, "algorithm", "string");
  dg_writer_cstring(&w, levels[0]->algorithm->name);
  put(&w, "}");
  put_property(&w, false, "floors", "int");
  dg_writer_format(&w, "%d}", floors);
  if (levels[0]->client_view) {
    put_property(&w, false, "view", "string");
    put(&w, "\"client\"}");
  } else {
    put_property(&w, false, "seed", "string");
    dg_writer_char(&w, '"');
    dg_writer_uint(&w, levels[0]->seed);
    put(&w, "\"}");
  }
  put(&w, "],\"tilesets\":");
  put_tileset(&w, tiles, levels[0]->client_view);
  put(&w, ",\"layers\":[");
  int next_layer = 1, next_object = 0, rc = 0;
  for (int k = 0; k < floors && rc == 0; k++)
    rc = put_floor_group(&w, levels[k], k, floors, width, height, &next_layer, &next_object);
  dg_writer_format(&w, "],\"nextlayerid\":%d,\"nextobjectid\":%d}\n", next_layer, next_object + 1);
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  return dg_writer_take(&w, text, length);
}
