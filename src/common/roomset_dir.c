/* The one room-set directory loader of the daemon and the CLI (see
 * roomset_dir.h): list, sort, parse, hand to the library, report. Content
 * tables (tables_dir, --tables) go through the same loader. */
#include "roomset_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_json_name(const char *name) {
  size_t length = strlen(name);
  return name[0] != '.' && length > 5 && strcmp(name + length - 5, ".json") == 0;
}

static void free_names(char **names, int count) {
  for (int i = 0; i < count; i++)
    free(names[i]);
  free(names);
}

/* The *.json names of `handle`, sorted. 0 or DG_ENOMEM (names freed). */
static int list_json(DIR *handle, char ***out, int *out_count) {
  char **names = NULL;
  int count = 0, capacity = 0;
  struct dirent *entry;
  while ((entry = readdir(handle)) != NULL) {
    if (!is_json_name(entry->d_name))
      continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 16;
      char **bigger = realloc(names, (size_t)capacity * sizeof *names);
      if (bigger == NULL)
        goto fail;
      names = bigger;
    }
    if ((names[count] = strdup(entry->d_name)) == NULL)
      goto fail;
    count++;
  }
  if (count > 0)
    qsort(names, (size_t)count, sizeof *names, by_name);
  *out = names;
  *out_count = count;
  return 0;
fail:
  free_names(names, count);
  return DG_ENOMEM;
}

/* The sorted *.json names of directory `dir`. 0, DG_ENOMEM, or DG_ENOENT
 * when it cannot be opened, returned at once so that errno still says why. */
static int list_dir(const char *dir, char ***out, int *out_count) {
  DIR *handle = opendir(dir);
  if (handle == NULL)
    return DG_ENOENT;
  int rc = list_json(handle, out, out_count);
  closedir(handle);
  return rc;
}

/* A problem before parsing: `error` as jansson fills it, with line 0 so
 * that reports show the path alone. */
static int not_read(json_error_t *error, const char *path, const char *text) {
  memset(error, 0, sizeof *error);
  snprintf(error->source, sizeof error->source, "%s", path);
  snprintf(error->text, sizeof error->text, "%s", text);
  return DG_EPARSE;
}

/* The whole file behind `fd` in a new buffer (*bytes, *length; the caller
 * frees it), read a large chunk at a time: jansson's json_loadfd reads one
 * byte per system call, tens of thousands of them for the shipped sets,
 * a noticeable part of the daemon's start-up. 0, or an errno value. */
static int read_all(int fd, size_t size_hint, char **bytes, size_t *length) {
  size_t capacity = size_hint + 1, used = 0;
  char *buffer = malloc(capacity);
  int rc = 0;
  for (;;) {
    if (buffer == NULL) {
      rc = ENOMEM;
      break;
    }
    if (used == capacity) {
      char *grown = realloc(buffer, capacity * 2);
      if (grown == NULL)
        free(buffer);
      buffer = grown;
      capacity *= 2;
      continue;
    }
    ssize_t got = read(fd, buffer + used, capacity - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      rc = got < 0 ? errno : 0;
      break;
    }
    used += (size_t)got;
  }
  if (rc != 0) {
    free(buffer);
    buffer = NULL;
  }
  *bytes = buffer;
  *length = used;
  return rc;
}

