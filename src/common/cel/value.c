/* CEL runtime values: scratch memory, construction, equality, ordering, map
 * lookup, UTF-8 helpers and printing. */
#include "value.h"
#include "netip.h"
#include "../base/hash.h"
#include "../base/utf8.h"
#include "../model/time.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scratch ---------------------------------------------------------- */

char *cel_scratch_printf(cel_scratch *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = dra_arena_vprintf(s, fmt, ap);
    va_end(ap);
    return p;
}

/* ---- constructors ------------------------------------------------------- */

const cel_list cel_empty_list = {0, NULL, NULL, NULL, NULL};

const cel_value *cel_list_flatten(const cel_list *l)
{
    /* Fill from the end, right operands first, with an explicit stack: a
     * chain of additions may be as deep as the list is long. */
    cel_list *m = (cel_list *)l; /* the cache of an immutable value */
    cel_value *out = cel_scratch_alloc(m->mem, m->n * sizeof *out);
    size_t pos = m->n, depth = 0, cap = 16;
    const cel_list **stack = dra_xmalloc(cap * sizeof *stack);
    stack[depth++] = l;
    while (depth) {
        const cel_list *x = stack[--depth];
        if (x->items_ || !x->lhs) {
            pos -= x->n;
            if (x->n)
                memcpy(out + pos, x->items_, x->n * sizeof *out);
            continue;
        }
        if (depth + 2 > cap) {
            cap *= 2;
            stack = dra_xrealloc(stack, cap * sizeof *stack);
        }
        stack[depth++] = x->lhs;
        stack[depth++] = x->rhs;
    }
    free(stack);
    m->items_ = out;
    return out;
}

cel_value cel_list_concat(cel_scratch *s, const cel_list *a, const cel_list *b)
{
    if (a->n == 0)
        return cel_listval(b);
    if (b->n == 0)
        return cel_listval(a);
    cel_list *l = cel_scratch_alloc(s, sizeof *l);
    memset(l, 0, sizeof *l);
    l->n = a->n + b->n;
    if (l->n >= CEL_LIST_VIEW_MIN) {
        l->lhs = a;
        l->rhs = b;
        l->mem = s;
        return cel_listval(l);
    }
    cel_value *items = cel_scratch_alloc(s, l->n * sizeof *items);
    memcpy(items, cel_list_items(a), a->n * sizeof *items);
    memcpy(items + a->n, cel_list_items(b), b->n * sizeof *items);
    l->items_ = items;
    return cel_listval(l);
}
const cel_map cel_empty_map = {0, NULL, NULL, 0, NULL, 0};

cel_value cel_string_copy_s(cel_scratch *s, const char *p, size_t n)
{
    return cel_string(cel_scratch_strndup(s, p, n), n);
}

cel_value cel_string_copy_a(dra_arena *a, const char *p, size_t n)
{
    return cel_string(dra_arena_strndup(a, p ? p : "", n), n);
}

cel_value cel_optional_of_s(cel_scratch *s, cel_value v)
{
    cel_value *p = cel_scratch_alloc(s, sizeof *p);
    *p = v;
    cel_value o = {.kind = CEL_OPTIONAL, .v.opt = p};
    return o;
}

cel_value cel_optional_of_a(dra_arena *a, cel_value v)
{
    cel_value *p = dra_arena_alloc(a, sizeof *p);
    *p = v;
    cel_value o = {.kind = CEL_OPTIONAL, .v.opt = p};
    return o;
}

