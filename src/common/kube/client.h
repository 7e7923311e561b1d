/* HTTP to the API server over libcurl (OpenSSL): authentication, TLS,
 * API Status errors, retries.
 *
 * Authentication, in client-go's order: client certificate (from memory:
 * CURLOPT_SSLCERT_BLOB/SSLKEY_BLOB), then one of bearer token (tokenFile
 * re-read when it changes), basic auth, or an exec credential plugin (run with
 * the kubeconfig's env plus KUBERNETES_EXEC_INFO; its ExecCredential is cached
 * until status.expirationTimestamp and rerun once on 401).  TLS verification
 * is on unless the kubeconfig says insecure-skip-tls-verify.
 *
 * Errors: a non-2xx answer becomes an error "Error from server (Reason):
 * message" (kubectl's wording) with the HTTP code in dra_kube_resp; transport
 * failures are DRA_EXIT_RUNTIME naming the server URL and curl's reason; a
 * refused connection is kubectl's "The connection to the server HOST:PORT
 * was refused - did you specify the right host or port?".
 * 429 and 5xx are retried (at most `max_retries` times) after Retry-After
 * seconds when the server sends it, else after an exponential backoff with
 * jitter, both capped at `backoff_cap_ms`.  Writes that are not idempotent
 * (POST) are retried on 5xx only when the server sent Retry-After.
 *
 * Impersonation (config.h) goes as client-go's Impersonate-User,
 * Impersonate-Uid, Impersonate-Group (one per group) and
 * Impersonate-Extra-KEY (one per value) headers on every request.
 *
 * Plain http: a server whose URL is not https (http://, or host:port without
 * a scheme) gets no credentials at all, as kubectl sends none there; the
 * client drops them from its configuration and logs one warning.  The
 * impersonation headers are sent there too, as kubectl sends them.
 *
 * Nothing here prints: messages go to the log callback, and neither they nor
 * errors ever hold a token, password or key; the server URL appears with
 * the password of its userinfo redacted ("https://user:***@host"), and
 * strings from the server or the kubeconfig with control characters escaped
 * (kube/text.h).
 *
 * Ownership: dra_kube_client owns its config (taken by dra_kube_client_new), curl
 * handles and cached credentials; dra_kube_client_free().  dra_kube_resp owns its
 * json (dra_kube_resp_free).  A client is used from one thread.
 */
#ifndef DRA_KUBE_CLIENT_H
#define DRA_KUBE_CLIENT_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "config.h"

typedef enum { KUBE_LOG_DEBUG, KUBE_LOG_INFO, KUBE_LOG_WARN } dra_kube_log_level;
typedef void (*dra_kube_log_fn)(void *ud, dra_kube_log_level level, const char *msg);

typedef struct dra_kube_stats {
    uint64_t requests, retries, events, relists, resumes, writes, conflicts, reauths;
} dra_kube_stats;

typedef struct dra_kube_client dra_kube_client;

typedef struct dra_kube_client_opts {
    dra_kube_log_fn log; /* NULL = silent */
    void *log_ud;
    volatile sig_atomic_t *stop; /* set by a signal handler: requests and sleeps end early */
    int max_retries;             /* 0 = default 8 */
    int backoff_cap_ms;          /* 0 = default 30000 */
    int backoff_base_ms;         /* 0 = default 200 */
    const char *user_agent;      /* NULL = "dra-tools" */
    /* kubectl's --request-timeout: the most one request (dra_kube_do; not a
     * stream) may take, in ms; 0 = the default 300 s, < 0 = no limit. */
    long request_timeout_ms;
    /* A one-shot command, as kubectl: a transport failure client-go does not
     * retry (a refused connection, an unknown host, a timeout) ends the
     * request at once; only a reset or cut connection of a GET is retried.
     * Off (the loop): every transient failure is retried with backoff. */
    bool fail_fast;
} dra_kube_client_opts;

