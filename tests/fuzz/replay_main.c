/* Replays fuzz inputs as an ordinary program: every file named on the
 * command line (directories are walked one level deep) goes through
 * LLVMFuzzerTestOneInput once. Exit 0 when all ran; a crash, abort or
 * sanitizer report fails the test like any other. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (file == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  uint8_t *data = NULL;
  size_t size = 0, capacity = 0;
  for (;;) {
    if (size == capacity) {
      capacity = capacity ? capacity * 2 : 4096;
      uint8_t *bigger = realloc(data, capacity);
      if (bigger == NULL) {
        free(data);
        fclose(file);
        return -1;
      }
      data = bigger;
    }
    size_t got = fread(data + size, 1, capacity - size, file);
    if (got == 0)
      break;
    size += got;
  }
  fclose(file);
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  return 0;
}

int main(int argc, char **argv) {
  int files = 0;
  for (int i = 1; i < argc; i++) {
    struct stat info;
    if (stat(argv[i], &info) != 0) {
      fprintf(stderr, "replay: no such file %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(info.st_mode)) {
      if (replay_file(argv[i]) != 0)
        return 1;
      files++;
      continue;
    }
    DIR *dir = opendir(argv[i]);
    if (dir == NULL)
      return 1;
    /* Sorted order is not needed: each input is independent. */
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
      if (entry->d_name[0] == '.')
        continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], entry->d_name);
      if (replay_file(path) != 0) {
        closedir(dir);
        return 1;
      }
      files++;
    }
    closedir(dir);
  }
  printf("replayed %d inputs\n", files);
  return files > 0 ? 0 : 1;
}
