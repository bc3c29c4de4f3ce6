/* The SVG picture and the Tiled export (include/dungeon/render.h): the SVG's
 * tile paths cover exactly the grid's tiles, objects are drawn by kind with a
 * fallback, options do what they say; the Tiled map parses back (jansson)
 * into the structure the Tiled JSON map format defines, with gids that
 * reproduce the grid and objects inside the map; a level's client view
 * hides its secrets in every writer and keeps the full level's level_hash. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

#define CONFIG_DIR TEST_DATA_DIR "/../../config/roomsets/"

static dg_level *make(const dg_context *context, const char *algorithm, uint64_t seed,
                      const char *const *params) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find(algorithm));
  dg_error err = {0};
  for (int i = 0; params != NULL && params[i] != NULL; i += 2)
    cr_assert_eq(dg_request_set_text(&request, params[i], params[i + 1], &err), 0, "%s",
                 err.message);
  cr_assert_eq(dg_request_validate(&request, &err), 0, "%s", err.message);
  request.seed = seed;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(context, &request, NULL, &level, &err), 0, "%s seed %llu: %s", algorithm,
               (unsigned long long)seed, err.message);
  return level;
}

static dg_context *crypt_context(void) {
  dg_context *context = NULL;
  cr_assert_eq(dg_context_new(&context), 0);
  json_error_t error;
  json_t *json = json_load_file(CONFIG_DIR "crypt.json", 0, &error);
  cr_assert_not_null(json, "%s", error.text);
  dg_error err = {0};
  cr_assert_eq(dg_context_add_roomset(context, json, &err), 0, "%s", err.message);
  json_decref(json);
  return context;
}

static char *svg(const dg_level *level, const dg_svg_options *options, size_t *length) {
  char *text = NULL;
  cr_assert_eq(dg_level_dump_svg(level, options, &text, length), 0);
  cr_assert_eq(strlen(text), *length);
  return text;
}

static int count(const char *text, const char *needle) {
  int n = 0;
  for (const char *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
    n++;
  return n;
}

/* Fills `cover` from one tile path's d attribute ("Mx yhWvHHxz" boxes),
 * counting how many boxes cover each cell. */
static void rasterise(const char *d, const char *end, const dg_grid *grid, int *cover) {
  while (d < end) {
    int x, y, w, h, x_again, used = 0;
    cr_assert_eq(sscanf(d, "M%d %dh%dv%dH%dz%n", &x, &y, &w, &h, &x_again, &used), 5,
                 "bad subpath near '%.20s'", d);
    cr_assert_eq(x, x_again);
    cr_assert(w >= 1 && h >= 1 && x >= 0 && y >= 0 && x + w <= grid->width &&
              y + h <= grid->height);
    for (int yy = y; yy < y + h; yy++)
      for (int xx = x; xx < x + w; xx++)
        cover[yy * grid->width + xx]++;
    d += used;
  }
}

/* Every non-stone tile is covered by exactly one box of its own kind's
 * path, stone by none. */
static void check_tiles_match(const dg_level *level, const char *text) {
  const dg_grid *grid = &level->grid;
  long cells = (long)grid->width * grid->height;
  int *cover = calloc((size_t)cells, sizeof *cover);
  for (int tile = 1; tile < DG_TILE_COUNT; tile++) {
    memset(cover, 0, (size_t)cells * sizeof *cover);
    char open[64];
    snprintf(open, sizeof open, "<path class=\"t-%s\" d=\"", dg_tile_name((dg_tile)tile));
    const char *d = strstr(text, open);
    if (d != NULL) {
      d += strlen(open);
      rasterise(d, strchr(d, '"'), grid, cover);
    }
    for (long i = 0; i < cells; i++) {
      int want = grid->tiles[i] == tile ? 1 : 0;
      cr_assert_eq(cover[i], want, "%s at (%ld,%ld): covered %d times, want %d",
                   dg_tile_name((dg_tile)tile), i % grid->width, i / grid->width, cover[i], want);
    }
  }
  free(cover);
}

