/* What `landmark` adds to its level's JSON: the mask and the landmark
 * painters (with the rectangles of rectangle landmarks). Written straight
 * through the library's JSON writer. */
#include "core/writer.h"
#include "landmark.h"

int landmark_write_json(const void *data, dg_writer *w) {
  const landmark_extension *ext = data;
  dg_writer_literal(w, ",\"mask\":{\"shape\":");
  dg_writer_cstring(w, landmark_mask_names[ext->mask]);
  dg_writer_key(w, "flip_x", false);
  dg_writer_bool(w, ext->flip_x);
  dg_writer_key(w, "flip_y", false);
  dg_writer_bool(w, ext->flip_y);
  dg_writer_literal(w, "},\"landmarks\":[");
  for (int i = 0; i < ext->shape_count; i++) {
    const landmark_shape *shape = &ext->shapes[i];
    if (i > 0)
      dg_writer_char(w, ',');
    dg_writer_literal(w, "{\"room\":");
    dg_writer_int(w, shape->room);
    dg_writer_key(w, "painter", false);
    dg_writer_cstring(w, landmark_style_names[shape->style]);
    if (shape->style == LANDMARK_STYLE_RECTANGLES) {
      dg_writer_literal(w, ",\"rectangles\":[");
      for (int r = 0; r < shape->rect_count; r++) {
        const int *q = shape->rects[r];
        if (r > 0)
          dg_writer_char(w, ',');
        dg_writer_literal(w, "{\"x\":");
        dg_writer_int(w, q[0]);
        dg_writer_key(w, "y", false);
        dg_writer_int(w, q[1]);
        dg_writer_key(w, "width", false);
        dg_writer_int(w, q[2]);
        dg_writer_key(w, "height", false);
        dg_writer_int(w, q[3]);
        dg_writer_char(w, '}');
      }
      dg_writer_char(w, ']');
    }
    dg_writer_char(w, '}');
  }
  dg_writer_char(w, ']');
  return dg_writer_status(w);
}
