/* Inventory -> ResourceSlices (see build.h).  Publishing rules follow
 * staging/src/k8s.io/dynamic-resource-allocation/resourceslice/resourceslicecontroller.go
 * (syncPool, getIndexLength, encodeIndex/decodeIndex, DevicesDeepEqual). */
#include "build.h"
#include "../base/hash.h"
#include "../base/sort.h"

#include <stdlib.h>
#include <string.h>

#include "../model/convert.h"
#include "../model/kinds.h"
#include "../model/names.h"
#include "../model/quantity.h"
#include "../model/strict.h"
#include "../model/validate.h"
#include "../model/time.h"
#include "../io/json.h"
#include "../io/jparse.h"

/* ---- inventory ---- */

static void push_item(dra_slice_item **v, size_t *n, size_t *cap, json_t *json, const dra_obj *src, const char *field)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *v = dra_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = (dra_slice_item){.json = json, .src = src, .field = dra_xstrdup(field ? field : "")};
}

void dra_inventory_add_device(dra_inventory *inv, json_t *device, const dra_obj *src, const char *field)
{
    push_item(&inv->devices, &inv->ndevices, &inv->capdevices, device, src, field);
}

void dra_inventory_add_counter_set(dra_inventory *inv, json_t *set, const dra_obj *src, const char *field)
{
    push_item(&inv->counter_sets, &inv->ncounter_sets, &inv->capcounter_sets, set, src, field);
}

static void hold(dra_slice_item *it, dra_buf *b)
{
    if (!it->json)
        return;
    dra_buf_reset(b);
    dra_json_write_compact(b, it->json);
    it->text = dra_xstrdup(dra_buf_str(b));
    it->json = NULL;
}

void dra_inventory_hold(dra_inventory *inv, size_t d0, size_t c0)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = d0; i < inv->ndevices; i++)
        hold(&inv->devices[i], &b);
    for (size_t i = c0; i < inv->ncounter_sets; i++)
        hold(&inv->counter_sets[i], &b);
    dra_buf_free(&b);
}

/* An item's JSON: a new reference (parsed again when held as text). */
static json_t *item_ref(const dra_slice_item *it)
{
    if (it->json)
        return json_incref(it->json);
    json_t *v = it->text ? dra_json_read_compact(it->text, strlen(it->text)) : NULL;
    return v ? v : json_object(); /* our own text: it parses */
}

/* Drop the items, keeping the arrays for more. */
static void inventory_clear(dra_inventory *inv)
{
    for (size_t i = 0; i < inv->ndevices; i++) {
        free(inv->devices[i].field);
        free(inv->devices[i].text);
    }
    for (size_t i = 0; i < inv->ncounter_sets; i++) {
        free(inv->counter_sets[i].field);
        free(inv->counter_sets[i].text);
    }
    inv->ndevices = inv->ncounter_sets = 0;
}

void dra_inventory_free(dra_inventory *inv)
{
    inventory_clear(inv);
    free(inv->devices);
    free(inv->counter_sets);
    dra_errs_free(&inv->warnings);
    *inv = (dra_inventory)DRA_INVENTORY_INIT;
}

static dra_err *add_array(dra_inventory *inv, const dra_obj *o, json_t *arr, const char *prefix, bool devices)
{
    if (!arr || json_is_null(arr))
        return NULL;
    if (!json_is_array(arr))
        return dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_INPUT, "must be a list"), prefix), o);
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        char field[64];
        snprintf(field, sizeof field, "%s[%zu]", prefix, i);
        if (devices)
            dra_inventory_add_device(inv, v, o, field);
        else
            dra_inventory_add_counter_set(inv, v, o, field);
    }
    return NULL;
}

static dra_err *name_all(dra_err *e, const char *object)
{
    for (dra_err *x = e; x; x = x->next)
        if (!x->object)
            x = dra_err_object(x, object);
    return e;
}

dra_err *dra_inventory_add(dra_inventory *inv, const dra_obj *o)
{
    json_t *obj = o->json;
    const json_t *kind = json_object_get(obj, "kind");
    if (kind) {
        if (!json_is_string(kind) || strcmp(json_string_value(kind), "ResourceSlice") != 0) {
            dra_err *e = dra_err_new(DRA_EXIT_INPUT,
                                     "unknown kind %s: an inventory is a list of devices, a mapping with "
                                     "`devices`, or ResourceSlices",
                                     json_is_string(kind) ? json_string_value(kind) : "(not a string)");
            return dra_obj_locate(dra_err_field(e, "kind"), o);
        }
        /* v1beta1/v1beta2 slices are converted in place to the v1 device shape. */
        dra_kind k;
        dra_apiver ver;
        dra_err *ce = dra_kind_of(obj, &k, &ver);
        dra_err *w = NULL;
        if (!ce)
            ce = dra_strict_check(obj, k, ver, inv->field_validation, &w, o);
        dra_errs_add(&inv->warnings, dra_obj_locate(w, o));
        if (!ce)
            ce = dra_convert_to_v1(obj, k, ver);
        if (ce)
            return dra_obj_locate(ce, o);
        json_t *spec = json_object_get(obj, "spec");
        if (!json_is_object(spec))
            return dra_obj_locate(dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Required value"), "spec"), o);
        dra_err *e = add_array(inv, o, json_object_get(spec, "devices"), "spec.devices", true);
        if (!e)
            e = add_array(inv, o, json_object_get(spec, "sharedCounters"), "spec.sharedCounters", false);
        return e;
    }
    if (json_object_get(obj, "devices") || json_object_get(obj, "sharedCounters")) {
        dra_err *w = NULL;
        dra_err *e = dra_strict_check_part(obj, "inventory", "", inv->field_validation, &w, o);
        dra_errs_add(&inv->warnings, dra_obj_locate(name_all(w, "inventory"), o));
        if (e)
            return dra_obj_locate(name_all(e, "inventory"), o);
        e = add_array(inv, o, json_object_get(obj, "devices"), "devices", true);
        if (!e)
            e = add_array(inv, o, json_object_get(obj, "sharedCounters"), "sharedCounters", false);
        return e;
    }
    if (json_object_get(obj, "name")) {
        /* An element of a list: name its index when the reader kept it. */
        char field[32] = "";
        if (o->item >= 0)
            snprintf(field, sizeof field, "[%d]", o->item);
        dra_err *w = NULL;
        dra_err *e = dra_strict_check_part(obj, "device", "", inv->field_validation, &w, o);
        const char *name = json_string_value(json_object_get(obj, "name"));
        char *ref = dra_xasprintf("Device/%s", name ? name : "");
        dra_errs_add(&inv->warnings, dra_obj_locate(name_all(w, ref), o));
        e = dra_obj_locate(name_all(e, ref), o);
        free(ref);
        if (e)
            return e;
        dra_inventory_add_device(inv, obj, o, field);
        return NULL;
    }
    return dra_obj_locate(dra_err_new(DRA_EXIT_INPUT, "not an inventory: expected a device (with `name`), a "
                                                      "mapping with `devices`, or a ResourceSlice"),
                          o);
}

dra_err *dra_slice_err_prefix(dra_err *e, const char *prefix)
{
    for (dra_err *p = e; p; p = p->next)
        p = dra_err_field_prefix(p, prefix);
    return e;
}

bool dra_slice_device_is_advanced(const json_t *device)
{
    if (json_array_size(json_object_get(device, "taints")) > 0 ||
        json_array_size(json_object_get(device, "consumesCounters")) > 0)
        return true;
    /* master: list-typed attributes count as well (ResourceSliceMaxDevicesWithAdvancedFeatures). */
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(device, "attributes"), key, v) {
        if (json_object_get(v, "ints") || json_object_get(v, "bools") || json_object_get(v, "strings") ||
            json_object_get(v, "versions"))
            return true;
    }
    return false;
}

