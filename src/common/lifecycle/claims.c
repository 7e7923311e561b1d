/* Claim lifecycle: generate, reserve, release.  See claims.h. */
#include "claims.h"
#include "../base/hash.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/sort.h"
#include "../model/classic.h"
#include "../model/validate.h"

dra_err *dra_name_suffix_parse(const char *s, dra_name_suffix *out)
{
    if (!s || strcmp(s, "hash") == 0)
        *out = DRA_NAME_SUFFIX_HASH;
    else if (strcmp(s, "random") == 0)
        *out = DRA_NAME_SUFFIX_RANDOM;
    else if (strcmp(s, "none") == 0)
        *out = DRA_NAME_SUFFIX_NONE;
    else
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "unknown mode \"%s\" (want hash, random or none)", s),
                             "name-suffix");
    return NULL;
}

char *dra_claim_generate_name(const char *pod_name, const char *pod_claim_name)
{
    /* handleClaim: leave room for '-' and 5 random characters in 63 */
    const size_t max_base = 57;
    size_t lp = strlen(pod_name), lc = strlen(pod_claim_name), lg = lp + lc + 2;
    if (lg <= max_base)
        return dra_xasprintf("%s-%s-", pod_name, pod_claim_name);
    /* both parts proportionally, no trailing '-' (upstream quirk kept) */
    return dra_xasprintf("%.*s-%.*s", (int)(lp * max_base / lg), pod_name, (int)(lc * max_base / lg), pod_claim_name);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    /* 0xff separates the parts, so ("ab","c") and ("a","bc") differ */
    return dra_fnv1a(dra_fnv1a_str(h, s), "\xff", 1);
}

char *dra_claim_name_for(const char *generate_name, dra_name_suffix mode, const char *ns, const char *pod_uid,
                         const char *pod_claim_name)
{
    size_t len = strlen(generate_name);
    switch (mode) {
    case DRA_NAME_SUFFIX_RANDOM: return NULL;
    case DRA_NAME_SUFFIX_NONE:
        if (len && generate_name[len - 1] == '-')
            len--;
        return dra_xstrndup(generate_name, len);
    case DRA_NAME_SUFFIX_HASH: break;
    }
    /* The API server's name generator: base cut to 58, then 5 characters
     * from the alphabet of k8s.io/apimachinery/pkg/util/rand (no vowels). */
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    uint64_t h = DRA_FNV64_OFFSET;
    h = fnv1a(h, ns ? ns : "");
    h = fnv1a(h, pod_uid ? pod_uid : "");
    h = fnv1a(h, pod_claim_name ? pod_claim_name : "");
    char suffix[6];
    for (int i = 0; i < 5; i++) {
        suffix[i] = alphabet[h % (sizeof alphabet - 1)];
        h /= sizeof alphabet - 1;
    }
    suffix[5] = 0;
    if (len > 58)
        len = 58;
    return dra_xasprintf("%.*s%s", (int)len, generate_name, suffix);
}

/* ---- generate ---- */

static bool request_has(const json_t *tmpl_spec, const char *what)
{
    size_t i;
    json_t *r;
    json_array_foreach(dra_jarr(tmpl_spec, "devices.requests"), i, r) {
        if (strcmp(what, "adminAccess") == 0) {
            /* needsAdminAccess looks at exactly (v1) only; v1beta1 keeps it on the request */
            if (dra_jtrue(r, "exactly.adminAccess") || dra_jtrue(r, "adminAccess"))
                return true;
        } else if (dra_jget(r, what) && !json_is_null(dra_jget(r, what))) {
            return true;
        }
    }
    return false;
}

/* The controller a claim made from a template gets: a Pod or a PodGroup. */
typedef struct claim_owner {
    const char *api_version, *kind, *name, *ns, *uid;
} claim_owner;

/* handleClaim / handlePodGroupClaim: the claim for entry `entry` (the pod's
 * or the group's claim name) of ow from tmpl. */
static dra_err *claim_for_owner(const claim_owner *ow, const char *entry, const json_t *tmpl, const dra_lc_opts *opts,
                                json_t **out)
{
    *out = NULL;
    const dra_features *f = opts ? opts->features : NULL;
    const json_t *tspec = dra_jget(tmpl, "spec.spec");
    if (!dra_feature_enabled(f, DRA_FEATURE_ADMIN_ACCESS) && request_has(tspec, "adminAccess"))
        return dra_err_new(DRA_EXIT_INPUT, "admin access is requested, but the feature is disabled");
    if (!dra_feature_enabled(f, DRA_FEATURE_PRIORITIZED_LIST) && request_has(tspec, "firstAvailable"))
        return dra_err_new(DRA_EXIT_INPUT,
                           "template includes a prioritized list of subrequests, but the feature is disabled");

    char *gen = dra_claim_generate_name(ow->name, entry);
    char *name = dra_claim_name_for(gen, opts ? opts->name_suffix : DRA_NAME_SUFFIX_HASH, ow->ns, ow->uid, entry);

    json_t *claim = json_object();
    json_object_set_new_nocheck(claim, "apiVersion", json_string(dra_jstr_or(tmpl, "apiVersion", DRA_RESOURCE_V1)));
    json_object_set_new_nocheck(claim, "kind", json_string("ResourceClaim"));
    json_t *md = json_object();
    if (name)
        json_object_set_new_nocheck(md, "name", json_string(name));
    json_object_set_new_nocheck(md, "generateName", json_string(gen));
    json_object_set_new_nocheck(md, "namespace", json_string(ow->ns));
    json_t *labels = dra_jget(tmpl, "spec.metadata.labels");
    if (json_is_object(labels) && json_object_size(labels))
        json_object_set_new_nocheck(md, "labels", json_deep_copy(labels));
    json_t *ann = dra_jget(tmpl, "spec.metadata.annotations");
    ann = json_is_object(ann) ? json_deep_copy(ann) : json_object();
    json_object_set_new(ann, DRA_POD_CLAIM_NAME_ANNOTATION, json_string(entry));
    json_object_set_new_nocheck(md, "annotations", ann);
    /* E5-1: no blockOwnerDeletion */
    json_t *ref = dra_jstrings(4, "apiVersion", ow->api_version, "kind", ow->kind, "name", ow->name, "uid", ow->uid);
    if (ref) {
        json_object_set_new_nocheck(ref, "controller", json_true());
        json_t *refs = json_array();
        json_array_append_new(refs, ref);
        json_object_set_new_nocheck(md, "ownerReferences", refs);
    }
    json_object_set_new_nocheck(claim, "metadata", md);
    /* frozen claims share the template's spec (dra_lc_opts.freeze) */
    json_object_set_new_nocheck(claim, "spec",
                                !tspec                 ? json_object()
                                : opts && opts->freeze ? json_incref((json_t *)tspec)
                                                       : json_deep_copy(tspec));
    free(gen);
    free(name);
    *out = claim;
    return NULL;
}

dra_err *dra_claim_from_template(const json_t *pod, const json_t *pod_claim, const json_t *tmpl,
                                 const dra_lc_opts *opts, json_t **out)
{
    claim_owner ow = {"v1", "Pod", dra_jstr_or(pod, "metadata.name", ""), dra_jstr_or(pod, "metadata.namespace", ""),
                      dra_jstr_or(pod, "metadata.uid", "")};
    return claim_for_owner(&ow, dra_jstr_or(pod_claim, "name", ""), tmpl, opts, out);
}

dra_err *dra_claim_from_template_for_group(const json_t *group, const json_t *group_claim, const json_t *tmpl,
                                           const dra_lc_opts *opts, json_t **out)
{
    claim_owner ow = {dra_jstr_or(group, "apiVersion", DRA_SCHEDULING_GROUP "/v1beta1"), "PodGroup",
                      dra_jstr_or(group, "metadata.name", ""), dra_jstr_or(group, "metadata.namespace", ""),
                      dra_jstr_or(group, "metadata.uid", "")};
    return claim_for_owner(&ow, dra_jstr_or(group_claim, "name", ""), tmpl, opts, out);
}

/* The template tname of ns: the v1 one, else a classic one of the input
 * converted to v1 (*tmp, which the caller frees) when opts->notes is set,
 * noted there the first time; NULL when neither exists. */
