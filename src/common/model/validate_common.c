/* Shared validation helpers; see validate_common.h.  Rules and texts from
 * pkg/apis/resource/validation/validation.go, pkg/apis/core/validation
 * (ValidateObjectMeta, ValidateNodeSelector) and
 * apimachinery/pkg/apis/meta/v1/validation (ValidateConditions). */
#include "validate_common.h"

#include "semver.h"
#include "time.h"

#include "../io/stream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void dra_vctx_init(vctx *v, const dra_validate_opts *opts)
{
    memset(v, 0, sizeof *v);
    v->opts = opts;
    v->literal_lookups = DRA_FIELD_LINE_LOOKUPS;
}

/* A value held once (refcount 1) is in this tree alone: not shared. */
const vshared *dra_vshared_find(const vctx *v, const json_t *val, int tag)
{
    if (val->refcount < 2)
        return NULL;
    size_t n = v->nshared < DRA_VSHARED ? v->nshared : DRA_VSHARED;
    for (size_t i = 0; i < n; i++)
        if (v->shared[i].val == val && v->shared[i].tag == tag)
            return &v->shared[i];
    return NULL;
}

void dra_vshared_keep(vctx *v, const json_t *val, int tag, size_t count, bool flag)
{
    if (val->refcount < 2)
        return;
    v->shared[v->nshared++ % DRA_VSHARED] = (vshared){val, tag, count, flag};
}

dra_err *dra_vctx_finish(vctx *v)
{
    dra_buf_free(&v->path);
    free(v->seg);
    v->seg = NULL;
    return dra_errs_take(&v->errs);
}

static size_t vpush(vctx *v, int kind, const char *s, size_t len, size_t trunc)
{
    if (v->nseg == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->seg = dra_xrealloc(v->seg, v->cap * sizeof *v->seg);
    }
    v->seg[v->nseg] = (vseg){.kind = kind, .s = s, .len = len, .trunc = trunc};
    return v->nseg++;
}

size_t dra_vpush_child(vctx *v, const char *name)
{
    return vpush(v, VSEG_CHILD, name, 0, 0);
}

size_t dra_vpush_index(vctx *v, size_t i)
{
    return vpush(v, VSEG_INDEX, NULL, i, 0);
}

size_t dra_vpush_key(vctx *v, const char *key, size_t len, size_t trunc)
{
    return vpush(v, VSEG_KEY, key, len, trunc);
}

void dra_vpop(vctx *v, size_t mark)
{
    v->nseg = mark;
    if (v->rendered > mark)
        v->rendered = mark;
}

const char *dra_vpath(vctx *v)
{
    /* Segments below `rendered` are unchanged since the last call. */
    size_t keep = v->rendered ? v->seg[v->rendered - 1].end : 0;
    if (v->path.data) {
        v->path.len = keep;
        v->path.data[keep] = '\0';
    }
    for (size_t i = v->rendered; i < v->nseg; i++) {
        vseg *g = &v->seg[i];
        switch (g->kind) {
        case VSEG_CHILD: dra_path_child(&v->path, g->s); break;
        case VSEG_INDEX: dra_path_index(&v->path, g->len); break;
        case VSEG_KEY: {
            size_t head, tail;
            if (g->trunc && dra_echo_cut(g->len, g->trunc, &head, &tail)) {
                dra_buf_putc(&v->path, '[');
                dra_buf_append(&v->path, g->s, head);
                dra_buf_puts(&v->path, "...");
                dra_buf_append(&v->path, g->s + g->len - tail, tail);
                dra_buf_putc(&v->path, ']');
            } else {
                dra_path_key(&v->path, g->s, g->len);
            }
            break;
        }
        }
        g->end = v->path.len;
    }
    v->rendered = v->nseg;
    return dra_buf_str(&v->path);
}

void dra_vcheck(vctx *v, vcheck_fn check, const char *s, size_t len)
{
    /* Checks allocate only for bad values: run without a path first. */
    dra_errs probe = DRA_ERRS_INIT;
    check(&probe, NULL, s, len);
    if (!probe.n)
        return;
    dra_errs_free(&probe);
    check(&v->errs, dra_vpath(v), s, len);
}

void dra_vcheck_name(vctx *v, vcheck_fn check, const char *s, size_t len)
{
    size_t n = v->nnamed < DRA_VSHARED ? v->nnamed : DRA_VSHARED;
    for (size_t i = 0; i < n; i++)
        if (v->named[i].len == len && v->named[i].check == check && memcmp(v->named[i].s, s, len) == 0)
            return;
    size_t errs = v->errs.n;
    dra_vcheck(v, check, s, len);
    if (v->errs.n == errs) {
        size_t i = v->nnamed++ % DRA_VSHARED;
        v->named[i].check = check, v->named[i].s = s, v->named[i].len = len;
    }
}

void dra_vstr_check(vctx *v, const json_t *obj, const char *key, vcheck_fn check)
{
    const char *s = "";
    size_t len = 0;
    dra_vstr(v, obj, key, &s, &len);
    V_CHILD(v, key) dra_vcheck(v, check, s, len);
}

void dra_v_required_str(vctx *v, const json_t *obj, const char *key, vcheck_fn check)
{
    const char *s = "";
    size_t len = 0;
    dra_vstr(v, obj, key, &s, &len);
    V_CHILD(v, key)
    {
        if (!len)
            dra_ferr_required(&v->errs, VP(v), "");
        else
            dra_vcheck(v, check, s, len);
    }
}

void dra_v_device_id(vctx *v, const json_t *obj)
{
    dra_vstr_check(v, obj, "driver", dra_check_driver_name);
    dra_vstr_check(v, obj, "pool", dra_check_pool_name);
    dra_vstr_check(v, obj, "device", dra_check_dns1123_label);
}

bool dra_vfeature(const vctx *v, dra_feature f)
{
    return dra_feature_enabled(v->opts ? v->opts->features : NULL, f);
}

dra_release dra_vrelease(const vctx *v)
{
    return dra_features_release_of(v->opts ? v->opts->features : NULL);
}

unsigned dra_vquantity_rules(const vctx *v)
{
    return dra_quantity_rules_of(dra_vrelease(v));
}

/* ---- typed access ---- */

const json_t *dra_vget(const json_t *obj, const char *key)
{
    if (!json_is_object(obj))
        return NULL;
    const json_t *x = json_object_get(obj, key);
    return json_is_null(x) ? NULL : x;
}

bool dra_vmemo_fill(vmemo *m, const json_t *obj)
{
    m->obj = NULL;
    m->n = 0;
    if (!json_is_object(obj) || json_object_size(obj) > DRA_VMEMO_KEYS)
        return false;
    for (void *it = json_object_iter((json_t *)obj); it; it = json_object_iter_next((json_t *)obj, it)) {
        m->key[m->n] = json_object_iter_key(it);
        if (strlen(m->key[m->n]) != json_object_iter_key_len(it)) /* a NUL inside: jansson's lookup */
            return false;
        m->val[m->n++] = json_object_iter_value(it);
    }
    m->obj = obj;
    return true;
}

