/* Fuzz the object-stream reader and the YAML writer on whatever it accepts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data, size);
    if (!e) {
        for (size_t i = 0; i < set.n; i++) {
            char *y = dra_yaml_dump(set.v[i].json);
            dra_objset again = DRA_OBJSET_INIT;
            dra_err *e2 = dra_read_mem(&again, "again", y, strlen(y));
            /* what we write must read back to the same value */
            if (!e2 && (again.n != 1 || !json_equal(again.v[0].json, set.v[i].json)))
                abort();
            dra_err_free(e2);
            dra_objset_free(&again);
            free(y);
        }
    }
    dra_err_free(e);
    dra_objset_free(&set);
    return 0;
}
