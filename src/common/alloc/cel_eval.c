/* The real CEL engine behind dra_selector_eval (src/common/cel/dra.h): one
 * DRA environment per evaluator, one converted device per device (kept in
 * the engine's per-device cache slot, built when a selector first needs it,
 * from its tree or a packed device's text, through the evaluator's scratch
 * arena). */
#include <stdlib.h>
#include <string.h>

#include "../cel/dra.h"
#include "internal.h"

typedef struct cel_ctx {
    cel_env *env;
    dra_release release;
    dra_arena scratch;   /* for converting devices (cel_dra_device_build) */
    cel_dra_convert how; /* the release's device conversion */
    cel_dra_reuse reuse; /* a freed device's block for the next (cel_dra_device_drop) */
} cel_ctx;

static dra_err *c_compile(void *ctx, const char *expr, size_t len, void **prog)
{
    cel_ctx *c = ctx;
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile(c->env, expr, len, &p);
    if (e) {
        /* One message for the whole chain, as cel-go's issues print. */
        dra_buf b = DRA_BUF_INIT;
        for (dra_err *x = e; x; x = x->next) {
            if (x != e)
                dra_buf_putc(&b, '\n');
            dra_buf_append(&b, x->msg, dra_err_msg_len(x));
        }
        dra_err *w = dra_err_newn(DRA_EXIT_INPUT, dra_buf_str(&b), b.len);
        dra_buf_free(&b);
        dra_err_free(e);
        return w;
    }
    *prog = p;
    return NULL;
}

/* prog on the device cache holds. */
static dra_err *cached_match(cel_ctx *c, void *prog, void *cache, bool *matched)
{
    dra_err *e = cel_dra_match(prog, cache, matched);
    if (e) {
        /* upstream cel.EnhanceRuntimeError */
        dra_err *w = dra_err_new(DRA_EXIT_INPUT, "%s%s", e->msg, cel_dra_runtime_hint(c->release, e->msg));
        dra_err_free(e);
        return w;
    }
    return NULL;
}

static dra_err *c_match(void *ctx, void *prog, const char *driver, const json_t *device, const dra_features *f,
                        void **cache, bool *matched)
{
    cel_ctx *c = ctx;
    if (!*cache)
        *cache = cel_dra_device_build_as(device, driver, &c->scratch, &c->how);
    return cached_match(c, prog, *cache, matched);
}

/* A packed device: built from its text and the facts its slice holds with
 * it, no tree (cel_dra_device_build_packed). */
static dra_err *c_match_text(void *ctx, void *prog, const char *driver, const char *text, size_t len,
                             const dra_features *f, void **cache, bool *matched)
{
    cel_ctx *c = ctx;
    if (!*cache)
        *cache = cel_dra_device_build_packed(text, len, driver, &c->scratch, &c->how, &c->reuse);
    return cached_match(c, prog, *cache, matched);
}

static dra_err *c_compile_value(void *ctx, const char *expr, size_t len, void **prog)
{
    cel_ctx *c = ctx;
    cel_program *p = NULL;
    dra_err *e = cel_dra_compile_value(c->env, expr, len, &p);
    if (e)
        return e;
    *prog = p;
    return NULL;
}

static dra_err *c_derive(void *ctx, void *prog, const char *driver, const json_t *device, void **cache, json_t **attr)
{
    cel_ctx *c = ctx;
    if (!*cache)
        *cache = cel_dra_device_build_as(device, driver, &c->scratch, &c->how);
    /* without the selectors' hint: upstream's lookupAttribute passes
     * EvaluateDerivedAttribute's error on as it is */
    return cel_dra_eval_attribute(prog, *cache, attr);
}

static void c_free_prog(void *ctx, void *prog)
{
    cel_program_free(prog);
}

static void c_free_device(void *ctx, void *dev)
{
    cel_dra_device_drop(dev, &((cel_ctx *)ctx)->reuse);
}

dra_selector_eval dra_cel_selector_eval_new(const dra_features *features)
{
    cel_ctx *c = dra_xcalloc(1, sizeof *c);
    /* The allocator compiles in the StoredExpressions environment, which
     * ignores the gates and keeps the newest declaration of the device type:
     * allowMultipleAllocations is declared even with DRAConsumableCapacity
     * off (k8s.io/dynamic-resource-allocation/cel: Cache.GetOrCompile,
     * compile.go's versioned device types). */
    cel_dra_options o = {.consumable_capacity = true,
                         .list_type_attributes = dra_feature_enabled(features, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = dra_features_release_of(features)};
    c->env = cel_dra_env_new(&o);
    c->release = o.release;
    c->how = cel_dra_convert_of(&o);
    return (dra_selector_eval){.ctx = c,
                               .compile = c_compile,
                               .match = c_match,
                               .free_prog = c_free_prog,
                               .free_device_cache = c_free_device,
                               .compile_value = c_compile_value,
                               .derive = c_derive,
                               .match_text = c_match_text};
}

void dra_cel_selector_eval_free(dra_selector_eval *ev)
{
    cel_ctx *c = ev->ctx;
    if (!c)
        return;
    cel_env_free(c->env);
    dra_arena_free(&c->scratch);
    cel_dra_reuse_free(&c->reuse);
    free(c);
    ev->ctx = NULL;
}
