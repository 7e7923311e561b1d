/* Status rows for classic DRA claims (resource.k8s.io/v1alpha2) and their
 * PodSchedulingContext negotiation; see report.h.
 *
 * The negotiation of one pod lives in the PodSchedulingContext named after
 * it (release-1.30 pkg/scheduler/framework/plugins/dynamicresources: the
 * scheduler writes spec.potentialNodes and spec.selectedNode, the drivers'
 * controllers write status.resourceClaims[name].unsuitableNodes, where name
 * is the pod's entry in spec.resourceClaims). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

/* The name under which pod refers to the claim (its spec.resourceClaims
 * entry, else its status.resourceClaimStatuses entry), or NULL. */
static const char *pod_claim_entry(const dra_pod_rec *pod, const char *claim)
{
    for (uint32_t i = 0; i < pod->nclaims; i++)
        if (pod->claims[i].claim && strcmp(pod->claims[i].claim, claim) == 0)
            return pod->claims[i].name;
    for (uint32_t i = 0; i < pod->nstatuses; i++)
        if (pod->statuses[i].claim && strcmp(pod->statuses[i].claim, claim) == 0)
            return pod->statuses[i].name;
    return NULL;
}

/* Pods that may negotiate for the claim: its owner, its users, pods that
 * name it; the PodSchedulingContext of the first that has one. */
