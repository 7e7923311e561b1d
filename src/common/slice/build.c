/* Inventory -> ResourceSlices (see build.h).  Publishing rules follow
 * staging/src/k8s.io/dynamic-resource-allocation/resourceslice/resourceslicecontroller.go
 * (syncPool, getIndexLength, encodeIndex/decodeIndex, DevicesDeepEqual). */
#include "build.h"
#include "../base/hash.h"

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

static void push_item(dra_slice_item **v, size_t *n, size_t *cap, json_t *json, const dra_obj *src,
                      const char *field)
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

static void hold(dra_slice_item *it, bool device, dra_buf *b)
{
    if (!it->json)
        return;
    if (device)
        it->advanced = dra_slice_device_is_advanced(it->json);
    dra_buf_reset(b);
    dra_json_write_compact(b, it->json);
    it->text = dra_xstrdup(dra_buf_str(b));
    it->json = NULL;
}

void dra_inventory_hold(dra_inventory *inv, size_t d0, size_t c0)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = d0; i < inv->ndevices; i++)
        hold(&inv->devices[i], true, &b);
    for (size_t i = c0; i < inv->ncounter_sets; i++)
        hold(&inv->counter_sets[i], false, &b);
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

void dra_inventory_free(dra_inventory *inv)
{
    for (size_t i = 0; i < inv->ndevices; i++) {
        free(inv->devices[i].field);
        free(inv->devices[i].text);
    }
    for (size_t i = 0; i < inv->ncounter_sets; i++) {
        free(inv->counter_sets[i].field);
        free(inv->counter_sets[i].text);
    }
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
        char *ref = dra_xasprintf("%s/%s", strncmp(it->field, "sharedCounters", 14) == 0 ? "CounterSet" : "Device",
                                  name);
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

dra_err *dra_inventory_check(const dra_inventory *inv, const char *pool)
{
    dra_errs errs = DRA_ERRS_INIT;
    int lookups = CHECK_FIELD_LINES;
    dra_strmap sets = {0};
    dra_strmap_reserve(&sets, inv->ncounter_sets);
    json_t **set_json = dra_xcalloc(inv->ncounter_sets + 1, sizeof *set_json); /* each parsed once */
    for (size_t i = 0; i < inv->ncounter_sets; i++) {
        const dra_slice_item *it = &inv->counter_sets[i];
        set_json[i] = item_ref(it);
        dra_err *e = NULL;
        const char *name = json_string_value(json_object_get(set_json[i], "name"));
        if (name && seen_before(&sets, name, i))
            e = dra_err_append(e, dra_err_field(dra_err_new(DRA_EXIT_INPUT, "found duplicate counter set \"%s\" in "
                                                                            "pool \"%s\"", name, pool), "name"));
        dra_errs_add(&errs, e ? at_item(e, it, set_json[i], &lookups) : NULL);
    }
    dra_strset devs = {0}; /* the names, copied: a device held as text is parsed for this loop alone */
    for (size_t i = 0; i < inv->ndevices; i++) {
        const dra_slice_item *it = &inv->devices[i];
        json_t *dev = item_ref(it);
        dra_err *e = NULL;
        const char *name = json_string_value(json_object_get(dev, "name"));
        bool added = true;
        if (name && *name)
            dra_strset_add(&devs, name, strlen(name), &added);
        if (!added)
            e = dra_err_append(e, dra_err_field(dra_err_new(DRA_EXIT_INPUT, "found duplicate device \"%s\" in pool "
                                                                            "\"%s\"", name, pool), "name"));
        /* Every consumed counter must exist in a set of this pool. */
        size_t k;
        json_t *use;
        json_array_foreach(json_object_get(dev, "consumesCounters"), k, use) {
            const char *set_name = json_string_value(json_object_get(use, "counterSet"));
            size_t set_index;
            if (!set_name)
                continue;
            char field[96];
            if (!position_of(&sets, set_name, &set_index)) {
                snprintf(field, sizeof field, "consumesCounters[%zu].counterSet", k);
                e = dra_err_append(e, dra_err_field(dra_err_new(DRA_EXIT_INPUT, "counter set %s not found",
                                                                set_name), field));
                continue;
            }
            const json_t *have = json_object_get(set_json[set_index], "counters");
            const char *cname;
            json_t *c;
            json_object_foreach(json_object_get(use, "counters"), cname, c) {
                if (json_object_get(have, cname))
                    continue;
                snprintf(field, sizeof field, "consumesCounters[%zu].counters", k);
                e = dra_err_append(e, dra_err_field(dra_err_new(DRA_EXIT_INPUT, "counter %s not found in counter "
                                                                "set %s", cname, set_name), field));
            }
        }
        dra_errs_add(&errs, e ? at_item(e, it, dev, &lookups) : NULL);
        json_decref(dev);
    }
    for (size_t i = 0; i < inv->ncounter_sets; i++)
        json_decref(set_json[i]);
    free(set_json);
    dra_strset_free(&devs);
    dra_strmap_free(&sets);
    return dra_errs_take(&errs);
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
    json_object_set_new(spec, "pool", json_pack("{s:s, s:I, s:I}", "name", pool, "generation", (json_int_t)generation,
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

static bool quantities_equal(const json_t *a, const json_t *b)
{
    if (!json_is_string(a) || !json_is_string(b))
        return false;
    dra_quantity qa, qb;
    dra_err *ea = dra_quantity_parse(json_string_value(a), &qa);
    dra_err *eb = dra_quantity_parse(json_string_value(b), &qb);
    bool eq = !ea && !eb && dra_quantity_cmp(&qa, &qb) == 0;
    dra_err_free(ea);
    dra_err_free(eb);
    return eq;
}

/* RFC 3339 seconds since the epoch; false when unparsable. */
static bool parse_time(const char *s, long long *out)
{
    int64_t ns;
    dra_err *e = dra_time_parse(s, &ns);
    if (e) {
        dra_err_free(e);
        return false;
    }
    *out = (long long)(ns / DRA_NSEC_PER_SEC);
    return true;
}

static bool equal_ctx(const json_t *a, const json_t *b, const char *key, const char *parent);

static bool taint_equal(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"key", "value", "effect"};
    for (size_t i = 0; i < 3; i++)
        if (!equal_ctx(json_object_get(a, keys[i]), json_object_get(b, keys[i]), keys[i], NULL))
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

static bool equal_ctx(const json_t *a, const json_t *b, const char *key, const char *parent)
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
            if (taints ? !taint_equal(x, y) : !equal_ctx(x, y, key, parent))
                return false;
        }
        return true;
    }
    if (json_is_object(a) && json_is_object(b)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v) if (!equal_ctx(v, json_object_get(b, k), k, key)) return false;
        json_object_foreach((json_t *)b, k, v) if (!json_object_get(a, k) && !is_empty(v)) return false;
        return true;
    }
    if (json_equal((json_t *)a, (json_t *)b))
        return true;
    return is_quantity_key(key, parent) && quantities_equal(a, b);
}