static const json_t *find_template(const dra_cluster *c, const char *ns, const char *tname, const dra_lc_opts *opts,
                                   json_t **tmp)
{
    *tmp = NULL;
    const dra_obj *t = dra_cluster_find(c, DRA_KIND_RESOURCE_CLAIM_TEMPLATE, ns, tname);
    if (t)
        return t->json;
    t = opts && opts->notes ? dra_cluster_find(c, DRA_KIND_CLASSIC_CLAIM_TEMPLATE, ns, tname) : NULL;
    if (!t)
        return NULL;
    dra_err *lost = NULL;
    *tmp = dra_classic_template(t, &c->model, &lost);
    dra_err *note = dra_obj_locate(dra_err_new(DRA_EXIT_OK, "resource.k8s.io/v1alpha2 template used, for want of a "
                                                            "resource.k8s.io/v1 one: claims are made from it as "
                                                            "dra-claim convert converts it"),
                                   t);
    bool seen = false;
    for (const dra_err *n = *opts->notes; n && !seen; n = n->next)
        seen = n->line == note->line && n->doc == note->doc && strcmp(n->msg, note->msg) == 0 &&
               strcmp(n->file ? n->file : "", note->file ? note->file : "") == 0;
    if (seen) {
        dra_err_free(note);
        dra_err_free(lost);
    } else {
        for (dra_err *l = lost; l; l = l->next)
            l->code = DRA_EXIT_OK;
        *opts->notes = dra_err_append(*opts->notes, dra_err_append(note, lost));
    }
    return *tmp;
}

/* claimPodOwnerIndexFunc: a controller reference v1/Pod with this UID. */
static bool controlled_by_pod_uid(const json_t *claim, const char *uid)
{
    size_t j;
    json_t *r;
    json_array_foreach(dra_jarr(claim, "metadata.ownerReferences"), j, r) {
        if (dra_jtrue(r, "controller") && strcmp(dra_jstr_or(r, "apiVersion", ""), "v1") == 0 &&
            strcmp(dra_jstr_or(r, "kind", ""), "Pod") == 0 && strcmp(dra_jstr_or(r, "uid", ""), uid) == 0)
            return true;
    }
    return false;
}

static const dra_obj *find_orphan(const dra_cluster *c, const json_t *pod, const char *pc_name)
{
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *uid = dra_jstr_or(pod, "metadata.uid", "");
    const dra_obj *o;
    for (size_t it = dra_cluster_owned(c, uid); (o = dra_cluster_owned_next(c, &it));) {
        if (strcmp(dra_jstr_or(o->json, "metadata.namespace", ""), ns) != 0 || !controlled_by_pod_uid(o->json, uid))
            continue;
        /* the annotation key contains dots: look it up directly */
        const char *a = json_string_value(
            json_object_get(dra_jget(o->json, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION));
        if (a && strcmp(a, pc_name) == 0)
            return o;
    }
    return NULL;
}

static dra_err *pod_err(const dra_obj *pod, const char *pc_name, const char *fmt, ...) DRA_PRINTF(3, 4);
static dra_err *pod_err(const dra_obj *pod, const char *pc_name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "pod %s/%s, PodResourceClaim %s: %s",
                             dra_jstr_or(pod->json, "metadata.namespace", ""),
                             dra_jstr_or(pod->json, "metadata.name", ""), pc_name, msg);
    free(msg);
    return dra_err_at(e, pod->file, pod->doc, pod->line, 0);
}

typedef struct new_name {
    const char *pc; /* borrowed pod claim name */
    char *claim;    /* claim name or "$DRA_NAME_n" */
} new_name;

static int cmp_new_name(const void *a, const void *b)
{
    return strcmp(((const new_name *)a)->pc, ((const new_name *)b)->pc);
}

static bool name_taken(const dra_cluster *c, const dra_changes *out, const char *ns, const char *name)
{
    return dra_cluster_find(c, DRA_KIND_RESOURCE_CLAIM, ns, name) ||
           dra_changes_created(out, "ResourceClaim", ns, name);
}

/* status.resourceClaimStatuses as the apply leaves it (E5-3). */
/* A claim made from a template goes into the changes: its name (or the
 * $DRA_NAME_n the server's generated name becomes) in *got.  NULL, or the
 * "already exists" text or quota admission's refusal (*refused set) (a new
 * string; claim and reason are then dropped). */
static char *add_created_claim(const dra_cluster *c, const dra_lc_opts *opts, dra_changes *out, const char *ns,
                               json_t *claim, char *reason, char **got, bool *refused)
{
    const char *cn = dra_jstr(claim, "metadata.name");
    char *msg = NULL;
    if (cn && name_taken(c, out, ns, cn))
        msg = dra_xasprintf("create ResourceClaim : resourceclaims.resource.k8s.io \"%s\" already exists", cn);
    else if (opts && opts->admit && (msg = opts->admit(opts->admit_ctx, claim)))
        *refused = true;
    if (msg) {
        json_decref(claim);
        free(reason);
        return msg;
    }
    dra_changes_add_created(out, claim);
    /* a copy: later steps of the run (allocate, reserve) change the object */
    dra_op *op =
        dra_changes_op(out, DRA_OP_CREATE, claim, NULL, out->objects_only ? NULL : json_deep_copy(claim), NULL);
    if (!out->objects_only)
        op->reason = reason;
    else
        free(reason);
    if (cn) {
        *got = dra_xstrdup(cn);
    } else {
        op->name_var = out->nvars++;
        *got = dra_xasprintf("$DRA_NAME_%d", op->name_var);
    }
    return NULL;
}

static void apply_pod_statuses(const dra_obj *pod, new_name *names, size_t n, dra_changes *out)
{
    dra_sort(names, n, sizeof *names, cmp_new_name);
    const json_t *p = pod->json;
    json_t *applied = json_array();
    /* existing non-null entries not overridden, then the new ones; sorted by name */
    size_t i;
    json_t *e;
    json_array_foreach(dra_jarr(p, "status.resourceClaimStatuses"), i, e) {
        const char *nm = dra_jstr_or(e, "name", "");
        if (!dra_jstr(e, "resourceClaimName"))
            continue;
        bool overridden = false;
        for (size_t k = 0; k < n; k++)
            if (strcmp(names[k].pc, nm) == 0)
                overridden = true;
        if (!overridden)
            json_array_append_new(applied,
                                  dra_jstrings(2, "name", nm, "resourceClaimName", dra_jstr(e, "resourceClaimName")));
    }
    for (size_t k = 0; k < n; k++)
        json_array_append_new(applied, dra_jstrings(2, "name", names[k].pc, "resourceClaimName", names[k].claim));
    /* sort the applied list by name */
    size_t na = json_array_size(applied);
    for (size_t a = 1; a < na; a++)
        for (size_t b = a; b > 0; b--) {
            json_t *x = json_array_get(applied, b - 1), *y = json_array_get(applied, b);
            if (strcmp(dra_jstr_or(x, "name", ""), dra_jstr_or(y, "name", "")) <= 0)
                break;
            json_incref(x);
            json_array_set(applied, b - 1, y);
            json_array_set_new(applied, b, x);
        }

    dra_change *ch = dra_changes_touch(out, p);
    ch->versioned = true;
    if (!out->objects_only) {
        json_t *body = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:O}}", "apiVersion", "v1", "kind", "Pod", "metadata", "name",
                                 dra_jstr_or(p, "metadata.name", ""), "namespace",
                                 dra_jstr_or(p, "metadata.namespace", ""), "status", "resourceClaimStatuses", applied);
        dra_op *op = dra_changes_op(out, DRA_OP_APPLY, p, "status", body, NULL);
        op->field_manager = dra_xstrdup("ResourceClaimController");
        op->reason = dra_xasprintf("Pod %s/%s: record generated ResourceClaims in status.resourceClaimStatuses",
                                   dra_jstr_or(p, "metadata.namespace", ""), dra_jstr_or(p, "metadata.name", ""));
    }

    /* resulting object: entries updated in place, others appended in applied order */
    json_t *st = dra_jarr(ch->obj, "status.resourceClaimStatuses");
    if (!st) {
        st = json_array();
        dra_jset_new(ch->obj, "status.resourceClaimStatuses", st);
    }
    json_array_foreach(applied, i, e) {
        const char *nm = dra_jstr(e, "name");
        bool found = false;
        size_t j;
        json_t *x;
        json_array_foreach(st, j, x) {
            if (strcmp(dra_jstr_or(x, "name", ""), nm) == 0) {
                json_object_set(x, "resourceClaimName", json_object_get(e, "resourceClaimName"));
                found = true;
            }
        }
        if (!found)
            json_array_append(st, e);
    }
    json_decref(applied);
}

/* ---- PodGroup claims (E5-9) ---- */

