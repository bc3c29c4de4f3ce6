/* Internal to json/: a pacing parameter's control points in JSON, shared
 * by the request's parameters (params.c), the level's (level_json.c) and
 * the population member (population_json.c). Declared here, beside their
 * definitions, so that model/ never names what json/ defines. */
#ifndef DUNGEON_JSON_PACING_JSON_H
#define DUNGEON_JSON_PACING_JSON_H

#include <jansson.h>

#include "core/writer.h"

/* The control points of a DG_PACING_POINTS parameter's `text` as the JSON
 * array [[x,y],...]. New reference; NULL on ENOMEM. (params.c) */
json_t *dg_pacing_points_to_json(const char *text);

/* Writes the control points of `text` as [[x,y],...] through `w`.
 * (pacing_json.c) */
void dg_pacing_points_write(dg_writer *w, const char *text);

#endif
