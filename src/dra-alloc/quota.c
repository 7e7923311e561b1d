/* dra-alloc quota: input -> insight/quota.h -> table or objects; refused claims on stderr, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "insight/capacity.h"
#include "insight/quota.h"
#include "model/shapes.h"
#include "alloc_tool.h"

const dra_opt dra_alloc_quota_opts[] = {
    DRA_OPT_OUTPUT_ENTRY("table yaml json jsonl"),
    DRA_ALLOC_REPORT_OPT_ENTRIES,
};

/* -v: each quota applied or skipped, each claim charged, refused or passed,
 * in order; each line starts with run ("" or "the input: " ...). */
static void say_ledger(const dra_args *a, const json_t *rep, const char *run)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(rep, "quotas"), i, x) {
        const json_t *res = json_object_get(x, "resources");
        if (!json_object_size(res))
            continue;
        dra_buf b = DRA_BUF_INIT;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)res, k, v) {
            dra_buf_printf(&b, "%s%s (hard %lld, used %lld from %s, now %lld)", b.len ? ", " : "", k,
                           (long long)json_integer_value(json_object_get(v, "hard")),
                           (long long)json_integer_value(json_object_get(v, "start")),
                           json_is_true(json_object_get(v, "fromStatus")) ? "status.used" : "the claims there",
                           (long long)json_integer_value(json_object_get(v, "used")));
        }
        dra_tool_verbose(&dra_alloc_tool, a, "%squota %s/%s applies (no scopes; hard from %s); counts %s", run,
                         dra_jfield_str(x, "namespace"), dra_jfield_str(x, "name"), dra_jfield_str(x, "hardFrom"),
                         b.data);
        dra_buf_free(&b);
        const char *unknown = dra_jfield_str(dra_jfield(x, "statusUnknown"), "missing");
        if (unknown)
            dra_tool_verbose(
                &dra_alloc_tool, a,
                "%squota %s/%s: status.hard lists %s but status.used has no figure for it: the API server "
                "refuses every claim until the quota controller writes status.used (give status.used, as "
                "`kubectl get resourcequota -o yaml` shows it, or leave status out to count the quota from "
                "the claims)",
                run, dra_jfield_str(x, "namespace"), dra_jfield_str(x, "name"), unknown);
    }
    json_array_foreach(json_object_get(rep, "skippedQuotas"), i, x) {
        char *sc = json_dumps(json_object_get(x, "scopes"), JSON_COMPACT);
        dra_tool_verbose(&dra_alloc_tool, a, "%squota %s/%s skipped (scopes %s): %s", run,
                         dra_jfield_str(x, "namespace"), dra_jfield_str(x, "name"), sc, dra_jfield_str(x, "reason"));
        free(sc);
    }
    json_array_foreach(json_object_get(rep, "charged"), i, x) {
        char *q = json_dumps(json_object_get(x, "quotas"), JSON_COMPACT),
             *u = json_dumps(json_object_get(x, "usage"), JSON_COMPACT | JSON_SORT_KEYS);
        dra_tool_verbose(&dra_alloc_tool, a, "%sclaim %s charged #%zu in %s: %s", run, dra_jfield_str(x, "claim"),
                         i + 1, q, u);
        free(q);
        free(u);
    }
    json_array_foreach(json_object_get(rep, "uncharged"), i, x)
        dra_tool_verbose(&dra_alloc_tool, a, "%sclaim %s not charged: %s", run, dra_jfield_str(x, "claim"),
                         dra_jfield_str(x, "reason"));
    json_array_foreach(json_object_get(rep, "refused"), i, x)
        dra_tool_verbose(&dra_alloc_tool, a, "%sclaim %s refused by quota %s", run, dra_jfield_str(x, "claim"),
                         dra_jfield_str(x, "quota"));
}

void dra_alloc_quota_admission_done(const dra_args *a, dra_quota_ledger *l, const char *run)
{
    if (!l)
        return;
    json_t *rep = dra_quota_ledger_report(l);
    say_ledger(a, rep, run ? run : "");
    json_decref(rep);
    dra_quota_ledger_free(l);
}

/* Whether pod requests any resource whose name has a '/' (in a container,
 * an init container or its overhead): only such a name can be an
 * extended-resource claim's, so only such a pod changes its charge. */
static bool asks_extended(const json_t *pod)
{
    const json_t *spec = dra_jfield(pod, "spec"), *c;
    const char *lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_array_foreach(dra_jfield(spec, lists[l]), i, c) {
            const char *k;
            const json_t *v;
            json_object_foreach((json_t *)dra_jfield(dra_jfield(c, "resources"), "requests"), k, v)
                if (strchr(k, '/'))
                    return true;
        }
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)dra_jfield(spec, "overhead"), k, v)
        if (strchr(k, '/'))
            return true;
    return false;
}

/* A ResourceClaim or Pod as read (checked), kept as its text and not in
 * the model: a claim for admission one at a time, a Pod in case a claim
 * names it.  The model keeps claims whose charge looks at their pod and
 * the other claims (dra_quota_pod_claim), whose pods read_done gives back,
 * and, but with k->fleet, those of the wrong shape, for the index to
 * refuse (located); with k->fleet a claim of the wrong shape is text alone
 * and a Pod of the wrong shape, or asking for no extended resource
 * (asks_extended: its claims are charged in full either way), dropped. */
