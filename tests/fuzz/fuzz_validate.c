/* Fuzz the read -> kind -> convert -> default -> validate -> index pipeline.
 * Input: any bytes, read as YAML/JSON by dra_read_mem.  The input's length
 * picks the release (1.36, 1.37, 1.38) and the feature gates: its defaults,
 * every gate on (alpha fields validated), or every unlocked gate off (their
 * fields dropped first). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/stream.h"
#include "model/features.h"
#include "model/load.h"

/* A CEL stand-in that exercises both hook outcomes. */
static dra_err *fake_cel(void *ctx, const char *expr, size_t len, uint64_t *cost)
{
    (void)ctx;
    if (len > 0 && expr[0] == '!')
        return dra_err_new(DRA_EXIT_INPUT, "compilation failed");
    *cost = len * 1000;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data, size);
    if (!e) {
        dra_load_opts opts = {0};
        opts.skip_unknown = size & 1;
        dra_features gates;
        dra_features_release(&gates, (dra_release)(DRA_RELEASE_OLDEST + (int)((size >> 3) % 3)));
        for (int i = 0; i < DRA_FEATURE_COUNT && (size >> 1) % 3; i++) {
            const dra_gate_spec *g = dra_gate_spec_at(gates.release, (dra_feature)i);
            if (g->known && !g->locked)
                gates.on[i] = (size >> 1) % 3 == 1;
        }
        opts.validate.features = &gates;
        opts.now = 1700000000;
        opts.validate.cel = fake_cel;
        dra_model m = DRA_MODEL_INIT;
        e = dra_load(&set, &opts, &m);
        for (dra_err *i = e; i; i = i->next) {
            char *line = dra_err_format(i);
            free(line);
        }
        (void)dra_model_class(&m, "gpu.example.com");
        (void)dra_model_claim(&m, "default", "c");
        dra_model_free(&m);
    }
    dra_err_free(e);
    dra_objset_free(&set);
    return 0;
}
