/* gRPC server on unix sockets: one thread, one poll loop, libnghttp2.
 *
 * Each connection has an nghttp2 server session; each stream collects its
 * request message, then the method's handler answers.  Unary answers are
 * HEADERS + DATA + trailers (or a trailers-only HEADERS for errors); a
 * server-streaming call stays open and gets the messages the owner
 * broadcasts later.  Answers can be delayed (fault injection) without
 * blocking the other connections. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "grpc/internal.h"
#include "../base/clock.h"

#define MAX_CONNS 64

typedef struct method {
    const char *path;
    dra_grpc_unary_fn unary;
    dra_grpc_stream_fn stream;
    void *ctx;
} method;

struct conn;

struct dra_grpc_call {
    struct conn *conn;
    int32_t id;
    char path[256];
    bool path_too_long;
    bool bad_content_type;
    dra_grpc_reader rd;
    size_t nreq;
    dra_buf req;    /* the request message */
    bool req_error; /* compressed, too large, more than one */
    int req_code;
    char req_msg[160];
    const method *m;
    bool answered;      /* response submitted */
    long long due;      /* answer at this time (0 = not waiting) */
    dra_grpc_reply rep; /* the pending answer while waiting */
    dra_buf out;        /* DATA still to send */
    size_t out_off;
    bool finishing; /* send trailers after `out` */
    int final_code;
    dra_buf final_msg;
    bool streaming_open; /* an open server-streaming call */
    bool deferred;       /* the data provider returned DEFERRED */
    struct dra_grpc_call *next;
};

typedef struct conn {
    int fd;
    nghttp2_session *s;
    dra_grpc_server *srv;
    struct dra_grpc_call *calls;
    bool dead;
} conn;

struct dra_grpc_server {
    size_t max_msg;
    dra_grpc_log_fn log;
    void *log_ctx;
    method *methods;
    size_t nmethods;
    int *lfds;
    char **lpaths;
    struct stat *lstats; /* each socket file as bound: removed at the end only if still that file */
    size_t nlisten;
    conn *conns[MAX_CONNS];
    size_t nconns;
};

dra_grpc_server *dra_grpc_server_new(const dra_grpc_server_opts *opts)
{
    dra_grpc_server *s = dra_xcalloc(1, sizeof *s);
    if (opts) {
        s->max_msg = opts->max_msg;
        s->log = opts->log;
        s->log_ctx = opts->log_ctx;
    }
    if (!s->max_msg)
        s->max_msg = DRA_GRPC_DEFAULT_MAX_MSG;
    return s;
}

static void add_method(dra_grpc_server *s, const char *path, dra_grpc_unary_fn u, dra_grpc_stream_fn st, void *ctx)
{
    s->methods = dra_xgrow(s->methods, s->nmethods, sizeof *s->methods);
    s->methods[s->nmethods++] = (method){path, u, st, ctx};
}

void dra_grpc_server_unary(dra_grpc_server *s, const char *path, dra_grpc_unary_fn fn, void *ctx)
{
    add_method(s, path, fn, NULL, ctx);
}

void dra_grpc_server_stream(dra_grpc_server *s, const char *path, dra_grpc_stream_fn fn, void *ctx)
{
    add_method(s, path, NULL, fn, ctx);
}