const json_t *dra_vmemo_get(const vmemo *m, const char *key)
{
    for (size_t j = 0; j < m->n; j++)
        if (m->key[j][0] == key[0] && strcmp(m->key[j], key) == 0)
            return m->val[j];
    return NULL;
}

size_t dra_vmemo_push(vctx *v, const json_t *obj)
{
    size_t mark = v->nmemo;
    if (mark < DRA_VMEMO_DEPTH && dra_vmemo_fill(&v->memo[mark], obj))
        v->nmemo++;
    return mark;
}

void dra_vmemo_pop(vctx *v, size_t mark)
{
    v->nmemo = mark;
}

const json_t *dra_vfield(vctx *v, const json_t *obj, const char *key)
{
    for (size_t i = v->nmemo; i-- > 0;) {
        const vmemo *m = &v->memo[i];
        if (m->obj != obj)
            continue;
        const json_t *x = dra_vmemo_get(m, key);
        return json_is_null(x) ? NULL : x;
    }
    return dra_vget(obj, key);
}

/* The digits of a number past int64 as written in the object's text, which
 * upstream decodes from that text and the real here has lost (a JSON
 * literal, or a YAML unsigned integer: dra_obj_field_literal); NULL when
 * there is none.  At the current path.  Each lookup parses the document
 * again: past DRA_FIELD_LINE_LOOKUPS of them in one object, the real is
 * used.  Caller frees. */
static char *big_number_text(vctx *v, const json_t *value)
{
    if (!json_is_real(value) || !v->opts || !v->opts->src || fabs(json_real_value(value)) < 0x1p63 ||
        v->literal_lookups <= 0)
        return NULL;
    v->literal_lookups--;
    return dra_obj_field_literal(v->opts->src, VP(v));
}

void dra_vtype_error(vctx *v, const char *key, const json_t *value, const char *type)
{
    size_t mark = key ? dra_vpush_child(v, key) : v->nseg;
    char *j = big_number_text(v, value);
    if (!j)
        j = dra_vjson(value);
    /* Keep long values out of the message. */
    if (strlen(j) > 64)
        strcpy(j + 60, "...");
    char *detail = dra_xasprintf("must be of type %s", type);
    dra_ferr_invalid_raw(&v->errs, VP(v), j, detail);
    free(detail);
    free(j);
    dra_vpop(v, mark);
}

/* obj[key] when present and of type t1 or t2; a wrong type is reported. */
static const json_t *vtyped(vctx *v, const json_t *obj, const char *key, json_type t1, json_type t2, const char *type)
{
    const json_t *x = dra_vfield(v, obj, key);
    if (x && json_typeof(x) != t1 && json_typeof(x) != t2) {
        dra_vtype_error(v, key, x, type);
        return NULL;
    }
    return x;
}

bool dra_vstr(vctx *v, const json_t *obj, const char *key, const char **s, size_t *len)
{
    const json_t *x = vtyped(v, obj, key, JSON_STRING, JSON_STRING, "string");
    if (!x)
        return false;
    *s = json_string_value(x);
    *len = json_string_length(x);
    return true;
}

bool dra_vis_str(vctx *v, const json_t *value, const char **s, size_t *len)
{
    /* a null list item or map value decodes into Go's zero string */
    if (json_is_null(value)) {
        *s = "";
        *len = 0;
        return true;
    }
    if (!json_is_string(value)) {
        dra_vtype_error(v, NULL, value, "string");
        return false;
    }
    *s = json_string_value(value);
    *len = json_string_length(value);
    return true;
}

bool dra_vis_obj(vctx *v, const json_t *value)
{
    /* a list item or map value that is null decodes into Go's zero struct:
     * checked as an empty object */
    if (json_is_null(value))
        return true;
    if (!json_is_object(value)) {
        dra_vtype_error(v, NULL, value, "object");
        return false;
    }
    return true;
}

bool dra_vobj(vctx *v, const json_t *obj, const char *key, const json_t **out)
{
    const json_t *x = vtyped(v, obj, key, JSON_OBJECT, JSON_OBJECT, "object");
    if (x)
        *out = x;
    return x != NULL;
}

bool dra_varr(vctx *v, const json_t *obj, const char *key, const json_t **out)
{
    const json_t *x = vtyped(v, obj, key, JSON_ARRAY, JSON_ARRAY, "array");
    if (x)
        *out = x;
    return x != NULL;
}

bool dra_vint(vctx *v, const json_t *obj, const char *key, int64_t *out)
{
    const json_t *x = vtyped(v, obj, key, JSON_INTEGER, JSON_INTEGER, "integer");
    if (x)
        *out = (int64_t)json_integer_value(x);
    return x != NULL;
}

bool dra_vbool(vctx *v, const json_t *obj, const char *key, bool *out)
{
    const json_t *x = vtyped(v, obj, key, JSON_TRUE, JSON_FALSE, "boolean");
    if (x)
        *out = json_is_true(x);
    return x != NULL;
}

bool dra_v_max_items(vctx *v, const char *key, const json_t *arr, size_t max)
{
    size_t n = json_is_array(arr) ? json_array_size(arr) : json_is_object(arr) ? json_object_size(arr) : 0;
    if (n <= max)
        return true;
    V_CHILD(v, key) dra_ferr_too_many(&v->errs, VP(v), (long)n, (long)max);
    return false;
}

/* ---- quantities ---- */

bool dra_vquantity_value(vctx *v, const json_t *value, dra_quantity *q)
{
    char numbuf[64];
    char *literal = NULL;
    const char *s;
    size_t len;
    if (json_is_null(value)) { /* a null map value decodes into Go's zero Quantity */
        *q = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
        return true;
    }
    if (json_is_string(value)) {
        s = json_string_value(value);
        len = json_string_length(value);
    } else if (json_is_integer(value)) {
        len = (size_t)snprintf(numbuf, sizeof numbuf, "%lld", (long long)json_integer_value(value));
        s = numbuf;
    } else if (json_is_real(value)) {
        len = (size_t)snprintf(numbuf, sizeof numbuf, "%.17g", json_real_value(value));
        s = numbuf;
        /* Quantity.UnmarshalJSON parses a number's text */
        literal = big_number_text(v, value);
        if (literal) {
            s = literal;
            len = strlen(literal);
        }
    } else {
        dra_vtype_error(v, NULL, value, "quantity");
        return false;
    }
    /* the release's ParseQuantity (apimachinery v0.38: 29 significant
     * digits kept, so a longer decimal is no longer too large) */
    unsigned rules = dra_vquantity_rules(v);
    dra_err *e = json_is_string(value) ? dra_quantity_parse_json_rules(s, len, rules, q)
                                       : dra_quantity_parse_rules(s, len, rules, q);
    bool ok = e == NULL;
    if (e)
        dra_ferr_invalid_str(&v->errs, VP(v), s, len, e->msg);
    dra_err_free(e);
    free(literal);
    return ok;
}

