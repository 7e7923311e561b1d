/* Claim constraints: matchAttribute and distinctAttribute (dra.md §3.6,
 * dra-corrections.md A5; upstream allocator_incubating.go
 * matchAttributeConstraint and lookupAttribute, experimental/constraint.go
 * distinctAttributeConstraint and the DRAListTypeAttributes set semantics).
 *
 * Both constraints undo exactly what they did, in last-in first-out order
 * (the search removes devices in the reverse order it added them):
 *  - matchAttribute with list semantics keeps one running intersection per
 *    added device, so a removal restores the previous intersection
 *    (upstream's intersectionStack; allocator_testing.go case
 *    list-attributes-match-constraint-backtrack-needs-intersection-restore).
 *    Older upstream kept a single intersection and did not restore it.
 *  - distinctAttribute keeps the values of all devices added, in order, and
 *    a new device is compared with every one of them (upstream's
 *    `attributes` slice; allocator_testing.go case
 *    list-attributes-distinct-constraint-backtrack-needs-remove).  Older
 *    upstream kept one value per request name, so several devices of one
 *    request were not all compared. */
#include <stdlib.h>
#include <string.h>

#include "constraints.h"
#include "../base/assert.h"
#include "../base/error.h"
#include "../model/semver.h"

bool dra_al_constraint_applies(const al_constraint *c, const al_req *req)
{
    if (!json_is_array(c->requests) || !json_array_size(c->requests))
        return true;
    const char *base = req->parent ? req->parent->name : req->name;
    size_t i;
    const json_t *v;
    json_array_foreach(c->requests, i, v) {
        const char *s = json_string_value(v);
        if (!s)
            continue;
        if (strcmp(s, base) == 0)
            return true;
        if (req->parent && strcmp(s, req->full_name) == 0)
            return true;
    }
    return false;
}

const json_t *dra_al_lookup_attribute(const al_device *d, const char *attr)
{
    /* parsing a packed device on first use changes only its cache */
    const json_t *attrs = dra_al_device_attrs((al_device *)d);
    if (!attrs)
        return NULL;
    const json_t *v = json_object_get(attrs, attr);
    if (v)
        return v;
    const char *slash = strchr(attr, '/');
    if (!slash)
        return NULL;
    size_t dl = (size_t)(slash - attr);
    if (strlen(d->slice->driver) != dl || strncmp(attr, d->slice->driver, dl) != 0)
        return NULL;
    return json_object_get(attrs, slash + 1);
}

const json_t *dra_al_derived_attribute(const al_req *req, const al_device *d, const char *name)
{
    for (size_t k = 0; k < req->nderived; k++)
        if (strcmp(req->derived[k].name, name) == 0)
            return req->dvals ? req->dvals[(size_t)d->lid * req->nderived + k] : NULL;
    return NULL;
}

/* Scalar kind: 0 none, 1 string, 2 int, 3 bool, 4 version. */
static int scalar_kind(const json_t *a, const json_t **val)
{
    static const char *keys[] = {NULL, "string", "int", "bool", "version"};
    for (int k = 1; k <= 4; k++) {
        const json_t *v = dra_jfield(a, keys[k]);
        if (v) {
            *val = v;
            return k;
        }
    }
    *val = NULL;
    return 0;
}

static bool list_kind(const json_t *a, int *kind, const json_t **arr)
{
    static const char *keys[] = {NULL, "strings", "ints", "bools", "versions"};
    for (int k = 1; k <= 4; k++) {
        const json_t *v = dra_jfield(a, keys[k]);
        if (json_is_array(v)) {
            *kind = k;
            *arr = v;
            return true;
        }
    }
    return false;
}

/* The length of version string s without its build metadata. */
static size_t without_build(const char *s)
{
    const char *plus = strchr(s, '+');
    return plus ? (size_t)(plus - s) : strlen(s);
}

/* nobuild: 1.38's comparison of versions, build metadata ignored. */
static bool scalar_eq(int kind, const json_t *a, const json_t *b, bool nobuild)
{
    switch (kind) {
    case 4:
        /* From 1.38 on semver.Version.Equals and versionWithoutBuild, which
         * ignore build metadata (structured/internal/experimental
         * constraint.go, allocator_experimental.go attributeAsSet,
         * v0.38.0-beta.0); through 1.37 the strings, build metadata
         * included (matchAttributeConstraint.add, attributeAsSet's sets). */
        if (nobuild && json_is_string(a) && json_is_string(b)) {
            const char *x = json_string_value(a), *y = json_string_value(b);
            size_t nx = without_build(x), ny = without_build(y);
            return nx == ny && memcmp(x, y, nx) == 0;
        }
        /* fall through */
    case 1: return json_is_string(a) && json_is_string(b) && strcmp(json_string_value(a), json_string_value(b)) == 0;
    case 2: return json_is_integer(a) && json_is_integer(b) && json_integer_value(a) == json_integer_value(b);
    case 3: return json_is_boolean(a) && json_is_boolean(b) && json_boolean_value(a) == json_boolean_value(b);
    }
    return false;
}

