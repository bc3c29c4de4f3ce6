/* The one parser of listen addresses: the configuration checks `listen`,
 * `health_listen` and their flags with it (so --check-config refuses what
 * start-up would), and the listeners bind what it returns. */
#ifndef DUNGEOND_LISTEN_H
#define DUNGEOND_LISTEN_H

#include <netinet/in.h>

#include "dungeon/dungeon.h"

/* `text` as IPv4 HOST:PORT (`localhost` meaning 127.0.0.1) or IPv6
 * [ADDRESS]:PORT (issue 21) into *out, a sockaddr_in or sockaddr_in6 (may
 * be NULL to only check). 0, or with `err` naming `key` DG_EPARSE (not
 * HOST:PORT) or DG_EINVAL (too long, port out of range, host not an IPv4
 * address or a bracketed IPv6 one). */
int http_parse_listen(const char *key, const char *text, struct sockaddr_storage *out,
                      dg_error *err);

#endif
