/* Build-time check of the public header layout: the model headers that every
 * generator includes (the umbrella dungeon/dungeon.h and everything it pulls
 * in) must not include jansson, so that the generators do not depend on the
 * JSON layer; only dungeon/json.h may, and the level extension's hook type
 * must accept jansson's json_t. (Each header on its own is compiled by the
 * files tests/meson.build generates from standalone.c.in.) A violation fails
 * the build, before any test runs. */
#include "dungeon/algorithm.h"
#include "dungeon/cancel.h"
#include "dungeon/context.h"
#include "dungeon/dungeon.h"
#include "dungeon/error.h"
#include "dungeon/graph.h"
#include "dungeon/grid.h"
#include "dungeon/level.h"
#include "dungeon/levelset.h"
#include "dungeon/render.h"
#include "dungeon/request.h"
#include "dungeon/rng.h"

#ifdef JANSSON_H
#error "a model header includes jansson.h: JSON entry points belong in dungeon/json.h"
#endif

#include "dungeon/json.h"

#ifndef JANSSON_H
#error "dungeon/json.h must include jansson.h for its json_t declarations"
#endif

/* The extension hook's `struct json_t` must be jansson's json_t. */
static int hook(const void *data, json_t *level_object) {
  (void)data;
  return level_object == NULL ? DG_EINVAL : 0;
}

int main(void) {
  dg_level_extension extension = {0};
  extension.to_json = hook;
  return extension.to_json(NULL, NULL) == DG_EINVAL ? 0 : 1;
}
