/* The SVG picture of a level (include/dungeon/render.h, docs/pictures.md).
 *
 * Everything is drawn in tile units: the viewBox is the map, and the
 * width/height attributes scale it to `tile_size` pixels per tile, so a
 * coordinate is a small integer (or tenths for markers) and the bytes do not
 * depend on floating-point formatting. Tiles become one <path> per tile kind
 * whose subpaths are each row's runs of that kind: a 1000x1000 map with a
 * few runs per row stays a few MB where one <rect> per tile would be tens.
 * Colours live in one <style> block so that a page embedding the picture can
 * restyle it; every class is listed in docs/pictures.md. */
#include <stdlib.h>
#include <string.h>

#include "core/writer.h"
#include "dungeon/render.h"
#include "render_internal.h"

/* Marker shapes for the object kinds the renderer knows; any other kind
 * gets the "other" diamond so that new kinds show up without a change here. */
typedef enum marker { MARK_BOX, MARK_UP, MARK_DOWN, MARK_DOT, MARK_DIAMOND } marker;

static const struct {
  const char *kind;
  marker shape;
} known_objects[] = {
    {"chest", MARK_BOX},
    {"stairs_up", MARK_UP},
    {"stairs_down", MARK_DOWN},
    {"spawn", MARK_DOT},
};

/* The style's parts: a client view's leaves out the secret tiles' classes
 * (a picture naming them would say what its map hides). */
#define STYLE_HEAD                                                                                 \
  "<style>"                                                                                        \
  ".bg{fill:#16161d}"                                                                              \
  ".t-floor{fill:#d8cfbd}.t-corridor,.t-chest{fill:#9b9183}.t-wall{fill:#5b4b3f}"                  \
  ".t-door{fill:#b0672a}"
#define STYLE_SECRETS ".t-secret_door{fill:#8e44ad}.t-secret_corridor{fill:#7d6f96}"
#define STYLE_TAIL                                                                                 \
  ".t-stairs_up{fill:#9fd8a8}.t-stairs_down{fill:#e8a99e}.t-void{fill:#0b0b0f}"                    \
  ".o{stroke:#111;stroke-width:.08}.o-chest{fill:#e6b422}.o-stairs_up{fill:#2e8b57}"               \
  ".o-stairs_down{fill:#c0392b}.o-spawn{fill:#2e86de}.o-other{fill:#ff00ff}"                       \
  ".label{font:1.2px sans-serif;fill:#1d1d1d;stroke:#fff;stroke-width:.25;paint-order:stroke;"     \
  "text-anchor:middle;dominant-baseline:central}"                                                  \
  ".e{stroke:#1f77b4;stroke-width:.2;stroke-opacity:.85}"                                          \
  ".e.c{stroke:#e67e22;stroke-dasharray:.6 .35}"                                                   \
  ".n{fill:#1f77b4;stroke:#fff;stroke-width:.08}.n-junction{fill:#7f8c8d}"                         \
  ".n-dead_end{fill:#95a5a6}"                                                                      \
  "</style>"

static const char style[] = STYLE_HEAD STYLE_SECRETS STYLE_TAIL;
static const char client_style[] = STYLE_HEAD STYLE_TAIL;

/* Added only to a level the progression pass ran on, so that other
 * pictures keep their bytes: its tiles, one colour per key id (keys and
 * their locked doors share it, eight colours in turn), one-way arrows. */
static const char progression_style[] =
    "<style>"
    ".t-locked_door{fill:#7b241c}.t-key{fill:#d8cfbd}"
    ".t-one_way_north,.t-one_way_east,.t-one_way_south,.t-one_way_west{fill:#b0672a}"
    ".key{stroke:#111;stroke-width:.08}.lock{stroke:#111;stroke-width:.12;fill-opacity:.9}"
    ".k0{fill:#e6194b}.k1{fill:#3cb44b}.k2{fill:#4363d8}.k3{fill:#f58231}.k4{fill:#911eb4}"
    ".k5{fill:#42d4f4}.k6{fill:#f032e6}.k7{fill:#bfef45}"
    ".arrow{fill:#fff;stroke:#111;stroke-width:.06}"
    "</style>";