Test(svg, tiles_cover_the_grid_exactly_and_bytes_repeat) {
  static const char *const algorithms[] = {"classic", "landmark", "nonlinear"};
  for (int a = 0; a < 3; a++)
    for (uint64_t seed = 1; seed <= 6; seed++) {
      dg_level *level = make(NULL, algorithms[a], seed, NULL);
      size_t length = 0, again_length = 0;
      char *text = svg(level, NULL, &length), *again = svg(level, NULL, &again_length);
      cr_assert_eq(length, again_length);
      cr_assert(memcmp(text, again, length) == 0, "%s seed %llu: bytes differ", algorithms[a],
                (unsigned long long)seed);
      cr_assert(strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
      cr_assert(strcmp(text + length - 7, "</svg>\n") == 0);
      check_tiles_match(level, text);
      cr_assert_eq(count(text, "<text class=\"label\""), level->room_count);
      free(text);
      free(again);
      dg_level_free(level);
    }
}

Test(svg, options) {
  dg_level *level =
      make(NULL, "classic", 7, (const char *const[]){"width", "120", "height", "40", NULL});
  dg_svg_options options;
  dg_svg_options_init(&options);
  cr_assert_eq(options.tile_size, DG_SVG_TILE_DEFAULT);
  size_t length;
  char *plain = svg(level, &options, &length);
  cr_assert_eq(count(plain, "<g class=\"graph\">"), 0);
  cr_assert(strstr(plain, "width=\"1440\" height=\"480\" viewBox=\"0 0 120 40\"") != NULL);
  options.graph = true;
  options.labels = false;
  options.tile_size = 4;
  char *graph = svg(level, &options, &length);
  cr_assert(strstr(graph, "width=\"480\" height=\"160\"") != NULL);
  cr_assert_eq(count(graph, "class=\"label\""), 0);
  cr_assert_eq(count(graph, "<circle class=\"n "), level->graph.node_count);
  int cycles = 0;
  for (int e = 0; e < level->graph.edge_count; e++)
    cycles += level->graph.edges[e].cycle;
  cr_assert_eq(count(graph, "<line class=\"e c\""), cycles);
  cr_assert_eq(count(graph, "<line class=\"e"), level->graph.edge_count);
  options.tile_size = 0;
  char *text = NULL;
  cr_assert_eq(dg_level_dump_svg(level, &options, &text, NULL), DG_EINVAL);
  options.tile_size = DG_SVG_TILE_MAX + 1;
  cr_assert_eq(dg_level_dump_svg(level, &options, &text, NULL), DG_EINVAL);
  cr_assert_null(text);
  free(plain);
  free(graph);
  dg_level_free(level);
}

/* A hand-made level with one object of each known kind and one unknown. */
static dg_level *objects_level(void) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  request.seed = 1;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_level_new(&request, &level), 0);
  cr_assert_eq(dg_grid_init(&level->grid, 12, 6), 0);
  level->has_grid = true;
  for (int x = 1; x < 11; x++)
    for (int y = 1; y < 5; y++)
      dg_grid_set(&level->grid, x, y, DG_TILE_FLOOR);
  dg_grid_set(&level->grid, 2, 2, DG_TILE_STAIRS_UP);
  dg_grid_set(&level->grid, 9, 3, DG_TILE_STAIRS_DOWN);
  static const char *const kinds[] = {"chest", "stairs_up", "stairs_down", "spawn", "lever<&>"};
  static const int xs[] = {4, 2, 9, 6, 7};
  for (int i = 0; i < 5; i++) {
    dg_object object = {.x = xs[i], .y = 2 + i % 2, .kind = kinds[i]};
    if (i == 0) {
      object.gold = 12;
      object.item_count = 2;
      object.items[0] = "potion";
      object.items[1] = "ring";
    }
    cr_assert_eq(dg_level_add_object(level, &object), 0);
  }
  dg_room room = {.x = 1, .y = 1, .width = 10, .height = 4, .kind = "room"};
  snprintf(room.label, sizeof room.label, "A&1");
  cr_assert_eq(dg_level_add_room(level, &room, NULL), 0);
  return level;
}

Test(svg, objects_by_kind_with_a_fallback) {
  dg_level *level = objects_level();
  size_t length;
  char *text = svg(level, NULL, &length);
  cr_assert(strstr(text, "class=\"o o-chest\" data-kind=\"chest\"") != NULL);
  cr_assert(strstr(text, "class=\"o o-stairs_up\" data-kind=\"stairs_up\"") != NULL);
  cr_assert(strstr(text, "class=\"o o-stairs_down\" data-kind=\"stairs_down\"") != NULL);
  cr_assert(strstr(text, "<circle class=\"o o-spawn\" data-kind=\"spawn\" cx=\"6.5\" cy=\"3.5\"") !=
            NULL);
  cr_assert(strstr(text, "class=\"o o-other\" data-kind=\"lever&lt;&amp;&gt;\"") != NULL);
  cr_assert(strstr(text, "<path class=\"t-stairs_up\" d=\"M2 2h1v1H2z\"/>") != NULL);
  cr_assert(strstr(text, ">A&amp;1</text>") != NULL);
  free(text);
  dg_level_free(level);
}

/* Placement's features (stairs, spawns) are drawn and exported by kind,
 * with the spawn's player. */
Test(svg, features_by_kind) {
  dg_level *level = make(NULL, "classic", 42, (const char *const[]){"spawns", "3", NULL});
  cr_assert_eq(level->feature_count, 5);
  size_t length;
  char *text = svg(level, NULL, &length);
  cr_assert_eq(count(text, "<path class=\"o o-stairs_up\" data-kind=\"stairs_up\""), 1);
  cr_assert_eq(count(text, "<path class=\"o o-stairs_down\" data-kind=\"stairs_down\""), 1);
  cr_assert_eq(count(text, "<circle class=\"o o-spawn\" data-kind=\"spawn\" data-player="), 3);
  cr_assert(strstr(text, "data-player=\"2\"") != NULL);
  const dg_feature *up = &level->features[0];
  char at[64];
  snprintf(at, sizeof at, "class=\"o o-stairs_up\" data-kind=\"stairs_up\" d=\"M%d.5 %d.1", up->x,
           up->y);
  cr_assert(strstr(text, at) != NULL, "stairs up not at (%d,%d)", up->x, up->y);
  free(text);
  json_t *map = NULL;
  char *tmj = NULL;
  cr_assert_eq(dg_level_dump_tiled(level, &tmj, NULL), 0);
  map = json_loads(tmj, 0, NULL);
  free(tmj);
  json_t *objects = json_object_get(json_array_get(json_object_get(map, "layers"), 1), "objects");
  size_t first = (size_t)(level->room_count + level->door_count + level->object_count);
  static const char *const kinds[] = {"stairs_up", "stairs_down", "spawn", "spawn", "spawn"};
  for (size_t i = 0; i < 5; i++) {
    json_t *object = json_array_get(objects, first + i);
    cr_assert_str_eq(json_string_value(json_object_get(object, "type")), kinds[i]);
    cr_assert(json_is_true(json_object_get(object, "point")));
    cr_assert_eq(json_integer_value(json_object_get(object, "x")),
                 level->features[i].x * DG_TILED_TILE_SIZE + DG_TILED_TILE_SIZE / 2);
  }
  cr_assert_str_eq(json_string_value(json_object_get(json_array_get(objects, first + 4), "name")),
                   "spawn 2");
  json_decref(map);
  dg_level_free(level);
}