bool dra_vquantity(vctx *v, const json_t *obj, const char *key, dra_quantity *q)
{
    const json_t *x = dra_vfield(v, obj, key);
    if (!x)
        return false;
    bool ok = false;
    V_CHILD(v, key) ok = dra_vquantity_value(v, x, q);
    return ok;
}

const char *dra_vqstr(const dra_quantity *q, char buf[DRA_QUANTITY_STRMAX])
{
    return dra_quantity_format(q, buf);
}

/* ---- object metadata ---- */

void dra_v_labels_annotations(vctx *v, const json_t *meta)
{
    const json_t *labels, *annotations;
    if (dra_vobj(v, meta, "labels", &labels)) {
        V_CHILD(v, "labels")
        {
            const char *k;
            const json_t *val;
            json_object_foreach((json_t *)labels, k, val) {
                dra_vcheck(v, dra_check_label_name, k, strlen(k));
                const char *s;
                size_t len;
                if (json_is_string(val)) {
                    s = json_string_value(val);
                    len = json_string_length(val);
                    dra_vcheck(v, dra_check_label_value, s, len);
                } else if (!json_is_null(val)) {
                    size_t m = dra_vpush_key(v, k, strlen(k), 0);
                    dra_vtype_error(v, NULL, val, "string");
                    dra_vpop(v, m);
                }
            }
        }
    }
    if (dra_vobj(v, meta, "annotations", &annotations)) {
        V_CHILD(v, "annotations")
        {
            const char *k;
            const json_t *val;
            size_t total = 0;
            json_object_foreach((json_t *)annotations, k, val) {
                /* Annotation keys are checked lower-cased (ValidateAnnotations). */
                size_t klen = strlen(k);
                char *lower = dra_xstrndup(k, klen);
                for (size_t i = 0; i < klen; i++)
                    if (lower[i] >= 'A' && lower[i] <= 'Z')
                        lower[i] = (char)(lower[i] - 'A' + 'a');
                dra_errs tmp = DRA_ERRS_INIT;
                dra_check_label_name(&tmp, VP(v), lower, klen);
                /* Re-render with the original key as the bad value. */
                for (dra_err *e = tmp.head; e; e = e->next) {
                    const char *detail = strstr(e->msg, "\": ");
                    dra_ferr_invalid_str(&v->errs, VP(v), k, klen, detail ? detail + 3 : "");
                }
                dra_errs_free(&tmp);
                free(lower);
                total += klen;
                if (json_is_string(val)) {
                    total += json_string_length(val);
                } else if (!json_is_null(val)) {
                    size_t m = dra_vpush_key(v, k, klen, 0);
                    dra_vtype_error(v, NULL, val, "string");
                    dra_vpop(v, m);
                }
            }
            if (total > 256 * 1024)
                dra_ferr_too_long(&v->errs, VP(v), 256 * 1024);
        }
    }
}

static void v_owner_references(vctx *v, const json_t *meta);
static void v_meta_types(vctx *v, const json_t *meta);

static void object_meta(vctx *v, const json_t *obj, bool namespaced, vcheck_fn name_check, bool check_prefix);

/* ValidateObjectMeta checks a generateName as a prefix of a name;
 * ValidateObjectMetaWithOpts (a DeviceClass's, with its declarative name
 * rule) checks the generated name only (k8s.io/apimachinery v0.37.2
 * pkg/api/validation/objectmeta.go). */
void dra_v_object_meta(vctx *v, const json_t *obj, bool namespaced, bool name_is_label)
{
    object_meta(v, obj, namespaced, name_is_label ? dra_check_dns1123_label : dra_check_dns1123_subdomain, true);
}

void dra_v_object_meta_named(vctx *v, const json_t *obj, bool namespaced, vcheck_fn name_check)
{
    object_meta(v, obj, namespaced, name_check, false);
}

/* The name check run on probe, each problem echoing shown in its place. */
static void check_name_shown(vctx *v, vcheck_fn check, const char *probe, size_t plen, const char *shown, size_t slen)
{
    dra_errs found = DRA_ERRS_INIT;
    check(&found, NULL, probe, plen);
    dra_buf head = DRA_BUF_INIT;
    dra_buf_puts(&head, "Invalid value: ");
    dra_go_quote_echo(&head, probe, plen);
    dra_buf_puts(&head, ": ");
    for (dra_err *e = found.head; e; e = e->next) {
        const char *detail = strncmp(e->msg, head.data, head.len) == 0 ? e->msg + head.len : e->msg;
        dra_ferr_invalid_str(&v->errs, dra_vpath(v), shown, slen, detail);
    }
    dra_buf_free(&head);
    dra_errs_free(&found);
}

/* nameFn(generateName, true): the name check on the prefix with a trailing
 * dash masked (maskTrailingDash: "ab-" is checked as "aa"), each problem
 * echoing the prefix as written. */
static void check_name_prefix(vctx *v, vcheck_fn check, const char *s, size_t len)
{
    if (len < 2 || s[len - 1] != '-') {
        dra_vcheck(v, check, s, len);
        return;
    }
    char *masked = dra_xmalloc(len - 1);
    memcpy(masked, s, len - 2);
    masked[len - 2] = 'a';
    check_name_shown(v, check, masked, len - 1, s, len);
    free(masked);
}

/* The name the API server generates from a generateName before it
 * validates metadata.name: the prefix cut to 58 bytes and 5 random
 * characters of "bcdfghjklmnpqrstvwxz2456789" (k8s.io/apiserver v0.37.2
 * pkg/storage/names/generate.go SimpleNameGenerator).  Lower-case letters
 * and digits at the end of a name of at most 63 bytes, they never change
 * the check's verdict: the name is checked with "xxxxx" and echoed with
 * "*****" for the characters the server draws. */
static void check_generated_name(vctx *v, vcheck_fn check, const char *gen, size_t glen)
{
    size_t base = glen > 58 ? 58 : glen;
    char *probe = dra_xmalloc(base + 5), *shown = dra_xmalloc(base + 5);
    memcpy(probe, gen, base);
    memcpy(shown, gen, base);
    memcpy(probe + base, "xxxxx", 5);
    memcpy(shown + base, "*****", 5);
    check_name_shown(v, check, probe, base + 5, shown, base + 5);
    free(probe);
    free(shown);
}

