/* Eviction records and rule status as objects and tables.  See report.h. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../io/table.h"

json_t *dra_evict_record_json(const dra_evict_record *r, dra_time now)
{
    json_t *o = json_pack("{s:s,s:s}", "apiVersion", "dra-tools/v1alpha1", "kind", "Eviction");
    if (r->pod)
        json_object_set_new(o, "pod",
                            json_pack("{s:s,s:s,s:s}", "namespace", dra_jstr_or(r->pod, "metadata.namespace", ""),
                                      "name", dra_jstr_or(r->pod, "metadata.name", ""), "uid",
                                      dra_jstr_or(r->pod, "metadata.uid", "")));
    else
        json_object_set_new(o, "pod", json_null());
    json_object_set_new(o, "claim",
                        json_pack("{s:s,s:s}", "namespace", dra_jstr_or(r->claim, "metadata.namespace", ""), "name",
                                  dra_jstr_or(r->claim, "metadata.name", "")));
    json_object_set_new(o, "device",
                        json_pack("{s:s,s:s,s:s,s:s}", "request", dra_jstr_or(r->result, "request", ""), "driver",
                                  dra_jstr_or(r->result, "driver", ""), "pool", dra_jstr_or(r->result, "pool", ""),
                                  "device", dra_jstr_or(r->result, "device", "")));
    json_object_set_new(o, "taint", json_deep_copy(r->src.taint));
    char *src = dra_taint_src_string(&r->src);
    json_object_set_new(o, "source", json_string(src));
    free(src);
    if (r->taint_has_time) {
        char *t = dra_time_format(r->taint_evict_at);
        json_object_set_new(o, "taintEvictAt", json_string(t));
        free(t);
    }
    char *t = dra_time_format(r->evict_at);
    json_object_set_new(o, "evictAt", json_string(t));
    free(t);
    json_object_set_new(o, "due", json_boolean(dra_time_cmp(r->evict_at, now) <= 0));
    if (r->pod_deleting)
        json_object_set_new(o, "podDeleting", json_true());
    if (!r->pod)
        json_object_set_new(o, "note",
                            json_string("no pod to evict: none is bound, using the claim and listed in reservedFor"));
    return o;
}

dra_err *dra_evict_records_table(FILE *f, const dra_evict_result *res, dra_time now)
{
    const size_t ncols = 8;
    char **cells = dra_xcalloc((res->n + 1) * ncols, sizeof *cells);
    static const char *const hdr[] = {"NAMESPACE", "POD", "CLAIM", "DEVICE", "TAINT", "EVICT-AT", "WHEN", "SOURCE"};
    for (size_t k = 0; k < ncols; k++)
        cells[k] = dra_xstrdup(hdr[k]);
    for (size_t i = 0; i < res->n; i++) {
        const dra_evict_record *r = &res->v[i];
        char **c = &cells[(i + 1) * ncols];
        c[0] = dra_xstrdup(dra_jstr_or(r->claim, "metadata.namespace", ""));
        c[1] = r->pod ? dra_xstrdup(dra_jstr_or(r->pod, "metadata.name", "")) : NULL;
        c[2] = dra_xstrdup(dra_jstr_or(r->claim, "metadata.name", ""));
        c[3] = dra_xasprintf("%s/%s/%s", dra_jstr_or(r->result, "driver", ""), dra_jstr_or(r->result, "pool", ""),
                             dra_jstr_or(r->result, "device", ""));
        c[4] = dra_taint_string(r->src.taint);
        c[5] = dra_time_format(r->evict_at);
        if (r->pod_deleting) {
            c[6] = dra_xstrdup("deleting");
        } else if (dra_time_cmp(r->evict_at, now) <= 0) {
            c[6] = dra_xstrdup("due");
        } else {
            char *d = dra_duration_format_sec(dra_time_sub_sec(r->evict_at, now));
            c[6] = dra_xasprintf("in %s", d);
            free(d);
        }
        char *s = dra_taint_src_string(&r->src);
        c[7] = dra_xasprintf("%s%s", s, r->pod ? "" : " (no pod)");
        free(s);
    }
    dra_err *e = dra_table_write(f, (const char *const *)cells, res->n + 1, ncols);
    for (size_t k = 0; k < (res->n + 1) * ncols; k++)
        free(cells[k]);
    free(cells);
    return e;
}

dra_err *dra_evict_rules_table(FILE *f, const dra_evict_result *res)
{
    const size_t ncols = 5;
    char **cells = dra_xcalloc((res->nrules + 1) * ncols, sizeof *cells);
    static const char *const hdr[] = {"NAME", "EFFECT", "STATUS", "REASON", "MESSAGE"};
    for (size_t k = 0; k < ncols; k++)
        cells[k] = dra_xstrdup(hdr[k]);
    for (size_t i = 0; i < res->nrules; i++) {
        const json_t *rule = res->rules[i];
        char **c = &cells[(i + 1) * ncols];
        c[0] = dra_xstrdup(dra_jstr_or(rule, "metadata.name", ""));
        c[1] = dra_xstrdup(dra_jstr_or(rule, "spec.taint.effect", ""));
        size_t j;
        json_t *cnd;
        json_array_foreach(dra_jarr(rule, "status.conditions"), j, cnd) {
            if (strcmp(dra_jstr_or(cnd, "type", ""), "EvictionInProgress") != 0)
                continue;
            c[2] = dra_xstrdup(dra_jstr_or(cnd, "status", ""));
            c[3] = dra_xstrdup(dra_jstr_or(cnd, "reason", ""));
            const char *m = dra_jstr_or(cnd, "message", "");
            c[4] = *m ? dra_xstrdup(m) : NULL;
        }
    }
    dra_err *e = dra_table_write(f, (const char *const *)cells, res->nrules + 1, ncols);
    for (size_t k = 0; k < (res->nrules + 1) * ncols; k++)
        free(cells[k]);
    free(cells);
    return e;
}
