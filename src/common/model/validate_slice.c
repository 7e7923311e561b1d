/* ResourceSlice validation (validation.go: validateResourceSliceSpec,
 * validateDevice, validateDeviceAttribute, validateRequestPolicy, ...). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validate_common.h"
#include "semver.h"
#include "../base/sort.h"

static size_t alen(const json_t *a)
{
    return json_is_array(a) ? json_array_size(a) : 0;
}

/* The value fields of a DeviceAttribute, found in one pass over its keys
 * instead of eight lookups (most of them misses). */
enum { AF_INT, AF_BOOL, AF_STRING, AF_VERSION, AF_INTS, AF_BOOLS, AF_STRINGS, AF_VERSIONS, AF_COUNT };
static const char *const attr_field_names[AF_COUNT] = {"int",  "bool",  "string",  "version",
                                                       "ints", "bools", "strings", "versions"};

/* The field a key names, or -1: by its first letter, then the rest. */
static int attr_field_of(const char *k)
{
    int i;
    switch (k[0]) {
    case 'i': i = AF_INT; break;
    case 'b': i = AF_BOOL; break;
    case 's': i = AF_STRING; break;
    case 'v': i = AF_VERSION; break;
    default: return -1;
    }
    static const size_t len[] = {3, 4, 6, 7}; /* of "int", "bool", "string", "version" */
    size_t n = len[i];
    if (strncmp(k + 1, attr_field_names[i] + 1, n - 1) != 0)
        return -1;
    return k[n] == 0 ? i : k[n] == 's' && k[n + 1] == 0 ? i + (AF_INTS - AF_INT) : -1;
}

static void attr_fields(const json_t *a, const json_t *f[AF_COUNT])
{
    for (int i = 0; i < AF_COUNT; i++)
        f[i] = NULL;
    for (void *it = json_object_iter((json_t *)a); it; it = json_object_iter_next((json_t *)a, it)) {
        const json_t *x = json_object_iter_value(it);
        int i = json_is_null(x) ? -1 : attr_field_of(json_object_iter_key(it));
        if (i >= 0)
            f[i] = x;
    }
}

/* Upstream truncates long keys in the middle when building paths
 * (truncateIfTooLong, limits below 16 are raised to 16). */
static size_t push_key(vctx *v, const char *key, size_t max)
{
    return dra_vpush_key(v, key, strlen(key), max < 16 ? 16 : max);
}

#define ATTR_KEY_MAX (DRA_DEVICE_MAX_DOMAIN_LENGTH + 1 + DRA_DEVICE_MAX_ID_LENGTH)

static void v_attr_string(vctx *v, const json_t *x)
{
    const char *s;
    size_t len;
    if (dra_vis_str(v, x, &s, &len) && len > DRA_DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)
        dra_ferr_too_long(&v->errs, VP(v), DRA_DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH);
}

static void v_attr_version(vctx *v, const json_t *x)
{
    const char *s;
    size_t len;
    if (!dra_vis_str(v, x, &s, &len))
        return;
    /* From 1.38 on, numbers of at most 18 digits (validateDeviceAttributeVersionValue,
     * v1.38.0-beta.0, kubernetes#142964). */
    if (dra_vrelease(v) >= DRA_RELEASE_1_38) {
        if (!dra_semver_matches_regex_digits(s, len, DRA_SEMVER_MAX_DIGITS_1_38))
            dra_ferr_invalid_str(
                &v->errs, VP(v), s, len,
                "must be a string compatible with semver.org spec 2.0.0, with at most 18 digits in numbers");
    } else if (!dra_v_valid_semver(s, len)) {
        dra_ferr_invalid_str(&v->errs, VP(v), s, len, "must be a string compatible with semver.org spec 2.0.0");
    }
    if (len > DRA_DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)
        dra_ferr_too_long(&v->errs, VP(v), DRA_DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH);
}

/* Field i of an attribute counts as a value of the union: given, and not
 * an empty list. */
static bool attr_given(const json_t *const f[AF_COUNT], int i)
{
    return f[i] && !(i >= AF_INTS && json_is_array(f[i]) && json_array_size(f[i]) == 0);
}

/* Exactly one value: the declarative union of resource/v1 DeviceAttribute
 * (pkg/apis/resource/v1/zz_generated.validations.go, validate.Union), which
 * the API server enforces in place of validation.go's "exactly one value
 * must be specified".  An empty list is not a value there (though
 * validation.go counts it, and says it must not be empty): with one value
 * and an empty list, validation.go's error stands alone. */
static void attr_union(vctx *v, const json_t *a, const json_t *f[AF_COUNT])
{
    static const char all[] =
        "must specify one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`";
    if (dra_vrelease(v) == DRA_RELEASE_1_36) {
        /* 1.36 does not enforce the declarative union: validation.go's
         * own errors, every field given (an empty list too) counted
         * (k8s.io/kubernetes v1.36.3 pkg/apis/resource/validation
         * validation.go validateDeviceAttribute) */
        int given = 0;
        for (int i = 0; i < AF_COUNT; i++)
            given += f[i] != NULL;
        if (given == 0) {
            dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "exactly one value must be specified");
        } else if (given > 1) {
            char *j = dra_v_go_json(a, DRA_GO_INTERNAL_DEVICE_ATTRIBUTE, dra_vquantity_rules(v));
            dra_ferr_invalid_raw(&v->errs, VP(v), j, "exactly one value must be specified");
            free(j);
        }
        return;
    }
    int n = 0;
    for (int i = 0; i < AF_COUNT; i++)
        n += attr_given(f, i);
    if (n == 0) {
        dra_ferr_invalid_str(&v->errs, VP(v), "", 0, all);
    } else if (n == 1) {
        /* validation.go counts an empty list as a value: its "exactly one
         * value must be specified" has no declarative counterpart here,
         * and so stands (FilterCoveredHandwrittenErrors drops only the
         * handwritten errors an enforced declarative one matches) */
        int given = 0;
        for (int i = 0; i < AF_COUNT; i++)
            given += f[i] != NULL;
        if (given > 1) {
            char *j = dra_v_go_json(a, DRA_GO_INTERNAL_DEVICE_ATTRIBUTE, dra_vquantity_rules(v));
            dra_ferr_invalid_raw(&v->errs, VP(v), j, "exactly one value must be specified");
            free(j);
        }
    } else {
        /* the set is named only here: an attribute gives one field */
        dra_buf set = DRA_BUF_INIT;
        for (int i = 0, k = 0; i < AF_COUNT; i++) {
            if (!attr_given(f, i))
                continue;
            dra_buf_puts(&set, k++ ? ", " : "{");
            dra_buf_puts(&set, attr_field_names[i]);
        }
        dra_buf_putc(&set, '}');
        dra_ferr_invalid_str(
            &v->errs, VP(v), set.data, set.len,
            "must specify exactly one of: `int`, `bool`, `string`, `version`, `ints`, `bools`, `strings`, `versions`");
        dra_buf_free(&set);
    }
}

/* Validates one attribute; adds its number of values (a list counts its
 * items, a scalar one) to *values and sets *list for list values. */