/* Added only to a level the population pass ran on: each room's threat
 * as a red wash in ten steps of the level's peak, its loot tier as gold
 * text in its top-left corner. */
static const char population_style[] =
    "<style>"
    ".threat{fill:#c0392b}.th0{fill-opacity:0}.th1{fill-opacity:.06}.th2{fill-opacity:.12}"
    ".th3{fill-opacity:.18}.th4{fill-opacity:.24}.th5{fill-opacity:.3}.th6{fill-opacity:.36}"
    ".th7{fill-opacity:.42}.th8{fill-opacity:.48}.th9{fill-opacity:.55}"
    ".tier{font:bold 1px sans-serif;fill:#8a6d00;stroke:#fff;stroke-width:.15;"
    "paint-order:stroke;dominant-baseline:hanging}"
    "</style>";

/* A client view's locks and one-way doors: no key, no key colours. */
static const char client_progression_style[] =
    "<style>"
    ".t-locked_door{fill:#7b241c}"
    ".t-one_way_north,.t-one_way_east,.t-one_way_south,.t-one_way_west{fill:#b0672a}"
    ".lock{fill:#7b241c;stroke:#111;stroke-width:.12;fill-opacity:.9}"
    ".arrow{fill:#fff;stroke:#111;stroke-width:.06}"
    "</style>";

/* Added only to a level a content table filled: encounters as red
 * squares over their footprint, loot as gold diamonds. */
static const char entities_style[] =
    "<style>"
    ".ent-encounter{fill:#8e1b10;fill-opacity:.8;stroke:#fff;stroke-width:.08}"
    ".ent-loot{fill:#f1c40f;stroke:#7d5e00;stroke-width:.08}"
    "</style>";

static bool progression_feature(const char *kind) {
  return strcmp(kind, "key") == 0 || strcmp(kind, "locked_door") == 0 ||
         strcmp(kind, "one_way_door") == 0;
}

void dg_svg_options_init(dg_svg_options *options) {
  *options = (dg_svg_options){.tile_size = DG_SVG_TILE_DEFAULT, .labels = true, .graph = false};
}

static void put(dg_writer *w, const char *text) {
  dg_writer_raw(w, text, strlen(text));
}

/* A coordinate given in tenths of a tile: "12", "12.5", "-0.3". */
void dg_svg_tenths(dg_writer *w, long tenths) {
  if (tenths < 0) {
    dg_writer_char(w, '-');
    tenths = -tenths;
  }
  dg_writer_int(w, tenths / 10);
  if (tenths % 10 != 0) {
    dg_writer_char(w, '.');
    dg_writer_char(w, (char)('0' + tenths % 10));
  }
}

/* Text content or attribute value, XML-escaped. */
void dg_svg_escaped(dg_writer *w, const char *text, size_t length) {
  for (size_t i = 0; i < length && text[i] != '\0'; i++) {
    switch (text[i]) {
    case '&': put(w, "&amp;"); break;
    case '<': put(w, "&lt;"); break;
    case '>': put(w, "&gt;"); break;
    case '"': put(w, "&quot;"); break;
    case '\'': put(w, "&apos;"); break;
    default: dg_writer_char(w, text[i]); break;
    }
  }
}

/* A kind as a CSS class suffix: letters, digits, '_' and '-' kept, anything
 * else '_' (kinds are static identifiers, but a class must never break the
 * attribute). */
void dg_svg_class_suffix(dg_writer *w, const char *kind) {
  for (const char *c = kind; *c != '\0'; c++) {
    bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                 *c == '_' || *c == '-';
    dg_writer_char(w, plain ? *c : '_');
  }
}

/* One subpath: the rectangle of `width` x `height` tiles at (x, y). */
void dg_svg_box(dg_writer *w, int x, int y, int width, int height) {
  dg_writer_char(w, 'M');
  dg_writer_int(w, x);
  dg_writer_char(w, ' ');
  dg_writer_int(w, y);
  dg_writer_char(w, 'h');
  dg_writer_int(w, width);
  dg_writer_char(w, 'v');
  dg_writer_int(w, height);
  dg_writer_char(w, 'H');
  dg_writer_int(w, x);
  dg_writer_char(w, 'z');
}

