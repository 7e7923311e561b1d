/* DRA devices for CEL selectors: the full conversion of a v1 Device into the
 * `device` map and its lookup tables, and the lazy device that scans the
 * JSON and converts only what a compiled plan reads (dra_device.h). */
#include "dra_device.h"
#include "../base/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/jparse.h"
#include "../model/packed.h"
#include "cel.h"
#include "functions.h"
#include "program.h"

/* ---- per-device lookup tables ------------------------------------------------
 * device.attributes["dom"].name and device.capacity["dom"].name are looked up
 * by compiled plans in one flat open-addressing table per device, keyed by
 * (domain, name) and filled from the grouped maps above (so both see the same
 * entries).  The key is encoded as <domain length><domain><name>, which no
 * other (domain, name) pair shares; its hash is computed once when the device
 * is built and once when the selector is compiled. */

uint64_t dra_dev_key_hash(const char *k, size_t n)
{
    uint64_t h = dra_fnv1a(DRA_FNV64_OFFSET, k, n); /* then a final mix */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

/* The key is padded with zeros to whole 64-bit words (klen counts the
 * padding), so that equal lengths compare word by word. */
const char *dra_dev_key_encode(dra_arena *a, const char *dom, size_t dlen, const char *name, size_t nlen, size_t *klen)
{
    uint64_t len = dlen;
    size_t used = sizeof len + dlen + nlen;
    *klen = (used + 7) & ~(size_t)7;
    char *k = dra_arena_zalloc(a, *klen);
    memcpy(k, &len, sizeof len);
    if (dlen)
        memcpy(k + sizeof len, dom, dlen);
    if (nlen)
        memcpy(k + sizeof len + dlen, name, nlen);
    return k;
}

void dra_dev_table_build(dra_arena *a, dev_table *t, cel_value grouped)
{
    const cel_map *outer = grouped.v.map;
    size_t n = 0;
    for (size_t i = 0; i < outer->n; i++)
        n += outer->vals[i].v.map->n;
    t->n = n;
    if (!n)
        return;
    size_t cap = 4;
    while (cap < 2 * n)
        cap *= 2;
    t->mask = cap - 1;
    t->slots = dra_arena_zalloc(a, cap * sizeof *t->slots);
    for (size_t i = 0; i < outer->n; i++) {
        const cel_map *inner = outer->vals[i].v.map;
        for (size_t k = 0; k < inner->n; k++) {
            dev_entry e;
            e.key = dra_dev_key_encode(a, outer->keys[i].v.s.ptr, outer->keys[i].v.s.len, inner->keys[k].v.s.ptr,
                                       inner->keys[k].v.s.len, &e.klen);
            e.hash = dra_dev_key_hash(e.key, e.klen);
            e.val = inner->vals[k];
            size_t at = e.hash & t->mask;
            while (t->slots[at].key)
                at = (at + 1) & t->mask;
            t->slots[at] = e;
        }
    }
}

/* ---- device conversion ---- */

typedef struct entry {
    const char *domain;
    size_t dlen;
    cel_value key, val;
} entry;

/* A version attribute; the first conversion error is kept in *err. */
static cel_value semver_value(dra_arena *a, const char *name, const char *s, size_t len, const char **err)
{
    cel_object *o = dra_arena_zalloc(a, sizeof *o);
    o->kind = CEL_OBJ_SEMVER;
    dra_err *e = dra_semver_parse(s, len, &o->u.semver);
    if (e) {
        if (!*err)
            *err = dra_arena_printf(a, "attribute %s: parse semantic version: %s", name, e->msg);
        dra_err_free(e);
    }
    return cel_objval(o);
}

/* lists: whether list values convert; without, a list is an unsupported
 * value, as 1.36 converts with DRAListTypeAttributes off.  *list_err (may
 * be NULL) names the first list attribute for an environment that refuses
 * lists (cel_env_dra_lists_refused). */
static cel_value convert_attr(dra_arena *a, const char *name, json_t *attr, bool lists, const char **err,
                              const char **list_err)
{
    static const char *const list_fields[] = {"ints", "bools", "strings", "versions"};
    if (json_is_object(attr)) {
        for (size_t f = 0; lists && f < 4; f++) {
            json_t *arr = json_object_get(attr, list_fields[f]);
            if (!json_is_array(arr))
                continue;
            if (list_err && !*list_err)
                *list_err = dra_arena_printf(a, "attribute %s: unsupported attribute value", name);
            size_t n = json_array_size(arr);
            cel_value *items = dra_arena_alloc(a, (n ? n : 1) * sizeof *items);
            for (size_t i = 0; i < n; i++) {
                json_t *x = json_array_get(arr, i);
                if (f == 3) {
                    const char *s = json_string_value(x);
                    items[i] = semver_value(a, name, s ? s : "", s ? strlen(s) : 0, err);
                } else {
                    items[i] = cel_value_from_json(a, x);
                }
            }
            return cel_list_copy_a(a, items, n);
        }
        json_t *v;
        if ((v = json_object_get(attr, "int")) && json_is_integer(v))
            return cel_int((int64_t)json_integer_value(v));
        if ((v = json_object_get(attr, "bool")) && json_is_boolean(v))
            return cel_bool(json_is_true(v));
        if ((v = json_object_get(attr, "string")) && json_is_string(v))
            return cel_string_copy_a(a, json_string_value(v), json_string_length(v));
        if ((v = json_object_get(attr, "version")) && json_is_string(v))
            return semver_value(a, name, json_string_value(v), json_string_length(v), err);
    }
    if (!*err)
        *err = dra_arena_printf(a, "attribute %s: unsupported attribute value", name);
    return cel_null();
}

/* 1.38 converts each attribute apart (api/conversion.go attrValue): one
 * without a usable value (none, an empty list, an unparseable version)
 * becomes an error that only a selector reading it meets
 * (cel/compile.go nameToAttributes.Find, v0.38.0-beta.0); id is the name
 * without its domain, as the selector looks it up. */
static cel_value convert_attr_apart(dra_arena *a, const char *name, const char *id, json_t *attr)
{
    const char *err = NULL;
    cel_value v = convert_attr(a, name, attr, true, &err, NULL);
    if (!err && !(v.kind == CEL_LIST && v.v.list->n == 0))
        return v;
    return cel_error(
        dra_arena_printf(a, "attribute %s: value is invalid or its type is not supported by this version", id));
}

/* Group entries by domain into map(string, map(string, V)) with the
 * default-empty behaviour on the outer map. */
static cel_value group(dra_arena *a, entry *ents, size_t n)
{
    cel_value *okeys = dra_arena_alloc(a, (n ? n : 1) * sizeof *okeys);
    cel_value *ovals = dra_arena_alloc(a, (n ? n : 1) * sizeof *ovals);
    cel_value *ik = dra_arena_alloc(a, (n ? n : 1) * sizeof *ik);
    cel_value *iv = dra_arena_alloc(a, (n ? n : 1) * sizeof *iv);
    bool *done = dra_arena_zalloc(a, n ? n : 1);
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++) {
            if (done[j] || ents[j].dlen != ents[i].dlen || memcmp(ents[j].domain, ents[i].domain, ents[i].dlen) != 0)
                continue;
            done[j] = true;
            ik[k] = ents[j].key;
            iv[k] = ents[j].val;
            k++;
        }
        okeys[nd] = cel_string_copy_a(a, ents[i].domain, ents[i].dlen);
        ovals[nd] = cel_map_build_a(a, ik, iv, k, 0);
        nd++;
    }
    return cel_map_build_a(a, okeys, ovals, nd, CEL_MAP_DEFAULT_EMPTY);
}