static void v_attribute(vctx *v, const json_t *a, size_t *values, bool *list)
{
    if (!dra_vis_obj(v, a)) {
        (*values)++;
        return;
    }
    const json_t *f[AF_COUNT];
    attr_fields(a, f);
    size_t items = alen(f[AF_BOOLS]) + alen(f[AF_INTS]) + alen(f[AF_STRINGS]) + alen(f[AF_VERSIONS]);
    *values += items ? items : 1;
    *list |= f[AF_BOOLS] || f[AF_INTS] || f[AF_STRINGS] || f[AF_VERSIONS];
    const json_t *x;
    if ((x = f[AF_BOOL])) {
        if (!json_is_boolean(x))
            dra_vtype_error(v, "bool", x, "boolean");
    }
    if ((x = f[AF_INT])) {
        if (!json_is_integer(x))
            dra_vtype_error(v, "int", x, "integer");
    }
    if ((x = f[AF_STRING])) {
        V_CHILD(v, "string") v_attr_string(v, x);
    }
    if ((x = f[AF_VERSION])) {
        V_CHILD(v, "version") v_attr_version(v, x);
    }
    static const int lists[] = {AF_BOOLS, AF_INTS, AF_STRINGS, AF_VERSIONS};
    for (int li = 0; li < 4; li++) {
        const char *name = attr_field_names[lists[li]];
        if (!(x = f[lists[li]]))
            continue;
        if (!json_is_array(x)) {
            dra_vtype_error(v, name, x, "array");
            continue;
        }
        V_CHILD(v, name)
        {
            if (json_array_size(x) == 0)
                dra_ferr_invalid_raw(&v->errs, VP(v), "[]", "must not be empty if specified");
            for (size_t i = 0; i < json_array_size(x); i++) {
                const json_t *item = json_array_get(x, i);
                V_INDEX(v, i)
                {
                    /* null decodes as Go's zero value (false, 0), as in strings */
                    if (li == 0 && !json_is_boolean(item) && !json_is_null(item))
                        dra_vtype_error(v, NULL, item, "boolean");
                    else if (li == 1 && !json_is_integer(item) && !json_is_null(item))
                        dra_vtype_error(v, NULL, item, "integer");
                    else if (li == 2)
                        v_attr_string(v, item);
                    else if (li == 3)
                        v_attr_version(v, item);
                }
            }
        }
    }
    attr_union(v, a, f);
}

/* Invalid value: "<quantity>": detail */
static void inv_q(vctx *v, const dra_quantity *q, const char *detail)
{
    char b[DRA_QUANTITY_STRMAX];
    const char *str = dra_vqstr(q, b);
    dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), detail);
}

/* validateInt64Range: true when q fits [0, MaxInt64]. */
static bool v_int64_range(vctx *v, const char *name, const dra_quantity *q)
{
    int64_t tmp;
    if (dra_quantity_sign(q) < 0) {
        V_CHILD(v, name) inv_q(v, q, "must be greater than or equal to 0");
        return false;
    }
    if (!dra_quantity_value(q, &tmp)) {
        V_CHILD(v, name)
        inv_q(v, q, "must not be larger than 9223372036854775807");
        return false;
    }
    return true;
}

/* The milli-value guard: q equals NewMilliQuantity(q.MilliValue()), i.e. it
 * is a whole number of milli-units that fits int64. */
static bool v_milli_exact(vctx *v, const char *name, const dra_quantity *q)
{
    int64_t m;
    if (dra_quantity_milli_exact(q, &m))
        return true;
    V_CHILD(v, name) inv_q(v, q, "value cannot be represented as a milli value");
    return false;
}

/* validateRequestPolicyRangeStep: (value - min) is a multiple of step, in
 * integers (Value()) or, with `milli`, in milli-units (MilliValue()); the
 * values were checked to fit before. */
static void v_range_step(vctx *v, const dra_quantity *value, const dra_quantity *min, const dra_quantity *step,
                         bool milli)
{
    int64_t val, mn, st;
    bool (*get)(const dra_quantity *, int64_t *) = milli ? dra_quantity_milli_value : dra_quantity_value;
    if (!get(value, &val) || !get(min, &mn) || !get(step, &st) || st <= 0)
        return;
    /* Both fit [0, MaxInt64] (or are exact milli values, which need not be
     * positive): the difference is taken in 128 bits. */
    if ((__int128)((__int128)val - mn) % st != 0) {
        char b2[DRA_QUANTITY_STRMAX], b3[DRA_QUANTITY_STRMAX];
        char *d = dra_xasprintf("value is not a multiple of a given step (%s) from (%s)", dra_vqstr(step, b2),
                                dra_vqstr(min, b3));
        V_CHILD(v, "step") inv_q(v, value, d);
        free(d);
    }
}

/* 1.36's validateRequestPolicyRangeStep (v1.36.3 validation.go): Value()
 * of each, the difference and the remainder in Go's wrapping int64
 * arithmetic, any sign of step; values past int64 (whose Value() 1.36
 * wraps too) are not checked. */
static void v_range_step_136(vctx *v, const dra_quantity *value, const dra_quantity *min, const dra_quantity *step)
{
    int64_t val, mn, st;
    if (!dra_quantity_value(value, &val) || !dra_quantity_value(min, &mn) || !dra_quantity_value(step, &st) ||
        st == 0 || st == -1)
        return;
    int64_t added = (int64_t)((uint64_t)val - (uint64_t)mn);
    if (added % st != 0) {
        char b2[DRA_QUANTITY_STRMAX], b3[DRA_QUANTITY_STRMAX];
        char *d = dra_xasprintf("value is not a multiple of a given step (%s) from (%s)", dra_vqstr(step, b2),
                                dra_vqstr(min, b3));
        V_CHILD(v, "step") inv_q(v, value, d);
        free(d);
    }
}

