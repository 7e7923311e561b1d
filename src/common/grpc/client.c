/* gRPC client over one HTTP/2 connection on a unix socket (libnghttp2).
 *
 * Blocking calls on a non-blocking socket: poll until the call's stream is
 * closed, the deadline passes or the caller's cancel flag is set.  One call
 * at a time per client.  Error texts follow grpc-go where a user may compare
 * them ("transport: Error while dialing: dial unix PATH: connect: ...",
 * "grpc: received message larger than max (N vs. M)"). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "grpc/internal.h"
#include "../base/clock.h"

struct dra_grpc_client {
    int fd; /* first member: the send callback reads it */
    char *path;
    size_t max_msg;
    dra_grpc_log_fn log;
    void *log_ctx;
    volatile sig_atomic_t *cancel;
    nghttp2_session *s;
    bool broken;         /* the connection is unusable (EOF, I/O or protocol error, GOAWAY) */
    int conn_errno;      /* errno of the failure, 0 for EOF / protocol */
    int h2err;           /* nghttp2 error of the failure */
    unsigned calls_done; /* calls completed on this connection */
    struct call *call;   /* the call in progress */
};

struct call {
    int32_t id;
    dra_buf out; /* framed request */
    size_t out_off;
    bool got_headers; /* the response HEADERS arrived */
    int http_status;
    bool have_status;
    int status;
    dra_buf message; /* percent-decoded grpc-message */
    bool bad_content_type;
    char content_type[64];
    dra_grpc_reader rd;
    bool closed;
    uint32_t rst;  /* RST_STREAM code when closed by a reset */
    int fail_code; /* a local failure (size cap, compression, bad frame) */
    char *fail_msg;
    size_t received; /* messages delivered */
    bool any_bytes;  /* some response frame arrived (no retry then) */
    bool streaming;
    dra_grpc_msg_fn on_msg;
    void *ctx;
    bool stopped; /* on_msg asked to stop */
};

static void call_fail(struct call *k, int code, const char *fmt, ...) DRA_PRINTF(3, 4);
static void call_fail(struct call *k, int code, const char *fmt, ...)
{
    if (k->fail_msg)
        return; /* the first failure wins */
    va_list ap;
    va_start(ap, fmt);
    k->fail_msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    k->fail_code = code;
}

static ssize_t send_cb(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *user)
{
    dra_grpc_client *c = user;
    ssize_t n = dra_grpc_sock_send(c->fd, data, len);
    if (n == NGHTTP2_ERR_CALLBACK_FAILURE && !c->conn_errno)
        c->conn_errno = errno;
    return n;
}

