/* One pod's claims on one node from a loaded input.  See node.h. */
#include "node.h"

#include <stdlib.h>
#include <string.h>

#include "../model/kinds.h"

typedef struct list {
    json_t **v;
    size_t n;
} list;

static void push(list *l, json_t *j)
{
    l->v = dra_xgrow(l->v, l->n, sizeof *l->v);
    l->v[l->n++] = j;
}

static list of_kind(const dra_model *m, dra_kind k)
{
    list l = {0};
    const dra_model_list *ml = dra_model_kind(m, k);
    for (size_t i = 0; i < ml->n; i++)
        push(&l, ml->v[i]->json);
    return l;
}

static dra_err *world_of(const dra_model *m, bool claims, const dra_slice_packs *packs, const dra_features *features,
                         dra_selector_eval *eval, dra_alloc_world **world, json_t ***pending, size_t *npending)
{
    list classes = of_kind(m, DRA_KIND_DEVICE_CLASS), slices = of_kind(m, DRA_KIND_RESOURCE_SLICE),
         rules = of_kind(m, DRA_KIND_DEVICE_TAINT_RULE), in_use = {0}, rest = {0};
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_RESOURCE_CLAIM);
    for (size_t i = 0; claims && i < l->n; i++) {
        json_t *c = l->v[i]->json;
        const json_t *st = json_object_get(c, "status");
        const json_t *al = st ? json_object_get(st, "allocation") : NULL;
        if (al && !json_is_null(al))
            push(&in_use, c);
        else if (pending)
            push(&rest, c);
    }
    if (pending) {
        *pending = rest.v;
        *npending = rest.n;
    }
    dra_alloc_world_input in = {classes.v, classes.n, slices.v, slices.n, rules.v, rules.n,
                                in_use.v,  in_use.n,  features, eval,     packs,   0};
    dra_err *e = dra_alloc_world_new(&in, world);
    free(classes.v);
    free(slices.v);
    free(rules.v);
    free(in_use.v);
    return e;
}

dra_err *dra_alloc_world_of_model(const dra_model *m, const dra_slice_packs *packs, const dra_features *features,
                                  dra_selector_eval *eval, dra_alloc_world **world, json_t ***pending, size_t *npending)
{
    return world_of(m, true, packs, features, eval, world, pending, npending);
}

dra_err *dra_alloc_world_of_fleet(const dra_model *m, const dra_slice_packs *packs, const dra_features *features,
                                  dra_selector_eval *eval, dra_alloc_world **world)
{
    return world_of(m, false, packs, features, eval, world, NULL, NULL);
}

json_t *dra_alloc_bare_node(const char *name)
{
    return json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Node", "metadata", "name", name);
}

dra_err *dra_alloc_node(const dra_model *m, const dra_slice_packs *packs, const char *node_name,
                        const dra_features *features, const dra_alloc_opts *opts, dra_alloc_node_run *out)
{
    *out = (dra_alloc_node_run){0};
    out->eval = dra_cel_selector_eval_new(features);
    dra_err *e = dra_alloc_world_of_model(m, packs, features, &out->eval, &out->world, &out->pending, &out->npending);
    json_t **pending_v = out->pending;
    size_t pending_n = out->npending;
    if (!e && pending_n) {
        const dra_obj *o = dra_model_node(m, node_name);
        const json_t *node = o ? o->json : NULL;
        bool named = node != NULL;
        const dra_model_list *sl = dra_model_kind(m, DRA_KIND_RESOURCE_SLICE);
        for (size_t i = 0; !named && i < sl->n; i++) {
            const char *nn = json_string_value(json_object_get(json_object_get(sl->v[i]->json, "spec"), "nodeName"));
            named = nn && strcmp(nn, node_name) == 0;
        }
        for (size_t i = 0; !named && packs && i < packs->n; i++)
            named = packs->v[i]->node_name && strcmp(packs->v[i]->node_name, node_name) == 0;
        if (!named)
            out->warnings = dra_err_new(DRA_EXIT_INPUT,
                                        "node %s is not in the input: no Node object and no "
                                        "ResourceSlice names it (only pools for all nodes or a matching nodeSelector "
                                        "can serve it)",
                                        node_name);
        if (!node)
            node = out->bare_node = dra_alloc_bare_node(node_name);
        e = dra_alloc_run(out->world, node, pending_v, pending_n, opts, &out->res);
    }
    return e;
}

void dra_alloc_node_run_free(dra_alloc_node_run *r)
{
    dra_alloc_result_free(r->res);
    json_decref(r->bare_node);
    dra_err_free(r->warnings);
    dra_alloc_world_free(r->world);
    dra_cel_selector_eval_free(&r->eval);
    free(r->pending);
    *r = (dra_alloc_node_run){0};
}

dra_err *dra_alloc_input_warnings(const dra_model *m, const dra_features *f)
{
    dra_err *w = NULL;
    bool nil_selects_all = dra_features_release_of(f) < DRA_RELEASE_1_37;
    const dra_model_list *l = dra_model_kind(m, DRA_KIND_DEVICE_TAINT_RULE);
    for (size_t i = 0; i < l->n; i++) {
        const json_t *sel = json_object_get(json_object_get(l->v[i]->json, "spec"), "deviceSelector");
        if (sel && !json_is_null(sel))
            continue;
        const char *name = json_string_value(json_object_get(json_object_get(l->v[i]->json, "metadata"), "name"));
        if (nil_selects_all)
            w = dra_err_append(w, dra_err_new(DRA_EXIT_INPUT,
                                              "DeviceTaintRule %s has no deviceSelector: its taint "
                                              "applies to every device, as the scheduler of Kubernetes %s applies it "
                                              "(kubernetes#141422); dra-evict treats it as selecting none",
                                              name ? name : "", dra_release_name(dra_features_release_of(f))));
        else
            w = dra_err_append(w, dra_err_new(DRA_EXIT_INPUT,
                                              "DeviceTaintRule %s has no deviceSelector: it selects "
                                              "no device, as the scheduler and the eviction controller read it",
                                              name ? name : ""));
    }
    return w;
}

json_t *dra_alloc_node_claim(const dra_alloc_node_run *r, size_t i)
{
    json_t *c = json_deep_copy(r->pending[i]);
    json_t *st = json_object_get(c, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(c, "status", st);
    }
    json_object_set_new(st, "allocation", dra_alloc_result_allocation(r->res, i));
    return c;
}

void dra_alloc_explain_render(const dra_alloc_result *res, const dra_err *err, bool json, dra_buf *b)
{
    if (!res)
        return;
    if (!json) {
        dra_alloc_explain_text(res, b);
        return;
    }
    json_t *ex = dra_alloc_explain_json(res);
    json_object_set_new(ex, "outcome",
                        json_string(err                        ? "error"
                                    : dra_alloc_result_ok(res) ? "allocated"
                                                               : "unschedulable"));
    if (err)
        json_object_set_new(ex, "error", json_string(err->msg));
    char *s = json_dumps(ex, JSON_INDENT(2));
    dra_buf_printf(b, "%s\n", s ? s : "");
    free(s);
    json_decref(ex);
}