dra_err *dra_grpc_server_listen(dra_grpc_server *s, const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char eb[128];
    if (strlen(path) >= sizeof sa.sun_path)
        return dra_err_new(DRA_EXIT_INPUT, "socket path %s is longer than %zu bytes", path, sizeof sa.sun_path - 1);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    struct stat stb;
    if (lstat(path, &stb) == 0) {
        if (!S_ISSOCK(stb.st_mode)) /* a link is not followed: never replaced, never written through */
            return dra_err_new(DRA_EXIT_RUNTIME, "%s exists and is not a socket", path);
        unlink(path); /* a stale socket of an earlier run */
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "socket: %s", dra_grpc_strerror(errno, eb, sizeof eb));
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 64) < 0) {
        int e = errno;
        close(fd);
        return dra_err_new(DRA_EXIT_RUNTIME, "listen on %s: %s", path, dra_grpc_strerror(e, eb, sizeof eb));
    }
    s->lfds = dra_xgrow(s->lfds, s->nlisten, sizeof *s->lfds);
    s->lpaths = dra_xgrow(s->lpaths, s->nlisten, sizeof *s->lpaths);
    s->lstats = dra_xgrow(s->lstats, s->nlisten, sizeof *s->lstats);
    if (lstat(path, &s->lstats[s->nlisten]) != 0)
        memset(&s->lstats[s->nlisten], 0, sizeof stb);
    s->lfds[s->nlisten] = fd;
    s->lpaths[s->nlisten++] = dra_xstrdup(path);
    dra_grpc_note(s->log, s->log_ctx, "listening on %s", path);
    return NULL;
}

/* ---- calls ---- */

static struct dra_grpc_call *find_call(conn *c, int32_t id)
{
    for (struct dra_grpc_call *k = c->calls; k; k = k->next)
        if (k->id == id)
            return k;
    return NULL;
}

static void free_call(struct dra_grpc_call *k)
{
    dra_grpc_reader_free(&k->rd);
    dra_buf_free(&k->req);
    dra_buf_free(&k->rep.body);
    dra_buf_free(&k->rep.message);
    dra_buf_free(&k->out);
    dra_buf_free(&k->final_msg);
    free(k);
}

static ssize_t read_out(nghttp2_session *ses, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *user)
{
    struct dra_grpc_call *k = src->ptr;
    size_t left = k->out.len - k->out_off;
    if (left == 0) {
        if (!k->finishing) {
            k->deferred = true;
            return NGHTTP2_ERR_DEFERRED;
        }
        *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        char code[12];
        snprintf(code, sizeof code, "%d", k->final_code);
        nghttp2_nv tr[2] = {DRA_H2_NVC("grpc-status", code), DRA_H2_NVC("grpc-message", dra_buf_str(&k->final_msg))};
        nghttp2_submit_trailer(ses, id, tr, k->final_msg.len ? 2 : 1);
        return 0;
    }
    size_t n = left < len ? left : len;
    memcpy(buf, k->out.data + k->out_off, n);
    k->out_off += n;
    if (k->out_off == k->out.len) {
        dra_buf_reset(&k->out);
        k->out_off = 0;
    }
    return (ssize_t)n;
}

/* A trailers-only error answer. */
static void send_error(conn *c, struct dra_grpc_call *k, int code, const char *msg)
{
    char cs[12];
    dra_buf enc = DRA_BUF_INIT;
    snprintf(cs, sizeof cs, "%d", code);
    dra_grpc_percent_encode(&enc, msg, strlen(msg));
    nghttp2_nv h[4] = {DRA_H2_NV(":status", "200"), DRA_H2_NV("content-type", "application/grpc"),
                       DRA_H2_NVC("grpc-status", cs), DRA_H2_NVC("grpc-message", dra_buf_str(&enc))};
    nghttp2_submit_response(c->s, k->id, h, enc.len ? 4 : 3, NULL);
    k->answered = true;
    dra_grpc_note(c->srv->log, c->srv->log_ctx, "%s: %s %s", k->path, dra_grpc_code_name(code), msg);
    dra_buf_free(&enc);
}

static void start_data(conn *c, struct dra_grpc_call *k)
{
    nghttp2_nv h[2] = {DRA_H2_NV(":status", "200"), DRA_H2_NV("content-type", "application/grpc")};
    nghttp2_data_provider dp = {.source.ptr = k, .read_callback = read_out};
    nghttp2_submit_response(c->s, k->id, h, 2, &dp);
    k->answered = true;
}

