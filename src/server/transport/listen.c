/* See listen.h. */
#include "transport/listen.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"

int http_parse_listen(const char *key, const char *text, struct sockaddr_storage *out,
                      dg_error *err) {
  const char *colon = strrchr(text, ':');
  /* Text that is not HOST:PORT at all is malformed; one too long for the
   * buffer, or a port number out of range, is a bad value. */
  if (colon == NULL || colon == text || strlen(text) >= HTTP_LISTEN_MAX)
    return dg_error_set(err, colon == NULL || colon == text ? DG_EPARSE : DG_EINVAL, key,
                        "%s must be HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080", key);
  char *end = NULL;
  long port = strtol(colon + 1, &end, 10);
  if (colon[1] == '\0' || *end != '\0' || port < 0 || port > 65535)
    return dg_error_set(err, colon[1] == '\0' || *end != '\0' ? DG_EPARSE : DG_EINVAL, key,
                        "%s's port must be an integer from 0 to 65535", key);
  char host[HTTP_LISTEN_MAX];
  snprintf(host, sizeof host, "%.*s", (int)(colon - text), text);
  struct sockaddr_storage address;
  memset(&address, 0, sizeof address);
  size_t length = strlen(host);
  if (length >= 2 && host[0] == '[' && host[length - 1] == ']') {
    struct sockaddr_in6 *six = (struct sockaddr_in6 *)&address;
    host[length - 1] = '\0';
    six->sin6_family = AF_INET6;
    six->sin6_port = htons((uint16_t)port);
    if (inet_pton(AF_INET6, host + 1, &six->sin6_addr) != 1)
      return dg_error_set(err, DG_EINVAL, key,
                          "%s's host must be an IPv6 address in brackets such as [::1], not '%s]'",
                          key, host);
  } else {
    struct sockaddr_in *four = (struct sockaddr_in *)&address;
    if (strcmp(host, "localhost") == 0)
      snprintf(host, sizeof host, "127.0.0.1");
    four->sin_family = AF_INET;
    four->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &four->sin_addr) != 1)
      return dg_error_set(err, DG_EINVAL, key,
                          "%s's host must be an IPv4 address such as 127.0.0.1 (or localhost) or "
                          "an IPv6 address in brackets such as [::1], not '%s'",
                          key, host);
  }
  if (out != NULL)
    *out = address;
  return 0;
}
