/* Values rendered as Go's encoding/json renders the resource/v1 structs
 * (see validate_common.h). */
#include <stdlib.h>
#include <string.h>

#include "validate_common.h"
#include "../base/sort.h"

typedef enum { GJ_STR, GJ_INT, GJ_BOOL, GJ_QTY, GJ_OBJ, GJ_LIST, GJ_MAP, GJ_RAW } gj_kind;

enum { GJ_OMITEMPTY = 1, GJ_POINTER = 2 };

typedef struct gj_type gj_type;

/* One field: its JSON name, kind, flags; for lists and maps the kind of
 * the items; the struct type of a struct or of struct items; the Go name
 * of a field of an internal type. */
typedef struct gj_field {
    const char *name;
    gj_kind kind;
    unsigned flags;
    gj_kind item;
    const gj_type *type;
    const char *go;
} gj_field;

/* internal: a type of pkg/apis/... without json tags: encoding/json writes
 * every field under its Go name, nil pointers and slices as null. */
struct gj_type {
    const gj_field *f;
    size_t n;
    bool internal;
};

/* clang-format off */
#define GJ_TYPE(name, ...)                                      \
    static const gj_field name##_fields[] = {__VA_ARGS__};      \
    static const gj_type name = {name##_fields, sizeof name##_fields / sizeof *name##_fields, false}
#define GJ_INTERNAL_TYPE(name, ...)                             \
    static const gj_field name##_fields[] = {__VA_ARGS__};      \
    static const gj_type name = {name##_fields, sizeof name##_fields / sizeof *name##_fields, true}
/* clang-format on */

/* k8s.io/api v0.37.2 resource/v1 types.go, meta/v1 Condition */
GJ_TYPE(gj_cel, {"expression", GJ_STR, 0, 0, NULL, NULL});
GJ_TYPE(gj_selector, {"cel", GJ_OBJ, GJ_OMITEMPTY | GJ_POINTER, 0, &gj_cel, NULL});
GJ_TYPE(gj_toleration, {"key", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL}, {"operator", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL},
        {"value", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL}, {"effect", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL},
        {"tolerationSeconds", GJ_INT, GJ_OMITEMPTY | GJ_POINTER, 0, NULL, NULL});
GJ_TYPE(gj_capacity_req, {"requests", GJ_MAP, GJ_OMITEMPTY, GJ_QTY, NULL, NULL});
GJ_TYPE(gj_derived, {"name", GJ_STR, 0, 0, NULL, NULL}, {"expression", GJ_STR, 0, 0, NULL, NULL});
GJ_TYPE(gj_exact, {"deviceClassName", GJ_STR, 0, 0, NULL, NULL},
        {"selectors", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_selector, NULL},
        {"allocationMode", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL}, {"count", GJ_INT, GJ_OMITEMPTY, 0, NULL, NULL},
        {"adminAccess", GJ_BOOL, GJ_OMITEMPTY | GJ_POINTER, 0, NULL, NULL},
        {"tolerations", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_toleration, NULL},
        {"capacity", GJ_OBJ, GJ_OMITEMPTY | GJ_POINTER, 0, &gj_capacity_req, NULL},
        {"derivedAttributes", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_derived, NULL});
GJ_TYPE(gj_sub_request, {"name", GJ_STR, 0, 0, NULL, NULL}, {"deviceClassName", GJ_STR, 0, 0, NULL, NULL},
        {"selectors", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_selector, NULL},
        {"allocationMode", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL}, {"count", GJ_INT, GJ_OMITEMPTY, 0, NULL, NULL},
        {"tolerations", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_toleration, NULL},
        {"capacity", GJ_OBJ, GJ_OMITEMPTY | GJ_POINTER, 0, &gj_capacity_req, NULL},
        {"derivedAttributes", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_derived, NULL});
GJ_TYPE(gj_request, {"name", GJ_STR, 0, 0, NULL, NULL},
        {"exactly", GJ_OBJ, GJ_OMITEMPTY | GJ_POINTER, 0, &gj_exact, NULL},
        {"firstAvailable", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_sub_request, NULL});
/* k8s.io/api v0.37.2 resource/v1beta1 DeviceRequest: the fields of
 * `exactly` at the request's level, deviceClassName always written */
GJ_TYPE(gj_request_v1beta1, {"name", GJ_STR, 0, 0, NULL, NULL}, {"deviceClassName", GJ_STR, 0, 0, NULL, NULL},
        {"selectors", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_selector, NULL},
        {"allocationMode", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL}, {"count", GJ_INT, GJ_OMITEMPTY, 0, NULL, NULL},
        {"adminAccess", GJ_BOOL, GJ_OMITEMPTY | GJ_POINTER, 0, NULL, NULL},
        {"firstAvailable", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_sub_request, NULL},
        {"tolerations", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_toleration, NULL},
        {"capacity", GJ_OBJ, GJ_OMITEMPTY | GJ_POINTER, 0, &gj_capacity_req, NULL},
        {"derivedAttributes", GJ_LIST, GJ_OMITEMPTY, GJ_OBJ, &gj_derived, NULL});
GJ_TYPE(gj_consumer, {"apiGroup", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL}, {"resource", GJ_STR, 0, 0, NULL, NULL},
        {"name", GJ_STR, 0, 0, NULL, NULL}, {"uid", GJ_STR, 0, 0, NULL, NULL});
GJ_TYPE(gj_condition, {"type", GJ_STR, 0, 0, NULL, NULL}, {"status", GJ_STR, 0, 0, NULL, NULL},
        {"observedGeneration", GJ_INT, GJ_OMITEMPTY, 0, NULL, NULL}, {"lastTransitionTime", GJ_RAW, 0, 0, NULL, NULL},
        {"reason", GJ_STR, 0, 0, NULL, NULL}, {"message", GJ_STR, 0, 0, NULL, NULL});
GJ_TYPE(gj_network, {"interfaceName", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL},
        {"ips", GJ_LIST, GJ_OMITEMPTY, GJ_STR, NULL, NULL}, {"hardwareAddress", GJ_STR, GJ_OMITEMPTY, 0, NULL, NULL});
GJ_TYPE(gj_device_status, {"driver", GJ_STR, 0, 0, NULL, NULL}, {"pool", GJ_STR, 0, 0, NULL, NULL},
        {"device", GJ_STR, 0, 0, NULL, NULL}, {"shareID", GJ_STR, GJ_OMITEMPTY | GJ_POINTER, 0, NULL, NULL},
        {"conditions", GJ_LIST, 0, GJ_OBJ, &gj_condition, NULL},
        {"data", GJ_RAW, GJ_OMITEMPTY | GJ_POINTER, 0, NULL, NULL},
        {"networkData", GJ_OBJ, GJ_OMITEMPTY | GJ_POINTER, 0, &gj_network, NULL});
GJ_TYPE(gj_counter, {"value", GJ_QTY, 0, 0, NULL, NULL});
GJ_TYPE(gj_counter_set, {"name", GJ_STR, 0, 0, NULL, NULL},
        {"counters", GJ_MAP, GJ_OMITEMPTY, GJ_OBJ, &gj_counter, NULL});
GJ_TYPE(gj_consumption, {"counterSet", GJ_STR, 0, 0, NULL, NULL},
        {"counters", GJ_MAP, GJ_OMITEMPTY, GJ_OBJ, &gj_counter, NULL},
        {"compatibilityGroups", GJ_LIST, GJ_OMITEMPTY, GJ_STR, NULL, NULL});

/* pkg/apis/resource and pkg/apis/core (internal) types.go, k8s.io/kubernetes v1.37.2 */
GJ_INTERNAL_TYPE(gj_int_attribute, {"int", GJ_INT, GJ_POINTER, 0, NULL, "IntValue"},
                 {"bool", GJ_BOOL, GJ_POINTER, 0, NULL, "BoolValue"},
                 {"string", GJ_STR, GJ_POINTER, 0, NULL, "StringValue"},
                 {"version", GJ_STR, GJ_POINTER, 0, NULL, "VersionValue"},
                 {"ints", GJ_LIST, 0, GJ_INT, NULL, "IntValues"}, {"bools", GJ_LIST, 0, GJ_BOOL, NULL, "BoolValues"},
                 {"strings", GJ_LIST, 0, GJ_STR, NULL, "StringValues"},
                 {"versions", GJ_LIST, 0, GJ_STR, NULL, "VersionValues"});
GJ_INTERNAL_TYPE(gj_int_pod_claim, {"name", GJ_STR, 0, 0, NULL, "Name"},
                 {"resourceClaimName", GJ_STR, GJ_POINTER, 0, NULL, "ResourceClaimName"},
                 {"resourceClaimTemplateName", GJ_STR, GJ_POINTER, 0, NULL, "ResourceClaimTemplateName"});
GJ_INTERNAL_TYPE(gj_int_selector_req, {"key", GJ_STR, 0, 0, NULL, "Key"}, {"operator", GJ_STR, 0, 0, NULL, "Operator"},
                 {"values", GJ_LIST, 0, GJ_STR, NULL, "Values"});
GJ_INTERNAL_TYPE(gj_int_selector_term,
                 {"matchExpressions", GJ_LIST, 0, GJ_OBJ, &gj_int_selector_req, "MatchExpressions"},
                 {"matchFields", GJ_LIST, 0, GJ_OBJ, &gj_int_selector_req, "MatchFields"});

/* As encoding/json writes it: <, > and & escaped (and U+2028, U+2029),
 * which can only be inside strings of the text. */
char *dra_vjson(const json_t *value)
{
    if (!value)
        return dra_xstrdup("null");
    char *s = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s)
        return dra_xstrdup("null");
    dra_buf b = DRA_BUF_INIT;
    for (const char *p = s; *p; p++) {
        if (*p == '<' || *p == '>' || *p == '&')
            dra_buf_printf(&b, "\\u%04x", (unsigned)*p);
        else if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 && ((unsigned char)p[2] & 0xfe) == 0xa8)
            dra_buf_printf(&b, "\\u%04x", 0x2028u + ((unsigned char)p[2] & 1)), p += 2;
        else
            dra_buf_putc(&b, *p);
    }
    free(s);
    dra_buf_puts(&b, "");
    return dra_buf_detach(&b);
}