static bool workload_claims(const dra_lc_opts *opts)
{
    return dra_feature_enabled(opts ? opts->features : NULL, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS);
}

/* Whether the resourceclaim controller takes a pod as a member of no
 * PodGroup whatever its spec.schedulingGroup says: 1.36's getPodGroup with
 * DRAWorkloadResourceClaims off (k8s.io/kubernetes@v1.36.3
 * pkg/controller/resourceclaim/controller.go; 1.37 looks the group up and
 * leaves its claims alone instead). */
static bool groups_unseen(const dra_features *f)
{
    return dra_features_release_of(f) == DRA_RELEASE_1_36 &&
           !dra_feature_enabled(f, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS);
}

/* getPodGroup (pkg/controller/resourceclaim/controller.go): the PodGroup the
 * pod names, in the current state, or NULL.  The pod as stored keeps
 * spec.schedulingGroup even with GenericWorkload off (the API server drops
 * it only from a new pod), and then the controller refuses the pod whole;
 * with the gate a group not there is refused too (1.36's looks for it only
 * with DRAWorkloadResourceClaims: groups_unseen).  gname is the pod's
 * group name (dra_pod_group_name).  Returns why (owned), or NULL when the
 * pod names no group or its group is there. */
static char *get_pod_group(const dra_cluster *c, const dra_changes *ch, const json_t *p, const char *gname,
                           const dra_lc_opts *opts, const json_t **group)
{
    *group = NULL;
    if (!gname)
        return NULL;
    if (groups_unseen(opts ? opts->features : NULL))
        return NULL;
    if (!dra_feature_enabled(opts ? opts->features : NULL, DRA_FEATURE_GENERIC_WORKLOAD))
        return dra_xasprintf("Pod is a member of PodGroup %s but GenericWorkload feature is disabled", gname);
    *group = dra_state_find(c, ch, DRA_KIND_POD_GROUP, dra_jstr_or(p, "metadata.namespace", ""), gname);
    return *group ? NULL : dra_xasprintf("podgroup.scheduling.k8s.io \"%s\" not found", gname);
}

/* syncPod's error when getPodGroup fails, at the pod. */
static dra_err *pod_group_err(const dra_obj *pod, const char *why)
{
    return dra_err_at(dra_err_new(DRA_EXIT_INPUT, "get PodGroup for Pod %s/%s: %s",
                                  dra_jstr_or(pod->json, "metadata.namespace", ""),
                                  dra_jstr_or(pod->json, "metadata.name", ""), why),
                      pod->file, pod->doc, pod->line, 0);
}

/* findPodGroupResourceClaim: a claim the group controls (by UID) whose
 * annotation names the group's claim entry; NULL when none. */
static const dra_obj *find_group_orphan(const dra_cluster *c, const json_t *group, const char *entry)
{
    const char *ns = dra_jstr_or(group, "metadata.namespace", ""), *uid = dra_jstr_or(group, "metadata.uid", "");
    const dra_obj *o;
    for (size_t it = dra_cluster_owned(c, uid); (o = dra_cluster_owned_next(c, &it));) {
        const json_t *ref = dra_controller_ref(o->json);
        if (strcmp(dra_jstr_or(o->json, "metadata.namespace", ""), ns) != 0 || !ref ||
            strcmp(dra_jstr_or(ref, "uid", ""), uid) != 0 ||
            !dra_claim_controlled_by_group_name(o->json, dra_jstr_or(group, "metadata.name", "")))
            continue;
        const char *a = json_string_value(
            json_object_get(dra_jget(o->json, "metadata.annotations"), DRA_POD_CLAIM_NAME_ANNOTATION));
        if (a && strcmp(a, entry) == 0)
            return o;
    }
    return NULL;
}

/* The group's status entry for a claim entry name; NULL when none. */
static const json_t *group_status_entry(const json_t *group, const char *entry)
{
    size_t i;
    json_t *e;
    json_array_foreach(dra_jarr(group, "status.resourceClaimStatuses"), i, e) {
        if (strcmp(dra_jstr_or(e, "name", ""), entry) == 0)
            return e;
    }
    return NULL;
}

static dra_err *group_err(const dra_obj *g, const char *entry, const char *fmt, ...) DRA_PRINTF(3, 4);
static dra_err *group_err(const dra_obj *g, const char *entry, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "PodGroup %s/%s, PodGroupResourceClaim %s: %s",
                             dra_jstr_or(g->json, "metadata.namespace", ""), dra_jstr_or(g->json, "metadata.name", ""),
                             entry, msg);
    free(msg);
    return dra_err_at(e, g->file, g->doc, g->line, 0);
}

/* The apply of syncPodGroup: only the new entries, in spec order. */
static void apply_group_statuses(const dra_obj *g, const new_name *names, size_t n, dra_changes *out)
{
    const json_t *gj = g->json;
    json_t *applied = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(applied,
                              json_pack("{s:s,s:s}", "name", names[k].pc, "resourceClaimName", names[k].claim));
    dra_change *ch = dra_changes_touch(out, gj);
    ch->versioned = true;
    if (!out->objects_only) {
        json_t *body = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:O}}", "apiVersion",
                                 dra_jstr_or(gj, "apiVersion", DRA_SCHEDULING_GROUP "/v1beta1"), "kind", "PodGroup",
                                 "metadata", "name", dra_jstr_or(gj, "metadata.name", ""), "namespace",
                                 dra_jstr_or(gj, "metadata.namespace", ""), "status", "resourceClaimStatuses", applied);
        dra_op *op = dra_changes_op(out, DRA_OP_APPLY, gj, "status", body, NULL);
        op->field_manager = dra_xstrdup("ResourceClaimController");
        op->reason = dra_xasprintf("PodGroup %s/%s: record generated ResourceClaims in status.resourceClaimStatuses",
                                   dra_jstr_or(gj, "metadata.namespace", ""), dra_jstr_or(gj, "metadata.name", ""));
    }
    json_t *st = dra_jarr(ch->obj, "status.resourceClaimStatuses");
    if (!st) {
        st = json_array();
        dra_jset_new(ch->obj, "status.resourceClaimStatuses", st);
    }
    size_t i;
    json_t *e;
    json_array_foreach(applied, i, e) {
        json_t *x = (json_t *)group_status_entry(ch->obj, dra_jstr(e, "name"));
        if (x)
            json_object_set(x, "resourceClaimName", json_object_get(e, "resourceClaimName"));
        else
            json_array_append(st, e);
    }
    json_decref(applied);
}

/* syncPodGroup for one group. */
static dra_err *generate_group(const dra_cluster *c, const dra_obj *g, const dra_lc_opts *opts, dra_changes *out)
{
    const json_t *gj = dra_changes_current(out, g->json);
    const char *ns = dra_jstr_or(gj, "metadata.namespace", ""), *uid = dra_jstr_or(gj, "metadata.uid", "");
    new_name *names = NULL;
    size_t nnames = 0;
    dra_err *err = NULL;
    size_t i;
    json_t *gc;
    json_array_foreach(dra_jarr(gj, "spec.resourceClaims"), i, gc) {
        const char *entry = dra_jstr_or(gc, "name", "");
        const char *tname = dra_jstr(gc, "resourceClaimTemplateName");
        if (!tname)
            continue; /* resourceClaimName: the user's claim */
        const json_t *se = group_status_entry(gj, entry);
        if (se) {
            const char *cn = dra_jstr(se, "resourceClaimName");
            if (!cn)
                continue; /* not needed */
            const json_t *existing = dra_state_find(c, out, DRA_KIND_RESOURCE_CLAIM, ns, cn);
            if (existing && dra_claim_controlled_by_uid(existing, uid))
                continue; /* already created */
            /* gone, or not the group's: made anew */
        }
        char *got = NULL;
        const dra_obj *orphan = find_group_orphan(c, gj, entry);
        if (orphan) {
            got = dra_xstrdup(dra_jstr_or(orphan->json, "metadata.name", ""));
        } else {
            json_t *conv;
            const json_t *tmpl = find_template(c, ns, tname, opts, &conv);
            if (!tmpl) {
                err = group_err(
                    g, entry, "resource claim template \"%s\": resourceclaimtemplate.resource.k8s.io \"%s\" not found",
                    tname, tname);
                break;
            }
            json_t *claim;
            dra_err *e = dra_claim_from_template_for_group(gj, gc, tmpl, opts, &claim);
            json_decref(conv);
            if (e) {
                err = group_err(g, entry, "%s", e->msg);
                dra_err_free(e);
                break;
            }
            bool refused = false;
            char *taken =
                add_created_claim(c, opts, out, ns, claim,
                                  dra_xasprintf("PodGroup %s/%s: ResourceClaim for group claim %s from template %s", ns,
                                                dra_jstr_or(gj, "metadata.name", ""), entry, tname),
                                  &got, &refused);
            if (taken) {
                err = group_err(g, entry, "%s", taken);
                err->code = refused ? DRA_EXIT_NEGATIVE : err->code;
                free(taken);
                break;
            }
        }
        names = dra_xgrow(names, nnames, sizeof *names);
        names[nnames].pc = entry;
        names[nnames].claim = got;
        nnames++;
    }
    if (!err && nnames)
        apply_group_statuses(g, names, nnames, out);
    for (size_t k = 0; k < nnames; k++)
        free(names[k].claim);
    free(names);
    return err;
}