/* Send the handler's reply. */
static void send_reply(conn *c, struct dra_grpc_call *k)
{
    dra_grpc_reply *r = &k->rep;
    if (r->code != DRA_GRPC_OK) {
        send_error(c, k, r->code, r->message.len ? r->message.data : dra_grpc_code_name(r->code));
        return;
    }
    if (!r->raw && r->body.len > c->srv->max_msg) {
        char m[128];
        snprintf(m, sizeof m, "grpc: trying to send message larger than max (%zu vs. %zu)", r->body.len,
                 c->srv->max_msg);
        send_error(c, k, DRA_GRPC_RESOURCE_EXHAUSTED, m);
        return;
    }
    if (r->raw)
        dra_buf_append(&k->out, r->body.data ? r->body.data : "", r->body.len);
    else
        dra_grpc_frame_append(&k->out, r->body.data, r->body.len);
    if (k->m->stream) {
        k->streaming_open = true;
    } else {
        k->finishing = true;
        k->final_code = DRA_GRPC_OK;
    }
    start_data(c, k);
}

static void dispatch(conn *c, struct dra_grpc_call *k)
{
    char m[400];
    if (k->req_error) {
        send_error(c, k, k->req_code, k->req_msg);
        return;
    }
    if (k->bad_content_type) {
        send_error(c, k, DRA_GRPC_INTERNAL, "unsupported content-type (want application/grpc)");
        return;
    }
    if (!k->m) {
        snprintf(m, sizeof m, "unknown method %s", k->path_too_long ? "(path too long)" : k->path);
        send_error(c, k, DRA_GRPC_UNIMPLEMENTED, m);
        return;
    }
    if (k->nreq != 1 || dra_grpc_reader_partial(&k->rd)) {
        snprintf(m, sizeof m, "grpc: expected exactly one request message, got %zu%s", k->nreq,
                 dra_grpc_reader_partial(&k->rd) ? " and a truncated one" : "");
        send_error(c, k, DRA_GRPC_INTERNAL, m);
        return;
    }
    k->rep.code = DRA_GRPC_OK;
    if (k->m->unary)
        k->m->unary(k->m->ctx, (const uint8_t *)k->req.data, k->req.len, &k->rep);
    else
        k->m->stream(k->m->ctx, (const uint8_t *)k->req.data, k->req.len, &k->rep);
    if (k->rep.delay_ms > 0) {
        k->due = dra_mono_ms() + k->rep.delay_ms;
        return;
    }
    send_reply(c, k);
}

/* ---- nghttp2 callbacks ---- */

static ssize_t send_cb(nghttp2_session *ses, const uint8_t *data, size_t len, int flags, void *user)
{
    return dra_grpc_sock_send(((conn *)user)->fd, data, len);
}

static int on_begin_headers(nghttp2_session *ses, const nghttp2_frame *f, void *user)
{
    conn *c = user;
    if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    struct dra_grpc_call *k = dra_xcalloc(1, sizeof *k);
    k->conn = c;
    k->id = f->hd.stream_id;
    dra_grpc_reader_init(&k->rd, c->srv->max_msg);
    k->next = c->calls;
    c->calls = k;
    return 0;
}

