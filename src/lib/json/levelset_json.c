/* A multi-floor set as `dungeond.levelset/1` JSON (dungeon/levelset.h for
 * the set itself): each floor's effective request and its level, the level's
 * bytes exactly as dg_level_dump_json writes them, so a client can check a
 * floor against a single-level answer byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "core/writer.h"
#include "dungeon/json.h"

/* A set of client views: no seed and no floor's request (either makes the
 * full levels again), each floor's client view with its own level_hash. */
static int dump_client_set(dg_level *const *levels, int floors, char **text, size_t *length) {
  dg_writer w = {0};
  dg_writer_literal(&w, "{\"format\":\"" DG_LEVELSET_FORMAT "\",\"view\":\"client\",\"floors\":[");
  int rc = 0;
  for (int k = 0; k < floors && rc == 0; k++) {
    dg_writer_raw(&w, k > 0 ? ",{\"floor\":" : "{\"floor\":", k > 0 ? 10 : 9);
    dg_writer_int(&w, k);
    char *level_text = NULL;
    size_t level_length = 0;
    rc = dg_level_dump_json(levels[k], &level_text, &level_length);
    if (rc == 0) {
      dg_writer_key(&w, "level", false);
      dg_writer_raw(&w, level_text, level_length);
      dg_writer_char(&w, '}');
    }
    free(level_text);
  }
  dg_writer_raw(&w, "]}", 2);
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  return dg_writer_take(&w, text, length);
}

int dg_levelset_dump_json(dg_level *const *levels, const dg_request *requests, int floors,
                          char **text, size_t *length) {
  if (floors > 0 && levels[0]->client_view)
    return dump_client_set(levels, floors, text, length);
  dg_writer w = {0};
  dg_writer_raw(&w, "{\"format\":\"" DG_LEVELSET_FORMAT "\",\"seed\":",
                sizeof("{\"format\":\"" DG_LEVELSET_FORMAT "\",\"seed\":") - 1);
  json_t *seed = dg_seed_to_json(floors > 0 ? requests[0].seed : 0);
  char *seed_text = seed != NULL ? json_dumps(seed, JSON_ENCODE_ANY) : NULL;
  json_decref(seed);
  if (seed_text == NULL) {
    free(w.text);
    return DG_ENOMEM;
  }
  dg_writer_raw(&w, seed_text, strlen(seed_text));
  free(seed_text);
  dg_writer_raw(&w, ",\"floors\":[", 11);
  int rc = 0;
  for (int k = 0; k < floors && rc == 0; k++) {
    dg_writer_raw(&w, k > 0 ? ",{\"floor\":" : "{\"floor\":", k > 0 ? 10 : 9);
    dg_writer_int(&w, k);
    json_t *request = dg_request_to_json(&requests[k]);
    char *request_text =
        request != NULL
            ? json_dumps(request, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))
            : NULL;
    json_decref(request);
    char *level_text = NULL;
    size_t level_length = 0;
    if (request_text == NULL || dg_level_dump_json(levels[k], &level_text, &level_length) != 0) {
      rc = DG_ENOMEM;
    } else {
      dg_writer_key(&w, "request", false);
      dg_writer_raw(&w, request_text, strlen(request_text));
      dg_writer_key(&w, "level", false);
      dg_writer_raw(&w, level_text, level_length);
      dg_writer_char(&w, '}');
    }
    free(request_text);
    free(level_text);
  }
  dg_writer_raw(&w, "]}", 2);
  if (rc == 0 && w.failed)
    rc = DG_ENOMEM;
  if (rc != 0) {
    free(w.text);
    return rc;
  }
  *text = w.text;
  if (length != NULL)
    *length = w.length;
  return 0;
}
