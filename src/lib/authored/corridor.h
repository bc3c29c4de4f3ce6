/* Internal: the corridor baseline of the cycle pass (seed 003, "The failed
 * prototype"), cycles=corridors. */
#ifndef DUNGEON_AUTHORED_CORRIDOR_H
#define DUNGEON_AUTHORED_CORRIDOR_H

#include "state.h"

/* A procedural corridor between connectors `from` and `to`: *built, its
 * walking *length and the cells *expanded. A built corridor is carved into
 * the occupancy, recorded as a "corridor" connection of cycle `cycle` and
 * its path appended to state->path. The search scratch lives in state->corridors
 * (created on first use). 0, DG_ENOMEM, DG_ECANCELED or DG_ETIMEDOUT. */
int authored_corridor(authored_state *state, int from, int to, int cycle, bool *built, int *length,
                      int64_t *expanded);

/* Frees the scratch of authored_corridor (NULL-safe). */
void authored_corridor_free(authored_state *state);

#endif