/* Locate errors about one item: its file/line and field prefix; the object
 * is the slice it came from, or the device itself in a plain inventory.
 * item: the item's JSON when the caller has it at hand, else NULL. */
static dra_err *at_item(dra_err *e, const dra_slice_item *it, const json_t *item, int *lookups)
{
    e = dra_slice_err_prefix(e, it->field);
    json_t *parsed = item ? NULL : item_ref(it);
    const char *name = json_string_value(json_object_get(item ? item : parsed, "name"));
    bool from_slice = it->src && json_object_get(it->src->json, "kind");
    if (!from_slice && name) {
        char *ref =
            dra_xasprintf("%s/%s", strncmp(it->field, "sharedCounters", 14) == 0 ? "CounterSet" : "Device", name);
        for (dra_err *x = e; x; x = x->next)
            if (!x->object)
                x = dra_err_object(x, ref);
        free(ref);
    }
    json_decref(parsed);
    if (it->src)
        e = dra_obj_locate_within(e, it->src, lookups);
    return e;
}

/* Field lines looked up for the errors of one check (each parses the item's
 * document again): more than a tool prints (100); a flood of errors past
 * them is placed at its items' lines. */
#define CHECK_FIELD_LINES 256

/* Names seen so far: dra_strmap (base/hash.h) of name -> position. */
static bool seen_before(dra_strmap *m, const char *name, size_t i)
{
    return dra_strmap_add(m, name, strlen(name), (intptr_t)i, NULL);
}

static bool position_of(const dra_strmap *m, const char *name, size_t *i)
{
    intptr_t v;
    if (!dra_strmap_get(m, name, strlen(name), &v))
        return false;
    *i = (size_t)v;
    return true;
}

/* The counter sets' problems (duplicate names); fills the name -> index map
 * and the parsed sets (each parsed once) that device checks use. */
static dra_err *check_sets(const dra_inventory *inv, const char *pool, dra_strmap *sets, json_t **set_json,
                           int *lookups)
{
    dra_errs errs = DRA_ERRS_INIT;
    dra_strmap_reserve(sets, inv->ncounter_sets);
    for (size_t i = 0; i < inv->ncounter_sets; i++) {
        const dra_slice_item *it = &inv->counter_sets[i];
        set_json[i] = item_ref(it);
        dra_err *e = NULL;
        const char *name = json_string_value(json_object_get(set_json[i], "name"));
        if (name && seen_before(sets, name, i))
            e = dra_err_field(
                dra_err_new(DRA_EXIT_INPUT, "found duplicate counter set \"%s\" in pool \"%s\"", name, pool), "name");
        dra_errs_add(&errs, e ? at_item(e, it, set_json[i], lookups) : NULL);
    }
    return dra_errs_take(&errs);
}

/* The names of one map of a device (attributes or capacity, what: "attribute"
 * or "capacity") qualified with the driver's own domain, as 1.38's publishing
 * helper refuses them (DRA resourceslice/validation.go validateUnqualifiedName:
 * the domain is implicit, so "<driver>/x" only duplicates "x"). */
static dra_err *check_unqualified(const json_t *dev, const char *key, const char *what, const char *driver,
                                  const char *pool)
{
    dra_err *e = NULL;
    size_t dlen = strlen(driver);
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(dev, key), name, v) {
        if (strncmp(name, driver, dlen) != 0 || name[dlen] != '/')
            continue;
        char *field = dra_xasprintf("%s[%s]", key, name);
        e = dra_err_append(
            e, dra_err_field(dra_err_new(DRA_EXIT_INPUT,
                                         "pool \"%s\": device \"%s\": %s \"%s\": use unqualified \"%s\", the driver "
                                         "name is added implicitly",
                                         pool, json_string_value(json_object_get(dev, "name")), what, name,
                                         name + dlen + 1),
                             field));
        free(field);
    }
    return e;
}

dra_err *dra_slice_unqualified_names(const json_t *dev, const char *driver, const char *pool)
{
    return dra_err_append(check_unqualified(dev, "attributes", "attribute", driver, pool),
                          check_unqualified(dev, "capacity", "capacity", driver, pool));
}

/* One device's problems (unlocated): its name given before (repeated),
 * names qualified with the driver's domain (driver: NULL when not checked),
 * and every consumed counter that is not in a set of this pool. */
static dra_err *check_device(const json_t *dev, const char *pool, bool repeated, const char *driver,
                             const dra_strmap *sets, json_t *const *set_json)
{
    dra_err *e = NULL;
    if (repeated)
        e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "found duplicate device \"%s\" in pool \"%s\"",
                                      json_string_value(json_object_get(dev, "name")), pool),
                          "name");
    if (driver)
        e = dra_err_append(e, dra_slice_unqualified_names(dev, driver, pool));
    size_t k;
    json_t *use;
    json_array_foreach(json_object_get(dev, "consumesCounters"), k, use) {
        const char *set_name = json_string_value(json_object_get(use, "counterSet"));
        size_t set_index;
        if (!set_name)
            continue;
        char field[96];
        if (!position_of(sets, set_name, &set_index)) {
            snprintf(field, sizeof field, "consumesCounters[%zu].counterSet", k);
            e = dra_err_append(e,
                               dra_err_field(dra_err_new(DRA_EXIT_INPUT, "counter set %s not found", set_name), field));
            continue;
        }
        const json_t *have = json_object_get(set_json[set_index], "counters");
        const char *cname;
        json_t *c;
        json_object_foreach(json_object_get(use, "counters"), cname, c) {
            if (json_object_get(have, cname))
                continue;
            snprintf(field, sizeof field, "consumesCounters[%zu].counters", k);
            e = dra_err_append(
                e, dra_err_field(dra_err_new(DRA_EXIT_INPUT, "counter %s not found in counter set %s", cname, set_name),
                                 field));
        }
    }
    return e;
}