/* The name of the claim a group made for its entry gc, in the run's state:
 * from status.resourceClaimStatuses, else a claim the group controls with
 * the annotation.  NULL: not made yet.  *not_needed: the status says none is. */
static const char *group_claim_name(const dra_cluster *c, const json_t *group, const json_t *gc, bool *not_needed)
{
    *not_needed = false;
    const char *entry = dra_jstr_or(gc, "name", "");
    const json_t *se = group_status_entry(group, entry);
    if (se) {
        const char *cn = dra_jstr(se, "resourceClaimName");
        *not_needed = !cn;
        return cn;
    }
    const dra_obj *o = find_group_orphan(c, group, entry);
    return o ? dra_jstr(o->json, "metadata.name") : NULL;
}

const json_t *dra_pod_claim_group(const dra_cluster *c, const dra_changes *ch, const json_t *pod,
                                  const json_t *pod_claim, const dra_features *f)
{
    if (!dra_feature_enabled(f, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS))
        return NULL;
    const char *gname = dra_pod_group_name(pod);
    if (!gname)
        return NULL;
    const json_t *g = dra_state_find(c, ch, DRA_KIND_POD_GROUP, dra_jstr_or(pod, "metadata.namespace", ""), gname);
    return g && dra_pod_group_claim_match(g, pod_claim) ? g : NULL;
}

static const dra_reserve_opts controller_reserve = {0};
static void reserve_one(dra_changes *out, dra_change *ch, const json_t *pod, const dra_reserve_claim *rc,
                        const dra_reserve_opts *o);
static bool reserved_for(const json_t *claim, const char *uid, const char *gname);

/* One entry of a pod's spec.resourceClaims that the pod needs: its name
 * (resourceclaim.Name) and, when named, its claim in the current state
 * (NULL when missing). */
typedef struct pod_claim_ref {
    const json_t *pc, *claim;
    const char *name;
    bool check;
    dra_podclaim_state st;
} pod_claim_ref;

/* The next entry of p's spec.resourceClaims from *i on, passing over those
 * not needed (a claim name the pod does not need); false at the end. */
static bool next_pod_claim(const dra_cluster *c, const dra_changes *out, const json_t *p, size_t *i, pod_claim_ref *r)
{
    const json_t *pcs = dra_jarr(p, "spec.resourceClaims");
    while (*i < json_array_size(pcs)) {
        r->pc = json_array_get(pcs, (*i)++);
        r->st = dra_pod_claim_name(p, r->pc, &r->name, &r->check);
        if (r->st == DRA_PODCLAIM_NOT_NEEDED)
            continue;
        r->claim = r->st == DRA_PODCLAIM_NAMED ? dra_state_find(c, out, DRA_KIND_RESOURCE_CLAIM,
                                                                dra_jstr_or(p, "metadata.namespace", ""), r->name)
                                               : NULL;
        return true;
    }
    return false;
}

/* IsForPod where the pod claim asks for it (a template's claim). */
static bool claim_usable_by(const json_t *p, const json_t *claim, bool check, const char *gname)
{
    if (!check)
        return true;
    char *why = dra_claim_is_for_pod_or_group(p, claim, gname);
    free(why);
    return !why;
}

/* An allocated claim that is not reserved for the pod (or its group) and
 * has room for it (CanBeReserved). */
static bool wants_reservation(const json_t *claim, const char *uid, const char *gname)
{
    return dra_claim_allocated(claim) && !reserved_for(claim, uid, gname) &&
           json_array_size(dra_jarr(claim, "status.reservedFor")) < DRA_RESERVED_FOR_MAX;
}

/* The end of upstream's syncPod: a pod bound to a node (spec.nodeName set,
 * by the scheduler or by hand) gets its allocated claims reserved, each not
 * yet reserved for it with room left (CanBeReserved: fewer than 256
 * entries); a claim it shares with its PodGroup is reserved for the group
 * (BindTo), and left alone with DRAWorkloadResourceClaims off.  The pod's
 * claims are looked up by the names its status had before this pass (upstream
 * uses the pod object it started with); where upstream returns, so as to
 * try again later (a claim name not known yet, a claim missing, or one the
 * pod does not control), nothing more is reserved for the pod; claims being
 * deleted are left alone (the API server refuses new entries for them).
 * Terminal pods never get here (dra_claims_generate skips them). */
static void reserve_bound(const dra_cluster *c, const json_t *p, const dra_lc_opts *opts, dra_changes *out)
{
    if (!*dra_jstr_or(p, "spec.nodeName", ""))
        return;
    const char *ns = dra_jstr_or(p, "metadata.namespace", "");
    const char *uid = dra_jstr_or(p, "metadata.uid", "");
    const char *gname = dra_pod_group_name(p);
    const json_t *group = gname && !groups_unseen(opts ? opts->features : NULL)
                              ? dra_state_find(c, out, DRA_KIND_POD_GROUP, ns, gname)
                              : NULL;
    bool wl = workload_claims(opts);
    pod_claim_ref r;
    for (size_t i = 0; next_pod_claim(c, out, p, &i, &r);) {
        if (r.st != DRA_PODCLAIM_NAMED || !r.claim || !claim_usable_by(p, r.claim, r.check, wl ? gname : NULL))
            return;
        if (!wants_reservation(r.claim, uid, wl ? gname : NULL) || dra_obj_deleting(r.claim))
            continue;
        const json_t *shared = group && dra_pod_group_claim_match(group, r.pc) ? group : NULL;
        if (shared && !wl)
            continue;
        dra_reserve_claim rc = {.name = r.name, .check_owner = r.check, .group = shared};
        reserve_one(out, dra_changes_touch(out, r.claim), p, &rc, &controller_reserve);
    }
}

static const char *stale_reason(const dra_cluster *c, const char *ns, const json_t *entry);
static const char *stale_group_reason(const dra_cluster *c, const char *ns, const json_t *entry);

/* podNeedsWork: whether an event about the pod gets it synced at all (a
 * claim name not known yet, a claim to create, or, for a bound pod, a claim
 * to reserve).  A claim the pod does not control is skipped there; a
 * template's claim not made yet is work unless it is its PodGroup's (BindTo,
 * the group as getPodGroup finds it: a failure is work too).  gname and
 * group: the pod's group name and what get_pod_group found for it. */
static bool pod_needs_work(const dra_cluster *c, const json_t *p, const char *gname, const json_t *group,
                           const dra_lc_opts *opts, const dra_changes *out)
{
    const char *uid = dra_jstr_or(p, "metadata.uid", "");
    bool wl = workload_claims(opts);
    bool bound = *dra_jstr_or(p, "spec.nodeName", "");
    pod_claim_ref r;
    for (size_t i = 0; next_pod_claim(c, out, p, &i, &r);) {
        if (r.st != DRA_PODCLAIM_NAMED)
            return true;
        if (!r.claim) {
            if (dra_jstr(r.pc, "resourceClaimTemplateName") && !(group && dra_pod_group_claim_match(group, r.pc)))
                return true;
            continue;
        }
        if (bound && claim_usable_by(p, r.claim, r.check, wl ? gname : NULL) &&
            wants_reservation(r.claim, uid, wl ? gname : NULL))
            return true;
    }
    return false;
}

/* Whether syncClaim deletes (or lets go of) a claim: a claim being deleted,
 * or one generated for a pod of the input that got replaced or is done,
 * once no valid reservation is left.  The pod whose status names it then
 * gets synced again and a new claim. */