static entry *collect(dra_arena *a, json_t *obj, const char *driver, size_t *n, bool is_attr,
                      const cel_dra_convert *how, const char **err, const char **list_err)
{
    size_t cnt = json_is_object(obj) ? json_object_size(obj) : 0;
    entry *ents = dra_arena_alloc(a, (cnt ? cnt : 1) * sizeof *ents);
    size_t k = 0;
    const char *name;
    json_t *v;
    if (cnt) {
        json_object_foreach(obj, name, v) {
            const char *slash = strchr(name, '/');
            entry *e = &ents[k++];
            if (slash) {
                e->domain = name;
                e->dlen = (size_t)(slash - name);
                e->key = cel_string_copy_a(a, slash + 1, strlen(slash + 1));
            } else {
                e->domain = driver;
                e->dlen = strlen(driver);
                e->key = cel_string_copy_a(a, name, strlen(name));
            }
            if (is_attr) {
                e->val = how->apart ? convert_attr_apart(a, name, slash ? slash + 1 : name, v)
                                    : convert_attr(a, name, v, !how->no_lists, err, list_err);
            } else {
                cel_object *o = dra_arena_zalloc(a, sizeof *o);
                o->kind = CEL_OBJ_QUANTITY;
                json_t *qv = json_object_get(v, "value");
                const char *s = json_is_string(qv) ? json_string_value(qv) : "0";
                dra_err *qe = dra_quantity_parse_rules(s, strlen(s), how->quantity_rules, &o->u.quantity);
                if (qe) {
                    if (!*err)
                        *err = dra_arena_printf(a, "capacity %s: %s", name, qe->msg);
                    dra_err_free(qe);
                }
                e->val = cel_objval(o);
            }
        }
    }
    *n = k;
    return ents;
}

