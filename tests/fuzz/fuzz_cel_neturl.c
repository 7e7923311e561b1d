/* Fuzz the URL parser (Go's net/url as the Kubernetes URL library uses it):
 * never a crash; an error says `parse "…": why`; what ParseRequestURI
 * takes with a scheme Parse takes too unless it holds a fragment; the parts of a
 * parsed URL are set, with a lowered scheme and a port of digits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/neturl.h"

static void check_parts(const cel_url *u)
{
    const char *parts[] = {u->scheme, u->host, u->hostname, u->port, u->path, u->query, u->userinfo, u->opaque};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!parts[i])
            abort();
    for (const char *p = u->port; *p; p++)
        if (*p < '0' || *p > '9')
            abort();
    for (const char *p = u->scheme; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            abort(); /* lowered */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cel_scratch sc = CEL_SCRATCH_INIT;
    const char *s = (const char *)data;
    for (int req = 0; req < 2; req++) {
        cel_url u;
        dra_buf err = DRA_BUF_INIT;
        bool ok = cel_neturl_parse(&sc, s, size, req, &u, &err);
        if (ok) {
            check_parts(&u);
            if (err.len)
                abort();
        } else if (strncmp(dra_buf_str(&err), "parse \"", 7) != 0) {
            abort();
        }
        if (ok && req && *u.scheme && !memchr(s, '#', size)) {
            cel_url v;
            if (!cel_neturl_parse(&sc, s, size, false, &v, NULL))
                abort();
        }
        dra_buf_free(&err);
    }
    dra_arena_free(&sc);
    return 0;
}