static void v_valid_range(vctx *v, const dra_quantity *def, const dra_quantity *cap, const json_t *range)
{
    /* 1.36 reports a default outside the range at min or max, and has no
     * check of the step's sign or of int64 bounds (v1.36.3 validation.go
     * validateRequestPolicyRange) */
    bool v136 = dra_vrelease(v) <= DRA_RELEASE_1_36;
    char b2[DRA_QUANTITY_STRMAX];
    dra_quantity min, max, step;
    if (!dra_vis_obj(v, range))
        return;
    if (!dra_vquantity(v, range, "min", &min)) {
        if (!dra_vget(range, "min"))
            V_CHILD(v, "min") dra_ferr_required(&v->errs, VP(v), "required when validRange is defined");
        return;
    }
    bool has_max = dra_vquantity(v, range, "max", &max);
    bool has_step = dra_vquantity(v, range, "step", &step);
    char *d;
    if (dra_quantity_cmp(&min, cap) > 0) {
        d = dra_xasprintf("min is larger than capacity value: %s", dra_vqstr(cap, b2));
        V_CHILD(v, "min") inv_q(v, &min, d);
        free(d);
    }
    if (dra_quantity_cmp(def, &min) < 0) {
        d = dra_xasprintf("default is less than min: %s", dra_vqstr(&min, b2));
        V_CHILD(v, v136 ? "min" : "default") inv_q(v, def, d);
        free(d);
    }
    if (has_max) {
        if (dra_quantity_cmp(&min, &max) > 0) {
            d = dra_xasprintf("min is larger than max: %s", dra_vqstr(&max, b2));
            V_CHILD(v, "max") inv_q(v, &min, d);
            free(d);
        }
        if (dra_quantity_cmp(&max, cap) > 0) {
            d = dra_xasprintf("max is larger than capacity value: %s", dra_vqstr(cap, b2));
            V_CHILD(v, "max") inv_q(v, &max, d);
            free(d);
        }
        if (dra_quantity_cmp(def, &max) > 0) {
            d = dra_xasprintf("default is more than max: %s", dra_vqstr(&max, b2));
            V_CHILD(v, v136 ? "max" : "default") inv_q(v, def, d);
            free(d);
        }
    }
    /* DRAFractionalCapacityRange: milli-unit arithmetic when min, max, step
     * or the default has a fraction; every one of them must then be an exact
     * int64 milli value, else nothing more is checked. */
    bool milli = false;
    if (dra_vfeature(v, DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE)) {
        milli = dra_quantity_is_fractional(def) || dra_quantity_is_fractional(&min) ||
                (has_max && dra_quantity_is_fractional(&max)) || (has_step && dra_quantity_is_fractional(&step));
        if (milli) {
            bool unsafe = !v_milli_exact(v, "default", def);
            unsafe |= !v_milli_exact(v, "min", &min);
            if (has_max)
                unsafe |= !v_milli_exact(v, "max", &max);
            if (has_step)
                unsafe |= !v_milli_exact(v, "step", &step);
            if (unsafe)
                return;
        }
    }
    if (!has_step)
        return;
    /* a step of zero: 1.36 divides by it (its API server panics) */
    if (v136 ? dra_quantity_sign(&step) == 0 : dra_quantity_sign(&step) <= 0) {
        V_CHILD(v, "step") inv_q(v, &step, "must be greater than zero");
        return;
    }
    dra_quantity added;
    if (dra_quantity_add_rules(&added, &min, &step, dra_vquantity_rules(v)) && dra_quantity_cmp(&added, cap) > 0) {
        char b3[DRA_QUANTITY_STRMAX];
        d = dra_xasprintf("one step %s is larger than capacity value: %s", dra_vqstr(&added, b2), dra_vqstr(cap, b3));
        V_CHILD(v, "step") inv_q(v, &step, d);
        free(d);
    }
    if (v136) {
        v_range_step_136(v, def, &min, &step);
        if (has_max)
            v_range_step_136(v, &max, &min, &step);
        return;
    }
    if (!milli) {
        bool safe = v_int64_range(v, "default", def);
        safe &= v_int64_range(v, "min", &min);
        if (has_max)
            safe &= v_int64_range(v, "max", &max);
        safe &= v_int64_range(v, "step", &step);
        if (!safe)
            return;
    }
    v_range_step(v, def, &min, &step, milli);
    if (has_max)
        v_range_step(v, &max, &min, &step, milli);
}

/* quantityKeyInt's Quantity.Value(): from 1.38 on a value past int64
 * saturates at its bounds, so values above MaxInt64 are all duplicates of
 * each other (apimachinery v0.38.0-beta.0 Quantity.AsScaledInt64;
 * validation_device_capacity_test.go options-int64-max-and-plus-one and
 * options-100E-and-1000E, v1.38.0-beta.0).  Through 1.37 Value()
 * overflowed silently, "100E" and "1000E" both to 0 (apimachinery v0.37.2
 * math.go positiveScaleInt64; quantityKey/quantityKeyInt in
 * pkg/apis/resource/validation/validation.go, v1.36.3 and v1.37.2). */
static int64_t int_key(const dra_quantity *q, bool saturate)
{
    int64_t v;
    if (!saturate)
        return dra_quantity_value_wrapped(q);
    if (dra_quantity_value(q, &v))
        return v;
    return dra_quantity_sign(q) < 0 ? INT64_MIN : INT64_MAX;
}

static void v_valid_values(vctx *v, const dra_quantity *def, const dra_quantity *cap, const json_t *values)
{
    size_t n = json_array_size(values);
    dra_quantity *q = dra_xcalloc(n ? n : 1, sizeof *q);
    bool *ok = dra_xcalloc(n ? n : 1, sizeof *ok);
    char b2[DRA_QUANTITY_STRMAX];
    V_CHILD(v, "validValues")
    {
        for (size_t i = 0; i < n; i++)
            V_INDEX(v, i) ok[i] = dra_vquantity_value(v, json_array_get(values, i), &q[i]);
        /* validValues[i].Cmp(validValues[i+1]) makes the element itself an
         * inf.Dec when either side is one, and through 1.37 its key then
         * wraps differently: "200E" before "9223372036854775808" keys as
         * 200*10^18 mod 2^64, not 0. */
        for (size_t i = 0; i + 1 < n; i++)
            if (ok[i] && ok[i + 1] && dra_quantity_cmp_receiver(&q[i], &q[i + 1]) > 0)
                V_INDEX(v, i + 1)
        inv_q(v, &q[i + 1], "values must be sorted in ascending order");
        bool found = false;
        if (n > DRA_CAPACITY_VALID_VALUES_MAX) {
            dra_ferr_too_many(&v->errs, VP(v), (long)n, DRA_CAPACITY_VALID_VALUES_MAX);
        } else {
            for (size_t i = 0; i < n; i++) {
                if (!ok[i])
                    continue;
                if (dra_quantity_cmp(&q[i], cap) > 0) {
                    char *d = dra_xasprintf("option is larger than capacity value: %s", dra_vqstr(cap, b2));
                    V_INDEX(v, i) inv_q(v, &q[i], d);
                    free(d);
                }
                if (dra_quantity_cmp(&q[i], def) == 0)
                    found = true;
            }
            /* Duplicates are keyed by the integer value (quantityKeyInt) or,
             * with DRAFractionalCapacityRange, by AsDec().String()
             * (quantityKeyAsDec), which tells "500m" from "0.5". */
            if (dra_vfeature(v, DRA_FEATURE_FRACTIONAL_CAPACITY_RANGE)) {
                char(*keys)[DRA_QUANTITY_DECMAX] = dra_xcalloc(n ? n : 1, sizeof *keys);
                for (size_t i = 0; i < n; i++)
                    if (ok[i])
                        dra_quantity_dec_string(&q[i], keys[i]);
                for (size_t i = 0; i < n; i++) {
                    for (size_t j = 0; ok[i] && j < i; j++) {
                        if (ok[j] && strcmp(keys[i], keys[j]) == 0) {
                            V_INDEX(v, i) dra_ferr_duplicate_str(&v->errs, VP(v), keys[i], strlen(keys[i]));
                            break;
                        }
                    }
                }
                free(keys);
            } else {
                bool saturate = dra_vrelease(v) >= DRA_RELEASE_1_38;
                for (size_t i = 0; i < n; i++) {
                    if (!ok[i])
                        continue;
                    int64_t vi = int_key(&q[i], saturate);
                    for (size_t j = 0; j < i; j++) {
                        if (ok[j] && int_key(&q[j], saturate) == vi) {
                            char key[32];
                            snprintf(key, sizeof key, "%lld", (long long)vi);
                            V_INDEX(v, i) dra_ferr_duplicate_str(&v->errs, VP(v), key, strlen(key));
                            break;
                        }
                    }
                }
            }
        }
        if (!found)
            inv_q(v, def, "default value is not valid according to the requestPolicy");
    }
    free(q);
    free(ok);
}