static void object_meta(vctx *v, const json_t *obj, bool namespaced, vcheck_fn name_check, bool check_prefix)
{
    const json_t *meta = NULL;
    bool meta_ok = dra_vobj(v, obj, "metadata", &meta); /* reports a wrong type at "metadata" itself */
    V_CHILD(v, "metadata")
    {
        if (!meta_ok) {
            if (!dra_vget(obj, "metadata"))
                V_CHILD(v, "name") dra_ferr_required(&v->errs, VP(v), "name or generateName is required");
            continue;
        }
        size_t memo = dra_vmemo_push(v, meta);
        const char *s;
        size_t len;
        const char *gs;
        size_t glen;
        bool has_name = dra_vstr(v, meta, "name", &s, &len) && len > 0;
        bool has_gen = dra_vstr(v, meta, "generateName", &gs, &glen) && glen > 0;
        if (has_gen && check_prefix)
            V_CHILD(v, "generateName") check_name_prefix(v, name_check, gs, glen);
        V_CHILD(v, "name")
        {
            if (has_name)
                dra_vcheck(v, name_check, s, len);
            else if (has_gen)
                check_generated_name(v, name_check, gs, glen);
            else
                dra_ferr_required(&v->errs, VP(v), "name or generateName is required");
        }
        bool has_ns = dra_vstr(v, meta, "namespace", &s, &len) && len > 0;
        V_CHILD(v, "namespace")
        {
            if (namespaced) {
                if (!has_ns)
                    dra_ferr_required(&v->errs, VP(v), "");
                else
                    dra_vcheck(v, dra_check_dns1123_label, s, len);
            } else if (has_ns) {
                dra_ferr_forbidden(&v->errs, VP(v), "not allowed on this type");
            }
        }
        dra_v_labels_annotations(v, meta);
        v_owner_references(v, meta);
        v_meta_types(v, meta);
        dra_vmemo_pop(v, memo);
    }
}

/* metav1.OwnerReference as Go's json.Marshal renders it: the four names
 * always, controller and blockOwnerDeletion when set. */
static json_t *owner_ref_go(const json_t *ref)
{
    static const char *const strs[] = {"apiVersion", "kind", "name", "uid"};
    static const char *const bools[] = {"controller", "blockOwnerDeletion"};
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
        const char *s = json_string_value(json_object_get(ref, strs[i]));
        json_object_set_new(o, strs[i], json_string(s ? s : ""));
    }
    for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
        json_t *b = json_object_get(ref, bools[i]);
        if (json_is_boolean(b))
            json_object_set(o, bools[i], b);
    }
    return o;
}

/* One reference's problems (validateOwnerReference, k8s.io/apimachinery
 * pkg/api/validation/objectmeta.go), at the path v is at. */
static void v_owner_reference(vctx *v, const json_t *ref, const char *av, const char *kind, const char *name,
                              const char *uid)
{
    /* 1.36 reports each empty field as Invalid "must not be empty", and an
     * apiVersion schema.FromAPIVersionAndKind finds no version in (also
     * one that does not parse) as "version must not be empty" (v0.36.3);
     * 1.37 as Required, and an unparsable one as such (v0.37.2); 1.38
     * enforces OwnerReference's declarative (beta) RequiredValue in place
     * of the handwritten "must not be empty" (v0.38.0-beta.0
     * pkg/apis/meta/v1/validation zz_generated.validations.go
     * Validate_OwnerReference) */
    bool v136 = dra_vrelease(v) <= DRA_RELEASE_1_36;
    const char *owner_detail = dra_vrelease(v) >= DRA_RELEASE_1_38 ? "" : "must not be empty";
    /* schema.ParseGroupVersion: "" and "/" are empty, "v" a version, "g/v"
     * a group and a version, more slashes an error */
    const char *slash = strchr(av, '/');
    bool parses = !slash || !strchr(slash + 1, '/');
    bool legacy_v1 = strcmp(av, "v1") == 0 || strcmp(av, "/v1") == 0;
    bool has_version = *av && strcmp(av, "/") != 0 && (slash ? slash[1] != '\0' : true);
    const char *const fields[] = {"kind", "name", "uid"};
    const char *const values[] = {kind, name, uid};
    if (v136 && (!parses || !has_version))
        V_CHILD(v, "apiVersion") dra_ferr_invalid_str(&v->errs, VP(v), av, strlen(av), "version must not be empty");
    else if (!*av)
        V_CHILD(v, "apiVersion") dra_ferr_required(&v->errs, VP(v), owner_detail);
    else if (!parses || !has_version)
        V_CHILD(v, "apiVersion")
    dra_ferr_invalid_str(&v->errs, VP(v), av, strlen(av), "must be <group>/<version> or <version>");
    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
        if (*values[f])
            continue;
        if (v136)
            V_CHILD(v, fields[f]) dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "must not be empty");
        else
            V_CHILD(v, fields[f]) dra_ferr_required(&v->errs, VP(v), owner_detail);
    }
    if (parses && legacy_v1 && strcmp(kind, "Event") == 0) {
        json_t *go = owner_ref_go(ref);
        char *r = dra_vjson(go);
        dra_ferr_invalid_raw(&v->errs, VP(v), r, "/v1, Kind=Event is disallowed from being an owner");
        free(r);
        json_decref(go);
    }
}

/* ValidateOwnerReferences (k8s.io/apimachinery v0.37.2
 * pkg/api/validation/objectmeta.go): each reference's problems at its
 * index, "Required value: must not be empty" for a missing name; a second
 * controller at metadata.ownerReferences itself, with the whole list.
 * 1.36 (v0.36.3) reports each reference's problems at
 * metadata.ownerReferences itself too, without the index. */
static void v_owner_references(vctx *v, const json_t *meta)
{
    const json_t *refs = json_object_get(meta, "ownerReferences");
    if (!json_is_array(refs))
        return;
    V_CHILD(v, "ownerReferences")
    {
        char *first_controller = NULL;
        size_t i;
        const json_t *ref;
        json_array_foreach(refs, i, ref) {
            if (!json_is_object(ref) && !json_is_null(ref)) /* null: Go's zero OwnerReference */
                continue;
            const char *av = json_string_value(json_object_get(ref, "apiVersion"));
            const char *kind = json_string_value(json_object_get(ref, "kind"));
            const char *name = json_string_value(json_object_get(ref, "name"));
            const char *uid = json_string_value(json_object_get(ref, "uid"));
            av = av ? av : "";
            kind = kind ? kind : "";
            if (dra_vrelease(v) <= DRA_RELEASE_1_36)
                v_owner_reference(v, ref, av, kind, name ? name : "", uid ? uid : "");
            else
                V_INDEX(v, i) v_owner_reference(v, ref, av, kind, name ? name : "", uid ? uid : "");
            if (json_is_true(json_object_get(ref, "controller"))) {
                char *cur = dra_xasprintf("%s/%s", kind, name ? name : "");
                if (first_controller) {
                    char *d = dra_xasprintf("Only one reference can have Controller set to true. Found \"true\" in "
                                            "references for %s and %s",
                                            first_controller, cur);
                    json_t *all = json_array();
                    size_t j;
                    const json_t *x;
                    json_array_foreach(refs, j, x) {
                        json_array_append_new(all, json_is_object(x) ? owner_ref_go(x) : json_object());
                    }
                    char *r = dra_vjson(all);
                    dra_ferr_invalid_raw(&v->errs, VP(v), r, d);
                    free(r);
                    json_decref(all);
                    free(d);
                    free(cur);
                } else {
                    first_controller = cur;
                }
            }
        }
        free(first_controller);
    }
}