static struct call *stream_call(dra_grpc_client *c, int32_t id)
{
    return c->call && c->call->id == id ? c->call : NULL;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen, const uint8_t *value,
                     size_t vlen, uint8_t flags, void *user)
{
    struct call *k = stream_call(user, f->hd.stream_id);
    if (!k || f->hd.type != NGHTTP2_HEADERS)
        return 0;
    k->any_bytes = true;
    if (nlen == 7 && memcmp(name, ":status", 7) == 0) {
        int v = 0;
        for (size_t i = 0; i < vlen && i < 4; i++)
            v = v * 10 + (value[i] >= '0' && value[i] <= '9' ? value[i] - '0' : 0);
        k->http_status = v;
    } else if (nlen == 12 && memcmp(name, "content-type", 12) == 0) {
        snprintf(k->content_type, sizeof k->content_type, "%.*s", (int)(vlen < 63 ? vlen : 63), value);
        k->bad_content_type = !(vlen >= 16 && memcmp(value, "application/grpc", 16) == 0 &&
                                (vlen == 16 || value[16] == '+' || value[16] == ';'));
    } else if (nlen == 11 && memcmp(name, "grpc-status", 11) == 0) {
        int v = 0;
        bool ok = vlen > 0 && vlen <= 3;
        for (size_t i = 0; ok && i < vlen; i++) {
            ok = value[i] >= '0' && value[i] <= '9';
            v = v * 10 + (value[i] - '0');
        }
        k->have_status = true;
        k->status = ok ? v : DRA_GRPC_UNKNOWN;
    } else if (nlen == 12 && memcmp(name, "grpc-message", 12) == 0) {
        dra_buf_reset(&k->message);
        dra_grpc_percent_decode(&k->message, (const char *)value, vlen);
    } else if (nlen == 13 && memcmp(name, "grpc-encoding", 13) == 0) {
        if (!(vlen == 8 && memcmp(value, "identity", 8) == 0))
            call_fail(k, DRA_GRPC_INTERNAL, "grpc: compressed response (grpc-encoding %.*s) was not asked for",
                      (int)(vlen > 40 ? 40 : vlen), value);
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
    dra_grpc_client *c = user;
    if (f->hd.type == NGHTTP2_GOAWAY) {
        c->broken = true; /* no new calls on this connection; the current may finish */
        return 0;
    }
    struct call *k = stream_call(c, f->hd.stream_id);
    if (k && f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_RESPONSE)
        k->got_headers = true;
    return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *user)
{
    dra_grpc_client *c = user;
    struct call *k = stream_call(c, id);
    if (!k)
        return 0;
    k->any_bytes = true;
    while (len > 0 && !k->fail_msg && !k->stopped) {
        size_t used;
        const uint8_t *msg;
        size_t mlen;
        dra_grpc_read_status r = dra_grpc_reader_feed(&k->rd, data, len, &used, &msg, &mlen);
        data += used;
        len -= used;
        if (r == DRA_GRPC_READ_MSG) {
            k->received++;
            if (!k->streaming && k->received > 1) {
                call_fail(k, DRA_GRPC_INTERNAL, "grpc: more than one response message for a unary call");
            } else if (k->on_msg && k->on_msg(k->ctx, msg, mlen) != 0) {
                k->stopped = true;
            }
        } else if (r == DRA_GRPC_READ_COMPRESSED) {
            call_fail(k, DRA_GRPC_INTERNAL, "grpc: compressed message (flag byte %u) without negotiated compression",
                      k->rd.prefix[0]);
        } else if (r == DRA_GRPC_READ_TOO_LARGE) {
            call_fail(k, DRA_GRPC_RESOURCE_EXHAUSTED, "grpc: received message larger than max (%zu vs. %zu)",
                      k->rd.want, k->rd.max_msg);
        }
    }
    if ((k->fail_msg || k->stopped) && !k->closed)
        nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    return 0;
}

static int on_close(nghttp2_session *s, int32_t id, uint32_t err, void *user)
{
    struct call *k = stream_call(user, id);
    if (k) {
        k->closed = true;
        k->rst = err;
    }
    return 0;
}

static ssize_t read_req(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *user)
{
    struct call *k = src->ptr;
    size_t left = k->out.len - k->out_off;
    size_t n = left < len ? left : len;
    memcpy(buf, k->out.data + k->out_off, n);
    k->out_off += n;
    if (k->out_off == k->out.len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static void disconnect(dra_grpc_client *c)
{
    if (c->s)
        nghttp2_session_del(c->s);
    c->s = NULL;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->broken = false;
    c->conn_errno = 0;
    c->h2err = 0;
    c->calls_done = 0;
}

dra_err *dra_grpc_client_new(const char *path, const dra_grpc_client_opts *opts, dra_grpc_client **out)
{
    struct sockaddr_un sa;
    *out = NULL;
    if (strlen(path) >= sizeof sa.sun_path)
        return dra_err_new(DRA_EXIT_INPUT, "socket path %s is longer than %zu bytes", path, sizeof sa.sun_path - 1);
    dra_grpc_client *c = dra_xcalloc(1, sizeof *c);
    c->fd = -1;
    c->path = dra_xstrdup(path);
    if (opts) {
        c->max_msg = opts->max_msg;
        c->log = opts->log;
        c->log_ctx = opts->log_ctx;
        c->cancel = opts->cancel;
    }
    if (!c->max_msg)
        c->max_msg = DRA_GRPC_DEFAULT_MAX_MSG;
    *out = c;
    return NULL;
}

void dra_grpc_client_free(dra_grpc_client *c)
{
    if (!c)
        return;
    if (c->s && !c->broken) {
        nghttp2_session_terminate_session(c->s, NGHTTP2_NO_ERROR);
        nghttp2_session_send(c->s);
    }
    disconnect(c);
    free(c->path);
    free(c);
}

int dra_grpc_client_connect(dra_grpc_client *c, dra_grpc_status *st)
{
    char eb[128];
    if (c->s && !c->broken)
        return DRA_GRPC_OK;
    disconnect(c);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", c->path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        dra_grpc_status_set(st, DRA_GRPC_UNAVAILABLE, "socket: %s", dra_grpc_strerror(errno, eb, sizeof eb));
        return st->code;
    }
    int r;
    do
        r = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        int e = errno;
        close(fd);
        dra_grpc_status_set(st, DRA_GRPC_UNAVAILABLE,
                            "connection error: desc = \"transport: Error while dialing: dial unix %s: connect: %s\"",
                            c->path, dra_grpc_strerror(e, eb, sizeof eb));
        dra_grpc_note(c->log, c->log_ctx, "connect %s: %s", c->path, eb);
        return st->code;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    c->fd = fd;

    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(cb, send_cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_client_new(&c->s, cb, c);
    nghttp2_session_callbacks_del(cb);
    /* A large window: a 4 MiB answer should not wait for WINDOW_UPDATEs. */
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 24},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, 1 << 16},
    };
    nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof *iv);
    nghttp2_session_set_local_window_size(c->s, NGHTTP2_FLAG_NONE, 0, 1 << 24);
    dra_grpc_note(c->log, c->log_ctx, "connected to %s", c->path);
    return DRA_GRPC_OK;
}