static void v_request_policy(vctx *v, const dra_quantity *cap, const json_t *policy)
{
    if (!dra_vis_obj(v, policy))
        return;
    const json_t *values = NULL, *range = NULL;
    dra_varr(v, policy, "validValues", &values);
    range = dra_vget(policy, "validRange");
    dra_quantity def;
    bool has_def = dra_vquantity(v, policy, "default", &def);
    bool def_present = dra_vget(policy, "default") != NULL;
    if (alen(values) > 0 && range) {
        dra_ferr_forbidden(
            &v->errs, VP(v),
            "exactly one policy can be specified, cannot specify \"validValues\" and \"validRange\" at the same time");
    } else if (alen(values) > 0) {
        if (!def_present)
            V_CHILD(v, "default") dra_ferr_required(&v->errs, VP(v), "required when validValues is defined");
        else if (has_def)
            v_valid_values(v, &def, cap, values);
    } else if (range) {
        if (!def_present)
            V_CHILD(v, "default") dra_ferr_required(&v->errs, VP(v), "required when validRange is defined");
        else if (has_def)
            V_CHILD(v, "validRange") v_valid_range(v, &def, cap, range);
    }
}

/* Attribute and capacity names: more than one slash is rejected from 1.38
 * on (pkg/apis/resource/validation/validation.go validateQualifiedName,
 * v1.38.0-beta.0, kubernetes#141644). */
static vcheck_fn qualified_name_check(const vctx *v)
{
    return dra_vrelease(v) >= DRA_RELEASE_1_38 ? dra_check_qualified_name_one_slash : dra_check_qualified_name;
}

static void v_capacity(vctx *v, const json_t *caps, bool multi)
{
    const char *k;
    const json_t *c;
    json_object_foreach((json_t *)caps, k, c) {
        dra_vcheck_name(v, qualified_name_check(v), k, strlen(k));
        size_t mark = push_key(v, k, ATTR_KEY_MAX);
        if (dra_vis_obj(v, c))
            V_MEMO(v, c)
            {
                dra_quantity value;
                bool has_value = dra_vquantity(v, c, "value", &value);
                if (!has_value && !dra_vget(c, "value")) {
                    /* no value is Go's zero Quantity, 0 */
                    value = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
                    has_value = true;
                }
                const json_t *policy = dra_vfield(v, c, "requestPolicy");
                if (policy && !multi)
                    V_CHILD(v, "requestPolicy")
                dra_ferr_forbidden(&v->errs, VP(v), "allowMultipleAllocations must be true");
                else if (policy && has_value) V_CHILD(v, "requestPolicy") v_request_policy(v, &value, policy);
            }
        dra_vpop(v, mark);
    }
}

static void v_counter_map(vctx *v, const json_t *counters, size_t max)
{
    if (json_object_size(counters) > max) {
        dra_ferr_too_many(&v->errs, VP(v), (long)json_object_size(counters), (long)max);
        return;
    }
    const char *k;
    const json_t *c;
    json_object_foreach((json_t *)counters, k, c) {
        dra_vcheck(v, dra_check_dns1123_label, k, strlen(k));
        size_t mark = push_key(v, k, DRA_DNS1123_LABEL_MAX);
        if (dra_vis_obj(v, c)) {
            dra_quantity q;
            dra_vquantity(v, c, "value", &q);
        }
        dra_vpop(v, mark);
    }
}

/* A named map of counters: a counter set (name) or a device's consumption of
 * one (counterSet); both are validated alike, with their own limits. */
static void v_named_counters(vctx *v, const json_t *o, const char *name_key, size_t max_counters)
{
    if (!dra_vis_obj(v, o))
        return;
    const char *s = "";
    size_t len = 0;
    dra_vstr(v, o, name_key, &s, &len);
    V_CHILD(v, name_key)
    {
        /* declarative k8s-short-name (CounterSet.Name, DeviceCounterConsumption.CounterSet);
         * 1.36's validateCounterName, ValidateDNS1123Label (v1.36.3 validation.go) */
        if (len == 0)
            dra_ferr_required(&v->errs, VP(v), "");
        else
            dra_vcheck(v, dra_vrelease(v) <= DRA_RELEASE_1_36 ? dra_check_dns1123_label : dra_check_short_name, s, len);
    }
    const json_t *counters = NULL;
    dra_vobj(v, o, "counters", &counters);
    V_CHILD(v, "counters")
    {
        if (json_object_size(counters) == 0)
            dra_ferr_required(&v->errs, VP(v), "");
        else
            v_counter_map(v, counters, max_counters);
    }
}

/* compatibilityGroups (DRADeviceCompatibilityGroups; declarative on
 * resource/v1 DeviceCounterConsumption): at most 2 (nothing more said
 * past that), each a k8s-short-name, no repeats. */
#define DRA_COMPATIBILITY_GROUPS_MAX 2
static void v_compatibility_groups(vctx *v, const json_t *cc)
{
    const json_t *groups;
    if (!json_is_object(cc) || !dra_varr(v, cc, "compatibilityGroups", &groups) ||
        !dra_v_max_items(v, "compatibilityGroups", groups, DRA_COMPATIBILITY_GROUPS_MAX))
        return;
    V_CHILD(v, "compatibilityGroups")
    for (size_t i = 0; i < json_array_size(groups); i++) {
        V_INDEX(v, i)
        {
            const json_t *g = json_array_get(groups, i);
            const char *s;
            size_t len;
            if (!dra_vis_str(v, g, &s, &len))
                continue;
            dra_vcheck(v, dra_check_short_name, s, len);
            for (size_t j = 0; j < i; j++) {
                const json_t *h = json_array_get(groups, j);
                const char *t = json_is_string(h) ? json_string_value(h) : "";
                size_t tl = json_is_string(h) ? json_string_length(h) : 0;
                if ((json_is_string(h) || json_is_null(h)) && tl == len && memcmp(t, s, len) == 0) {
                    dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                    break;
                }
            }
        }
    }
}

static void v_counter_consumption(vctx *v, const json_t *cc)
{
    v_named_counters(v, cc, "counterSet", DRA_RESOURCE_SLICE_MAX_COUNTERS_PER_CONSUMPTION);
    v_compatibility_groups(v, cc);
}

static void v_counter_set(vctx *v, const json_t *cs)
{
    v_named_counters(v, cs, "name", DRA_RESOURCE_SLICE_MAX_COUNTERS_PER_SET);
}

/* Duplicate check of a string key over array items (validateSet): every
 * item whose key equals an earlier item's is reported at its index.  Keys are
 * looked up once and sorted, or compared pairwise when there are few. */
typedef struct ukey {
    const char *s;
    size_t len, index;
} ukey;

/* Arrays up to this long are checked pairwise, on the stack: a slice's
 * devices and counters mostly are. */
#define UKEY_SMALL 16