static int on_header(nghttp2_session *ses, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                     const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
    conn *c = user;
    struct dra_grpc_call *k = find_call(c, f->hd.stream_id);
    if (!k || f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    if (nlen == 5 && memcmp(name, ":path", 5) == 0) {
        if (vlen >= sizeof k->path) {
            k->path_too_long = true;
            return 0;
        }
        memcpy(k->path, value, vlen);
        k->path[vlen] = 0;
        for (size_t i = 0; i < c->srv->nmethods; i++)
            if (strcmp(c->srv->methods[i].path, k->path) == 0)
                k->m = &c->srv->methods[i];
    } else if (nlen == 12 && memcmp(name, "content-type", 12) == 0) {
        k->bad_content_type = !(vlen >= 16 && memcmp(value, "application/grpc", 16) == 0 &&
                                (vlen == 16 || value[16] == '+' || value[16] == ';'));
    } else if (nlen == 13 && memcmp(name, "grpc-encoding", 13) == 0) {
        if (!(vlen == 8 && memcmp(value, "identity", 8) == 0) && !k->req_error) {
            k->req_error = true;
            k->req_code = DRA_GRPC_UNIMPLEMENTED;
            snprintf(k->req_msg, sizeof k->req_msg, "grpc: compression is not supported");
        }
    }
    return 0;
}

static int on_data(nghttp2_session *ses, uint8_t flags, int32_t id, const uint8_t *data, size_t len, void *user)
{
    conn *c = user;
    struct dra_grpc_call *k = find_call(c, id);
    while (k && len > 0 && !k->req_error) {
        size_t used;
        const uint8_t *msg;
        size_t mlen;
        dra_grpc_read_status r = dra_grpc_reader_feed(&k->rd, data, len, &used, &msg, &mlen);
        data += used;
        len -= used;
        if (r == DRA_GRPC_READ_MSG) {
            if (++k->nreq == 1)
                dra_buf_append(&k->req, msg, mlen);
        } else if (r == DRA_GRPC_READ_COMPRESSED) {
            k->req_error = true;
            k->req_code = DRA_GRPC_INTERNAL;
            snprintf(k->req_msg, sizeof k->req_msg, "grpc: compressed message without negotiated compression");
        } else if (r == DRA_GRPC_READ_TOO_LARGE) {
            k->req_error = true;
            k->req_code = DRA_GRPC_RESOURCE_EXHAUSTED;
            snprintf(k->req_msg, sizeof k->req_msg, "grpc: received message larger than max (%zu vs. %zu)", k->rd.want,
                     k->rd.max_msg);
        }
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *ses, const nghttp2_frame *f, void *user)
{
    conn *c = user;
    if ((f->hd.type == NGHTTP2_DATA || f->hd.type == NGHTTP2_HEADERS) && (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        struct dra_grpc_call *k = find_call(c, f->hd.stream_id);
        if (k && !k->answered && !k->due)
            dispatch(c, k);
    }
    return 0;
}

static int on_close(nghttp2_session *ses, int32_t id, uint32_t err, void *user)
{
    conn *c = user;
    for (struct dra_grpc_call **p = &c->calls; *p; p = &(*p)->next) {
        if ((*p)->id == id) {
            struct dra_grpc_call *k = *p;
            *p = k->next;
            free_call(k);
            break;
        }
    }
    return 0;
}

/* ---- connections and the loop ---- */

static void conn_free(conn *c)
{
    if (c->s)
        nghttp2_session_del(c->s);
    while (c->calls) {
        struct dra_grpc_call *k = c->calls;
        c->calls = k->next;
        free_call(k);
    }
    close(c->fd);
    free(c);
}

static void accept_one(dra_grpc_server *s, int lfd)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0)
        return;
    if (s->nconns == MAX_CONNS) {
        dra_grpc_note(s->log, s->log_ctx, "too many connections; refusing one");
        close(fd);
        return;
    }
    conn *c = dra_xcalloc(1, sizeof *c);
    c->fd = fd;
    c->srv = s;
    nghttp2_session_callbacks *cb;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(cb, send_cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_server_new(&c->s, cb, c);
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 24},
    };
    nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof *iv);
    nghttp2_session_set_local_window_size(c->s, NGHTTP2_FLAG_NONE, 0, 1 << 24);
    s->conns[s->nconns++] = c;
}

static void conn_io(conn *c, short revents)
{
    if (revents & (POLLIN | POLLHUP | POLLERR)) {
        int h2err;
        if (dra_grpc_sock_recv(c->fd, c->s, &h2err) <= 0) {
            c->dead = true;
            return;
        }
    }
    if (nghttp2_session_send(c->s) != 0)
        c->dead = true;
    if (!nghttp2_session_want_read(c->s) && !nghttp2_session_want_write(c->s))
        c->dead = true;
}