cel_value cel_errorf_s(cel_scratch *s, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = cel_scratch_alloc(s, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return cel_error(p);
}

static cel_value list_fill(cel_list *l, cel_value *items, const cel_value *src, size_t n)
{
    if (n)
        memcpy(items, src, n * sizeof *items);
    l->n = n;
    l->items_ = items;
    return cel_listval(l);
}

cel_value cel_list_copy_s(cel_scratch *s, const cel_value *items, size_t n)
{
    if (n == 0)
        return cel_listval(&cel_empty_list);
    cel_list *l = cel_scratch_zalloc(s, sizeof *l);
    return list_fill(l, cel_scratch_alloc(s, n * sizeof(cel_value)), items, n);
}

cel_value cel_list_copy_a(dra_arena *a, const cel_value *items, size_t n)
{
    cel_list *l = dra_arena_zalloc(a, sizeof *l);
    return list_fill(l, dra_arena_alloc(a, (n ? n : 1) * sizeof(cel_value)), items, n);
}

/* Accumulators: capacity doubles, so n appends copy O(n) values in all. */
void cel_list_reserve_s(cel_scratch *s, cel_list *l, size_t *cap, size_t extra)
{
    if (l->n + extra <= *cap)
        return;
    size_t want = *cap ? *cap * 2 : 8;
    if (want < l->n + extra)
        want = l->n + extra;
    cel_value *grown = cel_scratch_alloc(s, want * sizeof *grown);
    if (l->n)
        memcpy(grown, cel_list_items(l), l->n * sizeof *grown);
    l->items_ = grown;
    *cap = want;
}

void cel_list_append_s(cel_scratch *s, cel_list *l, size_t *cap, const cel_value *items, size_t n)
{
    if (n == 0)
        return;
    /* `items` may be l's own (x + x): the array it points at stays valid */
    cel_list_reserve_s(s, l, cap, n);
    memcpy((cel_value *)l->items_ + l->n, items, n * sizeof *items);
    l->n += n;
}

/* ---- hashing and keys ----------------------------------------------------- */

/* Numeric keys as cel-go's map Find sees them: an int, a uint, or a double
 * that converts losslessly (doubleToInt64Lossless, else
 * doubleToUint64Lossless: common/types/overflow.go, which also rejects
 * exactly -2^63 and anything >= 2^63 for int, negatives and >= 2^64 for
 * uint).  *i is the value when it fits int64, else *big is set and *u holds
 * it.  False for a double with no integral equivalent. */
static bool key_numeric(const cel_value *k, int64_t *i, uint64_t *u, bool *big)
{
    *big = false;
    switch (k->kind) {
    case CEL_INT: *i = k->v.i; return true;
    case CEL_UINT:
        if (k->v.u > INT64_MAX) {
            *big = true;
            *u = k->v.u;
            return true;
        }
        *i = (int64_t)k->v.u;
        return true;
    case CEL_DOUBLE: {
        double d = k->v.d;
        if (d != d || d != floor(d))
            return false;
        if (d > -9223372036854775808.0 && d < 9223372036854775808.0) {
            *i = (int64_t)d;
            return true;
        }
        if (d >= 9223372036854775808.0 && d < 18446744073709551616.0) {
            *big = true;
            *u = (uint64_t)d;
            return true;
        }
        return false;
    }
    default: return false;
    }
}

bool cel_map_key_object(const cel_value *k)
{
    return k->kind == CEL_OBJECT && (k->v.obj->kind == CEL_OBJ_IP || k->v.obj->kind == CEL_OBJ_CIDR);
}

static uint64_t hash_ip(const cel_ip *ip, uint64_t seed)
{
    return dra_fnv1a(seed ^ ip->family, ip->addr, ip->family == 4 ? 4 : 16);
}

static uint64_t hash_key(const cel_value *k)
{
    int64_t i;
    uint64_t u;
    bool big;
    switch (k->kind) {
    case CEL_STRING: return dra_fnv1a(DRA_FNV64_OFFSET, k->v.s.ptr, k->v.s.len);
    case CEL_BOOL: return k->v.b ? 3 : 5;
    case CEL_OBJECT:
        if (k->v.obj->kind == CEL_OBJ_IP)
            return hash_ip(&k->v.obj->u.ip, DRA_FNV64_OFFSET);
        if (k->v.obj->kind == CEL_OBJ_CIDR)
            return hash_ip(&k->v.obj->u.cidr.ip, DRA_FNV64_OFFSET + (uint64_t)k->v.obj->u.cidr.prefix);
        return 13;
    default:
        if (key_numeric(k, &i, &u, &big))
            return big ? u * 0x9E3779B97F4A7C15ull ^ 7 : (uint64_t)i * 0x9E3779B97F4A7C15ull;
        return 11;
    }
}

bool cel_map_key_same(const cel_value *a, const cel_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_STRING:
        return a->v.s.len == b->v.s.len && (a->v.s.len == 0 || memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0);
    case CEL_INT: return a->v.i == b->v.i;
    case CEL_UINT: return a->v.u == b->v.u;
    case CEL_DOUBLE: return a->v.d == b->v.d;
    case CEL_BOOL: return a->v.b == b->v.b;
    case CEL_NULL: return true;
    default: return cel_value_equal(a, b);
    }
}

enum { MAP_INDEX_MIN = 12 };

