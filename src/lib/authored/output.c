/* What `authored` adds to its level's JSON, written straight through the
 * library's JSON writer: the cycles built (with the stall-cutoff curve),
 * the room set, every placement with its world boxes and connectors, every
 * connection (with a corridor's path), and how growth stopped. */
#include "output.h"

#include <stdlib.h>

#include "core/writer.h"
#include "cycles.h"

void authored_output_free(void *data) {
  authored_output *out = data;
  if (out == NULL)
    return;
  free(out->rooms);
  free(out->placements);
  free(out->connectors);
  free(out->connections);
  free(out->boxes);
  free(out->path);
  authored_cycles_free(out->cycles);
  free(out);
}

static void write_member(dg_writer *w, const char *key, int64_t value) {
  dg_writer_key(w, key, false);
  dg_writer_int(w, value);
}

static void write_triple(dg_writer *w, int x, int y, int z) {
  dg_writer_char(w, '[');
  dg_writer_int(w, x);
  dg_writer_char(w, ',');
  dg_writer_int(w, y);
  dg_writer_char(w, ',');
  dg_writer_int(w, z);
  dg_writer_char(w, ']');
}

/* {"placement":P,"connector":K}: a connector by its room and its index
 * within the room. */
static void write_end(dg_writer *w, const authored_output *out, int connector) {
  const authored_connector *c = &out->connectors[connector];
  dg_writer_literal(w, "{\"placement\":");
  dg_writer_int(w, c->placement);
  write_member(w, "connector", connector - out->placements[c->placement].conn_first);
  dg_writer_char(w, '}');
}

/* The cycles built and the stall-cutoff curve (seed 003, "Measuring
 * instead of guessing"): for each cutoff, the cycles it would have lost and
 * the failed-search expansions it would have saved. */
static void write_cycles(dg_writer *w, const authored_output *out) {
  const authored_cycles *cy = out->cycles;
  dg_writer_literal(w, ",\"cycles\":{\"built\":[");
  for (int i = 0; i < cy->built.count; i++) {
    const authored_cycle *c = &cy->built.items[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"from\":");
    write_end(w, out, c->from);
    dg_writer_literal(w, ",\"to\":");
    write_end(w, out, c->to);
    write_member(w, "rooms", c->rooms);
    write_member(w, "cost", c->cost);
    write_member(w, "graph_distance", c->graph_distance);
    write_member(w, "expansions", c->expansions);
    dg_writer_char(w, '}');
  }
  dg_writer_literal(w, "],\"cutoff_curve\":[");
  for (int k = 0; k < AUTHORED_CUTOFFS - 1; k++) {
    if (k > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"cutoff\":");
    dg_writer_int(w, authored_cutoffs[k]);
    write_member(w, "lost_cycles", cy->lost[k]);
    write_member(w, "saved_expansions", cy->saved[k]);
    dg_writer_char(w, '}');
  }
  dg_writer_literal(w, "]}");
}

/* Placements: everything a client needs without the room set, including
 * world-space boxes so that overlaps can be checked. */
static void write_placements(dg_writer *w, const authored_output *out) {
  static const char *const states[] = {"open", "connected", "closed"};
  dg_writer_literal(w, ",\"placements\":[");
  for (int i = 0; i < out->placement_count; i++) {
    const authored_placement *p = &out->placements[i];
    const authored_room *room = &out->rooms[p->room];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"id\":");
    dg_writer_int(w, i);
    dg_writer_key(w, "room", false);
    dg_writer_cstring(w, room->id);
    write_member(w, "chain", p->chain);
    dg_writer_literal(w, ",\"origin\":");
    write_triple(w, p->origin[0], p->origin[1], p->origin[2]);
    write_member(w, "rotation", p->rotation * 90);
    write_member(w, "depth", p->depth);
    write_member(w, "parent", p->parent);
    dg_writer_literal(w, ",\"tags\":[");
    for (int t = 0; t < room->tag_count; t++) {
      if (t > 0)
        dg_writer_char(w, ',');
      dg_writer_cstring(w, room->tags[t]);
    }
    dg_writer_literal(w, "],\"boxes\":[");
    for (int b = 0; b < p->box_count; b++) {
      const authored_box *box = &out->boxes[p->box_first + b];
      if (b > 0)
        dg_writer_char(w, ',');
      dg_writer_literal(w, "{\"at\":");
      write_triple(w, box->x0, box->y0, box->z0);
      dg_writer_literal(w, ",\"size\":");
      write_triple(w, box->x1 - box->x0, box->y1 - box->y0, box->z1 - box->z0);
      dg_writer_char(w, '}');
    }
    dg_writer_literal(w, "],\"connectors\":[");
    for (int k = 0; k < p->conn_count; k++) {
      const authored_connector *c = &out->connectors[p->conn_first + k];
      if (k > 0)
        dg_writer_char(w, ',');
      dg_writer_literal(w, "{\"at\":");
      write_triple(w, c->x, c->y, c->z);
      dg_writer_key(w, "facing", false);
      dg_writer_cstring(w, authored_facing_names[c->facing]);
      dg_writer_key(w, "state", false);
      dg_writer_cstring(w, states[c->state]);
      dg_writer_char(w, '}');
    }
    dg_writer_literal(w, "]}");
  }
  dg_writer_char(w, ']');
}

static void write_connections(dg_writer *w, const authored_output *out) {
  dg_writer_literal(w, ",\"connections\":[");
  for (int i = 0; i < out->connection_count; i++) {
    const authored_connection *c = &out->connections[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"kind\":");
    dg_writer_cstring(w, c->kind);
    write_member(w, "cycle", c->cycle);
    dg_writer_literal(w, ",\"from\":");
    write_end(w, out, c->a);
    dg_writer_literal(w, ",\"to\":");
    write_end(w, out, c->b);
    if (c->path_count > 0) {
      /* A corridor's blocks, doorway to doorway (corridor.c). */
      dg_writer_literal(w, ",\"path\":[");
      for (int k = 0; k < c->path_count; k++) {
        const authored_block *block = &out->path[c->path_first + k];
        if (k > 0)
          dg_writer_char(w, ',');
        write_triple(w, block->x, block->y, block->z);
      }
      dg_writer_char(w, ']');
    }
    dg_writer_char(w, '}');
  }
  dg_writer_char(w, ']');
}

int authored_write_json(const void *data, dg_writer *w) {
  const authored_output *out = data;
  if (out->cycles != NULL)
    write_cycles(w, out);
  dg_writer_literal(w, ",\"roomset\":{\"name\":");
  dg_writer_cstring(w, out->roomset);
  dg_writer_key(w, "biome", false);
  dg_writer_cstring(w, out->biome);
  dg_writer_char(w, '}');
  write_placements(w, out);
  write_connections(w, out);
  dg_writer_literal(w, ",\"growth\":{\"stop_reason\":");
  dg_writer_cstring(w, out->out_of_space ? "no_space" : "room_count");
  dg_writer_literal(w, ",\"grid_origin\":[");
  dg_writer_int(w, out->grid_origin[0]);
  dg_writer_char(w, ',');
  dg_writer_int(w, out->grid_origin[1]);
  dg_writer_literal(w, "]}");
  return dg_writer_status(w);
}