static json_t *render(const json_t *v, gj_kind kind, gj_kind item, const gj_type *type, unsigned qrules);

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *render_struct(const json_t *obj, const gj_type *t, unsigned qrules)
{
    json_t *o = json_object();
    for (size_t i = 0; i < t->n; i++) {
        const gj_field *f = &t->f[i];
        const json_t *v = json_object_get(obj, f->name);
        if (v && json_is_null(v))
            v = NULL;
        bool empty = !v || (f->kind == GJ_STR && json_is_string(v) && json_string_length(v) == 0) ||
                     (f->kind == GJ_INT && json_is_integer(v) && json_integer_value(v) == 0) ||
                     (f->kind == GJ_BOOL && json_is_false(v)) ||
                     (f->kind == GJ_LIST && json_is_array(v) && json_array_size(v) == 0) ||
                     (f->kind == GJ_MAP && json_is_object(v) && json_object_size(v) == 0);
        /* omitempty leaves out zero values, and nil pointers only */
        if ((f->flags & GJ_OMITEMPTY) && (!v || (empty && !(f->flags & GJ_POINTER))))
            continue;
        /* a nil pointer, slice or map of an internal type is null */
        if (t->internal && !v && ((f->flags & GJ_POINTER) || f->kind == GJ_LIST || f->kind == GJ_MAP)) {
            json_object_set_new(o, f->go, json_null());
            continue;
        }
        json_object_set_new(o, t->internal ? f->go : f->name, render(v, f->kind, f->item, f->type, qrules));
    }
    return o;
}

