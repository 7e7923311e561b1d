/* Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as
 * k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go runs them: the
 * kubeconfig's env on top of ours, KUBERNETES_EXEC_INFO describing the
 * request, stdin closed (non-interactive), stderr passed through, the
 * ExecCredential read from stdout. */
#include "internal.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/proc.h"
#include "../model/time.h"

#define EXEC_MAX_OUTPUT ((size_t)1 << 20)

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
    const char *cmd = cfg->exec->command;
    json_error_t jerr;
    json_t *j = json_loadb(out, len, 0, &jerr);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        return dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: output is not an ExecCredential JSON object", cmd);
    }
    dra_err *e = NULL;
    const char *av = json_string_value(json_object_get(j, "apiVersion"));
    const char *kind = json_string_value(json_object_get(j, "kind"));
    json_t *st = json_object_get(j, "status");
    if (!av || strcmp(av, cfg->exec->api_version) != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin is configured to use API version %s, plugin returned version %s",
                        cfg->exec->api_version, av ? av : "(none)");
    } else if (!kind || strcmp(kind, "ExecCredential") != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: returned kind %s, not ExecCredential", cmd, kind ? kind : "(none)");
    } else if (!json_is_object(st)) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin didn't return a status field");
    } else {
        const char *tok = json_string_value(json_object_get(st, "token"));
        const char *cd = json_string_value(json_object_get(st, "clientCertificateData"));
        const char *kd = json_string_value(json_object_get(st, "clientKeyData"));
        const char *exp = json_string_value(json_object_get(st, "expirationTimestamp"));
        if ((!tok || !*tok) && (!cd || !*cd || !kd || !*kd))
            e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin didn't return a token or cert/key pair");
        else if ((cd && *cd) != (kd && *kd))
            e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin returned only certificate or key, not both");
        if (!e && exp) {
            dra_err *te = dra_time_parse(exp, &cred->expiry_ns);
            if (!te && cred->expiry_ns <= 0)
                cred->expiry_ns = INT64_MAX; /* beyond what nanoseconds hold: never expires here */
            if (te) {
                dra_err_free(te);
                e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: status.expirationTimestamp is not an RFC 3339 time", cmd);
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
    char **argv = dra_xcalloc(nargs + 2, sizeof *argv);
    argv[0] = x->command;
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
        dra_err *w = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: %s", x->command, e->msg);
        dra_err_free(e);
        e = w;
    } else if (ps.too_much) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: unreadable output", x->command);
    } else if (ps.exec_errno == ENOENT) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec: executable %s not found%s%s", x->command,
                        x->install_hint ? "\n\n" : "", x->install_hint ? x->install_hint : "");
    } else if (ps.code != 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec: executable %s failed with exit code %d", x->command,
                        ps.exec_errno ? 126 : ps.code);
    } else {
        e = parse_cred(cfg, dra_buf_str(&out), out.len, cred);
    }
    if (out.data)
        memset(out.data, 0, out.cap);
    dra_buf_free(&out);
    return e;
}
