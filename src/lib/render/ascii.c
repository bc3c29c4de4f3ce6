/* The ASCII map: the grid's rows as text (with a content table's entities
 * over them), or for a level without a grid a readable list of its graph;
 * then the generator's legend, if it has one. */
#include <stdlib.h>
#include <string.h>

#include "core/legend.h"
#include "core/writer.h"
#include "dungeon/level.h"

static int dump_graph(const dg_level *level, char **text, size_t *length) {
  dg_writer w = {0};
  const dg_graph *graph = &level->graph;
  for (int i = 0; i < graph->node_count; i++) {
    const dg_node *node = &graph->nodes[i];
    dg_writer_format(&w, "node %d %s (%d,%d)%s%s\n", i, node->kind, node->x, node->y,
                     node->label[0] ? " " : "", node->label);
  }
  for (int e = 0; e < graph->edge_count; e++) {
    const dg_edge *edge = &graph->edges[e];
    dg_writer_format(&w, "edge %d-%d %s length %d%s\n", edge->from, edge->to, edge->kind,
                     edge->length, edge->cycle ? " cycle" : "");
  }
  return dg_writer_take(&w, text, length);
}

/* Entities over the map (docs/population.md): 'e' on every tile of an
 * encounter's footprint, '$' on a loot item. Only levels a content table
 * filled have any, so every other map keeps its bytes. */
static void draw_entities(const dg_level *level, char *rows) {
  const dg_grid *grid = &level->grid;
  for (int i = 0; i < level->population.entity_count; i++) {
    const dg_entity *e = &level->population.entities[i];
    for (int y = e->y; y < e->y + e->height; y++)
      for (int x = e->x; x < e->x + e->width; x++)
        if (dg_grid_contains(grid, x, y))
          rows[(size_t)y * (size_t)(grid->width + 1) + (size_t)x] =
              e->kind == DG_ENTITY_ENCOUNTER ? 'e' : '$';
  }
}

int dg_level_dump_ascii(const dg_level *level, char **text, size_t *length) {
  if (!level->has_grid)
    return dump_graph(level, text, length);
  const dg_grid *grid = &level->grid;
  char *legend = NULL;
  size_t legend_length = 0;
  if (level->extension.to_text != NULL) {
    if (level->extension.to_text(level, &legend) != 0)
      return DG_ENOMEM;
    legend_length = strlen(legend);
  }
  size_t size = (size_t)(grid->width + 1) * (size_t)grid->height;
  char *buffer = malloc(size + legend_length + 1);
  if (buffer == NULL) {
    free(legend);
    return DG_ENOMEM;
  }
  char *at = buffer;
  for (int y = 0; y < grid->height; y++) {
    dg_grid_glyph_row(grid, y, at);
    at += grid->width;
    *at++ = '\n';
  }
  draw_entities(level, buffer);
  if (legend_length > 0)
    memcpy(at, legend, legend_length);
  at[legend_length] = '\0';
  free(legend);
  *text = buffer;
  if (length != NULL)
    *length = size + legend_length;
  return 0;
}