/* The value of a field as Go holds it after decoding; NULL is its zero. */
static json_t *render(const json_t *v, gj_kind kind, gj_kind item, const gj_type *type, unsigned qrules)
{
    switch (kind) {
    case GJ_STR: return json_is_string(v) ? json_stringn(json_string_value(v), json_string_length(v)) : json_string("");
    case GJ_INT: return json_integer(json_is_integer(v) ? json_integer_value(v) : 0);
    case GJ_BOOL: return json_boolean(json_is_true(v));
    case GJ_QTY: {
        dra_quantity q;
        char buf[DRA_QUANTITY_STRMAX];
        /* a number is read as its text (Quantity.UnmarshalJSON) */
        char *text = json_is_number(v) ? dra_vjson(v) : NULL;
        dra_err *e = json_is_string(v)
                         ? dra_quantity_parse_json_rules(json_string_value(v), json_string_length(v), qrules, &q)
                         : dra_quantity_parse_rules(text ? text : "0", text ? strlen(text) : 1, qrules, &q);
        free(text);
        json_t *r = e ? json_deep_copy(v) : json_string(dra_quantity_format(&q, buf));
        dra_err_free(e);
        return r ? r : json_null();
    }
    case GJ_OBJ: return type ? render_struct(json_is_object(v) ? v : NULL, type, qrules) : json_null();
    case GJ_LIST: {
        if (!json_is_array(v))
            return json_null();
        json_t *a = json_array();
        size_t i;
        const json_t *x;
        json_array_foreach(v, i, x) {
            json_array_append_new(a, render(x, item, 0, type, qrules));
        }
        return a;
    }
    case GJ_MAP: {
        if (!json_is_object(v))
            return json_null();
        /* Go writes map keys sorted */
        size_t n = json_object_size(v), i = 0;
        const char **keys = dra_xcalloc(n ? n : 1, sizeof *keys);
        const char *k;
        const json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            keys[i++] = k;
        }
        dra_sort(keys, n, sizeof *keys, key_cmp);
        json_t *o = json_object();
        for (i = 0; i < n; i++)
            json_object_set_new(o, keys[i], render(json_object_get(v, keys[i]), item, 0, type, qrules));
        free(keys);
        return o;
    }
    case GJ_RAW:
    default: return v ? json_deep_copy(v) : json_null();
    }
}