Test(svg, gridless_levels_draw_room_boxes_and_the_graph) {
  dg_context *context = crypt_context();
  dg_level *level =
      make(context, "authored", 4,
           (const char *const[]){"roomset", "crypt", "rooms", "30", "grid", "false", NULL});
  cr_assert(!level->has_grid);
  size_t length;
  char *text = svg(level, NULL, &length);
  const char *floor = strstr(text, "<path class=\"t-floor\" d=\"");
  cr_assert_not_null(floor);
  int boxes = 0;
  for (const char *at = floor + strlen("<path class=\"t-floor\" d=\""); *at != '"'; at++)
    boxes += *at == 'M';
  cr_assert_eq(boxes, level->room_count);
  cr_assert_eq(count(text, "<circle class=\"n "), level->graph.node_count);
  cr_assert_eq(count(text, "<line class=\"e"), level->graph.edge_count);
  free(text);
  dg_level_free(level);
  dg_context_free(context);
}

Test(svg, a_1000x1000_level_stays_smaller_than_its_json) {
  dg_level *level =
      make(NULL, "landmark", 3, (const char *const[]){"width", "1000", "height", "1000", NULL});
  size_t svg_length = 0, json_length = 0;
  char *picture = svg(level, NULL, &svg_length), *json = NULL;
  cr_assert_eq(dg_level_dump_json(level, &json, &json_length), 0);
  cr_assert(svg_length < json_length, "svg %zu bytes, json %zu", svg_length, json_length);
  check_tiles_match(level, picture);
  free(picture);
  free(json);
  dg_level_free(level);
}

/* The Tiled JSON map format's required structure, checked member by
 * member; returns the parsed map (new reference). */
static json_t *check_tiled(const dg_level *level, int expect_width, int expect_height) {
  char *text = NULL;
  size_t length = 0;
  cr_assert_eq(dg_level_dump_tiled(level, &text, &length), 0);
  json_error_t error;
  json_t *map = json_loadb(text, length, JSON_REJECT_DUPLICATES, &error);
  cr_assert_not_null(map, "not JSON: %s at %d", error.text, error.position);
  char *again = NULL;
  size_t again_length = 0;
  cr_assert_eq(dg_level_dump_tiled(level, &again, &again_length), 0);
  cr_assert(again_length == length && memcmp(text, again, length) == 0, "bytes differ");
  free(text);
  free(again);
  cr_assert_str_eq(json_string_value(json_object_get(map, "type")), "map");
  cr_assert_str_eq(json_string_value(json_object_get(map, "orientation")), "orthogonal");
  cr_assert_str_eq(json_string_value(json_object_get(map, "renderorder")), "right-down");
  cr_assert(json_is_false(json_object_get(map, "infinite")));
  cr_assert(json_is_string(json_object_get(map, "version")));
  json_int_t width = json_integer_value(json_object_get(map, "width"));
  json_int_t height = json_integer_value(json_object_get(map, "height"));
  json_int_t tile_width = json_integer_value(json_object_get(map, "tilewidth"));
  json_int_t tile_height = json_integer_value(json_object_get(map, "tileheight"));
  cr_assert_eq(width, expect_width);
  cr_assert_eq(height, expect_height);
  cr_assert_eq(tile_width, DG_TILED_TILE_SIZE);
  cr_assert_eq(tile_height, DG_TILED_TILE_SIZE);
  json_t *tilesets = json_object_get(map, "tilesets");
  cr_assert_eq(json_array_size(tilesets), 1);
  json_t *tileset = json_array_get(tilesets, 0);
  json_int_t first_gid = json_integer_value(json_object_get(tileset, "firstgid"));
  json_int_t tile_count = json_integer_value(json_object_get(tileset, "tilecount"));
  cr_assert_eq(first_gid, 1);
  /* The progression pass's tiles are in the tileset only when it ran. */
  bool progression = tile_count == DG_TILE_COUNT;
  cr_assert(progression || tile_count == DG_TILE_BASE_COUNT, "tilecount %d", (int)tile_count);
  cr_assert_eq(json_integer_value(json_object_get(tileset, "columns")) *
                   json_integer_value(json_object_get(tileset, "tilewidth")),
               json_integer_value(json_object_get(tileset, "imagewidth")));
  cr_assert_str_eq(json_string_value(json_object_get(tileset, "image")),
                   progression ? DG_TILED_TILESET_IMAGE_PROGRESSION : DG_TILED_TILESET_IMAGE);
  json_t *tiles = json_object_get(tileset, "tiles");
  cr_assert_eq((json_int_t)json_array_size(tiles), tile_count);
  for (int t = 0; t < tile_count; t++) {
    json_t *tile = json_array_get(tiles, (size_t)t);
    cr_assert_eq(json_integer_value(json_object_get(tile, "id")), t);
    cr_assert_str_eq(json_string_value(json_object_get(tile, "type")), dg_tile_name((dg_tile)t));
  }
  json_t *layers = json_object_get(map, "layers");
  cr_assert_eq(json_array_size(layers), 2);
  json_t *tile_layer = json_array_get(layers, 0), *object_layer = json_array_get(layers, 1);
  cr_assert_str_eq(json_string_value(json_object_get(tile_layer, "type")), "tilelayer");
  cr_assert_eq(json_integer_value(json_object_get(tile_layer, "width")), width);
  cr_assert_eq(json_integer_value(json_object_get(tile_layer, "height")), height);
  json_t *data = json_object_get(tile_layer, "data");
  cr_assert_eq((json_int_t)json_array_size(data), width * height);
  size_t i;
  json_t *gid;
  json_array_foreach(data, i, gid) {
    json_int_t value = json_integer_value(gid);
    cr_assert(value >= first_gid && value < first_gid + tile_count, "gid %lld at %zu",
              (long long)value, i);
    if (level->has_grid)
      cr_assert_eq(value - first_gid, level->grid.tiles[i]);
  }
  cr_assert_str_eq(json_string_value(json_object_get(object_layer, "type")), "objectgroup");
  json_t *objects = json_object_get(object_layer, "objects");
  json_int_t next_id = json_integer_value(json_object_get(map, "nextobjectid"));
  cr_assert_eq((json_int_t)json_array_size(objects),
               level->room_count + level->door_count + level->object_count + level->feature_count);
  json_t *object;
  json_array_foreach(objects, i, object) {
    json_int_t id = json_integer_value(json_object_get(object, "id"));
    cr_assert_eq(id, (json_int_t)i + 1, "object ids run from 1");
    cr_assert(id < next_id);
    double x = json_number_value(json_object_get(object, "x"));
    double y = json_number_value(json_object_get(object, "y"));
    double w = json_number_value(json_object_get(object, "width"));
    double h = json_number_value(json_object_get(object, "height"));
    cr_assert(x >= 0 && y >= 0 && x + w <= width * tile_width && y + h <= height * tile_height,
              "object %lld outside the map", (long long)id);
    cr_assert(json_is_string(json_object_get(object, "type")));
    cr_assert(json_is_array(json_object_get(object, "properties")));
    bool point = json_is_true(json_object_get(object, "point"));
    cr_assert(point == (i >= (size_t)(level->room_count + level->door_count)));
  }
  return map;
}

