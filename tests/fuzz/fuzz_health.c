/* Fuzz the health endpoints' request reader (watch/health.h): any bytes get
 * one whole HTTP/1.1 response with a status line, a Content-Length that is
 * the body's length (none for a good HEAD), and no crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "watch/health.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_health_state st = {.stats = {.requests = 7, .writes = 2}, .passes = 3, .ready = size % 2 == 0};
    dra_buf out = DRA_BUF_INIT;
    dra_watch_health_respond(&st, (const char *)data, size, &out);
    const char *s = dra_buf_str(&out);
    if (strncmp(s, "HTTP/1.1 ", 9) != 0)
        abort();
    const char *hdr_end = strstr(s, "\r\n\r\n");
    const char *cl = strstr(s, "Content-Length: ");
    if (!hdr_end || !cl || cl > hdr_end)
        abort();
    size_t n = strtoul(cl + 16, NULL, 10), body = out.len - (size_t)(hdr_end + 4 - s);
    bool head = size >= 5 && memcmp(data, "HEAD ", 5) == 0 && strncmp(s, "HTTP/1.1 400", 12) != 0;
    if (head ? body != 0 : body != n)
        abort();
    dra_buf_free(&out);
    return 0;
}
