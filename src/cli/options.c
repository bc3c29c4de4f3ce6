/* Option parsing shared by the subcommands that build a request. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

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
  if ((taken = take_value(argc, argv, index, "--tables", &value)) != 0) {
    if (taken > 0)
      options->tables = value;
    return taken;
  }
  if ((taken = take_value(argc, argv, index, "--players", &value)) != 0) {
    if (taken > 0)
      options->players = value;
    return taken;
  }
  if ((taken = take_value(argc, argv, index, "--profile", &value)) != 0) {
    if (taken > 0)
      options->profile = value;
    return taken;
  }
  if ((taken = take_value(argc, argv, index, "--config", &value)) != 0) {
    if (taken > 0)
      options->config = value;
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

/* The profile --profile names: a JSON object given inline, or a name in
 * the `profiles` of the configuration file, compiled into *out (the caller
 * releases it). 0, or a negative DG_E* code after printing why (nothing to
 * release). */
static int load_profile(const cli_request_options *options, party_profile *out) {
  json_error_t parse_error;
  dg_error err = {0};
  json_t *config = NULL, *profile = NULL;
  int rc = 0;
  if (options->profile[0] == '{') {
    profile = json_loads(options->profile, 0, &parse_error);
    if (profile == NULL) {
      cli_error("--profile is not JSON: %s", parse_error.text);
      rc = DG_EPARSE;
      goto done;
    }
  } else {
    const char *path = options->config != NULL ? options->config : CLI_CONFIG_DEFAULT;
    config = json_load_file(path, 0, &parse_error);
    if (config == NULL) {
      cli_error("--config %s: %s (line %d)", path, parse_error.text, parse_error.line);
      rc = DG_EPARSE;
      goto done;
    }
    profile = json_incref(json_object_get(json_object_get(config, "profiles"), options->profile));
    if (profile == NULL) {
      cli_error("--profile: %s has no profile '%s' under \"profiles\"", path, options->profile);
      rc = DG_ENOENT;
      goto done;
    }
  }
  if ((rc = profile_compile(options->profile[0] == '{' ? "--profile" : options->profile, profile,
                            out, &err)) != 0)
    cli_error("--profile: %s", err.message);
done:
  json_decref(config);
  json_decref(profile);
  return rc;
}

/* The algorithm: --algorithm, else the profile's, else the default; a
 * profile for another algorithm than --algorithm is refused. NULL after
 * printing why. */
static const dg_algorithm *choose_algorithm(const cli_request_options *options,
                                            const party_profile *profile) {
  const char *from_profile = profile != NULL ? profile->algorithm->name : NULL;
  const char *name = options->algorithm != NULL ? options->algorithm
                     : from_profile != NULL     ? from_profile
                                                : dg_algorithm_default()->name;
  const dg_algorithm *algorithm = dg_algorithm_find(name);
  if (algorithm == NULL)
    cli_error("unknown algorithm '%s' (see 'dungeon algorithms')", name);
  else if (from_profile != NULL && strcmp(from_profile, name) != 0)
    cli_error("--profile is for algorithm %s, not %s", from_profile, name);
  return algorithm != NULL && (from_profile == NULL || strcmp(from_profile, name) == 0) ? algorithm
                                                                                        : NULL;
}

/* Sets --param name=value on the request. 0 or a negative DG_E* code after
 * printing why. */
static int set_param_text(dg_request *request, const char *text) {
  char name_buffer[DG_ERROR_FIELD_MAX];
  const char *equals = strchr(text, '=');
  if (equals == NULL || equals == text || (size_t)(equals - text) >= sizeof name_buffer) {
    cli_error("--param takes name=value, not '%s'", text);
    return DG_EPARSE;
  }
  memcpy(name_buffer, text, (size_t)(equals - text));
  name_buffer[equals - text] = '\0';
  dg_error err = {0};
  int rc = dg_request_set_text(request, name_buffer, equals + 1, &err);
  if (rc != 0)
    cli_error("%s", err.message);
  return rc;
}

int cli_build_request(const cli_request_options *options, dg_request *request) {
  json_t *players = NULL;
  party_profile profile = {0};
  bool profiled = false;
  party members = {NULL, 0, false};
  dg_error err = {0};
  int rc = 0;
  if (options->profile != NULL) {
    if ((rc = load_profile(options, &profile)) != 0)
      goto done;
    profiled = true;
  }
  const dg_algorithm *algorithm = choose_algorithm(options, profiled ? &profile : NULL);
  if (algorithm == NULL) {
    rc = options->algorithm != NULL && dg_algorithm_find(options->algorithm) != NULL ? DG_EINVAL
                                                                                     : DG_ENOENT;
    goto done;
  }
  dg_request_init(request, algorithm);
  if (options->seed != NULL) {
    json_t *text = json_string(options->seed);
    rc = text != NULL ? dg_seed_from_json(text, "--seed", &request->seed, &err) : DG_ENOMEM;
    json_decref(text);
    if (rc != 0) {
      cli_error("%s", err.message);
      goto done;
    }
    request->seed_given = true;
  }
  if (options->players != NULL) {
    json_error_t parse_error;
    party_limits limits = party_limits_default();
    players = json_loads(options->players, JSON_DECODE_ANY, &parse_error);
    if (players == NULL) {
      cli_error("--players is not JSON: %s", parse_error.text);
      rc = DG_EPARSE;
      goto done;
    }
    if ((rc = party_from_json(players, &limits, &members, &err)) != 0) {
      cli_error("--players: %s", err.message);
      goto done;
    }
  }
  /* As dungeond: derived parameters first, the explicit ones over them. */
  if (profiled && (rc = profile_apply(&profile, &members, request, &err)) != 0) {
    cli_error("--profile: %s", err.message);
    goto done;
  }
  for (int i = 0; i < options->param_count; i++)
    if ((rc = set_param_text(request, options->params[i])) != 0)
      goto done;
  for (int i = 0; i < options->target_count; i++) {
    if ((rc = dg_targets_set_text(&request->targets, options->targets[i], &err)) != 0) {
      cli_error("--target: %s", err.message);
      goto done;
    }
  }
  if (players != NULL) {
    if ((rc = party_ids_apply(&members, request, &err)) != 0) {
      cli_error("--players: %s", err.message);
      goto done;
    }
    party_spawns_default(members.count, request);
  }
  if ((rc = dg_request_validate(request, &err)) != 0)
    cli_error("%s", err.message);
done:
  json_decref(players);
  profile_release(&profile);
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
