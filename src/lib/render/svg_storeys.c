/* Authored levels in the SVG picture (docs/pictures.md, "Authored levels
 * by storey"): one storey at a time, or every storey side by side, from the
 * generator's storey plan; and what keeps such a picture readable at
 * hundreds of rooms, flattened or not: labels that never overlap (a label
 * that would cover one already drawn is left out) and the graph drawn as
 * the generator's tree plus its cycle chains rather than every edge on a
 * cycle dashed. Coordinates are tile units (tenths for marks), as in svg.c,
 * so the bytes do not depend on floating-point formatting. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/writer.h"
#include "dungeon/render.h"
#include "render_internal.h"

#define STOREY_GAP 3     /* tiles between two storeys side by side */
#define STOREY_CAPTION 4 /* tiles above each storey for its caption, at least */
#define LABEL_CHAR 7     /* a label character's estimated width, tenths of a tile (1.2px font) */
#define LABEL_HEIGHT 14  /* a label line's height, tenths */

static const char tree_style[] = "<style>.e.ch{stroke:#e67e22;stroke-width:.3}"
                                 ".to{font:bold 1.1px sans-serif;fill:#0d3d1f;stroke:#fff;"
                                 "stroke-width:.2;paint-order:stroke;text-anchor:middle;"
                                 "dominant-baseline:central}</style>";
static const char storey_style[] =
    "<style>.ghost{fill:none;stroke:#4a4a58;stroke-width:.15}"
    ".s-wall{fill:#5b4b3f}.s-floor{fill:#d8cfbd}.s-stairs{fill:#9fd8a8}"
    ".up{fill:#2e8b57;stroke:#111;stroke-width:.06}.down{fill:#c0392b;stroke:#111;"
    "stroke-width:.06}.storey-title{font-family:sans-serif;fill:#ddd}</style>";

/* Only with carved corridors, so that the other storey pictures keep their bytes. */
static const char corridor_style[] =
    "<style>.s-corridor{fill:#9b9183}.c-stairs{fill:#9fd8a8}</style>";

static void put(dg_writer *w, const char *text) {
  dg_writer_raw(w, text, strlen(text));
}

/* ---- readable at hundreds of rooms ------------------------------------ */

/* A label's box, tenths of a tile. */
typedef struct label_box {
  long x0, y0, x1, y1;
} label_box;

