/* libcurl transport; see client.h.  Facts: ../shared guides §5 (blobs for
 * certificates, CONNECT_TO for tls-server-name, CURLE_PARTIAL_FILE on a cut
 * stream, LOW_SPEED_* for dead connections). */
#include "client.h"
#include "../base/clock.h"
#include "../io/jparse.h"
#include "internal.h"
#include "text.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define BODY_MAX ((size_t)1 << 30)

struct dra_kube_client {
    dra_kube_config cfg;
    dra_kube_client_opts o;
    CURL *easy;
    dra_kube_stats stats;
    dra_kube_cred cred; /* exec plugin credential */
    char *file_token;   /* tokenFile contents */
    struct timespec file_mtime;
    off_t file_size;
    uint64_t rng;
    char *server_shown; /* the server URL for messages: password redacted, control characters escaped */
    bool told_plain;    /* the plain-http warning was given */
};

/* What a new configuration needs: the server as messages show it, and over
 * plain http no credentials at all.  clientcmd's ClientConfig loads the
 * user's token, tokenFile, basic auth, client certificate, auth provider and
 * exec plugin only when rest.IsConfigTransportTLS (client_config.go: "only
 * try to read the auth information if we are secure"), so kubectl sends
 * none of them to an http:// (or scheme-less) server; the client drops them
 * and says so once. */
static void adopt_config(dra_kube_client *c)
{
    dra_kube_config *cfg = &c->cfg;
    dra_arena a = DRA_ARENA_INIT;
    free(c->server_shown);
    c->server_shown = dra_xstrdup(dra_kube_v(&a, dra_kube_redacted(&a, cfg->server)));
    if (cfg->server && !dra_kube_server_tls(cfg->server)) {
        dra_buf what = DRA_BUF_INIT;
        const char *kinds[] = {cfg->token ? "token" : NULL, cfg->token_file ? "tokenFile" : NULL,
                               cfg->username || cfg->password ? "basic auth" : NULL,
                               cfg->cert.len || cfg->key.len ? "client certificate" : NULL,
                               cfg->exec ? "exec plugin" : NULL};
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
            if (kinds[i])
                dra_buf_printf(&what, "%s%s", what.len ? ", " : "", kinds[i]);
        if (what.len && !c->told_plain) {
            c->told_plain = true;
            dra_kube_client_log(c, KUBE_LOG_WARN,
                                "server %s is not https: not sending the credentials of user %s (%s), as kubectl "
                                "sends none without TLS",
                                c->server_shown, dra_kube_q(&a, cfg->user_name ? cfg->user_name : ""),
                                dra_buf_str(&what));
        }
        dra_buf_free(&what);
        dra_kube_config_drop_credentials(cfg);
    }
    dra_arena_free(&a);
}