char *dra_v_go_json(const json_t *value, dra_go_type t, unsigned qrules)
{
    static const gj_type *const types[] = {
        [DRA_GO_DEVICE_REQUEST] = &gj_request,
        [DRA_GO_DEVICE_SUB_REQUEST] = &gj_sub_request,
        [DRA_GO_CONSUMER_REFERENCE] = &gj_consumer,
        [DRA_GO_ALLOCATED_DEVICE_STATUS] = &gj_device_status,
        [DRA_GO_COUNTER_SET] = &gj_counter_set,
        [DRA_GO_COUNTER_CONSUMPTION] = &gj_consumption,
        [DRA_GO_CONDITION] = &gj_condition,
        [DRA_GO_INTERNAL_DEVICE_ATTRIBUTE] = &gj_int_attribute,
        [DRA_GO_INTERNAL_POD_RESOURCE_CLAIM] = &gj_int_pod_claim,
        [DRA_GO_INTERNAL_NODE_SELECTOR_TERMS] = &gj_int_selector_term,
        [DRA_GO_V1BETA1_DEVICE_REQUEST] = &gj_request_v1beta1,
    };
    json_t *flat = NULL;
    if (t == DRA_GO_V1BETA1_DEVICE_REQUEST && json_is_object(value)) {
        /* Convert_resource_DeviceRequest_To_v1beta1_DeviceRequest */
        flat = json_copy((json_t *)value);
        json_object_del(flat, "exactly");
        json_t *exactly = json_object_get(value, "exactly");
        if (json_is_object(exactly))
            json_object_update(flat, exactly);
        value = flat;
    }
    json_t *o = t == DRA_GO_INTERNAL_NODE_SELECTOR_TERMS
                    ? render(value, GJ_LIST, GJ_OBJ, types[t], qrules)
                    : render_struct(json_is_object(value) ? value : NULL, types[t], qrules);
    json_decref(flat);
    char *s = dra_vjson(o);
    json_decref(o);
    return s;
}
