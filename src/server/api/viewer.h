/* GET /: the viewer page. Loop thread. */
#ifndef DUNGEOND_VIEWER_H
#define DUNGEOND_VIEWER_H

#include "transport/http.h"

/* Answers `r` with the page (text/html, Cache-Control: no-cache). */
void viewer_respond(request *r);

#endif