bool dra_slice_checks_qualified_names(const dra_slice_opts *opts)
{
    return !opts->qualified_names && dra_features_release_of(opts->features) >= DRA_RELEASE_1_38;
}

/* ---- splitting and naming ---- */

int dra_slice_index_width(size_t nslices)
{
    size_t highest = nslices ? nslices - 1 : 0;
    int width = 1;
    while (highest >= 16) {
        highest /= 16;
        width++;
    }
    return width < 5 ? 5 : width;
}

long dra_slice_decode_index(const char *name, int width)
{
    const char *dash = strchr(name, '-');
    if (!dash || dash - name != width)
        return -1;
    long v = 0;
    for (const char *p = name; p < dash; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F') /* strconv.ParseInt accepts both cases */
            d = *p - 'A' + 10;
        else
            return -1;
        if (v > (0x7fffffffffffffffL - d) / 16)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The API server's generateName alphabet (k8s.io/apimachinery/pkg/util/rand):
 * no vowels, so no words; no 0/1/3 that look like letters. */
static const char suffix_alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
#define NAME_SUFFIX_LEN 5
#define NAME_BASE_MAX (63 - NAME_SUFFIX_LEN) /* apiserver/pkg/storage/names: maxGeneratedNameLength */

char *dra_slice_name(const char *driver, const char *owner, const char *pool, size_t index, size_t nslices)
{
    char *base = owner ? dra_xasprintf("%0*zx-%s-%s-", dra_slice_index_width(nslices), index, driver, owner)
                       : dra_xasprintf("%0*zx-%s-", dra_slice_index_width(nslices), index, driver);
    if (strlen(base) > NAME_BASE_MAX)
        base[NAME_BASE_MAX] = '\0';
    uint64_t h = DRA_FNV64_OFFSET;
    h = dra_fnv1a(h, driver, strlen(driver) + 1);
    h = dra_fnv1a(h, pool, strlen(pool) + 1);
    uint64_t idx = index;
    h = dra_fnv1a(h, &idx, sizeof idx);
    char suffix[NAME_SUFFIX_LEN + 1];
    for (int i = 0; i < NAME_SUFFIX_LEN; i++) {
        suffix[i] = suffix_alphabet[h % (sizeof suffix_alphabet - 1)];
        h /= sizeof suffix_alphabet - 1;
    }
    suffix[NAME_SUFFIX_LEN] = '\0';
    char *name = dra_xasprintf("%s%s", base, suffix);
    free(base);
    return name;
}

json_t *dra_slice_object(const dra_slice_opts *opts, const char *name, int64_t generation, size_t nslices,
                         const char *content_key, json_t *content)
{
    const char *pool = opts->pool ? opts->pool : opts->node_name;
    json_t *spec = json_object();
    json_object_set_new(spec, "driver", json_string(opts->driver));
    json_object_set_new(spec, "pool",
                        json_pack("{s:s, s:I, s:I}", "name", pool, "generation", (json_int_t)generation,
                                  "resourceSliceCount", (json_int_t)nslices));
    /* Field order as in the v1 Go type: nodeName, nodeSelector, allNodes, devices, ..., sharedCounters. */
    if (opts->node_name)
        json_object_set_new(spec, "nodeName", json_string(opts->node_name));
    if (opts->node_selector)
        json_object_set_new(spec, "nodeSelector", json_deep_copy(opts->node_selector));
    if (opts->all_nodes)
        json_object_set_new(spec, "allNodes", json_true());
    if (content)
        json_object_set_new(spec, content_key, content);
    return json_pack("{s:s, s:s, s:{s:s}, s:o}", "apiVersion", "resource.k8s.io/v1", "kind", "ResourceSlice",
                     "metadata", "name", name, "spec", spec);
}

/* ---- semantic equality ---- */

static bool is_empty(const json_t *v)
{
    return !v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
           (json_is_object(v) && json_object_size(v) == 0);
}

static bool quantities_equal(const json_t *a, const json_t *b, const dra_features *f)
{
    if (!json_is_string(a) || !json_is_string(b))
        return false;
    dra_quantity qa, qb;
    dra_err *ea = dra_quantity_parse_as(f, json_string_value(a), &qa);
    dra_err *eb = dra_quantity_parse_as(f, json_string_value(b), &qb);
    bool eq = !ea && !eb && dra_quantity_cmp(&qa, &qb) == 0;
    dra_err_free(ea);
    dra_err_free(eb);
    return eq;
}

/* RFC 3339 seconds since the epoch; false when unparsable. */
static bool parse_time(const char *s, long long *out)
{
    dra_time t;
    dra_err *e = dra_time_parse(s, &t);
    if (e) {
        dra_err_free(e);
        return false;
    }
    *out = t.sec;
    return true;
}

static bool equal_ctx(const json_t *a, const json_t *b, const char *key, const char *parent, const dra_features *f);

static bool taint_equal(const json_t *a, const json_t *b, const dra_features *f)
{
    static const char *const keys[] = {"key", "value", "effect"};
    for (size_t i = 0; i < 3; i++)
        if (!equal_ctx(json_object_get(a, keys[i]), json_object_get(b, keys[i]), keys[i], NULL, f))
            return false;
    const char *ta = json_string_value(json_object_get(a, "timeAdded"));
    const char *tb = json_string_value(json_object_get(b, "timeAdded"));
    if (!ta || !tb)
        return true;
    long long x, y;
    if (!parse_time(ta, &x) || !parse_time(tb, &y))
        return strcmp(ta, tb) == 0;
    return llabs(x - y) <= 1;
}

/* Keys whose string values are quantities in ResourceSlice content. */
static bool is_quantity_key(const char *key, const char *parent)
{
    if (!key)
        return false;
    if (strcmp(key, "value") == 0)
        return true; /* capacity[x].value, counters[x].value */
    if (parent && strcmp(parent, "requestPolicy") == 0 && strcmp(key, "default") == 0)
        return true;
    if (parent && strcmp(parent, "validRange") == 0)
        return true; /* min, max, step */
    return strcmp(key, "validValues") == 0;
}

static bool equal_ctx(const json_t *a, const json_t *b, const char *key, const char *parent, const dra_features *f)
{
    if (is_empty(a) && is_empty(b))
        return true;
    if (!a || !b)
        return false;
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        bool taints = key && strcmp(key, "taints") == 0;
        for (size_t i = 0; i < json_array_size(a); i++) {
            const json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
            if (taints ? !taint_equal(x, y, f) : !equal_ctx(x, y, key, parent, f))
                return false;
        }
        return true;
    }
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
            if (!equal_ctx(v, json_object_get(b, k), k, key, f))
                return false;
        json_object_foreach((json_t *)b, k, v)
            if (!json_object_get(a, k) && !is_empty(v))
                return false;
        return true;
    }
    if (json_equal((json_t *)a, (json_t *)b))
        return true;
    return is_quantity_key(key, parent) && quantities_equal(a, b, f);
}

