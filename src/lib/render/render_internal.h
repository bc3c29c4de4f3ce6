/* Internal: what the SVG and Tiled renderers share. */
#ifndef DUNGEON_RENDER_INTERNAL_H
#define DUNGEON_RENDER_INTERNAL_H

#include "core/writer.h"
#include "dungeon/level.h"
#include "dungeon/render.h"

/* The drawn extent of a level in tiles, half-open [x0, x1) x [y0, y1): the
 * grid, or for a level without one the rooms with their walls, the doors,
 * the objects, the features and the graph's nodes (at least 1x1). */
void dg_render_extent(const dg_level *level, int *x0, int *y0, int *x1, int *y1);

/* A level's storeys (storeys.c): its generator's storey plan indexed by
 * room, and the storeys its rooms stand on. */
typedef struct dg_storeys {
  bool has_plan;       /* false: the level is one storey, 0 */
  dg_storey_plan plan; /* boxes and doors, by room */
  int room_count;
  int *box_first;  /* room r's boxes: plan.boxes[box_first[r] .. box_first[r + 1]) */
  int *door_first; /* and its doorways likewise */
  int *list;       /* the distinct storeys, ascending */
  int count;
} dg_storeys;

/* Opens `level`'s storeys (has_plan false, no storeys listed, for a level
 * without a plan or a client view). 0 or DG_ENOMEM; close with
 * dg_storeys_close in either case. */
int dg_storeys_open(const dg_level *level, dg_storeys *s);
void dg_storeys_close(dg_storeys *s);

/* Whether `room` stands on `storey`. */
bool dg_storeys_room_on(const dg_storeys *s, int room, int storey);

/* Whether `room`'s doorways open on more than one storey: a staircase. */
bool dg_storeys_stairs(const dg_storeys *s, int room);

/* `room`'s floor as boxes given to `box`: each of its boxes inside its
 * walls, and where two of them touch, the walls between them opened over
 * the length they share (an L-shaped room is one floor). */
void dg_storeys_floor(const dg_storeys *s, int room,
                      void (*box)(void *data, int x, int y, int width, int height), void *data);

/* How carved corridor tile `tile` stands on `storey`: DG_CORRIDOR_OFF,
 * DG_CORRIDOR_FLOOR (its floor is the storey) or DG_CORRIDOR_STAIRS (a
 * stair's step between the storey and the next one up or down, past the
 * top or bottom storey included: shown on both). */
enum { DG_CORRIDOR_OFF, DG_CORRIDOR_FLOOR, DG_CORRIDOR_STAIRS };
int dg_storeys_tile_on(const dg_storeys *s, int tile, int storey);

/* Where a carved corridor leaves `storey` for another: at the first tile
 * past its last tile on the storey, `mark` gets the tile and the storey
 * the corridor next reaches, for every such climb, in path order. */
void dg_storeys_corridor_stairs(const dg_storeys *s, int storey,
                                void (*mark)(void *data, const dg_storey_tile *at, int to),
                                void *data);

/* svg.c's pieces that svg_storeys.c draws with: the root element, title
 * and styles; a coordinate in tenths; escaped text; a kind as a class
 * suffix; a box subpath; an object or feature marker. */
void dg_svg_head(dg_writer *w, const dg_level *level, const dg_svg_options *options, int x0, int y0,
                 int width, int height);
void dg_svg_tenths(dg_writer *w, long tenths);
void dg_svg_escaped(dg_writer *w, const char *text, size_t length);
void dg_svg_class_suffix(dg_writer *w, const char *kind);

/* A graph edge from node a to node b as an SVG line of class `classes`,
 * and a node as a circle classed by its kind: the one way both the flat
 * picture and the storey views draw the graph. */
void dg_svg_edge(dg_writer *w, const char *classes, const dg_node *a, const dg_node *b);
void dg_svg_node(dg_writer *w, const dg_node *node);
void dg_svg_box(dg_writer *w, int x, int y, int width, int height);
void dg_svg_marker(dg_writer *w, const char *kind, int x, int y, int player, const char *player_id);

/* svg_storeys.c, for levels with a storey plan. Labels that never overlap
 * (on `storey` when `s` is not NULL; `names` false: only the stair lines);
 * the graph as tree plus cycle chains (on `storey` when `s` is not NULL)
 * and its style; the picture of one storey or all (options->storeys), 0,
 * DG_EINVAL (no such storey) or DG_ENOMEM. */
void dg_svg_sparse_labels(dg_writer *w, const dg_level *level, const dg_storeys *s, int storey,
                          bool names);
void dg_svg_tree_graph(dg_writer *w, const dg_graph *graph, const dg_storeys *s, int storey);
void dg_svg_tree_style(dg_writer *w);
int dg_svg_dump_storeys(const dg_level *level, const dg_storeys *s, const dg_svg_options *options,
                        char **text, size_t *length);

#endif