/* ---- one allocation per device ----------------------------------------------
 * Conversion allocates from a scratch arena: the device struct first, then
 * its strings, lists, maps, objects and lookup tables.  When all of that
 * sits in the arena's first block (every device of normal size: a few KiB),
 * those bytes are copied into one allocation of exactly that size and every
 * pointer into the old block is moved by the distance between the two;
 * pointers elsewhere (static strings, the shared empty map) stay.  Moving
 * is idempotent (a moved pointer no longer points into the old block), so
 * values reached twice (the lookup tables share the maps' values) are
 * safe. */

typedef struct reloc {
    uintptr_t lo, hi; /* the scratch block's bytes in use */
    uintptr_t to;     /* the copy's start */
} reloc;

static const void *moved(const reloc *r, const void *p)
{
    uintptr_t u = (uintptr_t)p;
    return u >= r->lo && u < r->hi ? (const void *)(r->to + (u - r->lo)) : p;
}

static void reloc_value(const reloc *r, cel_value *v);

static void reloc_values(const reloc *r, const cel_value *vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        reloc_value(r, (cel_value *)&vals[i]);
}

static void reloc_value(const reloc *r, cel_value *v)
{
    switch (v->kind) {
    case CEL_STRING:
    case CEL_BYTES: v->v.s.ptr = moved(r, v->v.s.ptr); break;
    case CEL_ERROR: v->v.err = moved(r, v->v.err); break;
    case CEL_OBJECT: v->v.obj = moved(r, v->v.obj); break; /* quantities and semvers hold no pointers */
    case CEL_OPTIONAL:
        if (v->v.opt) {
            v->v.opt = moved(r, v->v.opt);
            reloc_value(r, (cel_value *)v->v.opt);
        }
        break;
    case CEL_LIST: {
        cel_list *l = (cel_list *)(v->v.list = moved(r, v->v.list));
        if (l == &cel_empty_list)
            break;
        l->items_ = moved(r, l->items_);
        reloc_values(r, l->items_, l->n);
        break;
    }
    case CEL_MAP: {
        cel_map *m = (cel_map *)(v->v.map = moved(r, v->v.map));
        if (m == &cel_empty_map)
            break;
        m->keys = moved(r, m->keys);
        m->vals = moved(r, m->vals);
        m->index = moved(r, m->index);
        reloc_values(r, m->keys, m->n);
        reloc_values(r, m->vals, m->n);
        break;
    }
    default: break;
    }
}

static void reloc_table(const reloc *r, dev_table *t)
{
    if (!t->n)
        return;
    t->slots = (dev_entry *)moved(r, t->slots);
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->slots[i].key)
            continue;
        t->slots[i].key = moved(r, t->slots[i].key);
        reloc_value(r, &t->slots[i].val);
    }
}

/* d is the first allocation of a, a fresh or reset arena.  The arena is
 * left reset for the next device, or empty when the device keeps it. */
static dev_full *device_compact(dev_full *d, dra_arena *a)
{
    size_t used = a->total;
    /* The next allocation follows the last one in the same block exactly
     * when everything so far is one run from d: one block, no one-off
     * allocation elsewhere. */
    if ((char *)dra_arena_alloc(a, 1) != (char *)d + used) {
        d->arena = *a; /* a large device: it keeps its arena */
        *a = (dra_arena)DRA_ARENA_INIT;
        return d;
    }
    dev_full *c = dra_xmalloc(used);
    memcpy(c, d, used);
    reloc r = {(uintptr_t)d, (uintptr_t)d + used, (uintptr_t)c};
    reloc_value(&r, &c->value);
    for (size_t i = 0; i < DEV_NFIELDS; i++)
        reloc_value(&r, &c->fields[i]);
    reloc_table(&r, &c->attrs);
    reloc_table(&r, &c->caps);
    c->error = moved(&r, c->error);
    c->list_error = moved(&r, c->list_error);
    c->size = used;
    dra_arena_reset(a);
    return c;
}

