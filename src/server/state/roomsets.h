/* Room sets in the daemon (issue 5, shared read-only resources): the files of `roomsets_dir` are
 * read once at start-up into one dg_context that every generation shares read-only; the request's
 * top-level `roomset` member and the room-set name are checked here, on
 * the loop thread, before a job is queued. */
#ifndef DUNGEOND_ROOMSETS_H
#define DUNGEOND_ROOMSETS_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

/* Reads every *.json file of `dir` (in name order), parses it and adds it
 * to a new context stored in *out (the caller frees it with
 * dg_context_free). Every file that fails is reported on `log` with its
 * path and the library's field and message, and loading goes on so that
 * one run names them all. A missing directory is an error when `required`,
 * else an empty context (with a warning). `dir` "" loads nothing. Returns
 * 0; DG_EINVAL when any file failed, DG_ENOENT when the directory cannot be
 * read, DG_ENOMEM (*out NULL on every error). */
int roomsets_load(const char *dir, bool required, FILE *log, dg_context **out);

/* Reads every *.json file of `dir` as a content table into `context`
 * (docs/population.md), reporting each bad file on `log` with its path and
 * the field at fault, as roomsets_load does. `dir` "" loads nothing; a
 * directory that does not exist loads nothing, given in the file
 * (`required`) or not: the shipped configuration names the checkout's
 * examples, and the start-up line counts the tables. 0, DG_EINVAL (a file
 * failed), DG_ENOENT (the directory cannot be read) or DG_ENOMEM. */
int tables_load(const char *dir, bool required, FILE *log, dg_context *context);

/* The request body's top-level `roomset` member is shorthand for
 * params.roomset (docs/openapi.yaml). When `body` has it, *moved gets
 * a new body (caller decrefs) with the name under params; otherwise *moved
 * is NULL. Returns 0, or an error code (a 422, DG_ENOMEM a 500) with `err`
 * on field `roomset` when the member
 * is not a string, the algorithm has no roomset parameter, or params.roomset
 * names another set. */
int roomsets_move_member(const json_t *body, json_t **moved, dg_error *err);

/* For an algorithm with a `roomset` parameter, checks that the effective
 * name is loaded in `context`: 0, or DG_ENOENT with `err` on params.roomset
 * listing the loaded names. */
int roomsets_check_request(const dg_context *context, const dg_request *request, dg_error *err);

#endif