bool dra_slice_json_equal(const json_t *a, const json_t *b, const dra_features *f)
{
    return equal_ctx(a, b, NULL, NULL, f);
}

/* ---- building ---- */

void dra_slice_result_free(dra_slice_result *r)
{
    for (size_t i = 0; i < r->nslices; i++)
        json_decref(r->slices[i]);
    for (size_t i = 0; i < r->nobsolete; i++)
        free(r->obsolete[i]);
    free(r->slices);
    free(r->obsolete);
    memset(r, 0, sizeof *r);
}

/* Every problem of a chain is about a parameter (its field). */
static dra_err *params(dra_err *e)
{
    for (dra_err *x = e; x; x = x->next)
        x->param = 1;
    return e;
}

static dra_err *check_opts(const dra_slice_opts *o)
{
    dra_errs errs = DRA_ERRS_INIT;
    dra_check_driver_name(&errs, "driver", o->driver ? o->driver : "", o->driver ? strlen(o->driver) : 0);
    if (errs.n)
        return params(dra_errs_take(&errs));
    int modes = (o->node_name != NULL) + o->all_nodes + (o->node_selector != NULL);
    if (modes != 1)
        return dra_err_new(DRA_EXIT_INPUT, "exactly one of nodeName, allNodes, nodeSelector is required");
    const char *pool = o->pool ? o->pool : o->node_name;
    if (!pool)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "Required value: a pool name is needed without a node name"),
                             "pool");
    dra_check_pool_name(&errs, "pool", pool, strlen(pool));
    if (o->node_name)
        dra_check_node_name(&errs, "node", o->node_name, strlen(o->node_name));
    if (errs.n)
        return params(dra_errs_take(&errs));
    if (o->generation < 0)
        return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "must be greater than or equal to 0"), "generation");
    return NULL;
}

/* The previous slices of this pool, as the controller's informer sees them:
 * same driver and pool name, and the same nodeName for node-local pools. */
static bool is_pool_member(const dra_slice_opts *o, const char *pool, const json_t *slice)
{
    const json_t *spec = json_object_get(slice, "spec");
    const char *driver = json_string_value(json_object_get(spec, "driver"));
    const char *name = json_string_value(json_object_get(json_object_get(spec, "pool"), "name"));
    if (!driver || !name || strcmp(driver, o->driver) != 0 || strcmp(name, pool) != 0)
        return false;
    if (o->node_name) {
        const char *node = json_string_value(json_object_get(spec, "nodeName"));
        return node && strcmp(node, o->node_name) == 0;
    }
    return true;
}

/* Keep taint timeAdded of matching previous devices (upstream copyTaintTimeAdded). */
static void copy_taint_time_added(const json_t *from_devices, json_t *to_devices)
{
    size_t i;
    json_t *dev;
    json_array_foreach(to_devices, i, dev) {
        json_t *taints = json_object_get(dev, "taints");
        if (!json_array_size(taints))
            continue;
        const json_t *old = NULL;
        size_t j;
        json_t *cand;
        json_array_foreach(from_devices, j, cand)
            if (json_equal(json_object_get(cand, "name"), json_object_get(dev, "name"))) {
                old = cand;
                break;
            }
        if (!old)
            continue;
        size_t t;
        json_t *taint;
        json_array_foreach(taints, t, taint) {
            if (json_object_get(taint, "timeAdded"))
                continue;
            size_t u;
            json_t *ot;
            json_array_foreach(json_object_get(old, "taints"), u, ot) {
                if (json_equal(json_object_get(ot, "key"), json_object_get(taint, "key")) &&
                    json_equal(json_object_get(ot, "value"), json_object_get(taint, "value")) &&
                    json_equal(json_object_get(ot, "effect"), json_object_get(taint, "effect")) &&
                    json_object_get(ot, "timeAdded")) {
                    /* The device is shared with the inventory: copy before changing it. */
                    json_t *copy = json_deep_copy(dev);
                    json_array_set_new(to_devices, i, copy);
                    json_object_set(json_array_get(json_object_get(copy, "taints"), t), "timeAdded",
                                    json_object_get(ot, "timeAdded"));
                    dev = copy;
                    taints = json_object_get(copy, "taints");
                    break;
                }
            }
        }
    }
}

/* The model validator's findings on one built slice, each moved to the
 * inventory item it is about ("spec.devices[3].x" -> that device's ".x");
 * items: the slice's devices or counter sets, in its order. */
static dra_err *validation_errors(const json_t *slice, const dra_features *features, const dra_slice_item *items,
                                  size_t nitems, int *lookups)
{
    dra_validate_opts vo = {.features = features};
    dra_err *all = dra_validate_resource_slice(slice, &vo);
    dra_errs out = DRA_ERRS_INIT;
    while (all) {
        dra_err *x = dra_err_pop(&all);
        const char *f = x->field ? x->field : "";
        const char *rest = NULL, *key = NULL;
        if (strncmp(f, "spec.devices[", 13) == 0)
            rest = f + 13, key = "devices";
        else if (strncmp(f, "spec.sharedCounters[", 20) == 0)
            rest = f + 20, key = "sharedCounters";
        char *end = NULL;
        unsigned long j = rest ? strtoul(rest, &end, 10) : 0;
        if (rest && end && *end == ']' && j < nitems) {
            const dra_slice_item *it = &items[j];
            const char *tail = end + 1;
            if (*tail == '.')
                tail++;
            char *field = dra_xstrdup(tail);
            x = dra_err_field(x, field);
            free(field);
            /* the slice has the item parsed */
            x = at_item(x, it, json_array_get(dra_jfield(dra_jfield(slice, "spec"), key), j), lookups);
        } else {
            char *ref = dra_obj_ref(slice);
            x = dra_err_object(x, ref);
            free(ref);
        }
        x->code = DRA_EXIT_INPUT;
        dra_errs_add(&out, x);
    }
    return dra_errs_take(&out);
}

