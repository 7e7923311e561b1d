/* Fuzz the readers of nvidia-smi's output: the text tables (mig -lgip,
 * -lgipp, -lgi, -L, --query-gpu CSV) and the whole nvidia source, where the
 * input answers every command (the XML reader and the assembly of devices).
 * Nothing may crash or leak; an error is a runtime error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slice/discover.h"
#include "slice/nvidia.h"

static dra_err *answer(void *ctx, const char *const *args, dra_buf *out)
{
    (void)args;
    const dra_buf *in = ctx;
    dra_buf_append(out, in->data, in->len);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    size_t n;
    dra_mig_profile *p;
    dra_err_free(dra_nvidia_parse_lgip(s, size, "lgip", &p, &n));
    free(p);
    dra_mig_placement *pl;
    dra_err_free(dra_nvidia_parse_lgipp(s, size, "lgipp", &pl, &n));
    free(pl);
    dra_mig_instance *gi;
    dra_err_free(dra_nvidia_parse_lgi(s, size, "lgi", &gi, &n));
    free(gi);
    dra_mig_listed *l;
    dra_err_free(dra_nvidia_parse_list(s, size, "list", &l, &n));
    free(l);
    dra_gpu_query *q;
    dra_err_free(dra_nvidia_parse_query(s, size, "query", &q, &n));
    free(q);

    dra_buf in = DRA_BUF_INIT;
    dra_buf_append(&in, data, size);
    for (int dynamic = 0; dynamic < 2; dynamic++) {
        dra_nvidia_opts o = {"nvidia-smi", NULL, dynamic, answer, &in};
        json_t *devs = json_array(), *sets = json_array();
        dra_err *e = dra_discover_nvidia(&o, devs, sets);
        if (e && e->code != DRA_EXIT_RUNTIME)
            abort();
        dra_err_free(e);
        json_decref(devs);
        json_decref(sets);
    }
    dra_buf_free(&in);
    return 0;
}