/* The full conversion: the `device` map and the lookup tables. */
static dev_full *full_build(const json_t *device, const char *driver, dra_arena *a, const cel_dra_convert *how)
{
    dra_arena_reset(a);
    dev_full *d = dra_arena_zalloc(a, sizeof *d);
    json_t *dev = (json_t *)device;
    size_t na, nc;
    entry *attrs = collect(a, json_object_get(dev, "attributes"), driver, &na, true, how, &d->error, &d->list_error);
    entry *caps = collect(a, json_object_get(dev, "capacity"), driver, &nc, false, how, &d->error, NULL);
    cel_value keys[4] = {
        cel_string("driver", 6),
        cel_string("attributes", 10),
        cel_string("capacity", 8),
        cel_string("allowMultipleAllocations", 24),
    };
    cel_value vals[4] = {
        cel_string_copy_a(a, driver, strlen(driver)),
        group(a, attrs, na),
        group(a, caps, nc),
        cel_bool(json_is_true(json_object_get(dev, "allowMultipleAllocations"))),
    };
    d->value = cel_map_build_a(a, keys, vals, 4, 0);
    memcpy(d->fields, vals, sizeof d->fields);
    dra_dev_table_build(a, &d->attrs, vals[DEV_ATTRIBUTES]);
    dra_dev_table_build(a, &d->caps, vals[DEV_CAPACITY]);
    return device_compact(d, a);
}

static void full_free(dev_full *d)
{
    if (!d)
        return;
    if (d->arena.head) {
        dra_arena a = d->arena; /* d lives in it */
        dra_arena_free(&a);
    } else {
        free(d);
    }
}

/* ---- lazy devices (dra_device.h) ---- */

/* An attribute the full conversion converts without error into a scalar:
 * an object of one typed value (convert_attr) of a valid version. */
static bool scan_attr(dev_lazy *e, json_t *attr, uint32_t *nobjs)
{
    if (!json_is_object(attr) || json_object_size(attr) != 1)
        return false;
    e->s = NULL; /* an int's or a bool's: from e->i */
    void *it = json_object_iter(attr);
    const char *k = json_object_iter_key(it);
    json_t *v = json_object_iter_value(it);
    if (json_is_string(v)) {
        if (json_string_length(v) >= UINT32_MAX)
            return false;
        e->s = json_string_value(v);
        e->slen = (uint32_t)json_string_length(v);
    }
    /* by the first letter: one comparison of the name */
    if (k[0] == 'i' && !strcmp(k, "int") && json_is_integer(v)) {
        e->type = LZ_INT;
        e->i = (int64_t)json_integer_value(v);
    } else if (k[0] == 'b' && !strcmp(k, "bool") && json_is_boolean(v)) {
        e->type = LZ_BOOL;
        e->i = json_is_true(v);
    } else if (k[0] == 's' && !strcmp(k, "string") && json_is_string(v)) {
        e->type = LZ_STRING;
    } else if (k[0] == 'v' && !strcmp(k, "version") && json_is_string(v)) {
        if (!dra_packed_version_ok(e->s, e->slen))
            return false;
        e->type = LZ_VERSION;
        e->obj = (*nobjs)++;
    } else {
        return false;
    }
    return true;
}

/* A capacity whose value the full conversion parses without error. */
static bool scan_cap(dev_lazy *e, json_t *cap, uint32_t *nobjs)
{
    json_t *qv = json_object_get(cap, "value");
    e->s = json_is_string(qv) ? json_string_value(qv) : NULL; /* none: "0", as collect() */
    e->slen = 0;
    if (e->s) {
        size_t n = strlen(e->s); /* as collect() parses it */
        if (n >= UINT32_MAX || !dra_packed_quantity_ok(e->s, n))
            return false;
        e->slen = (uint32_t)n;
    }
    e->type = LZ_QUANTITY;
    e->obj = (*nobjs)++;
    return true;
}

