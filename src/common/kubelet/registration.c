/* Plugin registration as the kubelet's plugin watcher performs it. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/utf8.h"
#include "grpc/grpc.h"
#include "kubelet/registration.h"
#include "kubelet/rpc_internal.h"
#include "pluginregistration_v1.pb-c.h"

const char *const dra_reg_supported[2] = {DRA_SERVICE_V1, DRA_SERVICE_V1BETA1};

/* Go's %q of a []string: ["a" "b"] */
static void go_quote_list(dra_buf *b, char *const *v, size_t n)
{
    dra_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            dra_buf_putc(b, ' ');
        dra_go_quote(b, v[i], strlen(v[i]));
    }
    dra_buf_putc(b, ']');
}

const char *dra_registry_choose(char *const *services, size_t n, dra_arena *a, char **err)
{
    *err = NULL;
    if (n == 0) {
        *err = dra_arena_strdup(a, "empty list of supported gRPC services (aka supported versions)");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 2; j++)
            if (strcmp(services[i], dra_reg_supported[j]) == 0)
                return dra_reg_supported[j];
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, "none of services supported by the plugin (");
    go_quote_list(&b, services, n);
    dra_buf_puts(&b, ") are supported by the kubelet (");
    go_quote_list(&b, (char *const *)dra_reg_supported, 2);
    dra_buf_puts(&b, ")");
    *err = dra_arena_strdup(a, dra_buf_str(&b));
    dra_buf_free(&b);
    return NULL;
}

static void notify(dra_grpc_client *c, long timeout, bool ok, const char *msg)
{
    Pluginregistration__RegistrationStatus st;
    pluginregistration__registration_status__init(&st);
    st.plugin_registered = ok;
    st.error = (char *)(msg ? msg : "");
    size_t len = pluginregistration__registration_status__get_packed_size(&st);
    uint8_t *buf = dra_xmalloc(len ? len : 1);
    pluginregistration__registration_status__pack(&st, buf);
    dra_buf resp = DRA_BUF_INIT;
    dra_grpc_status gs = {0};
    dra_grpc_unary(c, "/pluginregistration.Registration/NotifyRegistrationStatus", buf, len, timeout, &resp, &gs);
    dra_grpc_status_clear(&gs);
    dra_buf_free(&resp);
    free(buf);
}

