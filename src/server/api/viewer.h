/* GET /: the viewer page. Loop thread. */
#ifndef DUNGEOND_VIEWER_H
#define DUNGEOND_VIEWER_H

#include "transport/http.h"

/* Answers `r` with the page (text/html, Cache-Control: no-cache). */
void viewer_respond(request *r);

/* Answers `r` with the Tiled tileset image (image/png): a Tiled map names
 * it relative to itself (DG_TILED_TILESET_IMAGE), so the daemon serves it
 * at that name under every path a map comes from (issue 21, item 6). */
void tileset_respond(request *r);

#endif
