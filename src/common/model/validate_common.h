/* Internal to the validate_*.c files: the walking context, typed JSON access
 * that reports type mismatches, and checks shared by several kinds. */
#ifndef DRA_MODEL_VALIDATE_COMMON_H
#define DRA_MODEL_VALIDATE_COMMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/buf.h"
#include "names.h"
#include "quantity.h"
#include "validate.h"

/* One step of the current field path.  Paths are kept as segments and only
 * rendered to text when an error needs them (dra_vpath), so walking a valid
 * object formats nothing. */
typedef struct vseg {
    enum { VSEG_CHILD, VSEG_INDEX, VSEG_KEY } kind;
    const char *s; /* child name or key (borrowed from the object or a literal) */
    size_t len;    /* key length; index value for VSEG_INDEX */
    size_t trunc;  /* keys: truncate in the middle beyond this length (0 = never) */
    size_t end;    /* rendered length of the path up to this segment */
} vseg;

/* The members of one small object, gathered once (see V_MEMO). */
#define DRA_VMEMO_KEYS 8
#define DRA_VMEMO_DEPTH 4
typedef struct vmemo {
    const json_t *obj;
    size_t n;
    const char *key[DRA_VMEMO_KEYS];
    const json_t *val[DRA_VMEMO_KEYS];
} vmemo;

/* A name check (the dra_check_* signature) that renders the path only when
 * the value is bad (dra_vcheck). */
typedef void (*vcheck_fn)(dra_errs *l, const char *field, const char *s, size_t len);

/* A value found valid in this object (see dra_vshared_find). */
#define DRA_VSHARED 8
typedef struct vshared {
    const json_t *val;
    int tag;      /* what it was checked as, in what setting */
    size_t count; /* what the check counted of it (attribute values) */
    bool flag;    /* and noted (a list-typed attribute) */
} vshared;

typedef struct vctx {
    dra_errs errs;
    vshared shared[DRA_VSHARED]; /* the last values found valid, by pointer */
    size_t nshared;
    struct {
        vcheck_fn check;
        const char *s; /* borrowed from the object being validated */
        size_t len;
    } named[DRA_VSHARED]; /* the last names found valid (dra_vcheck_name) */
    size_t nnamed;
    vmemo memo[DRA_VMEMO_DEPTH]; /* memo[0..nmemo): objects in scope of V_MEMO */
    size_t nmemo;
    vseg *seg; /* current path, seg[0..nseg) */
    size_t nseg, cap;
    size_t rendered; /* segments whose text is in `path` */
    dra_buf path;    /* text of the first `rendered` segments */
    const dra_validate_opts *opts;
    const json_t *claim_constraints; /* spec.devices.constraints while its requests are checked */
    uint64_t derived_cost;           /* sum of the claim's derived attribute costs (wraps as Go's uint64) */
    int literal_lookups;             /* numbers' texts still to look up in opts->src */
} vctx;

void dra_vctx_init(vctx *v, const dra_validate_opts *opts);
/* Readers share one json_t among the devices whose attribute value or
 * capacity map has the same text (the interner of io/jparse): such a value,
 * found valid once in the object being validated, need not be checked
 * again; what its check counted is kept with it.  Only within one
 * validation, whose tree no one frees or changes meanwhile (a pointer seen
 * again is the same value), and only values whose check added no error, so
 * that a bad value is reported wherever it is.  NULL when not seen. */
const vshared *dra_vshared_find(const vctx *v, const json_t *val, int tag);
void dra_vshared_keep(vctx *v, const json_t *val, int tag, size_t count, bool flag);
DRA_MUST_USE dra_err *dra_vctx_finish(vctx *v); /* returns the errors, frees the rest */
bool dra_vfeature(const vctx *v, dra_feature f);
/* The release whose rules apply (opts->features' release; the default one). */
dra_release dra_vrelease(const vctx *v);
/* That release's ParseQuantity (dra_quantity_rules). */
unsigned dra_vquantity_rules(const vctx *v);

/* Path stack: each push returns a mark for dra_vpop.  Pointers must stay valid
 * until popped (JSON keys and string literals do). */
size_t dra_vpush_child(vctx *v, const char *name);
size_t dra_vpush_index(vctx *v, size_t i);
size_t dra_vpush_key(vctx *v, const char *key, size_t len, size_t trunc);
void dra_vpop(vctx *v, size_t mark);
/* Current path as text (valid until the path changes). */
const char *dra_vpath(vctx *v);

void dra_vcheck(vctx *v, vcheck_fn check, const char *s, size_t len);
/* dra_vcheck for a name that repeats within the object (the attribute and
 * capacity names of its devices): one found valid by the same check is not
 * checked again. */
