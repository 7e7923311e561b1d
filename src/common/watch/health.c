/* The loop's health endpoints (health.h): a listening socket, a thread that
 * answers probes and scrapes, and the responses. */
#include "health.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../base/clock.h"

#define REQ_MAX 4096        /* a probe's request is a few hundred bytes */
#define REQ_TIMEOUT_MS 2000 /* a client that says nothing is dropped */

struct dra_watch_health {
    int fd;      /* listening socket */
    int wake[2]; /* a byte written to wake[1] ends the thread */
    int port;
    pthread_t thread;
    pthread_mutex_t mu;
    dra_health_state st; /* under mu */
};

/* ---- the responses ---- */

static void reply(dra_buf *out, int code, const char *reason, const char *type, const char *body, bool head,
                  const char *extra)
{
    size_t n = strlen(body);
    dra_buf_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
                   code, reason, type, n, extra ? extra : "");
    if (!head)
        dra_buf_append(out, body, n);
}

static void metric(dra_buf *b, const char *name, const char *type, const char *help, double v)
{
    dra_buf_printf(b, "# HELP dra_watch_%s %s\n# TYPE dra_watch_%s %s\ndra_watch_%s %.17g\n", name, help, name, type,
                   name, v);
}

static void metrics_text(const dra_health_state *st, dra_buf *b)
{
    const dra_kube_stats *k = &st->stats;
    metric(b, "requests_total", "counter", "API requests sent, retries included.", (double)k->requests);
    metric(b, "events_total", "counter", "Watch events received.", (double)k->events);
    metric(b, "relists_total", "counter", "Lists after the first, on an expired or broken watch.", (double)k->relists);
    metric(b, "resumes_total", "counter", "Watches reopened from their last resourceVersion.", (double)k->resumes);
    metric(b, "writes_total", "counter", "Writes to the API server.", (double)k->writes);
    metric(b, "conflicts_total", "counter", "Writes refused by a precondition (conflicts).", (double)k->conflicts);
    metric(b, "retries_total", "counter", "Requests retried after a transient failure.", (double)k->retries);
    metric(b, "reauths_total", "counter", "Credentials reloaded after a 401.", (double)k->reauths);
    metric(b, "passes_total", "counter", "Passes of the reconcile loop.", (double)st->passes);
    metric(b, "pass_failures_total", "counter", "Passes that ended in an error.", (double)st->failures);
    metric(b, "last_pass_duration_seconds", "gauge", "Duration of the last pass.", st->last_pass_s);
    metric(b, "last_success_timestamp_seconds", "gauge", "End of the last successful pass (Unix time; 0 = none).",
           st->last_ok_unix);
    metric(b, "ready", "gauge", "1 after the first successful pass.", st->ready ? 1 : 0);
}