bool dra_alloc_kept_take(void *ctx, dra_kind kind, const dra_obj *o)
{
    dra_alloc_kept *k = ctx;
    if (kind != DRA_KIND_RESOURCE_CLAIM && kind != DRA_KIND_POD)
        return false;
    dra_err *shape = kind == DRA_KIND_POD ? dra_check_pod_shape(o) : dra_check_claim_shape(o);
    bool bad = shape != NULL;
    dra_err_free(shape);
    if (bad && k->fleet && kind == DRA_KIND_RESOURCE_CLAIM)
        dra_fleet_claims_keep(&k->claims, o->json);
    if (bad)
        return k->fleet;
    if (k->fleet && kind == DRA_KIND_POD && !asks_extended(o->json))
        return true;
    if (kind == DRA_KIND_POD) {
        k->at = dra_xgrow(k->at, k->pods.n, sizeof *k->at);
        k->at[k->pods.n] = (dra_obj){.file = o->file, .doc = o->doc, .line = o->line, .item = o->item};
        dra_fleet_claims_keep(&k->pods, o->json);
        return true;
    }
    dra_fleet_claims_keep(&k->claims, o->json);
    const char *pod = dra_quota_pod_claim(o->json);
    if (!pod)
        return true;
    k->wanted = dra_xgrow(k->wanted, k->nwanted, sizeof *k->wanted);
    k->wanted[k->nwanted++] = dra_xasprintf("%s\x1f%s", dra_jstr_or(o->json, "metadata.namespace", "default"), pod);
    return false;
}

void dra_alloc_kept_read_done(void *ctx, dra_objset *set)
{
    dra_alloc_kept *k = ctx;
    dra_strmap want = {0};
    for (size_t i = 0; i < k->nwanted; i++)
        dra_strmap_put(&want, k->wanted[i], strlen(k->wanted[i]), 1);
    for (size_t i = 0; k->nwanted && i < k->pods.n; i++) {
        dra_obj o;
        if (!dra_compact_whole(&k->pods.texts, k->pods.v[i], &o))
            continue;
        char *key = dra_xasprintf("%s\x1f%s", dra_jstr_or(o.json, "metadata.namespace", "default"),
                                  dra_jstr_or(o.json, "metadata.name", ""));
        intptr_t v;
        if (dra_strmap_get(&want, key, strlen(key), &v))
            dra_objset_add(set, o.json, k->at[i].file, k->at[i].doc, k->at[i].line, k->at[i].item);
        else
            json_decref(o.json);
        free(key);
    }
    dra_strmap_free(&want);
    dra_fleet_claims_free(&k->pods);
    free(k->at);
    k->at = NULL;
}

void dra_alloc_kept_free(dra_alloc_kept *k)
{
    dra_fleet_claims_free(&k->claims);
    dra_fleet_claims_free(&k->pods);
    free(k->at);
    for (size_t i = 0; i < k->nwanted; i++)
        free(k->wanted[i]);
    free(k->wanted);
}

dra_err *dra_alloc_run_quota(const dra_args *a, void *p, int *rc)
{
    opts *x = p;
    input in;
    dra_err *e = dra_alloc_load_input(a, x, true, &in);
    dra_alloc_kept k = {0}; /* claims and pods as text, out of memory */
    dra_tool_uses uses = {.kinds =
                              (1u << DRA_KIND_RESOURCE_CLAIM) | (1u << DRA_KIND_DEVICE_CLASS) | (1u << DRA_KIND_POD),
                          .other = dra_is_resource_quota,
                          .take = dra_alloc_kept_take,
                          .read_done = dra_alloc_kept_read_done,
                          .ctx = &k};
    if (!e)
        e = dra_alloc_read_input(a, x, 0, &uses, &in);
    json_t *rep = NULL;
    if (!e)
        e = dra_alloc_index(&in);
    if (!e) {
        dra_quota_feed feed = {&k.claims, 0, NULL};
        e = dra_quota_evaluate_each(in.cluster.set, &in.cluster.model, &in.features, dra_quota_feed_next, &feed, &rep);
        dra_quota_feed_end(&feed);
    }
    if (!e)
        say_ledger(a, rep, "");
    if (!e && in.table)
        e = dra_quota_table(stdout, rep);
    else if (!e)
        e = dra_alloc_write_report(rep, "quotas", in.fmt);
    /* the API server's refusals, capped as every tool caps a flood (the
     * report lists them all) */
    dra_errs refused = DRA_ERRS_INIT;
    size_t i;
    const json_t *r;
    json_array_foreach(e ? NULL : json_object_get(rep, "refused"), i, r) {
        dra_errs_add(&refused, dra_err_new(DRA_EXIT_NEGATIVE, "%s", json_string_value(json_object_get(r, "message"))));
        *rc = DRA_EXIT_NEGATIVE;
    }
    dra_err *rl = dra_errs_take(&refused);
    dra_tool_print_errs(stderr, dra_alloc_tool.prog, NULL, rl);
    dra_err_free(rl);
    json_decref(rep);
    dra_alloc_kept_free(&k);
    dra_alloc_input_free(&in);
    return e;
}