static bool ukey_same(const ukey *a, const ukey *b)
{
    return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static int ukey_cmp(const void *pa, const void *pb)
{
    const ukey *a = pa, *b = pb;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    int c = memcmp(a->s, b->s, a->len);
    if (c)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* go_type >= 0: the whole item is the value reported, as Go renders it
 * (the declarative listType=map check the API server enforces from 1.37
 * on; 1.36 reports validateSet's key, v1.36.3 pkg/apis/resource/validation/
 * validation.go validateResourceSliceSpec and validateDevice). */
static void v_unique_key(vctx *v, const json_t *arr, const char *key, int go_type)
{
    if (dra_vrelease(v) <= DRA_RELEASE_1_36)
        go_type = -1;
    size_t n = alen(arr), m = 0;
    if (n < 2)
        return;
    ukey small_keys[UKEY_SMALL];
    bool small_dup[UKEY_SMALL] = {false};
    ukey *keys = n <= UKEY_SMALL ? small_keys : dra_xmalloc(n * sizeof *keys);
    bool *dup = n <= UKEY_SMALL ? small_dup : dra_xcalloc(n, sizeof *dup);
    for (size_t i = 0; i < n; i++) {
        const json_t *k = json_object_get(json_array_get(arr, i), key);
        if (k && !json_is_string(k))
            continue; /* reported as a type error */
        keys[m++] = (ukey){k ? json_string_value(k) : "", k ? json_string_length(k) : 0, i};
    }
    if (n <= UKEY_SMALL) {
        /* an item is a duplicate when an earlier one has its key, as sorted */
        for (size_t i = 1; i < m; i++)
            for (size_t j = 0; j < i && !dup[keys[i].index]; j++)
                dup[keys[i].index] = ukey_same(&keys[i], &keys[j]);
    } else {
        dra_sort(keys, m, sizeof *keys, ukey_cmp);
        for (size_t i = 1; i < m; i++)
            if (ukey_same(&keys[i], &keys[i - 1]))
                dup[keys[i].index] = true;
    }
    for (size_t i = 0; i < n; i++) {
        if (!dup[i])
            continue;
        const json_t *k = json_object_get(json_array_get(arr, i), key);
        if (go_type < 0) {
            V_INDEX(v, i)
            dra_ferr_duplicate_str(&v->errs, VP(v), k ? json_string_value(k) : "", k ? json_string_length(k) : 0);
        } else {
            char *r = dra_v_go_json(json_array_get(arr, i), (dra_go_type)go_type, dra_vquantity_rules(v));
            V_INDEX(v, i) dra_ferr_duplicate_raw(&v->errs, VP(v), r);
            free(r);
        }
    }
    if (n > UKEY_SMALL) {
        free(dup);
        free(keys);
    }
}

/* Validates one device; sets *advanced when it uses a feature that lowers
 * the slice's device limit (taints, counters, list attributes). */
/* IsNodeAllocatableResourceName (pkg/apis/core/helper): cpu, memory and
 * hugepages-<size>; not ephemeral-storage. */
static bool node_allocatable_name(const char *k)
{
    return strcmp(k, "cpu") == 0 || strcmp(k, "memory") == 0 || strncmp(k, "hugepages-", 10) == 0;
}

/* validateNodeAllocatableMapping, plus the declarative union of capacityKey
 * and deviceMultiplier (+k8s:unionMember). */
static void v_node_alloc_mapping(vctx *v, const json_t *m, const json_t *caps)
{
    if (!dra_vis_obj(v, m))
        return;
    const json_t *key = dra_vget(m, "capacityKey"), *cmul = dra_vget(m, "capacityMultiplier");
    const json_t *dmul = dra_vget(m, "deviceMultiplier");
    if (key && json_is_null(key))
        key = NULL;
    if (cmul && json_is_null(cmul))
        cmul = NULL;
    if (dmul && json_is_null(dmul))
        dmul = NULL;
    dra_quantity q;
    char b[DRA_QUANTITY_STRMAX];
    if (key) {
        const char *k;
        size_t klen;
        if (dra_vstr(v, m, "capacityKey", &k, &klen)) {
            dra_err *name_errs = NULL;
            if (klen && dra_vrelease(v) >= DRA_RELEASE_1_38) {
                /* From 1.38 on a key that is no capacity name gets the
                 * name's errors in place of Not found
                 * (validateNodeAllocatableMapping, v1.38.0-beta.0). */
                dra_errs l = DRA_ERRS_INIT;
                V_CHILD(v, "capacityKey") dra_check_qualified_name_one_slash(&l, VP(v), k, klen);
                name_errs = dra_errs_take(&l);
            }
            if (klen == 0)
                V_CHILD(v, "capacityKey")
            dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "capacityKey must not be an empty string");
            else if (name_errs) dra_errs_add(&v->errs, name_errs);
            else if (!json_object_getn(caps, k, klen)) V_CHILD(v, "capacityKey")
                dra_ferr_not_found(&v->errs, VP(v), k, klen);
        }
        if (!cmul) {
            V_CHILD(v, "capacityMultiplier")
            dra_ferr_required(&v->errs, VP(v), "capacityMultiplier is required when capacityKey is set");
        } else if (dra_vquantity(v, m, "capacityMultiplier", &q) && dra_quantity_sign(&q) <= 0) {
            const char *str = dra_vqstr(&q, b);
            V_CHILD(v, "capacityMultiplier")
            dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), "must be positive");
        }
    }
    if (dmul && dra_vquantity(v, m, "deviceMultiplier", &q) && dra_quantity_sign(&q) <= 0) {
        const char *str = dra_vqstr(&q, b);
        V_CHILD(v, "deviceMultiplier") dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), "must be positive");
    }
    if (cmul && !key)
        V_CHILD(v, "capacityKey")
    dra_ferr_required(&v->errs, VP(v), "capacityKey is required when capacityMultiplier is set");
    if (key && dmul)
        dra_ferr_invalid_str(&v->errs, VP(v), "{capacityKey, deviceMultiplier}", 31,
                             "must specify exactly one of: `capacityKey`, `deviceMultiplier`");
    else if (!key && !dmul)
        dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "must specify one of: `capacityKey`, `deviceMultiplier`");
}

/* validateNodeAllocatableOverheadMapping */
static void v_node_alloc_overhead(vctx *v, const json_t *o)
{
    if (!dra_vis_obj(v, o))
        return;
    static const char *const fields[] = {"perPod", "perContainer"};
    bool any = false;
    for (size_t i = 0; i < 2; i++) {
        const json_t *x = dra_vget(o, fields[i]);
        any |= x && !json_is_null(x);
    }
    if (!any) {
        dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "at least one of perPod or perContainer must be set");
        return;
    }
    for (size_t i = 0; i < 2; i++) {
        const json_t *x = dra_vget(o, fields[i]);
        dra_quantity q;
        if (x && !json_is_null(x) && dra_vquantity(v, o, fields[i], &q) && dra_quantity_sign(&q) < 0) {
            char b[DRA_QUANTITY_STRMAX];
            const char *str = dra_vqstr(&q, b);
            V_CHILD(v, fields[i]) dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), "must be non-negative");
        }
    }
}

/* validateNodeAllocatableResources (DRANodeAllocatableResources). */
static void v_node_allocatable(vctx *v, const json_t *d, const json_t *caps)
{
    const json_t *nar = NULL;
    if (!dra_vobj(v, d, "nodeAllocatableResources", &nar) || !nar)
        return;
    V_CHILD(v, "nodeAllocatableResources")
    {
        const char *k;
        const json_t *r;
        json_object_foreach((json_t *)nar, k, r) {
            size_t mark = push_key(v, k, strlen(k));
            if (!node_allocatable_name(k))
                dra_ferr_invalid_str(&v->errs, VP(v), k, strlen(k), "must be a node allocatable resource name");
            if (dra_vis_obj(v, r)) {
                const json_t *m = dra_vget(r, "mapping"), *o = dra_vget(r, "overhead");
                if (m && json_is_null(m))
                    m = NULL;
                if (o && json_is_null(o))
                    o = NULL;
                if (!m && !o)
                    dra_ferr_required(&v->errs, VP(v), "at least one of mapping or overhead must be set");
                if (m)
                    V_CHILD(v, "mapping") v_node_alloc_mapping(v, m, caps);
                if (o)
                    V_CHILD(v, "overhead") v_node_alloc_overhead(v, o);
            }
            dra_vpop(v, mark);
        }
    }
}

