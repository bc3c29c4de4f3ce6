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
typedef struct au_output {
  char roomset[RS_NAME_MAX];
  char biome[RS_NAME_MAX];
  rs_room *rooms;           /* copy of the set's rooms, owned */
  au_placement *placements; /* owned */
  int placement_count;
  au_connector *connectors;   /* owned */
  au_connection *connections; /* owned */
  int connection_count;
  rs_box *boxes;  /* world boxes by placement, owned */
  au_block *path; /* corridor paths by au_connection.path_first, owned */
  bool out_of_space;
  int grid_origin[2]; /* world x, z of grid tile (0, 0) */
  au_cycles *cycles;  /* the cycle pass's results, owned */
} au_output;

/* Frees an au_output and everything it owns (NULL-safe); the extension's
 * free_data. */
void au_output_free(void *data);

/* The extension's members of the level JSON (data: an au_output): cycles
 * (when the pass ran), roomset, placements, connections, growth, written
 * through the library's JSON writer, whose deadline polls thereby reach
 * into the large placement and connection arrays. 0 or the writer's
 * failure. */
struct dg_writer;
int au_write_json(const void *data, struct dg_writer *w);

#endif
