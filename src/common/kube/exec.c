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
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: pipe: %s", x->command, strerror(errno));
    char *info = exec_info(cfg);
    size_t nargs = 0;
    while (x->args && x->args[nargs])
        nargs++;
    char **argv = dra_xcalloc(nargs + 2, sizeof *argv);
    argv[0] = x->command;
    for (size_t i = 0; i < nargs; i++)
        argv[i + 1] = x->args[i];
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(pfd[0]);
        close(pfd[1]);
        free(info);
        free(argv);
        return dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: fork: %s", x->command, strerror(err));
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(pfd[1], 1);
        for (char **p = x->env; p && *p; p++)
            putenv(*p);
        setenv("KUBERNETES_EXEC_INFO", info, 1);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[0], argv);
        _exit(errno == ENOENT ? 127 : 126);
    }
    free(info);
    free(argv);
    close(pfd[1]);
    dra_buf out = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_fd(&out, pfd[0], x->command, EXEC_MAX_OUTPUT);
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!e) {
        if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
            e = dra_err_new(DRA_EXIT_RUNTIME, "exec: executable %s not found%s%s", x->command,
                            x->install_hint ? "\n\n" : "", x->install_hint ? x->install_hint : "");
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "exec: executable %s failed with exit code %d", x->command,
                            WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        else
            e = parse_cred(cfg, dra_buf_str(&out), out.len, cred);
    } else {
        dra_err_free(e);
        e = dra_err_new(DRA_EXIT_RUNTIME, "exec plugin %s: unreadable output", x->command);
    }
    if (out.data)
        memset(out.data, 0, out.cap);
    dra_buf_free(&out);
    return e;
}