/* Devices cut into chunks by the 64/128 limits as they come: a device
 * that does not fit closes the chunk before it. */
typedef struct splitter {
    size_t i, start; /* devices seen; where the open chunk starts */
    bool advanced;   /* the open chunk holds an advanced device */
    size_t *ends;    /* dra_xgrow: one past the last device of each closed chunk */
    size_t n;
} splitter;

static void split_add(splitter *s, bool adv)
{
    bool a = s->advanced || adv;
    size_t limit = a ? DRA_RESOURCE_SLICE_MAX_DEVICES_ADVANCED : DRA_RESOURCE_SLICE_MAX_DEVICES;
    if (s->i - s->start + 1 > limit) {
        s->ends = dra_xgrow(s->ends, s->n, sizeof *s->ends);
        s->ends[s->n++] = s->i;
        s->start = s->i;
        a = adv;
    }
    s->advanced = a;
    s->i++;
}

static void split_close(splitter *s)
{
    if (s->i > s->start || s->n == 0) {
        s->ends = dra_xgrow(s->ends, s->n, sizeof *s->ends);
        s->ends[s->n++] = s->i;
    }
}

size_t dra_slice_split_devices(json_t *const *devices, size_t ndevices, size_t *ends)
{
    splitter s = {0};
    for (size_t i = 0; i < ndevices; i++)
        split_add(&s, dra_slice_device_is_advanced(devices[i]));
    split_close(&s);
    memcpy(ends, s.ends, s.n * sizeof *ends);
    free(s.ends);
    return s.n;
}

/* A device's name for the duplicate check, as 32 bits never 0; 0 for a
 * device without a (non-empty string) name, which the check skips. */
static uint32_t name_hash(const json_t *dev)
{
    const char *name = json_string_value(json_object_get(dev, "name"));
    if (!name || !*name)
        return 0;
    uint32_t h = dra_fnv1a32_str(DRA_FNV32_OFFSET, name);
    return h ? h : 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A pool is built in three passes over its devices, in the same order
 * each time: the first counts them, cuts them into chunks and keeps a hash
 * of each name; the second checks each device (a name given twice, the
 * counters it consumes) and validates each slice as its chunk fills, and
 * compares it with the previous slice it updates; the third makes the
 * slices again and gives them out.  The first pass holds 4 bytes a device
 * (the name hashes, sorted at its end to find the names that may repeat);
 * after it the builder holds 24 bytes a slice, those names, the counter
 * sets, and during a pass one slice's devices. */
struct dra_slice_builder {
    dra_slice_opts opts;
    const char *pool;
    int pass;    /* 1, 2, 3; 4 when done */
    bool failed; /* a problem ended the build: only free it */
    bool stable; /* the items' sources outlive the build (an inventory in memory) */
    /* pass 1 */
    size_t ndevices;
    uint32_t *hash;       /* dra_xgrow: name_hash() of each device, until the plan */
    uint64_t names;       /* the name hashes in order, in one: the next pass must see the same */
    uint64_t names_again; /* the same in pass 2 */
    splitter split;
    /* the plan */
    const dra_inventory *sets; /* the counter sets (borrowed) */
    size_t n, nset_slices;     /* slices, the first nset_slices of counter sets */
    const json_t **matched;    /* the previous slice that slice i updates, or NULL */
    size_t nmatched, nchanged;
    int64_t prev_gen;   /* the highest of the previous slices */
    int64_t gen;        /* provisional in pass 2, final in pass 3 */
    uint32_t *repeated; /* sorted name hashes of more than one device */
    size_t nrepeated;
    dra_strmap set_names;
    json_t **set_json;
    /* passes 2 and 3: the device chunk being filled */
    size_t at, chunk;      /* devices and device chunks done in this pass */
    json_t *content;       /* the chunk's devices */
    dra_slice_item *items; /* pass 2: the chunk's items (fields owned), src resolved at the end */
    size_t *item_stub;     /* !stable: the stub of each item's source */
    size_t nitems;
    dra_objset stubs;      /* !stable: the chunk's sources, named, for messages */
    const char *stub_file; /* the source of the last stub */
    int stub_doc, stub_item;
    dra_strset seen;            /* pass 2: names of `repeated` given so far */
    dra_errs problems, invalid; /* pass 2: the checks' findings; the validator's */
    int problem_lookups, invalid_lookups;
    uint64_t *chunk_hash; /* !stable: content hash of each device chunk in pass 2, for pass 3 */
    dra_slice_fn fn;
    void *ctx;
    dra_slice_result *out;
    /* a stream (dra_slice_builder_read): each object's items; the counter sets held */
    dra_inventory scratch, held;
    dra_errs warnings; /* the first pass's */
    size_t *held_stub;
    dra_objset held_stubs;
};

static bool is_set_slice(const dra_slice_builder *b, size_t i)
{
    return i < b->nset_slices;
}

/* Slice i around content (stolen; NULL for the empty slice of an empty pool). */
static json_t *make_slice(const dra_slice_builder *b, size_t i, json_t *content)
{
    const char *key = is_set_slice(b, i) ? "sharedCounters" : "devices";
    const json_t *m = b->matched[i];
    if (m) {
        /* Updated in place: keep the object's name and metadata. */
        if (content && !is_set_slice(b, i))
            copy_taint_time_added(json_object_get(json_object_get(m, "spec"), "devices"), content);
        const char *name = json_string_value(json_object_get(json_object_get(m, "metadata"), "name"));
        json_t *obj = dra_slice_object(&b->opts, name, b->gen, b->n, key, content);
        json_object_set_new(obj, "metadata", json_deep_copy(json_object_get(m, "metadata")));
        return obj;
    }
    char *name = dra_slice_name(b->opts.driver, b->opts.node_name, b->pool, i, b->n);
    json_t *obj = dra_slice_object(&b->opts, name, b->gen, b->n, key, content);
    free(name);
    return obj;
}

/* Counter-set slice k's content: its sets (new references); *first is the
 * index of its first set. */
static json_t *set_content(const dra_slice_builder *b, size_t k, size_t *first)
{
    size_t ns = b->sets->ncounter_sets, max = DRA_RESOURCE_SLICE_MAX_COUNTER_SETS;
    size_t end = (k + 1) * max < ns ? (k + 1) * max : ns;
    json_t *content = json_array();
    for (size_t j = *first = k * max; j < end; j++)
        json_array_append(content, b->set_json[j]);
    return content;
}

/* Pass 2 on slice i: does it change the previous slice it updates (for
 * the generation), and what does the validator say of it. */
static void check_slice(dra_slice_builder *b, size_t i, json_t *content, const dra_slice_item *items, size_t nitems)
{
    const json_t *m = b->matched[i];
    if (m) {
        const json_t *spec = json_object_get(m, "spec");
        json_t *want_pool = json_pack("{s:s, s:I, s:I}", "name", b->pool, "generation", (json_int_t)b->prev_gen,
                                      "resourceSliceCount", (json_int_t)b->n);
        bool sets = is_set_slice(b, i);
        if (!dra_slice_json_equal(json_object_get(spec, "pool"), want_pool, b->opts.features) ||
            !dra_slice_json_equal(json_object_get(spec, "nodeSelector"), b->opts.node_selector, b->opts.features) ||
            json_is_true(json_object_get(spec, "allNodes")) != b->opts.all_nodes ||
            !dra_slice_json_equal(json_object_get(spec, "devices"), sets ? NULL : content, b->opts.features) ||
            !dra_slice_json_equal(json_object_get(spec, "sharedCounters"), sets ? content : NULL, b->opts.features) ||
            !dra_slice_json_equal(json_object_get(spec, "perDeviceNodeSelection"), NULL, b->opts.features))
            b->nchanged++;
        json_decref(want_pool);
    }
    json_t *slice = make_slice(b, i, content);
    dra_errs_add(&b->invalid, validation_errors(slice, b->opts.features, items, nitems, &b->invalid_lookups));
    json_decref(slice);
}

static dra_err *changed(void)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "the input changed while it was read: its devices differ from the "
                                         "first reading");
}