/* Run the session until the call's stream closes.  Returns DRA_GRPC_OK when
 * it closed (the call's fields tell how), else a transport status in st. */
static int pump(dra_grpc_client *c, struct call *k, long long deadline, long timeout_ms, dra_grpc_status *st)
{
    char eb[128];
    while (!k->closed) {
        int rv = nghttp2_session_send(c->s);
        if (rv != 0) {
            c->broken = true;
            if (c->conn_errno)
                dra_grpc_status_set(st, DRA_GRPC_UNAVAILABLE,
                                    "connection error: desc = \"transport: write unix %s: %s\"", c->path,
                                    dra_grpc_strerror(c->conn_errno, eb, sizeof eb));
            else
                dra_grpc_status_set(st, DRA_GRPC_INTERNAL, "HTTP/2 error: %s", nghttp2_strerror(rv));
            return st->code;
        }
        if (k->closed)
            break;
        if (c->cancel && *c->cancel) {
            nghttp2_submit_rst_stream(c->s, NGHTTP2_FLAG_NONE, k->id, NGHTTP2_CANCEL);
            nghttp2_session_send(c->s);
            dra_grpc_status_set(st, DRA_GRPC_CANCELLED, "context canceled");
            return st->code;
        }
        int wait = -1;
        if (deadline) {
            long long left = deadline - dra_mono_ms();
            if (left <= 0) {
                nghttp2_submit_rst_stream(c->s, NGHTTP2_FLAG_NONE, k->id, NGHTTP2_CANCEL);
                nghttp2_session_send(c->s);
                dra_grpc_status_set(st, DRA_GRPC_DEADLINE_EXCEEDED,
                                    "context deadline exceeded (no answer within %ld ms)", timeout_ms);
                return st->code;
            }
            wait = left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        if (nghttp2_session_want_write(c->s))
            p.events |= POLLOUT;
        int n = poll(&p, 1, wait);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            dra_grpc_status_set(st, DRA_GRPC_INTERNAL, "poll: %s", dra_grpc_strerror(errno, eb, sizeof eb));
            return st->code;
        }
        if (n == 0)
            continue;
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            int h2err;
            int r = dra_grpc_sock_recv(c->fd, c->s, &h2err);
            if (r <= 0) {
                c->broken = true;
                if (k->closed)
                    break;
                if (r == 0)
                    dra_grpc_status_set(
                        st, DRA_GRPC_UNAVAILABLE,
                        "connection error: desc = \"error reading from server: EOF\" (%s closed the connection)",
                        c->path);
                else if (h2err)
                    dra_grpc_status_set(st, DRA_GRPC_INTERNAL,
                                        "connection error: desc = \"transport: bad HTTP/2 from %s: %s\"", c->path,
                                        nghttp2_strerror(h2err));
                else
                    dra_grpc_status_set(st, DRA_GRPC_UNAVAILABLE,
                                        "connection error: desc = \"error reading from server: read unix %s: %s\"",
                                        c->path, dra_grpc_strerror(errno, eb, sizeof eb));
                return st->code;
            }
        }
    }
    return DRA_GRPC_OK;
}