static bool overlaps(const label_box *a, const label_box *b) {
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Characters of UTF-8 text (an arrow is one). */
static long characters(const char *text) {
  long n = 0;
  for (const char *c = text; *c != '\0'; c++)
    n += ((unsigned char)*c & 0xc0) != 0x80;
  return n;
}

/* Where room i's label goes and what it says, with the stair line `to`
 * below it when `to` is not empty. */
typedef struct label_text {
  char name[DG_LABEL_MAX + 16];
  char to[96];
  long cx, cy; /* centre of the name, tenths */
} label_text;

/* The storeys other than `storey` room i's doorways open at, as "↑4 ↓-8",
 * or "" (a room on one storey). */
static void stair_text(const dg_storeys *s, int room, int storey, char *text, size_t size) {
  size_t at = 0;
  text[0] = '\0';
  int last = INT_MIN;
  for (;;) { /* ascending, each once: the next storey above `last` */
    int next = INT_MAX;
    for (int i = s->door_first[room]; i < s->door_first[room + 1]; i++) {
      int at_storey = s->plan.doors[i].storey;
      if (at_storey != storey && at_storey > last && at_storey < next)
        next = at_storey;
    }
    if (next == INT_MAX || at + 16 >= size)
      return;
    at += (size_t)snprintf(text + at, size - at, "%s%s%d", at > 0 ? " " : "",
                           next > storey ? "\xe2\x86\x91" : "\xe2\x86\x93", next);
    last = next;
  }
}

/* Labels of the rooms drawn (on `storey` when `s` is not NULL, else all),
 * each left out when its box would overlap one already drawn: in room
 * order, so the start room and the rooms near it keep theirs. */
void dg_svg_sparse_labels(dg_writer *w, const dg_level *level, const dg_storeys *s, int storey,
                          bool names) {
  label_box *drawn =
      malloc((size_t)(level->room_count > 0 ? level->room_count : 1) * sizeof *drawn);
  int count = 0;
  if (drawn == NULL) {
    w->failed = true;
    return;
  }
  put(w, "<g class=\"labels\">");
  for (int i = 0; i < level->room_count; i++) {
    const dg_room *room = &level->rooms[i];
    if (s != NULL && !dg_storeys_room_on(s, i, storey))
      continue;
    label_text t = {.cx = (long)room->x * 10 + (long)room->width * 5,
                    .cy = (long)room->y * 10 + (long)room->height * 5};
    if (room->label[0] != '\0')
      snprintf(t.name, sizeof t.name, "%.*s", DG_LABEL_MAX, room->label);
    else
      snprintf(t.name, sizeof t.name, "%d", i);
    if (s != NULL)
      stair_text(s, i, storey, t.to, sizeof t.to);
    if (!names && t.to[0] == '\0')
      continue;
    long wide = LABEL_CHAR * characters(names ? t.name : "");
    long to_wide = LABEL_CHAR * characters(t.to);
    wide = (wide > to_wide ? wide : to_wide) + 4;
    if (names && t.to[0] != '\0')
      t.cy -= LABEL_HEIGHT / 2;
    long top = t.cy - LABEL_HEIGHT / 2 - (names ? 0 : -LABEL_HEIGHT);
    long bottom = t.cy + LABEL_HEIGHT / 2 + (t.to[0] != '\0' ? LABEL_HEIGHT : 0);
    label_box box = {t.cx - wide / 2, top, t.cx + wide / 2, bottom};
    bool clear = true;
    for (int k = 0; k < count && clear; k++)
      clear = !overlaps(&box, &drawn[k]);
    if (!clear)
      continue;
    drawn[count++] = box;
    if (names) {
      put(w, "<text class=\"label\" x=\"");
      dg_svg_tenths(w, t.cx);
      put(w, "\" y=\"");
      dg_svg_tenths(w, t.cy);
      put(w, "\">");
      dg_svg_escaped(w, t.name, strlen(t.name));
      put(w, "</text>");
    }
    if (t.to[0] != '\0') {
      put(w, "<text class=\"to\" x=\"");
      dg_svg_tenths(w, t.cx);
      put(w, "\" y=\"");
      dg_svg_tenths(w, t.cy + LABEL_HEIGHT);
      put(w, "\">");
      put(w, t.to);
      put(w, "</text>");
    }
  }
  put(w, "</g>");
  free(drawn);
}

/* A chain edge: made by the cycle pass (a chain of rooms or a corridor)
 * rather than by the growth tree, whose edges are "door". */
static bool chain_edge(const dg_edge *edge) {
  return strcmp(edge->kind, "chain") == 0 || strcmp(edge->kind, "corridor") == 0;
}

static bool node_drawn(const dg_graph *graph, int node, const dg_storeys *s, int storey) {
  return s == NULL || dg_storeys_room_on(s, graph->nodes[node].room, storey);
}

/* The graph as the generator's tree (thin, blue) and its cycle chains
 * (thicker, orange), both solid; on a storey, the edges between its rooms. */
void dg_svg_tree_graph(dg_writer *w, const dg_graph *graph, const dg_storeys *s, int storey) {
  put(w, "<g class=\"graph\">");
  for (int pass = 0; pass < 2; pass++) { /* the tree under the chains */
    for (int e = 0; e < graph->edge_count; e++) {
      const dg_edge *edge = &graph->edges[e];
      if (chain_edge(edge) != (pass == 1) || !node_drawn(graph, edge->from, s, storey) ||
          !node_drawn(graph, edge->to, s, storey))
        continue;
      const dg_node *a = &graph->nodes[edge->from], *b = &graph->nodes[edge->to];
      dg_svg_edge(w, pass == 1 ? "e ch" : "e", a, b);
    }
  }
  for (int i = 0; i < graph->node_count; i++) {
    const dg_node *node = &graph->nodes[i];
    if (node_drawn(graph, i, s, storey))
      dg_svg_node(w, node);
  }
  put(w, "</g>");
}

void dg_svg_tree_style(dg_writer *w) {
  dg_writer_raw(w, tree_style, sizeof tree_style - 1);
}

/* ---- one storey ------------------------------------------------------- */

static void floor_box(void *data, int x, int y, int width, int height) {
  dg_svg_box(data, x, y, width, height);
}

/* Room r's floor as box subpaths. */
static void put_floor(dg_writer *w, const dg_storeys *s, int room) {
  dg_storeys_floor(s, room, floor_box, w);
}

/* The other storeys' rooms as faint outlines, half a tile inside. */
static void put_ghosts(dg_writer *w, const dg_storeys *s, int storey) {
  put(w, "<path class=\"ghost\" d=\"");
  for (int i = 0; i < s->plan.box_count; i++) {
    const dg_storey_box *b = &s->plan.boxes[i];
    if (dg_storeys_room_on(s, b->room, storey) || b->width < 2 || b->height < 2)
      continue;
    dg_writer_char(w, 'M');
    dg_svg_tenths(w, (long)b->x * 10 + 5);
    dg_writer_char(w, ' ');
    dg_svg_tenths(w, (long)b->y * 10 + 5);
    dg_writer_char(w, 'h');
    dg_writer_int(w, b->width - 1);
    dg_writer_char(w, 'v');
    dg_writer_int(w, b->height - 1);
    dg_writer_char(w, 'H');
    dg_svg_tenths(w, (long)b->x * 10 + 5);
    dg_writer_char(w, 'z');
  }
  put(w, "\"/>");
}

/* The carved corridors' tiles on this storey (over the rooms, under their
 * doors, which the corridors start at): floor, then stairs' steps. */
static void put_corridors(dg_writer *w, const dg_storeys *s, int storey) {
  for (int on = DG_CORRIDOR_FLOOR; on <= DG_CORRIDOR_STAIRS; on++) {
    put(w, on == DG_CORRIDOR_FLOOR ? "<path class=\"s-corridor\" d=\""
                                   : "\"/><path class=\"c-stairs\" d=\"");
    for (int i = 0; i < s->plan.tile_count; i++)
      if (dg_storeys_tile_on(s, i, storey) == on)
        dg_svg_box(w, s->plan.tiles[i].x, s->plan.tiles[i].y, 1, 1);
  }
  put(w, "\"/>");
}

/* This storey's rooms: walls, floors (a staircase's in green), doors. */
static void put_rooms(dg_writer *w, const dg_storeys *s, int storey) {
  put(w, "<g class=\"rooms\" shape-rendering=\"crispEdges\"><path class=\"s-wall\" d=\"");
  for (int i = 0; i < s->plan.box_count; i++) {
    const dg_storey_box *b = &s->plan.boxes[i];
    if (dg_storeys_room_on(s, b->room, storey))
      dg_svg_box(w, b->x, b->y, b->width, b->height);
  }
  for (int stairs = 0; stairs < 2; stairs++) {
    put(w, stairs ? "\"/><path class=\"s-stairs\" d=\"" : "\"/><path class=\"s-floor\" d=\"");
    for (int r = 0; r < s->room_count; r++)
      if (dg_storeys_room_on(s, r, storey) && dg_storeys_stairs(s, r) == (stairs == 1))
        put_floor(w, s, r);
  }
  put(w, "\"/>");
  if (s->plan.tile_count > 0)
    put_corridors(w, s, storey);
  put(w, "<path class=\"t-door\" d=\"");
  for (int i = 0; i < s->plan.door_count; i++)
    if (s->plan.doors[i].storey == storey)
      dg_svg_box(w, s->plan.doors[i].x, s->plan.doors[i].y, 1, 1);
  put(w, "\"/></g>");
}

static const int up[] = {0, 10, 5, 0, 10, 10};
static const int down[] = {0, 0, 10, 0, 5, 10};

static void put_triangle(dg_writer *w, const int *shape, int x, int y) {
  for (int p = 0; p < 3; p++) {
    dg_writer_char(w, p == 0 ? 'M' : 'L');
    dg_svg_tenths(w, (long)x * 10 + shape[2 * p]);
    dg_writer_char(w, ' ');
    dg_svg_tenths(w, (long)y * 10 + shape[2 * p + 1]);
  }
}

typedef struct corridor_mark {
  dg_writer *w;
  int storey;
} corridor_mark;

/* A corridor's climb off this storey, as a staircase's doorway is. */
static void put_corridor_mark(void *data, const dg_storey_tile *at, int to) {
  const corridor_mark *m = data;
  bool rising = to > m->storey;
  put(m->w,
      rising ? "<path class=\"up\" data-corridor=\"" : "<path class=\"down\" data-corridor=\"");
  dg_writer_int(m->w, at->corridor);
  put(m->w, "\" data-to=\"");
  dg_writer_int(m->w, to);
  put(m->w, "\" d=\"");
  put_triangle(m->w, rising ? up : down, at->x, at->y);
  put(m->w, rising ? "z\"><title>corridor up to y = " : "z\"><title>corridor down to y = ");
  dg_writer_int(m->w, to);
  put(m->w, "</title></path>");
}

/* At each doorway of this storey's staircases that opens on another
 * storey, and where a carved corridor climbs off it, a triangle pointing
 * the way (green up, red down) with the storey it reaches. */
static void put_stairs(dg_writer *w, const dg_storeys *s, int storey) {
  put(w, "<g class=\"stairs\">");
  for (int i = 0; i < s->plan.door_count; i++) {
    const dg_storey_door *d = &s->plan.doors[i];
    if (d->storey == storey || !dg_storeys_room_on(s, d->room, storey))
      continue;
    bool rising = d->storey > storey;
    const int *shape = rising ? up : down;
    put(w, rising ? "<path class=\"up\" data-room=\"" : "<path class=\"down\" data-room=\"");
    dg_writer_int(w, d->room);
    put(w, "\" data-to=\"");
    dg_writer_int(w, d->storey);
    put(w, "\" d=\"");
    put_triangle(w, shape, d->x, d->y);
    put(w, rising ? "z\"><title>stairs up to y = " : "z\"><title>stairs down to y = ");
    dg_writer_int(w, d->storey);
    put(w, "</title></path>");
  }
  corridor_mark mark = {w, storey};
  dg_storeys_corridor_stairs(s, storey, put_corridor_mark, &mark);
  put(w, "</g>");
}

/* The features in this storey's rooms (stairs of the level, spawns...);
 * keys and locks are drawn by the flattened picture only. */
static void put_storey_features(dg_writer *w, const dg_level *level, const dg_storeys *s,
                                int storey) {
  put(w, "<g class=\"objects\">");
  for (int i = 0; i < level->feature_count; i++) {
    const dg_feature *f = &level->features[i];
    const char *kind = f->kind != NULL ? f->kind : "";
    if (!dg_storeys_room_on(s, f->room, storey) || strcmp(kind, "key") == 0 ||
        strcmp(kind, "locked_door") == 0 || strcmp(kind, "one_way_door") == 0)
      continue;
    bool spawn = strcmp(kind, "spawn") == 0;
    dg_svg_marker(w, kind, f->x, f->y, spawn ? f->player : -1, spawn ? f->player_id : NULL);
  }
  put(w, "</g>");
}

/* Everything of one storey, in the level's tile coordinates. */
static void put_storey(dg_writer *w, const dg_level *level, const dg_storeys *s,
                       const dg_svg_options *options, int storey) {
  put_ghosts(w, s, storey);
  put_rooms(w, s, storey);
  put_stairs(w, s, storey);
  put_storey_features(w, level, s, storey);
  if (options->graph)
    dg_svg_tree_graph(w, &level->graph, s, storey);
  dg_svg_sparse_labels(w, level, s, storey, options->labels);
}

/* The level's extent and its plan's boxes. */
static void storey_extent(const dg_level *level, const dg_storeys *s, int *x0, int *y0, int *x1,
                          int *y1) {
  dg_render_extent(level, x0, y0, x1, y1);
  for (int i = 0; i < s->plan.box_count; i++) {
    const dg_storey_box *b = &s->plan.boxes[i];
    *x0 = b->x < *x0 ? b->x : *x0;
    *y0 = b->y < *y0 ? b->y : *y0;
    *x1 = b->x + b->width > *x1 ? b->x + b->width : *x1;
    *y1 = b->y + b->height > *y1 ? b->y + b->height : *y1;
  }
}

static void put_storey_style(dg_writer *w, const dg_storeys *s) {
  dg_writer_raw(w, storey_style, sizeof storey_style - 1);
  if (s->plan.tile_count > 0)
    dg_writer_raw(w, corridor_style, sizeof corridor_style - 1);
}

static void put_rect(dg_writer *w, const char *class, long x, long y, long width, long height) {
  dg_writer_format(w, "<rect class=\"%s\" x=\"%ld\" y=\"%ld\" width=\"%ld\" height=\"%ld\"/>",
                   class, x, y, width, height);
}

/* Storeys side by side in a picture about as wide as it is high: the
 * smallest number of columns whose square holds them all. */
static int storey_columns(int count) {
  int columns = 1;
  while (columns * columns < count)
    columns++;
  return columns;
}

/* Every storey side by side, lowest first, left to right and then row
 * after row (about as many rows as columns, so that a dozen storeys stay
 * readable), each in a nested <svg data-storey="N"> under its caption
 * "y = N". */
static void put_all_storeys(dg_writer *w, const dg_level *level, const dg_storeys *s,
                            const dg_svg_options *options, int x0, int y0, int width, int height) {
  int columns = storey_columns(s->count), rows = (s->count + columns - 1) / columns;
  /* The caption grows with the storey, so that it stays legible when a
   * 1,000-room level's storeys are fitted to a window. */
  long caption = width / 20 > STOREY_CAPTION ? width / 20 : STOREY_CAPTION;
  long cell_w = (long)width + STOREY_GAP, cell_h = (long)height + caption + STOREY_GAP;
  long total_w = columns * cell_w - STOREY_GAP, total_h = rows * cell_h - STOREY_GAP;
  dg_svg_head(w, level, options, 0, 0, (int)total_w, (int)total_h);
  dg_svg_tree_style(w);
  put_storey_style(w, s);
  put_rect(w, "bg", 0, 0, total_w, total_h);
  for (int k = 0; k < s->count; k++) {
    long x = (k % columns) * cell_w, y = (k / columns) * cell_h;
    dg_writer_format(w,
                     "<text class=\"storey-title\" x=\"%ld\" y=\"%ld\" font-size=\"%ld\">y = "
                     "%d</text>",
                     x, y + caption - 1, caption - 1, s->list[k]);
    dg_writer_format(w,
                     "<svg x=\"%ld\" y=\"%ld\" width=\"%d\" height=\"%d\" viewBox=\"%d %d %d %d\" "
                     "data-storey=\"%d\">",
                     x, y + caption, width, height, x0, y0, width, height, s->list[k]);
    put_storey(w, level, s, options, s->list[k]);
    put(w, "</svg>");
  }
}

int dg_svg_dump_storeys(const dg_level *level, const dg_storeys *s, const dg_svg_options *options,
                        char **text, size_t *length) {
  bool found = options->storeys == DG_SVG_STOREYS_ALL;
  for (int k = 0; k < s->count; k++)
    found = found || s->list[k] == options->storey;
  if (!found)
    return DG_EINVAL;
  int x0, y0, x1, y1;
  storey_extent(level, s, &x0, &y0, &x1, &y1);
  dg_writer w = {0};
  if (options->storeys == DG_SVG_STOREYS_ALL) {
    put_all_storeys(&w, level, s, options, x0, y0, x1 - x0, y1 - y0);
  } else {
    dg_svg_head(&w, level, options, x0, y0, x1 - x0, y1 - y0);
    dg_svg_tree_style(&w);
    put_storey_style(&w, s);
    put_rect(&w, "bg", x0, y0, x1 - x0, y1 - y0);
    put_storey(&w, level, s, options, options->storey);
  }
  put(&w, "</svg>\n");
  return dg_writer_take(&w, text, length);
}
