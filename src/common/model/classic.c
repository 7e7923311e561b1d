/* Classic DRA to v1; see classic.h.  Types: release-1.30
 * staging/src/k8s.io/api/resource/v1alpha2/types.go. */
#include "classic.h"

#include <stdlib.h>
#include <string.h>

#include "../io/json.h"
#include "convert.h"

static void push(dra_classic_result *r, json_t *obj)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 16;
        r->objs = dra_xrealloc(r->objs, r->cap * sizeof *r->objs);
    }
    r->objs[r->n++] = obj;
}

static void lost(dra_err **chain, const dra_obj *o, const char *field, char *msg)
{
    dra_err *e = dra_err_new(DRA_EXIT_NEGATIVE, "not carried over: %s", msg);
    free(msg);
    if (field)
        e = dra_err_field(e, field);
    *chain = dra_err_append(*chain, dra_obj_locate(e, o));
}

static json_t *meta_of(const json_t *md, bool namespaced)
{
    json_t *m = json_object();
    static const char *const keys[] = {"name", "generateName", "namespace", "labels", "annotations", "ownerReferences"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        json_t *v = json_object_get(md, keys[i]);
        if (v && !json_is_null(v) && (namespaced || strcmp(keys[i], "namespace") != 0))
            json_object_set(m, keys[i], v);
    }
    return m;
}

static const char *str_at(const json_t *o, const char *k1, const char *k2)
{
    const json_t *v = json_object_get(o, k1);
    if (k2)
        v = json_object_get(v, k2);
    return json_string_value(v);
}

/* spec (v1alpha2 ResourceClaimSpec) -> v1 ResourceClaimSpec; losses at prefix */
static json_t *claim_spec(dra_err **r, const dra_obj *o, const json_t *spec, const char *prefix, const dra_model *m)
{
    const char *cls = str_at(spec, "resourceClassName", NULL);
    const dra_obj *rc = cls ? dra_model_find(m, DRA_KIND_RESOURCE_CLASS, NULL, cls) : NULL;
    const char *driver = rc ? str_at(rc->json, "driverName", NULL) : NULL;
    const json_t *pref = json_object_get(spec, "parametersRef");
    if (json_is_object(pref)) {
        char *f = dra_xasprintf("%s.parametersRef", prefix);
        lost(r, o, f,
             dra_xasprintf("v1 claims refer to no parameters object (%s %s); put its content under "
                           "spec.devices.config[].opaque.parameters for driver %s",
                           str_at(pref, "kind", NULL) ? str_at(pref, "kind", NULL) : "?",
                           str_at(pref, "name", NULL) ? str_at(pref, "name", NULL) : "?",
                           driver ? driver : "<the class's driver>"));
        free(f);
    }
    const char *mode = str_at(spec, "allocationMode", NULL);
    if (mode && strcmp(mode, "Immediate") == 0) {
        char *f = dra_xasprintf("%s.allocationMode", prefix);
        lost(r, o, f, dra_xstrdup("Immediate: structured claims are allocated when their first pod is scheduled"));
        free(f);
    }
    return json_pack("{s:{s:[{s:s,s:{s:s,s:s,s:i}}]}}", "devices", "requests", "name", "device", "exactly",
                     "deviceClassName", cls ? cls : "", "allocationMode", "ExactCount", "count", 1);
}

json_t *dra_classic_template(const dra_obj *o, const dra_model *m, dra_err **lost_to)
{
    const json_t *md = json_object_get(o->json, "metadata"), *spec = json_object_get(o->json, "spec");
    json_t *s = claim_spec(lost_to, o, json_object_get(spec, "spec"), "spec.spec", m);
    json_t *tspec = json_pack("{s:o}", "spec", s);
    const json_t *tmd = json_object_get(spec, "metadata");
    if (json_is_object(tmd) && json_object_size(tmd))
        json_object_set_new(tspec, "metadata", meta_of(tmd, false));
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", DRA_RESOURCE_V1, "kind", "ResourceClaimTemplate", "metadata",
                     meta_of(md, true), "spec", tspec);
}

/* Where an object keeps its pod spec: "spec" for a Pod, the template's for
 * workloads; NULL when it has none. */
static const char *pod_spec_path(const json_t *obj, dra_kind k)
{
    if (k == DRA_KIND_POD)
        return "spec";
    const char *kind = str_at(obj, "kind", NULL);
    const json_t *spec = json_object_get(obj, "spec");
    if (kind && strcmp(kind, "PodTemplate") == 0 && json_is_object(dra_jget(obj, "template.spec")))
        return "template.spec";
    if (kind && strcmp(kind, "CronJob") == 0 && json_is_object(dra_jget(spec, "jobTemplate.spec.template.spec")))
        return "spec.jobTemplate.spec.template.spec";
    return json_is_object(dra_jget(spec, "template.spec")) ? "spec.template.spec" : NULL;
}

