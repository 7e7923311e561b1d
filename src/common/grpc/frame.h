/* gRPC wire pieces shared by the client and the server (no I/O here).
 *
 *  - Length-prefixed messages: 1 flag byte (0 = not compressed; we never
 *    compress and refuse compressed messages), 4 bytes big-endian length,
 *    the message.  dra_grpc_reader reassembles them from DATA chunks of any
 *    size and enforces the size cap before buffering a message.
 *  - Status codes and their names ("UNAVAILABLE").
 *  - grpc-message percent-encoding (encode on send, decode on receive).
 *  - grpc-timeout values ("45000m": at most 8 digits and a unit H M S m u n).
 *
 * Knows nothing of HTTP/2 or Kubernetes.  Nothing here prints; errors are
 * returned as values.  A reader owns its buffer (dra_grpc_reader_free).
 */
#ifndef DRA_GRPC_FRAME_H
#define DRA_GRPC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Status codes (grpc/status.h numbering). */
enum {
    DRA_GRPC_OK = 0,
    DRA_GRPC_CANCELLED = 1,
    DRA_GRPC_UNKNOWN = 2,
    DRA_GRPC_INVALID_ARGUMENT = 3,
    DRA_GRPC_DEADLINE_EXCEEDED = 4,
    DRA_GRPC_NOT_FOUND = 5,
    DRA_GRPC_ALREADY_EXISTS = 6,
    DRA_GRPC_PERMISSION_DENIED = 7,
    DRA_GRPC_RESOURCE_EXHAUSTED = 8,
    DRA_GRPC_FAILED_PRECONDITION = 9,
    DRA_GRPC_ABORTED = 10,
    DRA_GRPC_OUT_OF_RANGE = 11,
    DRA_GRPC_UNIMPLEMENTED = 12,
    DRA_GRPC_INTERNAL = 13,
    DRA_GRPC_UNAVAILABLE = 14,
    DRA_GRPC_DATA_LOSS = 15,
    DRA_GRPC_UNAUTHENTICATED = 16,
};

#define DRA_GRPC_DEFAULT_MAX_MSG ((size_t)4 << 20) /* 4 MiB, as grpc-go and grpcio */
#define DRA_GRPC_PREFIX 5

/* "OK", "CANCELLED", ...; "CODE(n)" style names are not needed: unknown
 * numbers give "UNKNOWN_STATUS". */
const char *dra_grpc_code_name(int code);
/* The gRPC code for an HTTP status without grpc-status (the gRPC spec's
 * HTTP-to-gRPC mapping). */
int dra_grpc_code_from_http(int http_status);

/* Reassembly of length-prefixed messages. */
typedef struct dra_grpc_reader {
    dra_buf buf; /* the current message (after the prefix) */
    uint8_t prefix[DRA_GRPC_PREFIX];
    size_t have_prefix; /* bytes of the prefix seen so far */
    size_t want;        /* length of the current message, valid when have_prefix == 5 */
    size_t max_msg;     /* 0 = DRA_GRPC_DEFAULT_MAX_MSG */
    size_t messages;    /* complete messages delivered so far */
} dra_grpc_reader;

/* clang-format off */
typedef enum {
    DRA_GRPC_READ_OK = 0,      /* all input consumed; no message pending */
    DRA_GRPC_READ_MSG,         /* a complete message: msg and msg_len valid until the next call */
    DRA_GRPC_READ_COMPRESSED,  /* flag byte not 0: compression was not negotiated */
    DRA_GRPC_READ_TOO_LARGE,   /* length above max_msg (r->want holds it) */
} dra_grpc_read_status;
/* clang-format on */

void dra_grpc_reader_init(dra_grpc_reader *r, size_t max_msg);
/* Feed bytes; consumes up to one message at a time.  Call repeatedly with
 * the remaining input (*used tells how much was consumed) until it returns
 * DRA_GRPC_READ_OK.  After COMPRESSED or TOO_LARGE the stream is unusable. */
dra_grpc_read_status dra_grpc_reader_feed(dra_grpc_reader *r, const uint8_t *data, size_t len, size_t *used,
                                          const uint8_t **msg, size_t *msg_len);
/* True when a message was started but not finished (a truncated stream). */
bool dra_grpc_reader_partial(const dra_grpc_reader *r);
void dra_grpc_reader_free(dra_grpc_reader *r);

/* Append prefix + message to b. */
void dra_grpc_frame_append(dra_buf *b, const void *msg, size_t len);

/* Percent-encoding of grpc-message: bytes outside 0x20..0x7e and '%' become
 * %XX.  Decoding turns valid %XX back into bytes and keeps anything else as
 * it is (the spec asks receivers to be lenient).  Results are NUL-terminated
 * and appended to b. */
void dra_grpc_percent_encode(dra_buf *b, const char *s, size_t len);
void dra_grpc_percent_decode(dra_buf *b, const char *s, size_t len);

/* grpc-timeout: format ms as the shortest exact value of at most 8 digits
 * ("250m", "45S", "99999999m" -> rounded up to seconds/minutes/hours as
 * needed).  out must hold 16 bytes.  Parse returns false for a malformed
 * value; *ms is rounded up and saturates. */
void dra_grpc_timeout_format(long long ms, char out[16]);
bool dra_grpc_timeout_parse(const char *s, size_t len, long long *ms);

#endif
