/* Internal: the cycle pass of the `authored` generator (seed 003, "Inside
 * the search" and "Making it fast"), as the driver (authored.c) and the
 * tests call it. Its parts: cycles_candidates.c (which pairs), cycles_search.c
 * (the chain search and commit), cycles.c (this interface: the passes and
 * the scratch they share). */
#ifndef DUNGEON_AUTHORED_CYCLES_H
#define DUNGEON_AUTHORED_CYCLES_H

#include "state.h"

/* Stall cutoffs whose effect every search records (seed 003, "Measuring
 * instead of guessing"); the last, 0, is "never". */
extern const int authored_cutoffs[AUTHORED_CUTOFFS];

/* One pass closing cycles among the connectors open now; runs several
 * times per generation (while the tree grows and once after), accumulating
 * into state->cycles (created on first use, owned by the state). Candidates
 * ranked worst stretch first, each searched by weighted A* over room moves
 * or, with cycles=corridors, carved as a corridor. 0, DG_ENOMEM,
 * DG_ECANCELED, DG_ETIMEDOUT. */
int authored_close_cycles(authored_state *state, dg_cancel *cancel);

enum { AUTHORED_FOUND, AUTHORED_FAIL_TABLE, AUTHORED_FAIL_CUTOFF, AUTHORED_FAIL_EXHAUSTED };

/* One cycle search from connector `from` to connector `to` without
 * committing anything (tests and tools): *status is AUTHORED_FOUND or why it
 * failed; *cost and *rooms describe the chain found (-1 otherwise).
 * 0 or DG_ENOMEM. */
int authored_search_pair(authored_state *state, int from, int to, int *status, int *cost,
                         int *rooms, int64_t *expanded);

/* Frees the scratch of the chain search and of the corridor baseline
 * (NULL-safe); the results in state->cycles stay. */
void authored_search_free(authored_state *state);

#endif
