/* Fuzz the lazy device conversion (cel/dra.c scan, cel/dra_plan.c reads):
 * input is a device as JSON, a newline, and a selector.  A compiled
 * selector on a freshly built device must answer exactly as on the same
 * device converted in full first, read again or not, and as the general
 * evaluator does. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/dra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *answer(cel_program *p, const cel_dra_device *d)
{
    bool m = false;
    dra_err *e = cel_dra_match(p, d, &m);
    char *s = strdup(e ? e->msg : m ? "true" : "false");
    dra_err_free(e);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    static cel_env *env;
    if (!env)
        env = cel_dra_env_new(NULL);
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl)
        return 0;
    json_t *dev = json_loadb((const char *)data, (size_t)(nl - data), JSON_ALLOW_NUL, NULL);
    if (!dev)
        return 0;
    const char *expr = (const char *)nl + 1;
    size_t elen = size - (size_t)(nl + 1 - data);
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(env, expr, elen, &p);
    if (e) {
        dra_err_free(e);
        json_decref(dev);
        return 0;
    }
    uint64_t min = 0, max = UINT64_MAX;
    cel_program_estimated_cost(p, &min, &max);
    cel_dra_device *lazy = cel_dra_device_new(dev, "gpu.example.com");
    cel_dra_device *full = cel_dra_device_new(dev, "gpu.example.com");
    cel_value fv = cel_dra_device_value(full);
    char *a = answer(p, lazy), *b = answer(p, full);
    if (strcmp(a, b) != 0) {
        fprintf(stderr, "lazy: %s\nfull: %s\n", a, b);
        abort();
    }
    /* read again, as a device matched against many selectors is (a device
     * of many attributes then finds them by its index of ids) */
    for (int i = 0; i < 4; i++) {
        char *again = answer(p, lazy);
        if (strcmp(a, again) != 0) {
            fprintf(stderr, "lazy: %s\nlazy read again: %s\n", a, again);
            abort();
        }
        free(again);
    }
    /* within the cost limit the evaluator gives the same answer */
    if (max <= CEL_DRA_MAX_COST && !cel_dra_device_error_in(p, full)) {
        cel_activation act = CEL_ACTIVATION_INIT;
        cel_activation_bind(&act, "device", fv);
        cel_value g = cel_eval(p, &act, NULL);
        bool same = g.kind == CEL_BOOL    ? !strcmp(a, g.v.b ? "true" : "false")
                    : g.kind == CEL_ERROR ? !strcmp(a, g.v.err)
                                          : !strncmp(a, "CEL result of type ", 19);
        if (!same) {
            fprintf(stderr, "plan: %s\n", a);
            abort();
        }
    }
    free(a);
    free(b);
    cel_dra_device_free(lazy);
    cel_dra_device_free(full);
    cel_program_free(p);
    json_decref(dev);
    return 0;
}
