/* The content tables of a dg_context (docs/population.md): adding a parsed
 * one, finding one by name for a request, and the figures GET /v1/tables
 * reports. Parsing and the JSON entry points are in json/tables_json.c, so
 * this file needs no jansson. */
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "model/context_internal.h"
#include "model/table.h"

void dg_table_free(dg_table *table) {
  if (table == NULL)
    return;
  free(table->encounters);
  free(table->by_cost);
  free(table->picks);
  free(table->loot_by_tier);
  free(table->loot_sum);
  free(table->loot);
  free(table);
}

int dg_context_add_parsed_table(dg_context *context, dg_table *table, dg_error *err) {
  int rc;
  if (dg_context_find_table(context, table->name) != NULL) {
    rc = dg_error_set(err, DG_EINVAL, "name", "a table named '%s' is already loaded", table->name);
    goto fail;
  }
  if (dg_vec_grow(&context->tables, &context->table_capacity, context->table_count + 1,
                  sizeof *context->tables) != 0) {
    rc = dg_error_set(err, DG_ENOMEM, "", "out of memory");
    goto fail;
  }
  context->tables[context->table_count++] = table;
  return 0;
fail:
  dg_table_free(table);
  return rc;
}

void dg_context_close_tables(dg_context *context) {
  for (int i = 0; i < context->table_count; i++)
    dg_table_free(context->tables[i]);
  free(context->tables);
  context->tables = NULL;
  context->table_count = context->table_capacity = 0;
}

const dg_table *dg_context_find_table(const dg_context *context, const char *name) {
  if (context == NULL)
    return NULL;
  for (int i = 0; i < context->table_count; i++)
    if (strcmp(context->tables[i]->name, name) == 0)
      return context->tables[i];
  return NULL;
}

int dg_context_table_count(const dg_context *context) {
  return context != NULL ? context->table_count : 0;
}

int dg_context_table_info(const dg_context *context, int index, dg_table_info *info) {
  if (context == NULL || index < 0 || index >= context->table_count)
    return DG_EINVAL;
  const dg_table *table = context->tables[index];
  *info = (dg_table_info){.name = table->name,
                          .encounters = table->encounter_count,
                          .loot = table->loot_count,
                          .sha256 = table->sha256};
  return 0;
}