static const json_t *negotiation(const dra_cluster *c, const json_t *claim, const char **entry, dra_compact *scratch)
{
    const char *ns = dra_jstr_or(claim, "metadata.namespace", "");
    const char *name = dra_jstr_or(claim, "metadata.name", "");
    const char *ann =
        json_string_value(json_object_get(dra_jget(claim, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION));
    for (size_t i = 0; i < c->n[DRA_KIND_POD_SCHEDULING_CONTEXT]; i++) {
        const json_t *psc = c->of[DRA_KIND_POD_SCHEDULING_CONTEXT][i]->json;
        if (strcmp(dra_jstr_or(psc, "metadata.namespace", ""), ns) != 0)
            continue;
        const char *pod_name = dra_jstr_or(psc, "metadata.name", "");
        const dra_pod_rec *pod = dra_cluster_pod_record(c, ns, pod_name, scratch);
        const char *e = pod ? pod_claim_entry(pod, name) : NULL;
        bool related = e != NULL;
        size_t j;
        json_t *r;
        json_array_foreach(dra_jarr(claim, "metadata.ownerReferences"), j, r)
            related |=
                strcmp(dra_jstr_or(r, "kind", ""), "Pod") == 0 && strcmp(dra_jstr_or(r, "name", ""), pod_name) == 0;
        json_array_foreach(dra_jarr(claim, "status.reservedFor"), j, r)
            related |= strcmp(dra_jstr_or(r, "resource", ""), "pods") == 0 &&
                       strcmp(dra_jstr_or(r, "name", ""), pod_name) == 0;
        if (!related)
            continue;
        if (!e)
            e = ann;
        if (!e && json_array_size(dra_jarr(psc, "status.resourceClaims")) == 1)
            e = dra_jstr(json_array_get(dra_jarr(psc, "status.resourceClaims"), 0), "name");
        *entry = e;
        return psc;
    }
    return NULL;
}

static json_t *strings(const json_t *arr)
{
    json_t *out = json_array();
    size_t i;
    json_t *s;
    json_array_foreach(arr, i, s)
        if (json_is_string(s))
            json_array_append(out, s);
    return out;
}

void dra_classic_status_rows(const dra_cluster *c, json_t *rows)
{
    dra_compact scratch = DRA_COMPACT_INIT; /* records of Pods held as objects */
    for (size_t i = 0; i < c->n[DRA_KIND_CLASSIC_CLAIM]; i++) {
        const json_t *claim = c->of[DRA_KIND_CLASSIC_CLAIM][i]->json;
        const json_t *alloc = dra_jget(claim, "status.allocation");
        bool allocated = alloc && json_is_object(alloc);
        bool dealloc = json_is_true(dra_jget(claim, "status.deallocationRequested"));
        json_t *rf = dra_jarr(claim, "status.reservedFor");
        const char *state = dra_obj_deleting(claim) ? "deleting"
                            : dealloc               ? "deallocating"
                            : json_array_size(rf)   ? "reserved"
                            : allocated             ? "allocated"
                                                    : "pending";
        json_t *users = json_array();
        size_t j;
        json_t *r;
        json_array_foreach(rf, j, r) {
            json_array_append_new(users, json_pack("{s:s,s:s,s:s}", "resource", dra_jstr_or(r, "resource", ""), "name",
                                                   dra_jstr_or(r, "name", ""), "uid", dra_jstr_or(r, "uid", "")));
        }
        json_t *devs = json_array();
        json_array_foreach(dra_jarr(alloc, "resourceHandles"), j, r) {
            const char *d = dra_jstr(r, "driverName");
            json_array_append_new(devs,
                                  json_pack("{s:s,s:s}", "driver", d ? d : dra_jstr_or(claim, "status.driverName", ""),
                                            "data", dra_jstr_or(r, "data", "")));
        }
        const char *node = allocated ? dra_selector_node(dra_jget(alloc, "availableOnNodes")) : NULL;
        json_t *classic =
            json_pack("{s:s,s:s}", "resourceClassName", dra_jstr_or(claim, "spec.resourceClassName", ""),
                      "allocationMode", dra_jstr_or(claim, "spec.allocationMode", "WaitForFirstConsumer"));
        if (dra_jstr(claim, "status.driverName"))
            json_object_set_new(classic, "driverName", json_string(dra_jstr(claim, "status.driverName")));
        json_t *pref = dra_jget(claim, "spec.parametersRef");
        if (json_is_object(pref))
            json_object_set(classic, "parametersRef", pref);
        if (allocated)
            json_object_set_new(classic, "shareable", json_boolean(json_is_true(json_object_get(alloc, "shareable"))));
        json_object_set_new(classic, "deallocationRequested", json_boolean(dealloc));
        const char *entry = NULL;
        const json_t *psc = negotiation(c, claim, &entry, &scratch);
        if (psc) {
            json_t *unsuitable = NULL;
            json_array_foreach(dra_jarr(psc, "status.resourceClaims"), j, r)
                if (entry && strcmp(dra_jstr_or(r, "name", ""), entry) == 0)
                    unsuitable = strings(dra_jarr(r, "unsuitableNodes"));
            const char *sel = dra_jstr(psc, "spec.selectedNode");
            json_object_set_new(classic, "scheduling",
                                json_pack("{s:s,s:o,s:o,s:o}", "podSchedulingContext",
                                          dra_jstr_or(psc, "metadata.name", ""), "selectedNode",
                                          sel && *sel ? json_string(sel) : json_null(), "potentialNodes",
                                          strings(dra_jarr(psc, "spec.potentialNodes")), "unsuitableNodes",
                                          unsuitable ? unsuitable : json_array()));
        }
        json_t *row =
            json_pack("{s:s,s:s,s:{s:s,s:s},s:s,s:o,s:o,s:o,s:o}", "apiVersion", "dra-tools/v1alpha1", "kind",
                      "ClaimStatus", "metadata", "namespace", dra_jstr_or(claim, "metadata.namespace", ""), "name",
                      dra_jstr_or(claim, "metadata.name", ""), "state", state, "devices", devs, "node",
                      node ? json_string(node) : (allocated ? json_string("<selector>") : json_null()), "users", users,
                      "classic", classic);
        json_array_append_new(rows, row);
    }
    dra_compact_free(&scratch);
}

char *dra_classic_negotiation_text(const json_t *row)
{
    const json_t *cl = json_object_get(row, "classic");
    if (!cl)
        return NULL;
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "%s", dra_jstr_or(cl, "allocationMode", ""));
    const json_t *s = json_object_get(cl, "scheduling");
    if (s) {
        const char *sel = dra_jstr(s, "selectedNode");
        dra_buf_printf(&b, "; selected %s", sel ? sel : "none");
        size_t np = json_array_size(dra_jarr(s, "potentialNodes"));
        dra_buf_printf(&b, "; potential %zu", np);
        json_t *u = dra_jarr(s, "unsuitableNodes");
        if (json_array_size(u)) {
            dra_buf_puts(&b, "; unsuitable ");
            size_t j;
            json_t *n;
            json_array_foreach(u, j, n)
                dra_buf_printf(&b, "%s%s", j ? "," : "", json_string_value(n));
        }
    }
    if (json_is_true(json_object_get(cl, "deallocationRequested")))
        dra_buf_puts(&b, "; deallocation requested");
    return dra_buf_detach(&b);
}