/* A run of one tile kind: `width` tiles from column x, rows y..y+height-1. */
typedef struct run {
  int x, y, width, height;
  uint8_t tile;
} run;

/* Tiles as one path per kind (stone is the background and is not drawn).
 * Each row is cut into runs of one kind; a run with the same columns and
 * kind as one in the row above extends it downwards instead of starting a
 * new box, so a rectangular room is one subpath. Each kind's subpaths are
 * collected in their own buffer during one pass over the grid. */
static void put_tiles(dg_writer *w, const dg_grid *grid) {
  dg_writer runs[DG_TILE_COUNT] = {{0}};
  run *open = malloc((size_t)grid->width * sizeof *open);
  run *next = malloc((size_t)grid->width * sizeof *next);
  int open_count = 0;
  if (open == NULL || next == NULL) {
    w->failed = true;
    goto done;
  }
  for (int y = 0; y < grid->height; y++) {
    const uint8_t *row = grid->tiles + (long)y * grid->width;
    int next_count = 0, above = 0;
    for (int x = 0; x < grid->width;) {
      int start = x;
      uint8_t tile = row[x];
      while (x < grid->width && row[x] == tile)
        x++;
      if (tile == DG_TILE_STONE || tile >= DG_TILE_COUNT)
        continue;
      /* Open runs are in column order: skip those left of this one (they
       * end, below), and extend one that matches exactly. */
      while (above < open_count && open[above].x < start) {
        const run *r = &open[above++];
        dg_svg_box(&runs[r->tile], r->x, r->y, r->width, r->height);
      }
      if (above < open_count && open[above].x == start && open[above].width == x - start &&
          open[above].tile == tile) {
        next[next_count] = open[above++];
        next[next_count++].height++;
      } else {
        next[next_count++] = (run){start, y, x - start, 1, tile};
      }
    }
    while (above < open_count) {
      const run *r = &open[above++];
      dg_svg_box(&runs[r->tile], r->x, r->y, r->width, r->height);
    }
    run *swap = open;
    open = next;
    next = swap;
    open_count = next_count;
  }
  for (int i = 0; i < open_count; i++)
    dg_svg_box(&runs[open[i].tile], open[i].x, open[i].y, open[i].width, open[i].height);
  put(w, "<g class=\"tiles\" shape-rendering=\"crispEdges\">");
  for (int tile = 0; tile < DG_TILE_COUNT; tile++) {
    if (runs[tile].failed)
      w->failed = true;
    if (runs[tile].length == 0)
      continue;
    put(w, "<path class=\"t-");
    put(w, dg_tile_name((dg_tile)tile));
    put(w, "\" d=\"");
    dg_writer_raw(w, runs[tile].text, runs[tile].length);
    put(w, "\"/>");
  }
  put(w, "</g>");
done:
  for (int tile = 0; tile < DG_TILE_COUNT; tile++)
    free(runs[tile].text);
  free(open);
  free(next);
}

/* A level without tiles: each room as its walls and floor, doors on top. */
static void put_room_boxes(dg_writer *w, const dg_level *level) {
  put(w, "<g class=\"tiles\" shape-rendering=\"crispEdges\"><path class=\"t-wall\" d=\"");
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    dg_svg_box(w, room->x - 1, room->y - 1, room->width + 2, room->height + 2);
  }
  put(w, "\"/><path class=\"t-floor\" d=\"");
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    dg_svg_box(w, room->x, room->y, room->width, room->height);
  }
  for (int secret = 0; secret < 2; secret++) {
    bool any = false;
    for (int i = 0; i < level->door_count; i++) {
      const dg_door *door = &level->doors[i];
      if (door->secret != (secret == 1))
        continue;
      if (!any)
        put(w,
            secret ? "\"/><path class=\"t-secret_door\" d=\"" : "\"/><path class=\"t-door\" d=\"");
      any = true;
      dg_svg_box(w, door->x, door->y, 1, 1);
    }
  }
  put(w, "\"/></g>");
}