/* Shared by the scratch and arena builders: dedupe (first wins) and index. */
static cel_value map_build(void *(*alloc)(void *, size_t), void *mem, const cel_value *keys, const cel_value *vals,
                           size_t n, unsigned flags)
{
    cel_map *m = alloc(mem, sizeof *m);
    cel_value *k = alloc(mem, (n ? n : 1) * sizeof *k);
    cel_value *v = alloc(mem, (n ? n : 1) * sizeof *v);
    memset(m, 0, sizeof *m);
    m->keys = k;
    m->vals = v;
    m->flags = flags;
    size_t cnt = 0;
    size_t cap = 0;
    uint32_t *tab = NULL;
    if (n >= MAP_INDEX_MIN) {
        cap = 16;
        while (cap < n * 2)
            cap <<= 1;
        tab = alloc(mem, cap * sizeof *tab);
        memset(tab, 0xff, cap * sizeof *tab);
    }
    for (size_t i = 0; i < n; i++) {
        bool dup = false;
        if (tab) {
            size_t h = hash_key(&keys[i]) & (cap - 1);
            while (tab[h] != UINT32_MAX) {
                if (cel_map_key_same(&k[tab[h]], &keys[i])) {
                    dup = true;
                    break;
                }
                h = (h + 1) & (cap - 1);
            }
            if (!dup)
                tab[h] = (uint32_t)cnt;
        } else {
            for (size_t j = 0; j < cnt; j++)
                if (cel_map_key_same(&k[j], &keys[i])) {
                    dup = true;
                    break;
                }
        }
        if (dup)
            continue;
        k[cnt] = keys[i];
        v[cnt] = vals[i];
        cnt++;
    }
    m->n = cnt;
    if (tab) {
        m->index = tab;
        m->index_mask = cap - 1;
    }
    return cel_mapval(m);
}

/* Index slot of `key` in m's table: where it is, or the empty slot where it goes. */
static size_t index_slot(const cel_map *m, const cel_value *key)
{
    size_t h = hash_key(key) & m->index_mask;
    while (m->index[h] != UINT32_MAX && !cel_map_key_same(&m->keys[m->index[h]], key))
        h = (h + 1) & m->index_mask;
    return h;
}

static void map_reindex(cel_scratch *s, cel_map *m, size_t cap)
{
    size_t size = 16;
    while (size < cap * 2)
        size <<= 1;
    uint32_t *tab = cel_scratch_alloc(s, size * sizeof *tab);
    memset(tab, 0xff, size * sizeof *tab);
    m->index = tab;
    m->index_mask = size - 1;
    for (size_t i = 0; i < m->n; i++)
        tab[index_slot(m, &m->keys[i])] = (uint32_t)i;
}

void cel_map_reserve_s(cel_scratch *s, cel_map *m, size_t *cap, size_t extra)
{
    if (m->n + extra <= *cap)
        return;
    size_t want = *cap ? *cap * 2 : 8;
    if (want < m->n + extra)
        want = m->n + extra;
    cel_value *k = cel_scratch_alloc(s, want * sizeof *k);
    cel_value *v = cel_scratch_alloc(s, want * sizeof *v);
    if (m->n) {
        memcpy(k, m->keys, m->n * sizeof *k);
        memcpy(v, m->vals, m->n * sizeof *v);
    }
    m->keys = k;
    m->vals = v;
    *cap = want;
    if (want >= MAP_INDEX_MIN)
        map_reindex(s, m, want);
}

bool cel_map_insert_s(cel_scratch *s, cel_map *m, size_t *cap, const cel_value *key, const cel_value *val)
{
    if (cel_map_find(m, key))
        return false;
    cel_map_reserve_s(s, m, cap, 1);
    ((cel_value *)m->keys)[m->n] = *key;
    ((cel_value *)m->vals)[m->n] = *val;
    if (m->index)
        ((uint32_t *)m->index)[index_slot(m, key)] = (uint32_t)m->n;
    m->n++;
    return true;
}

static void *scratch_alloc_cb(void *mem, size_t n)
{
    return cel_scratch_alloc(mem, n);
}
static void *arena_alloc_cb(void *mem, size_t n)
{
    return dra_arena_alloc(mem, n);
}

cel_value cel_map_build_s(cel_scratch *s, const cel_value *keys, const cel_value *vals, size_t n, unsigned flags)
{
    if (n == 0 && flags == 0)
        return cel_mapval(&cel_empty_map);
    return map_build(scratch_alloc_cb, s, keys, vals, n, flags);
}