/* The call's status after its stream closed. */
static int finish(struct call *k, dra_grpc_status *st)
{
    if (k->fail_msg) {
        dra_grpc_status_set(st, k->fail_code, "%s", k->fail_msg);
    } else if (k->stopped) {
        dra_grpc_status_set(st, DRA_GRPC_CANCELLED, "context canceled");
    } else if (k->got_headers && k->http_status != 200) {
        dra_grpc_status_set(st, dra_grpc_code_from_http(k->http_status),
                            "unexpected HTTP status code received from server: %d%s%s", k->http_status,
                            k->message.len ? "; " : "", dra_buf_str(&k->message));
    } else if (k->got_headers && k->bad_content_type && !k->have_status) {
        dra_grpc_status_set(st, DRA_GRPC_INTERNAL, "transport: received unexpected content-type \"%s\"",
                            k->content_type);
    } else if (k->have_status) {
        if (k->status != DRA_GRPC_OK) {
            dra_grpc_status_set(st, k->status, "%s", dra_buf_str(&k->message));
        } else if (dra_grpc_reader_partial(&k->rd)) {
            dra_grpc_status_set(st, DRA_GRPC_INTERNAL,
                                "grpc: truncated message (%zu of %zu bytes before the end of the stream)",
                                k->rd.have_prefix < DRA_GRPC_PREFIX ? (size_t)0 : k->rd.buf.len,
                                k->rd.have_prefix < DRA_GRPC_PREFIX ? (size_t)DRA_GRPC_PREFIX : k->rd.want);
        } else if (!k->streaming && k->received == 0) {
            dra_grpc_status_set(st, DRA_GRPC_INTERNAL, "grpc: no response message for a unary call");
        } else {
            st->code = DRA_GRPC_OK;
        }
    } else if (k->rst == NGHTTP2_REFUSED_STREAM) {
        dra_grpc_status_set(st, DRA_GRPC_UNAVAILABLE, "stream refused by the server");
    } else if (k->rst == NGHTTP2_CANCEL) {
        dra_grpc_status_set(st, DRA_GRPC_CANCELLED, "stream cancelled by the server");
    } else if (k->rst) {
        dra_grpc_status_set(st, DRA_GRPC_INTERNAL, "stream terminated by RST_STREAM with error code: %u", k->rst);
    } else {
        dra_grpc_status_set(st, DRA_GRPC_INTERNAL, "server closed the stream without sending trailers");
    }
    return st->code;
}