/* ---- node selectors (core validation) ---- */

static size_t arr_len(const json_t *a)
{
    return json_is_array(a) ? json_array_size(a) : 0;
}

static void v_node_selector_requirement(vctx *v, const json_t *rq, bool field_selector)
{
    if (!dra_vis_obj(v, rq))
        return;
    const char *op = "", *key = "";
    size_t oplen = 0, keylen = 0;
    dra_vstr(v, rq, "operator", &op, &oplen);
    dra_vstr(v, rq, "key", &key, &keylen);
    const json_t *values = NULL;
    dra_varr(v, rq, "values", &values);
    size_t nvalues = arr_len(values);
    if (field_selector) {
        V_CHILD(v, "values")
        {
            if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
                if (nvalues != 1)
                    dra_ferr_required(
                        &v->errs, VP(v),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
            }
        }
        if (strcmp(op, "In") != 0 && strcmp(op, "NotIn") != 0)
            V_CHILD(v, "operator") dra_ferr_invalid_str(&v->errs, VP(v), op, oplen, "not a valid selector operator");
        if (strcmp(key, "metadata.name") != 0 || keylen != strlen("metadata.name")) {
            V_CHILD(v, "key") dra_ferr_invalid_str(&v->errs, VP(v), key, keylen, "not a valid field selector key");
        } else {
            V_CHILD(v, "values")
            for (size_t i = 0; i < nvalues; i++) {
                V_INDEX(v, i)
                {
                    const char *s;
                    size_t len;
                    if (dra_vis_str(v, json_array_get(values, i), &s, &len))
                        dra_vcheck(v, dra_check_node_name, s, len);
                }
            }
        }
        return;
    }
    V_CHILD(v, "values")
    {
        if (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0) {
            if (nvalues == 0)
                dra_ferr_required(&v->errs, VP(v), "must be specified when `operator` is 'In' or 'NotIn'");
        } else if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) {
            if (nvalues > 0)
                dra_ferr_forbidden(&v->errs, VP(v),
                                   "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        } else if (strcmp(op, "Gt") == 0 || strcmp(op, "Lt") == 0) {
            if (nvalues != 1)
                dra_ferr_required(&v->errs, VP(v), "must be specified single value when `operator` is 'Lt' or 'Gt'");
        }
    }
    if (strcmp(op, "In") != 0 && strcmp(op, "NotIn") != 0 && strcmp(op, "Exists") != 0 &&
        strcmp(op, "DoesNotExist") != 0 && strcmp(op, "Gt") != 0 && strcmp(op, "Lt") != 0)
        V_CHILD(v, "operator") dra_ferr_invalid_str(&v->errs, VP(v), op, oplen, "not a valid selector operator");
    V_CHILD(v, "key") dra_vcheck(v, dra_check_label_name, key, keylen);
    V_CHILD(v, "values")
    for (size_t i = 0; i < nvalues; i++) {
        V_INDEX(v, i)
        {
            const char *s;
            size_t len;
            if (dra_vis_str(v, json_array_get(values, i), &s, &len))
                dra_vcheck(v, dra_check_label_value, s, len);
        }
    }
}

void dra_v_node_selector(vctx *v, const json_t *sel)
{
    if (!dra_vis_obj(v, sel))
        return;
    const json_t *terms = NULL;
    dra_varr(v, sel, "nodeSelectorTerms", &terms);
    V_CHILD(v, "nodeSelectorTerms")
    {
        if (arr_len(terms) == 0) {
            dra_ferr_required(&v->errs, VP(v), "must have at least one node selector term");
            continue;
        }
        for (size_t i = 0; i < json_array_size(terms); i++) {
            V_INDEX(v, i)
            {
                const json_t *term = json_array_get(terms, i);
                if (!dra_vis_obj(v, term))
                    continue;
                const json_t *exprs = NULL, *fields = NULL;
                if (dra_varr(v, term, "matchExpressions", &exprs))
                    V_CHILD(v, "matchExpressions")
                for (size_t j = 0; j < json_array_size(exprs); j++)
                    V_INDEX(v, j) v_node_selector_requirement(v, json_array_get(exprs, j), false);
                if (dra_varr(v, term, "matchFields", &fields))
                    V_CHILD(v, "matchFields")
                for (size_t j = 0; j < json_array_size(fields); j++)
                    V_INDEX(v, j) v_node_selector_requirement(v, json_array_get(fields, j), true);
            }
        }
    }
}

/* ---- taints and tolerations ---- */

static const char *const taint_effects[] = {"NoExecute", "NoSchedule", "None"}; /* sets.List order */
static const char *const toleration_ops[] = {"Equal", "Exists"};

static bool is_effect(const char *s, size_t len)
{
    for (size_t i = 0; i < 3; i++)
        if (strlen(taint_effects[i]) == len && memcmp(taint_effects[i], s, len) == 0)
            return true;
    return false;
}

void dra_v_toleration(vctx *v, const json_t *tol)
{
    if (!dra_vis_obj(v, tol))
        return;
    const char *key = "", *op = "", *value = "", *effect = "";
    size_t keylen = 0, oplen = 0, valuelen = 0, effectlen = 0;
    int64_t secs;
    dra_vstr(v, tol, "key", &key, &keylen);
    dra_vstr(v, tol, "operator", &op, &oplen);
    dra_vstr(v, tol, "value", &value, &valuelen);
    dra_vstr(v, tol, "effect", &effect, &effectlen);
    dra_vint(v, tol, "tolerationSeconds", &secs);
    if (keylen)
        V_CHILD(v, "key") dra_vcheck(v, dra_check_label_name, key, keylen);
    if (oplen == 6 && memcmp(op, "Exists", 6) == 0) {
        if (valuelen)
            V_CHILD(v, "value")
        dra_ferr_invalid_str(&v->errs, VP(v), value, valuelen, "must be empty for operator `Exists`");
    } else if (oplen == 5 && memcmp(op, "Equal", 5) == 0) {
        V_CHILD(v, "value") dra_vcheck(v, dra_check_label_value, value, valuelen);
    } else if (oplen == 0) {
        V_CHILD(v, "operator") dra_ferr_required(&v->errs, VP(v), "");
    } else {
        V_CHILD(v, "operator") dra_ferr_unsupported(&v->errs, VP(v), op, oplen, toleration_ops, 2);
    }
    if (effectlen && !is_effect(effect, effectlen))
        V_CHILD(v, "effect") dra_ferr_unsupported(&v->errs, VP(v), effect, effectlen, taint_effects, 3);
}