cel_value cel_map_build_a(dra_arena *a, const cel_value *keys, const cel_value *vals, size_t n, unsigned flags)
{
    return map_build(arena_alloc_cb, a, keys, vals, n, flags);
}

static const cel_value *find_exact(const cel_map *m, const cel_value *key)
{
    if (m->index) {
        size_t h = hash_key(key) & m->index_mask;
        while (m->index[h] != UINT32_MAX) {
            if (cel_map_key_same(&m->keys[m->index[h]], key))
                return &m->vals[m->index[h]];
            h = (h + 1) & m->index_mask;
        }
        return NULL;
    }
    for (size_t i = 0; i < m->n; i++)
        if (cel_map_key_same(&m->keys[i], key))
            return &m->vals[i];
    return NULL;
}

/* common/types/map.go refValMapAccessor.Find: the key itself, then a
 * double as the int, else the uint, it converts to losslessly, an int as
 * a uint and a uint as an int. */
const cel_value *cel_map_find(const cel_map *m, const cel_value *key)
{
    if (!m || m->n == 0)
        return NULL;
    switch (key->kind) {
    case CEL_INT:
    case CEL_UINT:
    case CEL_DOUBLE:
    case CEL_BOOL:
    case CEL_STRING:
    case CEL_NULL: break;
    default:
        if (!cel_map_key_object(key))
            return NULL;
        return find_exact(m, key);
    }
    const cel_value *v = find_exact(m, key);
    if (v)
        return v;
    cel_value alt;
    switch (key->kind) {
    case CEL_DOUBLE: {
        double d = key->v.d;
        if (d == d && d > -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(int64_t)d == d) {
            alt = cel_int((int64_t)d);
            if ((v = find_exact(m, &alt)))
                return v;
        }
        if (d == d && d >= 0 && d < 18446744073709551616.0 && (double)(uint64_t)d == d) {
            alt = cel_uint((uint64_t)d);
            return find_exact(m, &alt);
        }
        return NULL;
    }
    case CEL_INT:
        if (key->v.i < 0)
            return NULL;
        alt = cel_uint((uint64_t)key->v.i);
        return find_exact(m, &alt);
    case CEL_UINT:
        if (key->v.u > INT64_MAX)
            return NULL;
        alt = cel_int((int64_t)key->v.u);
        return find_exact(m, &alt);
    default: return NULL;
    }
}

const cel_value *cel_map_find_str(const cel_map *m, const char *key, size_t len)
{
    cel_value k = cel_string(key, len);
    return cel_map_find(m, &k);
}

/* ---- equality and ordering ---------------------------------------------- */

static bool is_num(cel_kind k)
{
    return k == CEL_INT || k == CEL_UINT || k == CEL_DOUBLE;
}

/* Compare two numbers of any numeric kinds: int/uint exactly, against a
 * double the way cel-go does.  Returns false when unordered (NaN). */
static bool num_cmp(const cel_value *a, const cel_value *b, int *out)
{
    if (a->kind == CEL_DOUBLE || b->kind == CEL_DOUBLE) {
        if (a->kind == CEL_DOUBLE && b->kind == CEL_DOUBLE) {
            double x = a->v.d, y = b->v.d;
            if (x != x || y != y)
                return false;
            *out = x < y ? -1 : x > y;
            return true;
        }
        /* int/uint vs double as cel-go common/types/compare.go does it:
         * range checks against 2^63 / 2^64 (Go converts the integer limit
         * constants to float64), then a comparison in double arithmetic, so
         * 2^63-1 and 2^63 (as a double) compare equal, as they do upstream. */
        bool swap = a->kind != CEL_DOUBLE;
        const cel_value *d = swap ? a : b, *n = swap ? b : a; /* d=the integer one, n=double */
        double y = n->v.d;
        if (y != y)
            return false;
        int r; /* the integer compared to the double */
        double x;
        if (d->kind == CEL_INT) {
            if (y < -9223372036854775808.0) {
                *out = swap ? 1 : -1;
                return true;
            }
            if (y > 9223372036854775808.0) {
                *out = swap ? -1 : 1;
                return true;
            }
            x = (double)d->v.i;
        } else {
            if (y < 0) {
                *out = swap ? 1 : -1;
                return true;
            }
            if (y > 18446744073709551616.0) {
                *out = swap ? -1 : 1;
                return true;
            }
            x = (double)d->v.u;
        }
        r = x < y ? -1 : x > y;
        *out = swap ? r : -r;
        return true;
    }
    if (a->kind == CEL_INT && b->kind == CEL_INT) {
        *out = a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
        return true;
    }
    if (a->kind == CEL_UINT && b->kind == CEL_UINT) {
        *out = a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
        return true;
    }
    if (a->kind == CEL_INT) { /* int vs uint */
        if (a->v.i < 0)
            *out = -1;
        else
            *out = (uint64_t)a->v.i < b->v.u ? -1 : (uint64_t)a->v.i > b->v.u;
        return true;
    }
    if (b->v.i < 0)
        *out = 1;
    else
        *out = a->v.u < (uint64_t)b->v.i ? -1 : a->v.u > (uint64_t)b->v.i;
    return true;
}