static int do_call(dra_grpc_client *c, const char *method, const void *req, size_t req_len, long timeout_ms,
                   bool streaming, dra_grpc_msg_fn on_msg, void *ctx, dra_grpc_status *st, bool *retryable)
{
    *retryable = false;
    st->code = DRA_GRPC_OK;
    if (req_len > c->max_msg) {
        dra_grpc_status_set(st, DRA_GRPC_RESOURCE_EXHAUSTED,
                            "grpc: trying to send message larger than max (%zu vs. %zu)", req_len, c->max_msg);
        return st->code;
    }
    long long deadline = timeout_ms > 0 ? dra_mono_ms() + timeout_ms : 0;
    bool reused = c->s && !c->broken && c->calls_done > 0;
    if (dra_grpc_client_connect(c, st) != DRA_GRPC_OK)
        return st->code;

    struct call k = {0};
    k.streaming = streaming;
    k.on_msg = on_msg;
    k.ctx = ctx;
    dra_grpc_reader_init(&k.rd, c->max_msg);
    dra_grpc_frame_append(&k.out, req, req_len);

    char tmo[16];
    nghttp2_nv hdrs[8] = {
        DRA_H2_NV(":method", "POST"),
        DRA_H2_NV(":scheme", "http"),
        DRA_H2_NV(":path", method),
        DRA_H2_NV(":authority", "localhost"),
        DRA_H2_NV("content-type", "application/grpc"),
        DRA_H2_NV("te", "trailers"),
        DRA_H2_NV("user-agent", "dra-tools/" DRA_VERSION),
    };
    size_t nh = 7;
    if (timeout_ms > 0) {
        dra_grpc_timeout_format(timeout_ms, tmo);
        hdrs[nh++] = (nghttp2_nv)DRA_H2_NV("grpc-timeout", tmo);
    }
    nghttp2_data_provider dp = {.source.ptr = &k, .read_callback = read_req};
    c->call = &k;
    k.id = nghttp2_submit_request(c->s, NULL, hdrs, nh, &dp, NULL);
    int code;
    if (k.id < 0) {
        c->broken = true;
        dra_grpc_status_set(st, DRA_GRPC_UNAVAILABLE, "cannot start a stream: %s", nghttp2_strerror(k.id));
        code = st->code;
        *retryable = reused;
    } else if ((code = pump(c, &k, deadline, timeout_ms, st)) != DRA_GRPC_OK) {
        *retryable = reused && !k.any_bytes && code == DRA_GRPC_UNAVAILABLE;
    } else {
        code = finish(&k, st);
        /* GOAWAY before the stream was processed also refuses it */
        *retryable = reused && !k.any_bytes && code == DRA_GRPC_UNAVAILABLE;
        c->calls_done++;
    }
    c->call = NULL;
    dra_buf_free(&k.out);
    dra_buf_free(&k.message);
    dra_grpc_reader_free(&k.rd);
    free(k.fail_msg);
    return code;
}

struct unary_ctx {
    dra_buf *resp;
};

static int unary_msg(void *ctx, const uint8_t *msg, size_t len)
{
    struct unary_ctx *u = ctx;
    dra_buf_append(u->resp, msg, len);
    return 0;
}

int dra_grpc_unary(dra_grpc_client *c, const char *method, const void *req, size_t req_len, long timeout_ms,
                   dra_buf *resp, dra_grpc_status *st)
{
    struct unary_ctx u = {resp};
    size_t start = resp->len;
    bool retry;
    int code = do_call(c, method, req, req_len, timeout_ms, false, unary_msg, &u, st, &retry);
    if (code != DRA_GRPC_OK && retry) {
        dra_grpc_note(c->log, c->log_ctx, "%s: %s on a reused connection; retrying once", method,
                      st->message ? st->message : "");
        resp->len = start;
        disconnect(c);
        code = do_call(c, method, req, req_len, timeout_ms, false, unary_msg, &u, st, &retry);
    }
    if (code != DRA_GRPC_OK)
        resp->len = start;
    return code;
}

int dra_grpc_server_streaming(dra_grpc_client *c, const char *method, const void *req, size_t req_len, long timeout_ms,
                              dra_grpc_msg_fn on_msg, void *ctx, dra_grpc_status *st)
{
    bool retry;
    int code = do_call(c, method, req, req_len, timeout_ms, true, on_msg, ctx, st, &retry);
    if (code != DRA_GRPC_OK && retry) {
        disconnect(c);
        code = do_call(c, method, req, req_len, timeout_ms, true, on_msg, ctx, st, &retry);
    }
    return code;
}
