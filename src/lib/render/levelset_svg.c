/* A multi-floor set as one SVG picture (include/dungeon/render.h,
 * docs/pictures.md): the floors side by side, left to right, each the
 * floor's own picture (dg_level_dump_svg) nested at its place under a
 * title, and each floor's stairs down joined to the next floor's stairs up
 * by a curve above the floors. Nested <svg> elements keep every floor in its
 * own tile coordinates, so a floor here is drawn exactly as it is alone. */
#include <stdlib.h>
#include <string.h>

#include "core/writer.h"
#include "dungeon/levelset.h"
#include "dungeon/render.h"
#include "render_internal.h"

#define SET_GAP_TILES 3 /* space between two floors, in tiles */
#define SET_TITLE_PX 28 /* the band above the floors: titles and stair links */
#define SET_MARGIN_PX 8 /* around everything */
#define XML_DECLARATION "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"

static const char set_style[] =
    "<style>.floor-title{font:14px sans-serif;fill:#ddd}"
    ".stair-link{fill:none;stroke:#f0c040;stroke-width:2;stroke-dasharray:6 4}"
    ".stair-end{fill:#f0c040}</style>";

/* Where floor `k` lies in the set picture, in pixels. */
typedef struct floor_place {
  long x, y, width, height; /* its box */
  int x0, y0;               /* its first tile (dg_render_extent) */
} floor_place;

/* The centre of tile (x, y) of a floor, in the set's pixels. */
static void tile_centre(const floor_place *place, int tile_size, int x, int y, long *px, long *py) {
  *px = place->x + (long)(x - place->x0) * tile_size + tile_size / 2;
  *py = place->y + (long)(y - place->y0) * tile_size + tile_size / 2;
}

static const dg_feature *find_feature(const dg_level *level, const char *kind) {
  for (int i = 0; i < level->feature_count; i++)
    if (strcmp(level->features[i].kind, kind) == 0)
      return &level->features[i];
  return NULL;
}

/* Floor k's stairs down to floor k + 1's stairs up: a curve rising into the
 * title band between them, with a dot at each end. */
static void put_stair_link(dg_writer *w, const dg_level *upper, const dg_level *lower,
                           const floor_place *upper_place, const floor_place *lower_place,
                           int tile_size, int k) {
  const dg_feature *down = find_feature(upper, "stairs_down");
  const dg_feature *up = find_feature(lower, "stairs_up");
  if (down == NULL || up == NULL)
    return;
  long x1, y1, x2, y2;
  tile_centre(upper_place, tile_size, down->x, down->y, &x1, &y1);
  tile_centre(lower_place, tile_size, up->x, up->y, &x2, &y2);
  long top = SET_MARGIN_PX + SET_TITLE_PX / 2;
  dg_writer_format(w,
                   "<g class=\"stair-link-%d\"><title>floor %d stairs down (%d, %d) to floor %d "
                   "stairs up (%d, %d)</title>",
                   k + 1, k + 1, down->x, down->y, k + 2, up->x, up->y);
  dg_writer_format(w, "<path class=\"stair-link\" d=\"M%ld %ld C%ld %ld %ld %ld %ld %ld\"/>", x1,
                   y1, x1, top, x2, top, x2, y2);
  dg_writer_format(w, "<circle class=\"stair-end\" cx=\"%ld\" cy=\"%ld\" r=\"%d\"/>", x1, y1,
                   tile_size / 2 + 1);
  dg_writer_format(w, "<circle class=\"stair-end\" cx=\"%ld\" cy=\"%ld\" r=\"%d\"/></g>", x2, y2,
                   tile_size / 2 + 1);
}

/* Floor k's picture, nested at its place: its own document without the XML
 * declaration, its root <svg> given x and y. */
