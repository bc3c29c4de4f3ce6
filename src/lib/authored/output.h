/* What an `authored` level keeps as its extension, and output.c's hooks
 * that write it into the level JSON. */
#ifndef DUNGEON_AUTHORED_OUTPUT_H
#define DUNGEON_AUTHORED_OUTPUT_H

#include <stdbool.h>

#include "roomset.h"
#include "state.h"

/* The placements and connections in world space, moved out of the
 * generation state, and a copy of the room set's rooms so that the level
 * outlives the context. The JSON is written only when the level is
 * serialised, so generation time is growth time. */
typedef struct authored_output {
  char roomset[AUTHORED_NAME_MAX];
  char biome[AUTHORED_NAME_MAX];
  authored_room *rooms;           /* copy of the set's rooms, owned */
  authored_placement *placements; /* owned */
  int placement_count;
  authored_connector *connectors;   /* owned */
  authored_connection *connections; /* owned */
  int connection_count;
  authored_box *boxes;  /* world boxes by placement, owned */
  authored_block *path; /* corridor paths by authored_connection.path_first, owned */
  bool out_of_space;
  int grid_origin[2];      /* world x, z of grid tile (0, 0) */
  authored_cycles *cycles; /* the cycle pass's results, owned */
} authored_output;

/* Frees an authored_output and everything it owns (NULL-safe); the extension's
 * free_data. */
void authored_output_free(void *data);

/* The extension's members of the level JSON (data: an authored_output): cycles
 * (when the pass ran), roomset, placements, connections, growth, written
 * through the library's JSON writer, whose deadline polls thereby reach
 * into the large placement and connection arrays. 0 or the writer's
 * failure. */
struct dg_writer;
int authored_write_json(const void *data, struct dg_writer *w);

/* The level's storey_plan (storey_plan.c; data: an authored_output):
 * every placement's boxes and connected doorways in grid coordinates. 0
 * or DG_ENOMEM. */
int authored_storey_plan(const void *data, dg_storey_plan *plan);

#endif
