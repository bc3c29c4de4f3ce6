/* The daemon's own error codes, for conditions only a service has. They
 * extend the library's DG_E* codes (dungeon/error.h ends at -10); like
 * those, each becomes an HTTP status only in the routes' one table
 * (api/problem.h). */
#ifndef DUNGEOND_ERRORS_H
#define DUNGEOND_ERRORS_H

#include "transport/transport.h"

enum {
  SRV_EDRAINING = -101,       /* the daemon is shutting down: 503, retry elsewhere */
  SRV_EQUEUE_FULL = -102,     /* the interactive queue is full (interactive_queue_max): 503 */
  SRV_ELOBBIES = -103,        /* limits.lobbies_max lobbies exist: 503 */
  SRV_ELOBBY_BYTES = -104,    /* lobby state would not fit limits.lobby_bytes_max: 503 */
  SRV_EGONE = -105,           /* the lobby a start waited on was disbanded or expired: 409 */
  SRV_ESYSTEM = HTTP_ESYSTEM, /* the operating system refused (socket, epoll): start-up only */
  SRV_ECLIENT_BUSY = -107,    /* this client has limits.client_queued_cost_max queued: 429 */
  SRV_ECLIENT_LOBBIES = -108, /* this client made limits.lobbies_per_client_max lobbies: 429 */
  SRV_EMISMATCH = -109,       /* a start's party is not the lobby this replica knows: 409 */
  SRV_EPRECONDITION = -110,   /* If-Match / If-None-Match refused the change: 412 */
};

#endif
