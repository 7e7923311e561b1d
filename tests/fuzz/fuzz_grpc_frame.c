/* Fuzz the gRPC message reader (grpc/frame.h) and the grpc-message and
 * grpc-timeout decoders: the input is split into chunks at positions taken
 * from its first bytes; whatever the chunking, the reader must deliver the
 * same messages as when fed in one piece, never read out of bounds, and
 * stop at a compressed flag or an oversize length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grpc/frame.h"

typedef struct {
    size_t n;
    size_t lens[64];
    uint32_t sums[64];
    int end;
} trace;

static void run(const uint8_t *d, size_t len, size_t chunk, trace *t)
{
    dra_grpc_reader r;
    dra_grpc_reader_init(&r, 1024);
    memset(t, 0, sizeof *t);
    size_t off = 0;
    while (off < len && !t->end) {
        size_t c = chunk ? chunk : len;
        if (c > len - off)
            c = len - off;
        const uint8_t *p = d + off;
        size_t left = c;
        while (left && !t->end) {
            size_t used;
            const uint8_t *m;
            size_t ml;
            dra_grpc_read_status s = dra_grpc_reader_feed(&r, p, left, &used, &m, &ml);
            if (used > left)
                abort();
            if (s == DRA_GRPC_READ_MSG) {
                uint32_t sum = 0;
                for (size_t i = 0; i < ml; i++)
                    sum = sum * 31 + m[i];
                if (t->n < 64) {
                    t->lens[t->n] = ml;
                    t->sums[t->n] = sum;
                }
                t->n++;
            } else if (s != DRA_GRPC_READ_OK) {
                t->end = (int)s;
            } else if (used != left) {
                abort(); /* OK means all consumed */
            }
            p += used;
            left -= used;
        }
        off += c;
    }
    dra_grpc_reader_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t chunk = data[0] % 17;
    trace a, b;
    run(data + 1, size - 1, 0, &a);
    run(data + 1, size - 1, chunk, &b);
    if (a.n != b.n || a.end != b.end || memcmp(a.lens, b.lens, sizeof a.lens) || memcmp(a.sums, b.sums, sizeof a.sums))
        abort();

    dra_buf out = DRA_BUF_INIT, back = DRA_BUF_INIT;
    dra_grpc_percent_decode(&out, (const char *)data, size);
    dra_grpc_percent_encode(&back, (const char *)data, size);
    dra_buf again = DRA_BUF_INIT;
    dra_grpc_percent_decode(&again, back.data, back.len);
    if (again.len != size || memcmp(again.data, data, size) != 0)
        abort(); /* encode then decode is the identity */
    dra_buf_free(&out);
    dra_buf_free(&back);
    dra_buf_free(&again);
    long long ms;
    if (dra_grpc_timeout_parse((const char *)data, size, &ms) && ms < 0)
        abort();
    return 0;
}