Test(tiled, maps_parse_back_into_the_tiled_structure) {
  static const char *const algorithms[] = {"classic", "landmark", "nonlinear"};
  for (int a = 0; a < 3; a++)
    for (uint64_t seed = 1; seed <= 4; seed++) {
      dg_level *level = make(NULL, algorithms[a], seed, NULL);
      json_t *map = check_tiled(level, level->grid.width, level->grid.height);
      json_t *rooms = json_object_get(json_array_get(json_object_get(map, "layers"), 1), "objects");
      json_t *first = json_array_get(rooms, 0);
      cr_assert_str_eq(json_string_value(json_object_get(first, "type")), "room");
      cr_assert_eq(json_integer_value(json_object_get(first, "x")),
                   level->rooms[0].x * DG_TILED_TILE_SIZE);
      cr_assert_eq(json_integer_value(json_object_get(first, "width")),
                   level->rooms[0].width * DG_TILED_TILE_SIZE);
      json_decref(map);
      dg_level_free(level);
    }
}

Test(tiled, objects_carry_their_kind_as_type) {
  dg_level *level = objects_level();
  json_t *map = check_tiled(level, 12, 6);
  json_t *objects = json_object_get(json_array_get(json_object_get(map, "layers"), 1), "objects");
  static const char *const types[] = {"room",        "chest", "stairs_up",
                                      "stairs_down", "spawn", "lever<&>"};
  for (size_t i = 0; i < 6; i++)
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(objects, i), "type")),
                     types[i]);
  json_t *chest = json_array_get(objects, 1);
  cr_assert_eq(json_integer_value(json_object_get(chest, "x")), 4 * 16 + 8);
  json_t *properties = json_object_get(chest, "properties");
  size_t i;
  json_t *property;
  bool contents = false;
  json_array_foreach(properties, i, property) {
    if (strcmp(json_string_value(json_object_get(property, "name")), "contents") == 0) {
      cr_assert_str_eq(json_string_value(json_object_get(property, "value")), "potion,ring");
      contents = true;
    }
  }
  cr_assert(contents);
  json_decref(map);
  dg_level_free(level);
}

Test(tiled, gridless_levels_get_a_painted_tile_layer) {
  dg_context *context = crypt_context();
  dg_level *level =
      make(context, "authored", 4,
           (const char *const[]){"roomset", "crypt", "rooms", "30", "grid", "false", NULL});
  int x0 = 0, y0 = 0, x1 = 1, y1 = 1;
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *r = &level->rooms[i];
    x0 = r->x - 1 < x0 ? r->x - 1 : x0;
    y0 = r->y - 1 < y0 ? r->y - 1 : y0;
    x1 = r->x + r->width + 1 > x1 ? r->x + r->width + 1 : x1;
    y1 = r->y + r->height + 1 > y1 ? r->y + r->height + 1 : y1;
  }
  /* Its rooms stand on several storeys: the storey groups' tile layers
   * are painted, the start room's (the visible group's) among them. */
  char *text = NULL;
  cr_assert_eq(dg_level_dump_tiled(level, &text, NULL), 0);
  json_t *map = json_loads(text, 0, NULL);
  free(text);
  cr_assert_not_null(map);
  cr_assert_eq(json_integer_value(json_object_get(map, "width")), x1 - x0);
  cr_assert_eq(json_integer_value(json_object_get(map, "height")), y1 - y0);
  json_t *group = NULL, *layer;
  size_t i;
  json_array_foreach(json_object_get(map, "layers"), i, layer) {
    if (json_is_true(json_object_get(layer, "visible")))
      group = layer;
  }
  cr_assert_not_null(group);
  json_t *data = json_object_get(json_array_get(json_object_get(group, "layers"), 0), "data");
  cr_assert_eq(json_array_size(data), (size_t)((x1 - x0) * (y1 - y0)));
  const dg_room *room = &level->rooms[0];
  json_int_t floor = json_integer_value(
      json_array_get(data, (size_t)((room->y - y0) * (x1 - x0) + (room->x - x0))));
  cr_assert_eq(floor, 1 + DG_TILE_FLOOR);
  json_decref(map);
  dg_level_free(level);
  dg_context_free(context);
}