static marker object_marker(const char *kind) {
  for (size_t i = 0; i < sizeof known_objects / sizeof known_objects[0]; i++)
    if (strcmp(known_objects[i].kind, kind) == 0)
      return known_objects[i].shape;
  return MARK_DIAMOND;
}

/* A path through points given in tenths of a tile from the tile's corner. */
static void put_polygon(dg_writer *w, int x, int y, const int *tenths, int points) {
  for (int p = 0; p < points; p++) {
    dg_writer_char(w, p == 0 ? 'M' : 'L');
    dg_svg_tenths(w, (long)x * 10 + tenths[2 * p]);
    dg_writer_char(w, ' ');
    dg_svg_tenths(w, (long)y * 10 + tenths[2 * p + 1]);
  }
  dg_writer_char(w, 'z');
}

/* One marker at tile (x, y) for an object or feature of `kind`; `player`
 * (a spawn's player index) is written as data-player when >= 0, and
 * `player_id` (ids are of [A-Za-z0-9._-]: no escaping) as data-player-id
 * when not NULL. */
void dg_svg_marker(dg_writer *w, const char *kind, int x, int y, int player,
                   const char *player_id) {
  static const int box[] = {2, 3, 8, 3, 8, 8, 2, 8};
  static const int up[] = {5, 1, 9, 9, 1, 9};
  static const int down[] = {1, 1, 9, 1, 5, 9};
  static const int diamond[] = {5, 1, 9, 5, 5, 9, 1, 5};
  marker shape = object_marker(kind);
  put(w, shape == MARK_DOT ? "<circle class=\"o o-" : "<path class=\"o o-");
  if (shape == MARK_DIAMOND)
    put(w, "other");
  else
    dg_svg_class_suffix(w, kind);
  put(w, "\" data-kind=\"");
  dg_svg_escaped(w, kind, strlen(kind));
  if (player >= 0) {
    put(w, "\" data-player=\"");
    dg_writer_int(w, player);
  }
  if (player_id != NULL) {
    put(w, "\" data-player-id=\"");
    put(w, player_id);
  }
  switch (shape) {
  case MARK_DOT:
    put(w, "\" cx=\"");
    dg_svg_tenths(w, (long)x * 10 + 5);
    put(w, "\" cy=\"");
    dg_svg_tenths(w, (long)y * 10 + 5);
    put(w, "\" r=\".4\"/>");
    return;
  case MARK_BOX:
    put(w, "\" d=\"");
    put_polygon(w, x, y, box, 4);
    break;
  case MARK_UP:
    put(w, "\" d=\"");
    put_polygon(w, x, y, up, 3);
    break;
  case MARK_DOWN:
    put(w, "\" d=\"");
    put_polygon(w, x, y, down, 3);
    break;
  case MARK_DIAMOND:
    put(w, "\" d=\"");
    put_polygon(w, x, y, diamond, 4);
    break;
  }
  put(w, "\"/>");
}

/* The level's objects (chests...) and its features (stairs, spawns), each
 * by kind. */
static void put_objects(dg_writer *w, const dg_level *level) {
  put(w, "<g class=\"objects\">");
  for (int i = 0; i < level->object_count; i++) {
    const dg_object *object = &level->objects[i];
    dg_svg_marker(w, object->kind != NULL ? object->kind : "", object->x, object->y, -1, NULL);
  }
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *feature = &level->features[i];
    const char *kind = feature->kind != NULL ? feature->kind : "";
    if (progression_feature(kind))
      continue;
    bool spawn = strcmp(kind, "spawn") == 0;
    dg_svg_marker(w, kind, feature->x, feature->y, spawn ? feature->player : -1,
                  spawn ? feature->player_id : NULL);
  }
  put(w, "</g>");
}

/* Keys (a disc) and locked doors (a square) in their key's colour, with
 * data-key; one-way doors as an arrow pointing the way they may be
 * crossed (on a level without a grid: at the edge's middle, pointing from
 * its `from` node to its `to` node, the nearest of four ways). */
