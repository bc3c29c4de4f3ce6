/* GET /: the viewer page. Loop thread. */
#ifndef DUNGEOND_VIEWER_H
#define DUNGEOND_VIEWER_H

#include "transport/http.h"

/* Answers `r` with the page (text/html, Cache-Control: no-cache). */
void viewer_respond(request *r);

/* Answers `r` with a Tiled tileset image (image/png): a Tiled map names
 * it relative to itself (DG_TILED_TILESET_IMAGE, or with locks or one-way
 * doors DG_TILED_TILESET_IMAGE_PROGRESSION, when `progression`), so the
 * daemon serves both at their names under every path a map comes from
 * (issue 21, item 6; issue 19, item 4). */
void tileset_respond(request *r, bool progression);

#endif