/* Pass 1: one more device. */
static void count_device(dra_slice_builder *b, const json_t *dev)
{
    uint32_t h = name_hash(dev);
    b->hash = dra_xgrow(b->hash, b->ndevices, sizeof *b->hash);
    b->hash[b->ndevices++] = h;
    b->names = b->names * DRA_FNV64_PRIME + h;
    split_add(&b->split, dra_slice_device_is_advanced(dev));
}

/* End of pass 1: the options, the counter sets, the plan. */
static dra_err *plan(dra_slice_builder *b, const dra_inventory *sets)
{
    dra_err *e = check_opts(&b->opts);
    if (e)
        return e;
    b->pool = b->opts.pool ? b->opts.pool : b->opts.node_name;
    b->sets = sets;
    b->set_json = dra_xcalloc(sets->ncounter_sets + 1, sizeof *b->set_json);
    dra_errs_add(&b->problems, check_sets(sets, b->pool, &b->set_names, b->set_json, &b->problem_lookups));

    /* names that may repeat: hashes given to more than one device */
    uint32_t *sorted = b->hash;
    size_t nsorted = 0;
    for (size_t i = 0; i < b->ndevices; i++)
        if (b->hash[i])
            sorted[nsorted++] = b->hash[i];
    dra_sort(sorted, nsorted, sizeof *sorted, cmp_u32);
    for (size_t i = 1; i < nsorted; i++)
        if (sorted[i] == sorted[i - 1] && (b->nrepeated == 0 || b->repeated[b->nrepeated - 1] != sorted[i])) {
            b->repeated = dra_xgrow(b->repeated, b->nrepeated, sizeof *b->repeated);
            b->repeated[b->nrepeated++] = sorted[i];
        }
    free(sorted);
    b->hash = NULL;
    b->names_again = 0;

    /* counter-set slices first, then device slices */
    split_close(&b->split);
    size_t ns = sets->ncounter_sets;
    b->nset_slices = (ns + DRA_RESOURCE_SLICE_MAX_COUNTER_SETS - 1) / DRA_RESOURCE_SLICE_MAX_COUNTER_SETS;
    size_t ndev_slices = b->ndevices > 0 || b->nset_slices == 0 ? b->split.n : 0;
    b->n = b->nset_slices + ndev_slices;

    /* Match previous slices by index (syncPool); the generation starts at the highest. */
    int64_t gen = 0;
    const dra_objset *prev = b->opts.previous;
    for (size_t i = 0; prev && i < prev->n; i++) {
        const json_t *s = prev->v[i].json;
        if (!is_pool_member(&b->opts, b->pool, s))
            continue;
        json_int_t g =
            json_integer_value(json_object_get(json_object_get(json_object_get(s, "spec"), "pool"), "generation"));
        if (g > gen)
            gen = g;
    }
    const json_t **matched = b->matched = dra_xcalloc(b->n + 1, sizeof *matched);
    int width = dra_slice_index_width(b->n);
    for (size_t i = 0; prev && i < prev->n; i++) {
        const json_t *s = prev->v[i].json;
        if (!is_pool_member(&b->opts, b->pool, s))
            continue;
        const char *name = json_string_value(json_object_get(json_object_get(s, "metadata"), "name"));
        json_int_t g =
            json_integer_value(json_object_get(json_object_get(json_object_get(s, "spec"), "pool"), "generation"));
        long index = name && g >= gen ? dra_slice_decode_index(name, width) : -1;
        if (index >= 0 && (size_t)index < b->n && !matched[index]) {
            matched[index] = s;
            b->nmatched++;
            continue;
        }
        b->out->obsolete = dra_xgrow(b->out->obsolete, b->out->nobsolete, sizeof *b->out->obsolete);
        b->out->obsolete[b->out->nobsolete++] = dra_xstrdup(name ? name : "");
    }
    b->prev_gen = b->gen = gen;
    if (b->opts.generation > b->gen)
        b->gen = b->opts.generation; /* provisional: the one to validate with */

    /* the counter-set slices, checked now */
    for (size_t k = 0; !b->problems.head && k < b->nset_slices; k++) {
        size_t first;
        json_t *content = set_content(b, k, &first);
        check_slice(b, k, content, &sets->counter_sets[first], json_array_size(content));
    }
    return NULL;
}

/* The chunk's items, their sources where they stay for messages. */
static void resolve_items(dra_slice_builder *b)
{
    for (size_t k = 0; !b->stable && k < b->nitems; k++)
        b->items[k].src = &b->stubs.v[b->item_stub[k]];
}