static void put_progression(dg_writer *w, const dg_level *level) {
  static const int square[] = {1, 1, 9, 1, 9, 9, 1, 9};
  static const int arrows[4][6] = {{5, 1, 9, 9, 1, 9},  /* north */
                                   {1, 1, 9, 5, 1, 9},  /* east */
                                   {1, 1, 9, 1, 5, 9},  /* south */
                                   {9, 1, 9, 9, 1, 5}}; /* west */
  static const char *const ways[4] = {"north", "east", "south", "west"};
  /* A client view's group is named for what it shows: the progression
   * (its keys, its witness) is the server's. */
  put(w, level->client_view ? "<g class=\"locks\">" : "<g class=\"progression\">");
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *f = &level->features[i];
    bool key = strcmp(f->kind, "key") == 0, lock = strcmp(f->kind, "locked_door") == 0;
    if (lock && level->client_view) {
      /* Which key opens it is the server's. */
      put(w, "<path class=\"lock\" d=\"");
      put_polygon(w, f->x, f->y, square, 4);
      put(w, "\"/>");
    } else if (key || lock) {
      put(w, key ? "<circle class=\"key k" : "<path class=\"lock k");
      dg_writer_int(w, f->key % 8);
      put(w, "\" data-key=\"");
      dg_writer_int(w, f->key);
      if (key) {
        put(w, "\" cx=\"");
        dg_svg_tenths(w, (long)f->x * 10 + 5);
        put(w, "\" cy=\"");
        dg_svg_tenths(w, (long)f->y * 10 + 5);
        put(w, "\" r=\".35\"/>");
      } else {
        put(w, "\" d=\"");
        put_polygon(w, f->x, f->y, square, 4);
        put(w, "\"/>");
      }
    } else if (strcmp(f->kind, "one_way_door") == 0) {
      int way = 0;
      if (f->direction != NULL) {
        while (way < 3 && strcmp(ways[way], f->direction) != 0)
          way++;
      } else if (f->from >= 0 && f->to >= 0 && f->from < level->graph.node_count &&
                 f->to < level->graph.node_count) {
        int dx = level->graph.nodes[f->to].x - level->graph.nodes[f->from].x;
        int dy = level->graph.nodes[f->to].y - level->graph.nodes[f->from].y;
        way = abs(dx) > abs(dy) ? (dx > 0 ? 1 : 3) : (dy > 0 ? 2 : 0);
      }
      put(w, "<path class=\"arrow\" data-direction=\"");
      put(w, ways[way]);
      put(w, "\" d=\"");
      put_polygon(w, f->x, f->y, arrows[way], 3);
      put(w, "\"/>");
    }
  }
  put(w, "</g>");
}

/* The population layer: over each reachable room's floor a rectangle
 * whose class th0..th9 is its threat in tenths of the level's highest,
 * with the figures in a <title> for a hover, and its loot tier ("T2")
 * in its top-left corner when above 0. */
static void put_population(dg_writer *w, const dg_level *level) {
  const dg_population *p = &level->population;
  int highest = 0;
  for (int i = 0; i < level->room_count; i++)
    highest = p->rooms[i].threat > highest ? p->rooms[i].threat : highest;
  put(w, "<g class=\"population\">");
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    const dg_population_room *budget = &p->rooms[i];
    if (budget->distance < 0)
      continue;
    int step = highest > 0 ? budget->threat * 9 / highest : 0;
    put(w, "<rect class=\"threat th");
    dg_writer_int(w, step);
    put(w, "\" x=\"");
    dg_writer_int(w, room->x);
    put(w, "\" y=\"");
    dg_writer_int(w, room->y);
    put(w, "\" width=\"");
    dg_writer_int(w, room->width);
    put(w, "\" height=\"");
    dg_writer_int(w, room->height);
    put(w, "\" data-room=\"");
    dg_writer_int(w, i);
    put(w, "\" data-threat=\"");
    dg_writer_int(w, budget->threat);
    put(w, "\" data-loot-tier=\"");
    dg_writer_int(w, budget->loot_tier);
    put(w, "\"><title>room ");
    dg_writer_int(w, i);
    put(w, ": threat ");
    dg_writer_int(w, budget->threat);
    put(w, ", loot tier ");
    dg_writer_int(w, budget->loot_tier);
    put(w, " (");
    dg_writer_int(w, budget->loot);
    put(w, " points)</title></rect>");
    if (budget->loot_tier > 0) {
      put(w, "<text class=\"tier\" x=\"");
      dg_svg_tenths(w, (long)room->x * 10 + 1);
      put(w, "\" y=\"");
      dg_svg_tenths(w, (long)room->y * 10 + 1);
      put(w, "\">T");
      dg_writer_int(w, budget->loot_tier);
      put(w, "</text>");
    }
  }
  put(w, "</g>");
}

