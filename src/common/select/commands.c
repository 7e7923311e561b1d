/* What the dra-select subcommands compute.  See commands.h. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

#include "../cel/dra.h"

dra_err *dra_sel_check(char *const *exprs, size_t n, const dra_features *f, dra_buf *out)
{
    /* As the API server validates a new selector (NewExpressions). */
    cel_dra_options o = {.new_expressions = true,
                         .consumable_capacity = dra_feature_enabled(f, DRA_FEATURE_CONSUMABLE_CAPACITY),
                         .list_type_attributes = dra_feature_enabled(f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = dra_features_release_of(f)};
    cel_env *env = cel_dra_env_new(&o);
    dra_err *e = NULL;
    for (size_t i = 0; i < n; i++) {
        char *label = n > 1 ? dra_xasprintf("#%zu: ", i) : dra_xstrdup("");
        cel_program *p = NULL;
        dra_err *ce = cel_dra_compile(env, exprs[i], strlen(exprs[i]), &p);
        if (ce) {
            e = dra_err_append(e, dra_err_new(DRA_EXIT_INPUT, "%s%s", label, ce->msg));
            dra_err_free(ce);
            free(label);
            continue;
        }
        uint64_t lo, hi;
        cel_program_estimated_cost(p, &lo, &hi);
        dra_buf_printf(out, "%stype %s, estimated cost %llu..%llu\n", label, cel_program_result_type_str(p),
                       (unsigned long long)lo, (unsigned long long)hi);
        if (hi > CEL_DRA_MAX_COST)
            e = dra_err_append(e, dra_err_new(DRA_EXIT_INPUT, "%stoo complex, exceeds cost limit (%llu > %d)", label,
                                              (unsigned long long)hi, CEL_DRA_MAX_COST));
        free(label);
        cel_program_free(p);
    }
    cel_env_free(env);
    return e;
}

dra_err *dra_sel_eval_expr(const char *expr, const dra_sel_devices *devs, const char *device, const char *const *vars,
                           size_t nvars, const dra_features *f, dra_buf *out)
{
    dra_sel_eval ev;
    dra_sel_eval_init(&ev, f);
    dra_err *e = NULL;
    if (device) {
        const dra_sel_device *d = dra_sel_find(devs, device);
        if (!d)
            e = dra_err_param(
                dra_err_new(DRA_EXIT_INPUT, "no device %s in the input (want DRIVER/POOL/DEVICE)", device), "device");
        dra_sel_eval_set_device(&ev, d);
    }
    for (size_t i = 0; i < nvars && !e; i++)
        e = dra_sel_eval_add_var(&ev, vars[i]);
    cel_program *prog = NULL;
    if (!e)
        e = dra_sel_eval_compile(&ev, expr, &prog);
    if (!e) {
        cel_value v = dra_sel_eval_run(&ev, prog, NULL);
        if (v.kind == CEL_ERROR) {
            e = dra_err_new(DRA_EXIT_INPUT, "%s%s", v.v.err, cel_dra_runtime_hint(ev.release, v.v.err));
        } else {
            char *s = cel_value_to_string(&v);
            dra_buf_printf(out, "%s\n", s);
            free(s);
        }
    }
    cel_program_free(prog);
    dra_sel_eval_free(&ev);
    return e;
}

void dra_sel_note(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v, dra_sel_note_mode mode,
                  dra_buf *b)
{
    if (mode == DRA_SEL_NOTE_JSON) {
        json_t *j = dra_sel_explain_json(s, d, v);
        char *t = json_dumps(j, JSON_COMPACT);
        dra_buf_puts(b, t ? t : "");
        free(t);
        json_decref(j);
    } else if (mode == DRA_SEL_NOTE_TEXT) {
        dra_sel_explain_text(s, d, v, b);
    } else if (v->error) {
        char *t = dra_sel_runtime_error_text(s, d, v);
        dra_buf_puts(b, t);
        free(t);
    }
}

size_t dra_sel_select(dra_selection *s, const dra_sel_devices *devs, dra_sel_note_mode mode, const char *error_prefix,
                      const dra_sel_device ***matched, size_t *failed, dra_buf *notes)
{
    size_t n = 0;
    *matched = dra_xcalloc(devs->n ? devs->n : 1, sizeof **matched);
    *failed = 0;
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < devs->n; i++) {
        const dra_sel_device *d = &devs->v[i];
        dra_sel_verdict v;
        bool kept = d->cel_cache != NULL;
        dra_selection_match(s, d, &v);
        if (!kept)
            dra_sel_device_release(d); /* one pass: no need to keep the conversion */
        if (v.matched) {
            (*matched)[n++] = d;
        } else {
            *failed += v.error != NULL;
            dra_buf_reset(&b);
            dra_sel_note(s, d, &v, mode, &b);
            if (b.len)
                dra_buf_printf(notes, "%s%s\n", mode == DRA_SEL_NOTE_ERRORS ? error_prefix : "", dra_buf_str(&b));
        }
        dra_sel_verdict_clear(&v);
    }
    dra_buf_free(&b);
    return n;
}

dra_err *dra_sel_add_claim(dra_selection *s, const dra_model *m, const char *claim, const char *ns, const char *request)
{
    char *full = strchr(claim, '/') ? dra_xstrdup(claim) : dra_xasprintf("%s/%s", ns ? ns : "default", claim);
    dra_err *e = dra_selection_add_request(s, m, full, request);
    free(full);
    return e;
}
