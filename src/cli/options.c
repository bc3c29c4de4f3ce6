/* Option parsing shared by the subcommands that build a request. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_error(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  fputs("dungeon: ", stderr);
  vfprintf(stderr, fmt, args);
  fputc('\n', stderr);
  va_end(args);
}

/* Matches "--name value" and "--name=value"; sets *value. */
static int take_value(int argc, char **argv, int *index, const char *name, const char **value) {
  const char *arg = argv[*index];
  size_t length = strlen(name);
  if (strncmp(arg, name, length) != 0)
    return 0;
  if (arg[length] == '=') {
    *value = arg + length + 1;
    return 1;
  }
  if (arg[length] != '\0')
    return 0;
  if (*index + 1 >= argc) {
    cli_error("%s needs a value", name);
    return DG_EINVAL;
  }
  *value = argv[++*index];
  return 1;
}

int cli_take_request_option(int argc, char **argv, int *index, cli_request_options *options) {
  const char *value = NULL;
  int taken;
  if ((taken = take_value(argc, argv, index, "--algorithm", &value)) != 0) {
    if (taken > 0)
      options->algorithm = value;
    return taken;
  }
  if ((taken = take_value(argc, argv, index, "--seed", &value)) != 0) {
    if (taken > 0)
      options->seed = value;
    return taken;
  }
  if ((taken = take_value(argc, argv, index, "--roomsets", &value)) != 0) {
    if (taken > 0)
      options->roomsets = value;
    return taken;
  }
  if ((taken = take_value(argc, argv, index, "--target", &value)) != 0) {
    if (taken < 0)
      return taken;
    if (options->target_count >= (int)(sizeof options->targets / sizeof options->targets[0])) {
      cli_error("too many --target options");
      return DG_ELIMIT;
    }
    options->targets[options->target_count++] = value;
    return 1;
  }
  if ((taken = take_value(argc, argv, index, "--param", &value)) != 0) {
    if (taken < 0)
      return taken;
    if (options->param_count >= (int)(sizeof options->params / sizeof options->params[0])) {
      cli_error("too many --param options");
      return DG_ELIMIT;
    }
    options->params[options->param_count++] = value;
    return 1;
  }
  return 0;
}

int cli_build_request(const cli_request_options *options, dg_request *request) {
  const char *name = options->algorithm != NULL ? options->algorithm : dg_algorithm_default()->name;
  const dg_algorithm *algorithm = dg_algorithm_find(name);
  if (algorithm == NULL) {
    cli_error("unknown algorithm '%s' (see 'dungeon algorithms')", name);
    return DG_ENOENT;
  }
  dg_request_init(request, algorithm);
  dg_error err = {0};
  if (options->seed != NULL) {
    json_t *text = json_string(options->seed);
    int rc = text != NULL ? dg_seed_from_json(text, "--seed", &request->seed, &err) : DG_ENOMEM;
    json_decref(text);
    if (rc != 0) {
      cli_error("%s", err.message);
      return rc;
    }
    request->seed_given = true;
  }
  for (int i = 0; i < options->param_count; i++) {
    char name_buffer[DG_ERROR_FIELD_MAX];
    const char *text = options->params[i];
    const char *equals = strchr(text, '=');
    if (equals == NULL || equals == text || (size_t)(equals - text) >= sizeof name_buffer) {
      cli_error("--param takes name=value, not '%s'", text);
      return DG_EPARSE;
    }
    memcpy(name_buffer, text, (size_t)(equals - text));
    name_buffer[equals - text] = '\0';
    int rc = dg_request_set_text(request, name_buffer, equals + 1, &err);
    if (rc != 0) {
      cli_error("%s", err.message);
      return rc;
    }
  }
  for (int i = 0; i < options->target_count; i++) {
    int rc = dg_targets_set_text(&request->targets, options->targets[i], &err);
    if (rc != 0) {
      cli_error("--target: %s", err.message);
      return rc;
    }
  }
  int rc = dg_request_validate(request, &err);
  if (rc != 0)
    cli_error("%s", err.message);
  return rc;
}

void cli_print_params(const dg_algorithm *algorithm) {
  printf("parameters of %s (--param name=value):\n", algorithm->name);
  for (int i = 0; i < algorithm->param_count; i++) {
    const dg_param_def *def = &algorithm->params[i];
    char range[200], fallback[80];
    switch (def->type) {
    case DG_PARAM_ENUM:
      snprintf(fallback, sizeof fallback, "%s", def->choices[(int)def->default_value]);
      break;
    case DG_PARAM_STRING:
      snprintf(fallback, sizeof fallback, "%s", def->default_string ? def->default_string : "");
      break;
    case DG_PARAM_BOOL:
      snprintf(fallback, sizeof fallback, "%s", def->default_value != 0 ? "true" : "false");
      break;
    default: snprintf(fallback, sizeof fallback, "%g", def->default_value); break;
    }
    printf("  %-22s %s (default %s)\n  %-22s %s\n", def->name,
           dg_param_describe_range(def, range, sizeof range), fallback, "", def->doc);
  }
}
