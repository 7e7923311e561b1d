/* Fuzz `dra-select lint` (select/lint.c) and the device gather with the
 * shared pool rule (select/devices.c): any bytes, read as YAML/JSON, loaded
 * into a model, its devices gathered and every class and claim selector and
 * capacity request linted against them with the real CEL engine.  Nothing
 * may crash or leak; every problem must format. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/stream.h"
#include "model/features.h"
#include "model/load.h"
#include "select/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data, size);
    if (!e) {
        dra_load_opts opts = {0};
        opts.skip_unknown = true;
        opts.now = 1700000000;
        dra_model m = DRA_MODEL_INIT;
        e = dra_load(&set, &opts, &m);
        dra_features f;
        dra_features_default(&f);
        dra_sel_devices devs = {0};
        if (!e)
            e = dra_sel_gather(&m, &f, &devs);
        if (!e)
            e = dra_sel_lint(&m, &devs, &f);
        for (dra_err *i = e; i; i = i->next) {
            char *line = dra_err_format(i);
            free(line);
        }
        dra_sel_devices_free(&devs);
        dra_model_free(&m);
    }
    dra_err_free(e);
    dra_objset_free(&set);
    return 0;
}