static int bytes_cmp(const cel_value *a, const cel_value *b)
{
    size_t n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
    int c = n ? memcmp(a->v.s.ptr, b->v.s.ptr, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len;
}

static int ts_cmp(const cel_value *a, const cel_value *b)
{
    if (a->v.t.sec != b->v.t.sec)
        return a->v.t.sec < b->v.t.sec ? -1 : 1;
    return a->v.t.nsec < b->v.t.nsec ? -1 : a->v.t.nsec > b->v.t.nsec;
}

bool cel_value_equal(const cel_value *a, const cel_value *b)
{
    if (is_num(a->kind) && is_num(b->kind)) {
        int c;
        return num_cmp(a, b, &c) && c == 0;
    }
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_NULL: return true;
    case CEL_BOOL: return a->v.b == b->v.b;
    case CEL_STRING:
    case CEL_BYTES:
        return a->v.s.len == b->v.s.len && (a->v.s.len == 0 || memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len) == 0);
    case CEL_TIMESTAMP:
    case CEL_DURATION: return ts_cmp(a, b) == 0;
    case CEL_TYPE: return strcmp(cel_type_runtime_name(a->v.type), cel_type_runtime_name(b->v.type)) == 0;
    case CEL_LIST: {
        const cel_list *x = a->v.list, *y = b->v.list;
        if (x->n != y->n)
            return false;
        for (size_t i = 0; i < x->n; i++)
            if (!cel_value_equal(&cel_list_items(x)[i], &cel_list_items(y)[i]))
                return false;
        return true;
    }
    case CEL_MAP: {
        const cel_map *x = a->v.map, *y = b->v.map;
        if (x->n != y->n)
            return false;
        for (size_t i = 0; i < x->n; i++) {
            const cel_value *v = cel_map_find(y, &x->keys[i]);
            if (!v || !cel_value_equal(&x->vals[i], v))
                return false;
        }
        return true;
    }
    case CEL_OPTIONAL:
        if (!a->v.opt || !b->v.opt)
            return a->v.opt == b->v.opt;
        return cel_value_equal(a->v.opt, b->v.opt);
    case CEL_OBJECT: {
        const cel_object *x = a->v.obj, *y = b->v.obj;
        if (x->kind != y->kind)
            return false;
        switch (x->kind) {
        case CEL_OBJ_QUANTITY: return dra_quantity_cmp(&x->u.quantity, &y->u.quantity) == 0;
        case CEL_OBJ_SEMVER: return dra_semver_cmp(&x->u.semver, &y->u.semver) == 0;
        case CEL_OBJ_IP: return x->u.ip.family == y->u.ip.family && memcmp(x->u.ip.addr, y->u.ip.addr, 16) == 0;
        case CEL_OBJ_CIDR:
            return x->u.cidr.prefix == y->u.cidr.prefix && x->u.cidr.ip.family == y->u.cidr.ip.family &&
                   memcmp(x->u.cidr.ip.addr, y->u.cidr.ip.addr, 16) == 0;
        case CEL_OBJ_URL: return strcmp(x->u.url.text, y->u.url.text) == 0;
        case CEL_OBJ_FORMAT: return x->u.format.index == y->u.format.index;
        }
        return false;
    }
    case CEL_ERROR: return false;
    default: return false;
    }
}