/* The client view (dg_level_client_view, docs/level-format.md "The client
 * view"): secret doors become wall, secret corridors stone, keys vanish,
 * its level_hash is the full level's, and every writer renders it. */
Test(client_view, hides_secrets_and_keeps_the_full_level_hash) {
  const char *params[] = {"secret_door_chance",
                          "0.5",
                          "closet_chance",
                          "0.6",
                          "locks",
                          "2",
                          "population",
                          "true",
                          NULL};
  int secret_doors = 0;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    dg_level *full = make(NULL, "classic", seed, params);
    dg_level *client = NULL;
    cr_assert_eq(dg_level_client_view(full, NULL, &client), 0);
    char hash[DG_LEVEL_HASH_SIZE];
    cr_assert_eq(dg_level_hash(full, NULL, hash), 0);
    cr_assert_str_eq(client->level_hash, hash);
    cr_assert(client->client_view);
    cr_assert_eq(client->seed, 0);
    for (int y = 0; y < full->grid.height; y++)
      for (int x = 0; x < full->grid.width; x++) {
        dg_tile before = dg_grid_get(&full->grid, x, y), after = dg_grid_get(&client->grid, x, y);
        cr_assert(after != DG_TILE_SECRET_DOOR && after != DG_TILE_SECRET_CORRIDOR &&
                  after != DG_TILE_KEY);
        if (before == DG_TILE_SECRET_DOOR) {
          cr_assert_eq(after, DG_TILE_WALL, "seed %llu (%d, %d)", (unsigned long long)seed, x, y);
          secret_doors++;
        }
        if (before == DG_TILE_SECRET_CORRIDOR)
          cr_assert_eq(after, DG_TILE_STONE);
      }
    for (int i = 0; i < client->feature_count; i++)
      cr_assert_str_neq(client->features[i].kind, "key");
    for (int i = 0; i < client->door_count; i++)
      cr_assert(!client->doors[i].secret);
    char *text = NULL;
    size_t length = 0;
    cr_assert_eq(dg_level_dump_json(client, &text, &length), 0);
    cr_assert_null(strstr(text, "\"seed\""));
    cr_assert_null(strstr(text, "secret"));
    cr_assert_null(strstr(text, "\"population\""));
    free(text);
    cr_assert_eq(dg_level_dump_ascii(client, &text, &length), 0);
    cr_assert_null(strpbrk(text, "S=k"));
    free(text);
    cr_assert_eq(dg_level_dump_svg(client, NULL, &text, &length), 0);
    cr_assert_null(strstr(text, "secret"));
    cr_assert_not_null(strstr(text, hash));
    free(text);
    cr_assert_eq(dg_level_dump_tiled(client, &text, &length), 0);
    cr_assert_null(strstr(text, "secret"));
    cr_assert_not_null(strstr(text, hash));
    free(text);
    dg_level_free(client);
    dg_level_free(full);
  }
  cr_assert_gt(secret_doors, 20, "too few secret doors to check: %d", secret_doors);
}

Test(client_view, views_parse_and_apply) {
  dg_view view = DG_VIEW_DEFAULT;
  cr_assert_eq(dg_view_parse("client", &view), 0);
  cr_assert_eq(view, DG_VIEW_CLIENT);
  cr_assert_eq(dg_view_parse("full", &view), 0);
  cr_assert_eq(view, DG_VIEW_FULL);
  cr_assert_eq(dg_view_parse("server", &view), DG_EINVAL);
  cr_assert_eq(dg_view_parse(NULL, &view), DG_EINVAL);
  dg_level *level = make(NULL, "landmark", 3, NULL);
  cr_assert_eq(dg_level_apply_view(&level, DG_VIEW_DEFAULT, NULL), 0);
  cr_assert_eq(level->level_hash[0], '\0');
  cr_assert_eq(dg_level_apply_view(&level, DG_VIEW_FULL, NULL), 0);
  cr_assert_eq(strncmp(level->level_hash, "sha256:", 7), 0);
  char hash[DG_LEVEL_HASH_SIZE];
  memcpy(hash, level->level_hash, sizeof hash);
  cr_assert_eq(dg_level_apply_view(&level, DG_VIEW_CLIENT, NULL), 0);
  cr_assert(level->client_view);
  cr_assert_str_eq(level->level_hash, hash);
  dg_level_free(level);
}

/* ---- authored levels by storey (docs/pictures.md) ---------------------- */

static dg_level *crypt_level(dg_context **context) {
  *context = crypt_context();
  return make(*context, "authored", 1,
              (const char *const[]){"roomset", "crypt", "rooms", "30", NULL});
}

static char *svg_storey(const dg_level *level, const char *storey, int expect) {
  dg_svg_options options;
  dg_svg_options_init(&options);
  cr_assert_eq(dg_svg_storey_parse(storey, &options), 0, "%s", storey);
  char *text = NULL;
  cr_assert_eq(dg_level_dump_svg(level, &options, &text, NULL), expect, "storey %s", storey);
  return text;
}