/* The entities of a content table (docs/population.md): one marker per
 * entity carrying its id, kind, entry and room as data- attributes, and
 * a <title> for a hover. */
static void put_entities(dg_writer *w, const dg_level *level) {
  const dg_population *p = &level->population;
  put(w, "<g class=\"entities\">");
  for (int i = 0; i < p->entity_count; i++) {
    const dg_entity *e = &p->entities[i];
    bool encounter = e->kind == DG_ENTITY_ENCOUNTER;
    if (encounter) {
      put(w, "<rect class=\"ent-encounter\" x=\"");
      dg_svg_tenths(w, (long)e->x * 10 + 2);
      put(w, "\" y=\"");
      dg_svg_tenths(w, (long)e->y * 10 + 2);
      put(w, "\" width=\"");
      dg_svg_tenths(w, (long)e->width * 10 - 4);
      put(w, "\" height=\"");
      dg_svg_tenths(w, (long)e->height * 10 - 4);
    } else {
      static const int diamond[8] = {5, 1, 9, 5, 5, 9, 1, 5};
      put(w, "<polygon class=\"ent-loot\" points=\"");
      for (int k = 0; k < 8; k += 2) {
        if (k > 0)
          put(w, " ");
        dg_svg_tenths(w, (long)e->x * 10 + diamond[k]);
        put(w, ",");
        dg_svg_tenths(w, (long)e->y * 10 + diamond[k + 1]);
      }
    }
    put(w, "\" data-entity=\"e");
    dg_writer_int(w, i + 1);
    put(w, "\" data-entry=\"");
    dg_svg_escaped(w, e->entry, strlen(e->entry));
    put(w, "\" data-room=\"");
    dg_writer_int(w, e->room);
    put(w, "\"><title>e");
    dg_writer_int(w, i + 1);
    put(w, encounter ? " encounter " : " loot ");
    dg_svg_escaped(w, e->entry, strlen(e->entry));
    put(w, encounter ? " (cost " : " (tier ");
    dg_writer_int(w, encounter ? e->cost : e->tier);
    put(w, encounter ? ")</title></rect>" : ")</title></polygon>");
  }
  put(w, "</g>");
}

/* Each room's label (or index) at the centre of its floor. */
static void put_labels(dg_writer *w, const dg_level *level) {
  put(w, "<g class=\"labels\">");
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    put(w, "<text class=\"label\" x=\"");
    dg_svg_tenths(w, (long)room->x * 10 + (long)room->width * 5);
    put(w, "\" y=\"");
    dg_svg_tenths(w, (long)room->y * 10 + (long)room->height * 5);
    put(w, "\">");
    if (room->label[0] != '\0')
      dg_svg_escaped(w, room->label, strnlen(room->label, DG_LABEL_MAX));
    else
      dg_writer_int(w, i);
    put(w, "</text>");
  }
  put(w, "</g>");
}

/* Nodes at the centre of their representative tile; an edge on a loop
 * (cycle) gets class "c" and is drawn dashed in another colour. */