void dra_classic_pods(const dra_objset *set, dra_classic_result *out)
{
    out->flat = dra_xcalloc(set->n ? set->n : 1, sizeof *out->flat);
    out->nflat = set->n;
    for (size_t i = 0; i < set->n; i++) {
        const dra_obj *o = &set->v[i];
        dra_kind k = DRA_KIND_COUNT;
        dra_apiver v;
        dra_err_free(dra_kind_of(o->json, &k, &v));
        const char *path = pod_spec_path(o->json, k);
        if (!path)
            continue;
        json_t *copy = json_deep_copy(o->json);
        dra_err *notes = NULL;
        (void)dra_flatten_claim_sources(dra_jget(copy, path), path, &notes);
        out->changed = dra_err_append(out->changed, dra_obj_locate(notes, o));
        out->flat[i] = copy;
    }
}

void dra_classic_convert(const dra_objset *set, const dra_model *m, dra_classic_result *out)
{
    for (size_t i = 0; i < set->n; i++) {
        const dra_obj *o = &set->v[i];
        if (i < out->nflat && out->flat[i]) {
            push(out, out->flat[i]);
            out->flat[i] = NULL;
            continue;
        }
        dra_kind k;
        dra_apiver v;
        dra_err *e = dra_kind_of(o->json, &k, &v);
        dra_err_free(e);
        if (e || !dra_kind_is_classic(k))
            continue;
        const json_t *md = json_object_get(o->json, "metadata");
        const char *name = str_at(md, "name", NULL), *ns = str_at(md, "namespace", NULL);
        const dra_obj *in = name ? dra_model_find(m, k, ns, name) : NULL;
        if (in != o)
            continue; /* did not load (errors were reported), or a duplicate */
        out->classic++;
        const json_t *spec = json_object_get(o->json, "spec");
        switch (k) {
        case DRA_KIND_RESOURCE_CLASS: {
            const char *driver = str_at(o->json, "driverName", NULL);
            char *expr = dra_xasprintf("device.driver == \"%s\"", driver ? driver : "");
            push(out, json_pack("{s:s,s:s,s:o,s:{s:[{s:{s:s}}]}}", "apiVersion", DRA_RESOURCE_V1, "kind", "DeviceClass",
                                "metadata", meta_of(md, false), "spec", "selectors", "cel", "expression", expr));
            free(expr);
            const json_t *pref = json_object_get(o->json, "parametersRef");
            if (json_is_object(pref))
                lost(&out->lost, o, "parametersRef",
                     dra_xasprintf("a DeviceClass refers to no parameters object (%s %s); put its content under "
                                   "spec.config[].opaque.parameters for driver %s",
                                   str_at(pref, "kind", NULL) ? str_at(pref, "kind", NULL) : "?",
                                   str_at(pref, "name", NULL) ? str_at(pref, "name", NULL) : "?",
                                   driver ? driver : "?"));
            const json_t *sn = json_object_get(o->json, "suitableNodes");
            if (sn && !json_is_null(sn))
                lost(&out->lost, o, "suitableNodes",
                     dra_xstrdup("a DeviceClass does not restrict nodes; the driver's ResourceSlices say where its "
                                 "devices are"));
            break;
        }
        case DRA_KIND_CLASSIC_CLAIM: {
            json_t *s = claim_spec(&out->lost, o, spec, "spec", m);
            push(out, json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", DRA_RESOURCE_V1, "kind", "ResourceClaim", "metadata",
                                meta_of(md, true), "spec", s));
            const json_t *st = json_object_get(o->json, "status");
            if (json_is_object(json_object_get(st, "allocation")) ||
                json_array_size(json_object_get(st, "reservedFor")))
                lost(&out->lost, o, "status",
                     dra_xasprintf("the allocation%s by %s is the classic driver's; the converted claim is "
                                   "pending until allocated again (dra-alloc)",
                                   json_array_size(json_object_get(st, "reservedFor")) ? " and reservations" : "",
                                   str_at(st, "driverName", NULL) ? str_at(st, "driverName", NULL) : "its driver"));
            break;
        }
        case DRA_KIND_CLASSIC_CLAIM_TEMPLATE: push(out, dra_classic_template(o, m, &out->lost)); break;
        default: /* PodSchedulingContext */
            lost(&out->lost, o, NULL,
                 dra_xstrdup("a PodSchedulingContext has no v1 counterpart: the scheduler allocates structured "
                             "claims itself"));
            break;
        }
    }
}

void dra_classic_result_free(dra_classic_result *r)
{
    for (size_t i = 0; i < r->n; i++)
        json_decref(r->objs[i]);
    free(r->objs);
    for (size_t i = 0; i < r->nflat; i++)
        json_decref(r->flat[i]);
    free(r->flat);
    dra_err_free(r->lost);
    dra_err_free(r->changed);
    memset(r, 0, sizeof *r);
}
