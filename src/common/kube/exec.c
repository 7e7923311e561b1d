/* Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as
 * k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go runs them: the
 * kubeconfig's env on top of ours, KUBERNETES_EXEC_INFO describing the
 * request, stdin closed (non-interactive), stderr passed through, the
 * ExecCredential read from stdout.
 *
 * A command without '/' is looked up in $PATH as Go's os/exec.LookPath does
 * (a regular file we may execute, in an absolute folder); failures are worded
 * as exec.go's wrapCmdRunErrorLocked words Go's: "exec: executable X not
 * found" (with the install hint) when the lookup fails, "exec: fork/exec
 * PATH: argument list too long" when the system refuses to start it,
 * "exec: executable X failed with exit code N" when it ran (-1 when a
 * signal ended it). */
#include "internal.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/proc.h"
#include "../model/time.h"
#include "text.h"

#define EXEC_MAX_OUTPUT ((size_t)1 << 20)

/* exec.go's installHintVerboseHelp, after "not found". */
/* clang-format off */
#define INSTALL_HELP                                                                                                  \
    "\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\nTo learn more "  \
    "about this feature, consult the documentation available at:\n      "                                           \
    "https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins"
/* clang-format on */

/* os/exec.LookPath for a name without '/': the first $PATH entry holding a
 * regular file we may execute; NULL when none, or when it is found only in a
 * relative folder (Go refuses those: ErrDot).  Caller frees. */
static char *look_path(const char *name)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char *cand = n ? dra_xasprintf("%.*s/%s", (int)n, p, name) : dra_xasprintf("./%s", name);
        struct stat st;
        if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode) && faccessat(AT_FDCWD, cand, X_OK, AT_EACCESS) == 0) {
            if (cand[0] == '/')
                return cand;
            free(cand);
            return NULL;
        }
        free(cand);
        if (!colon)
            break;
        p = colon + 1;
        if (!*p) /* a trailing ':' is the current folder: relative */
            break;
    }
    return NULL;
}

bool dra_kube_cred_expired(const dra_kube_cred *c, dra_time now)
{
    return c->expires && dra_time_cmp(now, c->expiry) > 0; /* credsExpired: now.After(exp) */
}

void dra_kube_cred_clear(dra_kube_cred *c)
{
    if (c->token) {
        memset(c->token, 0, strlen(c->token));
        free(c->token);
    }
    dra_buf_free(&c->cert);
    if (c->key.data)
        memset(c->key.data, 0, c->key.cap);
    dra_buf_free(&c->key);
    memset(c, 0, sizeof *c);
}

static char *exec_info(const dra_kube_config *cfg)
{
    json_t *info = json_pack("{s:s, s:s, s:{s:b}}", "kind", "ExecCredential", "apiVersion", cfg->exec->api_version,
                             "spec", "interactive", 0);
    if (cfg->exec->provide_cluster_info) {
        json_t *cl = json_pack("{s:s}", "server", cfg->server);
        if (cfg->tls_server_name)
            json_object_set_new(cl, "tls-server-name", json_string(cfg->tls_server_name));
        if (cfg->insecure)
            json_object_set_new(cl, "insecure-skip-tls-verify", json_true());
        if (cfg->proxy_url)
            json_object_set_new(cl, "proxy-url", json_string(cfg->proxy_url));
        json_object_set_new(json_object_get(info, "spec"), "cluster", cl);
    }
    char *s = json_dumps(info, JSON_COMPACT);
    json_decref(info);
    return s;
}

