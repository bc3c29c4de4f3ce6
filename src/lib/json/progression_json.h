/* Internal: the progression pass's part of the level JSON (the
 * `progression` member, room and feature members), written by the level
 * serialiser through its writer. See docs/progression.md. */
#ifndef DUNGEON_PROGRESSION_JSON_H
#define DUNGEON_PROGRESSION_JSON_H

#include <stdbool.h>

#include "core/writer.h"
#include "dungeon/level.h"

/* Writes `,"progression":{...}`: counts, why fewer, the boss room and the
 * witness (spheres, key order, walk, and for consumable keys why no pickup
 * order strands the party). Only for a level whose progression was placed. */
void dg_progression_write_json(dg_writer *w, const dg_level *level);

/* Writes room `room`'s `,"role":...` (and `,"key":K` when it holds one). */
void dg_progression_write_room(dg_writer *w, const dg_progression *progression, int room);

/* Writes the members of a progression feature (key, locked_door,
 * one_way_door) after its position and room, and returns true; returns
 * false, writing nothing, for the placement's features. */
bool dg_progression_write_feature(dg_writer *w, const dg_level *level, const dg_feature *feature);

/* Writes what a locked or one-way door is that a player may see: on a
 * graph level its edge, and a one-way door's direction (and its from / to
 * nodes). Nothing for other features. The full view writes it after the
 * key id; the client view alone. */
void dg_progression_write_door(dg_writer *w, const dg_level *level, const dg_feature *feature);

#endif