void dra_kube_client_log(dra_kube_client *c, dra_kube_log_level level, const char *fmt, ...)
{
    if (!c->o.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *m = dra_xvasprintf(fmt, ap);
    va_end(ap);
    c->o.log(c->o.log_ud, level, m);
    free(m);
}

dra_err *dra_kube_client_new(dra_kube_config *cfg, const dra_kube_client_opts *o, dra_kube_client **out)
{
    *out = NULL;
    curl_global_init(CURL_GLOBAL_DEFAULT); /* reference-counted; paired in dra_kube_client_free */
    dra_kube_client *c = dra_xcalloc(1, sizeof *c);
    c->cfg = *cfg;
    memset(cfg, 0, sizeof *cfg);
    if (o)
        c->o = *o;
    if (c->o.max_retries <= 0)
        c->o.max_retries = 8;
    if (c->o.backoff_cap_ms <= 0)
        c->o.backoff_cap_ms = 30000;
    if (c->o.backoff_base_ms <= 0)
        c->o.backoff_base_ms = 200;
    if (!c->o.user_agent)
        c->o.user_agent = "dra-tools";
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    c->rng = (uint64_t)ts.tv_nsec * 6364136223846793005ull + (uint64_t)(uintptr_t)c;
    adopt_config(c);
    c->easy = curl_easy_init();
    if (!c->easy) {
        dra_kube_client_free(c);
        return dra_err_new(DRA_EXIT_RUNTIME, "cannot initialise libcurl");
    }
    *out = c;
    return NULL;
}

void dra_kube_client_free(dra_kube_client *c)
{
    if (!c)
        return;
    if (c->easy)
        curl_easy_cleanup(c->easy);
    dra_kube_cred_clear(&c->cred);
    if (c->file_token) {
        memset(c->file_token, 0, strlen(c->file_token));
        free(c->file_token);
    }
    dra_kube_config_free(&c->cfg);
    free(c->server_shown);
    free(c);
    curl_global_cleanup();
}

void dra_kube_client_set_config(dra_kube_client *c, dra_kube_config *cfg)
{
    dra_kube_config_free(&c->cfg);
    c->cfg = *cfg;
    memset(cfg, 0, sizeof *cfg);
    dra_kube_cred_clear(&c->cred);
    free(c->file_token);
    c->file_token = NULL;
    memset(&c->file_mtime, 0, sizeof c->file_mtime);
    adopt_config(c);
    curl_easy_reset(c->easy);
}

const dra_kube_config *dra_kube_client_config(const dra_kube_client *c)
{
    return &c->cfg;
}
dra_kube_stats *dra_kube_client_stats(dra_kube_client *c)
{
    return &c->stats;
}
bool dra_kube_client_stopped(const dra_kube_client *c)
{
    return c->o.stop && *c->o.stop;
}

void dra_kube_client_set_fail_fast(dra_kube_client *c, bool on)
{
    c->o.fail_fast = on;
}

void dra_kube_resp_free(dra_kube_resp *r)
{
    json_decref(r->json);
    free(r->text);
    memset(r, 0, sizeof *r);
}

static dra_time wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (dra_time){(int64_t)ts.tv_sec, (int32_t)ts.tv_nsec};
}

bool dra_kube_sleep_ms(dra_kube_client *c, int64_t ms)
{
    int64_t end = dra_mono_ms() + ms;
    for (;;) {
        if (dra_kube_client_stopped(c))
            return false;
        int64_t left = end - dra_mono_ms();
        if (left <= 0)
            return true;
        if (left > 50)
            left = 50;
        struct timespec ts = {0, (long)left * 1000000};
        nanosleep(&ts, NULL);
    }
}

/* A random number below n (n > 0). */
static uint64_t rand_below(dra_kube_client *c, uint64_t n)
{
    c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (c->rng >> 33) % n;
}

int64_t dra_kube_backoff_ms(dra_kube_client *c, int n)
{
    int64_t d = c->o.backoff_base_ms;
    for (int i = 0; i < n && d < c->o.backoff_cap_ms; i++)
        d *= 2;
    if (d > c->o.backoff_cap_ms)
        d = c->o.backoff_cap_ms;
    int64_t jitter = (int64_t)rand_below(c, (uint64_t)(d / 2 + 1)) - d / 4; /* +-25% */
    d += jitter;
    return d < 1 ? 1 : d;
}

int64_t dra_kube_conflict_backoff_ms(dra_kube_client *c, int n)
{
    /* retry.DefaultBackoff: {Duration: 10ms, Factor: 5.0, Jitter: 0.1};
     * wait.Jitter adds up to Jitter*d */
    int64_t d = 10;
    for (int i = 0; i < n && d < 3600000; i++)
        d *= 5;
    return d + (int64_t)rand_below(c, (uint64_t)(d / 10 + 1));
}