void dra_v_tolerations(vctx *v, const json_t *parent)
{
    const json_t *tols;
    /* no limit: resource.DeviceTolerationsMaxLength (16) is used by no
     * check of k8s.io/kubernetes v1.37.2 pkg/apis/resource/validation */
    if (!dra_varr(v, parent, "tolerations", &tols))
        return;
    V_CHILD(v, "tolerations")
    for (size_t i = 0; i < json_array_size(tols); i++)
        V_INDEX(v, i) dra_v_toleration(v, json_array_get(tols, i));
}

/* RFC 3339 as metav1.Time reads it: Go's time.Parse(time.RFC3339) through
 * the one reader (time.h), so what validation passes the tools can use. */
static bool rfc3339(const char *s, size_t len)
{
    dra_time t;
    dra_err *e = dra_time_parse_n(s, len, &t);
    dra_err_free(e);
    return e == NULL;
}

static void v_time(vctx *v, const json_t *obj, const char *key)
{
    const char *s;
    size_t len;
    if (dra_vstr(v, obj, key, &s, &len) && !rfc3339(s, len))
        V_CHILD(v, key) dra_ferr_invalid_str(&v->errs, VP(v), s, len, "must be an RFC 3339 date-time");
}

/* ValidateFinalizers (k8s.io/apimachinery v0.37.2
 * pkg/api/validation/objectmeta.go: qualified names, reported at the list,
 * not both orphan and foregroundDeletion) and validateKubeFinalizerName
 * (k8s.io/kubernetes pkg/apis/core/validation: a name without a slash
 * must be a standard one), at the current path (metadata.finalizers). */
static void v_finalizers(vctx *v, const json_t *list)
{
    bool orphan = false, foreground = false;
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *s;
        size_t len;
        bool ok;
        V_INDEX(v, i) ok = dra_vis_str(v, json_array_get(list, i), &s, &len);
        if (!ok)
            continue;
        dra_vcheck(v, dra_check_label_name, s, len);
        orphan |= len == 6 && memcmp(s, "orphan", 6) == 0;
        foreground |= len == 18 && memcmp(s, "foregroundDeletion", 18) == 0;
        bool standard = (len == 10 && memcmp(s, "kubernetes", 10) == 0) || (len == 6 && memcmp(s, "orphan", 6) == 0) ||
                        (len == 18 && memcmp(s, "foregroundDeletion", 18) == 0);
        if (!memchr(s, '/', len) && !standard)
            V_INDEX(v, i)
        dra_ferr_invalid_str(&v->errs, VP(v), s, len,
                             "name is neither a standard finalizer name nor is it fully qualified");
    }
    if (orphan && foreground) {
        char *j = dra_vjson(list);
        dra_ferr_invalid_raw(&v->errs, VP(v), j, "finalizer orphan and foregroundDeletion cannot be both set");
        free(j);
    }
}

/* The other fields of metav1.ObjectMeta, which nothing validates but
 * which the API server cannot decode with a value of another type ("json:
 * cannot unmarshal number into Go struct field ObjectMeta.metadata.uid") or
 * a time it cannot parse: reported as such. */
static void v_meta_types(vctx *v, const json_t *meta)
{
    static const char *const strs[] = {"uid", "resourceVersion", "selfLink"};
    const char *s;
    size_t len;
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        dra_vstr(v, meta, strs[i], &s, &len);
    int64_t n;
    dra_vint(v, meta, "generation", &n);
    dra_vint(v, meta, "deletionGracePeriodSeconds", &n);
    v_time(v, meta, "creationTimestamp");
    v_time(v, meta, "deletionTimestamp");
    const json_t *list;
    if (dra_varr(v, meta, "finalizers", &list))
        V_CHILD(v, "finalizers") v_finalizers(v, list);
    if (dra_varr(v, meta, "managedFields", &list)) {
        V_CHILD(v, "managedFields")
        for (size_t i = 0; i < json_array_size(list); i++)
            V_INDEX(v, i) dra_vis_obj(v, json_array_get(list, i));
    }
    const json_t *refs;
    if (dra_varr(v, meta, "ownerReferences", &refs)) {
        V_CHILD(v, "ownerReferences")
        for (size_t i = 0; i < json_array_size(refs); i++) {
            V_INDEX(v, i)
            {
                const json_t *ref = json_array_get(refs, i);
                if (!dra_vis_obj(v, ref))
                    continue;
                static const char *const rs[] = {"apiVersion", "kind", "name", "uid"};
                for (size_t k = 0; k < sizeof rs / sizeof *rs; k++)
                    dra_vstr(v, ref, rs[k], &s, &len);
                bool b;
                dra_vbool(v, ref, "controller", &b);
                dra_vbool(v, ref, "blockOwnerDeletion", &b);
            }
        }
    }
}

void dra_v_taint(vctx *v, const json_t *taint)
{
    if (!dra_vis_obj(v, taint))
        return;
    const char *key = "", *value = "", *effect = "";
    size_t keylen = 0, valuelen = 0, effectlen = 0;
    dra_vstr(v, taint, "key", &key, &keylen);
    dra_vstr(v, taint, "value", &value, &valuelen);
    dra_vstr(v, taint, "effect", &effect, &effectlen);
    V_CHILD(v, "key") dra_vcheck(v, dra_check_label_name, key, keylen);
    if (valuelen)
        V_CHILD(v, "value") dra_vcheck(v, dra_check_label_value, value, valuelen);
    if (effectlen == 0)
        V_CHILD(v, "effect") dra_ferr_required(&v->errs, VP(v), "");
    else if (!is_effect(effect, effectlen))
        V_CHILD(v, "effect") dra_ferr_unsupported(&v->errs, VP(v), effect, effectlen, taint_effects, 3);
    v_time(v, taint, "timeAdded");
}

/* ---- binding conditions ---- */

static bool str_in_array(const json_t *arr, const char *s, size_t len, size_t upto)
{
    for (size_t i = 0; i < upto && i < arr_len(arr); i++) {
        const json_t *x = json_array_get(arr, i);
        if (json_is_string(x) && json_string_length(x) == len && memcmp(json_string_value(x), s, len) == 0)
            return true;
        if (json_is_null(x) && len == 0) /* Go's zero string */
            return true;
    }
    return false;
}

static void v_condition_names(vctx *v, const char *key, const json_t *list)
{
    if (!list || !dra_v_max_items(v, key, list, DRA_BINDING_CONDITIONS_MAX))
        return;
    V_CHILD(v, key)
    for (size_t i = 0; i < json_array_size(list); i++) {
        V_INDEX(v, i)
        {
            const char *s;
            size_t len;
            if (dra_vis_str(v, json_array_get(list, i), &s, &len))
                dra_vcheck(v, dra_check_label_name, s, len);
        }
    }
}

