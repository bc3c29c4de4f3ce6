/* `dungeon catalogue`: the digest of what `dungeon generate` prints for
 * each of many cases, in one process (room sets are loaded once), so that a
 * catalogue of thousands of outputs can be written and checked in seconds.
 * tests/data/golden/catalogue.txt is such a file; CI checks it against
 * builds made with other compilers and flags (docs/level-format.md,
 * "Determinism"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dungeon/digest.h"

#define LINE_MAX_BYTES 4096 /* one case line */
#define WORDS_MAX 128       /* options on one line */

static void usage(void) {
  puts("usage: dungeon catalogue [--check] [--roomsets DIR] [FILE]\n"
       "  Reads cases from FILE (default stdin), one a line: the options of\n"
       "  'dungeon generate' (--algorithm, --seed, --param, --target, --floors,\n"
       "  --format, svg options, --players, --profile JSON; words split at\n"
       "  blanks, no quoting), optionally after a 64-digit SHA-256 and two\n"
       "  spaces. Every case needs --seed.\n"
       "  Prints each case as 'SHA256  OPTIONS', the digest of the bytes\n"
       "  'dungeon generate --quiet OPTIONS' prints; '#' lines and blank lines\n"
       "  are copied.\n"
       "  --check         print only the cases whose digest differs from the\n"
       "                  one on their line, then a summary; exit 1 if any do\n"
       "  --roomsets DIR  room sets for authored cases (as for generate)");
}

/* The case's words, split at blanks in place. Returns the count, or -1 when
 * there are more than WORDS_MAX. */
static int split_words(char *text, char **words) {
  int count = 0;
  for (char *p = text; *p != '\0';) {
    while (*p != '\0' && isspace((unsigned char)*p))
      *p++ = '\0';
    if (*p == '\0')
      break;
    if (count == WORDS_MAX)
      return -1;
    words[count++] = p;
    while (*p != '\0' && !isspace((unsigned char)*p))
      p++;
  }
  return count;
}

static bool is_digest(const char *text) {
  for (int i = 0; i < 64; i++)
    if (!isxdigit((unsigned char)text[i]) || isupper((unsigned char)text[i]))
      return false;
  return text[64] == ' ' && text[65] == ' ';
}

typedef struct catalogue_run {
  const char *roomsets; /* --roomsets DIR or NULL */
  dg_context *context;  /* room sets, loaded at the first authored case */
  bool check;           /* --check */
  long cases, differ;   /* figures for the summary */
} catalogue_run;

/* Digests one case (the options text of a line) into hex. 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAILURE after printing why, naming the line. */
static int digest_case(catalogue_run *run, long line_number, char *options_text, char hex[65]) {
  char *words[WORDS_MAX + 1];
  words[0] = "catalogue";
  int count = split_words(options_text, words + 1);
  if (count < 0) {
    cli_error("line %ld: more than %d options", line_number, WORDS_MAX);
    return CLI_EXIT_USAGE;
  }
  cli_request_options options = {0};
  cli_output_options output;
  cli_output_options_init(&output);
  for (int i = 1; i <= count; i++) {
    int taken = cli_take_request_option(count + 1, words, &i, &options);
    if (taken == 0)
      taken = cli_take_output_option(count + 1, words, &i, &output);
    if (taken == 0)
      cli_error("line %ld: '%s' is not a generate option here", line_number, words[i]);
    if (taken <= 0 || options.roomsets != NULL) {
      if (options.roomsets != NULL)
        cli_error("line %ld: give --roomsets to catalogue, not to a case", line_number);
      return CLI_EXIT_USAGE;
    }
  }
  dg_request request;
  if (cli_check_output_options(&output) != 0 || cli_build_request(&options, &request) != 0)
    return CLI_EXIT_USAGE;
  if (!request.seed_given) {
    cli_error("line %ld: every case needs --seed", line_number);
    return CLI_EXIT_USAGE;
  }
  if (run->context == NULL && options.algorithm != NULL &&
      strcmp(options.algorithm, "authored") == 0) {
    cli_request_options loader = {.algorithm = "authored", .roomsets = run->roomsets};
    if (cli_make_context(&loader, &run->context) != 0)
      return CLI_EXIT_FAILURE;
  }
  cli_output out;
  dg_error err = {0};
  if (cli_produce(run->context, &request, &output, &out, &err) != 0) {
    cli_error("line %ld: %s", line_number, err.message);
    return CLI_EXIT_FAILURE;
  }
  dg_sha256_hex(out.text, out.length, hex);
  free(out.text);
  return 0;
}

/* One line of the input: copied, digested, or checked. 0 or an exit status. */
static int catalogue_line(catalogue_run *run, long line_number, char *line) {
  line[strcspn(line, "\r\n")] = '\0';
  const char *start = line + strspn(line, " \t");
  if (*start == '\0' || *start == '#') {
    if (!run->check)
      puts(line);
    return 0;
  }
  bool has_digest = is_digest(line);
  char *options_text = has_digest ? line + 66 : line;
  char options_copy[LINE_MAX_BYTES];
  snprintf(options_copy, sizeof options_copy, "%s", options_text);
  char hex[65];
  int rc = digest_case(run, line_number, options_text, hex);
  if (rc != 0)
    return rc;
  run->cases++;
  if (!run->check) {
    printf("%s  %s\n", hex, options_copy);
  } else if (!has_digest || memcmp(hex, line, 64) != 0) {
    run->differ++;
    printf("line %ld differs: %s  %s (catalogue: %.64s)\n", line_number, hex, options_copy,
           has_digest ? line : "none");
  }
  return 0;
}

int cli_catalogue(int argc, char **argv) {
  catalogue_run run = {0};
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage();
      return 0;
    } else if (strcmp(argv[i], "--check") == 0) {
      run.check = true;
    } else if (strcmp(argv[i], "--roomsets") == 0 && i + 1 < argc) {
      run.roomsets = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      cli_error("catalogue: unknown option '%s' (see 'dungeon catalogue --help')", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (path == NULL) {
      path = argv[i];
    } else {
      cli_error("catalogue: one FILE only");
      return CLI_EXIT_USAGE;
    }
  }
  FILE *in = path == NULL || strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
  if (in == NULL) {
    cli_error("cannot open '%s'", path);
    return CLI_EXIT_USAGE;
  }
  char line[LINE_MAX_BYTES];
  long line_number = 0;
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, in) != NULL) {
    line_number++;
    if (strchr(line, '\n') == NULL && !feof(in)) {
      cli_error("line %ld: longer than %d bytes", line_number, LINE_MAX_BYTES - 2);
      rc = CLI_EXIT_USAGE;
      break;
    }
    rc = catalogue_line(&run, line_number, line);
  }
  if (in != stdin)
    fclose(in);
  dg_context_free(run.context);
  if (rc == 0 && run.check) {
    printf("%ld cases, %ld differ\n", run.cases, run.differ);
    rc = run.differ > 0 ? CLI_EXIT_FAILURE : 0;
  }
  if (fflush(stdout) != 0 && rc == 0)
    rc = CLI_EXIT_FAILURE;
  return rc;
}