Test(storeys, the_option_parses_heights_all_and_flat) {
  dg_svg_options options;
  dg_svg_options_init(&options);
  cr_assert_eq(options.storeys, DG_SVG_STOREYS_FLAT);
  cr_assert_eq(dg_svg_storey_parse("-8", &options), 0);
  cr_assert(options.storeys == DG_SVG_STOREYS_ONE && options.storey == -8);
  cr_assert_eq(dg_svg_storey_parse("all", &options), 0);
  cr_assert_eq(options.storeys, DG_SVG_STOREYS_ALL);
  cr_assert_eq(dg_svg_storey_parse("flat", &options), 0);
  cr_assert_eq(options.storeys, DG_SVG_STOREYS_FLAT);
  const char *bad[] = {"", "up", "4x", "1e3", "99999999999", "-1000001"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(dg_svg_storey_parse(bad[i], &options), DG_EINVAL, "'%s'", bad[i]);
  cr_assert_eq(options.storeys, DG_SVG_STOREYS_FLAT, "a refused text changes nothing");
}

/* Each storey alone: its data-storey, stairs only to storeys that exist
 * (none up from the top, none down from the bottom); all of them side by
 * side with their captions; a storey the level lacks refused, naming the
 * ones it has; the flattened picture unchanged by default. */
Test(storeys, svg_one_storey_all_side_by_side_and_refusals) {
  dg_context *context = NULL;
  dg_level *level = crypt_level(&context);
  int storeys[16], n = 0;
  cr_assert_eq(dg_level_storeys(level, storeys, 16, &n), 0);
  cr_assert_eq(n, 4, "crypt seed 1 stands on %d storeys", n);
  cr_assert(storeys[0] == -8 && storeys[1] == 0 && storeys[2] == 4 && storeys[3] == 8);
  char *flat = NULL, *explicit_flat = svg_storey(level, "flat", 0);
  cr_assert_eq(dg_level_dump_svg(level, NULL, &flat, NULL), 0);
  cr_assert_str_eq(flat, explicit_flat);
  cr_assert_null(strstr(flat, "data-storey"));
  int marks = 0;
  for (int k = 0; k < n; k++) {
    char storey[16], want[32];
    snprintf(storey, sizeof storey, "%d", storeys[k]);
    snprintf(want, sizeof want, "data-storey=\"%d\"", storeys[k]);
    char *text = svg_storey(level, storey, 0);
    cr_assert_not_null(strstr(text, want));
    cr_assert_not_null(strstr(text, "<path class=\"ghost\" d=\"M"), "other storeys outlined");
    cr_assert_null(strstr(text, "s-corridor"), "no carved corridor, no corridor path");
    if (k == n - 1)
      cr_assert_eq(count(text, "<path class=\"up\""), 0, "stairs up from the top storey");
    if (k == 0)
      cr_assert_eq(count(text, "<path class=\"down\""), 0, "stairs down from the bottom");
    marks += count(text, "<path class=\"up\"") + count(text, "<path class=\"down\"");
    free(text);
  }
  cr_assert_gt(marks, 0, "no staircase drawn on any storey");
  char *all = svg_storey(level, "all", 0);
  cr_assert_eq(count(all, "<svg x="), n);
  cr_assert_not_null(strstr(all, ">y = -8</text>"));
  cr_assert_not_null(strstr(all, ">y = 8</text>"));
  char *none = svg_storey(level, "3", DG_EINVAL);
  cr_assert_null(none);
  dg_svg_options options;
  dg_svg_options_init(&options);
  dg_svg_storey_parse("3", &options);
  dg_error err = {0};
  cr_assert_eq(dg_svg_check_storey(level, &options, &err), DG_EINVAL);
  cr_assert_str_eq(err.field, "storey");
  cr_assert_not_null(strstr(err.message, "-8, 0, 4 and 8"), "%s", err.message);
  free(flat);
  free(explicit_flat);
  free(all);
  dg_level_free(level);
  dg_context_free(context);
}

/* ---- carved corridors by storey ---- */

/* A crypt level whose one carved corridor climbs from storey 0 through 4
 * to 8 (cycles=corridors, seed 1), and its corridor blocks as the level
 * JSON gives them (connections[].path, where a walker's feet are: the
 * floor is one below), moved to grid tiles. */
typedef struct corridor_block {
  int x, y, floor;
  bool end; /* a doorway, drawn as a door */
} corridor_block;

static dg_level *corridor_level(dg_context **context, corridor_block *blocks, int capacity,
                                int *n) {
  *context = crypt_context();
  dg_level *level =
      make(*context, "authored", 1,
           (const char *const[]){"roomset", "crypt", "rooms", "30", "cycles", "corridors", NULL});
  char *text = NULL;
  cr_assert_eq(dg_level_dump_json(level, &text, NULL), 0);
  json_t *json = json_loads(text, 0, NULL);
  free(text);
  cr_assert_not_null(json);
  /* Room 0 is the one-box entrance hall: its rectangle is its box inside
   * the walls. */
  json_t *at = json_object_get(
      json_array_get(
          json_object_get(json_array_get(json_object_get(json, "placements"), 0), "boxes"), 0),
      "at");
  json_t *room = json_array_get(json_object_get(json, "rooms"), 0);
  int ox = (int)json_integer_value(json_array_get(at, 0)) -
           ((int)json_integer_value(json_object_get(room, "x")) - 1);
  int oz = (int)json_integer_value(json_array_get(at, 2)) -
           ((int)json_integer_value(json_object_get(room, "y")) - 1);
  *n = 0;
  size_t i, k;
  json_t *connection, *block;
  json_array_foreach(json_object_get(json, "connections"), i, connection) {
    json_t *path = json_object_get(connection, "path");
    json_array_foreach(path, k, block) {
      cr_assert_lt(*n, capacity);
      blocks[(*n)++] = (corridor_block){(int)json_integer_value(json_array_get(block, 0)) - ox,
                                        (int)json_integer_value(json_array_get(block, 2)) - oz,
                                        (int)json_integer_value(json_array_get(block, 1)) - 1,
                                        k == 0 || k + 1 == json_array_size(path)};
    }
  }
  json_decref(json);
  cr_assert_gt(*n, 0, "no carved corridor");
  return level;
}

/* The d attribute of `text`'s path of class `class`, or "". */
static void path_data(const char *text, const char *class, char *d, size_t size) {
  char open[48];
  snprintf(open, sizeof open, "<path class=\"%s\" d=\"", class);
  const char *from = strstr(text, open);
  d[0] = '\0';
  if (from == NULL)
    return;
  from += strlen(open);
  size_t length = (size_t)(strchr(from, '"') - from);
  snprintf(d, size, "%.*s", (int)(length < size ? length : size - 1), from);
}

/* Each storey draws the corridor tiles whose floor is that storey, and a
 * stair's steps (floors between two storeys) on both; where it climbs off
 * a storey a triangle names the storey it reaches. */
Test(storeys, carved_corridors_on_the_storeys_they_touch) {
  dg_context *context = NULL;
  corridor_block blocks[256];
  int n = 0;
  dg_level *level = corridor_level(&context, blocks, 256, &n);
  int storeys[16], count_storeys = 0;
  cr_assert_eq(dg_level_storeys(level, storeys, 16, &count_storeys), 0);
  int floors = 0, steps = 0, climbs = 0;
  for (int k = 0; k < count_storeys; k++) {
    char storey[16];
    snprintf(storey, sizeof storey, "%d", storeys[k]);
    char *text = svg_storey(level, storey, 0);
    static char corridor[16384], stairs[16384];
    path_data(text, "s-corridor", corridor, sizeof corridor);
    path_data(text, "c-stairs", stairs, sizeof stairs);
    int below = k > 0 ? storeys[k - 1] : INT_MIN;
    int above = k + 1 < count_storeys ? storeys[k + 1] : INT_MAX;
    for (int i = 0; i < n; i++) {
      char box[64];
      snprintf(box, sizeof box, "M%d %dh1v1H%dz", blocks[i].x, blocks[i].y, blocks[i].x);
      int f = blocks[i].floor;
      if (f == storeys[k]) {
        cr_assert_not_null(strstr(corridor, box), "storey %s lacks corridor tile %s", storey, box);
        floors++;
      } else if ((f > storeys[k] && f < above) || (f < storeys[k] && f > below)) {
        cr_assert_not_null(strstr(stairs, box), "storey %s lacks stair step %s", storey, box);
        steps++;
      }
    }
    climbs += count(text, "data-corridor=");
    free(text);
  }
  cr_assert_gt(floors, 0);
  cr_assert_gt(steps, 0);
  /* 0 -> 4 -> 8: up from 0, down and up from 4, down from 8. */
  cr_assert_eq(climbs, 4);
  char *all = svg_storey(level, "all", 0);
  cr_assert_eq(count(all, "<path class=\"s-corridor\""), count_storeys);
  free(all);
  dg_level_free(level);
  dg_context_free(context);
}

/* Tiled: each storey group paints the corridor tiles on its storey, and
 * the corridor's climbs are "stairs" objects naming the corridor. */
Test(tiled, authored_storey_groups_hold_the_carved_corridors) {
  dg_context *context = NULL;
  corridor_block blocks[256];
  int n = 0;
  dg_level *level = corridor_level(&context, blocks, 256, &n);
  char *text = NULL;
  cr_assert_eq(dg_level_dump_tiled(level, &text, NULL), 0);
  json_t *map = json_loads(text, 0, NULL);
  free(text);
  cr_assert_not_null(map);
  int width = (int)json_integer_value(json_object_get(map, "width"));
  int corridor = 0, climbs = 0;
  size_t k;
  json_t *group;
  json_array_foreach(json_object_get(map, "layers"), k, group) {
    int storey = 0;
    sscanf(json_string_value(json_object_get(group, "name")), "y = %d", &storey);
    json_t *layers = json_object_get(group, "layers");
    json_t *data = json_object_get(json_array_get(layers, 0), "data");
    for (int i = 0; i < n; i++) {
      if (blocks[i].floor != storey || blocks[i].end)
        continue;
      json_int_t gid =
          json_integer_value(json_array_get(data, (size_t)(blocks[i].y * width + blocks[i].x)));
      cr_assert(gid == 1 + DG_TILE_CORRIDOR || gid == 1 + DG_TILE_STAIRS_UP ||
                    gid == 1 + DG_TILE_STAIRS_DOWN,
                "y = %d: tile %d,%d is %d", storey, blocks[i].x, blocks[i].y, (int)gid);
      corridor += gid == 1 + DG_TILE_CORRIDOR;
    }
    size_t i;
    json_t *object;
    json_array_foreach(json_object_get(json_array_get(layers, 1), "objects"), i, object) {
      json_t *property;
      size_t p;
      json_array_foreach(json_object_get(object, "properties"), p, property) {
        climbs += strcmp(json_string_value(json_object_get(property, "name")), "corridor") == 0;
      }
    }
  }
  cr_assert_gt(corridor, 0);
  cr_assert_eq(climbs, 4);
  json_decref(map);
  dg_level_free(level);
  dg_context_free(context);
}

/* A level without a storey plan is the one storey 0: 0 and all draw the
 * usual picture, any other storey is refused. */
Test(storeys, other_levels_are_the_one_storey_zero) {
  dg_level *level = make(NULL, "classic", 1, NULL);
  int storeys[4], n = 0;
  cr_assert_eq(dg_level_storeys(level, storeys, 4, &n), 0);
  cr_assert(n == 1 && storeys[0] == 0);
  char *flat = NULL, *all = svg_storey(level, "all", 0), *zero = svg_storey(level, "0", 0);
  cr_assert_eq(dg_level_dump_svg(level, NULL, &flat, NULL), 0);
  cr_assert_str_eq(all, flat);
  cr_assert_not_null(strstr(zero, "data-storey=\"0\""));
  cr_assert_null(svg_storey(level, "4", DG_EINVAL));
  free(flat);
  free(all);
  free(zero);
  dg_level_free(level);
}

/* At a hundred rooms and more: no two labels' boxes overlap (the same
 * estimate as the renderer's: 0.7 tile a character, 1.4 a line) and the
 * graph is the tree plus the cycle chains, nothing dashed. */
Test(storeys, labels_do_not_overlap_and_the_graph_is_tree_plus_chains) {
  dg_context *context = crypt_context();
  dg_level *level =
      make(context, "authored", 2, (const char *const[]){"roomset", "crypt", "rooms", "150", NULL});
  dg_svg_options options;
  dg_svg_options_init(&options);
  options.graph = true;
  size_t length = 0;
  char *text = svg(level, &options, &length);
  double boxes[1024][4];
  int labels = 0;
  for (const char *at = strstr(text, "<text class=\"label\" x=\""); at != NULL && labels < 1024;
       at = strstr(at + 1, "<text class=\"label\" x=\"")) {
    double x = 0, y = 0;
    cr_assert_eq(sscanf(at, "<text class=\"label\" x=\"%lf\" y=\"%lf\"", &x, &y), 2);
    const char *open = strchr(at, '>') + 1;
    double half = (double)(strchr(open, '<') - open) * 0.35 + 0.2;
    boxes[labels][0] = x - half;
    boxes[labels][1] = y - 0.7;
    boxes[labels][2] = x + half;
    boxes[labels][3] = y + 0.7;
    for (int k = 0; k < labels; k++)
      cr_assert(boxes[k][0] >= boxes[labels][2] || boxes[labels][0] >= boxes[k][2] ||
                    boxes[k][1] >= boxes[labels][3] || boxes[labels][1] >= boxes[k][3],
                "labels %d and %d overlap", k, labels);
    labels++;
  }
  cr_assert_gt(labels, 30, "only %d labels", labels);
  int chains = 0;
  for (int e = 0; e < level->graph.edge_count; e++)
    chains += strcmp(level->graph.edges[e].kind, "chain") == 0 ||
              strcmp(level->graph.edges[e].kind, "corridor") == 0;
  cr_assert_gt(chains, 0);
  cr_assert_eq(count(text, "<line class=\"e ch\""), chains);
  cr_assert_eq(count(text, "<line class=\"e\""), level->graph.edge_count - chains);
  cr_assert_eq(count(text, "<line class=\"e c\""), 0, "dashed cycle edges");
  free(text);
  dg_level_free(level);
  dg_context_free(context);
}

/* Tiled: one group per storey ("y = N", property storey), each with its
 * tiles and objects; stairs objects name a storey that exists and is not
 * their own; only one group visible; object ids run on across groups. */
Test(tiled, authored_storeys_are_groups) {
  dg_context *context = NULL;
  dg_level *level = crypt_level(&context);
  char *text = NULL;
  cr_assert_eq(dg_level_dump_tiled(level, &text, NULL), 0);
  json_error_t error;
  json_t *map = json_loads(text, 0, &error);
  cr_assert_not_null(map, "%s", error.text);
  json_t *groups = json_object_get(map, "layers");
  const int heights[] = {-8, 0, 4, 8};
  cr_assert_eq(json_array_size(groups), 4);
  int visible = 0, stairs = 0, next_id = 1;
  for (size_t k = 0; k < 4; k++) {
    json_t *group = json_array_get(groups, k);
    char name[16];
    snprintf(name, sizeof name, "y = %d", heights[k]);
    cr_assert_str_eq(json_string_value(json_object_get(group, "type")), "group");
    cr_assert_str_eq(json_string_value(json_object_get(group, "name")), name);
    visible += json_is_true(json_object_get(group, "visible"));
    json_t *layers = json_object_get(group, "layers");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(layers, 0), "name")),
                     "tiles");
    json_t *objects = json_object_get(json_array_get(layers, 1), "objects");
    cr_assert_gt(json_array_size(objects), 0);
    size_t i;
    json_t *object;
    json_array_foreach(objects, i, object) {
      cr_assert_eq(json_integer_value(json_object_get(object, "id")), next_id++);
      if (strcmp(json_string_value(json_object_get(object, "type")), "stairs") != 0)
        continue;
      stairs++;
      json_t *property;
      size_t p;
      int to = heights[k];
      json_array_foreach(json_object_get(object, "properties"), p,
                         property) if (strcmp(json_string_value(json_object_get(property, "name")),
                                              "to_storey") == 0) to =
          (int)json_integer_value(json_object_get(property, "value"));
      cr_assert(to != heights[k] && (to == -8 || to == 0 || to == 4 || to == 8), "to %d", to);
    }
  }
  cr_assert_eq(visible, 1);
  cr_assert_gt(stairs, 0);
  json_decref(map);
  free(text);
  dg_level_free(level);
  dg_context_free(context);
}