static void clear_chunk(dra_slice_builder *b)
{
    for (size_t k = 0; k < b->nitems; k++)
        free(b->items[k].field);
    b->nitems = 0;
    b->content = NULL;
    if (!b->stable && b->stubs.n) {
        dra_field_validation fv = b->stubs.field_validation;
        dra_objset_free(&b->stubs);
        b->stubs.field_validation = fv;
        b->stub_file = NULL;
    }
}

/* What stays of an object for the messages about its devices: its
 * apiVersion, kind, name and namespace, with its place. */
static json_t *stub_of(const json_t *obj)
{
    json_t *stub = json_object(), *md = json_object_get(obj, "metadata"), *smd = json_object();
    static const char *const top[] = {"apiVersion", "kind"}, *const meta[] = {"name", "namespace"};
    for (size_t i = 0; i < 2; i++) {
        json_t *v = json_object_get(obj, top[i]);
        if (v)
            json_object_set(stub, top[i], v);
    }
    for (size_t i = 0; i < 2; i++) {
        json_t *v = json_object_get(md, meta[i]);
        if (v)
            json_object_set(smd, meta[i], v);
    }
    json_object_set_new(stub, "metadata", smd);
    return stub;
}

/* Keep a stub of o in objs; returns its index. */
static size_t keep_stub(dra_objset *objs, const dra_obj *o)
{
    dra_obj kept = *o;
    kept.json = stub_of(o->json);
    dra_objset_keep(objs, &kept);
    json_decref(kept.json);
    return objs->n - 1;
}

/* The stub of the chunk's item from o: the last one when o is the same
 * object (its devices come one after another). */
static size_t chunk_stub(dra_slice_builder *b, const dra_obj *o)
{
    if (b->stubs.n && b->stub_file == o->file && b->stub_doc == o->doc && b->stub_item == o->item)
        return b->stubs.n - 1;
    b->stub_file = o->file, b->stub_doc = o->doc, b->stub_item = o->item;
    return keep_stub(&b->stubs, o);
}

/* Pass 2: one more device (dev: its JSON, it: where it comes from). */
static dra_err *check_next(dra_slice_builder *b, const dra_slice_item *it, json_t *dev)
{
    uint32_t h = name_hash(dev);
    if (b->at++ >= b->ndevices)
        return changed();
    b->names_again = b->names_again * DRA_FNV64_PRIME + h;
    bool repeated = false;
    if (h && b->nrepeated && bsearch(&h, b->repeated, b->nrepeated, sizeof h, cmp_u32)) {
        const char *name = json_string_value(json_object_get(dev, "name"));
        bool added = true;
        dra_strset_add(&b->seen, name, strlen(name), &added);
        repeated = !added;
    }
    const char *driver = dra_slice_checks_qualified_names(&b->opts) ? b->opts.driver : NULL;
    dra_err *e = check_device(dev, b->pool, repeated, driver, &b->set_names, b->set_json);
    if (e)
        dra_errs_add(&b->problems, at_item(e, it, dev, &b->problem_lookups));
    if (b->problems.head) /* the slices are not looked at */
        return NULL;
    if (!b->content)
        b->content = json_array();
    json_array_append(b->content, dev);
    b->items = dra_xgrow(b->items, b->nitems, sizeof *b->items);
    b->items[b->nitems] = (dra_slice_item){.src = it->src, .field = dra_xstrdup(it->field)};
    if (!b->stable) {
        b->item_stub = dra_xgrow(b->item_stub, b->nitems, sizeof *b->item_stub);
        b->item_stub[b->nitems] = chunk_stub(b, it->src);
    }
    b->nitems++;
    if (b->at < b->split.ends[b->chunk])
        return NULL;
    json_t *content = b->content;
    if (!b->stable) {
        b->chunk_hash = dra_xgrow(b->chunk_hash, b->chunk, sizeof *b->chunk_hash);
        b->chunk_hash[b->chunk] = dra_json_content_hash(content);
    }
    resolve_items(b);
    check_slice(b, b->nset_slices + b->chunk++, content, b->items, b->nitems);
    clear_chunk(b);
    return NULL;
}

/* End of pass 2: every problem found, or the generation. */
static dra_err *checked(dra_slice_builder *b)
{
    if (b->at != b->ndevices || b->names_again != b->names)
        return changed();
    if (!b->problems.head && b->n > b->nset_slices && b->ndevices == 0)
        check_slice(b, b->nset_slices, NULL, NULL, 0); /* the empty slice of an empty pool */
    if (b->problems.head) {
        dra_errs_free(&b->invalid);
        return dra_errs_take(&b->problems);
    }
    if (b->invalid.head)
        return dra_errs_take(&b->invalid);
    size_t nnew = b->n - b->nmatched;
    b->gen = b->prev_gen;
    if (b->opts.generation > b->gen)
        b->gen = b->opts.generation;
    else if (!(nnew == 0 && b->nchanged <= 1))
        b->gen++;
    b->out->generation = b->gen;
    return NULL;
}

/* Pass 3: the counter-set slices, before the first device slice. */
static dra_err *give_sets(dra_slice_builder *b)
{
    dra_err *e = NULL;
    for (size_t k = 0; !e && k < b->nset_slices; k++) {
        size_t first;
        json_t *slice = make_slice(b, k, set_content(b, k, &first));
        e = b->fn(b->ctx, slice);
        json_decref(slice);
    }
    return e;
}

/* Pass 3: one more device. */
static dra_err *put_next(dra_slice_builder *b, json_t *dev)
{
    if (b->at == 0) {
        dra_err *e = give_sets(b);
        if (e)
            return e;
    }
    if (b->at++ >= b->ndevices)
        return changed();
    if (!b->content)
        b->content = json_array();
    json_array_append(b->content, dev);
    if (b->at < b->split.ends[b->chunk])
        return NULL;
    json_t *content = b->content;
    b->content = NULL;
    if (!b->stable && dra_json_content_hash(content) != b->chunk_hash[b->chunk]) {
        json_decref(content);
        return changed();
    }
    json_t *slice = make_slice(b, b->nset_slices + b->chunk++, content);
    dra_err *e = b->fn(b->ctx, slice);
    json_decref(slice);
    return e;
}