/* attributeAsSet: a scalar is a one-element set, a non-empty list its
 * elements; an empty list or no value is "unknown" (returns false). */
typedef struct vset {
    int kind;
    const json_t *one;
    const json_t *arr;
} vset;

static bool as_set(const json_t *a, vset *s)
{
    *s = (vset){0};
    int k;
    const json_t *arr;
    if (list_kind(a, &k, &arr)) {
        if (!json_array_size(arr))
            return false;
        s->kind = k;
        s->arr = arr;
        return true;
    }
    const json_t *v;
    k = scalar_kind(a, &v);
    if (!k)
        return false;
    s->kind = k;
    s->one = v;
    return true;
}

static size_t vset_n(const vset *s)
{
    return s->arr ? json_array_size(s->arr) : 1;
}

static const json_t *vset_at(const vset *s, size_t i)
{
    return s->arr ? json_array_get(s->arr, i) : s->one;
}

static bool vset_intersects(const vset *a, const vset *b, bool nobuild)
{
    if (a->kind != b->kind)
        return false;
    for (size_t i = 0; i < vset_n(a); i++)
        for (size_t j = 0; j < vset_n(b); j++)
            if (scalar_eq(a->kind, vset_at(a, i), vset_at(b, j), nobuild))
                return true;
    return false;
}

static void describe(const json_t *a, char *buf, size_t len)
{
    char *s = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    snprintf(buf, len, "%s", s ? s : "(unset)");
    free(s);
}

/* The current (top) intersection of a list-semantics matchAttribute. */
static size_t level_start(const al_constraint *c, int level)
{
    return level > 0 ? c->level_end[level - 1] : 0;
}

static void push_value(al_constraint *c, const json_t *v)
{
    if (c->nref_set == c->capref_set) {
        c->capref_set = c->capref_set ? c->capref_set * 2 : 8;
        c->ref_set = dra_xrealloc(c->ref_set, c->capref_set * sizeof *c->ref_set);
    }
    c->ref_set[c->nref_set++] = v;
}

/* Close the level being built: it becomes level c->ndevices. */
static void push_level(al_constraint *c)
{
    if ((size_t)c->ndevices >= c->caplevels) {
        c->caplevels = c->caplevels ? c->caplevels * 2 : 4;
        c->level_end = dra_xrealloc(c->level_end, c->caplevels * sizeof *c->level_end);
    }
    c->level_end[c->ndevices++] = c->nref_set;
}

static bool match_add(al_run *r, al_constraint *c, const json_t *attr, char *why, size_t whylen)
{
    if (!r->w->f.list_attributes) {
        if (c->ndevices == 0) {
            c->ref = attr;
            c->ndevices = 1;
            return true;
        }
        const json_t *v, *rv;
        int k = scalar_kind(attr, &v);
        int rk = scalar_kind(c->ref, &rv);
        if (!k || k != rk || !scalar_eq(k, v, rv, r->w->f.versions_without_build)) {
            if (why) {
                char a[128], b[128];
                describe(attr, a, sizeof a);
                describe(c->ref, b, sizeof b);
                snprintf(why, whylen, "matchAttribute %s: %s differs from %s", c->attr, a, b);
            }
            return false;
        }
        c->ndevices++;
        return true;
    }
    vset s;
    if (!as_set(attr, &s)) {
        if (why)
            snprintf(why, whylen, "matchAttribute %s: value unknown (empty list or no value)", c->attr);
        return false;
    }
    size_t mark = c->nref_set;
    if (c->ndevices == 0) {
        for (size_t i = 0; i < vset_n(&s); i++)
            push_value(c, vset_at(&s, i));
        c->ref = attr;
        push_level(c);
        return true;
    }
    /* Intersect the top level with the new set (kinds must agree) into a
     * new level on top of it. */
    vset rs;
    as_set(c->ref, &rs);
    size_t from = level_start(c, c->ndevices - 1), to = mark;
    if (s.kind == rs.kind)
        for (size_t i = from; i < to; i++) {
            bool found = false;
            for (size_t j = 0; j < vset_n(&s) && !found; j++)
                found = scalar_eq(s.kind, c->ref_set[i], vset_at(&s, j), r->w->f.versions_without_build);
            if (found)
                push_value(c, c->ref_set[i]);
        }
    if (c->nref_set == mark) {
        if (why) {
            char a[128];
            describe(attr, a, sizeof a);
            snprintf(why, whylen, "matchAttribute %s: %s shares no value with the devices chosen so far", c->attr, a);
        }
        return false;
    }
    push_level(c);
    return true;
}

static void dup_reason(const al_constraint *c, const json_t *attr, char *why, size_t whylen)
{
    if (why) {
        char a[128];
        describe(attr, a, sizeof a);
        snprintf(why, whylen, "distinctAttribute %s: %s is already taken", c->attr, a);
    }
}