int cel_value_equal_op(const cel_value *a, const cel_value *b)
{
    if (a->kind == CEL_NULL || b->kind == CEL_NULL)
        return a->kind == b->kind;
    if (a->kind == CEL_OBJECT && (b->kind != CEL_OBJECT || b->v.obj->kind != a->v.obj->kind || b->v.obj->by_pointer))
        return -1;
    if (a->kind == CEL_LIST) {
        if (b->kind != CEL_LIST || a->v.list->n != b->v.list->n)
            return 0;
        for (size_t i = 0; i < a->v.list->n; i++)
            if (cel_value_equal_op(&cel_list_items(a->v.list)[i], &cel_list_items(b->v.list)[i]) == 0)
                return 0;
        return 1;
    }
    if (a->kind == CEL_MAP) {
        if (b->kind != CEL_MAP || a->v.map->n != b->v.map->n)
            return 0;
        for (size_t i = 0; i < a->v.map->n; i++) {
            const cel_value *o = cel_map_find(b->v.map, &a->v.map->keys[i]);
            if (!o || cel_value_equal_op(&a->v.map->vals[i], o) == 0)
                return 0;
        }
        return 1;
    }
    if (a->kind == CEL_OPTIONAL && b->kind == CEL_OPTIONAL && a->v.opt && b->v.opt)
        return cel_value_equal_op(a->v.opt, b->v.opt);
    return cel_value_equal(a, b);
}

bool cel_value_compare(const cel_value *a, const cel_value *b, int *out)
{
    if (is_num(a->kind) && is_num(b->kind))
        return num_cmp(a, b, out);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_BOOL: *out = (int)a->v.b - (int)b->v.b; return true;
    case CEL_STRING:
    case CEL_BYTES: *out = bytes_cmp(a, b); return true; /* UTF-8 byte order = code point order */
    case CEL_TIMESTAMP:
    case CEL_DURATION: *out = ts_cmp(a, b); return true;
    default: return false;
    }
}

/* ---- types of values ------------------------------------------------------ */

static const cel_type t_optional_rt = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_dyn}, .nparams = 1};

const cel_type *cel_value_type(const cel_value *v)
{
    switch (v->kind) {
    case CEL_NULL: return &cel_t_null;
    case CEL_BOOL: return &cel_t_bool;
    case CEL_INT: return &cel_t_int;
    case CEL_UINT: return &cel_t_uint;
    case CEL_DOUBLE: return &cel_t_double;
    case CEL_STRING: return &cel_t_string;
    case CEL_BYTES: return &cel_t_bytes;
    case CEL_LIST: return &cel_t_list_dyn;
    case CEL_MAP: return &cel_t_map_dyn;
    case CEL_TYPE: return &cel_t_type;
    case CEL_OPTIONAL: return &t_optional_rt;
    case CEL_TIMESTAMP: return &cel_t_timestamp;
    case CEL_DURATION: return &cel_t_duration;
    case CEL_ERROR: return &cel_t_error;
    case CEL_OBJECT:
        switch (v->v.obj->kind) {
        case CEL_OBJ_QUANTITY: return &cel_t_quantity;
        case CEL_OBJ_SEMVER: return &cel_t_semver;
        case CEL_OBJ_IP: return &cel_t_ip;
        case CEL_OBJ_CIDR: return &cel_t_cidr;
        case CEL_OBJ_URL: return &cel_t_url;
        case CEL_OBJ_FORMAT: return &cel_t_format;
        }
    }
    return &cel_t_dyn;
}

const char *cel_value_type_name(const cel_value *v)
{
    return cel_type_runtime_name(cel_value_type(v));
}

/* ---- printing ------------------------------------------------------------- */

void cel_value_go_v(const cel_value *v, dra_buf *b)
{
    switch (v->kind) {
    case CEL_STRING: dra_buf_append(b, v->v.s.ptr, v->v.s.len); break;
    case CEL_INT: dra_buf_printf(b, "%" PRId64, v->v.i); break;
    case CEL_UINT: dra_buf_printf(b, "%" PRIu64, v->v.u); break;
    case CEL_BOOL: dra_buf_puts(b, v->v.b ? "true" : "false"); break;
    case CEL_DOUBLE: cel_double_format(v->v.d, b); break;
    case CEL_NULL: dra_buf_putc(b, '0'); break;
    case CEL_OBJECT:
        /* cel.IP and cel.CIDR embed a netip.Addr, a netip.Prefix: %v is
         * their String() */
        if (v->v.obj->kind == CEL_OBJ_IP) {
            cel_netip_format(v->v.obj->u.ip.addr, v->v.obj->u.ip.family, b);
            break;
        }
        if (v->v.obj->kind == CEL_OBJ_CIDR) {
            cel_netip_format(v->v.obj->u.cidr.ip.addr, v->v.obj->u.cidr.ip.family, b);
            dra_buf_printf(b, "/%d", v->v.obj->u.cidr.prefix);
            break;
        }
        cel_value_format(v, b);
        break;
    default: cel_value_format(v, b); break;
    }
}