/* Remember obj's members in e[]; false for one the scan does not vouch for. */
static bool scan(dev_lazy *e, json_t *obj, bool caps, uint32_t *nobjs)
{
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        const char *name = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        size_t n = strlen(name); /* as collect() reads the key */
        const char *slash = memchr(name, '/', n);
        if (n >= UINT32_MAX)
            return false;
        e->dom = slash ? name : NULL;
        e->dlen = slash ? (uint32_t)(slash - name) : 0;
        e->id = slash ? slash + 1 : name;
        e->idlen = (uint32_t)(n - (size_t)(e->id - name));
        e->tag = dev_tag(e->id, e->idlen);
        e->tag2 = dev_tag2(e->id, e->idlen);
        e->done = false;
        if (!(caps ? scan_cap(e, v, nobjs) : scan_attr(e, v, nobjs)))
            return false;
        e++;
    }
    return true;
}

/* Whether no two of the n scanned entries share an id (as
 * model/packed.c finds it of a packed device's): the device's
 * unique_ids. */
static bool ids_unique(const dev_lazy *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (e[i].tag == e[j].tag && e[i].tag2 == e[j].tag2 && e[i].idlen == e[j].idlen &&
                !memcmp(e[i].id, e[j].id, e[i].idlen))
                return false;
    return true;
}

/* ---- the index of ids (a section of DRA_DEV_INDEX_MIN entries or more) ---- */

/* Slots for a section of n entries: a power of two, at least twice n;
 * 0 when it has too few for an index. */
static size_t index_size(size_t n)
{
    if (n < DRA_DEV_INDEX_MIN)
        return 0;
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    return cap;
}

const uint32_t *dra_dev_index(const cel_dra_device *d, bool caps)
{
    uint32_t *slots = d->index[caps];
    if (!slots || d->reads[caps] > DRA_DEV_INDEX_AFTER)
        return slots;
    cel_dra_device *w = (cel_dra_device *)d; /* its cache */
    if (++w->reads[caps] < DRA_DEV_INDEX_AFTER)
        return NULL;
    const dev_lazy *e = d->ents + (caps ? d->nattrs : 0);
    size_t n = caps ? d->ncaps : d->nattrs;
    uint32_t mask = d->mask[caps];
    memset(slots, 0xff, ((size_t)mask + 1) * sizeof *slots); /* DRA_DEV_NO_ENTRY */
    for (size_t i = 0; i < n; i++) {
        size_t k = dev_id_slot(e[i].tag, e[i].tag2, e[i].idlen, mask);
        while (slots[k] != DRA_DEV_NO_ENTRY)
            k = (k + 1) & mask;
        slots[k] = (uint32_t)i;
    }
    w->reads[caps] = DRA_DEV_INDEX_AFTER + 1; /* filled */
    return slots;
}

cel_dra_device *cel_dra_device_new(const json_t *device, const char *driver)
{
    dra_arena scratch = DRA_ARENA_INIT;
    cel_dra_device *d = cel_dra_device_build(device, driver, &scratch);
    dra_arena_free(&scratch);
    return d;
}

cel_dra_device *cel_dra_device_build(const json_t *device, const char *driver, dra_arena *a)
{
    static const cel_dra_convert as_1_37 = {0};
    return cel_dra_device_build_as(device, driver, a, &as_1_37);
}

/* A device of na attributes and nc capacities (entries to fill) and room
 * for nroom objects, with tlen bytes more for its text (and a NUL) when
 * tlen is not 0: in the block r keeps when it is large enough, else a new
 * one.  The driver's name is copied into it, or borrowed when `borrow`
 * (the caller keeps it as long as the device). */
