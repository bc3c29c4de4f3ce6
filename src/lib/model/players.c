/* The players of a request (issue 21, item 2): ids checked against one
 * pattern and kept sorted, so that spawns are keyed by who the player is,
 * not by the order the game server happened to report them in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/request.h"

bool dg_player_id_valid(const char *id) {
  size_t length = strlen(id);
  if (length == 0 || length > DG_PLAYER_ID_MAX)
    return false;
  for (size_t i = 0; i < length; i++) {
    char c = id[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.'))
      return false;
  }
  return true;
}

static int compare_ids(const void *a, const void *b) {
  return strcmp((const char *)a, (const char *)b);
}

int dg_request_set_players(dg_request *request, const char *const *ids, int count,
                           const char *field, dg_error *err) {
  if (count < 0 || count > DG_PLAYER_IDS_MAX)
    return dg_error_set(err, DG_ELIMIT, field,
                        "%s: at most %d players with ids (one spawn each, params.spawns' maximum)",
                        field, DG_PLAYER_IDS_MAX);
  dg_player_ids sorted;
  memset(&sorted, 0, sizeof sorted);
  for (int i = 0; i < count; i++) {
    if (!dg_player_id_valid(ids[i])) {
      char where[DG_ERROR_FIELD_MAX];
      snprintf(where, sizeof where, "%s[%d].id", field, i);
      return dg_error_set(err, DG_EINVAL, where, "%s must be 1 to %d characters of [A-Za-z0-9._-]",
                          where, DG_PLAYER_ID_MAX);
    }
    memcpy(sorted.id[i], ids[i], strlen(ids[i]) + 1);
  }
  qsort(sorted.id, (size_t)count, sizeof sorted.id[0], compare_ids);
  for (int i = 1; i < count; i++)
    if (strcmp(sorted.id[i - 1], sorted.id[i]) == 0) {
      int at = 0;
      while (strcmp(ids[at], sorted.id[i]) != 0)
        at++;
      for (int j = at + 1; j < count; j++)
        if (strcmp(ids[j], sorted.id[i]) == 0)
          at = j;
      char where[DG_ERROR_FIELD_MAX];
      snprintf(where, sizeof where, "%s[%d].id", field, at);
      return dg_error_set(err, DG_EINVAL, where, "%s: player '%s' is given twice", where,
                          sorted.id[i]);
    }
  sorted.count = count;
  request->players = sorted;
  return 0;
}

bool dg_player_ids_equal(const dg_player_ids *a, const dg_player_ids *b) {
  if (a->count != b->count)
    return false;
  for (int i = 0; i < a->count; i++)
    if (strcmp(a->id[i], b->id[i]) != 0)
      return false;
  return true;
}