int roomset_dir_read_file(const char *path, json_t **out, json_error_t *error) {
  *out = NULL;
  /* Opened without blocking and checked to be a regular file before a
   * byte is read: a FIFO named *.json would block open() (and read())
   * until a writer came, and start-up with it, forever. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return not_read(error, path, strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    close(fd);
    return not_read(error, path, "not a regular file (only regular *.json files are room sets)");
  }
  char *bytes = NULL;
  size_t length = 0;
  int rc = read_all(fd, (size_t)info.st_size, &bytes, &length);
  close(fd);
  if (rc != 0)
    return not_read(error, path, strerror(rc));
  *out = json_loadb(bytes, length, JSON_REJECT_DUPLICATES, error);
  free(bytes);
  return *out != NULL ? 0 : DG_EPARSE;
}

/* Reports a file that could not be read or parsed: at "path:line:column"
 * for a syntax error, at the path alone otherwise. */
static void report_unread(const char *path, const json_error_t *error, roomset_dir_report_fn report,
                          void *user) {
  char where[4096 + 32];
  if (error->line > 0)
    snprintf(where, sizeof where, "%s:%d:%d", path, error->line, error->column);
  else
    snprintf(where, sizeof where, "%s", path);
  report(user, where, "", error->text);
}

/* Reads, parses and adds one file to `context`; a problem goes to `report`.
 * 0, DG_EPARSE (syntax) or the library's code (DG_EINVAL, DG_ETYPE,
 * DG_ENOMEM). */
static int load_file(dg_context *context, const char *path, content_dir_add_fn add,
                     roomset_dir_report_fn report, void *user) {
  json_error_t parse_error;
  json_t *json = NULL;
  if (roomset_dir_read_file(path, &json, &parse_error) != 0) {
    report_unread(path, &parse_error, report, user);
    return DG_EPARSE;
  }
  dg_error err;
  dg_error_clear(&err);
  int rc = add(context, json, &err);
  json_decref(json);
  if (rc != 0)
    report(user, path, err.field, err.message);
  return rc;
}

/* One file's path: dir "/" name, built by hand (gcc -O3 with ASan misreads
 * the bounds of the snprintf version as a possible NULL argument). NULL on
 * ENOMEM. */
static char *join_path(const char *dir, const char *name) {
  size_t dir_length = strlen(dir), name_length = strlen(name);
  char *path = malloc(dir_length + name_length + 2);
  if (path != NULL) {
    memcpy(path, dir, dir_length);
    path[dir_length] = '/';
    memcpy(path + dir_length + 1, name, name_length + 1);
  }
  return path;
}

/* One room-set file's outcome, prepared on a worker thread and reported
 * and adopted on the caller's, in name order. */
typedef struct prepared_file {
  char *path;          /* NULL: out of memory */
  dg_roomset *set;     /* the prepared set, or NULL */
  int rc;              /* 0, DG_EPARSE or the library's code */
  json_error_t syntax; /* when rc is DG_EPARSE */
  dg_error err;        /* when the library refused it */
} prepared_file;

typedef struct prepare_work {
  prepared_file *files;
  int count;
  atomic_int next; /* the next file index a thread takes */
} prepare_work;

static void prepare_one(prepared_file *file) {
  json_t *json = NULL;
  dg_error_clear(&file->err);
  if (file->path == NULL) {
    file->rc = DG_ENOMEM;
  } else if ((file->rc = roomset_dir_read_file(file->path, &json, &file->syntax)) == 0) {
    file->rc = dg_roomset_prepare(json, &file->set, &file->err);
    json_decref(json);
  }
}

static void *prepare_files(void *arg) {
  prepare_work *work = arg;
  for (int i; (i = atomic_fetch_add(&work->next, 1)) < work->count;)
    prepare_one(&work->files[i]);
  return NULL;
}

/* Prepares every file, on as many threads as there are processors (the
 * pattern databases are most of a daemon's start-up and independent). A
 * thread that cannot start leaves its share to the others and the caller. */
static void prepare_all(prepare_work *work) {
  enum { THREADS_MAX = 16 };
  long processors = sysconf(_SC_NPROCESSORS_ONLN);
  int helpers = (int)(processors < 1 ? 0 : processors > THREADS_MAX ? THREADS_MAX : processors) - 1;
  if (helpers > work->count - 1)
    helpers = work->count - 1;
  pthread_t threads[THREADS_MAX];
  int started = 0;
  while (started < helpers && pthread_create(&threads[started], NULL, prepare_files, work) == 0)
    started++;
  prepare_files(work);
  for (int t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
}

int roomset_dir_load(dg_context *context, const char *dir, bool keep_going,
                     roomset_dir_report_fn report, void *user, roomset_dir_result *result) {
  roomset_dir_result counts = {0, 0};
  char **names = NULL;
  int count = 0, rc = 0;
  prepare_work work = {NULL, 0, 0};
  if ((rc = list_dir(dir, &names, &count)) == DG_ENOENT) {
    if (result != NULL)
      *result = counts;
    return rc;
  }
  if (rc != 0)
    goto done;
  counts.files = count;
  if (count > 0 && (work.files = calloc((size_t)count, sizeof *work.files)) == NULL) {
    rc = DG_ENOMEM;
    goto done;
  }
  work.count = count;
  for (int i = 0; i < count; i++)
    work.files[i].path = join_path(dir, names[i]);
  prepare_all(&work);
  /* Reported and added in name order, as a one-by-one load would. */
  for (int i = 0; i < count && (keep_going || counts.failed == 0); i++) {
    prepared_file *file = &work.files[i];
    if (file->rc == DG_ENOMEM && file->path == NULL) {
      rc = DG_ENOMEM;
      goto done;
    }
    if (file->rc == 0) {
      file->rc = dg_context_adopt_roomset(context, file->set, &file->err);
      file->set = NULL; /* the context took it */
    }
    if (file->rc == DG_EPARSE) {
      report_unread(file->path, &file->syntax, report, user);
    } else if (file->rc != 0) {
      report(user, file->path, file->err.field, file->err.message);
    }
    counts.failed += file->rc != 0;
  }
  if (counts.failed > 0)
    rc = DG_EINVAL;
done:
  for (int i = 0; i < work.count; i++) {
    free(work.files[i].path);
    dg_roomset_free(work.files[i].set);
  }
  free(work.files);
  free_names(names, count);
  if (result != NULL)
    *result = counts;
  return rc;
}

int content_dir_load(dg_context *context, const char *dir, content_dir_add_fn add, bool keep_going,
                     roomset_dir_report_fn report, void *user, roomset_dir_result *result) {
  roomset_dir_result counts = {0, 0};
  char **names = NULL;
  int count = 0, rc = 0;
  if ((rc = list_dir(dir, &names, &count)) == DG_ENOENT) {
    if (result != NULL)
      *result = counts;
    return rc;
  }
  if (rc != 0)
    goto done;
  counts.files = count;
  for (int i = 0; i < count && (keep_going || counts.failed == 0); i++) {
    char *path = join_path(dir, names[i]);
    if (path == NULL) {
      rc = DG_ENOMEM;
      goto done;
    }
    counts.failed += load_file(context, path, add, report, user) != 0;
    free(path);
  }
  if (counts.failed > 0)
    rc = DG_EINVAL;
done:
  free_names(names, count);
  if (result != NULL)
    *result = counts;
  return rc;
}