/* What a shared value was found valid as (dra_vshared_find). */
enum { SHARED_ATTRIBUTE = 1, SHARED_CAPACITY, SHARED_CAPACITY_MULTI };

static void add_declarative(vctx *v, dra_err *all);

/* errs_aside ... errs_back: the errors reported in between, walked into a
 * chain of their own (returned; the caller owns it). */
static dra_errs errs_aside(vctx *v)
{
    dra_errs outer = v->errs;
    v->errs = (dra_errs)DRA_ERRS_INIT;
    return outer;
}

static dra_err *errs_back(vctx *v, dra_errs outer)
{
    dra_err *items = dra_errs_take(&v->errs);
    dra_errs_free(&v->errs);
    v->errs = outer;
    return items;
}

static void v_taints(vctx *v, const json_t *taints)
{
    V_CHILD(v, "taints")
    for (size_t i = 0; i < json_array_size(taints); i++)
        V_INDEX(v, i) dra_v_taint(v, json_array_get(taints, i));
}

/* A device's taints beyond the 16 allowed: validation.go's validateSlice
 * stops at "Too many", but the declarative Validate_Device still checks
 * each taint's effect (pkg/apis/resource/v1/zz_generated.validations.go,
 * v1.37.2, Validate_DeviceTaint): their errors, for add_declarative. */
static dra_err *taint_errors(vctx *v, const json_t *taints)
{
    dra_errs outer = errs_aside(v);
    v_taints(v, taints);
    return errs_back(v, outer);
}

static void v_device_fields(vctx *v, const json_t *d, bool per_device_nodes, bool *advanced)
{
    const char *s = "";
    size_t len = 0;
    bool multi = false;
    dra_vbool(v, d, "allowMultipleAllocations", &multi);
    dra_vstr_check(v, d, "name", dra_check_dns1123_label);

    const json_t *attrs = NULL, *caps = NULL;
    dra_vobj(v, d, "attributes", &attrs);
    dra_vobj(v, d, "capacity", &caps);
    size_t total = json_object_size(attrs) + json_object_size(caps);
    if (total > DRA_RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES)
        dra_ferr_invalid_int(&v->errs, VP(v), (int64_t)total,
                             "the total number of attributes and capacities must not exceed 32");
    size_t values = 0;
    bool list = false;
    if (attrs) {
        V_CHILD(v, "attributes")
        {
            const char *k;
            const json_t *a;
            json_object_foreach((json_t *)attrs, k, a) {
                dra_vcheck_name(v, qualified_name_check(v), k, strlen(k));
                size_t mark = push_key(v, k, ATTR_KEY_MAX);
                const vshared *seen = json_is_object(a) ? dra_vshared_find(v, a, SHARED_ATTRIBUTE) : NULL;
                if (seen) {
                    values += seen->count;
                    list |= seen->flag;
                } else {
                    size_t errs = v->errs.n, before = values;
                    bool is_list = false;
                    v_attribute(v, a, &values, &is_list);
                    list |= is_list;
                    if (v->errs.n == errs && json_is_object(a))
                        dra_vshared_keep(v, a, SHARED_ATTRIBUTE, values - before, is_list);
                }
                dra_vpop(v, mark);
            }
        }
    }
    if (values > DRA_RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES)
        dra_ferr_invalid_int(&v->errs, VP(v), (int64_t)values,
                             "the total number of attribute values must not exceed 48");
    *advanced |= list || alen(dra_vfield(v, d, "taints")) || alen(dra_vfield(v, d, "consumesCounters"));
    if (caps && !dra_vshared_find(v, caps, multi ? SHARED_CAPACITY_MULTI : SHARED_CAPACITY)) {
        size_t errs = v->errs.n;
        V_CHILD(v, "capacity") v_capacity(v, caps, multi);
        if (v->errs.n == errs)
            dra_vshared_keep(v, caps, multi ? SHARED_CAPACITY_MULTI : SHARED_CAPACITY, 0, false);
    }

    const json_t *taints = NULL;
    if (dra_varr(v, d, "taints", &taints)) {
        if (dra_v_max_items(v, "taints", taints, DRA_DEVICE_TAINTS_MAX))
            v_taints(v, taints);
        else
            add_declarative(v, taint_errors(v, taints));
    }

    const json_t *cc = NULL;
    if (dra_varr(v, d, "consumesCounters", &cc) &&
        dra_v_max_items(v, "consumesCounters", cc, DRA_RESOURCE_SLICE_MAX_CONSUMPTIONS_PER_DEVICE)) {
        V_CHILD(v, "consumesCounters")
        {
            for (size_t i = 0; i < json_array_size(cc); i++)
                V_INDEX(v, i) v_counter_consumption(v, json_array_get(cc, i));
            v_unique_key(v, cc, "counterSet", DRA_GO_COUNTER_CONSUMPTION);
        }
    }

    const json_t *node_name = dra_vfield(v, d, "nodeName"), *node_sel = dra_vfield(v, d, "nodeSelector"),
                 *all = dra_vfield(v, d, "allNodes");
    if (per_device_nodes) {
        const char *set[3];
        int nset = 0;
        if (dra_vstr(v, d, "nodeName", &s, &len)) {
            if (len) {
                set[nset++] = "`nodeName`";
                V_CHILD(v, "nodeName") dra_vcheck(v, dra_check_node_name, s, len);
            } else {
                V_CHILD(v, "nodeName") dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "must not be empty");
            }
        }
        if (node_sel) {
            set[nset++] = "`nodeSelector`";
            V_CHILD(v, "nodeSelector")
            {
                dra_v_node_selector(v, node_sel);
                /* From 1.38 on, as spec.nodeSelector: the allocator merges
                 * single-term selectors only (validateDeviceNodeSelection,
                 * v1.38.0-beta.0, kubernetes#141213). */
                const json_t *terms = dra_vget(node_sel, "nodeSelectorTerms");
                if (dra_vrelease(v) >= DRA_RELEASE_1_38 && alen(terms) != 1) {
                    char *j = dra_v_go_json(terms, DRA_GO_INTERNAL_NODE_SELECTOR_TERMS, dra_vquantity_rules(v));
                    V_CHILD(v, "nodeSelectorTerms")
                    dra_ferr_invalid_raw(&v->errs, VP(v), j, "must have exactly one node selector term");
                    free(j);
                }
            }
        }
        bool b;
        if (dra_vbool(v, d, "allNodes", &b)) {
            if (b)
                set[nset++] = "`allNodes`";
            else
                V_CHILD(v, "allNodes")
            dra_ferr_invalid_raw(&v->errs, VP(v), "false", "must be either unset or set to true");
        }
        static const char msg[] = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                                  "`perDeviceNodeSelection` is set to true in the ResourceSlice spec";
        if (nset == 0) {
            dra_ferr_required(&v->errs, VP(v), msg);
        } else if (nset > 1) {
            dra_buf b2 = DRA_BUF_INIT;
            dra_buf_putc(&b2, '{');
            for (int i = 0; i < nset; i++)
                dra_buf_printf(&b2, "%s%s", i ? ", " : "", set[i]);
            dra_buf_putc(&b2, '}');
            dra_ferr_invalid_str(&v->errs, VP(v), b2.data, b2.len, msg);
            dra_buf_free(&b2);
        }
    } else if (node_name || node_sel || all) {
        dra_ferr_invalid_raw(&v->errs, VP(v), "null",
                             "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is "
                             "set to true in the ResourceSlice spec");
    }

    dra_v_binding_parameters(v, d);
    v_node_allocatable(v, d, caps);
}