static bool claim_going_away(const dra_cluster *c, const json_t *claim, const dra_lc_opts *opts)
{
    const char *ns = dra_jstr_or(claim, "metadata.namespace", "");
    size_t i;
    json_t *e;
    json_array_foreach(dra_jarr(claim, "status.reservedFor"), i, e) {
        const char *group = dra_jstr_or(e, "apiGroup", ""), *res = dra_jstr_or(e, "resource", "");
        if (!*group && strcmp(res, "pods") == 0) {
            if (!stale_reason(c, ns, e))
                return false;
        } else if (!workload_claims(opts) || strcmp(group, DRA_SCHEDULING_GROUP) != 0 ||
                   strcmp(res, "podgroups") != 0 || !stale_group_reason(c, ns, e)) {
            return false;
        }
    }
    if (dra_obj_deleting(claim))
        return true;
    const json_t *owner = dra_owning_pod_ref(claim);
    const dra_obj *pod = owner ? dra_cluster_find(c, DRA_KIND_POD, ns, dra_jstr_or(owner, "name", "")) : NULL;
    return pod && (strcmp(dra_jstr_or(pod->json, "metadata.uid", ""), dra_jstr_or(owner, "uid", "")) != 0 ||
                   dra_pod_is_done(pod->json));
}

static dra_err *generate_pod(const dra_cluster *c, const dra_obj *pod, const dra_lc_opts *opts, dra_changes *out)
{
    const json_t *p = pod->json;
    const char *ns = dra_jstr_or(p, "metadata.namespace", "");
    new_name *names = NULL;
    size_t nnames = 0;
    dra_err *err = NULL;
    /* the pod's PodGroup (E5-9): syncPod stops at getPodGroup when it fails,
     * before any claim of the pod; only a pod that needs work is synced */
    bool wl = workload_claims(opts);
    const json_t *group;
    const char *gname = dra_pod_group_name(p);
    char *no_group = get_pod_group(c, out, p, gname, opts, &group);
    bool needs_work = pod_needs_work(c, p, gname, group, opts, out);
    if (no_group && needs_work) {
        err = pod_group_err(pod, no_group);
        free(no_group);
        return err;
    }
    size_t i;
    json_t *pc;
    json_array_foreach(dra_jarr(p, "spec.resourceClaims"), i, pc) {
        const char *pc_name = dra_jstr_or(pc, "name", "");
        const json_t *gc = group ? dra_pod_group_claim_match(group, pc) : NULL;
        if (gc && wl) {
            /* the group's claim: nothing to create here, only its name to record */
            bool not_needed;
            const char *gcn =
                dra_jstr(gc, "resourceClaimTemplateName") ? group_claim_name(c, group, gc, &not_needed) : NULL;
            if (!gcn)
                continue;
            const char *have;
            bool check;
            if (dra_pod_claim_name(p, pc, &have, &check) == DRA_PODCLAIM_NAMED && strcmp(have, gcn) == 0)
                continue;
            names = dra_xgrow(names, nnames, sizeof *names);
            names[nnames].pc = pc_name;
            names[nnames].claim = dra_xstrdup(gcn);
            nnames++;
            continue;
        }
        const char *claim_name;
        bool check_owner;
        dra_podclaim_state st = dra_pod_claim_name(p, pc, &claim_name, &check_owner);
        if (st == DRA_PODCLAIM_UNSUPPORTED) {
            char *m = dra_pod_claim_name_error(p, pc, st);
            err = pod_err(pod, pc_name, "checking for claim before creating it: %s", m);
            free(m);
            break;
        }
        if (st == DRA_PODCLAIM_NOT_NEEDED)
            continue;
        if (st == DRA_PODCLAIM_NAMED) {
            if (!check_owner)
                continue; /* resourceClaimName: nothing to create */
            const dra_obj *existing = dra_cluster_find(c, DRA_KIND_RESOURCE_CLAIM, ns, claim_name);
            if (existing) {
                char *why = dra_claim_is_for_pod(p, existing->json);
                free(why);
                if (!why)
                    continue; /* already created */
                /* no longer owned by the pod: upstream makes a new one when it
                 * syncs the pod, which podNeedsWork skips over this claim;
                 * once the claim is deleted, the pod is synced again */
                if (!needs_work && !claim_going_away(c, existing->json, opts))
                    continue;
            }
        }
        const char *tname = dra_jstr(pc, "resourceClaimTemplateName");
        if (!tname)
            continue;
        if (no_group) { /* a claim taken from the pod: it is synced again */
            err = pod_group_err(pod, no_group);
            break;
        }
        if (gc) { /* BindTo names the group, whose claims are off */
            err =
                pod_err(pod, pc_name,
                        "claim %s is a PodGroup claim but the DRAWorkloadResourceClaims feature is disabled", pc_name);
            break;
        }
        char *got = NULL;
        const dra_obj *orphan = find_orphan(c, p, pc_name);
        if (orphan) {
            got = dra_xstrdup(dra_jstr_or(orphan->json, "metadata.name", ""));
        } else {
            json_t *conv;
            const json_t *tmpl = find_template(c, ns, tname, opts, &conv);
            if (!tmpl) {
                err = pod_err(pod, pc_name,
                              "resource claim template \"%s\": resourceclaimtemplate.resource.k8s.io \"%s\" not found",
                              tname, tname);
                break;
            }
            json_t *claim;
            dra_err *e = dra_claim_from_template(p, pc, tmpl, opts, &claim);
            json_decref(conv);
            if (e) {
                err = pod_err(pod, pc_name, "%s", e->msg);
                dra_err_free(e);
                break;
            }
            bool refused = false;
            char *taken = add_created_claim(c, opts, out, ns, claim,
                                            dra_xasprintf("Pod %s/%s: ResourceClaim for pod claim %s from template %s",
                                                          ns, dra_jstr_or(p, "metadata.name", ""), pc_name, tname),
                                            &got, &refused);
            if (taken) {
                err = pod_err(pod, pc_name, "%s", taken);
                err->code = refused ? DRA_EXIT_NEGATIVE : err->code;
                free(taken);
                break;
            }
        }
        names = dra_xgrow(names, nnames, sizeof *names);
        names[nnames].pc = pc_name;
        names[nnames].claim = got;
        nnames++;
    }
    /* upstream returns before the status update when a pod claim failed */
    if (!err && nnames)
        apply_pod_statuses(pod, names, nnames, out);
    if (!err && !no_group)
        reserve_bound(c, p, opts, out);
    free(no_group);
    for (size_t k = 0; k < nnames; k++)
        free(names[k].claim);
    free(names);
    return err;
}

static bool pod_pending(const json_t *pod)
{
    return !*dra_jstr_or(pod, "spec.nodeName", "") && !dra_pod_is_done(pod);
}

dra_err *dra_claims_generate(const dra_cluster *c, const dra_lc_opts *opts, dra_changes *out)
{
    dra_err *errs = NULL;
    if (workload_claims(opts))
        for (size_t i = 0; i < c->n[DRA_KIND_POD_GROUP]; i++) {
            const dra_obj *g = c->of[DRA_KIND_POD_GROUP][i];
            if (!dra_obj_deleting(g->json))
                errs = dra_err_append(errs, generate_group(c, g, opts, out));
        }
    size_t npods = opts && opts->pod_order ? opts->npod_order : c->n[DRA_KIND_POD];
    for (size_t i = 0; i < npods; i++) {
        const dra_obj *pod;
        if (!opts || !opts->pod_order) {
            pod = c->of[DRA_KIND_POD][i];
        } else {
            const json_t *pj = opts->pod_order[i];
            pod = dra_cluster_find(c, DRA_KIND_POD, dra_jstr_or(pj, "metadata.namespace", ""),
                                   dra_jstr_or(pj, "metadata.name", ""));
            if (!pod || pod->json != pj)
                continue; /* not the cluster's pod */
        }
        if (dra_obj_deleting(pod->json) || dra_pod_is_done(pod->json) ||
            (opts && opts->pending_only && !pod_pending(pod->json)))
            continue;
        size_t first = out->nobjs;
        errs = dra_err_append(errs, generate_pod(c, pod, opts, out));
        for (size_t k = first; opts && opts->freeze && k < out->nobjs; k++)
            dra_changes_freeze(out, &out->objs[k]); /* created objects only */
        dra_change *pc = opts && opts->freeze_pods ? dra_changes_find(out, pod->json) : NULL;
        if (pc)
            dra_changes_freeze_in_place(pc);
    }
    return errs;
}

const json_t *dra_state_find(const dra_cluster *c, const dra_changes *ch, dra_kind k, const char *ns, const char *name)
{
    const dra_obj *o = dra_cluster_find(c, k, ns, name);
    const dra_change *x = o ? dra_changes_find(ch, o->json) : dra_changes_created(ch, dra_kind_name(k), ns, name);
    if (x)
        return x->deleted ? NULL : x->obj;
    return o ? o->json : NULL;
}

