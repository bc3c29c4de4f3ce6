/* The key the per-IP connection limit counts peers by
 * (src/server/transport/conns.c, conns_peer_key): one IPv4 address, or
 * one IPv6 /64, with IPv4-mapped IPv6 counted as the IPv4 address. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "transport/conns.h"

static uint64_t key6(const char *text) {
  struct sockaddr_in6 address;
  memset(&address, 0, sizeof address);
  address.sin6_family = AF_INET6;
  cr_assert_eq(inet_pton(AF_INET6, text, &address.sin6_addr), 1, "%s", text);
  return conns_peer_key((const struct sockaddr *)&address, sizeof address);
}

static uint64_t key4(const char *text) {
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  cr_assert_eq(inet_pton(AF_INET, text, &address.sin_addr), 1, "%s", text);
  return conns_peer_key((const struct sockaddr *)&address, sizeof address);
}

Test(peer_key, ipv6_by_64_ipv4_by_address) {
  cr_assert_eq(key6("2001:db8:1:2::1"), key6("2001:db8:1:2:ffff:ffff:ffff:ffff"),
               "one /64 must be one peer");
  cr_assert_neq(key6("2001:db8:1:2::1"), key6("2001:db8:1:3::1"), "another /64");
  cr_assert_eq(key6("::ffff:192.0.2.7"), key4("192.0.2.7"), "IPv4-mapped is the IPv4 peer");
  cr_assert_neq(key4("192.0.2.7"), key4("192.0.2.8"));
  cr_assert_neq(key4("0.0.0.1"), key6("::1"));
  cr_assert_neq(key6("::1"), 0u, "::1 must be a known peer");
  cr_assert_eq(key6("::1"), key6("::2"));
  char text[INET6_ADDRSTRLEN + 4];
  cr_assert_str_eq(conns_peer_text(key6("2001:db8:1:2::9"), text, sizeof text),
                   "2001:db8:1:2::/64");
  cr_assert_str_eq(conns_peer_text(key4("192.0.2.7"), text, sizeof text), "192.0.2.7");
  cr_assert_str_eq(conns_peer_text(0, text, sizeof text), "?");
  cr_assert_str_eq(conns_peer_text(key6("::1"), text, sizeof text), "::/64");
  struct sockaddr unknown = {.sa_family = AF_UNIX};
  cr_assert_eq(conns_peer_key(&unknown, sizeof unknown), 0u);
}
