/* The example driver's checkpoint: which claims it prepared, with which
 * devices, and which CDI spec files it wrote for each (see example.h).
 *
 * A claim is found by UID, as upstream's driver keys its checkpoint
 * (kubernetes-sigs/dra-example-driver cmd/dra-example-kubeletplugin:
 * checkpoint.json in the plugin directory, PreparedClaims by claim UID;
 * Unprepare of a claim it does not hold succeeds and removes nothing).
 * An entry without CDISpecFiles, or a claim prepared by a driver that kept
 * no checkpoint, names no files: nothing is guessed from file names, so a
 * claim "a" can never take claim "a-b"'s spec with it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "example.h"

dra_err *ex_state_open(ex_driver *d, const char *plugin_dir)
{
    d->checkpoint = dra_xasprintf("%s/checkpoint.json", plugin_dir);
    if (d->cdi_dir[0] != '/') {
        char *abs = realpath(d->cdi_dir, NULL);
        if (!abs)
            return dra_err_new(DRA_EXIT_RUNTIME, "--cdi-dir %s: %s", d->cdi_dir, strerror(errno));
        d->cdi_abs = abs;
        d->cdi_dir = abs;
    }
    dra_ckpt_file *f = NULL;
    dra_err *e = dra_ckpt_open(d->checkpoint, &f);
    dra_ckpt_close(f);
    return e;
}

void ex_state_free(ex_driver *d)
{
    free(d->checkpoint);
    free(d->cdi_abs);
    d->checkpoint = d->cdi_abs = NULL;
}

const char *ex_state_record(const ex_driver *d, dra_checkpoint *cp, const dra_claim_ref *c, const dra_prep_device *dv,
                            size_t n, char *const *files, size_t n_files, dra_arena *a)
{
    dra_ckpt_claim *e = dra_ckpt_find_uid(cp, c->uid);
    if (!e) {
        /* the checkpoint holds one claim per namespace/name, as the kubelet does
         * (pkg/kubelet/cm/dra/manager.go prepareResources) */
        const dra_ckpt_claim *old = dra_ckpt_find(cp, c->namespace_, c->name);
        if (old)
            return dra_arena_printf(a, "old ResourceClaim with same name %s and different UID %s still exists", c->name,
                                    old->uid);
        e = dra_ckpt_add(cp, c->namespace_, c->name, c->uid);
    }
    /* a prepare again keeps the files recorded before: all are removed at unprepare */
    dra_ckpt_driver *dr = dra_ckpt_set_devices(cp, e, d->name, dv, n);
    for (size_t i = 0; i < n_files; i++)
        dra_ckpt_driver_add_file(cp, dr, files[i]);
    return NULL;
}

const char *ex_state_forget(const ex_driver *d, dra_checkpoint *cp, const dra_claim_ref *c, dra_arena *a, bool *changed)
{
    dra_ckpt_claim *e;
    while ((e = dra_ckpt_find_uid(cp, c->uid))) {
        for (size_t i = 0; i < e->n_drivers; i++) {
            const dra_ckpt_driver *dr = &e->drivers[i];
            if (strcmp(dr->name, d->name) != 0)
                continue;
            for (size_t j = 0; j < dr->n_spec_files; j++)
                if (unlink(dr->spec_files[j]) != 0 && errno != ENOENT)
                    return dra_arena_printf(a, "unprepare claim %s/%s: remove %s: %s", c->namespace_, c->name,
                                            dr->spec_files[j], strerror(errno));
        }
        dra_ckpt_remove(cp, e);
        *changed = true;
    }
    return NULL;
}

dra_err *ex_mkdirs(const char *dir)
{
    char *p = dra_xstrdup(dir);
    dra_err *e = NULL;
    for (char *s = p + 1; !e; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            e = dra_err_new(DRA_EXIT_RUNTIME, "mkdir %s: %s", p, strerror(errno));
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return e;
}