/* ---- reserve ---- */

/* The claims a pod uses, as resourceclaim.PodClaims lists them; claims of
 * the pod's PodGroup are the group's to reserve (BindTo), and with the gate
 * off they are left alone (upstream skips them). */
static size_t pod_claims(const dra_cluster *c, const dra_changes *ch, const json_t *pod, const dra_features *f,
                         dra_reserve_claim **out, dra_err **err)
{
    size_t n = 0;
    *out = NULL;
    const char *gname = dra_pod_group_name(pod);
    const json_t *group =
        gname ? dra_state_find(c, ch, DRA_KIND_POD_GROUP, dra_jstr_or(pod, "metadata.namespace", ""), gname) : NULL;
    bool wl = dra_feature_enabled(f, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS);
    size_t i;
    json_t *pc;
    json_array_foreach(dra_jarr(pod, "spec.resourceClaims"), i, pc) {
        const json_t *shared = group && dra_pod_group_claim_match(group, pc) ? group : NULL;
        if (shared && !wl)
            continue;
        const char *name;
        bool check;
        dra_podclaim_state st = dra_pod_claim_name(pod, pc, &name, &check);
        if (st == DRA_PODCLAIM_NOT_NEEDED)
            continue;
        if (st != DRA_PODCLAIM_NAMED) {
            char *m = dra_pod_claim_name_error(pod, pc, st);
            *err = dra_err_append(*err, dra_err_new(DRA_EXIT_NEGATIVE, "%s", m));
            free(m);
            continue;
        }
        *out = dra_xgrow(*out, n, sizeof **out);
        (*out)[n++] = (dra_reserve_claim){.name = name, .check_owner = check, .group = shared};
    }
    const char *ext = dra_jstr(pod, "status.extendedResourceClaimStatus.resourceClaimName");
    if (ext && *ext) {
        *out = dra_xgrow(*out, n, sizeof **out);
        (*out)[n++] = (dra_reserve_claim){.name = ext, .check_owner = true};
    }
    return n;
}

/* The API server's Invalid error for a claim status update. */
static dra_err *invalid_claim(const char *name, char **msgs, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "ResourceClaim.resource.k8s.io \"%s\" is invalid: ", name);
    if (n > 1)
        dra_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            dra_buf_puts(&b, ", ");
        dra_buf_puts(&b, msgs[i]);
    }
    if (n > 1)
        dra_buf_putc(&b, ']');
    dra_err *e = dra_err_new(DRA_EXIT_NEGATIVE, "%s", dra_buf_str(&b));
    dra_buf_free(&b);
    return e;
}

/* Locate e at the input object behind obj (a working copy or original). */
static dra_err *locate_in_input(dra_err *e, const dra_cluster *c, const dra_changes *st, const json_t *obj)
{
    const dra_change *x = dra_changes_find(st, obj);
    const dra_obj *src = dra_cluster_source(c, x && x->orig ? x->orig : obj);
    return src ? dra_obj_locate(e, src) : e;
}

static json_t *ensure_object(json_t *parent, const char *key)
{
    json_t *o = json_object_get(parent, key);
    if (!json_is_object(o)) {
        o = json_object();
        json_object_set_new(parent, key, o);
    }
    return o;
}

/* Append value to parent[key] (an array, made when missing) and the
 * matching JSON-patch "add" to patch.  Steals value. */
static void append_with_patch(json_t *patch, json_t *parent, const char *key, const char *path, json_t *value)
{
    json_t *arr = json_object_get(parent, key);
    if (json_is_array(arr)) {
        if (patch) {
            char *p = dra_xasprintf("%s/-", path);
            json_array_append_new(patch, json_pack("{s:s,s:s,s:O}", "op", "add", "path", p, "value", value));
            free(p);
        }
        json_array_append_new(arr, value);
    } else {
        if (patch)
            json_array_append_new(patch, json_pack("{s:s,s:s,s:[O]}", "op", "add", "path", path, "value", value));
        json_object_set_new(parent, key, json_pack("[o]", value));
    }
}

/* Refusals for adding pod uid to claim (NULL when fine); `allocating`: the
 * same update brings the allocation. */
static dra_err *reserve_refusal(const char *name, const json_t *claim, bool allocating)
{
    char *msgs[3];
    size_t nm = 0;
    size_t count = json_array_size(dra_jarr(claim, "status.reservedFor")) + 1;
    if (count > 256)
        msgs[nm++] = dra_xasprintf("status.reservedFor: Too many: %zu: must have at most 256 items", count);
    if (!allocating && !dra_claim_allocated(claim))
        msgs[nm++] = dra_xstrdup("status.reservedFor: Forbidden: may not be specified when `allocated` is not set");
    else if (dra_obj_deleting(claim))
        msgs[nm++] = dra_xstrdup("status.reservedFor: Forbidden: new entries may not be added while "
                                 "`deallocationRequested` or `deletionTimestamp` are set");
    dra_err *e = nm ? invalid_claim(name, msgs, nm) : NULL;
    for (size_t k = 0; k < nm; k++)
        free(msgs[k]);
    return e;
}

static bool lacks(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return !v || json_is_null(v);
}

/* bindClaim's first update: the finalizer goes on before the allocation. */
static void add_finalizer(dra_changes *out, dra_change *ch, const char *ref)
{
    json_t *meta = ensure_object(ch->obj, "metadata");
    if (dra_has_finalizer(ch->obj, DRA_DELETE_PROTECTION_FINALIZER, NULL))
        return;
    json_t *patch = dra_changes_new_patch(out);
    dra_patch_preconditions(patch, ch);
    append_with_patch(patch, meta, "finalizers", "/metadata/finalizers", json_string(DRA_DELETE_PROTECTION_FINALIZER));
    char *reason = out->objects_only
                       ? NULL
                       : dra_xasprintf("%s: add finalizer " DRA_DELETE_PROTECTION_FINALIZER " before allocating", ref);
    dra_changes_op(out, DRA_OP_PATCH, ch->obj, NULL, patch, reason);
    free(reason);
}

/* One claim: reserveForPod's or bindClaim's status update. */
static void reserve_one(dra_changes *out, dra_change *ch, const json_t *pod, const dra_reserve_claim *rc,
                        const dra_reserve_opts *o)
{
    const char *ns = dra_jstr_or(pod, "metadata.namespace", ""), *pod_name = dra_jstr_or(pod, "metadata.name", "");
    const char *uid = dra_jstr_or(pod, "metadata.uid", "");
    char *ref = dra_xasprintf("ResourceClaim %s/%s", ns, rc->name);
    bool allocating = o->bind && rc->allocation;
    if (o->bind)
        ensure_object(ch->obj, "metadata");
    if (allocating)
        add_finalizer(out, ch, ref);
    json_t *patch = dra_changes_new_patch(out);
    dra_patch_preconditions(patch, ch);
    json_t *st = ensure_object(ch->obj, "status");
    bool stamp = o->bind && dra_feature_enabled(o->features, DRA_FEATURE_DEVICE_BINDING_CONDITIONS) &&
                 dra_feature_enabled(o->features, DRA_FEATURE_RESOURCE_CLAIM_DEVICE_STATUS);
    char *ts = stamp ? dra_time_format((dra_time){o->now, 0}) : NULL;
    if (allocating) {
        json_t *a = json_incref(rc->allocation); /* fresh from the allocator: no copy needed */
        if (ts && json_is_object(a) && lacks(a, "allocationTimestamp"))
            json_object_set_new(a, "allocationTimestamp", json_string(ts));
        json_object_set_new(st, "allocation", a);
        if (patch)
            json_array_append_new(patch,
                                  json_pack("{s:s,s:s,s:O}", "op", "add", "path", "/status/allocation", "value", a));
    }
    /* BindTo: the PodGroup for a claim the pod shares with its group */
    json_t *entry = rc->group ? json_pack("{s:s,s:s,s:s,s:s}", "apiGroup", DRA_SCHEDULING_GROUP, "resource",
                                          "podgroups", "name", dra_jstr_or(rc->group, "metadata.name", ""), "uid",
                                          dra_jstr_or(rc->group, "metadata.uid", ""))
                              : dra_jstrings(3, "resource", "pods", "name", pod_name, "uid", uid);
    append_with_patch(patch, st, "reservedFor", "/status/reservedFor", entry);
    json_t *a = json_object_get(st, "allocation");
    if (ts && !allocating && json_is_object(a) && lacks(a, "allocationTimestamp")) {
        json_object_set_new(a, "allocationTimestamp", json_string(ts));
        json_array_append_new(patch, json_pack("{s:s,s:s,s:s}", "op", "add", "path",
                                               "/status/allocation/allocationTimestamp", "value", ts));
    }
    char *reason = out->objects_only ? NULL
                   : rc->group       ? dra_xasprintf("%s: %s PodGroup %s (uid %s) of pod %s", ref,
                                               allocating ? "allocate and reserve for" : "reserve for",
                                                     dra_jstr_or(rc->group, "metadata.name", ""),
                                                     dra_jstr_or(rc->group, "metadata.uid", ""), pod_name)
                                     : dra_xasprintf("%s: %s pod %s (uid %s)", ref,
                                               allocating ? "allocate and reserve for" : "reserve for", pod_name, uid);
    dra_changes_op(out, DRA_OP_PATCH, ch->obj, "status", patch, reason);
    free(reason);
    free(ts);
    free(ref);
}

