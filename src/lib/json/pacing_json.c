/* A pacing parameter's control points written as JSON, for the level's
 * parameters (level_json.c) and its population member (population_json.c):
 * a file of its own so that neither writer calls the other back. */
#include "json/pacing_json.h"

#include "model/params_internal.h"

void dg_pacing_points_write(dg_writer *w, const char *text) {
  int xs[DG_PACING_POINTS_MAX], ys[DG_PACING_POINTS_MAX];
  int count = dg_pacing_points(text, xs, ys);
  dg_writer_char(w, '[');
  for (int i = 0; i < count; i++) {
    dg_writer_literal(w, "[");
    dg_writer_int(w, xs[i]);
    dg_writer_char(w, ',');
    dg_writer_int(w, ys[i]);
    dg_writer_char(w, ']');
    if (i + 1 < count)
      dg_writer_char(w, ',');
  }
  dg_writer_char(w, ']');
}