static inline __attribute__((always_inline)) cel_dra_device *device_alloc(size_t na, size_t nc, size_t nroom,
                                                                          const char *driver, bool borrow, bool allow,
                                                                          const cel_dra_convert *how, size_t tlen,
                                                                          cel_dra_reuse *r)
{
    cel_dra_device *d = r ? r->block : NULL;
    /* a block of this layout with a borrowed driver: its fixed fields stand, its size fits */
    bool same = borrow && !tlen && d && !d->own_driver && d->nattrs == na && d->ncaps == nc && d->nroom == nroom;
    size_t need, dl = 0;
    if (same) {
        need = r->size;
        r->block = NULL;
    } else {
        size_t ia = index_size(na), ic = index_size(nc), ni = ia + ic;
        need = sizeof(cel_dra_device) + (na + nc) * sizeof(dev_lazy) + nroom * sizeof(cel_object) +
               ni * sizeof(uint32_t) + (tlen ? tlen + 1 : 0);
        if (!borrow) {
            dl = strlen(driver);
            need += dl + 1;
        }
        if (d && r->size >= need) {
            need = r->size;
            r->block = NULL;
        } else {
            d = dra_xmalloc(need);
        }
        d->nroom = (uint32_t)nroom;
        d->objs = (cel_object *)(d->ents + na + nc);
        uint32_t *slots = (uint32_t *)(d->objs + nroom);
        d->index[0] = ia ? slots : NULL;
        d->index[1] = ic ? slots + ia : NULL;
        d->mask[0] = (uint32_t)(ia - 1);
        d->mask[1] = (uint32_t)(ic - 1);
        char *end = (char *)(slots + ni);
        if (!borrow) {
            memcpy(end, driver, dl + 1);
            driver = end;
            end += dl + 1;
        }
        d->own_driver = !borrow;
        d->text = tlen ? end : NULL;
        d->nattrs = (uint32_t)na;
        d->ncaps = (uint32_t)nc;
        d->fields[DEV_ATTRIBUTES] = d->fields[DEV_CAPACITY] = cel_null(); /* dra_dev_full */
    }
    /* a borrowed name is read again: the block may outlive the one it had */
    d->driver = driver;
    d->fields[DEV_DRIVER] = cel_string(driver, borrow ? strlen(driver) : dl);
    d->block = need;
    d->reuse = r;
    d->reads[0] = d->reads[1] = 0;
    d->tlen = tlen;
    d->fields[DEV_ALLOW] = cel_bool(allow);
    d->full = NULL;
    d->json = NULL;
    d->error = d->list_error = NULL;
    d->how = *how;
    d->nobjs = 0;
    d->pending = NULL;
    d->filled = d->valued = 0;
    d->unique_ids = false;
    return d;
}

cel_dra_device *cel_dra_device_build_as(const json_t *device, const char *driver, dra_arena *a,
                                        const cel_dra_convert *how)
{
    if (!driver)
        driver = "";
    json_t *dev = (json_t *)device, *attrs = NULL, *caps = NULL;
    bool allow = false;
    /* one pass for the three members (json_object_get hashes each name) */
    for (void *it = json_object_iter(dev); it; it = json_object_iter_next(dev, it)) {
        const char *k = json_object_iter_key(it);
        json_t *v = json_object_iter_value(it);
        if (k[0] == 'a' && !strcmp(k, "attributes"))
            attrs = json_is_object(v) ? v : NULL;
        else if (k[0] == 'c' && !strcmp(k, "capacity"))
            caps = json_is_object(v) ? v : NULL;
        else if (k[0] == 'a' && !strcmp(k, "allowMultipleAllocations"))
            allow = json_is_true(v);
    }
    size_t na = attrs ? json_object_size(attrs) : 0, nc = caps ? json_object_size(caps) : 0;
    cel_dra_device *d = device_alloc(na, nc, na + nc, driver, false, allow, how, 0, NULL);
    d->json = json_incref(dev);
    if (!scan(d->ents, attrs, false, &d->nobjs) || !scan(d->ents + na, caps, true, &d->nobjs)) {
        d->full = full_build(device, driver, a, how);
        d->error = d->full->error;
        d->list_error = d->full->list_error;
    } else {
        d->unique_ids = ids_unique(d->ents, na) && ids_unique(d->ents + na, nc);
    }
    return d;
}

/* ---- devices from their text ------------------------------------------------
 * The compact text's facts (model/packed.h: whether every entry converts
 * plainly and where each lies), scanned here or stored with a packed
 * slice's device, give the entries the tree's scan (scan, scan_attr,
 * scan_cap above) would give; a device whose text is not plain is read
 * into a tree and built from that. */

_Static_assert(DRA_DEV_TEXT_MAX == DRA_PACKED_ENTRIES_MAX, "one bound for the text's entries");
_Static_assert((int)LZ_INT == DRA_PACKED_INT && (int)LZ_BOOL == DRA_PACKED_BOOL &&
                   (int)LZ_STRING == DRA_PACKED_STRING && (int)LZ_VERSION == DRA_PACKED_VERSION &&
                   (int)LZ_QUANTITY == DRA_PACKED_QUANTITY,
               "one order of entry types");

static cel_dra_device *build_tree_of(const char *text, size_t len, const char *driver, dra_arena *a,
                                     const cel_dra_convert *how)
{
    json_t *tree = dra_json_read_compact(text, len);
    cel_dra_device *d = cel_dra_device_build_as(tree, driver, a, how);
    json_decref(tree);
    return d;
}

/* d's entry i from `ents` (as dra_packed_entry_at reads them) and its
 * text: its name, and its value unless dra_dev_value took it. */
