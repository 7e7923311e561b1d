/* IP addresses and prefixes parsed as Go's net/netip parses them
 * (ParseAddr, ParsePrefix: which strings are addresses, and Go's error
 * texts), for the Kubernetes IP and CIDR libraries (apiserver
 * pkg/cel/library/ip.go parseIPAddr, cidr.go parseCIDR).
 *
 * Ownership: err may be NULL; otherwise the error text is appended to the
 * caller's buffer on failure ("ParseAddr(\"a\"): unable to parse IP",
 * "netip.ParsePrefix(\"a\"): no '/'").
 */
#ifndef DRA_CEL_NETIP_H
#define DRA_CEL_NETIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"

typedef struct cel_netip {
    uint8_t addr[16]; /* IPv4 in the first 4 bytes */
    int family;       /* 4 or 6 */
    bool zoned;       /* an IPv6 zone ("%eth0") was given */
} cel_netip;

bool cel_netip_parse_addr(const char *s, size_t n, cel_netip *out, dra_buf *err);
/* bits is the prefix length; the address is not masked. */
bool cel_netip_parse_prefix(const char *s, size_t n, cel_netip *out, int *bits, dra_buf *err);
/* Append an address as Go's Addr.String() writes it (IPv6 per RFC 5952,
 * never with an embedded IPv4: the libraries refuse IPv4-mapped ones). */
void cel_netip_format(const uint8_t addr[16], int family, dra_buf *b);
/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
bool cel_netip_is_4in6(const cel_netip *a);

#endif