void dra_kube_query_escape(dra_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
            ch == '.' || ch == '_' || ch == '~') {
            dra_buf_putc(b, (char)ch);
        } else {
            dra_buf_putc(b, '%');
            dra_buf_putc(b, hex[ch >> 4]);
            dra_buf_putc(b, hex[ch & 15]);
        }
    }
}

/* The bearer token to send now, or NULL; refreshes tokenFile and exec. */
static dra_err *current_token(dra_kube_client *c, const char **tok)
{
    *tok = NULL;
    dra_kube_config *cfg = &c->cfg;
    if (cfg->exec) {
        if (c->cred.valid && dra_kube_cred_expired(&c->cred, wall_now())) {
            dra_arena a = DRA_ARENA_INIT;
            dra_kube_client_log(c, KUBE_LOG_INFO, "exec credential expired; running %s again",
                                dra_kube_v(&a, cfg->exec->command));
            dra_arena_free(&a);
            dra_kube_cred_clear(&c->cred);
        }
        if (!c->cred.valid) {
            dra_err *e = dra_kube_exec_credential(cfg, &c->cred);
            if (e)
                return e;
        }
        *tok = c->cred.token;
        return NULL;
    }
    if (cfg->token_file) {
        struct stat st;
        if (stat(cfg->token_file, &st) == 0 &&
            (!c->file_token || st.st_mtim.tv_sec != c->file_mtime.tv_sec ||
             st.st_mtim.tv_nsec != c->file_mtime.tv_nsec || st.st_size != c->file_size)) {
            dra_buf b = DRA_BUF_INIT;
            dra_err *e = dra_buf_read_path(&b, cfg->token_file, 1 << 20);
            if (!e) {
                size_t n = b.len;
                while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' || b.data[n - 1] == ' '))
                    n--;
                if (c->file_token) {
                    memset(c->file_token, 0, strlen(c->file_token));
                    free(c->file_token);
                    dra_arena a = DRA_ARENA_INIT;
                    dra_kube_client_log(c, KUBE_LOG_INFO, "token file %s changed; using the new token",
                                        dra_kube_v(&a, cfg->token_file));
                    dra_arena_free(&a);
                }
                c->file_token = dra_xstrndup(b.data ? b.data : "", n);
                c->file_mtime = st.st_mtim;
                c->file_size = st.st_size;
            }
            dra_err_free(e);
            if (b.data)
                memset(b.data, 0, b.cap);
            dra_buf_free(&b);
        }
        if (c->file_token && *c->file_token) {
            *tok = c->file_token;
            return NULL;
        }
        if (!cfg->token) {
            dra_arena a = DRA_ARENA_INIT;
            dra_err *e = dra_err_new(DRA_EXIT_RUNTIME, "cannot read token file %s", dra_kube_v(&a, cfg->token_file));
            dra_arena_free(&a);
            return e;
        }
    }
    *tok = cfg->token;
    return NULL;
}

typedef struct xfer {
    dra_kube_client *c;
    dra_buf body;
    int64_t retry_after_s; /* -1 none */
} xfer;

static size_t write_body(char *p, size_t sz, size_t n, void *ud)
{
    xfer *x = ud;
    if (x->body.len + sz * n > BODY_MAX)
        return 0;
    dra_buf_append(&x->body, p, sz * n);
    return sz * n;
}

static int64_t parse_retry_after(const char *p, size_t n)
{
    static const char h[] = "retry-after:";
    if (n < sizeof h - 1 || strncasecmp(p, h, sizeof h - 1) != 0)
        return -1;
    p += sizeof h - 1;
    n -= sizeof h - 1;
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    int64_t v = 0;
    size_t i = 0;
    for (; i < n && *p >= '0' && *p <= '9' && v < 1000000; i++, p++)
        v = v * 10 + (*p - '0');
    return i ? v : -1;
}

static size_t write_header(char *p, size_t sz, size_t n, void *ud)
{
    xfer *x = ud;
    int64_t v = parse_retry_after(p, sz * n);
    if (v >= 0)
        x->retry_after_s = v;
    return sz * n;
}

