/* Finding drivers (see locate.h). */
#include "kubelet/locate.h"

#include <string.h>
#include <sys/stat.h>

dra_err *dra_locator_resolve(void *ctx, const char *driver, dra_driver_loc *out)
{
    dra_locator *l = ctx;
    if (l->socket) {
        out->socket = l->socket;
        out->service = "v1.DRAPlugin";
        return NULL;
    }
    if (l->registry_dir) {
        if (!l->scanned) {
            l->scanned = true;
            dra_reg_opts o = {.timeout_ms = l->timeout_ms, .notify = false};
            dra_err *e = dra_registry_scan(l->registry_dir, &o, &l->a, &l->plugins, &l->n);
            if (e) {
                l->scan_err = dra_arena_strdup(&l->a, e->msg);
                dra_err_free(e);
            }
        }
        if (l->scan_err)
            return dra_err_new(DRA_EXIT_RUNTIME, "%s", l->scan_err);
        const dra_reg_plugin *p = dra_registry_lookup(l->plugins, l->n, driver);
        if (p && p->registered && p->service) {
            out->socket = p->endpoint;
            out->service = p->service;
            return NULL;
        }
    }
    if (l->plugins_dir) {
        char *path = dra_arena_printf(&l->a, "%s/%s/dra.sock", l->plugins_dir, driver);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
            out->socket = path;
            out->service = "v1.DRAPlugin";
            return NULL;
        }
    }
    return dra_kubelet_not_registered(driver);
}

void dra_locator_free(dra_locator *l)
{
    if (l)
        dra_arena_free(&l->a);
}