void dra_vcheck_name(vctx *v, vcheck_fn check, const char *s, size_t len);
/* obj[key] as a string ("" when absent; a wrong type is reported) checked
 * under the child path key. */
void dra_vstr_check(vctx *v, const json_t *obj, const char *key, vcheck_fn check);
/* obj[key] a required string: "" (or absent) is "Required value" and
 * nothing more, anything else is checked. */
void dra_v_required_str(vctx *v, const json_t *obj, const char *key, vcheck_fn check);
/* driver, pool and device of a device reference (results, device status). */
void dra_v_device_id(vctx *v, const json_t *obj);

#define VP(v) dra_vpath(v)
/* Enter a child / index / key for the duration of a statement block. */
/* `continue` inside the block leaves it (and restores the path). */
#define V_CHILD(v, name) V_SCOPE_(v, dra_vpush_child((v), (name)), __COUNTER__)
#define V_INDEX(v, i) V_SCOPE_(v, dra_vpush_index((v), (i)), __COUNTER__)
#define V_KEY(v, k, n) V_SCOPE_(v, dra_vpush_key((v), (k), (n), 0), __COUNTER__)
#define V_SCOPE_(v, push, c) V_SCOPE__(v, push, c)
/* clang-format off */
#define V_SCOPE__(v, push, c) \
    for (size_t v_m_##c = (push), v_o_##c = 1; v_o_##c; v_o_##c = 0, dra_vpop((v), v_m_##c))
/* clang-format on */

/* Typed access.  A missing key or JSON null counts as absent (as Go decodes
 * it into a zero value); a present value of another type is reported at
 * <path>.<key> and treated as absent. */
const json_t *dra_vget(const json_t *obj, const char *key);            /* NULL when absent or null */
const json_t *dra_vfield(vctx *v, const json_t *obj, const char *key); /* dra_vget, memo first */

/* Within the statement block, lookups through v on obj (dra_vfield and the
 * typed access below) compare its few member names instead of hashing each
 * name asked for: a validator asks a device for some twenty fields, most of
 * them absent.  obj must not change inside the block; objects of more than
 * DRA_VMEMO_KEYS members, and blocks nested deeper than DRA_VMEMO_DEPTH,
 * take jansson's lookup. */
size_t dra_vmemo_push(vctx *v, const json_t *obj);
/* The members of obj into m (m->obj = obj); false (m->obj NULL) for what
 * takes jansson's lookup: not an object, more than DRA_VMEMO_KEYS members,
 * a key with a NUL inside.  m borrows obj's keys and values: it holds
 * while obj is not changed. */
bool dra_vmemo_fill(vmemo *m, const json_t *obj);
/* The value of key in a filled memo (a null as it is), NULL when absent. */
const json_t *dra_vmemo_get(const vmemo *m, const char *key);
void dra_vmemo_pop(vctx *v, size_t mark);
#define V_MEMO(v, obj) V_MEMO_(v, obj, __COUNTER__)
#define V_MEMO_(v, obj, c) V_MEMO__(v, obj, c)
/* clang-format off */
#define V_MEMO__(v, obj, c) \
    for (size_t v_mm_##c = dra_vmemo_push((v), (obj)), v_mo_##c = 1; v_mo_##c; v_mo_##c = 0, dra_vmemo_pop((v), v_mm_##c))
/* clang-format on */
bool dra_vstr(vctx *v, const json_t *obj, const char *key, const char **s, size_t *len);
bool dra_vobj(vctx *v, const json_t *obj, const char *key, const json_t **out);
bool dra_varr(vctx *v, const json_t *obj, const char *key, const json_t **out);
bool dra_vint(vctx *v, const json_t *obj, const char *key, int64_t *out);
bool dra_vbool(vctx *v, const json_t *obj, const char *key, bool *out);
/* Type checks of a value already at the current path. */
void dra_vtype_error(vctx *v, const char *key, const json_t *value, const char *type);
bool dra_vis_str(vctx *v, const json_t *value, const char **s, size_t *len); /* reports at current path; null is "" */
bool dra_vis_obj(vctx *v, const json_t *value);                              /* null is Go's zero struct: true */

/* Compact JSON text of a value ("null" for NULL); caller frees. */
char *dra_vjson(const json_t *value);

/* Quantities: strings or numbers, parsed like resource.Quantity; errors are
 * reported at <path>.<key> (or the current path when key is NULL). */
bool dra_vquantity(vctx *v, const json_t *obj, const char *key, dra_quantity *q);
bool dra_vquantity_value(vctx *v, const json_t *value, dra_quantity *q);
const char *dra_vqstr(const dra_quantity *q, char buf[DRA_QUANTITY_STRMAX]);

/* Shared checks (names from validation.go). */
void dra_v_object_meta(vctx *v, const json_t *obj, bool namespaced, bool name_is_label);
/* The same with the name checked by name_check (a kind whose name is
 * checked declaratively: a DeviceClass's k8s-long-name, in bytes). */
void dra_v_object_meta_named(vctx *v, const json_t *obj, bool namespaced, vcheck_fn name_check);
void dra_v_labels_annotations(vctx *v, const json_t *meta);       /* at current path */
void dra_v_node_selector(vctx *v, const json_t *sel);             /* ValidateNodeSelector at current path */
void dra_v_toleration(vctx *v, const json_t *tol);                /* validateDeviceToleration at current path */
void dra_v_tolerations(vctx *v, const json_t *parent);            /* parent.tolerations */
void dra_v_taint(vctx *v, const json_t *taint);                   /* validateDeviceTaint at current path */
void dra_v_binding_parameters(vctx *v, const json_t *parent);     /* validateDeviceBindingParameters */
void dra_v_selectors(vctx *v, const json_t *parent);              /* parent.selectors, max 32 */
void dra_v_cel_expression(vctx *v, const char *expr, size_t len); /* at current path */
/* A derived attribute expression at the current path; its cost adds to
 * v->derived_cost. */
void dra_v_derived_expression(vctx *v, const char *expr, size_t len);
void dra_v_device_configuration(vctx *v, const json_t *cfg);        /* opaque at current path's child */
void dra_v_raw_extension(vctx *v, const json_t *value, size_t max); /* at current path */
void dra_v_conditions(vctx *v, const json_t *parent, const char *key, size_t max);
void dra_v_skip_node_operations(vctx *v, const json_t *parent);
bool dra_v_valid_semver(const char *s, size_t len);

/* One-level "too many" guard used by validateSlice/validateSet: reports
 * Too many at <path>.<key> and returns false when over max. */
bool dra_v_max_items(vctx *v, const char *key, const json_t *arr, size_t max);

/* What the API server's strategies drop from a new object when a feature
 * is disabled, before validating it (PrepareForCreate: the registry's
 * dropDisabledFields of each kind; a claim's or PodGroup's status as the
 * status subresource drops them): NULL when obj has none of those fields,
 * else a copy without them (the caller's; obj is not changed) to validate
 * instead (validate_drop.c).  *none: whether obj has none of those fields
 * (nor any that dra_drop_disabled_fields drops, a subset of them). */
json_t *dra_v_drop_disabled(const json_t *obj, dra_kind kind, const dra_features *features, bool *none);

/* A value of one of these resource/v1 types as Go's encoding/json writes
 * it (fields in declaration order, omitempty, map keys sorted, quantities
 * in their String() form): the value of a declarative "Duplicate value"
 * (validate.ValSliceUnique reports the whole item).  Caller frees
 * (validate_gojson.c). */
typedef enum {
    DRA_GO_DEVICE_REQUEST,
    DRA_GO_DEVICE_SUB_REQUEST,
    DRA_GO_CONSUMER_REFERENCE,
    DRA_GO_ALLOCATED_DEVICE_STATUS,
    DRA_GO_COUNTER_SET,
    DRA_GO_COUNTER_CONSUMPTION,
    DRA_GO_CONDITION, /* metav1.Condition */
    /* internal types (no json tags: Go names, nil as null), the value of
     * validation.go's errors: a DeviceAttribute, a PodResourceClaim, a
     * list of NodeSelectorTerms */
    DRA_GO_INTERNAL_DEVICE_ATTRIBUTE,
    DRA_GO_INTERNAL_POD_RESOURCE_CLAIM,
    DRA_GO_INTERNAL_NODE_SELECTOR_TERMS,
    /* a resource/v1 DeviceRequest written as resource/v1beta1's (the
     * fields of `exactly` at the request's level) */
    DRA_GO_V1BETA1_DEVICE_REQUEST,
} dra_go_type;
/* qrules: the release's ParseQuantity (dra_quantity_rules), which decoded
 * the quantities whose String() is written. */
char *dra_v_go_json(const json_t *value, dra_go_type t, unsigned qrules);

/* v1helper.IsExtendedResourceName (pkg/apis/core/v1/helper/helpers.go):
 * not native (a '/', no "kubernetes.io/"), no "requests." prefix, and a
 * qualified name after one (validate_quota.c). */
bool dra_v_is_extended_resource_name(const char *s, size_t len);

/* Per-kind spec validators used across files. */
void dra_v_claim_spec(vctx *v, const json_t *spec); /* at current path ("spec" or "spec.spec") */
void dra_v_claim_status(vctx *v, const json_t *claim_spec, const json_t *status); /* at "status" */

#endif