static int xferinfo(void *ud, curl_off_t a, curl_off_t b, curl_off_t cc, curl_off_t d)
{
    dra_kube_client *c = ud;
    return dra_kube_client_stopped(c) ? 1 : 0;
}

/* Configure h for url (path appended to the server); returns the header list
 * the caller frees after the transfer. */
/* One header line; a value that is empty once trimmed goes as "Name;",
 * libcurl's way of sending a header without a value ("Name:" would remove
 * it).  Go's net/http trims a value's surrounding spaces and tabs when it
 * writes it (textproto.TrimString). */
static struct curl_slist *header_add(struct curl_slist *l, const char *name, const char *value)
{
    size_t n = strlen(value);
    while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
        n--;
    while (n && (*value == ' ' || *value == '\t')) {
        value++;
        n--;
    }
    char *line = n ? dra_xasprintf("%s: %.*s", name, (int)n, value) : dra_xasprintf("%s;", name);
    l = curl_slist_append(l, line);
    free(line);
    return l;
}

/* client-go's impersonatingRoundTripper (transport/round_trippers.go):
 * Impersonate-User, Impersonate-Uid when set, one Impersonate-Group per
 * group, one Impersonate-Extra-KEY per value.  The values were checked at
 * load (config.c): no control character reaches a header. */
static void impersonate_headers(const dra_kube_impersonate *as, struct curl_slist **hdrs)
{
    if (!as->user)
        return;
    *hdrs = header_add(*hdrs, "Impersonate-User", as->user);
    if (as->uid)
        *hdrs = header_add(*hdrs, "Impersonate-Uid", as->uid);
    for (size_t i = 0; i < as->ngroups; i++)
        *hdrs = header_add(*hdrs, "Impersonate-Group", as->groups[i]);
    for (size_t i = 0; i < as->nextra; i++) {
        char *h = dra_kube_extra_header(as->extra[i].key);
        for (size_t k = 0; k < as->extra[i].nvalues; k++)
            *hdrs = header_add(*hdrs, h, as->extra[i].values[k]);
        free(h);
    }
}

static dra_err *setup(dra_kube_client *c, CURL *h, const char *path, struct curl_slist **hdrs,
                      struct curl_slist **connect_to)
{
    dra_kube_config *cfg = &c->cfg;
    const char *tok = NULL;
    dra_err *e = current_token(c, &tok);
    if (e)
        return e;
    char *url = dra_xasprintf("%s%s", cfg->server, path);
    if (cfg->tls_server_name) {
        /* Keep SNI and verification on tls-server-name while connecting to
         * the server's host: rewrite the URL's host, map it back. */
        CURLU *u = curl_url();
        char *host = NULL, *port = NULL;
        if (curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
            char *m = dra_xasprintf("%s:%s:%s:%s", cfg->tls_server_name, port, host, port);
            *connect_to = curl_slist_append(NULL, m);
            free(m);
            curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0);
            char *nu = NULL;
            if (curl_url_get(u, CURLUPART_URL, &nu, 0) == CURLUE_OK) {
                free(url);
                url = dra_xstrdup(nu);
                curl_free(nu);
            }
        }
        curl_free(host);
        curl_free(port);
        curl_url_cleanup(u);
        curl_easy_setopt(h, CURLOPT_CONNECT_TO, *connect_to);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    free(url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 15L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, c->o.user_agent);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, cfg->insecure ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, cfg->insecure ? 0L : 2L);
    if (cfg->ca.len) {
        struct curl_blob b = {cfg->ca.data, cfg->ca.len, CURL_BLOB_COPY};
        curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &b);
    }
    const dra_buf *cert = c->cred.cert.len ? &c->cred.cert : &cfg->cert;
    const dra_buf *key = c->cred.key.len ? &c->cred.key : &cfg->key;
    if (cert->len && key->len) {
        struct curl_blob cb = {cert->data, cert->len, CURL_BLOB_COPY};
        struct curl_blob kb = {key->data, key->len, CURL_BLOB_COPY};
        curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cb);
        curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
        curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &kb);
    }
    if (cfg->proxy_url)
        curl_easy_setopt(h, CURLOPT_PROXY, cfg->proxy_url);
    *hdrs = curl_slist_append(*hdrs, "Accept: application/json");
    impersonate_headers(&cfg->as, hdrs);
    if (tok && *tok) {
        char *a = dra_xasprintf("Authorization: Bearer %s", tok);
        *hdrs = curl_slist_append(*hdrs, a);
        memset(a, 0, strlen(a));
        free(a);
    } else if (cfg->username || cfg->password) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, cfg->username ? cfg->username : "");
        curl_easy_setopt(h, CURLOPT_PASSWORD, cfg->password ? cfg->password : "");
    }
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xferinfo);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
    return NULL;
}

