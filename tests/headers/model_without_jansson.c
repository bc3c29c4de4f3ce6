/* Build-time check of the public header layout: the model headers that every
 * generator includes (the umbrella dungeon/dungeon.h and everything it pulls
 * in) must not include jansson, so that the generators do not depend on the
 * JSON layer; only dungeon/json.h may, and the level extension's JSON hook
 * takes the library's writer, declared by name only. (Each header on its own is compiled by the
 * files tests/meson.build generates from standalone.c.in.) A violation fails
 * the build, before any test runs. */
#include "dungeon/algorithm.h"
#include "dungeon/audit.h"
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

/* The extension's JSON hook takes the writer as an opaque `struct
 * dg_writer`: a caller of the public headers can name it, not build one. */
static int hook(const void *data, struct dg_writer *writer) {
  (void)data;
  return writer == NULL ? DG_EINVAL : 0;
}

int main(void) {
  dg_level_extension extension = {0};
  extension.write_json = hook;
  return extension.write_json(NULL, NULL) == DG_EINVAL ? 0 : 1;
}