static void put_graph(dg_writer *w, const dg_graph *graph) {
  put(w, "<g class=\"graph\">");
  for (int e = 0; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    const dg_node *a = &graph->nodes[edge->from], *b = &graph->nodes[edge->to];
    dg_svg_edge(w, edge->cycle ? "e c" : "e", a, b);
  }
  for (int i = 0; i < graph->node_count; i++)
    dg_svg_node(w, &graph->nodes[i]);
  put(w, "</g>");
}

void dg_svg_edge(dg_writer *w, const char *classes, const dg_node *a, const dg_node *b) {
  put(w, "<line class=\"");
  put(w, classes);
  put(w, "\" x1=\"");
  dg_svg_tenths(w, (long)a->x * 10 + 5);
  put(w, "\" y1=\"");
  dg_svg_tenths(w, (long)a->y * 10 + 5);
  put(w, "\" x2=\"");
  dg_svg_tenths(w, (long)b->x * 10 + 5);
  put(w, "\" y2=\"");
  dg_svg_tenths(w, (long)b->y * 10 + 5);
  put(w, "\"/>");
}

void dg_svg_node(dg_writer *w, const dg_node *node) {
  put(w, "<circle class=\"n n-");
  dg_svg_class_suffix(w, node->kind);
  put(w, "\" cx=\"");
  dg_svg_tenths(w, (long)node->x * 10 + 5);
  put(w, "\" cy=\"");
  dg_svg_tenths(w, (long)node->y * 10 + 5);
  put(w, "\" r=\".5\"/>");
}

static void grow(int *lo, int *hi, int low, int high) {
  *lo = low < *lo ? low : *lo;
  *hi = high > *hi ? high : *hi;
}

void dg_render_extent(const dg_level *level, int *x0, int *y0, int *x1, int *y1) {
  if (level->has_grid) {
    *x0 = *y0 = 0;
    *x1 = level->grid.width;
    *y1 = level->grid.height;
    return;
  }
  *x0 = *y0 = 0;
  *x1 = *y1 = 1;
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *r = &level->rooms[i];
    grow(x0, x1, r->x - 1, r->x + r->width + 1);
    grow(y0, y1, r->y - 1, r->y + r->height + 1);
  }
  for (int i = 0; i < level->door_count; i++) {
    grow(x0, x1, level->doors[i].x, level->doors[i].x + 1);
    grow(y0, y1, level->doors[i].y, level->doors[i].y + 1);
  }
  for (int i = 0; i < level->graph.node_count; i++) {
    grow(x0, x1, level->graph.nodes[i].x, level->graph.nodes[i].x + 1);
    grow(y0, y1, level->graph.nodes[i].y, level->graph.nodes[i].y + 1);
  }
  for (int i = 0; i < level->object_count; i++) {
    grow(x0, x1, level->objects[i].x, level->objects[i].x + 1);
    grow(y0, y1, level->objects[i].y, level->objects[i].y + 1);
  }
  for (int i = 0; i < level->feature_count; i++) {
    grow(x0, x1, level->features[i].x, level->features[i].x + 1);
    grow(y0, y1, level->features[i].y, level->features[i].y + 1);
  }
}

/* The root element with its size, view box and identity (the seed, or
 * that it is a client view; the level_hash when set), the title, and the
 * style sheets the level's layers need. */