static void free_slist(struct curl_slist *l)
{
    for (struct curl_slist *p = l; p; p = p->next)
        if (p->data)
            memset(p->data, 0, strlen(p->data));
    curl_slist_free_all(l);
}

/* Fill resp from an answer's body; an error for non-2xx. */
static dra_err *answer(dra_kube_client *c, long http, const char *body, size_t len, const char *method,
                       const char *path, dra_kube_resp *resp)
{
    resp->http = http;
    json_decref(resp->json);
    resp->json = len ? dra_json_loadb(body, len, 0, NULL) : NULL;
    resp->reason[0] = 0;
    if (http >= 200 && http < 300) {
        if (len && !resp->json)
            return dra_err_new(DRA_EXIT_RUNTIME, "%s %s: the server answered with invalid JSON", method, path);
        return NULL;
    }
    const char *reason = NULL, *msg = NULL;
    if (json_is_object(resp->json) && json_is_string(json_object_get(resp->json, "kind")) &&
        strcmp(json_string_value(json_object_get(resp->json, "kind")), "Status") == 0) {
        reason = json_string_value(json_object_get(resp->json, "reason"));
        msg = json_string_value(json_object_get(resp->json, "message"));
    }
    if (reason)
        snprintf(resp->reason, sizeof resp->reason, "%s", reason);
    if (!reason || !*reason) {
        /* apimachinery's reason for a bare status code */
        reason = http == 401   ? "Unauthorized"
                 : http == 403 ? "Forbidden"
                 : http == 404 ? "NotFound"
                 : http == 409 ? "Conflict"
                 : http == 410 ? "Gone"
                 : http == 422 ? "Invalid"
                 : http == 429 ? "TooManyRequests"
                 : http >= 500 ? "InternalError"
                               : "BadRequest";
        if (!resp->reason[0])
            snprintf(resp->reason, sizeof resp->reason, "%s", reason);
    }
    dra_arena a = DRA_ARENA_INIT;
    dra_err *e;
    if (msg && *msg)
        e = dra_err_new(DRA_EXIT_RUNTIME, "Error from server (%s): %s (HTTP %ld)", dra_kube_v(&a, reason),
                        dra_kube_v(&a, msg), http);
    else
        e = dra_err_new(DRA_EXIT_RUNTIME, "Error from server (%s): %s %s: HTTP %ld", dra_kube_v(&a, reason), method,
                        path, http);
    dra_arena_free(&a);
    return e;
}

#define FORBIDDEN_PREFIX "Error from server (Forbidden): "

bool dra_kube_err_forbidden(const dra_err *e)
{
    return e && strstr(e->msg, FORBIDDEN_PREFIX) != NULL;
}

