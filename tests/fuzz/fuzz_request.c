/* Fuzz target: a request body as the daemon receives it. Parsing must never
 * crash or leak whatever the bytes; a body that parses is generated when its
 * map is small, and the level must serialise and come out connected.
 *
 * Built two ways: with clang's libFuzzer (-Dfuzz=true) for fuzzing, and
 * with replay_main.c as an ordinary test that replays the corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *body = json_loadb((const char *)data, size, 0, NULL);
  if (body == NULL)
    return 0;
  dg_request request;
  dg_error err = {0};
  if (dg_request_from_json(body, &request, &err) == 0) {
    int width = dg_algorithm_param_index(request.algorithm, "width");
    int height = dg_algorithm_param_index(request.algorithm, "height");
    bool small =
        width < 0 || height < 0 ||
        dg_param_int(&request.params, width) * dg_param_int(&request.params, height) <= 20000;
    if (small) {
      if (!request.seed_given) {
        request.seed = 1;
        request.seed_given = true;
      }
      dg_level *level = NULL;
      if (dg_generate(NULL, &request, NULL, &level, &err) == 0) {
        char *text = NULL;
        if (dg_level_dump_json(level, &text, NULL) != 0 || !level->metrics.connected)
          abort();
        free(text);
        dg_level_free(level);
      }
    }
  }
  json_decref(body);
  return 0;
}
