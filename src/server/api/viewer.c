/* GET /: the viewer page (src/server/api/viewer/index.html), compiled into the
 * binary by src/server/api/viewer/embed.py, so the daemon needs no file at run
 * time and the page always matches the API it talks to. */
#include <stdlib.h>
#include <string.h>

#include "api/viewer.h"

extern const unsigned char viewer_page[];
extern const size_t viewer_page_length;

void viewer_respond(request *r) {
  char *copy = malloc(viewer_page_length + 1);
  if (copy != NULL)
    memcpy(copy, viewer_page, viewer_page_length);
  /* The page changes only with the daemon: revalidate rather than keep it
   * past an upgrade. */
  const char *headers[] = {MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache", NULL};
  http_respond(r, 200, "text/html; charset=utf-8", copy, viewer_page_length, headers);
}