/* A device: its fields looked up through the memo (see V_MEMO). */
/* Whether a device of a list has taints, counter consumptions or a list
 * attribute (validation.go: haveDeviceTaints, haveConsumesCounters,
 * haveListAttributes), by looking only at those fields. */
static bool any_advanced(const json_t *devices)
{
    size_t i;
    const json_t *d;
    json_array_foreach(devices, i, d) {
        if (alen(json_object_get(d, "taints")) || alen(json_object_get(d, "consumesCounters")))
            return true;
        const char *name;
        const json_t *a;
        json_t *attrs = json_object_get(d, "attributes"); /* the macro names it at each step */
        json_object_foreach(attrs, name, a) {
            const json_t *f[AF_COUNT];
            attr_fields(a, f);
            for (int k = AF_INTS; k <= AF_VERSIONS; k++)
                if (f[k] && !json_is_null(f[k]))
                    return true;
        }
    }
    return false;
}

static void v_device(vctx *v, const json_t *d, bool per_device_nodes, bool *advanced)
{
    if (dra_vis_obj(v, d))
        V_MEMO(v, d) v_device_fields(v, d, per_device_nodes, advanced);
}

/* Whether a device's error (its field path rel after "devices[i]") comes
 * from the declarative validation of resource/v1 Device, which the API
 * server runs on every device, past the devices' limit too (validation.go's
 * validateSet stops there; zz_generated.validations.go's Validate_Device
 * does not): the attribute union, consumesCounters (at most 2, unique
 * counter sets, each with a short-name counterSet and some counters), a
 * taint's effect (required, an enum), at most 4 binding (failure)
 * conditions. */
static bool declarative_device_error(const char *rel, const char *msg)
{
    bool too_many = strncmp(msg, "Too many:", 9) == 0, required = strncmp(msg, "Required value", 14) == 0;
    if (strncmp(rel, ".attributes[", 12) == 0)
        return strstr(msg, ": must specify one of: ") != NULL;
    if (strcmp(rel, ".consumesCounters") == 0 || strcmp(rel, ".bindingConditions") == 0 ||
        strcmp(rel, ".bindingFailureConditions") == 0)
        return too_many;
    const char *r;
    if (strncmp(rel, ".consumesCounters[", 18) == 0 && (r = strchr(rel + 18, ']')) != NULL) {
        if (r[1] == '\0')
            return strncmp(msg, "Duplicate value", 15) == 0;
        if (strcmp(r + 1, ".counterSet") == 0 || strncmp(r + 1, ".compatibilityGroups", 20) == 0)
            return true;
        return strcmp(r + 1, ".counters") == 0 && required;
    }
    if (strncmp(rel, ".taints[", 8) == 0 && (r = strchr(rel + 8, ']')) != NULL)
        return strcmp(r + 1, ".effect") == 0 && (required || strncmp(msg, "Unsupported value", 17) == 0);
    return false;
}

void dra_validate_slice_v1beta1_paths(dra_err *errs, const dra_features *features)
{
    if (dra_features_release_of(features) <= DRA_RELEASE_1_36)
        return;
    static const char pre[] = "spec.devices[";
    for (dra_err *e = errs; e; e = e->next) {
        if (!e->field || strncmp(e->field, pre, sizeof pre - 1) != 0)
            continue;
        const char *rel = strchr(e->field + sizeof pre - 1, ']');
        if (!rel || !declarative_device_error(rel + 1, e->msg))
            continue;
        char *f = dra_xasprintf("%.*s.basic%s", (int)(rel + 1 - e->field), e->field, rel + 1);
        free(e->field);
        e->field = f;
    }
}

/* The devices' errors, walked into a chain of their own; *advanced tells
 * whether some device is "advanced". */
static dra_err *device_errors(vctx *v, const json_t *devices, bool per_device, bool *advanced)
{
    dra_errs outer = errs_aside(v);
    V_CHILD(v, "devices")
    {
        for (size_t i = 0; i < json_array_size(devices); i++)
            V_INDEX(v, i) v_device(v, json_array_get(devices, i), per_device, advanced);
        v_unique_key(v, devices, "name", -1);
    }
    return errs_back(v, outer);
}

/* Past the devices' limit: of the devices' errors, the declarative ones
 * (the rest of their validation is not reported); takes the chain.  1.36
 * reports none: its API server answers with the handwritten rules alone,
 * whose validateSet and validateSlice stop at the limit (v1.36.3
 * pkg/apis/resource/validation/validation.go). */
static void add_declarative(vctx *v, dra_err *all)
{
    if (dra_vrelease(v) <= DRA_RELEASE_1_36) {
        dra_err_free(all);
        return;
    }
    for (dra_err *e; (e = dra_err_pop(&all)) != NULL;) {
        const char *f = e->field ? strstr(e->field, "devices[") : NULL;
        const char *rel = f ? strchr(f, ']') : NULL;
        if (rel && declarative_device_error(rel + 1, e->msg))
            dra_errs_add(&v->errs, e);
        else
            dra_err_free(e);
    }
}

/* spec.pool: its name, resourceSliceCount and generation. */
static void v_slice_pool(vctx *v, const json_t *spec)
{
    const json_t *pool = NULL;
    dra_vobj(v, spec, "pool", &pool);
    V_CHILD(v, "pool")
    V_MEMO(v, pool)
    {
        dra_vstr_check(v, pool, "name", dra_check_pool_name);
        int64_t count = 0, gen = 0;
        dra_vint(v, pool, "resourceSliceCount", &count);
        dra_vint(v, pool, "generation", &gen);
        if (count <= 0)
            V_CHILD(v, "resourceSliceCount") dra_ferr_invalid_int(&v->errs, VP(v), count, "must be greater than zero");
        if (gen < 0)
            V_CHILD(v, "generation")
        dra_ferr_invalid_int(&v->errs, VP(v), gen, "must be greater than or equal to zero");
    }
}

/* Exactly one of nodeName, nodeSelector, allNodes and
 * perDeviceNodeSelection; true when perDeviceNodeSelection is set. */
