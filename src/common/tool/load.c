/* Reading the input and keeping what a command uses; see dra_tool_load in
 * tool.h. */
#include "tool.h"

#include <stdint.h>

#include "../model/kinds.h"

typedef struct loading {
    const dra_tool_uses *uses;
    dra_objset *set;
    dra_loader *loader;
    dra_errs errs;  /* of the objects: folding, a flood is counted */
    size_t dropped; /* objects of known kinds the command does not read */
    size_t others;  /* objects outside the model kept (the loader counted them skipped) */
} loading;

static bool reads(const dra_tool_uses *u, dra_kind k)
{
    return k < 32 && (u->kinds & (UINT32_C(1) << k)) != 0;
}

/* One object as it is read: checked, then kept or dropped. */
static dra_err *use_one(void *ctx, dra_obj *o)
{
    loading *l = ctx;
    dra_kind kind = DRA_KIND_UNKNOWN;
    bool passed = false;
    if (l->uses->as_read) { /* kept unchecked: the command's own load checks it */
        dra_apiver ver;
        dra_err *ke = dra_kind_of(o->json, &kind, &ver);
        bool read = !ke && reads(l->uses, kind);
        dra_err_free(ke);
        if (read) {
            dra_objset_keep(l->set, o);
            return NULL;
        }
    }
    dra_err *e = dra_loader_add(l->loader, o, &kind, &passed); /* converts o in place, as dra_load would */
    if (e) {
        dra_errs_add(&l->errs, e);
        return NULL;
    }
    if (l->uses->as_read && !(!passed && kind == DRA_KIND_UNKNOWN && l->uses->other && l->uses->other(o->json))) {
        l->dropped += passed;
        return NULL;
    }
    if (passed && reads(l->uses, kind)) {
        if (kind == DRA_KIND_RESOURCE_SLICE && l->uses->slice)
            l->uses->slice(l->uses->ctx, o->json);
        else if (kind == DRA_KIND_RESOURCE_CLAIM && l->uses->claim)
            l->uses->claim(l->uses->ctx, o->json);
        else if (kind == DRA_KIND_POD && l->uses->pod)
            l->uses->pod(l->uses->ctx, o->json);
        else if (!l->uses->take || !l->uses->take(l->uses->ctx, kind, o))
            dra_objset_keep(l->set, o);
    } else if (!passed && kind == DRA_KIND_UNKNOWN && l->uses->other && l->uses->other(o->json)) {
        dra_objset_keep(l->set, o);
        l->others++;
    } else if (passed) {
        l->dropped++;
    }
    return NULL;
}

dra_err *dra_tool_load(const dra_tool *tool, const dra_args *a, char *const *paths, size_t n, int flags,
                       const dra_tool_uses *uses, const dra_load_opts *lo, dra_objset *set, dra_model *model)
{
    dra_err *e = dra_tool_input_options(set, a); /* the loader needs --validate */
    if (e)
        return e;
    loading l = {uses, set, dra_loader_new(lo, set->field_validation), DRA_ERRS_INIT, 0, 0};
    l.errs.fold = DRA_ERRS_FOLD;
    /* the command's own objects first, checked like the input's */
    size_t made = uses->as_read ? 0 : set->n;
    for (size_t i = 0; i < made; i++) {
        dra_kind kind;
        bool passed;
        dra_errs_add(&l.errs, dra_loader_add(l.loader, &set->v[i], &kind, &passed));
    }
    e = dra_tool_read_each(tool, a, paths, n, flags, set, use_one, &l);
    dra_model stats = DRA_MODEL_INIT;
    e = dra_loader_end(l.loader, e, dra_errs_take(&l.errs), &stats);
    if (!e && uses->read_done)
        uses->read_done(uses->ctx, set);
    if (!e && !uses->as_read) {
        dra_load_opts checked = *lo;
        checked.checked = true; /* and converted: this pass defaults and indexes */
        e = dra_load(set, &checked, model);
    }
    model->skipped = stats.skipped - l.others + l.dropped;
    model->collapsed += stats.collapsed;
    model->forbidden |= stats.forbidden;
    model->warnings = dra_err_append(model->warnings, stats.warnings);
    return e;
}