static bool transient_curl(const dra_kube_client *c, CURLcode rc, const char *method)
{
    /* client-go retries a GET whose connection was reset or cut short
     * (IsConnectionReset, IsProbableEOF), nothing else: kubectl fails at
     * once on a refused connection or a timeout */
    if (c->o.fail_fast)
        return strcmp(method, "GET") == 0 &&
               (rc == CURLE_RECV_ERROR || rc == CURLE_GOT_NOTHING || rc == CURLE_PARTIAL_FILE);
    return rc == CURLE_COULDNT_CONNECT || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
           rc == CURLE_PARTIAL_FILE || rc == CURLE_GOT_NOTHING || rc == CURLE_OPERATION_TIMEDOUT;
}

/* The server's HOST[:PORT] as Go's url.URL.Host has it (no scheme,
 * userinfo or path), for kubectl's "connection ... was refused" message. */
static const char *server_host(dra_arena *a, const char *server)
{
    const char *p = server ? server : "";
    const char *sch = strstr(p, "://");
    if (sch)
        p = sch + 3;
    size_t n = strcspn(p, "/?#");
    const char *at = memchr(p, '@', n);
    if (at) {
        n -= (size_t)(at + 1 - p);
        p = at + 1;
    }
    char *h = dra_arena_strndup(a, p, n);
    return dra_kube_v(a, h);
}

static dra_err *transport_error(dra_kube_client *c, CURL *h, CURLcode rc, const char *errbuf)
{
    dra_arena a = DRA_ARENA_INIT;
    long oserr = 0;
    curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
    dra_err *e;
    if (rc == CURLE_COULDNT_CONNECT && oserr == ECONNREFUSED)
        e = dra_err_new(DRA_EXIT_RUNTIME,
                        "The connection to the server %s was refused - did you specify the right host or port?",
                        server_host(&a, c->cfg.server));
    else
        e = dra_err_new(DRA_EXIT_RUNTIME, "unable to connect to the server %s: %s", c->server_shown,
                        dra_kube_v(&a, errbuf[0] ? errbuf : curl_easy_strerror(rc)));
    dra_arena_free(&a);
    return e;
}

