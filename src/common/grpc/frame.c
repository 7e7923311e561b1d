/* gRPC wire pieces: message framing, status names, percent-coding, timeouts. */
#include "grpc/frame.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* clang-format off */
static const char *const code_names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
};
/* clang-format on */

const char *dra_grpc_code_name(int code)
{
    if (code < 0 || code >= (int)(sizeof code_names / sizeof *code_names))
        return "UNKNOWN_STATUS";
    return code_names[code];
}

int dra_grpc_code_from_http(int http_status)
{
    switch (http_status) {
    case 400: return DRA_GRPC_INTERNAL;
    case 401: return DRA_GRPC_UNAUTHENTICATED;
    case 403: return DRA_GRPC_PERMISSION_DENIED;
    case 404: return DRA_GRPC_UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504: return DRA_GRPC_UNAVAILABLE;
    default: return DRA_GRPC_UNKNOWN;
    }
}

void dra_grpc_reader_init(dra_grpc_reader *r, size_t max_msg)
{
    memset(r, 0, sizeof *r);
    r->max_msg = max_msg ? max_msg : DRA_GRPC_DEFAULT_MAX_MSG;
}

dra_grpc_read_status dra_grpc_reader_feed(dra_grpc_reader *r, const uint8_t *data, size_t len, size_t *used,
                                          const uint8_t **msg, size_t *msg_len)
{
    size_t i = 0;
    *msg = NULL;
    *msg_len = 0;
    while (r->have_prefix < DRA_GRPC_PREFIX && i < len) {
        r->prefix[r->have_prefix++] = data[i++];
        if (r->have_prefix == DRA_GRPC_PREFIX) {
            if (r->prefix[0] != 0) {
                *used = i;
                return DRA_GRPC_READ_COMPRESSED;
            }
            r->want = (size_t)r->prefix[1] << 24 | (size_t)r->prefix[2] << 16 | (size_t)r->prefix[3] << 8 |
                      (size_t)r->prefix[4];
            if (r->want > r->max_msg) {
                *used = i;
                return DRA_GRPC_READ_TOO_LARGE;
            }
            dra_buf_reset(&r->buf);
        }
    }
    if (r->have_prefix < DRA_GRPC_PREFIX) {
        *used = i;
        return DRA_GRPC_READ_OK;
    }
    size_t take = r->want - r->buf.len;
    if (take > len - i)
        take = len - i;
    if (take)
        dra_buf_append(&r->buf, data + i, take);
    else if (!r->buf.data)
        dra_buf_grow(&r->buf, 1); /* an empty message still needs a pointer */
    i += take;
    *used = i;
    if (r->buf.len < r->want)
        return DRA_GRPC_READ_OK;
    r->have_prefix = 0;
    r->messages++;
    *msg = (const uint8_t *)r->buf.data;
    *msg_len = r->buf.len;
    return DRA_GRPC_READ_MSG;
}

bool dra_grpc_reader_partial(const dra_grpc_reader *r)
{
    return r->have_prefix > 0;
}

void dra_grpc_reader_free(dra_grpc_reader *r)
{
    dra_buf_free(&r->buf);
    r->have_prefix = 0;
}

void dra_grpc_frame_append(dra_buf *b, const void *msg, size_t len)
{
    uint8_t p[DRA_GRPC_PREFIX] = {0, (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
    dra_buf_append(b, p, sizeof p);
    if (len)
        dra_buf_append(b, msg, len);
}

void dra_grpc_percent_encode(dra_buf *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    dra_buf_grow(b, len + 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c <= 0x7e && c != '%') {
            dra_buf_putc(b, (char)c);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            dra_buf_append(b, e, 3);
        }
    }
    dra_buf_grow(b, 1); /* NUL-terminated even when empty */
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void dra_grpc_percent_decode(dra_buf *b, const char *s, size_t len)
{
    dra_buf_grow(b, len + 1);
    for (size_t i = 0; i < len; i++) {
        int h, l;
        if (s[i] == '%' && i + 2 < len && (h = hexval(s[i + 1])) >= 0 && (l = hexval(s[i + 2])) >= 0) {
            dra_buf_putc(b, (char)(h << 4 | l));
            i += 2;
        } else {
            dra_buf_putc(b, s[i]);
        }
    }
}

void dra_grpc_timeout_format(long long ms, char out[16])
{
    if (ms < 0)
        ms = 0;
    if (ms <= 99999999LL) {
        snprintf(out, 16, "%dm", (int)ms);
        return;
    }
    long long s = (ms + 999) / 1000;
    if (s <= 99999999LL) {
        snprintf(out, 16, "%dS", (int)s);
        return;
    }
    long long m = (s + 59) / 60;
    if (m <= 99999999LL) {
        snprintf(out, 16, "%dM", (int)m);
        return;
    }
    long long h = (m + 59) / 60;
    snprintf(out, 16, "%dH", (int)(h > 99999999LL ? 99999999LL : h));
}

bool dra_grpc_timeout_parse(const char *s, size_t len, long long *ms)
{
    if (len < 2 || len > 9)
        return false;
    long long v = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    switch (s[len - 1]) {
    case 'H': *ms = v * 3600000LL; break;
    case 'M': *ms = v * 60000LL; break;
    case 'S': *ms = v * 1000LL; break;
    case 'm': *ms = v; break;
    case 'u': *ms = (v + 999) / 1000; break;
    case 'n': *ms = (v + 999999) / 1000000; break;
    default: return false;
    }
    return true;
}
