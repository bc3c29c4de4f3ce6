/* Golden seeds: fixed (algorithm, params, seed) -> the ASCII map stored in
 * tests/data/golden/, compared byte for byte. A failure here means a change
 * altered what a seed makes: if that was deliberate, regenerate with
 * tests/data/golden/regenerate.sh and say why in the commit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dungeon/dungeon.h"
#include "dungeon/json.h"

typedef struct golden {
  const char *file;
  uint64_t seed;
  const char *params[6]; /* name=value, NULL-terminated */
} golden;

static const golden cases[] = {
    {"classic-follow-1.txt", 1, {"corridor_style=follow"}},
    {"classic-follow-42.txt", 42, {"corridor_style=follow"}},
    {"classic-follow-1000.txt", 1000, {"corridor_style=follow"}},
    {"classic-cleanup-1.txt", 1, {"corridor_style=cleanup"}},
    {"classic-cleanup-42.txt", 42, {"corridor_style=cleanup"}},
    {"classic-cleanup-1000.txt", 1000, {"corridor_style=cleanup"}},
    {"classic-plain-1.txt", 1, {"corridor_style=plain"}},
    {"classic-plain-42.txt", 42, {"corridor_style=plain"}},
    {"classic-plain-1000.txt", 1000, {"corridor_style=plain"}},
    {"classic-large-7.txt",
     7,
     {"width=120", "height=40", "rooms_min=15", "rooms_max=20", "closet_chance=1"}},
};

static char *read_file(const char *name, size_t *length) {
  char path[512];
  snprintf(path, sizeof path, "%s/golden/%s", TEST_DATA_DIR, name);
  FILE *file = fopen(path, "rb");
  cr_assert_not_null(file, "cannot open %s", path);
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc((size_t)size + 1);
  cr_assert_eq(fread(text, 1, (size_t)size, file), (size_t)size);
  text[size] = '\0';
  fclose(file);
  *length = (size_t)size;
  return text;
}

Test(golden, classic_maps) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    dg_request request;
    dg_request_init(&request, dg_algorithm_find("classic"));
    dg_error err = {0};
    for (int k = 0; cases[i].params[k] != NULL; k++) {
      char name[64];
      const char *equals = strchr(cases[i].params[k], '=');
      snprintf(name, sizeof name, "%.*s", (int)(equals - cases[i].params[k]), cases[i].params[k]);
      cr_assert_eq(dg_request_set_text(&request, name, equals + 1, &err), 0, "%s", err.message);
    }
    request.seed = cases[i].seed;
    request.seed_given = true;
    dg_level *level = NULL;
    cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
    char *map = NULL;
    size_t length = 0;
    cr_assert_eq(dg_level_dump_ascii(level, &map, &length), 0);
    size_t expected_length = 0;
    char *expected = read_file(cases[i].file, &expected_length);
    cr_assert(length == expected_length && memcmp(map, expected, length) == 0,
              "%s changed; got:\n%s", cases[i].file, map);
    free(expected);
    free(map);
    dg_level_free(level);
  }
}

/* One whole level as JSON, so that a change to the graph, metrics, stats or
 * closets is caught too, not only the map. */
Test(golden, classic_json) {
  dg_request request;
  dg_request_init(&request, dg_algorithm_find("classic"));
  dg_error err = {0};
  cr_assert_eq(dg_request_set_text(&request, "closet_chance", "1", &err), 0);
  request.seed = 42;
  request.seed_given = true;
  dg_level *level = NULL;
  cr_assert_eq(dg_generate(NULL, &request, NULL, &level, &err), 0, "%s", err.message);
  char *text = NULL;
  size_t length = 0;
  cr_assert_eq(dg_level_dump_json(level, &text, &length), 0);
  size_t expected_length = 0;
  char *expected = read_file("classic-follow-42.json", &expected_length);
  /* The stored file ends with the CLI's newline. */
  cr_assert(expected_length == length + 1 && memcmp(text, expected, length) == 0,
            "classic-follow-42.json changed; got:\n%s", text);
  free(expected);
  free(text);
  dg_level_free(level);
}
