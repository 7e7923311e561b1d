/* gRPC over HTTP/2 (libnghttp2) on unix sockets: a blocking client and a
 * single-threaded poll-loop server sharing the framing of frame.h.
 *
 * Scope: insecure unix-socket transport as the kubelet uses it, unary and
 * server-streaming calls, grpc-timeout, grpc-status/grpc-message trailers
 * (also trailers-only responses), message size caps, no compression.  Knows
 * nothing of Kubernetes: messages are opaque bytes (protobuf-c packs them).
 *
 * Errors are values: calls fill a dra_grpc_status (code + message, the
 * message heap-owned by the status, released by dra_grpc_status_clear).
 * Nothing prints; an optional log callback receives one-line notes.
 * No global state; no signals are installed (a caller's handler interrupts
 * waits, and the `cancel` flag it sets is checked after every wake-up).
 */
#ifndef DRA_GRPC_GRPC_H
#define DRA_GRPC_GRPC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "grpc/frame.h"

typedef void (*dra_grpc_log_fn)(void *ctx, const char *line);

typedef struct dra_grpc_status {
    int code;      /* DRA_GRPC_* */
    char *message; /* heap, may be NULL for OK */
} dra_grpc_status;

void dra_grpc_status_set(dra_grpc_status *st, int code, const char *fmt, ...) DRA_PRINTF(3, 4);
void dra_grpc_status_clear(dra_grpc_status *st);

/* ---- client ---- */

typedef struct dra_grpc_client_opts {
    size_t max_msg;      /* largest message sent or received; 0 = 4 MiB */
    dra_grpc_log_fn log; /* optional */
    void *log_ctx;
    volatile sig_atomic_t *cancel; /* optional: non-zero ends a call with CANCELLED */
} dra_grpc_client_opts;

typedef struct dra_grpc_client dra_grpc_client;

/* A client for the unix socket `path`.  Connects lazily on the first call
 * and again after the connection broke.  Fails only for a path that cannot
 * be a unix socket address (too long: the 107-byte sun_path limit). */
DRA_MUST_USE dra_err *dra_grpc_client_new(const char *path, const dra_grpc_client_opts *opts, dra_grpc_client **out);
void dra_grpc_client_free(dra_grpc_client *c);
/* Connect now (a no-op when connected).  Returns DRA_GRPC_OK or UNAVAILABLE
 * with the connect error in st. */
int dra_grpc_client_connect(dra_grpc_client *c, dra_grpc_status *st);

/* Unary call of `method` ("/pkg.Service/Method").  timeout_ms <= 0 means no
 * deadline.  On OK, resp holds the response message (appended).  Returns
 * st->code.  A call that fails because a reused connection was closed by the
 * peer before any answer arrived is retried once on a new connection. */
int dra_grpc_unary(dra_grpc_client *c, const char *method, const void *req, size_t req_len, long timeout_ms,
                   dra_buf *resp, dra_grpc_status *st);

/* Server-streaming call: on_msg is called for every message (return non-zero
 * to stop: the call is cancelled and reported as CANCELLED).  Returns when
 * the stream ends (the server's status), the deadline passes, or *cancel is
 * set.  timeout_ms <= 0 means no deadline. */
typedef int (*dra_grpc_msg_fn)(void *ctx, const uint8_t *msg, size_t len);
int dra_grpc_server_streaming(dra_grpc_client *c, const char *method, const void *req, size_t req_len, long timeout_ms,
                              dra_grpc_msg_fn on_msg, void *ctx, dra_grpc_status *st);

/* ---- server ---- */

typedef struct dra_grpc_server dra_grpc_server;
typedef struct dra_grpc_call dra_grpc_call;

/* What a handler answers. */
typedef struct dra_grpc_reply {
    int code;        /* DRA_GRPC_OK or an error code (then `message`) */
    dra_buf body;    /* response message (unframed) when OK */
    dra_buf message; /* error text, sent percent-encoded in grpc-message */
    long delay_ms;   /* answer after this long (the loop keeps serving others) */
    bool raw;        /* send body as the DATA bytes verbatim, unframed (fault injection) */
} dra_grpc_reply;

/* Unary handler: fill rep (code starts as OK). */
typedef void (*dra_grpc_unary_fn)(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep);
/* Server-streaming handler, called when a call starts: rep->body is sent as
 * the first message (empty = an empty message), or set an error code to end
 * the call at once.  Later messages go out with dra_grpc_server_broadcast. */
typedef void (*dra_grpc_stream_fn)(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep);

typedef struct dra_grpc_server_opts {
    size_t max_msg; /* 0 = 4 MiB */
    dra_grpc_log_fn log;
    void *log_ctx;
} dra_grpc_server_opts;

dra_grpc_server *dra_grpc_server_new(const dra_grpc_server_opts *opts);
/* Register a method path; the strings are borrowed (must outlive the server). */
void dra_grpc_server_unary(dra_grpc_server *s, const char *method, dra_grpc_unary_fn fn, void *ctx);
void dra_grpc_server_stream(dra_grpc_server *s, const char *method, dra_grpc_stream_fn fn, void *ctx);
/* Listen on a unix socket (several are fine).  A stale socket file at the
 * path is replaced; any other existing file, a symbolic link too, is an
 * error (DRA_EXIT_RUNTIME).  When freed, the server removes the socket
 * files it created, each only if the path still names that file. */
DRA_MUST_USE dra_err *dra_grpc_server_listen(dra_grpc_server *s, const char *path);
/* Serve for up to timeout_ms (-1 = until something happened).  Returns 0, or
 * -1 with errno when poll failed (EINTR: a signal arrived; check your flag). */
int dra_grpc_server_poll(dra_grpc_server *s, int timeout_ms);
/* Send one message to every open server-streaming call of `method`. */
size_t dra_grpc_server_broadcast(dra_grpc_server *s, const char *method, const void *msg, size_t len);
/* Number of open calls of `method` (NULL = all). */
size_t dra_grpc_server_open_calls(const dra_grpc_server *s, const char *method);
/* Close every connection (GOAWAY), remove the sockets, free. */
void dra_grpc_server_free(dra_grpc_server *s);

#endif