static bool v_slice_node_selection(vctx *v, const json_t *spec)
{
    const char *s = "";
    size_t len = 0;
    const char *set[4];
    int nset = 0;
    if (dra_vstr(v, spec, "nodeName", &s, &len)) {
        if (len) {
            set[nset++] = "`nodeName`";
            V_CHILD(v, "nodeName") dra_vcheck(v, dra_check_node_name, s, len);
        } else {
            V_CHILD(v, "nodeName")
            dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "must be either unset or set to a non-empty string");
        }
    }
    const json_t *sel = dra_vget(spec, "nodeSelector");
    if (sel) {
        set[nset++] = "`nodeSelector`";
        V_CHILD(v, "nodeSelector")
        {
            dra_v_node_selector(v, sel);
            const json_t *terms = dra_vget(sel, "nodeSelectorTerms");
            if (alen(terms) != 1) {
                char *j = dra_v_go_json(terms, DRA_GO_INTERNAL_NODE_SELECTOR_TERMS, dra_vquantity_rules(v));
                V_CHILD(v, "nodeSelectorTerms")
                dra_ferr_invalid_raw(&v->errs, VP(v), j, "must have exactly one node selector term");
                free(j);
            }
        }
    }
    bool b;
    if (dra_vbool(v, spec, "allNodes", &b)) {
        if (b)
            set[nset++] = "`allNodes`";
        else
            V_CHILD(v, "allNodes")
        dra_ferr_invalid_raw(&v->errs, VP(v), "false", "must be either unset or set to true");
    }
    bool per_device = false;
    if (dra_vbool(v, spec, "perDeviceNodeSelection", &b)) {
        if (b) {
            set[nset++] = "`perDeviceNodeSelection`";
            per_device = true;
        } else {
            V_CHILD(v, "perDeviceNodeSelection")
            dra_ferr_invalid_raw(&v->errs, VP(v), "false", "must be either unset or set to true");
        }
    }
    static const char msg[] =
        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";
    if (nset == 0) {
        dra_ferr_required(&v->errs, VP(v), msg);
    } else if (nset > 1) {
        dra_buf b2 = DRA_BUF_INIT;
        dra_buf_putc(&b2, '{');
        for (int i = 0; i < nset; i++)
            dra_buf_printf(&b2, "%s%s", i ? ", " : "", set[i]);
        dra_buf_putc(&b2, '}');
        char *d = dra_xasprintf("%s, but multiple fields are set", msg);
        dra_ferr_invalid_str(&v->errs, VP(v), b2.data, b2.len, d);
        free(d);
        dra_buf_free(&b2);
    }
    return per_device;
}

/* The devices or the shared counter sets, within their limits; the
 * devices (NULL: none). */
static const json_t *v_slice_items(vctx *v, const json_t *spec, bool per_device)
{
    const json_t *devices = NULL, *counters = NULL;
    dra_varr(v, spec, "devices", &devices);
    dra_varr(v, spec, "sharedCounters", &counters);
    if (devices && counters)
        dra_ferr_invalid_str(&v->errs, VP(v), "", 0, "only one of `sharedCounters` or `devices` is allowed");

    /* The device limit is 64 when any device is "advanced", which the device
     * walk finds out (over 128 devices, a look at each device says which
     * limit): the items are validated into a chain of their own, of which
     * only the declarative errors are kept past the limit. */
    size_t max_devices = json_array_size(devices) > DRA_RESOURCE_SLICE_MAX_DEVICES && any_advanced(devices)
                             ? DRA_RESOURCE_SLICE_MAX_DEVICES_ADVANCED
                             : DRA_RESOURCE_SLICE_MAX_DEVICES;
    if (devices) {
        bool over = !dra_v_max_items(v, "devices", devices, max_devices), advanced = false;
        dra_err *items = device_errors(v, devices, per_device, &advanced);
        if (!over && advanced && json_array_size(devices) > DRA_RESOURCE_SLICE_MAX_DEVICES_ADVANCED) {
            over = true;
            dra_v_max_items(v, "devices", devices, DRA_RESOURCE_SLICE_MAX_DEVICES_ADVANCED);
        }
        if (over)
            add_declarative(v, items);
        else
            dra_errs_add(&v->errs, items);
    }
    if (counters && dra_v_max_items(v, "sharedCounters", counters, DRA_RESOURCE_SLICE_MAX_COUNTER_SETS)) {
        V_CHILD(v, "sharedCounters")
        {
            for (size_t i = 0; i < json_array_size(counters); i++)
                V_INDEX(v, i) v_counter_set(v, json_array_get(counters, i));
            v_unique_key(v, counters, "name", DRA_GO_COUNTER_SET);
        }
    }
    return devices;
}

/* partitionTypeAttribute [master]: devices consuming counters must carry it as a string. */
static void v_slice_partition_type(vctx *v, const json_t *spec, const json_t *devices)
{
    const char *s = "";
    size_t len = 0;
    if (dra_vstr(v, spec, "partitionTypeAttribute", &s, &len)) {
        bool consumes = false;
        for (size_t i = 0; i < alen(devices); i++)
            if (alen(dra_vget(json_array_get(devices, i), "consumesCounters")))
                consumes = true;
        /* the name's format is the declarative k8s-resource-fully-qualified-name
         * (types.go +k8s:format), checked after the handwritten rules */
        if (!consumes) {
            V_CHILD(v, "partitionTypeAttribute")
            {
                dra_ferr_invalid_str(&v->errs, VP(v), s, len,
                                     "may only be set on a slice which declares devices that consume counters");
                dra_check_resource_fully_qualified_name(&v->errs, VP(v), s, len);
            }
        } else {
            dra_errs tmp = DRA_ERRS_INIT;
            V_CHILD(v, "partitionTypeAttribute") dra_check_resource_fully_qualified_name(&tmp, VP(v), s, len);
            bool malformed = tmp.n > 0;
            /* The malformed name itself is reported like the declarative rule would. */
            dra_errs_add(&v->errs, dra_errs_take(&tmp));
            const char *driver = json_string_value(dra_vget(spec, "driver"));
            size_t dlen = driver ? strlen(driver) : 0;
            const char *bare = NULL;
            if (driver && len > dlen + 1 && memcmp(s, driver, dlen) == 0 && s[dlen] == '/')
                bare = s + dlen + 1;
            for (size_t i = 0; !malformed && i < alen(devices); i++) {
                const json_t *d = json_array_get(devices, i);
                if (!alen(dra_vget(d, "consumesCounters")))
                    continue;
                const json_t *attrs = dra_vget(d, "attributes");
                const json_t *attr = json_object_get(attrs, s);
                if (!attr && bare)
                    attr = json_object_get(attrs, bare);
                V_CHILD(v, "devices") V_INDEX(v, i) V_CHILD(v, "attributes") V_KEY(v, s, len)
                {
                    if (!attr) {
                        dra_ferr_required(&v->errs, VP(v),
                                          "device consumes counters and `partitionTypeAttribute` names this attribute, "
                                          "so it must be set");
                    } else if (!json_is_string(dra_vget(attr, "string"))) {
                        char *j = dra_v_go_json(attr, DRA_GO_INTERNAL_DEVICE_ATTRIBUTE, dra_vquantity_rules(v));
                        dra_ferr_invalid_raw(
                            &v->errs, VP(v), j,
                            "must be a string value because `partitionTypeAttribute` names this attribute");
                        free(j);
                    }
                }
            }
        }
    }
}

static void v_slice_spec(vctx *v, const json_t *spec)
{
    dra_vstr_check(v, spec, "driver", dra_check_driver_name);
    v_slice_pool(v, spec);
    bool per_device = v_slice_node_selection(v, spec);
    const json_t *devices = v_slice_items(v, spec, per_device);
    v_slice_partition_type(v, spec, devices);
    dra_v_skip_node_operations(v, spec);
}

dra_err *dra_validate_resource_slice(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    const json_t *spec = NULL;
    V_MEMO(&v, obj)
    {
        dra_v_object_meta(&v, obj, false, false);
        if (!dra_vobj(&v, obj, "spec", &spec))
            spec = NULL;
    }
    json_t *tmp = NULL;
    if (!spec) {
        /* A missing spec is validated as an empty one, as Go's zero value would be. */
        tmp = json_object();
        spec = tmp;
    }
    V_CHILD(&v, "spec") V_MEMO(&v, spec) v_slice_spec(&v, spec);
    json_decref(tmp);
    return dra_vctx_finish(&v);
}