void dra_v_binding_parameters(vctx *v, const json_t *parent)
{
    const json_t *bc = NULL, *bfc = NULL;
    dra_varr(v, parent, "bindingConditions", &bc);
    dra_varr(v, parent, "bindingFailureConditions", &bfc);
    if (!bc && !bfc) /* neither given (most devices): nothing below applies */
        return;
    v_condition_names(v, "bindingConditions", bc);
    v_condition_names(v, "bindingFailureConditions", bfc);
    V_CHILD(v, "bindingConditions")
    for (size_t i = 0; i < arr_len(bc); i++) {
        const json_t *x = json_array_get(bc, i);
        const char *s = json_is_null(x) ? "" : json_string_value(x); /* null: Go's zero string */
        size_t len = s ? strlen(s) : 0;
        if (s && str_in_array(bc, s, json_is_string(x) ? json_string_length(x) : len, i))
            V_INDEX(v, i) dra_ferr_duplicate_str(&v->errs, VP(v), s, json_is_string(x) ? json_string_length(x) : len);
    }
    V_CHILD(v, "bindingFailureConditions")
    for (size_t i = 0; i < arr_len(bfc); i++) {
        const json_t *x = json_array_get(bfc, i);
        if (!json_is_string(x) && !json_is_null(x))
            continue;
        const char *s = json_is_null(x) ? "" : json_string_value(x);
        size_t len = json_is_null(x) ? 0 : json_string_length(x);
        if (str_in_array(bfc, s, len, i))
            V_INDEX(v, i) dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
        if (str_in_array(bc, s, len, arr_len(bc)))
            V_INDEX(v, i)
        dra_ferr_invalid_str(&v->errs, VP(v), s, len,
                             "bindingFailureConditions must not overlap with bindingConditions");
    }
    if (arr_len(bc) == 0 && arr_len(bfc) > 0) {
        char *j = dra_vjson(bc);
        V_CHILD(v, "bindingConditions")
        dra_ferr_invalid_raw(&v->errs, VP(v), j, "bindingConditions are required to use bindingFailureConditions");
        free(j);
    }
    if (arr_len(bfc) == 0 && arr_len(bc) > 0) {
        char *j = dra_vjson(bfc);
        V_CHILD(v, "bindingFailureConditions")
        dra_ferr_invalid_raw(&v->errs, VP(v), j, "bindingFailureConditions are required to use bindingConditions");
        free(j);
    }
}

/* ---- selectors and CEL ---- */

/* validateCELExpression (validation.go) with the compiler fn: true and
 * *cost when it compiled.  A derived attribute's limit is
 * min(CELSelectorExpressionMaxCost, DeviceClaimDerivedAttributeCELMaxCost),
 * both DRA_CEL_EXPRESSION_MAX_COST. */
static bool cel_expression(vctx *v, dra_validate_cel_fn fn, const char *expr, size_t len, uint64_t *cost)
{
    *cost = 0;
    if (len > DRA_CEL_EXPRESSION_MAX_LENGTH) {
        /* Too long expressions are not compiled. */
        dra_ferr_too_long(&v->errs, VP(v), DRA_CEL_EXPRESSION_MAX_LENGTH);
        return false;
    }
    if (!fn)
        return false;
    dra_err *e = fn(v->opts->cel_ctx, expr, len, cost);
    if (e) {
        if (len == 0 && e->msg && strncmp(e->msg, "Required value", 14) == 0)
            dra_ferr_required(&v->errs, VP(v), e->msg + (e->msg[14] == ':' ? 16 : 14));
        else if (e->code == DRA_EXIT_RUNTIME)
            dra_ferr_internal(&v->errs, VP(v), e->msg);
        else
            dra_ferr_invalid_str_n(&v->errs, VP(v), expr, len, e->msg, dra_err_msg_len(e));
        dra_err_free(e);
        return false;
    }
    if (*cost > DRA_CEL_EXPRESSION_MAX_COST)
        dra_ferr_forbidden(&v->errs, VP(v), "too complex, exceeds cost limit");
    return true;
}

void dra_v_cel_expression(vctx *v, const char *expr, size_t len)
{
    uint64_t cost;
    (void)cel_expression(v, v->opts ? v->opts->cel : NULL, expr, len, &cost);
}

void dra_v_derived_expression(vctx *v, const char *expr, size_t len)
{
    uint64_t cost;
    if (cel_expression(v, v->opts ? v->opts->cel_derived : NULL, expr, len, &cost))
        v->derived_cost += cost;
}

void dra_v_selectors(vctx *v, const json_t *parent)
{
    const json_t *sels;
    if (!dra_varr(v, parent, "selectors", &sels) || !dra_v_max_items(v, "selectors", sels, DRA_DEVICE_SELECTORS_MAX))
        return;
    V_CHILD(v, "selectors")
    for (size_t i = 0; i < json_array_size(sels); i++) {
        V_INDEX(v, i)
        {
            const json_t *sel = json_array_get(sels, i), *cel;
            if (!dra_vis_obj(v, sel))
                continue;
            if (!dra_vobj(v, sel, "cel", &cel)) {
                if (!dra_vget(sel, "cel"))
                    V_CHILD(v, "cel") dra_ferr_required(&v->errs, VP(v), "");
                continue;
            }
            V_CHILD(v, "cel")
            {
                const char *s = "";
                size_t len = 0;
                dra_vstr(v, cel, "expression", &s, &len);
                V_CHILD(v, "expression") dra_v_cel_expression(v, s, len);
            }
        }
    }
}

/* ---- opaque configuration ---- */

void dra_v_raw_extension(vctx *v, const json_t *value, size_t max)
{
    if (!value) {
        dra_ferr_required(&v->errs, VP(v), "");
        return;
    }
    char *raw = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t len = raw ? strlen(raw) : 0;
    free(raw);
    if (len > max)
        dra_ferr_too_long(&v->errs, VP(v), (long)max);
    else if (!json_is_object(value))
        dra_ferr_invalid_str(&v->errs, VP(v), "<value omitted>", 15, "must be a valid JSON object");
}

void dra_v_device_configuration(vctx *v, const json_t *cfg)
{
    const json_t *opaque;
    if (!dra_vobj(v, cfg, "opaque", &opaque)) {
        if (!dra_vget(cfg, "opaque"))
            V_CHILD(v, "opaque") dra_ferr_required(&v->errs, VP(v), "");
        return;
    }
    V_CHILD(v, "opaque")
    {
        /* declarative k8s-long-name-caseless (OpaqueDeviceConfiguration.Driver);
         * 1.36's validateDriverName (v1.36.3 validation.go) */
        dra_vstr_check(v, opaque, "driver",
                       dra_vrelease(v) <= DRA_RELEASE_1_36 ? dra_check_driver_name : dra_check_driver_name_caseless);
        V_CHILD(v, "parameters")
        dra_v_raw_extension(v, dra_vget(opaque, "parameters"), DRA_OPAQUE_PARAMETERS_MAX_LENGTH);
    }
}

/* ---- conditions (metav1validation.ValidateConditions) ---- */

