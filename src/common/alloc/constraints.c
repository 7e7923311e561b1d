/* Claim constraints: matchAttribute and distinctAttribute (dra.md §3.6,
 * dra-corrections.md A5; upstream incubating allocator_incubating.go
 * matchAttributeConstraint, lookupAttribute, and the distinctAttribute
 * constraint; experimental/constraint.go for list-type attributes).
 *
 * Upstream quirks kept on purpose:
 *  - matchAttribute tracks only a count; with list semantics the running
 *    intersection is not restored when a device is removed (reset at 0);
 *  - distinctAttribute stores one value per *base request name*: a later
 *    device of the same request overwrites it and undo deletes it, so
 *    uniqueness among several devices of one request is not fully enforced. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool applies(const al_constraint *c, const al_req *req)
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

const json_t *al_lookup_attribute(const al_device *d, const char *attr)
{
    if (!d->attributes)
        return NULL;
    const json_t *v = json_object_get(d->attributes, attr);
    if (v)
        return v;
    const char *slash = strchr(attr, '/');
    if (!slash)
        return NULL;
    size_t dl = (size_t)(slash - attr);
    if (strlen(d->slice->driver) != dl || strncmp(attr, d->slice->driver, dl) != 0)
        return NULL;
    return json_object_get(d->attributes, slash + 1);
}

/* Scalar kind: 0 none, 1 string, 2 int, 3 bool, 4 version. */
static int scalar_kind(const json_t *a, const json_t **val)
{
    static const char *keys[] = {NULL, "string", "int", "bool", "version"};
    for (int k = 1; k <= 4; k++) {
        const json_t *v = al_jget(a, keys[k]);
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
        const json_t *v = al_jget(a, keys[k]);
        if (json_is_array(v)) {
            *kind = k;
            *arr = v;
            return true;
        }
    }
    return false;
}

static bool version_eq(const char *a, const char *b)
{
    /* Semver equality ignores build metadata; valid versions are minimal. */
    size_t la = strcspn(a, "+"), lb = strcspn(b, "+");
    return la == lb && strncmp(a, b, la) == 0;
}

static bool scalar_eq(int kind, const json_t *a, const json_t *b)
{
    switch (kind) {
    case 1: return json_is_string(a) && json_is_string(b) && strcmp(json_string_value(a), json_string_value(b)) == 0;
    case 2: return json_is_integer(a) && json_is_integer(b) && json_integer_value(a) == json_integer_value(b);
    case 3: return json_is_boolean(a) && json_is_boolean(b) && json_boolean_value(a) == json_boolean_value(b);
    case 4:
        return json_is_string(a) && json_is_string(b) && version_eq(json_string_value(a), json_string_value(b));
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

static bool vset_intersects(const vset *a, const vset *b)
{
    if (a->kind != b->kind)
        return false;
    for (size_t i = 0; i < vset_n(a); i++)
        for (size_t j = 0; j < vset_n(b); j++)
            if (scalar_eq(a->kind, vset_at(a, i), vset_at(b, j)))
                return true;
    return false;
}

static void describe(const json_t *a, char *buf, size_t len)
{
    char *s = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    snprintf(buf, len, "%s", s ? s : "(unset)");
    free(s);
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
        if (!k || k != rk || !scalar_eq(k, v, rv)) {
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
    if (c->ndevices == 0) {
        c->ref_set = realloc(c->ref_set, vset_n(&s) * sizeof *c->ref_set);
        c->nref_set = vset_n(&s);
        for (size_t i = 0; i < c->nref_set; i++)
            c->ref_set[i] = vset_at(&s, i);
        c->ref = attr;
        c->ndevices = 1;
        return true;
    }
    vset rs;
    as_set(c->ref, &rs);
    /* Intersect the running set with the new one, kinds must agree. */
    size_t keep = 0;
    if (s.kind == rs.kind)
        for (size_t i = 0; i < c->nref_set; i++) {
            bool found = false;
            for (size_t j = 0; j < vset_n(&s) && !found; j++)
                found = scalar_eq(s.kind, c->ref_set[i], vset_at(&s, j));
            if (found)
                c->ref_set[keep++] = c->ref_set[i];
        }
    if (!keep) {
        if (why) {
            char a[128];
            describe(attr, a, sizeof a);
            snprintf(why, whylen, "matchAttribute %s: %s shares no value with the devices chosen so far", c->attr, a);
        }
        return false;
    }
    c->nref_set = keep;
    c->ndevices++;
    return true;
}

static void distinct_store(al_constraint *c, const char *base, const json_t *attr)
{
    for (size_t i = 0; i < c->nvals; i++)
        if (strcmp(c->dnames[i], base) == 0) {
            c->vals[i] = attr;
            return;
        }
    if (c->nvals == c->capvals) {
        c->capvals = c->capvals ? c->capvals * 2 : 4;
        c->dnames = dra_xrealloc(c->dnames, c->capvals * sizeof *c->dnames);
        c->vals = dra_xrealloc(c->vals, c->capvals * sizeof *c->vals);
    }
    c->dnames[c->nvals] = base;
    c->vals[c->nvals++] = attr;
}

static bool distinct_add(al_run *r, al_constraint *c, const char *base, const json_t *attr, char *why,
                         size_t whylen)
{
    if (c->nvals > 0) {
        const json_t *dup = NULL;
        if (!r->w->f.list_attributes) {
            const json_t *v;
            int k = scalar_kind(attr, &v);
            for (size_t i = 0; i < c->nvals && !dup; i++) {
                const json_t *ov;
                int ok = scalar_kind(c->vals[i], &ov);
                if (!k)
                    dup = c->vals[i]; /* unknown type: cannot be shown distinct */
                else if (ok == k && scalar_eq(k, v, ov))
                    dup = c->vals[i];
            }
        } else {
            vset s;
            if (!as_set(attr, &s)) {
                if (why)
                    snprintf(why, whylen, "distinctAttribute %s: value unknown (empty list or no value)", c->attr);
                return false;
            }
            for (size_t i = 0; i < c->nvals && !dup; i++) {
                vset o;
                if (as_set(c->vals[i], &o) && vset_intersects(&s, &o))
                    dup = c->vals[i];
            }
        }
        if (dup) {
            if (why) {
                char a[128];
                describe(attr, a, sizeof a);
                snprintf(why, whylen, "distinctAttribute %s: %s is already taken", c->attr, a);
            }
            return false;
        }
    }
    distinct_store(c, base, attr);
    return true;
}

bool al_constraint_add(al_run *r, al_constraint *c, const al_req *req, const al_device *d, char *why, size_t whylen)
{
    if (!applies(c, req))
        return true;
    const json_t *attr = al_lookup_attribute(d, c->attr);
    if (!attr) {
        if (why)
            snprintf(why, whylen, "%s %s: attribute not set", c->match ? "matchAttribute" : "distinctAttribute",
                     c->attr);
        return false;
    }
    if (c->match)
        return match_add(r, c, attr, why, whylen);
    return distinct_add(r, c, req->parent ? req->parent->name : req->name, attr, why, whylen);
}

void al_constraint_remove(al_run *r, al_constraint *c, const al_req *req, const al_device *d)
{
    (void)r;
    (void)d;
    if (!applies(c, req))
        return;
    if (c->match) {
        c->ndevices--;
        return;
    }
    const char *base = req->parent ? req->parent->name : req->name;
    for (size_t i = 0; i < c->nvals; i++)
        if (strcmp(c->dnames[i], base) == 0) {
            c->dnames[i] = c->dnames[c->nvals - 1];
            c->vals[i] = c->vals[c->nvals - 1];
            c->nvals--;
            return;
        }
}