/* Takes cfg (its contents are moved; cfg is zeroed). */
DRA_MUST_USE dra_err *dra_kube_client_new(dra_kube_config *cfg, const dra_kube_client_opts *o, dra_kube_client **out);
void dra_kube_client_free(dra_kube_client *c);
/* Swap in a new configuration (SIGHUP): cached credentials are dropped. */
void dra_kube_client_set_config(dra_kube_client *c, dra_kube_config *cfg);
const dra_kube_config *dra_kube_client_config(const dra_kube_client *c);
dra_kube_stats *dra_kube_client_stats(dra_kube_client *c);
bool dra_kube_client_stopped(const dra_kube_client *c);
/* Change dra_kube_client_opts.fail_fast (a recording's initial list is
 * one-shot, its watch patient). */
void dra_kube_client_set_fail_fast(dra_kube_client *c, bool on);
void dra_kube_client_log(dra_kube_client *c, dra_kube_log_level level, const char *fmt, ...) DRA_PRINTF(3, 4);

typedef struct dra_kube_req {
    const char *method;       /* "GET", "POST", "PUT", "PATCH", "DELETE" */
    const char *path;         /* "/apis/...?...", already escaped */
    const char *content_type; /* for a body */
    const char *body;
    size_t body_len;
    bool raw; /* a 2xx body is kept as text (resp->text), not decoded */
} dra_kube_req;

typedef struct dra_kube_resp {
    long http;       /* 0 when no answer arrived */
    json_t *json;    /* the decoded body (2xx: the object; else the Status if any) */
    char reason[48]; /* Status reason ("Conflict", "NotFound", "Expired", ...) or "" */
    char *text;      /* a raw request's 2xx body (owned, NUL-terminated; NULL when empty), json NULL */
    size_t text_len;
} dra_kube_resp;

void dra_kube_resp_free(dra_kube_resp *r);

/* True when e (or an error it was wrapped in by the watch layer) is the
 * server's 403 Forbidden: a missing permission, which retrying cannot fix.
 * Its message names the user, verb and resource as the server said them. */
bool dra_kube_err_forbidden(const dra_err *e);

/* One request with retries.  2xx: NULL and resp->json.  Else an error
 * (DRA_EXIT_RUNTIME) and resp->http/reason set. */
DRA_MUST_USE dra_err *dra_kube_do(dra_kube_client *c, const dra_kube_req *req, dra_kube_resp *resp);

/* Streaming requests (watches), several at once over one curl multi handle.
 * Body bytes of a 2xx answer go to the stream's sink as they arrive; a non-2xx
 * body is kept and decoded as a Status.  When a stream ends, `done` is called
 * with: err NULL when the server ended it cleanly; else the error (HTTP status,
 * transport failure, or the sink's own error), resp->http/reason set and
 * *dropped true when a 2xx stream was cut or went idle (no byte for about
 * idle_s seconds).  No retries here: the watch layer decides (resume, relist,
 * back off). */
typedef dra_err *(*dra_kube_sink_fn)(void *ud, const char *data, size_t len);
typedef void (*dra_kube_done_fn)(void *ud, dra_err *err /* owned by callee */, const dra_kube_resp *resp, bool dropped);
typedef struct dra_kube_streams dra_kube_streams;
dra_kube_streams *dra_kube_streams_new(dra_kube_client *c);
void dra_kube_streams_free(dra_kube_streams *s); /* aborts open streams without calling done */
/* Start a GET stream; sink and done get ud. */
void dra_kube_streams_open(dra_kube_streams *s, const char *path, int idle_s, dra_kube_sink_fn sink,
                           dra_kube_done_fn done, void *ud);
/* Wait up to timeout_ms for data and run the callbacks; returns the number of
 * streams still open. */
size_t dra_kube_streams_poll(dra_kube_streams *s, int timeout_ms);

/* Sleep ms milliseconds or until stopped; false when stopped. */
bool dra_kube_sleep_ms(dra_kube_client *c, int64_t ms);
/* Backoff before retry n (0-based): base*2^n with +-25% jitter, capped. */
int64_t dra_kube_backoff_ms(dra_kube_client *c, int n);
/* Wait before re-reading after conflict n (0-based), as client-go's
 * retry.RetryOnConflict(retry.DefaultBackoff, ...): 10 ms * 5^n plus up to
 * 10% jitter (10, 50, 250, 1250, 6250 ms ...). */
int64_t dra_kube_conflict_backoff_ms(dra_kube_client *c, int n);

/* Percent-encode a query value into b. */
void dra_kube_query_escape(dra_buf *b, const char *s);

#endif