static bool distinct_add(al_run *r, al_constraint *c, const json_t *attr, char *why, size_t whylen)
{
    if (!r->w->f.list_attributes) {
        const json_t *v;
        int k = scalar_kind(attr, &v);
        for (size_t i = 0; i < c->nvals; i++) {
            const json_t *ov;
            int ok = scalar_kind(c->vals[i], &ov);
            /* An unknown type cannot be shown distinct; values of another
             * type are distinct. */
            if (!k || (ok == k && scalar_eq(k, v, ov, r->w->f.versions_without_build))) {
                dup_reason(c, attr, why, whylen);
                return false;
            }
        }
    } else {
        /* Pairwise disjoint sets; an unknown value fails even first. */
        vset s;
        if (!as_set(attr, &s)) {
            if (why)
                snprintf(why, whylen, "distinctAttribute %s: value unknown (empty list or no value)", c->attr);
            return false;
        }
        for (size_t i = 0; i < c->nvals; i++) {
            vset o;
            if (as_set(c->vals[i], &o) && vset_intersects(&s, &o, r->w->f.versions_without_build)) {
                dup_reason(c, attr, why, whylen);
                return false;
            }
        }
    }
    if (c->nvals == c->capvals) {
        c->capvals = c->capvals ? c->capvals * 2 : 4;
        c->vals = dra_xrealloc(c->vals, c->capvals * sizeof *c->vals);
    }
    c->vals[c->nvals++] = attr;
    return true;
}

/* Whether a version string parses as semver (blang/semver). */
static bool version_parses(const json_t *v)
{
    dra_semver sv;
    dra_err *e = json_is_string(v) ? dra_semver_parse(json_string_value(v), json_string_length(v), &sv)
                                   : dra_err_new(DRA_EXIT_INPUT, "not a string");
    bool ok = !e;
    dra_err_free(e);
    return ok;
}

/* 1.38's attrValue (api/conversion.go): a scalar or a non-empty list, a
 * version semver can parse; anything else is no value. */
static bool usable_1_38(const json_t *attr)
{
    const json_t *v;
    int k = scalar_kind(attr, &v);
    if (k)
        return k != 4 || version_parses(v);
    const json_t *arr;
    if (!list_kind(attr, &k, &arr) || json_array_size(arr) == 0)
        return false;
    size_t i;
    json_array_foreach(arr, i, v)
        if (k == 4 && !version_parses(v))
            return false;
    return true;
}

/* The value of c's attribute for d under req: a derived attribute of the
 * request shadows the device's own (KEP-6080). */
static const json_t *value_of(const al_constraint *c, const al_req *req, const al_device *d)
{
    const json_t *attr = dra_al_derived_attribute(req, d, c->attr);
    return attr ? attr : dra_al_lookup_attribute(d, c->attr);
}

bool dra_al_constraint_add(al_run *r, al_constraint *c, const al_req *req, const al_device *d, char *why, size_t whylen,
                           dra_err **fatal)
{
    *fatal = NULL;
    if (!dra_al_constraint_applies(c, req))
        return true;
    const json_t *attr = value_of(c, req, d);
    if (!attr) {
        if (why)
            snprintf(why, whylen, "%s %s: attribute not set", c->match ? "matchAttribute" : "distinctAttribute",
                     c->attr);
        return false;
    }
    const json_t *scalar;
    if (r->w->f.list_value_fatal && (!usable_1_38(attr) || (!r->w->f.list_attributes && !scalar_kind(attr, &scalar)))) {
        /* 1.38 stops rather than ignore the device: lookupAttribute refuses
         * an attribute without a usable value, and with list semantics off
         * only a scalar can match (experimental/constraint.go
         * distinctAttributeConstraint.add, allocator_experimental.go and
         * allocator_incubating.go lookupAttribute and
         * matchAttributeConstraint.add, stable/constraint.go;
         * v0.38.0-beta.0).  Through 1.37 such a value matched nothing. */
        al_idbuf ib;
        *fatal =
            dra_err_new(DRA_EXIT_INPUT, "device %s: unsupported attribute value for %s", dra_al_id(d, &ib), c->attr);
        return false;
    }
    if (c->match)
        return match_add(r, c, attr, why, whylen);
    return distinct_add(r, c, attr, why, whylen);
}

void dra_al_constraint_remove(al_run *r, al_constraint *c, const al_req *req, const al_device *d)
{
    if (!dra_al_constraint_applies(c, req))
        return;
    if (!c->match) {
        /* last in, first out: the value on top is d's */
        DRA_ASSERT(c->nvals > 0 && c->vals[c->nvals - 1] == value_of(c, req, d));
        if (c->nvals > 0)
            c->nvals--;
        return;
    }
    DRA_ASSERT(c->ndevices > 0);
    if (c->ndevices <= 0)
        return;
    c->ndevices--;
    if (r->w->f.list_attributes)
        c->nref_set = level_start(c, c->ndevices); /* pop the top intersection */
}