bool dra_slice_json_equal(const json_t *a, const json_t *b)
{
    return equal_ctx(a, b, NULL, NULL);
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
        json_array_foreach(from_devices, j, cand) if (json_equal(json_object_get(cand, "name"), json_object_get(dev, "name"))) {
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
 * inventory item it is about ("spec.devices[3].x" -> that device's ".x"). */
static dra_err *validation_errors(const json_t *slice, const dra_inventory *inv, size_t first, int *lookups)
{
    dra_err *all = dra_validate_resource_slice(slice, NULL);
    dra_errs out = DRA_ERRS_INIT;
    while (all) {
        dra_err *x = all;
        all = x->next;
        x->next = NULL;
        const char *f = x->field ? x->field : "";
        const dra_slice_item *items = NULL;
        size_t nitems = 0;
        const char *rest = NULL, *key = NULL;
        if (strncmp(f, "spec.devices[", 13) == 0) {
            items = inv->devices, nitems = inv->ndevices, rest = f + 13, key = "devices";
        } else if (strncmp(f, "spec.sharedCounters[", 20) == 0) {
            items = inv->counter_sets, nitems = inv->ncounter_sets, rest = f + 20, key = "sharedCounters";
        }
        char *end = NULL;
        unsigned long j = rest ? strtoul(rest, &end, 10) : 0;
        if (rest && end && *end == ']' && first + j < nitems) {
            const dra_slice_item *it = &items[first + j];
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

/* What a build decides before making any slice: the chunks, the previous
 * slices they update, the generation. */
typedef struct plan {
    const char *pool;
    size_t n, nset_slices;  /* slices; the first nset_slices hold counter sets */
    size_t *first, *end;    /* slice i holds items [first, end) of its kind */
    const json_t **matched; /* the previous slice slice i updates, or NULL */
    int64_t gen;
} plan;

static void plan_free(plan *p)
{
    free(p->first);
    free(p->end);
    free(p->matched);
}

static bool is_set_slice(const plan *p, size_t i) { return i < p->nset_slices; }

/* Slice i's content (devices or sharedCounters): a new array, or NULL for
 * the one empty slice of an empty pool. */
static json_t *content_of(const dra_inventory *inv, const plan *p, size_t i)
{
    const dra_slice_item *items = is_set_slice(p, i) ? inv->counter_sets : inv->devices;
    if (p->end[i] == p->first[i])
        return NULL;
    json_t *a = json_array();
    for (size_t k = p->first[i]; k < p->end[i]; k++)
        json_array_append_new(a, item_ref(&items[k]));
    return a;
}

/* Cut devices into chunks by the 64/128 limits; adv[k]: device k is advanced. */
static size_t split(const bool *adv, size_t ndevices, size_t *ends)
{
    size_t nchunks = 0, start = 0;
    bool advanced = false;
    for (size_t i = 0; i < ndevices; i++) {
        bool a = advanced || adv[i];
        size_t limit = a ? DRA_RESOURCE_SLICE_MAX_DEVICES_ADVANCED : DRA_RESOURCE_SLICE_MAX_DEVICES;
        if (i - start + 1 > limit) {
            /* Device i does not fit: close the chunk before it. */
            ends[nchunks++] = i;
            start = i;
            a = adv[i];
        }
        advanced = a;
    }
    if (ndevices > start || nchunks == 0)
        ends[nchunks++] = ndevices;
    return nchunks;
}

size_t dra_slice_split_devices(json_t *const *devices, size_t ndevices, size_t *ends)
{
    bool *adv = dra_xcalloc(ndevices + 1, sizeof *adv);
    for (size_t i = 0; i < ndevices; i++)
        adv[i] = dra_slice_device_is_advanced(devices[i]);
    size_t n = split(adv, ndevices, ends);
    free(adv);
    return n;
}

static dra_err *make_plan(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_result *out, plan *p)
{
    memset(p, 0, sizeof *p);
    dra_err *e = check_opts(opts);
    if (e)
        return e;
    const char *pool = opts->pool ? opts->pool : opts->node_name;
    p->pool = pool;
    e = dra_inventory_check(inv, pool);
    if (e)
        return e;

    /* Desired content: counter-set slices first, then device slices. */
    size_t nset_slices = (inv->ncounter_sets + DRA_RESOURCE_SLICE_MAX_COUNTER_SETS - 1) / DRA_RESOURCE_SLICE_MAX_COUNTER_SETS;
    size_t *ends = dra_xmalloc((inv->ndevices + 1) * sizeof *ends);
    size_t ndev_slices = 0;
    if (inv->ndevices > 0 || nset_slices == 0) {
        bool *adv = dra_xcalloc(inv->ndevices + 1, sizeof *adv);
        for (size_t i = 0; i < inv->ndevices; i++) {
            const dra_slice_item *it = &inv->devices[i];
            adv[i] = it->json ? dra_slice_device_is_advanced(it->json) : it->advanced;
        }
        ndev_slices = split(adv, inv->ndevices, ends);
        free(adv);
    }
    size_t n = nset_slices + ndev_slices;
    p->n = n;
    p->nset_slices = nset_slices;
    p->first = dra_xcalloc(n, sizeof *p->first);
    p->end = dra_xcalloc(n, sizeof *p->end);
    for (size_t k = 0; k < nset_slices; k++) {
        p->first[k] = k * DRA_RESOURCE_SLICE_MAX_COUNTER_SETS;
        p->end[k] = p->first[k] + DRA_RESOURCE_SLICE_MAX_COUNTER_SETS;
        if (p->end[k] > inv->ncounter_sets)
            p->end[k] = inv->ncounter_sets;
    }
    for (size_t k = 0, start = 0; k < ndev_slices; k++) {
        p->first[nset_slices + k] = start;
        p->end[nset_slices + k] = start = ends[k];
    }
    free(ends);

    /* Match previous slices by index (syncPool), then decide the generation. */
    int64_t gen = 0;
    const dra_objset *prev = opts->previous;
    for (size_t i = 0; prev && i < prev->n; i++) {
        const json_t *s = prev->v[i].json;
        if (!is_pool_member(opts, pool, s))
            continue;
        json_int_t g = json_integer_value(json_object_get(json_object_get(json_object_get(s, "spec"), "pool"),
                                                          "generation"));
        if (g > gen)
            gen = g;
    }
    const json_t **matched = p->matched = dra_xcalloc(n, sizeof *matched);
    int width = dra_slice_index_width(n);
    size_t nmatched = 0;
    for (size_t i = 0; prev && i < prev->n; i++) {
        const json_t *s = prev->v[i].json;
        if (!is_pool_member(opts, pool, s))
            continue;
        const char *name = json_string_value(json_object_get(json_object_get(s, "metadata"), "name"));
        json_int_t g = json_integer_value(json_object_get(json_object_get(json_object_get(s, "spec"), "pool"),
                                                          "generation"));
        long index = name && g >= gen ? dra_slice_decode_index(name, width) : -1;
        if (index >= 0 && (size_t)index < n && !matched[index]) {
            matched[index] = s;
            nmatched++;
            continue;
        }
        out->obsolete = dra_xgrow(out->obsolete, out->nobsolete, sizeof *out->obsolete);
        out->obsolete[out->nobsolete++] = dra_xstrdup(name ? name : "");
    }
    json_t *desired_pool = json_pack("{s:s, s:I, s:I}", "name", pool, "generation", (json_int_t)gen,
                                     "resourceSliceCount", (json_int_t)n);
    size_t nchanged = 0;
    for (size_t i = 0; i < n; i++) {
        if (!matched[i])
            continue;
        const json_t *spec = json_object_get(matched[i], "spec");
        bool all_nodes = json_is_true(json_object_get(spec, "allNodes"));
        json_t *content = content_of(inv, p, i);
        const json_t *want_devices = is_set_slice(p, i) ? NULL : content;
        const json_t *want_sets = is_set_slice(p, i) ? content : NULL;
        if (!dra_slice_json_equal(json_object_get(spec, "pool"), desired_pool) ||
            !dra_slice_json_equal(json_object_get(spec, "nodeSelector"), opts->node_selector) ||
            all_nodes != opts->all_nodes || !dra_slice_json_equal(json_object_get(spec, "devices"), want_devices) ||
            !dra_slice_json_equal(json_object_get(spec, "sharedCounters"), want_sets) ||
            !dra_slice_json_equal(json_object_get(spec, "perDeviceNodeSelection"), NULL))
            nchanged++;
        json_decref(content);
    }
    json_decref(desired_pool);
    size_t nnew = n - nmatched;
    if (opts->generation > gen)
        gen = opts->generation;
    else if (!(nnew == 0 && nchanged <= 1))
        gen++;
    out->generation = p->gen = gen;
    return NULL;
}

/* Slice i of the plan, made anew (the same object every time). */
static json_t *make_slice(const dra_slice_opts *opts, const dra_inventory *inv, const plan *p, size_t i)
{
    const char *key = is_set_slice(p, i) ? "sharedCounters" : "devices";
    json_t *content = content_of(inv, p, i);
    if (p->matched[i]) {
        /* Updated in place: keep the object's name and metadata. */
        const json_t *old_devices = json_object_get(json_object_get(p->matched[i], "spec"), "devices");
        if (content && !is_set_slice(p, i))
            copy_taint_time_added(old_devices, content);
        const char *name = json_string_value(json_object_get(json_object_get(p->matched[i], "metadata"), "name"));
        json_t *obj = dra_slice_object(opts, name, p->gen, p->n, key, content);
        json_object_set_new(obj, "metadata", json_deep_copy(json_object_get(p->matched[i], "metadata")));
        return obj;
    }
    char *name = dra_slice_name(opts->driver, opts->node_name, p->pool, i, p->n);
    json_t *obj = dra_slice_object(opts, name, p->gen, p->n, key, content);
    free(name);
    return obj;
}

dra_err *dra_slice_build(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_result *out)
{
    memset(out, 0, sizeof *out);
    plan p;
    dra_err *e = make_plan(opts, inv, out, &p);
    if (e) {
        plan_free(&p);
        dra_slice_result_free(out);
        return e;
    }
    out->slices = dra_xcalloc(p.n, sizeof *out->slices);
    out->nslices = p.n;
    dra_errs errs = DRA_ERRS_INIT;
    int lookups = CHECK_FIELD_LINES;
    for (size_t i = 0; i < p.n; i++) {
        out->slices[i] = make_slice(opts, inv, &p, i);
        dra_errs_add(&errs, validation_errors(out->slices[i], inv, p.first[i], &lookups));
    }
    plan_free(&p);
    if (errs.head)
        dra_slice_result_free(out);
    return dra_errs_take(&errs);
}

dra_err *dra_slice_build_each(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_fn fn, void *ctx,
                              dra_slice_result *out)
{
    memset(out, 0, sizeof *out);
    plan p;
    dra_err *e = make_plan(opts, inv, out, &p);
    dra_errs errs = DRA_ERRS_INIT;
    int lookups = CHECK_FIELD_LINES;
    for (size_t i = 0; !e && i < p.n; i++) { /* every slice checked before any is given out */
        json_t *slice = make_slice(opts, inv, &p, i);
        dra_errs_add(&errs, validation_errors(slice, inv, p.first[i], &lookups));
        json_decref(slice);
    }
    if (!e)
        e = dra_errs_take(&errs);
    for (size_t i = 0; !e && i < p.n; i++) {
        json_t *slice = make_slice(opts, inv, &p, i);
        e = fn(ctx, slice);
        json_decref(slice);
    }
    plan_free(&p);
    if (e)
        dra_slice_result_free(out);
    return e;
}
