/* The lobby routes (/v1/lobbies/...) over lobby.c's state. Loop thread. */
#ifndef DUNGEOND_LOBBY_ROUTES_H
#define DUNGEOND_LOBBY_ROUTES_H

#include "transport/http.h"

/* Answers a request under /v1/lobbies/; `rest` is the path after it. */
void lobby_route(request *r, const char *rest);

#endif
