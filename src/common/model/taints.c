/* Toleration and taint-rule matching; see taints.h. */
#include "taints.h"

#include <string.h>

static const char *nz(const char *s)
{
    return s ? s : "";
}

bool dra_tolerates(const dra_toleration_ref *tol, const dra_taint_ref *taint)
{
    const char *te = nz(tol->effect), *tk = nz(tol->key), *op = nz(tol->op);
    if (*te && strcmp(te, nz(taint->effect)) != 0)
        return false;
    if (*tk && strcmp(tk, nz(taint->key)) != 0)
        return false;
    if (!*op || strcmp(op, "Equal") == 0)
        return strcmp(nz(tol->value), nz(taint->value)) == 0;
    return strcmp(op, "Exists") == 0;
}

bool dra_taint_selector_matches(const char *sel_driver, const char *sel_pool, const char *sel_device,
                                const char *driver, const char *pool, const char *device)
{
    return !((sel_driver && strcmp(sel_driver, nz(driver)) != 0) || (sel_pool && strcmp(sel_pool, nz(pool)) != 0) ||
             (sel_device && strcmp(sel_device, nz(device)) != 0));
}
