/* What `classic` adds to its level's JSON: the closets, each square spelled
 * out. Written straight through the library's JSON writer. */
#include "classic.h"
#include "core/writer.h"

static void write_member(dg_writer *w, const char *key, int value) {
  dg_writer_key(w, key, false);
  dg_writer_int(w, value);
}

int classic_write_json(const void *data, dg_writer *w) {
  const classic_closets *closets = data;
  dg_writer_literal(w, ",\"closets\":[");
  for (int i = 0; i < closets->count; i++) {
    const classic_closet *c = &closets->items[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"x\":");
    dg_writer_int(w, c->x);
    write_member(w, "y", c->y);
    write_member(w, "middle_x", c->x + c->dx);
    write_member(w, "middle_y", c->y + c->dy);
    write_member(w, "chest_x", c->x + 2 * c->dx);
    write_member(w, "chest_y", c->y + 2 * c->dy);
    dg_writer_key(w, "middle", false);
    /* The middle square's tile, by its legend name. */
    dg_writer_cstring(w, dg_tile_name(c->sealed ? DG_TILE_STONE : DG_TILE_SECRET_CORRIDOR));
    dg_writer_char(w, '}');
  }
  dg_writer_char(w, ']');
  return dg_writer_status(w);
}
