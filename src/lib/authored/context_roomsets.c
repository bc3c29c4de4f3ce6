/* The room sets of a dg_context: adding a parsed one (precompute moves),
 * finding one by name for a request, and the figures `dungeon check` and
 * GET /v1/roomsets report. Parsing and the JSON entry points are in
 * json/roomsets_json.c, so this file needs no jansson. */
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "model/context_internal.h"
#include "roomset.h"

/* A dg_roomset is an authored_roomset whose moves and pattern database are
 * built: the public name hides the generator's type. */
int authored_roomset_precompute(authored_roomset *set, dg_error *err) {
  int rc;
  if ((rc = authored_roomset_build_moves(set)) != 0 ||
      (rc = authored_pdb_build(set, AUTHORED_PDB_COST_MAX, &set->pdb)) != 0) {
    dg_error_set(err, rc, "", "out of memory precomputing the moves of '%s'", set->name);
    authored_roomset_free(set);
  }
  return rc;
}

void dg_roomset_free(dg_roomset *set) {
  authored_roomset_free((authored_roomset *)set);
}

int dg_context_adopt_roomset(dg_context *context, dg_roomset *prepared, dg_error *err) {
  authored_roomset *set = (authored_roomset *)prepared;
  int rc;
  if (dg_context_find_roomset(context, set->name) != NULL) {
    rc = dg_error_set(err, DG_EINVAL, "name", "a room set named '%s' is already loaded", set->name);
    goto fail;
  }
  if (dg_vec_grow(&context->roomsets, &context->roomset_capacity, context->roomset_count + 1,
                  sizeof *context->roomsets) != 0) {
    rc = dg_error_set(err, DG_ENOMEM, "", "out of memory");
    goto fail;
  }
  context->roomsets[context->roomset_count++] = set;
  context->release = dg_context_close_roomsets;
  return 0;
fail:
  authored_roomset_free(set);
  return rc;
}

void dg_context_close_roomsets(dg_context *context) {
  for (int i = 0; i < context->roomset_count; i++)
    authored_roomset_free(context->roomsets[i]);
  free(context->roomsets);
  context->roomsets = NULL;
  context->roomset_count = context->roomset_capacity = 0;
}

const authored_roomset *dg_context_find_roomset(const dg_context *context, const char *name) {
  if (context == NULL)
    return NULL;
  for (int i = 0; i < context->roomset_count; i++)
    if (strcmp(context->roomsets[i]->name, name) == 0)
      return context->roomsets[i];
  return NULL;
}

int dg_context_roomset_count(const dg_context *context) {
  return context != NULL ? context->roomset_count : 0;
}

int dg_context_roomset_info(const dg_context *context, int index, dg_roomset_info *info) {
  if (context == NULL || index < 0 || index >= context->roomset_count)
    return DG_EINVAL;
  const authored_roomset *set = context->roomsets[index];
  int shims = 0;
  for (int r = 0; r < set->room_count; r++)
    shims += (set->rooms[r].tag_bits & AUTHORED_TAG_SHIM) != 0;
  *info =
      (dg_roomset_info){.name = set->name,
                        .biome = set->biome,
                        .rooms = set->room_count,
                        .connectors = set->connector_count,
                        .shims = shims,
                        .moves = set->move_count,
                        .move_groups = set->group_count,
                        .table_states = set->pdb.states,
                        .table_bytes = (int64_t)set->pdb.slots *
                                       (int64_t)(sizeof *set->pdb.keys + sizeof *set->pdb.costs),
                        .table_build_ns = set->pdb.build_ns,
                        .sha256 = set->sha256};
  return 0;
}