static bool condition_reason_ok(const char *s, size_t len)
{
    /* ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$ */
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
        return false;
    for (size_t i = 1; i < len; i++) {
        c = (unsigned char)s[i];
        bool alnum_ = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!alnum_ && !((c == ',' || c == ':') && i + 1 < len))
            return false;
    }
    return true;
}

void dra_v_conditions(vctx *v, const json_t *parent, const char *key, size_t max)
{
    static const char *const statuses[] = {"False", "True", "Unknown"};
    /* Both condition lists (AllocatedDeviceStatus, DeviceTaintRuleStatus)
     * are declaratively listType=map from 1.38 (beta), and metav1.Condition's
     * own declarative rules replace the handwritten ones they cover: a
     * repeated type is the whole condition, a missing type a bare Required,
     * observedGeneration validate.Minimum's wording (k8s.io/api
     * v0.38.0-beta.0 resource/v1 types.go; k8s.io/apimachinery
     * pkg/apis/meta/v1/validation validation.go, zz_generated.validations.go) */
    bool v138 = dra_vrelease(v) >= DRA_RELEASE_1_38;
    /* 1.36's ValidateConditions: a repeated type at .type, the type as a
     * label name even when empty, an empty status unsupported
     * (k8s.io/apimachinery v0.36.3 pkg/apis/meta/v1/validation) */
    bool v136 = dra_vrelease(v) <= DRA_RELEASE_1_36;
    const json_t *conds;
    if (!dra_varr(v, parent, key, &conds))
        return;
    size_t n = json_array_size(conds);
    V_CHILD(v, key)
    {
        for (size_t i = 0; i < n; i++) {
            V_INDEX(v, i)
            {
                const json_t *c = json_array_get(conds, i);
                if (!dra_vis_obj(v, c))
                    continue;
                const char *s = "";
                size_t len = 0;
                dra_vstr(v, c, "type", &s, &len);
                /* a repeated type is reported at the condition's index */
                for (size_t j = 0; j < i; j++) {
                    const json_t *t = json_object_get(json_array_get(conds, j), "type");
                    const char *ts = json_is_string(t) ? json_string_value(t) : "";
                    size_t tl = json_is_string(t) ? json_string_length(t) : 0;
                    if (tl == len && memcmp(ts, s, len) == 0) {
                        if (v138) { /* listType=map: the whole item */
                            char *r = dra_v_go_json(c, DRA_GO_CONDITION, dra_vquantity_rules(v));
                            dra_ferr_duplicate_raw(&v->errs, VP(v), r);
                            free(r);
                        } else if (v136) {
                            V_CHILD(v, "type") dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                        } else {
                            dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                        }
                        break;
                    }
                }
                V_CHILD(v, "type")
                {
                    if (len == 0 && !v136)
                        dra_ferr_required(&v->errs, VP(v), v138 ? "" : "is required");
                    else
                        dra_vcheck(v, dra_check_label_name, s, len);
                }
                s = "";
                len = 0;
                dra_vstr(v, c, "status", &s, &len);
                if (len == 0 && !v136)
                    V_CHILD(v, "status") dra_ferr_required(&v->errs, VP(v), "");
                else if (!(len == 4 && memcmp(s, "True", 4) == 0) && !(len == 5 && memcmp(s, "False", 5) == 0) &&
                         !(len == 7 && memcmp(s, "Unknown", 7) == 0))
                    V_CHILD(v, "status") dra_ferr_unsupported(&v->errs, VP(v), s, len, statuses, 3);
                int64_t gen;
                if (dra_vint(v, c, "observedGeneration", &gen) && gen < 0)
                    V_CHILD(v, "observedGeneration")
                dra_ferr_invalid_int(&v->errs, VP(v), gen,
                                     v138 ? "must be greater than or equal to 0"
                                          : "must be greater than or equal to zero");
                s = "";
                len = 0;
                if (!dra_vstr(v, c, "lastTransitionTime", &s, &len) || len == 0)
                    V_CHILD(v, "lastTransitionTime") dra_ferr_required(&v->errs, VP(v), "");
                else
                    v_time(v, c, "lastTransitionTime");
                s = "";
                len = 0;
                dra_vstr(v, c, "reason", &s, &len);
                V_CHILD(v, "reason")
                {
                    if (len == 0) {
                        dra_ferr_required(&v->errs, VP(v), "");
                    } else {
                        if (!condition_reason_ok(s, len))
                            dra_ferr_invalid_str(
                                &v->errs, VP(v), s, len,
                                "a condition reason must start with alphabetic character, optionally followed by a "
                                "string of alphanumeric characters or '_,:', and must end with an alphanumeric "
                                "character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or "
                                "'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is "
                                "'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')");
                        if (len > 1024)
                            dra_ferr_too_long(&v->errs, VP(v), 1024);
                    }
                }
                if (dra_vstr(v, c, "message", &s, &len) && len > 32768)
                    V_CHILD(v, "message") dra_ferr_too_long(&v->errs, VP(v), 32768);
            }
        }
        if (n > max)
            dra_ferr_too_many(&v->errs, VP(v), (long)n, (long)max);
    }
}

void dra_v_skip_node_operations(vctx *v, const json_t *parent)
{
    const json_t *ops;
    if (!dra_varr(v, parent, "skipNodeOperations", &ops))
        return;
    bool prep = false, unprep = false, all = false;
    /* the declarative enum and uniqueness of SkipNodeOperation lists */
    static const char *const ops_supported[] = {"*", "NodePrepareResources", "NodeUnprepareResources"};
    V_CHILD(v, "skipNodeOperations")
    for (size_t i = 0; i < json_array_size(ops); i++) {
        const char *s;
        size_t len;
        V_INDEX(v, i)
        {
            if (!dra_vis_str(v, json_array_get(ops, i), &s, &len))
                continue;
            bool known = false;
            for (size_t k = 0; k < 3; k++)
                known |= strlen(ops_supported[k]) == len && memcmp(ops_supported[k], s, len) == 0;
            if (!known)
                dra_ferr_unsupported(&v->errs, VP(v), s, len, ops_supported, 3);
            if (str_in_array(ops, s, len, i))
                dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
        }
    }
    for (size_t i = 0; i < json_array_size(ops); i++) {
        const char *s = json_string_value(json_array_get(ops, i));
        if (!s)
            continue;
        prep |= strcmp(s, "NodePrepareResources") == 0;
        unprep |= strcmp(s, "NodeUnprepareResources") == 0;
        all |= strcmp(s, "*") == 0;
    }
    if (prep && !unprep && !all) {
        char *j = dra_vjson(ops);
        V_CHILD(v, "skipNodeOperations")
        dra_ferr_invalid_raw(&v->errs, VP(v), j,
                             "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped");
        free(j);
    }
}

/* ---- semver ---- */

bool dra_v_valid_semver(const char *s, size_t len)
{
    /* validation.go semverRe; the length is reported separately. */
    return dra_semver_matches_regex(s, len);
}