/* Shortest round-trip digits, then Go's strconv 'g' (-1 precision) layout. */
void cel_double_format(double d, dra_buf *b)
{
    if (d != d) {
        dra_buf_puts(b, "NaN");
        return;
    }
    if (isinf(d)) {
        dra_buf_puts(b, d > 0 ? "+Inf" : "-Inf");
        return;
    }
    char tmp[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    /* tmp = [-]D.DDDDe[+-]XX */
    const char *p = tmp;
    bool neg = *p == '-';
    if (neg)
        p++;
    char digits[24];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    if (d == 0) {
        nd = 1;
        exp = 0;
    }
    if (neg)
        dra_buf_putc(b, '-');
    if (exp < -4 || exp >= 6) { /* strconv.FormatFloat(d, 'g', -1, 64) */
        dra_buf_putc(b, digits[0]);
        if (nd > 1) {
            dra_buf_putc(b, '.');
            dra_buf_append(b, digits + 1, nd - 1);
        }
        dra_buf_printf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return;
    }
    if (exp < 0) {
        dra_buf_puts(b, "0.");
        for (int i = -1; i > exp; i--)
            dra_buf_putc(b, '0');
        dra_buf_append(b, digits, nd);
        return;
    }
    for (int i = 0; i <= exp; i++)
        dra_buf_putc(b, (size_t)i < nd ? digits[i] : '0');
    if ((size_t)exp + 1 < nd) {
        dra_buf_putc(b, '.');
        dra_buf_append(b, digits + exp + 1, nd - (size_t)exp - 1);
    }
}

void cel_timestamp_format(int64_t sec, int32_t nsec, dra_buf *b)
{
    /* within cel-go's range (years 0001-9999): four digits, no sign */
    dra_civil c;
    dra_civil_from_unix(sec, &c);
    dra_buf_printf(b, "%04" PRId64 "-%02d-%02dT%02d:%02d:%02d", c.year, c.month, c.day, c.hour, c.min, c.sec);
    if (nsec) {
        char frac[16];
        snprintf(frac, sizeof frac, "%09d", (int)nsec);
        size_t n = 9;
        while (n > 0 && frac[n - 1] == '0')
            n--;
        dra_buf_putc(b, '.');
        dra_buf_append(b, frac, n);
    }
    dra_buf_putc(b, 'Z');
}

void cel_duration_format(int64_t sec, int32_t nsec, dra_buf *b)
{
    bool neg = sec < 0 || nsec < 0;
    uint64_t s = sec < 0 ? (uint64_t)0 - (uint64_t)sec : (uint64_t)sec;
    int32_t ns = nsec < 0 ? -nsec : nsec;
    dra_buf_printf(b, "%s%" PRIu64, neg ? "-" : "", s);
    if (ns) {
        char frac[16];
        snprintf(frac, sizeof frac, "%09d", (int)ns);
        size_t n = 9;
        while (n > 0 && frac[n - 1] == '0')
            n--;
        dra_buf_putc(b, '.');
        dra_buf_append(b, frac, n);
    }
    dra_buf_putc(b, 's');
}

/* RFC 3339 through the model's reader (model/time.h), then cel-go's
 * timestamp range: year 0001 through 9999 (t.Unix(), the floor second). */
static int ts_parse(const char *p, size_t n, int64_t *sec, int32_t *nsec)
{
    dra_time t;
    dra_err *e = dra_time_parse_n(p, n, &t);
    if (e) {
        dra_err_free(e);
        return -1;
    }
    if (t.sec < CEL_TS_MIN_SEC || t.sec > CEL_TS_MAX_SEC)
        return 1;
    *sec = t.sec;
    *nsec = t.nsec;
    return 0;
}

bool cel_timestamp_parse(const char *p, size_t n, int64_t *sec, int32_t *nsec)
{
    return ts_parse(p, n, sec, nsec) == 0;
}

cel_value cel_timestamp_of_string(const char *p, size_t n)
{
    int64_t sec;
    int32_t nsec;
    int r = ts_parse(p, n, &sec, &nsec);
    if (r < 0)
        return cel_error("type conversion error from 'string' to 'google.protobuf.Timestamp'");
    if (r > 0)
        return cel_error("timestamp overflow");
    return cel_timestamp(sec, nsec);
}

static void put_quoted(dra_buf *b, const char *p, size_t n, bool bytes)
{
    if (bytes)
        dra_buf_putc(b, 'b');
    dra_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        switch (c) {
        case '"': dra_buf_puts(b, "\\\""); break;
        case '\\': dra_buf_puts(b, "\\\\"); break;
        case '\n': dra_buf_puts(b, "\\n"); break;
        case '\r': dra_buf_puts(b, "\\r"); break;
        case '\t': dra_buf_puts(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80))
                dra_buf_printf(b, "\\x%02x", c);
            else
                dra_buf_putc(b, (char)c);
        }
    }
    dra_buf_putc(b, '"');
}