/* IsReservedForPod; gname: the pod's group when DRAWorkloadResourceClaims is on. */
static bool reserved_for(const json_t *claim, const char *uid, const char *gname)
{
    return dra_claim_reserved_for_uid(claim, uid) || (gname && dra_claim_reserved_for_group(claim, gname));
}

dra_err *dra_claims_reserve_in(const dra_cluster *c, dra_changes *out, const json_t *pod,
                               const dra_reserve_claim *claims, size_t n, const dra_reserve_opts *opts)
{
    static const dra_reserve_opts controller = {0};
    if (!opts)
        opts = &controller;
    const char *ns = dra_jstr_or(pod, "metadata.namespace", "");
    const char *uid = dra_jstr_or(pod, "metadata.uid", "");
    if (!*uid)
        return locate_in_input(
            dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value: the pod has no UID to reserve for"),
                          "metadata.uid"),
            c, out, pod);
    dra_err *errs = NULL;
    dra_reserve_claim *own = NULL;
    if (!claims) {
        n = pod_claims(c, out, pod, opts->features, &own, &errs);
        claims = own;
    }
    bool wl = dra_feature_enabled(opts->features, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS);
    const char *gname = wl ? dra_pod_group_name(pod) : NULL;
    const json_t **cur = dra_xcalloc(n + 1, sizeof *cur);
    /* first pass: refuse before recording anything */
    for (size_t i = 0; i < n; i++) {
        const dra_reserve_claim *rc = &claims[i];
        cur[i] = rc->claim ? dra_changes_current(out, rc->claim)
                           : dra_state_find(c, out, DRA_KIND_RESOURCE_CLAIM, ns, rc->name);
        if (!cur[i]) {
            errs = dra_err_append(
                errs, dra_err_new(DRA_EXIT_NEGATIVE, "resourceclaim.resource.k8s.io \"%s\" not found", rc->name));
            continue;
        }
        if (rc->check_owner) {
            char *why = dra_claim_is_for_pod_or_group(pod, cur[i], gname);
            if (why) {
                errs = dra_err_append(errs, locate_in_input(dra_err_new(DRA_EXIT_NEGATIVE, "%s", why), c, out, cur[i]));
                free(why);
                continue;
            }
        }
        bool allocating = opts->bind && rc->allocation;
        if (!allocating && reserved_for(cur[i], uid, gname))
            continue;
        dra_err *e = reserve_refusal(rc->name, cur[i], allocating);
        if (e)
            errs = dra_err_append(errs, locate_in_input(e, c, out, cur[i]));
    }
    if (!errs) {
        for (size_t i = 0; i < n; i++) {
            dra_change *ch = dra_changes_touch(out, cur[i]);
            /* listed twice by the pod, or already reserved */
            if (!(opts->bind && claims[i].allocation) && reserved_for(ch->obj, uid, gname))
                continue;
            reserve_one(out, ch, pod, &claims[i], opts);
        }
    }
    free(cur);
    free(own);
    return errs;
}

dra_err *dra_claims_reserve(const dra_cluster *c, const char *pod_ns, const char *pod_name, const dra_features *f,
                            dra_changes *out)
{
    const json_t *pod = dra_state_find(c, out, DRA_KIND_POD, pod_ns, pod_name);
    if (!pod)
        return dra_err_new(DRA_EXIT_INPUT, "pods \"%s\" not found in namespace \"%s\"", pod_name, pod_ns);
    dra_reserve_opts ro = {.features = f};
    return dra_claims_reserve_in(c, out, pod, NULL, 0, &ro);
}

/* ---- release ---- */

static bool has_pod_reservation(const json_t *claim)
{
    size_t j;
    json_t *r;
    json_array_foreach(dra_jarr(claim, "status.reservedFor"), j, r) {
        if (!*dra_jstr_or(r, "apiGroup", "") && strcmp(dra_jstr_or(r, "resource", ""), "pods") == 0)
            return true;
    }
    return false;
}

static bool is_group_entry(const json_t *e)
{
    return strcmp(dra_jstr_or(e, "apiGroup", ""), DRA_SCHEDULING_GROUP) == 0 &&
           strcmp(dra_jstr_or(e, "resource", ""), "podgroups") == 0;
}

static bool has_group_reservation(const json_t *claim)
{
    size_t j;
    json_t *r;
    json_array_foreach(dra_jarr(claim, "status.reservedFor"), j, r) {
        if (is_group_entry(r))
            return true;
    }
    return false;
}

/* Namespaces with pod reservations but without any Pod in the input (with
 * `groups`: PodGroup reservations without any PodGroup instead), "a, b" in
 * input order; NULL when there are none.  Caller frees. */
static char *namespaces_without_pods(const dra_cluster *c, bool groups)
{
    dra_buf b = DRA_BUF_INIT;
    dra_lc_index seen = {0}, group_ns = {0};
    for (size_t i = 0; groups && i < c->n[DRA_KIND_POD_GROUP]; i++)
        dra_lc_index_add(&group_ns, 1, dra_jstr_or(c->of[DRA_KIND_POD_GROUP][i]->json, "metadata.namespace", ""), NULL,
                         i);
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_CLAIM]; i++) {
        const json_t *claim = c->of[DRA_KIND_RESOURCE_CLAIM][i]->json;
        const char *ns = dra_jstr_or(claim, "metadata.namespace", "");
        bool bare = groups ? has_group_reservation(claim) && !dra_lc_index_find(&group_ns, 1, ns, NULL)
                           : has_pod_reservation(claim) && !dra_cluster_has_pods_in(c, ns);
        if (!bare || dra_lc_index_find(&seen, 0, ns, NULL))
            continue;
        dra_lc_index_add(&seen, 0, ns, NULL, i);
        dra_buf_printf(&b, "%s%s", b.len ? ", " : "", ns);
    }
    dra_lc_index_free(&seen);
    dra_lc_index_free(&group_ns);
    if (!b.len) {
        dra_buf_free(&b);
        return NULL;
    }
    return dra_buf_detach(&b);
}

/* Why a reservedFor PodGroup entry is stale (DRAWorkloadResourceClaims), or NULL. */
static const char *stale_group_reason(const dra_cluster *c, const char *ns, const json_t *entry)
{
    const dra_obj *g = dra_cluster_find(c, DRA_KIND_POD_GROUP, ns, dra_jstr_or(entry, "name", ""));
    if (!g)
        return "is gone";
    if (strcmp(dra_jstr_or(g->json, "metadata.uid", ""), dra_jstr_or(entry, "uid", "")) != 0)
        return "got replaced (other UID)";
    return NULL;
}

/* Why a reservedFor pod entry is stale, or NULL to keep it (syncClaim). */
static const char *stale_reason(const dra_cluster *c, const char *ns, const json_t *entry)
{
    const dra_obj *pod = dra_cluster_find(c, DRA_KIND_POD, ns, dra_jstr_or(entry, "name", ""));
    if (!pod)
        return "is gone";
    if (strcmp(dra_jstr_or(pod->json, "metadata.uid", ""), dra_jstr_or(entry, "uid", "")) != 0)
        return "got replaced (other UID)";
    if (dra_pod_is_done(pod->json))
        return dra_obj_deleting(pod->json) && !*dra_jstr_or(pod->json, "spec.nodeName", "")
                   ? "was deleted before being scheduled"
                   : "is done";
    return NULL;
}