static void fill_one(cel_dra_device *d, const void *ents, size_t i)
{
    const dra_packed_entry p = dra_packed_entry_at(ents, i);
    dev_lazy *x = &d->ents[i];
    const char *name = d->text + p.name;
    x->dom = p.dlen ? name : NULL;
    x->dlen = p.dlen ? p.dlen - 1u : 0;
    x->id = name + p.dlen;
    x->idlen = p.nlen - p.dlen;
    x->tag = dev_tag_at(x->id, x->idlen, d->text + d->tlen);
    x->tag2 = dev_tag2(x->id, x->idlen);
    if (!(d->valued >> i & 1))
        dra_dev_fill_value(d, &p, i);
    d->filled |= 1ull << i;
}

/* d's entries not filled yet. */
static void fill(cel_dra_device *d, const void *ents)
{
    for (size_t i = 0, n = d->nattrs + d->ncaps; i < n; i++)
        if (!(d->filled >> i & 1))
            fill_one(d, ents, i);
}

void dra_dev_fill(cel_dra_device *d)
{
    fill(d, d->pending);
    d->pending = NULL;
}

/* A device of plain text (len bytes, its facts f and entries `ents` as
 * dra_packed_entry_at reads them), reading the text at `text`: copied
 * into the device and its entries filled when copy is true, else
 * borrowed and its entries filled when first read (dra_dev_fill). */
static inline __attribute__((always_inline)) cel_dra_device *build_facts(const char *text, size_t len,
                                                                         const dra_packed_facts *f, const void *ents,
                                                                         const char *driver, const cel_dra_convert *how,
                                                                         bool copy, cel_dra_reuse *r)
{
    cel_dra_device *d = device_alloc(f->nattrs, f->ncaps, copy ? f->nattrs + f->ncaps : f->nobjs, driver, !copy,
                                     f->allow, how, copy ? len : 0, r);
    d->unique_ids = f->unique;
    if (copy) {
        char *own = (char *)d->text;
        memcpy(own, text, len);
        own[len] = '\0';
        fill(d, ents);
    } else {
        d->text = text;
        d->tlen = len;
        d->pending = f->nattrs + f->ncaps ? ents : NULL;
    }
    return d;
}

cel_dra_device *cel_dra_device_build_text(const char *text, size_t len, const char *driver, dra_arena *a,
                                          const cel_dra_convert *how)
{
    if (!driver)
        driver = "";
    dra_packed_facts f;
    unsigned char ents[DRA_PACKED_ENTRIES_MAX * DRA_PACKED_STORED];
    if (!dra_packed_scan(text, len, &f) || !dra_packed_store(&f, ents)) /* the tree decides */
        return build_tree_of(text, len, driver, a, how);
    return build_facts(text, len, &f, ents, driver, how, true, NULL);
}

cel_dra_device *cel_dra_device_build_packed(const char *text, size_t len, const char *driver, dra_arena *a,
                                            const cel_dra_convert *how, cel_dra_reuse *reuse)
{
    if (!driver)
        driver = "";
    dra_packed_facts f; /* the header: its entries stay where they are */
    const void *ents = dra_packed_facts_of(text, len, &f);
    if (!f.plain)
        return build_tree_of(text, len, driver, a, how);
    return build_facts(text, len, &f, ents, driver, how, false, reuse);
}

const dev_full *dra_dev_full(const cel_dra_device *d)
{
    if (!d->full) {
        cel_dra_device *w = (cel_dra_device *)d; /* its cache */
        dra_arena scratch = DRA_ARENA_INIT;
        json_t *tree = d->json ? d->json : dra_json_read_compact(d->text, d->tlen);
        w->full = full_build(tree, d->driver, &scratch, &d->how);
        if (!d->json)
            json_decref(tree); /* the conversion keeps copies */
        dra_arena_free(&scratch);
    }
    return d->full;
}

