/* Fuzz the CDI spec checker (strict decoding of a spec document with field
 * paths) and the device name parser: never a crash, every error has a
 * message, and a name that passes has the vendor/class=name shape. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "kubelet/cdi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz.yaml", (const char *)data, size);
    dra_err_free(e);
    for (size_t i = 0; i < set.n; i++) {
        e = dra_cdi_check_spec(set.v[i].json);
        for (dra_err *x = e; x; x = x->next)
            if (!x->msg || !*x->msg)
                abort();
        dra_err_free(e);
    }
    dra_objset_free(&set);

    char *id = strndup((const char *)data, size);
    if (id && strlen(id) == size) {
        e = dra_cdi_check_name(id);
        if (!e) {
            char *eq = strchr(id, '='), *slash = strchr(id, '/');
            if (!eq || !slash || slash > eq || slash == id || eq == slash + 1 || !eq[1])
                abort();
        }
        dra_err_free(e);
    }
    free(id);
    return 0;
}