dra_err *dra_kube_do(dra_kube_client *c, const dra_kube_req *req, dra_kube_resp *resp)
{
    memset(resp, 0, sizeof *resp);
    bool reauthed = false;
    bool idempotent = strcmp(req->method, "POST") != 0;
    for (int attempt = 0;; attempt++) {
        if (dra_kube_client_stopped(c))
            return dra_err_new(DRA_EXIT_RUNTIME, "interrupted");
        CURL *h = c->easy;
        curl_easy_reset(h);
        struct curl_slist *hdrs = NULL, *cto = NULL;
        xfer x = {c, DRA_BUF_INIT, -1};
        dra_err *e = setup(c, h, req->path, &hdrs, &cto);
        if (e) {
            free_slist(hdrs);
            curl_slist_free_all(cto);
            return e;
        }
        if (req->body) {
            char *ct = dra_xasprintf("Content-Type: %s", req->content_type ? req->content_type : "application/json");
            hdrs = curl_slist_append(hdrs, ct);
            free(ct);
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body);
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        }
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
        if (strcmp(req->method, "GET") == 0)
            curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
        curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, write_header);
        curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
        long tmo = c->o.request_timeout_ms;
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, tmo > 0 ? tmo : tmo < 0 ? 0L : 300000L);
        char errbuf[CURL_ERROR_SIZE] = "";
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
        c->stats.requests++;
        CURLcode rc = curl_easy_perform(h);
        long http = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
        free_slist(hdrs);
        curl_easy_setopt(h, CURLOPT_CONNECT_TO, NULL);
        curl_slist_free_all(cto);
        if (rc != CURLE_OK) {
            dra_buf_free(&x.body);
            if (rc == CURLE_ABORTED_BY_CALLBACK)
                return dra_err_new(DRA_EXIT_RUNTIME, "interrupted");
            if (idempotent && transient_curl(c, rc, req->method) && attempt < c->o.max_retries) {
                int64_t d = dra_kube_backoff_ms(c, attempt);
                c->stats.retries++;
                dra_arena a = DRA_ARENA_INIT;
                dra_kube_client_log(c, KUBE_LOG_WARN, "%s %s: %s; retrying in %lld ms", req->method, req->path,
                                    dra_kube_v(&a, errbuf[0] ? errbuf : curl_easy_strerror(rc)), (long long)d);
                dra_arena_free(&a);
                if (!dra_kube_sleep_ms(c, d))
                    return dra_err_new(DRA_EXIT_RUNTIME, "interrupted");
                continue;
            }
            return transport_error(c, h, rc, errbuf);
        }
        if (req->raw && http >= 200 && http < 300) {
            dra_kube_resp_free(resp);
            resp->http = http;
            resp->text_len = x.body.len;
            resp->text = x.body.len ? dra_buf_detach(&x.body) : NULL;
            dra_buf_free(&x.body);
            return NULL;
        }
        e = answer(c, http, dra_buf_str(&x.body), x.body.len, req->method, req->path, resp);
        dra_buf_free(&x.body);
        if (!e)
            return NULL;
        if (http == 401 && c->cfg.exec && !reauthed) {
            reauthed = true;
            c->stats.reauths++;
            dra_arena a = DRA_ARENA_INIT;
            dra_kube_client_log(c, KUBE_LOG_INFO, "401 Unauthorized: running the exec credential plugin %s again",
                                dra_kube_v(&a, c->cfg.exec->command));
            dra_arena_free(&a);
            dra_kube_cred_clear(&c->cred);
            dra_err_free(e);
            dra_kube_resp_free(resp);
            continue;
        }
        bool retryable = http == 429 || (http >= 500 && (idempotent || x.retry_after_s >= 0));
        if (retryable && attempt < c->o.max_retries) {
            int64_t d = x.retry_after_s >= 0 ? x.retry_after_s * 1000 : dra_kube_backoff_ms(c, attempt);
            if (d > c->o.backoff_cap_ms)
                d = c->o.backoff_cap_ms;
            c->stats.retries++;
            dra_kube_client_log(c, KUBE_LOG_WARN, "%s %s: HTTP %ld; retrying in %lld ms", req->method, req->path, http,
                                (long long)d);
            dra_err_free(e);
            dra_kube_resp_free(resp);
            if (!dra_kube_sleep_ms(c, d))
                return dra_err_new(DRA_EXIT_RUNTIME, "interrupted");
            continue;
        }
        return e;
    }
}

/* ---- streams ---- */

typedef struct stream {
    CURL *h;
    struct curl_slist *hdrs, *cto;
    dra_kube_sink_fn sink;
    dra_kube_done_fn done;
    void *ud;
    long http;
    dra_buf errbody;
    dra_err *sink_err;
    char errbuf[CURL_ERROR_SIZE];
    char *path;
    struct dra_kube_streams *owner;
} stream;

struct dra_kube_streams {
    dra_kube_client *c;
    CURLM *m;
    stream **v;
    size_t n;
};

dra_kube_streams *dra_kube_streams_new(dra_kube_client *c)
{
    dra_kube_streams *s = dra_xcalloc(1, sizeof *s);
    s->c = c;
    s->m = curl_multi_init();
    return s;
}

static void stream_free(dra_kube_streams *s, stream *st)
{
    curl_multi_remove_handle(s->m, st->h);
    curl_easy_cleanup(st->h);
    free_slist(st->hdrs);
    curl_slist_free_all(st->cto);
    dra_buf_free(&st->errbody);
    dra_err_free(st->sink_err);
    free(st->path);
    free(st);
}

void dra_kube_streams_free(dra_kube_streams *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        stream_free(s, s->v[i]);
    free(s->v);
    curl_multi_cleanup(s->m);
    free(s);
}

