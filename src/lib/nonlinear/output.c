/* What `nonlinear` adds to its level: the labelled points with their dice in
 * the JSON (written straight through the library's JSON writer) and the
 * legend under the ASCII map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/writer.h"
#include "nonlinear.h"

static void write_member(dg_writer *w, const char *key, int value) {
  dg_writer_key(w, key, false);
  dg_writer_int(w, value);
}

int nl_write_json(const void *data, dg_writer *w) {
  const nl_extension *e = data;
  dg_writer_literal(w, ",\"nonlinear\":{\"method\":");
  dg_writer_cstring(w, nl_method_names[e->method]);
  char die[8];
  int die_length = snprintf(die, sizeof die, "d%d", nl_destination_sides(e->method));
  dg_writer_key(w, "die", false);
  dg_writer_string(w, die, (size_t)die_length);
  dg_writer_literal(w, ",\"areas\":{\"columns\":");
  dg_writer_int(w, e->columns);
  write_member(w, "rows", e->rows);
  write_member(w, "width", e->area_width);
  write_member(w, "height", e->area_height);
  write_member(w, "origin_x", e->origin_x);
  write_member(w, "origin_y", e->origin_y);
  dg_writer_literal(w, "},\"room_table\":[");
  for (int i = 0; i < e->table.count; i++) {
    const nl_room_entry *entry = &e->table.entries[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"roll\":");
    dg_writer_int(w, i + 1);
    write_member(w, "width", entry->width);
    write_member(w, "height", entry->height);
    dg_writer_key(w, "shape", false);
    dg_writer_cstring(w, entry->cross ? "cross" : "rectangle");
    dg_writer_char(w, '}');
  }
  dg_writer_literal(w, "],\"points\":[");
  for (int i = 0; i < e->point_count; i++) {
    const nl_point *p = &e->points[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"label\":");
    dg_writer_cstring(w, p->label);
    write_member(w, "node", i);
    dg_writer_key(w, "kind", false);
    dg_writer_cstring(w, p->kind);
    dg_writer_key(w, "form", false);
    dg_writer_cstring(w, p->form);
    write_member(w, "area_x", p->cell % e->columns);
    write_member(w, "area_y", p->cell / e->columns);
    if (p->d10 >= 0)
      write_member(w, "d10", p->d10);
    if (p->rolls[0] >= 0) {
      dg_writer_literal(w, ",\"rolls\":[");
      dg_writer_int(w, p->rolls[0]);
      dg_writer_char(w, ',');
      dg_writer_int(w, p->rolls[1]);
      dg_writer_char(w, ']');
    }
    if (p->shape_entry > 0)
      write_member(w, "room_table_roll", p->shape_entry);
    write_member(w, "exits", p->exits);
    dg_writer_char(w, '}');
  }
  dg_writer_literal(w, "]}");
  return dg_writer_status(w);
}

/* Under the map: every labelled point with how it was rolled, then every
 * corridor with its destination roll, so a designer can follow the dice. */
int nl_write_text(const dg_level *level, char **text) {
  const nl_extension *e = level->extension.data;
  const dg_graph *graph = &level->graph;
  dg_writer w = {0};
  dg_writer_format(&w, "\nlegend: method %s (d%d), %dx%d areas of %dx%d tiles\n",
                   nl_method_names[e->method], nl_destination_sides(e->method), e->columns, e->rows,
                   e->area_width, e->area_height);
  dg_writer_format(&w, "  %-6s %-9s %-9s %-7s %s\n", "label", "kind", "tile", "area", "rolled");
  for (int i = 0; i < e->point_count; i++) {
    const nl_point *p = &e->points[i];
    const dg_node *node = &graph->nodes[i];
    char tile[24], area[24], rolled[96];
    snprintf(tile, sizeof tile, "%d,%d", node->x, node->y);
    snprintf(area, sizeof area, "%d,%d", p->cell % e->columns, p->cell / e->columns);
    int at = 0;
    if (p->d10 >= 0)
      at = snprintf(rolled, sizeof rolled, "d10=%d ", p->d10);
    else
      rolled[0] = '\0';
    if (node->room >= 0) {
      const dg_room *room = &level->rooms[node->room];
      snprintf(rolled + at, sizeof rolled - (size_t)at, "%sroom table %d: %dx%d %s, exits %d",
               strcmp(p->form, "start") == 0 ? "start, " : "", p->shape_entry, room->width,
               room->height, room->kind, p->exits);
    } else if (p->rolls[0] >= 0) {
      snprintf(rolled + at, sizeof rolled - (size_t)at, "rolls %d,%d: %s", p->rolls[0], p->rolls[1],
               p->form);
    } else if (strcmp(node->kind, "sublevel") == 0) {
      snprintf(rolled + at, sizeof rolled - (size_t)at, "crossing: stairs to the level %s",
               p->form);
    } else {
      snprintf(rolled + at, sizeof rolled - (size_t)at, "%s", p->form);
    }
    dg_writer_format(&w, "  %-6s %-9s %-9s %-7s %s\n", node->label, node->kind, tile, area, rolled);
  }
  dg_writer_literal(&w, "corridors (from-to roll):");
  for (int i = 0; i < graph->edge_count; i++) {
    const dg_edge *edge = &graph->edges[i];
    dg_writer_format(&w, "%s%s-%s%s %d", i % 8 == 0 ? "\n " : "", graph->nodes[edge->from].label,
                     graph->nodes[edge->to].label,
                     strcmp(edge->kind, "sublevel") == 0 ? "(sub)" : "", edge->roll);
    if (i + 1 < graph->edge_count)
      dg_writer_char(&w, ',');
  }
  dg_writer_char(&w, '\n');
  return dg_writer_take(&w, text, NULL);
}