/* End of pass 3. */
static dra_err *put_done(dra_slice_builder *b)
{
    if (b->at != b->ndevices)
        return changed();
    dra_err *e = b->ndevices == 0 ? give_sets(b) : NULL;
    if (!e && b->n > b->nset_slices && b->ndevices == 0) {
        json_t *slice = make_slice(b, b->nset_slices, NULL);
        e = b->fn(b->ctx, slice);
        json_decref(slice);
    }
    return e;
}

/* Between passes: the next one starts at the first device. */
static void next_pass(dra_slice_builder *b)
{
    b->pass++;
    b->at = b->chunk = 0;
    json_decref(b->content);
    clear_chunk(b);
}

static dra_slice_builder *builder_new(const dra_slice_opts *opts, bool stable, dra_slice_fn fn, void *ctx,
                                      dra_slice_result *out)
{
    dra_slice_builder *b = dra_xcalloc(1, sizeof *b);
    b->opts = *opts;
    b->stable = stable;
    b->pass = 1;
    b->fn = fn;
    b->ctx = ctx;
    b->out = out;
    b->problem_lookups = b->invalid_lookups = CHECK_FIELD_LINES;
    memset(out, 0, sizeof *out);
    return b;
}

static void builder_free(dra_slice_builder *b)
{
    if (!b)
        return;
    json_decref(b->content);
    clear_chunk(b);
    free(b->items);
    free(b->item_stub);
    dra_objset_free(&b->stubs);
    for (size_t i = 0; b->sets && i < b->sets->ncounter_sets; i++)
        json_decref(b->set_json[i]);
    free(b->set_json);
    dra_strmap_free(&b->set_names);
    dra_strset_free(&b->seen);
    free(b->hash);
    free(b->split.ends);
    free(b->repeated);
    free(b->matched);
    free(b->chunk_hash);
    dra_errs_free(&b->problems);
    dra_errs_free(&b->invalid);
    dra_inventory_free(&b->scratch);
    dra_errs_free(&b->warnings);
    dra_inventory_free(&b->held);
    free(b->held_stub);
    dra_objset_free(&b->held_stubs);
    free(b);
}

dra_err *dra_slice_build_each(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_fn fn, void *ctx,
                              dra_slice_result *out)
{
    dra_slice_builder *b = builder_new(opts, true, fn, ctx, out);
    for (size_t i = 0; i < inv->ndevices; i++) {
        json_t *dev = item_ref(&inv->devices[i]);
        count_device(b, dev);
        json_decref(dev);
    }
    dra_err *e = plan(b, inv);
    next_pass(b);
    for (size_t i = 0; !e && i < inv->ndevices; i++) {
        json_t *dev = item_ref(&inv->devices[i]);
        e = check_next(b, &inv->devices[i], dev);
        json_decref(dev);
    }
    if (!e)
        e = checked(b);
    next_pass(b);
    for (size_t i = 0; !e && i < inv->ndevices; i++) {
        json_t *dev = item_ref(&inv->devices[i]);
        e = put_next(b, dev);
        json_decref(dev);
    }
    if (!e)
        e = put_done(b);
    builder_free(b);
    if (e)
        dra_slice_result_free(out);
    return e;
}

typedef struct gathered {
    json_t **v;
    size_t n;
} gathered;

static dra_err *gather(void *ctx, json_t *slice)
{
    gathered *g = ctx;
    g->v = dra_xgrow(g->v, g->n, sizeof *g->v);
    g->v[g->n++] = json_incref(slice);
    return NULL;
}

dra_err *dra_slice_build(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_result *out)
{
    gathered g = {0};
    dra_err *e = dra_slice_build_each(opts, inv, gather, &g, out);
    if (e) {
        for (size_t i = 0; i < g.n; i++)
            json_decref(g.v[i]);
        free(g.v);
        return e;
    }
    out->slices = g.v;
    out->nslices = g.n;
    return NULL;
}

/* ---- a stream read three times ---- */

dra_slice_builder *dra_slice_builder_new(const dra_slice_opts *opts, dra_field_validation fv, dra_slice_fn fn,
                                         void *ctx, dra_slice_result *out)
{
    dra_slice_builder *b = builder_new(opts, false, fn, ctx, out);
    b->scratch.field_validation = b->held.field_validation = fv;
    b->stubs.field_validation = b->held_stubs.field_validation = fv;
    return b;
}

dra_err *dra_slice_builder_read(dra_slice_builder *b, const dra_obj *o)
{
    if (b->failed || b->pass > 3)
        return NULL;
    dra_inventory *s = &b->scratch;
    inventory_clear(s);
    dra_err *e = dra_inventory_add(s, o);
    if (b->pass == 1)
        dra_errs_add(&b->warnings, dra_errs_take(&s->warnings));
    else
        dra_errs_free(&s->warnings); /* said in the first pass */
    for (size_t i = 0; !e && i < s->ndevices; i++) {
        dra_slice_item *it = &s->devices[i];
        if (b->pass == 1)
            count_device(b, it->json);
        else if (b->pass == 2)
            e = check_next(b, it, it->json);
        else
            e = put_next(b, it->json);
    }
    if (!e && b->pass == 1 && s->ncounter_sets) {
        /* held as text, with a stub of their object, until the build ends */
        size_t c0 = b->held.ncounter_sets, stub = keep_stub(&b->held_stubs, o);
        for (size_t i = 0; i < s->ncounter_sets; i++) {
            dra_inventory_add_counter_set(&b->held, s->counter_sets[i].json, NULL, s->counter_sets[i].field);
            b->held_stub = dra_xgrow(b->held_stub, c0 + i, sizeof *b->held_stub);
            b->held_stub[c0 + i] = stub;
        }
        dra_inventory_hold(&b->held, b->held.ndevices, c0);
    }
    b->failed = e != NULL;
    return e;
}

dra_err *dra_slice_builder_next(dra_slice_builder *b)
{
    if (b->failed)
        return dra_err_new(DRA_EXIT_RUNTIME, "internal error: a failed build goes on");
    dra_err *e = NULL;
    if (b->pass == 1) {
        for (size_t i = 0; i < b->held.ncounter_sets; i++)
            b->held.counter_sets[i].src = &b->held_stubs.v[b->held_stub[i]]; /* the stubs no longer move */
        e = plan(b, &b->held);
    } else if (b->pass == 2) {
        e = checked(b);
    } else if (b->pass == 3) {
        e = put_done(b);
    }
    next_pass(b);
    b->failed = e != NULL;
    return e;
}

dra_err *dra_slice_builder_warnings(dra_slice_builder *b)
{
    return dra_errs_take(&b->warnings);
}

void dra_slice_builder_free(dra_slice_builder *b)
{
    builder_free(b);
}