void cel_value_format(const cel_value *v, dra_buf *b)
{
    switch (v->kind) {
    case CEL_NULL: dra_buf_puts(b, "null"); break;
    case CEL_BOOL: dra_buf_puts(b, v->v.b ? "true" : "false"); break;
    case CEL_INT: dra_buf_printf(b, "%" PRId64, v->v.i); break;
    case CEL_UINT: dra_buf_printf(b, "%" PRIu64 "u", v->v.u); break;
    case CEL_DOUBLE: {
        size_t start = b->len;
        cel_double_format(v->v.d, b);
        /* keep it a double literal: 1 -> 1.0 */
        const char *s = dra_buf_str(b) + start;
        if (!strpbrk(s, ".eIN"))
            dra_buf_puts(b, ".0");
        break;
    }
    case CEL_STRING: put_quoted(b, v->v.s.ptr, v->v.s.len, false); break;
    case CEL_BYTES: put_quoted(b, v->v.s.ptr, v->v.s.len, true); break;
    case CEL_LIST:
        dra_buf_putc(b, '[');
        for (size_t i = 0; i < v->v.list->n; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            cel_value_format(&cel_list_items(v->v.list)[i], b);
        }
        dra_buf_putc(b, ']');
        break;
    case CEL_MAP:
        dra_buf_putc(b, '{');
        for (size_t i = 0; i < v->v.map->n; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            cel_value_format(&v->v.map->keys[i], b);
            dra_buf_puts(b, ": ");
            cel_value_format(&v->v.map->vals[i], b);
        }
        dra_buf_putc(b, '}');
        break;
    case CEL_TYPE: dra_buf_puts(b, cel_type_runtime_name(v->v.type)); break;
    case CEL_OPTIONAL:
        if (!v->v.opt) {
            dra_buf_puts(b, "optional.none()");
        } else {
            dra_buf_puts(b, "optional.of(");
            cel_value_format(v->v.opt, b);
            dra_buf_putc(b, ')');
        }
        break;
    case CEL_TIMESTAMP:
        dra_buf_puts(b, "timestamp(\"");
        cel_timestamp_format(v->v.t.sec, v->v.t.nsec, b);
        dra_buf_puts(b, "\")");
        break;
    case CEL_DURATION:
        dra_buf_puts(b, "duration(\"");
        cel_duration_format(v->v.t.sec, v->v.t.nsec, b);
        dra_buf_puts(b, "\")");
        break;
    case CEL_ERROR:
        dra_buf_puts(b, "error(");
        put_quoted(b, v->v.err, strlen(v->v.err), false);
        dra_buf_putc(b, ')');
        break;
    case CEL_OBJECT: {
        const cel_object *o = v->v.obj;
        char tmp[512];
        switch (o->kind) {
        case CEL_OBJ_QUANTITY: dra_buf_printf(b, "quantity(\"%s\")", dra_quantity_format(&o->u.quantity, tmp)); break;
        case CEL_OBJ_SEMVER:
            dra_buf_printf(b, "semver(\"%s\")", dra_semver_format(&o->u.semver, tmp, sizeof tmp));
            break;
        case CEL_OBJ_URL: dra_buf_printf(b, "url(\"%s\")", o->u.url.text); break;
        case CEL_OBJ_IP:
            dra_buf_puts(b, "ip(\"");
            cel_netip_format(o->u.ip.addr, o->u.ip.family, b);
            dra_buf_puts(b, "\")");
            break;
        case CEL_OBJ_CIDR:
            dra_buf_puts(b, "cidr(\"");
            cel_netip_format(o->u.cidr.ip.addr, o->u.cidr.ip.family, b);
            dra_buf_printf(b, "/%d\")", o->u.cidr.prefix);
            break;
        case CEL_OBJ_FORMAT: dra_buf_printf(b, "format.%s()", o->u.format.name); break;
        default: dra_buf_puts(b, cel_value_type_name(v)); break;
        }
        break;
    }
    }
}