void dra_watch_health_respond(const dra_health_state *st, const char *req, size_t len, dra_buf *out)
{
    /* the request line: METHOD SP TARGET SP HTTP/1.x */
    const char *end = memchr(req, '\n', len);
    size_t ll = end ? (size_t)(end - req) : len;
    if (ll && req[ll - 1] == '\r')
        ll--;
    const char *sp1 = memchr(req, ' ', ll);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', ll - (size_t)(sp1 + 1 - req)) : NULL;
    const char *ver = sp2 ? sp2 + 1 : NULL;
    size_t vl = ver ? ll - (size_t)(ver - req) : 0;
    if (!end || !sp1 || !sp2 || sp2 == sp1 + 1 || sp1[1] != '/' || vl != 8 || memcmp(ver, "HTTP/1.", 7) != 0 ||
        (ver[7] != '0' && ver[7] != '1')) {
        reply(out, 400, "Bad Request", "text/plain; charset=utf-8", "bad request\n", false, NULL);
        return;
    }
    size_t ml = (size_t)(sp1 - req);
    bool head = ml == 4 && memcmp(req, "HEAD", 4) == 0;
    if (!head && !(ml == 3 && memcmp(req, "GET", 3) == 0)) {
        reply(out, 405, "Method Not Allowed", "text/plain; charset=utf-8", "method not allowed\n", false,
              "Allow: GET, HEAD\r\n");
        return;
    }
    const char *path = sp1 + 1;
    size_t pl = (size_t)(sp2 - path);
    const char *q = memchr(path, '?', pl);
    if (q)
        pl = (size_t)(q - path);
#define IS(p) (pl == sizeof p - 1 && memcmp(path, p, pl) == 0)
    if (IS("/healthz") || IS("/livez")) {
        reply(out, 200, "OK", "text/plain; charset=utf-8", "ok\n", head, NULL);
    } else if (IS("/readyz")) {
        if (st->ready)
            reply(out, 200, "OK", "text/plain; charset=utf-8", "ok\n", head, NULL);
        else
            reply(out, 503, "Service Unavailable", "text/plain; charset=utf-8", "not ready: no successful pass yet\n",
                  head, NULL);
    } else if (IS("/metrics")) {
        dra_buf b = DRA_BUF_INIT;
        metrics_text(st, &b);
        reply(out, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", dra_buf_str(&b), head, NULL);
        dra_buf_free(&b);
    } else {
        reply(out, 404, "Not Found", "text/plain; charset=utf-8", "not found (/healthz, /readyz, /metrics)\n", head,
              NULL);
    }
#undef IS
}

/* ---- the server ---- */

/* Read a request until its headers end, REQ_MAX bytes or the timeout. */
static size_t read_request(int c, char *buf)
{
    size_t n = 0;
    int64_t until = dra_mono_ms() + REQ_TIMEOUT_MS;
    while (n < REQ_MAX) {
        int64_t left = until - dra_mono_ms();
        struct pollfd p = {c, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t r = read(c, buf + n, REQ_MAX - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (memmem(buf, n, "\r\n\r\n", 4) || memmem(buf, n, "\n\n", 2))
            break;
    }
    return n;
}

static void serve_one(dra_watch_health *h, int c)
{
    char *buf = malloc(REQ_MAX);
    if (!buf)
        return;
    size_t n = read_request(c, buf);
    if (n) {
        dra_health_state st;
        pthread_mutex_lock(&h->mu);
        st = h->st;
        pthread_mutex_unlock(&h->mu);
        dra_buf out = DRA_BUF_INIT;
        dra_watch_health_respond(&st, buf, n, &out);
        for (size_t off = 0; off < out.len;) {
            ssize_t w = send(c, out.data + off, out.len - off, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        dra_buf_free(&out);
    }
    free(buf);
}

static void *serve(void *ud)
{
    dra_watch_health *h = ud;
    for (;;) {
        struct pollfd p[2] = {{h->fd, POLLIN, 0}, {h->wake[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        int c = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue; /* a client gone before accept, EMFILE: the next probe tries again */
        serve_one(h, c);
        close(c);
    }
    return NULL;
}

static dra_err *listen_on(const char *addr, int *fd, int *port)
{
    const char *colon = strrchr(addr, ':');
    if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) || strlen(colon + 1) > 5 ||
        atoi(colon + 1) > 65535)
        return dra_err_new(DRA_EXIT_INPUT, "invalid address \"%s\" (want HOST:PORT, :PORT or [IPV6]:PORT)", addr);
    char *host = dra_xstrndup(addr, (size_t)(colon - addr));
    size_t hl = strlen(host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = 0;
    }
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int g = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &res);
    free(host);
    if (g != 0)
        return dra_err_new(DRA_EXIT_INPUT, "address \"%s\": %s", addr, gai_strerror(g));
    int err = 0;
    *fd = -1;
    for (struct addrinfo *ai = res; ai && *fd < 0; ai = ai->ai_next) {
        int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (s < 0) {
            err = errno;
            continue;
        }
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(s, ai->ai_addr, ai->ai_addrlen) == 0 && listen(s, 16) == 0) {
            *fd = s;
            break;
        }
        err = errno;
        close(s);
    }
    freeaddrinfo(res);
    if (*fd < 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "cannot listen on %s: %s", addr, strerror(err ? err : EADDRNOTAVAIL));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    *port = 0;
    if (getsockname(*fd, (struct sockaddr *)&ss, &sl) == 0)
        *port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    return NULL;
}

dra_err *dra_watch_health_start(const char *addr, dra_watch_health **out)
{
    *out = NULL;
    int fd = -1, port = 0;
    dra_err *e = listen_on(addr, &fd, &port);
    if (e)
        return dra_err_param(e, "health-addr");
    dra_watch_health *h = dra_xcalloc(1, sizeof *h);
    h->fd = fd;
    h->port = port;
    pthread_mutex_init(&h->mu, NULL);
    if (pipe2(h->wake, O_CLOEXEC) != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "health endpoints: pipe: %s", strerror(errno));
        goto fail;
    }
    /* the loop's thread takes the signals (SIGTERM stops it, SIGHUP reloads) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&h->thread, NULL, serve, h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "health endpoints: cannot start a thread: %s", strerror(rc));
        close(h->wake[0]);
        close(h->wake[1]);
        goto fail;
    }
    *out = h;
    return NULL;
fail:
    close(fd);
    pthread_mutex_destroy(&h->mu);
    free(h);
    return e;
}

int dra_watch_health_port(const dra_watch_health *h)
{
    return h ? h->port : 0;
}

void dra_watch_health_stats(dra_watch_health *h, const dra_kube_stats *st)
{
    if (!h || !st)
        return;
    pthread_mutex_lock(&h->mu);
    h->st.stats = *st;
    pthread_mutex_unlock(&h->mu);
}

void dra_watch_health_pass(dra_watch_health *h, bool ok, int64_t ms, const dra_kube_stats *st)
{
    if (!h)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    pthread_mutex_lock(&h->mu);
    if (st)
        h->st.stats = *st;
    h->st.passes++;
    h->st.last_pass_s = (double)ms / 1000.0;
    if (ok) {
        h->st.ready = true;
        h->st.last_ok_unix = (double)now.tv_sec + (double)(now.tv_nsec / 1000000) / 1000.0;
    } else {
        h->st.failures++;
    }
    pthread_mutex_unlock(&h->mu);
}

void dra_watch_health_stop(dra_watch_health *h)
{
    if (!h)
        return;
    ssize_t w;
    do
        w = write(h->wake[1], "x", 1);
    while (w < 0 && errno == EINTR);
    pthread_join(h->thread, NULL);
    close(h->wake[0]);
    close(h->wake[1]);
    close(h->fd);
    pthread_mutex_destroy(&h->mu);
    free(h);
}