static size_t stream_write(char *p, size_t sz, size_t n, void *ud)
{
    stream *st = ud;
    size_t len = sz * n;
    if (!st->http)
        curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &st->http);
    if (st->http < 200 || st->http >= 300) {
        if (st->errbody.len + len > (1u << 20))
            return 0;
        dra_buf_append(&st->errbody, p, len);
        return len;
    }
    if (st->owner->c->o.stop && *st->owner->c->o.stop)
        return 0;
    dra_err *e = st->sink(st->ud, p, len);
    if (e) {
        st->sink_err = e;
        return 0;
    }
    return len;
}

void dra_kube_streams_open(dra_kube_streams *s, const char *path, int idle_s, dra_kube_sink_fn sink,
                           dra_kube_done_fn done, void *ud)
{
    stream *st = dra_xcalloc(1, sizeof *st);
    st->h = curl_easy_init();
    st->sink = sink;
    st->done = done;
    st->ud = ud;
    st->owner = s;
    st->path = dra_xstrdup(path);
    dra_err *e = setup(s->c, st->h, path, &st->hdrs, &st->cto);
    if (e) {
        dra_kube_resp r = {0};
        stream_free(s, st);
        done(ud, e, &r, false);
        return;
    }
    curl_easy_setopt(st->h, CURLOPT_HTTPHEADER, st->hdrs);
    curl_easy_setopt(st->h, CURLOPT_WRITEFUNCTION, stream_write);
    curl_easy_setopt(st->h, CURLOPT_WRITEDATA, st);
    curl_easy_setopt(st->h, CURLOPT_ERRORBUFFER, st->errbuf);
    curl_easy_setopt(st->h, CURLOPT_PRIVATE, st);
    if (idle_s > 0) {
        curl_easy_setopt(st->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(st->h, CURLOPT_LOW_SPEED_TIME, (long)idle_s);
    }
    s->c->stats.requests++;
    s->v = dra_xgrow(s->v, s->n, sizeof *s->v);
    s->v[s->n++] = st;
    curl_multi_add_handle(s->m, st->h);
}

size_t dra_kube_streams_poll(dra_kube_streams *s, int timeout_ms)
{
    int running = 0;
    curl_multi_perform(s->m, &running);
    if (running)
        curl_multi_poll(s->m, NULL, 0, timeout_ms, NULL);
    curl_multi_perform(s->m, &running);
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(s->m, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        stream *st = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&st);
        CURLcode rc = msg->data.result;
        dra_kube_done_fn done = st->done;
        void *ud = st->ud;
        dra_kube_resp r = {0};
        long http = st->http;
        if (!http)
            curl_easy_getinfo(st->h, CURLINFO_RESPONSE_CODE, &http);
        dra_err *e = NULL;
        bool dropped = false;
        if (st->sink_err) {
            e = st->sink_err;
            st->sink_err = NULL;
            r.http = http;
        } else if (http && (http < 200 || http >= 300)) {
            e = answer(s->c, http, dra_buf_str(&st->errbody), st->errbody.len, "GET", st->path, &r);
            if (http == 401 && s->c->cfg.exec) {
                s->c->stats.reauths++;
                dra_kube_cred_clear(&s->c->cred);
            }
        } else if (rc != CURLE_OK) {
            r.http = http;
            dropped = http != 0;
            dra_arena a = DRA_ARENA_INIT;
            e = dra_err_new(DRA_EXIT_RUNTIME, "%s %s: %s",
                            http ? "watch connection lost" : "unable to connect to the server", s->c->server_shown,
                            dra_kube_v(&a, st->errbuf[0] ? st->errbuf : curl_easy_strerror(rc)));
            dra_arena_free(&a);
        } else {
            r.http = http;
        }
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i] == st) {
                memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
                s->n--;
                break;
            }
        stream_free(s, st);
        done(ud, e, &r, dropped);
        dra_kube_resp_free(&r);
    }
    return s->n;
}
