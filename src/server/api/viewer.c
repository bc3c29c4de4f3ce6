/* GET /: the viewer page (src/server/api/viewer/index.html), compiled into the
 * binary by src/server/api/viewer/embed.py, so the daemon needs no file at run
 * time and the page always matches the API it talks to. */
#include <stdlib.h>
#include <string.h>

#include "api/viewer.h"

extern const unsigned char viewer_page[];
extern const size_t viewer_page_length;
extern const unsigned char tileset_image[];
extern const size_t tileset_image_length;
extern const unsigned char tileset_progression_image[];
extern const size_t tileset_progression_image_length;

void tileset_respond(request *r, bool progression) {
  const unsigned char *image = progression ? tileset_progression_image : tileset_image;
  size_t length = progression ? tileset_progression_image_length : tileset_image_length;
  char *copy = malloc(length + 1);
  if (copy != NULL)
    memcpy(copy, image, length);
  /* It changes only with the daemon, like the page. */
  const char *headers[] = {MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache", NULL};
  http_respond(r, 200, "image/png", copy, length, headers);
}

void viewer_respond(request *r) {
  char *copy = malloc(viewer_page_length + 1);
  if (copy != NULL)
    memcpy(copy, viewer_page, viewer_page_length);
  /* The page changes only with the daemon: revalidate rather than keep it
   * past an upgrade. */
  const char *headers[] = {MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache", NULL};
  http_respond(r, 200, "text/html; charset=utf-8", copy, viewer_page_length, headers);
}
