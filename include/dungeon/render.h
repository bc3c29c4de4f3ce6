/* Pictures and engine exports of a level: an SVG image and a Tiled map.
 *
 * Both are pure functions of the level (and, for SVG, the options): no I/O,
 * no globals, the same level gives the same bytes, and any thread may call
 * them on a level it does not modify. The ASCII map and the level JSON live
 * in level.h; docs/pictures.md describes what each picture shows. */
#ifndef DUNGEON_RENDER_H
#define DUNGEON_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "dungeon/error.h"
#include "dungeon/level.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DG_SVG_TILE_MIN 1
#define DG_SVG_TILE_MAX 64
#define DG_SVG_TILE_DEFAULT 12
/* The largest storey height `storey` takes, either way. */
#define DG_SVG_STOREY_LIMIT 1000000

/* Tile size of the Tiled export, in pixels, and the tileset image it names
 * (shipped in docs/tiled/, installed with the room sets' data). */
#define DG_TILED_TILE_SIZE 16
#define DG_TILED_TILESET_IMAGE "dungeond-tiles.png"
/* The strip with the progression pass's tiles after the others, named by
 * the maps of levels that have locks or one-way doors. */
#define DG_TILED_TILESET_IMAGE_PROGRESSION "dungeond-tiles-progression.png"

/* Which storeys of a level whose rooms stand on several (authored) an SVG
 * draws; docs/pictures.md, "Authored levels by storey". */
typedef enum dg_svg_storeys {
  DG_SVG_STOREYS_FLAT = 0, /* every room in one plane, as the level's grid is drawn */
  DG_SVG_STOREYS_ONE,      /* dg_svg_options.storey alone, the others as faint outlines */
  DG_SVG_STOREYS_ALL       /* every storey side by side, each captioned "y = N" */
} dg_svg_storeys;

/* What an SVG picture shows. */
typedef struct dg_svg_options {
  int tile_size; /* pixels per tile in the width/height attributes, DG_SVG_TILE_MIN..MAX */
  bool labels;   /* room labels (the room's label, else its index) */
  bool graph;    /* the connectivity graph over the map: nodes, edges, cycle edges dashed (authored:
                    tree and cycle chains) */
  dg_svg_storeys storeys; /* by storey; a level without storeys has the one storey 0 */
  int storey;             /* the storey drawn, for DG_SVG_STOREYS_ONE */
} dg_svg_options;

/* Fills `options` with the defaults: DG_SVG_TILE_DEFAULT, labels on, graph
 * off, flattened. Thread-safe. */
void dg_svg_options_init(dg_svg_options *options);

/* Reads the `storey` option's text into `options`: "flat", "all" or a
 * storey's height as a decimal integer ("4", "-8"). 0, or DG_EINVAL with
 * `options` unchanged. Thread-safe. */
int dg_svg_storey_parse(const char *text, dg_svg_options *options);

/* The storeys `level` has, ascending: the heights its rooms' doors open
 * at (authored levels), or the one storey 0 for a level without a storey
 * plan (every other algorithm, and a client view). Up to `capacity` go to
 * `storeys` (may be NULL when 0), their number to *count. 0 or DG_ENOMEM.
 * Thread-safe. */
int dg_level_storeys(const dg_level *level, int *storeys, int capacity, int *count);

/* Whether `options` can draw `level`: 0, or DG_EINVAL when it asks for a
 * storey the level does not have, with `err` (field "storey") naming the
 * storeys it has; DG_ENOMEM. Thread-safe. */
int dg_svg_check_storey(const dg_level *level, const dg_svg_options *options, dg_error *err);

/* The level as an SVG 1.1 document (UTF-8, NUL-terminated) in a buffer the
 * caller frees with free(); its length without the NUL to *length (may be
 * NULL). Tiles are drawn in tile units (viewBox) as one path per tile kind,
 * each row's runs of one kind merged, so a 1000x1000 level stays a few MB;
 * then doors, objects and features by kind (chest, stairs_up, stairs_down,
 * spawn, and a marker for any other kind), room labels and the optional
 * graph. A level
 * without a grid draws its rooms as boxes and always draws its graph. A
 * level with a storey plan (authored) gets labels that never overlap and
 * its graph as tree plus cycle chains, and options->storeys draws it by
 * storey, its carved corridors on each storey they touch (docs/pictures.md). `options` may be NULL
 * for the defaults. Returns 0, DG_EINVAL (tile size out of range, or a storey the level does not
 * have: dg_svg_check_storey says which it has) or DG_ENOMEM. Deterministic; thread-safe. */
int dg_level_dump_svg(const dg_level *level, const dg_svg_options *options, char **text,
                      size_t *length);

/* The level as a Tiled JSON map (.tmj, Tiled 1.10 format): orthogonal,
 * DG_TILED_TILE_SIZE pixel tiles, an embedded tileset (one tile per
 * dg_tile, gid = tile + 1, each with its `type` and a `walkable` property,
 * image DG_TILED_TILESET_IMAGE), a tile layer "tiles" of width * height
 * gids, and an object layer "objects" with rooms (rectangles, type "room"),
 * doors, the level's objects and its features (points, `type` = kind:
 * "chest", "stairs_up", "stairs_down", "spawn"...). A level without a grid gets a tile layer
 * painted from its room boxes. A level whose rooms stand on several storeys
 * (authored) has instead one group layer per storey ("y = N") holding that
 * storey's "tiles" and "objects", stairs as objects naming the storey they
 * reach, carved corridors on each storey they touch (docs/pictures.md). Caller frees *text with
 * free(); length to *length (may be NULL). Returns 0, DG_EINVAL (a grid-less level too large to
 * paint) or DG_ENOMEM. Deterministic; thread-safe. */
int dg_level_dump_tiled(const dg_level *level, char **text, size_t *length);

/* A multi-floor set (dg_levelset_generate) as one SVG picture: the floors
 * side by side, left to right, each drawn as dg_level_dump_svg draws it
 * alone (nested <svg> at its place) under a title "floor K of N, seed S",
 * and each floor's stairs down joined to the next floor's stairs up by a
 * dashed curve (a <g class="stair-link-K"> with a <title>). `floors`
 * 1..DG_FLOORS_MAX; `options` as for one level (NULL: defaults). Caller
 * frees *text; length to *length (may be NULL). 0, DG_EINVAL or DG_ENOMEM.
 * Deterministic; thread-safe. */
int dg_levelset_dump_svg(dg_level *const *levels, int floors, const dg_svg_options *options,
                         char **text, size_t *length);

/* A multi-floor set as one Tiled map: the size of its largest floor, the
 * same tileset as a level's, and one group layer per floor ("floor K", with
 * `floor`, `of`, `seed`, `origin_x`, `origin_y` properties) holding that
 * floor's "tiles" (padded with empty cells) and "objects" layers; object
 * ids run on across floors. Only floor 1 is visible when the map opens.
 * Caller frees *text; 0, DG_EINVAL or DG_ENOMEM. Deterministic;
 * thread-safe. */
int dg_levelset_dump_tiled(dg_level *const *levels, int floors, char **text, size_t *length);

#ifdef __cplusplus
}
#endif
#endif