/* Convert e on its first read, as collect() converts it. */
void dra_dev_lazy_convert(cel_dra_device *d, dev_lazy *e)
{
    switch (e->type) {
    case LZ_INT:
        if (e->s && !dra_packed_int_quick(e->s, e->slen, &e->i)) { /* its digits in the text (the scan took them) */
            const char *p = e->s;
            json_int_t iv = 0;
            double dv;
            if (dra_json_scan_number(&p, e->s + e->slen, &iv, &dv) == 1)
                e->i = (int64_t)iv;
        }
        e->val = cel_int(e->i);
        break;
    case LZ_BOOL: e->val = cel_bool(e->s ? e->s[0] == 't' : e->i != 0); break;
    case LZ_STRING: e->val = cel_string(e->s, e->slen); break;
    case LZ_VERSION: {
        cel_object *o = &d->objs[e->obj];
        uint64_t part[3];
        cel_dra_reuse *r = d->reuse;
        bool quick = r && r->vlen && r->vlen == e->slen && dev_same_bytes(r->vtext, e->s, e->slen);
        if (quick) { /* the version the device before had */
            memcpy(part, r->vpart, sizeof part);
        } else if ((quick = dra_packed_version_quick(e->s, e->slen, part)) && r && e->slen <= sizeof r->vtext) {
            memcpy(r->vtext, e->s, e->slen); /* as dra_semver_parse reads "N.N.N" */
            r->vlen = e->slen;
            memcpy(r->vpart, part, sizeof part);
        }
        if (quick) {
            o->kind = CEL_OBJ_SEMVER;
            o->by_pointer = false;
            o->u.semver.major = part[0];
            o->u.semver.minor = part[1];
            o->u.semver.patch = part[2];
            o->u.semver.pre_len = o->u.semver.build_len = 0;
            o->u.semver.text[0] = '\0';
        } else {
            memset(o, 0, sizeof *o);
            o->kind = CEL_OBJ_SEMVER;
            dra_err_free(dra_semver_parse(e->s, e->slen, &o->u.semver)); /* none: the scan parsed it */
        }
        e->val = cel_objval(o);
        break;
    }
    default: {
        cel_object *o = &d->objs[e->obj];
        const char *qs = e->s ? e->s : "0";
        size_t qn = e->s ? e->slen : 1;
        cel_dra_reuse *r = d->reuse;
        o->kind = CEL_OBJ_QUANTITY;
        o->by_pointer = false;
        if (r && r->qset && r->qrules == d->how.quantity_rules && r->qlen == qn && dev_same_bytes(r->qtext, qs, qn)) {
            o->u.quantity = r->q; /* the value the device before had */
        } else {
            memset(&o->u, 0, sizeof o->u);
            /* none: the scan parsed it */
            dra_err_free(dra_quantity_parse_rules(qs, qn, d->how.quantity_rules, &o->u.quantity));
            if (r && qn <= sizeof r->qtext) {
                memcpy(r->qtext, qs, qn);
                r->qlen = (uint32_t)qn;
                r->qrules = d->how.quantity_rules;
                r->q = o->u.quantity;
                r->qset = true;
            }
        }
        e->val = cel_objval(o);
    }
    }
    e->done = true;
}

void cel_dra_device_free(cel_dra_device *d)
{
    cel_dra_device_drop(d, NULL);
}

void cel_dra_device_drop(cel_dra_device *d, cel_dra_reuse *r)
{
    if (!d)
        return;
    full_free(d->full);
    json_decref(d->json);
    if (r && (!r->block || r->size < d->block)) { /* the larger block stays */
        if (r->block)
            free(r->block);
        r->block = d;
        r->size = d->block;
    } else {
        free(d);
    }
}

void cel_dra_reuse_free(cel_dra_reuse *r)
{
    free(r->block);
    memset(r, 0, sizeof *r);
}

size_t cel_dra_device_bytes(const cel_dra_device *d, bool *single)
{
    const dev_full *f = d->full;
    *single = !(f && f->arena.head);
    size_t n = sizeof *d + (d->nattrs + d->ncaps) * sizeof d->ents[0] + d->nroom * sizeof *d->objs +
               (index_size(d->nattrs) + index_size(d->ncaps)) * sizeof(uint32_t) +
               (d->own_driver ? d->fields[DEV_DRIVER].v.s.len + 1 : 0) +
               (d->own_driver && d->text ? d->tlen + 1 : 0); /* a text it holds follows the driver */
    if (f)
        n += f->arena.head ? dra_arena_capacity(&f->arena) : f->size;
    return n;
}

cel_value cel_dra_device_value(const cel_dra_device *d)
{
    return dra_dev_full(d)->value;
}
const char *cel_dra_device_error(const cel_dra_device *d)
{
    return d->error;
}

const char *cel_dra_device_error_in(const cel_program *p, const cel_dra_device *d)
{
    if (!d->error && d->list_error && cel_env_dra_lists_refused(p->env))
        return d->list_error;
    return d->error;
}
