/* See listen.h. */
#include "transport/listen.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"

int http_parse_listen(const char *key, const char *text, struct sockaddr_in *out, dg_error *err) {
  const char *colon = strrchr(text, ':');
  /* Text that is not HOST:PORT at all is malformed; one too long for the
   * buffer, or a port number out of range, is a bad value. */
  if (colon == NULL || colon == text || strlen(text) >= HTTP_LISTEN_MAX)
    return dg_error_set(err, colon == NULL || colon == text ? DG_EPARSE : DG_EINVAL, key,
                        "%s must be HOST:PORT, e.g. 127.0.0.1:8080", key);
  char *end = NULL;
  long port = strtol(colon + 1, &end, 10);
  if (colon[1] == '\0' || *end != '\0' || port < 0 || port > 65535)
    return dg_error_set(err, colon[1] == '\0' || *end != '\0' ? DG_EPARSE : DG_EINVAL, key,
                        "%s's port must be an integer from 0 to 65535", key);
  char host[HTTP_LISTEN_MAX];
  snprintf(host, sizeof host, "%.*s", (int)(colon - text), text);
  if (strcmp(host, "localhost") == 0)
    snprintf(host, sizeof host, "127.0.0.1");
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &address.sin_addr) != 1)
    return dg_error_set(err, DG_EINVAL, key,
                        "%s's host must be an IPv4 address such as 127.0.0.1 (or localhost), "
                        "not '%s'",
                        key, host);
  if (out != NULL)
    *out = address;
  return 0;
}