int dra_grpc_server_poll(dra_grpc_server *s, int timeout_ms)
{
    struct pollfd p[MAX_CONNS + 16];
    size_t n = 0;
    long long now = dra_mono_ms();
    /* due delayed answers */
    for (size_t i = 0; i < s->nconns; i++) {
        conn *c = s->conns[i];
        for (struct dra_grpc_call *k = c->calls; k; k = k->next) {
            if (k->due && k->due <= now && !k->answered) {
                k->due = 0;
                send_reply(c, k);
            } else if (k->due && !k->answered) {
                long long left = k->due - now;
                if (timeout_ms < 0 || left < timeout_ms)
                    timeout_ms = (int)left;
            }
        }
        if (nghttp2_session_send(c->s) != 0)
            c->dead = true;
    }
    size_t nl = s->nlisten < 16 ? s->nlisten : 16;
    for (size_t i = 0; i < nl; i++)
        p[n++] = (struct pollfd){.fd = s->lfds[i], .events = POLLIN};
    for (size_t i = 0; i < s->nconns; i++) {
        conn *c = s->conns[i];
        p[n] = (struct pollfd){.fd = c->fd, .events = POLLIN};
        if (nghttp2_session_want_write(c->s))
            p[n].events |= POLLOUT;
        n++;
    }
    int r = poll(p, n, timeout_ms);
    if (r < 0)
        return -1;
    for (size_t i = 0; i < s->nconns; i++)
        if (p[nl + i].revents)
            conn_io(s->conns[i], p[nl + i].revents);
    for (size_t i = 0; i < nl; i++)
        if (p[i].revents & POLLIN)
            accept_one(s, s->lfds[i]);
    /* drop dead connections */
    size_t j = 0;
    for (size_t i = 0; i < s->nconns; i++) {
        if (s->conns[i]->dead)
            conn_free(s->conns[i]);
        else
            s->conns[j++] = s->conns[i];
    }
    s->nconns = j;
    return 0;
}

size_t dra_grpc_server_broadcast(dra_grpc_server *s, const char *path, const void *msg, size_t len)
{
    size_t sent = 0;
    for (size_t i = 0; i < s->nconns; i++) {
        conn *c = s->conns[i];
        for (struct dra_grpc_call *k = c->calls; k; k = k->next) {
            if (!k->streaming_open || strcmp(k->path, path) != 0)
                continue;
            dra_grpc_frame_append(&k->out, msg, len);
            if (k->deferred) {
                k->deferred = false;
                nghttp2_session_resume_data(c->s, k->id);
            }
            sent++;
        }
        if (nghttp2_session_send(c->s) != 0)
            c->dead = true;
    }
    return sent;
}

size_t dra_grpc_server_open_calls(const dra_grpc_server *s, const char *path)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nconns; i++)
        for (struct dra_grpc_call *k = s->conns[i]->calls; k; k = k->next)
            if (k->streaming_open && (!path || strcmp(k->path, path) == 0))
                n++;
    return n;
}

void dra_grpc_server_free(dra_grpc_server *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nconns; i++) {
        conn *c = s->conns[i];
        nghttp2_session_terminate_session(c->s, NGHTTP2_NO_ERROR);
        nghttp2_session_send(c->s);
        conn_free(c);
    }
    for (size_t i = 0; i < s->nlisten; i++) {
        close(s->lfds[i]);
        struct stat st;
        const struct stat *b = &s->lstats[i];
        if (lstat(s->lpaths[i], &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == b->st_ino && st.st_dev == b->st_dev)
            unlink(s->lpaths[i]);
        free(s->lpaths[i]);
    }
    free(s->lfds);
    free(s->lpaths);
    free(s->lstats);
    free(s->methods);
    free(s);
}
