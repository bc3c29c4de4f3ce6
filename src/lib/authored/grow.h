/* Internal: tree growth of the `authored` generator (seed 003, "The setup"
 * and footnote 1). */
#ifndef DUNGEON_AUTHORED_GROW_H
#define DUNGEON_AUTHORED_GROW_H

#include "state.h"

/* Called while the tree grows (every `cycle_interval` tree rooms): the
 * cycle pass, handed in by the driver so that growth does not depend on
 * it. 0 or a negative code, which stops growth. */
typedef int (*authored_grow_hook)(authored_state *state, dg_cancel *cancel);

/* Grows the tree: start room at the origin, then always the open
 * connector nearest the centre, calling `every_interval` (may be NULL)
 * after every `cycle_interval` tree rooms. 0, DG_ENOMEM, DG_ECANCELED,
 * DG_ETIMEDOUT, or what the hook returned. */
int authored_grow(authored_state *state, dg_cancel *cancel, authored_grow_hook every_interval);

#endif