static dra_err *parse_cred(const dra_kube_config *cfg, const char *out, size_t len, dra_kube_cred *cred)
{
    dra_arena a = DRA_ARENA_INIT;
    const char *cmd = dra_kube_v(&a, cfg->exec->command);
    json_error_t jerr;
    json_t *j = json_loadb(out, len, 0, &jerr);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        dra_err *e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: output is not an ExecCredential JSON object", cmd);
        dra_arena_free(&a);
        return e;
    }
    dra_err *e = NULL;
    const char *av = json_string_value(json_object_get(j, "apiVersion"));
    const char *kind = json_string_value(json_object_get(j, "kind"));
    json_t *st = json_object_get(j, "status");
    if (!av || strcmp(av, cfg->exec->api_version) != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin is configured to use API version %s, plugin returned version %s",
                        cfg->exec->api_version, av ? dra_kube_v(&a, av) : "(none)");
    } else if (!kind || strcmp(kind, "ExecCredential") != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: returned kind %s, not ExecCredential", cmd,
                        kind ? dra_kube_v(&a, kind) : "(none)");
    } else if (!json_is_object(st)) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin didn't return a status field");
    } else {
        const char *tok = json_string_value(json_object_get(st, "token"));
        const char *cd = json_string_value(json_object_get(st, "clientCertificateData"));
        const char *kd = json_string_value(json_object_get(st, "clientKeyData"));
        const json_t *expj = json_object_get(st, "expirationTimestamp");
        const char *exp = json_string_value(expj);
        if ((!tok || !*tok) && (!cd || !*cd || !kd || !*kd))
            e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin didn't return a token or cert/key pair");
        else if ((cd && *cd) != (kd && *kd))
            e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin returned only certificate or key, not both");
        if (!e && expj && !json_is_null(expj)) {
            /* metav1.Time: Go's time.Parse(time.RFC3339); the zero time
             * (0001-01-01T00:00:00Z) is no expiry, as an absent one */
            dra_err *te = exp ? dra_time_parse(exp, &cred->expiry) : dra_err_new(DRA_EXIT_RUNTIME, "not a string");
            cred->expires = !te && !(cred->expiry.sec == DRA_TIME_GO_ZERO_SEC && cred->expiry.nsec == 0);
            if (te) {
                dra_err_free(te);
                e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: status.expirationTimestamp is not an RFC 3339 time",
                                cmd);
            }
        }
        if (!e) {
            if (tok && *tok)
                cred->token = dra_xstrdup(tok);
            if (cd && *cd) {
                dra_buf_puts(&cred->cert, cd);
                dra_buf_puts(&cred->key, kd);
            }
            cred->valid = true;
        }
    }
    json_decref(j);
    dra_arena_free(&a);
    return e;
}

dra_err *dra_kube_exec_credential(const dra_kube_config *cfg, dra_kube_cred *cred)
{
    dra_kube_cred_clear(cred);
    const dra_kube_exec *x = cfg->exec;
    size_t nargs = 0, nenv = 0;
    while (x->args && x->args[nargs])
        nargs++;
    while (x->env && x->env[nenv])
        nenv++;
    dra_arena a = DRA_ARENA_INIT;
    const char *shown = dra_kube_v(&a, x->command);
    char *path = strchr(x->command, '/') ? dra_xstrdup(x->command) : look_path(x->command);
    if (!path) {
        dra_err *e = dra_err_new(DRA_EXIT_RUNTIME, "exec: executable %s not found" INSTALL_HELP "%s%s", shown,
                                 x->install_hint ? "\n\n" : "", x->install_hint ? x->install_hint : "");
        dra_arena_free(&a);
        return e;
    }
    char **argv = dra_xcalloc(nargs + 2, sizeof *argv);
    argv[0] = path;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = x->args[i];
    char **env = dra_xcalloc(nenv + 2, sizeof *env);
    for (size_t i = 0; i < nenv; i++)
        env[i] = x->env[i];
    char *info = exec_info(cfg);
    env[nenv] = dra_xasprintf("KUBERNETES_EXEC_INFO=%s", info);
    free(info);
    dra_proc p = {.argv = argv, .env = env, .max_out = EXEC_MAX_OUTPUT};
    dra_proc_status ps;
    dra_buf out = DRA_BUF_INIT;
    dra_err *e = dra_proc_run(&p, &out, &ps);
    free(env[nenv]);
    free(env);
    free(argv);
    if (e) {
        dra_err *w = dra_err_new(DRA_EXIT_RUNTIME, "exec: %s", e->msg);
        dra_err_free(e);
        e = w;
    } else if (ps.exec_errno) {
        /* the system refused to start it: an *os.PathError from StartProcess */
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec: fork/exec %s: %s", dra_kube_v(&a, path),
                        dra_kube_strerror(&a, ps.exec_errno));
    } else if (ps.too_much) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: output larger than %zu bytes", shown, EXEC_MAX_OUTPUT);
    } else if (ps.code != 0) {
        /* ProcessState.ExitCode(): -1 when a signal ended it */
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec: executable %s failed with exit code %d", shown,
                        ps.signal ? -1 : ps.code);
    } else {
        e = parse_cred(cfg, dra_buf_str(&out), out.len, cred);
    }
    if (out.data)
        memset(out.data, 0, out.cap);
    dra_buf_free(&out);
    free(path);
    dra_arena_free(&a);
    return e;
}