static void remove_finalizer(dra_changes *out, dra_change *ch, const char *ref)
{
    size_t idx;
    if (!dra_has_finalizer(ch->obj, DRA_DELETE_PROTECTION_FINALIZER, &idx))
        return;
    json_t *patch = dra_changes_new_patch(out);
    dra_patch_preconditions(patch, ch);
    char *path = dra_xasprintf("/metadata/finalizers/%zu", idx);
    json_array_append_new(
        patch, json_pack("{s:s,s:s,s:s}", "op", "test", "path", path, "value", DRA_DELETE_PROTECTION_FINALIZER));
    json_array_append_new(patch, json_pack("{s:s,s:s}", "op", "remove", "path", path));
    free(path);
    json_t *fins = dra_jarr(ch->obj, "metadata.finalizers");
    json_array_remove(fins, idx);
    if (!json_array_size(fins))
        json_object_del(json_object_get(ch->obj, "metadata"), "finalizers");
    char *reason =
        dra_xasprintf("%s: remove finalizer " DRA_DELETE_PROTECTION_FINALIZER " (allocation is cleared)", ref);
    dra_changes_op(out, DRA_OP_PATCH, ch->obj, NULL, patch, reason);
    free(reason);
    /* a deleting object without finalizers is gone */
    if (dra_obj_deleting(ch->obj) && !json_array_size(dra_jarr(ch->obj, "metadata.finalizers")))
        ch->deleted = true;
}

static void release_claim(const dra_cluster *c, const dra_release_opts *opts, const dra_obj *co, dra_changes *out)
{
    const json_t *claim = co->json;
    const char *ns = dra_jstr_or(claim, "metadata.namespace", "");
    char *ref = dra_xasprintf("ResourceClaim %s/%s", ns, dra_jstr_or(claim, "metadata.name", ""));
    json_t *rf = dra_jarr(claim, "status.reservedFor");
    size_t nrf = json_array_size(rf), nvalid = 0;
    bool *drop = dra_xcalloc(nrf ? nrf : 1, sizeof *drop);
    dra_buf why = DRA_BUF_INIT;
    size_t i;
    json_t *e;
    json_array_foreach(rf, i, e) {
        const char *r = NULL;
        bool group = false;
        if (!*dra_jstr_or(e, "apiGroup", "") && strcmp(dra_jstr_or(e, "resource", ""), "pods") == 0)
            r = stale_reason(c, ns, e);
        else if (dra_feature_enabled(opts->features, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS) && is_group_entry(e))
            r = stale_group_reason(c, ns, e), group = true;
        /* E5-5: other consumer kinds are kept */
        if (r) {
            drop[i] = true;
            dra_buf_printf(&why, "%s%s %s %s", why.len ? ", " : "", group ? "PodGroup" : "pod",
                           dra_jstr_or(e, "name", ""), r);
        } else {
            nvalid++;
        }
    }
    bool has_fin = dra_has_finalizer(claim, DRA_DELETE_PROTECTION_FINALIZER, NULL);
    dra_change *ch = NULL;
    if (nvalid < nrf) {
        ch = dra_changes_touch(out, claim);
        json_t *patch = dra_changes_new_patch(out);
        dra_patch_preconditions(patch, ch);
        json_t *wrf = dra_jarr(ch->obj, "status.reservedFor");
        /* remove from the end so that indexes stay right; test each UID first */
        for (size_t k = nrf; k-- > 0;) {
            if (!drop[k])
                continue;
            char *path = dra_xasprintf("/status/reservedFor/%zu", k);
            char *upath = dra_xasprintf("%s/uid", path);
            json_array_append_new(patch, json_pack("{s:s,s:s,s:s}", "op", "test", "path", upath, "value",
                                                   dra_jstr_or(json_array_get(rf, k), "uid", "")));
            json_array_append_new(patch, json_pack("{s:s,s:s}", "op", "remove", "path", path));
            json_array_remove(wrf, k);
            free(path);
            free(upath);
        }
        bool dealloc = nvalid == 0 && has_fin && dra_claim_allocated(ch->obj);
        if (nvalid == 0)
            json_object_del(json_object_get(ch->obj, "status"), "reservedFor");
        if (dealloc) {
            json_array_append_new(patch, json_pack("{s:s,s:s}", "op", "remove", "path", "/status/allocation"));
            json_object_del(json_object_get(ch->obj, "status"), "allocation");
        }
        char *reason = dra_xasprintf("%s: drop reservedFor: %s%s", ref, dra_buf_str(&why),
                                     dealloc ? "; no users left: deallocate" : "");
        dra_changes_op(out, DRA_OP_PATCH, ch->obj, "status", patch, reason);
        free(reason);
        if (has_fin && !dra_claim_allocated(ch->obj))
            remove_finalizer(out, ch, ref);
    } else if (has_fin && dra_obj_deleting(claim) && nvalid == 0) {
        ch = dra_changes_touch(out, claim);
        if (dra_claim_allocated(claim)) {
            json_t *patch = dra_changes_new_patch(out);
            dra_patch_preconditions(patch, ch);
            json_array_append_new(patch, json_pack("{s:s,s:s}", "op", "remove", "path", "/status/allocation"));
            json_object_del(json_object_get(ch->obj, "status"), "allocation");
            char *reason = dra_xasprintf("%s: being deleted without users: deallocate", ref);
            dra_changes_op(out, DRA_OP_PATCH, ch->obj, "status", patch, reason);
            free(reason);
        }
        remove_finalizer(out, ch, ref);
    }

    if (nvalid == 0 && !(ch && ch->deleted) && !dra_obj_deleting(claim)) {
        const json_t *owner = dra_owning_pod_ref(claim);
        if (owner) {
            const char *pn = dra_jstr_or(owner, "name", "");
            const dra_obj *pod = dra_cluster_find(c, DRA_KIND_POD, ns, pn);
            const char *r = NULL;
            /* E5-7: a pod missing from the cache is left to the garbage collector */
            if (!pod)
                r = opts->delete_orphans ? "owner pod is gone (as the garbage collector would delete it)" : NULL;
            else if (strcmp(dra_jstr_or(pod->json, "metadata.uid", ""), dra_jstr_or(owner, "uid", "")) != 0)
                r = "owner pod got replaced (other UID)";
            else if (dra_pod_is_done(pod->json))
                r = "owner pod is done";
            if (r) {
                if (!ch)
                    ch = dra_changes_touch(out, claim);
                const char *cuid = dra_jstr(claim, "metadata.uid");
                char *reason = dra_xasprintf("%s: delete unused generated claim: %s%s", ref, r,
                                             cuid && *cuid ? ""
                                                           : " (UNCONDITIONAL: the input has no metadata.uid "
                                                             "for a precondition; a claim recreated under this "
                                                             "name would be deleted too)");
                dra_changes_op(out, DRA_OP_DELETE, ch->obj, NULL, dra_delete_options(dra_jstr(claim, "metadata.uid")),
                               reason);
                free(reason);
                ch->deleted = true;
            }
        }
    }
    dra_buf_free(&why);
    free(drop);
    free(ref);
}

dra_err *dra_claims_release(const dra_cluster *c, const dra_release_opts *opts, dra_changes *out)
{
    static const dra_release_opts zero = {0};
    if (!opts)
        opts = &zero;
    char *bare = opts->no_pods_ok ? NULL : namespaces_without_pods(c, false);
    if (bare) {
        dra_err *e = dra_err_new(DRA_EXIT_INPUT,
                                 "the input has no Pods in namespace %s, but claims there are reserved for pods: every "
                                 "reservation would look stale; pass the pods too (kubectl get pods -A -o yaml)",
                                 bare);
        e = dra_err_hint(e, "no-pods-ok"); /* if those namespaces really have no pods left */
        free(bare);
        return e;
    }
    /* the same for PodGroup reservations, which the gate makes stale when the group is gone */
    bare = opts->no_pods_ok || !dra_feature_enabled(opts->features, DRA_FEATURE_WORKLOAD_RESOURCE_CLAIMS)
               ? NULL
               : namespaces_without_pods(c, true);
    if (bare) {
        dra_err *e = dra_err_new(DRA_EXIT_INPUT,
                                 "the input has no PodGroups in namespace %s, but claims there are reserved for "
                                 "PodGroups: every such reservation would look stale; pass the PodGroups too "
                                 "(kubectl get podgroups -A -o yaml)",
                                 bare);
        e = dra_err_hint(e, "no-pods-ok");
        free(bare);
        return e;
    }
    for (size_t i = 0; i < c->n[DRA_KIND_RESOURCE_CLAIM]; i++)
        release_claim(c, opts, c->of[DRA_KIND_RESOURCE_CLAIM][i], out);
    return NULL;
}
