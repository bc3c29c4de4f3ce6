/* The routes: the transport's handler (http_start). Loop thread. */
#ifndef DUNGEOND_ROUTES_H
#define DUNGEOND_ROUTES_H

#include "transport/http.h"

/* Answers `r`, a request whose headers and body are read: 400/414 for a
 * bad path, 404, 401, 405, or the resource's handler. */
void route_handle(request *r);

#endif