void dg_svg_head(dg_writer *w, const dg_level *level, const dg_svg_options *options, int x0, int y0,
                 int width, int height) {
  put(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"");
  dg_writer_int(w, (int64_t)width * options->tile_size);
  put(w, "\" height=\"");
  dg_writer_int(w, (int64_t)height * options->tile_size);
  put(w, "\" viewBox=\"");
  dg_writer_int(w, x0);
  dg_writer_char(w, ' ');
  dg_writer_int(w, y0);
  dg_writer_char(w, ' ');
  dg_writer_int(w, width);
  dg_writer_char(w, ' ');
  dg_writer_int(w, height);
  put(w, "\" data-algorithm=\"");
  dg_svg_escaped(w, level->algorithm->name, strlen(level->algorithm->name));
  if (level->client_view) {
    /* No seed: with it anyone makes the full level. */
    put(w, "\" data-view=\"client");
  } else {
    put(w, "\" data-seed=\"");
    dg_writer_uint(w, level->seed);
  }
  if (level->level_hash[0] != '\0') {
    put(w, "\" data-level-hash=\"");
    put(w, level->level_hash);
  }
  if (options->storeys == DG_SVG_STOREYS_ONE) {
    put(w, "\" data-storey=\"");
    dg_writer_int(w, options->storey);
  }
  put(w, "\"><title>");
  dg_svg_escaped(w, level->algorithm->name, strlen(level->algorithm->name));
  if (level->client_view) {
    put(w, " (client view)");
  } else {
    put(w, " seed ");
    dg_writer_uint(w, level->seed);
  }
  put(w, "</title>");
  if (level->client_view)
    dg_writer_raw(w, client_style, sizeof client_style - 1);
  else
    dg_writer_raw(w, style, sizeof style - 1);
  if (level->progression.placed)
    dg_writer_raw(w, progression_style, sizeof progression_style - 1);
  if (level->client_progression_tiles)
    dg_writer_raw(w, client_progression_style, sizeof client_progression_style - 1);
  if (level->population.placed)
    dg_writer_raw(w, population_style, sizeof population_style - 1);
  if (level->population.filled)
    dg_writer_raw(w, entities_style, sizeof entities_style - 1);
}

int dg_level_dump_svg(const dg_level *level, const dg_svg_options *options, char **text,
                      size_t *length) {
  dg_svg_options defaults;
  if (options == NULL) {
    dg_svg_options_init(&defaults);
    options = &defaults;
  }
  if (options->tile_size < DG_SVG_TILE_MIN || options->tile_size > DG_SVG_TILE_MAX)
    return DG_EINVAL;
  if (options->storeys != DG_SVG_STOREYS_FLAT) {
    dg_storeys storeys;
    int rc = dg_storeys_open(level, &storeys);
    if (rc == 0 && storeys.has_plan)
      rc = dg_svg_dump_storeys(level, &storeys, options, text, length);
    else if (rc == 0 && options->storeys == DG_SVG_STOREYS_ONE && options->storey != 0)
      rc = DG_EINVAL; /* a level without a plan is the one storey 0 */
    bool drawn = storeys.has_plan;
    dg_storeys_close(&storeys);
    if (rc != 0 || drawn)
      return rc;
  }
  int x0, y0, x1, y1;
  dg_render_extent(level, &x0, &y0, &x1, &y1);
  int width = x1 - x0, height = y1 - y0;
  /* A level in 3D (authored): hundreds of rooms, flattened over each
   * other; its labels never overlap, its graph is tree plus chains. */
  bool sparse = level->storey_plan != NULL && !level->client_view;
  dg_writer w = {0};
  dg_svg_head(&w, level, options, x0, y0, width, height);
  if (sparse)
    dg_svg_tree_style(&w);
  put(&w, "<rect class=\"bg\" x=\"");
  dg_writer_int(&w, x0);
  put(&w, "\" y=\"");
  dg_writer_int(&w, y0);
  put(&w, "\" width=\"");
  dg_writer_int(&w, width);
  put(&w, "\" height=\"");
  dg_writer_int(&w, height);
  put(&w, "\"/>");
  if (level->has_grid)
    put_tiles(&w, &level->grid);
  else
    put_room_boxes(&w, level);
  if (level->population.placed)
    put_population(&w, level);
  put_objects(&w, level);
  if (level->progression.placed || level->client_progression_tiles)
    put_progression(&w, level);
  if (level->population.filled && level->has_grid)
    put_entities(&w, level);
  if (sparse && options->graph)
    dg_svg_tree_graph(&w, &level->graph, NULL, 0);
  else if (options->graph || !level->has_grid)
    put_graph(&w, &level->graph);
  if (sparse && options->labels)
    dg_svg_sparse_labels(&w, level, NULL, 0, true);
  else if (options->labels)
    put_labels(&w, level);
  put(&w, "</svg>\n");
  if (w.failed) {
    free(w.text);
    return DG_ENOMEM;
  }
  *text = w.text;
  if (length != NULL)
    *length = w.length;
  return 0;
}