static int put_floor(dg_writer *w, const dg_level *level, const dg_svg_options *options,
                     const floor_place *place, int k, int floors) {
  char *text = NULL;
  size_t length = 0;
  int rc = dg_level_dump_svg(level, options, &text, &length);
  if (rc != 0)
    return rc;
  const char *body = text;
  size_t declaration = sizeof XML_DECLARATION - 1;
  if (length >= declaration && memcmp(body, XML_DECLARATION, declaration) == 0)
    body += declaration;
  /* Every picture dg_level_dump_svg writes opens with "<svg ". */
  if (strncmp(body, "<svg ", 5) != 0) {
    free(text);
    return DG_EINVAL;
  }
  dg_writer_format(w, "<text class=\"floor-title\" x=\"%ld\" y=\"%d\">floor %d of %d", place->x,
                   SET_MARGIN_PX + 16, k + 1, floors);
  if (!level->client_view) { /* a client view names no seed */
    dg_writer_literal(w, ", seed ");
    dg_writer_uint(w, level->seed);
  }
  dg_writer_literal(w, "</text>");
  dg_writer_format(w, "<svg x=\"%ld\" y=\"%ld\" ", place->x, place->y);
  size_t rest = length - (size_t)(body - text) - 5;
  /* Drop the trailing newline: the set's document ends once. */
  if (rest > 0 && body[5 + rest - 1] == '\n')
    rest--;
  dg_writer_raw(w, body + 5, rest);
  free(text);
  return 0;
}

int dg_levelset_dump_svg(dg_level *const *levels, int floors, const dg_svg_options *options,
                         char **text, size_t *length) {
  dg_svg_options defaults;
  if (options == NULL) {
    dg_svg_options_init(&defaults);
    options = &defaults;
  }
  if (floors < 1 || floors > DG_FLOORS_MAX || options->tile_size < DG_SVG_TILE_MIN ||
      options->tile_size > DG_SVG_TILE_MAX)
    return DG_EINVAL;
  floor_place places[DG_FLOORS_MAX];
  long x = SET_MARGIN_PX, height = 0;
  for (int k = 0; k < floors; k++) {
    int x0, y0, x1, y1;
    dg_render_extent(levels[k], &x0, &y0, &x1, &y1);
    places[k] = (floor_place){.x = x,
                              .y = SET_MARGIN_PX + SET_TITLE_PX,
                              .width = (long)(x1 - x0) * options->tile_size,
                              .height = (long)(y1 - y0) * options->tile_size,
                              .x0 = x0,
                              .y0 = y0};
    x += places[k].width + (long)SET_GAP_TILES * options->tile_size;
    height = places[k].height > height ? places[k].height : height;
  }
  long total_width = x - (long)SET_GAP_TILES * options->tile_size + SET_MARGIN_PX;
  long total_height = SET_MARGIN_PX + SET_TITLE_PX + height + SET_MARGIN_PX;
  dg_writer w = {0};
  dg_writer_literal(&w, XML_DECLARATION);
  dg_writer_format(&w,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%ld\" "
                   "height=\"%ld\" viewBox=\"0 0 %ld %ld\" data-floors=\"%d\"",
                   total_width, total_height, total_width, total_height, floors);
  if (levels[0]->client_view) {
    dg_writer_format(&w, " data-view=\"client\"><title>%s, %d floors (client view)</title>",
                     levels[0]->algorithm->name, floors);
  } else {
    dg_writer_literal(&w, " data-seed=\"");
    dg_writer_uint(&w, levels[0]->seed);
    dg_writer_format(&w, "\"><title>%s, %d floors, seed ", levels[0]->algorithm->name, floors);
    dg_writer_uint(&w, levels[0]->seed);
    dg_writer_literal(&w, "</title>");
  }
  dg_writer_raw(&w, set_style, sizeof set_style - 1);
  dg_writer_format(&w, "<rect fill=\"#101018\" width=\"%ld\" height=\"%ld\"/>", total_width,
                   total_height);
  int rc = 0;
  for (int k = 0; k < floors && rc == 0; k++)
    rc = put_floor(&w, levels[k], options, &places[k], k, floors);
  for (int k = 0; k + 1 < floors && rc == 0; k++)
    put_stair_link(&w, levels[k], levels[k + 1], &places[k], &places[k + 1], options->tile_size, k);
  dg_writer_literal(&w, "</svg>\n");
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  return dg_writer_take(&w, text, length);
}
