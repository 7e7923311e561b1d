/* Fuzz the CEL pipeline: parse + check + evaluate arbitrary expressions in
 * the Kubernetes environment with a DRA-like device and small limits, in
 * the default release's environment and in 1.38's (cel-go v0.33). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/dra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cel_dra_device *devs[3], *dev;

static void run(cel_env *env, const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    static cel_env *env, *env138;
    if (!env) {
        cel_dra_options o = {.consumable_capacity = true};
        env = cel_dra_env_new(&o);
        o.release = DRA_RELEASE_1_38;
        env138 = cel_dra_env_new(&o);
        /* The same names with other types on the second device and none on
         * the third: the plan's typed steps must fall back exactly. */
        static const char *const docs[3] = {
            "{\"attributes\": {\"model\": {\"string\": \"a100\"}, \"n\": {\"int\": 3},"
            " \"v\": {\"version\": \"1.2.3\"}, \"x.io/b\": {\"bool\": true}},"
            " \"capacity\": {\"mem\": {\"value\": \"8Gi\"}, \"x.io/c\": {\"value\": \"1500m\"}}}",
            "{\"attributes\": {\"model\": {\"int\": 7}, \"n\": {\"string\": \"3\"},"
            " \"v\": {\"string\": \"1.2.3\"}, \"x.io/b\": {\"version\": \"2.0.0-rc.1\"},"
            " \"x.io/n\": {\"ints\": [1, 2]}}, \"capacity\": {\"mem\": {\"value\": \"-1\"}}}",
            "{\"allowMultipleAllocations\": true}",
        };
        for (int i = 0; i < 3; i++) {
            json_t *j = json_loads(docs[i], 0, NULL);
            devs[i] = cel_dra_device_new(j, i == 2 ? "x.io" : "gpu.example.com");
            json_decref(j);
        }
        dev = devs[0];
    }
    run(env, data, size);
    run(env138, data, size);
    return 0;
}

static void run(cel_env *env, const uint8_t *data, size_t size)
{
    cel_program *p = NULL;
    dra_err *e = cel_compile(env, (const char *)data, size, NULL, &p);
    if (e) {
        dra_err_free(e);
        return;
    }
    cel_activation act = CEL_ACTIVATION_INIT;
    cel_activation_bind(&act, "device", cel_dra_device_value(dev));
    cel_eval_options eo = {.cost_limit = 20000};
    cel_value v = cel_eval(p, &act, &eo);
    char *s = cel_value_to_string(&v);
    free(s);
    bool m;
    e = cel_dra_match(p, dev, &m);
    dra_err_free(e);
    cel_program_free(p);

    /* A DRA-compiled selector runs through a compiled plan when its cost
     * estimate is within the limit: the plan must agree with the evaluator. */
    e = cel_dra_compile(env, (const char *)data, size, &p);
    if (e) {
        dra_err_free(e);
        return;
    }
    uint64_t min = 0, max = UINT64_MAX;
    cel_program_estimated_cost(p, &min, &max);
    for (int i = 0; i < 3 && max <= CEL_DRA_MAX_COST; i++) {
        e = cel_dra_match(p, devs[i], &m);
        char *plan_out = strdup(e ? e->msg : m ? "true" : "false");
        dra_err_free(e);
        cel_activation_bind(&act, "device", cel_dra_device_value(devs[i]));
        cel_value g = cel_eval(p, &act, NULL);
        bool same;
        if (g.kind == CEL_BOOL)
            same = !strcmp(plan_out, g.v.b ? "true" : "false");
        else if (g.kind == CEL_ERROR)
            same = !strcmp(plan_out, g.v.err);
        else
            same = !strncmp(plan_out, "CEL result of type ", 19);
        if (!same)
            abort();
        free(plan_out);
    }
    cel_program_free(p);
}
