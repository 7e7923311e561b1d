/* Fuzz the CEL pipeline: parse + check + evaluate arbitrary expressions in
 * the Kubernetes environment with a DRA-like device and small limits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/dra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    static cel_env *env;
    static cel_dra_device *dev;
    if (!env) {
        cel_dra_options o = {.consumable_capacity = true};
        env = cel_dra_env_new(&o);
        json_t *j = json_loads("{\"attributes\": {\"model\": {\"string\": \"a100\"}, \"n\": {\"int\": 3},"
                               " \"v\": {\"version\": \"1.2.3\"}, \"x.io/b\": {\"bool\": true}},"
                               " \"capacity\": {\"mem\": {\"value\": \"8Gi\"}}}", 0, NULL);
        dev = cel_dra_device_new(j, "gpu.example.com");
        json_decref(j);
    }
    cel_program *p = NULL;
    dra_err *e = cel_compile(env, (const char *)data, size, NULL, &p);
    if (e) {
        dra_err_free(e);
        return 0;
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
    return 0;
}
