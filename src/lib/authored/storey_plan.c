/* An authored level's rooms as they stand in 3D, for the pictures drawn
 * by storey (dg_level.storey_plan, docs/pictures.md): each
 * placement's world boxes and connected doorways, moved into grid
 * coordinates, and the cycle pass's carved corridors tile by tile. A
 * doorway block, and a corridor's path block (where a walker's feet are),
 * stands one above the floor it opens on. */
#include <stdlib.h>

#include "output.h"

int authored_storey_plan(const void *data, dg_storey_plan *plan) {
  const authored_output *out = data;
  *plan = (dg_storey_plan){0};
  int boxes = 0, doors = 0;
  for (int i = 0; i < out->placement_count; i++) {
    const authored_placement *p = &out->placements[i];
    boxes += p->box_count;
    for (int k = 0; k < p->conn_count; k++)
      doors += out->connectors[p->conn_first + k].state == AUTHORED_CONN_CONNECTED;
  }
  plan->boxes = malloc((size_t)(boxes > 0 ? boxes : 1) * sizeof *plan->boxes);
  plan->doors = malloc((size_t)(doors > 0 ? doors : 1) * sizeof *plan->doors);
  int tiles = 0;
  for (int i = 0; i < out->connection_count; i++)
    tiles += out->connections[i].path_count;
  plan->tiles = malloc((size_t)(tiles > 0 ? tiles : 1) * sizeof *plan->tiles);
  if (plan->boxes == NULL || plan->doors == NULL || plan->tiles == NULL) {
    dg_storey_plan_free(plan);
    return DG_ENOMEM;
  }
  int ox = out->grid_origin[0], oz = out->grid_origin[1];
  for (int i = 0; i < out->placement_count; i++) {
    const authored_placement *p = &out->placements[i];
    for (int b = 0; b < p->box_count; b++) {
      const authored_box *box = &out->boxes[p->box_first + b];
      plan->boxes[plan->box_count++] = (dg_storey_box){.room = i,
                                                       .x = box->x0 - ox,
                                                       .y = box->z0 - oz,
                                                       .width = box->x1 - box->x0,
                                                       .height = box->z1 - box->z0,
                                                       .storey = box->y0};
    }
    for (int k = 0; k < p->conn_count; k++) {
      const authored_connector *c = &out->connectors[p->conn_first + k];
      if (c->state == AUTHORED_CONN_CONNECTED)
        plan->doors[plan->door_count++] =
            (dg_storey_door){.room = i, .x = c->x - ox, .y = c->z - oz, .storey = c->y - 1};
    }
  }
  for (int i = 0, corridor = 0; i < out->connection_count; i++) {
    const authored_connection *c = &out->connections[i];
    for (int k = 0; k < c->path_count; k++) {
      const authored_block *block = &out->path[c->path_first + k];
      plan->tiles[plan->tile_count++] = (dg_storey_tile){
          .corridor = corridor, .x = block->x - ox, .y = block->z - oz, .floor = block->y - 1};
    }
    corridor += c->path_count > 0;
  }
  return 0;
}
