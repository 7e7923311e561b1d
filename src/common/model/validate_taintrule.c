/* DeviceTaintRule validation (validation.go: validateDeviceTaintRuleSpec,
 * ValidateDeviceTaintRuleStatusUpdate's condition limit). */
#include "validate_common.h"

dra_err *dra_validate_device_taint_rule(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, false, false);
    const json_t *spec = NULL;
    dra_vobj(&v, obj, "spec", &spec);
    V_CHILD(&v, "spec")
    {
        const json_t *sel;
        if (dra_vobj(&v, spec, "deviceSelector", &sel)) {
            V_CHILD(&v, "deviceSelector")
            {
                const char *s;
                size_t len;
                if (dra_vstr(&v, sel, "driver", &s, &len))
                    V_CHILD(&v, "driver") dra_vcheck(&v, dra_check_driver_name, s, len);
                if (dra_vstr(&v, sel, "pool", &s, &len))
                    V_CHILD(&v, "pool") dra_vcheck(&v, dra_check_pool_name, s, len);
                if (dra_vstr(&v, sel, "device", &s, &len))
                    V_CHILD(&v, "device") dra_vcheck(&v, dra_check_dns1123_label, s, len);
            }
        }
        const json_t *taint = dra_vget(spec, "taint");
        json_t *empty = NULL;
        if (!taint)
            taint = empty = json_object(); /* a zero taint: key and effect are reported missing */
        V_CHILD(&v, "taint") dra_v_taint(&v, taint);
        json_decref(empty);
    }
    const json_t *status;
    if (dra_vobj(&v, obj, "status", &status))
        V_CHILD(&v, "status") dra_v_conditions(&v, status, "conditions", DRA_TAINT_RULE_MAX_CONDITIONS);
    return dra_vctx_finish(&v);
}