void dra_registry_probe(const char *sock, const dra_reg_opts *opts, dra_arena *a, dra_reg_plugin *p)
{
    long timeout = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 1000;
    bool do_notify = opts && opts->notify;
    memset(p, 0, sizeof *p);
    p->reg_socket = dra_arena_strdup(a, sock);
    p->type = p->name = p->endpoint = "";
    dra_grpc_client *c;
    dra_err *e = dra_grpc_client_new(sock, NULL, &c);
    if (e) {
        p->error = dra_arena_printf(a, "RegisterPlugin error -- dial failed at socket %s, err: %s", sock, e->msg);
        dra_err_free(e);
        return;
    }
    dra_buf resp = DRA_BUF_INIT;
    dra_grpc_status st = {0};
    double t0 = (dra_mono_ns() / 1e6);
    int code = dra_grpc_unary(c, "/pluginregistration.Registration/GetInfo", "", 0, timeout, &resp, &st);
    p->getinfo_ms = (dra_mono_ns() / 1e6) - t0;
    Pluginregistration__PluginInfo *info = NULL;
    if (code != DRA_GRPC_OK) {
        p->error = dra_arena_printf(a,
                                    "RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket %s, "
                                    "err: rpc error: %s: %s",
                                    sock, dra_grpc_code_name(code), st.message ? st.message : "");
        goto out;
    }
    info = pluginregistration__plugin_info__unpack(NULL, resp.len, (const uint8_t *)resp.data);
    if (!info) {
        p->error = dra_arena_printf(a,
                                    "RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket %s, "
                                    "err: the answer (%zu bytes) is not a valid PluginInfo",
                                    sock, resp.len);
        goto out;
    }
    p->info_ok = true;
    p->type = dra_arena_strdup(a, info->type ? info->type : "");
    p->name = dra_arena_strdup(a, info->name ? info->name : "");
    p->endpoint = dra_arena_strdup(a, info->endpoint && *info->endpoint ? info->endpoint : sock);
    p->n_versions = info->n_supported_versions;
    p->versions = dra_arena_zalloc(a, (p->n_versions ? p->n_versions : 1) * sizeof *p->versions);
    for (size_t i = 0; i < p->n_versions; i++)
        p->versions[i] = dra_arena_strdup(a, info->supported_versions[i] ? info->supported_versions[i] : "");
    if (strcmp(p->type, "DRAPlugin") != 0) {
        p->error = dra_arena_printf(a, "RegisterPlugin error -- no handler registered for plugin type: %s at socket %s",
                                    p->type, sock);
        if (do_notify)
            notify(c, timeout, false, p->error);
        goto out;
    }
    char *why;
    const char *svc = dra_registry_choose(p->versions, p->n_versions, a, &why);
    if (!svc) {
        p->error = dra_arena_printf(a,
                                    "RegisterPlugin error -- plugin validation failed with err: invalid supported gRPC "
                                    "versions of DRA driver plugin %s at endpoint %s: %s",
                                    p->name, p->endpoint, why);
        if (do_notify)
            notify(c, timeout, false, p->error);
        goto out;
    }
    /* One instance may not take over another's endpoint (the kubelet's
     * DRAPluginManager.add); a second instance on its own endpoint is a
     * rolling update and is kept. */
    for (size_t i = 0; opts && i < opts->n_prior; i++) {
        const dra_reg_plugin *o = &opts->prior[i];
        if (o->registered && strcmp(o->name, p->name) == 0 && strcmp(o->endpoint, p->endpoint) == 0) {
            p->error = dra_arena_printf(a,
                                        "RegisterPlugin error -- plugin registration failed with err: endpoint %s "
                                        "already registered for DRA driver plugin %s",
                                        p->endpoint, p->name);
            if (do_notify)
                notify(c, timeout, false, p->error);
            goto out;
        }
    }
    p->service = dra_arena_strdup(a, svc);
    p->registered = true;
    /* Is the endpoint there?  (The kubelet registers it anyway and reports
     * the connection state; calls fail until it is reachable.) */
    if (strcmp(p->endpoint, sock) == 0) {
        p->reachable = true;
    } else {
        dra_grpc_client *ec;
        dra_grpc_status es = {0};
        e = dra_grpc_client_new(p->endpoint, NULL, &ec);
        if (e) {
            p->error = dra_arena_printf(a, "DRA driver %s plugin at endpoint %s: %s", p->name, p->endpoint, e->msg);
            dra_err_free(e);
        } else {
            p->reachable = dra_grpc_client_connect(ec, &es) == DRA_GRPC_OK;
            if (!p->reachable)
                p->error = dra_arena_printf(a, "DRA driver %s plugin at endpoint %s is not reachable: %s: %s", p->name,
                                            p->endpoint, dra_grpc_code_name(es.code), es.message ? es.message : "");
            dra_grpc_status_clear(&es);
            dra_grpc_client_free(ec);
        }
    }
    if (do_notify)
        notify(c, timeout, true, NULL);
out:
    if (info)
        pluginregistration__plugin_info__free_unpacked(info, NULL);
    dra_grpc_status_clear(&st);
    dra_buf_free(&resp);
    dra_grpc_client_free(c);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void walk(const char *dir, int depth, dra_buf *names, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue; /* hidden files and . / .. are ignored by the watcher */
        char *path = dra_xasprintf("%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0) {
            if (S_ISSOCK(st.st_mode)) {
                dra_buf_append(names, &path, sizeof path);
                (*n)++;
                continue;
            }
            if (S_ISDIR(st.st_mode) && depth < 8)
                walk(path, depth + 1, names, n);
        }
        free(path);
    }
    closedir(d);
}

dra_err *dra_registry_scan(const char *dir, const dra_reg_opts *opts, dra_arena *a, dra_reg_plugin **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    struct stat st;
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return dra_err_new(DRA_EXIT_INPUT, "registry directory %s: %s", dir,
                           stat(dir, &st) < 0 ? "no such directory" : "not a directory");
    dra_buf names = DRA_BUF_INIT;
    size_t n = 0;
    walk(dir, 0, &names, &n);
    char **v = (char **)names.data;
    if (n)
        qsort(v, n, sizeof *v, cmp_str);
    dra_reg_plugin *p = dra_arena_zalloc(a, (n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        dra_reg_opts o = opts ? *opts : (dra_reg_opts){0};
        o.prior = p, o.n_prior = i;
        dra_registry_probe(v[i], &o, a, &p[i]);
        free(v[i]);
    }
    dra_buf_free(&names);
    *out = p;
    *n_out = n;
    return NULL;
}

const dra_reg_plugin *dra_registry_lookup(const dra_reg_plugin *p, size_t n, const char *driver)
{
    const dra_reg_plugin *last = NULL;
    for (size_t i = n; i-- > 0;) {
        if (!p[i].registered || strcmp(p[i].name, driver) != 0)
            continue;
        if (p[i].reachable)
            return &p[i];
        if (!last)
            last = &p[i];
    }
    return last;
}
