/* ResourceSlices as compact text.  See packed.h. */
#include "packed.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../io/jparse.h"
#include "../io/json.h"
#include "quantity.h"
#include "semver.h"

/* ---- a device's facts (packed.h) ----------------------------------------------
 * The compact text is scanned for the members a selector's device reads,
 * vouching for exactly what cel/dra_device.c's scan of a tree vouches for
 * (scan_attr, scan_cap there): anything else is not plain, and the device
 * is read into a tree.  The text is JSON the writer wrote from a tree: no
 * white space, no duplicate keys. */

/* A version core number blang/semver accepts without parsing: "0" or
 * 1-19 digits without a leading zero (fits uint64). */
bool dra_packed_version_quick(const char *s, size_t len, uint64_t part[3])
{
    const char *end = s + len;
    for (int i = 0; i < 3; i++) {
        const char *start = s;
        uint64_t v = 0;
        while (s < end && s - start < 20 && (unsigned)(*s - '0') < 10)
            v = v * 10 + (uint64_t)(*s++ - '0');
        size_t n = (size_t)(s - start);
        if (n == 0 || n > 19 || (n > 1 && *start == '0'))
            return false;
        part[i] = v;
        if (i < 2) {
            if (s >= end || *s != '.')
                return false;
            s++;
        }
    }
    return s == end;
}

bool dra_packed_int_quick(const char *s, size_t n, int64_t *out)
{
    bool neg = n && *s == '-';
    s += neg;
    n -= neg;
    if (!n || n > 18 || (*s == '0' && (n > 1 || neg)))
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned)(s[i] - '0') >= 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* 1-12 digits and a common suffix (none, k M G T P m, Ki Mi Gi Ti Pi): a
 * quantity every release's parser (dra_quantity_parse_as) accepts for certain (the rest is for the
 * parser to decide). */
static bool quick_quantity(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && n < 13 && s[n] >= '0' && s[n] <= '9')
        n++;
    if (n == 0 || n > 12)
        return false;
    switch (len - n) {
    case 0: return true;
    case 1: return s[n] && strchr("kMGTPm", s[n]) != NULL;
    case 2: return s[n] && s[n + 1] == 'i' && strchr("KMGTP", s[n]) != NULL;
    default: return false;
    }
}

bool dra_packed_quantity_ok(const char *s, size_t n)
{
    if (quick_quantity(s, n))
        return true;
    dra_quantity q;
    dra_err *err = dra_quantity_parse_rules(s, n, DRA_QUANTITY_RULES_137, &q);
    if (!err)
        err = dra_quantity_parse_rules(s, n, DRA_QUANTITY_RULES_138, &q);
    dra_err_free(err);
    return !err;
}

bool dra_packed_version_ok(const char *s, size_t n)
{
    uint64_t part[3];
    if (dra_packed_version_quick(s, n, part))
        return true;
    dra_semver sv;
    dra_err *err = dra_semver_parse(s, n, &sv);
    dra_err_free(err);
    return !err;
}

typedef struct tscan {
    const char *base, *p, *end;
    dra_buf scratch; /* dra_json_scan_string's: a string it decodes (then we decline) */
} tscan;

/* The bytes of w that end a plain ASCII run: '"', '\\', a control
 * character or a byte of 0x80 or more (the lowest such byte's high bit is
 * set, and nothing below it). */
static inline uint64_t t_special(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w) & highs;
}

/* A string without escapes, valid UTF-8, read as the parser reads it (its
 * bytes in the text); false for any other.  Plain ASCII is read here,
 * eight bytes at a time; anything else by the parser's own scanner. */
static bool t_string(tscan *t, const char **out, size_t *len)
{
    if (t->p >= t->end || *t->p != '"')
        return false;
    const char *start = t->p + 1, *q = start, *end = t->end;
    for (;;) {
        if (end - q >= 8) {
            uint64_t w;
            memcpy(&w, q, 8);
            uint64_t m = t_special(w);
            if (!m) {
                q += 8;
                continue;
            }
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            q += (unsigned)__builtin_clzll(m) >> 3;
#else
            q += (unsigned)__builtin_ctzll(m) >> 3;
#endif
        } else {
            while (q < end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 && *q != '"' && *q != '\\')
                q++;
            if (q >= end)
                return false;
        }
        break;
    }
    if (*q != '"') { /* an escape, a control character or UTF-8: the parser decides */
        q = start;
        if (!dra_json_scan_string(&q, end, &t->scratch, out, len) || *out < t->p || *out >= end)
            return false;
        t->p = q;
        return true;
    }
    *out = start;
    *len = (size_t)(q - start);
    t->p = q + 1;
    return true;
}

/* A member's key and its colon. */
static bool t_key(tscan *t, const char **k, size_t *klen)
{
    if (!t_string(t, k, klen) || t->p >= t->end || *t->p != ':')
        return false;
    t->p++;
    return true;
}

/* Past the value at t->p: a scalar to the next ',', '}' or ']', a string
 * or a container to its end (strings skipped with their escapes). */
static bool t_skip(tscan *t)
{
    const char *p = t->p, *end = t->end;
    int depth = 0;
    do {
        if (p >= end)
            return false;
        char c = *p++;
        if (c == '"') {
            while (p < end && *p != '"')
                p += *p == '\\' ? 2 : 1;
            if (p >= end)
                return false;
            p++;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth < 0)
                return false;
        } else if (!depth) {
            while (p < end && *p != ',' && *p != '}' && *p != ']')
                p++;
        }
    } while (depth);
    t->p = p;
    return true;
}

/* After a member: true and past the ',' when another follows, false at
 * the '}' (past it; *ok false when it is neither). */
static bool t_next(tscan *t, bool *ok)
{
    if (t->p < t->end && *t->p == ',') {
        t->p++;
        return true;
    }
    *ok = t->p < t->end && *t->p == '}';
    t->p++;
    return false;
}

static bool t_is(const char *k, size_t klen, const char *lit)
{
    size_t n = strlen(lit);
    return klen == n && !memcmp(k, lit, n);
}

/* Whether the text at t->p starts with lit (n bytes); past it if so. */
static inline bool t_lit(tscan *t, const char *lit, size_t n)
{
    if ((size_t)(t->end - t->p) < n || memcmp(t->p, lit, n))
        return false;
    t->p += n;
    return true;
}

/* An attribute: an object of one typed scalar. */
static bool t_attr(tscan *t, dra_packed_entry *e)
{
    /* the member's name as the writer writes it, without escapes: any
     * other is not one the tree's scan takes */
    const char *k = t->p + 2;
    if (!(t_lit(t, "{\"int\":", 7) || t_lit(t, "{\"bool\":", 8) || t_lit(t, "{\"string\":", 10) ||
          t_lit(t, "{\"version\":", 11)) ||
        t->p >= t->end)
        return false;
    char c = *t->p;
    const char *v = t->p;
    if (k[0] == 'i' && (c == '-' || (c >= '0' && c <= '9'))) {
        const char *q = t->p + (c == '-');
        while (q < t->end && (unsigned)(*q - '0') < 10)
            q++;
        int64_t quick;
        json_int_t iv;
        double dv;
        if (q < t->end && *q == '}' && dra_packed_int_quick(t->p, (size_t)(q - t->p), &quick))
            t->p = q;
        else if (dra_json_scan_number(&t->p, t->end, &iv, &dv) != 1)
            return false;
        e->type = DRA_PACKED_INT;
    } else if (k[0] == 'b' && (c == 't' || c == 'f')) {
        if (!t_lit(t, "true", 4) && !t_lit(t, "false", 5))
            return false;
        e->type = DRA_PACKED_BOOL;
    } else if ((k[0] == 's' || k[0] == 'v') && c == '"') {
        size_t n;
        if (!t_string(t, &v, &n))
            return false;
        e->type = k[0] == 's' ? DRA_PACKED_STRING : DRA_PACKED_VERSION;
        if (e->type == DRA_PACKED_VERSION && !dra_packed_version_ok(v, n))
            return false;
        e->vlen = (uint16_t)n;
    } else {
        return false;
    }
    if (e->type < DRA_PACKED_STRING)
        e->vlen = (uint16_t)(t->p - v);
    e->val = (uint16_t)(v - t->base);
    if (t->p >= t->end || *t->p != '}') /* one member only */
        return false;
    t->p++;
    return true;
}

/* A capacity: the string "value" of an object, else none ("0"). */
static bool t_cap(tscan *t, dra_packed_entry *e)
{
    e->val = e->vlen = 0;
    if (t->p < t->end && *t->p == '{') {
        t->p++;
        bool more = t->p < t->end && *t->p != '}', ok = true;
        if (!more)
            t->p++;
        while (more) {
            const char *k = "value", *s;
            size_t klen = 5, n;
            if (!t_lit(t, "\"value\":", 8) && !t_key(t, &k, &klen))
                return false;
            if (t_is(k, klen, "value") && t->p < t->end && *t->p == '"') {
                if (!t_string(t, &s, &n) || !dra_packed_quantity_ok(s, n))
                    return false;
                e->val = (uint16_t)(s - t->base);
                e->vlen = (uint16_t)n;
            } else if (!t_skip(t)) {
                return false;
            }
            more = t_next(t, &ok);
        }
        if (!ok)
            return false;
    } else if (!t_skip(t)) {
        return false;
    }
    e->type = DRA_PACKED_QUANTITY;
    return true;
}

/* The members of the object at t->p (attributes or capacity) into
 * e[*n...]; false when the scan declines. */
static bool t_section(tscan *t, dra_packed_entry *e, uint32_t *n, bool caps)
{
    t->p++; /* '{' */
    if (t->p < t->end && *t->p == '}') {
        t->p++;
        return true;
    }
    bool ok = true;
    do {
        const char *name;
        size_t len;
        if (*n == DRA_PACKED_ENTRIES_MAX || !t_key(t, &name, &len))
            return false;
        dra_packed_entry *x = &e[(*n)++];
        const char *slash = memchr(name, '/', len); /* the first (no NUL in a string the scan takes) */
        x->name = (uint16_t)(name - t->base);
        x->nlen = (uint16_t)len;
        x->dlen = slash ? (uint16_t)(slash - name + 1) : 0;
        if (!(caps ? t_cap(t, x) : t_attr(t, x)))
            return false;
    } while (t_next(t, &ok));
    return ok;
}

/* The device's members: entries into f (attributes, then capacities). */
static bool t_device(tscan *t, dra_packed_facts *f)
{
    dra_packed_entry caps[DRA_PACKED_ENTRIES_MAX];
    bool seen_a = false, seen_c = false, seen_m = false, ok = true;
    if (t->p >= t->end || *t->p != '{')
        return false;
    t->p++;
    if (t->p < t->end && *t->p == '}') {
        t->p++;
        return true;
    }
    do {
        const char *k;
        size_t klen;
        if (!t_key(t, &k, &klen) || t->p >= t->end)
            return false;
        if (t_is(k, klen, "attributes") && !seen_a) {
            seen_a = true;
            if (*t->p == '{' ? !t_section(t, f->ents, &f->nattrs, false) : !t_skip(t))
                return false;
        } else if (t_is(k, klen, "capacity") && !seen_c) {
            seen_c = true;
            if (*t->p == '{' ? !t_section(t, caps, &f->ncaps, true) : !t_skip(t))
                return false;
        } else if (t_is(k, klen, "allowMultipleAllocations") && !seen_m) {
            seen_m = true;
            f->allow = t->end - t->p >= 4 && !memcmp(t->p, "true", 4);
            if (!t_skip(t))
                return false;
        } else if (t_is(k, klen, "attributes") || t_is(k, klen, "capacity") ||
                   t_is(k, klen, "allowMultipleAllocations") || !t_skip(t)) {
            return false; /* given twice: for the tree to decide */
        }
    } while (t_next(t, &ok));
    if (!ok || f->nattrs + f->ncaps > DRA_PACKED_ENTRIES_MAX)
        return false;
    memcpy(f->ents + f->nattrs, caps, f->ncaps * sizeof *caps);
    return true;
}

/* Whether no two of the n entries share an id: then the one entry of a
 * selector's id answers for its section alone (cel/dra_plan.c). */
static bool ids_unique(const char *text, const dra_packed_entry *e, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (e[i].nlen - e[i].dlen == e[j].nlen - e[j].dlen &&
                !memcmp(text + e[i].name + e[i].dlen, text + e[j].name + e[j].dlen, (size_t)(e[i].nlen - e[i].dlen)))
                return false;
    return true;
}

bool dra_packed_scan(const char *text, size_t len, dra_packed_facts *f)
{
    f->allow = false;
    f->nattrs = f->ncaps = f->nobjs = 0;
    tscan t = {text, text, text + len, DRA_BUF_INIT};
    f->plain = len && len <= UINT16_MAX && t_device(&t, f) && t.p == t.end;
    dra_buf_free(&t.scratch);
    for (uint32_t i = 0; f->plain && i < f->nattrs + f->ncaps; i++)
        f->nobjs += f->ents[i].type >= DRA_PACKED_VERSION;
    f->unique = f->plain && ids_unique(text, f->ents, f->nattrs) && ids_unique(text, f->ents + f->nattrs, f->ncaps);
    return f->plain;
}

/* The facts as stored after a device's NUL: a byte of flags (1 plain,
 * 2 allow, 4 unique), the numbers of attributes, of capacities and of objects (a
 * byte each), then the entries (packed.h, DRA_PACKED_STORED). */
bool dra_packed_store(const dra_packed_facts *f, unsigned char out[DRA_PACKED_ENTRIES_MAX * DRA_PACKED_STORED])
{
    uint32_t n = f->nattrs + f->ncaps;
    for (uint32_t i = 0; i < n; i++) {
        const dra_packed_entry *e = &f->ents[i];
        if (e->nlen > 255 || e->dlen > 255 || e->vlen > DRA_PACKED_STORED_VLEN_MAX || e->type > 7)
            return false;
        uint16_t tv = (uint16_t)(e->type << 13 | e->vlen);
        unsigned char *x = out + (size_t)i * DRA_PACKED_STORED;
        memcpy(x, &e->name, 2);
        memcpy(x + 2, &e->val, 2);
        memcpy(x + 4, &tv, 2);
        x[6] = (unsigned char)e->nlen;
        x[7] = (unsigned char)e->dlen;
    }
    return true;
}

static void facts_put(dra_buf *b, const dra_packed_facts *f)
{
    unsigned char ents[DRA_PACKED_ENTRIES_MAX * DRA_PACKED_STORED];
    bool plain = f->plain && dra_packed_store(f, ents);
    dra_buf_putc(b, (char)((plain ? 1 : 0) | (f->allow ? 2 : 0) | (plain && f->unique ? 4 : 0)));
    dra_buf_putc(b, (char)(plain ? f->nattrs : 0));
    dra_buf_putc(b, (char)(plain ? f->ncaps : 0));
    dra_buf_putc(b, (char)(plain ? f->nobjs : 0));
    if (plain)
        dra_buf_append(b, (const char *)ents, (f->nattrs + f->ncaps) * DRA_PACKED_STORED);
}

static size_t facts_size(const char *at)
{
    return 4 + ((size_t)(unsigned char)at[1] + (unsigned char)at[2]) * DRA_PACKED_STORED;
}

void dra_slice_pack(dra_slice_packs *p, const json_t *slice)
{
    json_t *spec = json_object_get(slice, "spec");
    json_t *devs = json_object_get(spec, "devices");
    dra_buf b = DRA_BUF_INIT;
    size_t i;
    json_t *d;
    json_array_foreach(devs, i, d) {
        size_t at = b.len;
        dra_json_write_compact(&b, d);
        dra_packed_facts f;
        dra_packed_scan(b.data + at, b.len - at, &f);
        dra_buf_putc(&b, '\0');
        facts_put(&b, &f);
    }
    dra_packed_slice *x = dra_xcalloc(1, sizeof *x + b.len + 1);
    x->n = json_array_size(devs);
    x->len = b.len;
    if (b.len)
        memcpy(x->text, b.data, b.len);
    /* the rest: what the allocator's world reads of the slice, its name and
     * a shallow copy of spec without devices (not its labels, owners,
     * managedFields: a million devices come in a hundred thousand slices) */
    json_t *top = json_object(), *name = json_object_get(json_object_get(slice, "metadata"), "name");
    if (name)
        json_object_set_new(top, "metadata", json_pack("{s:O}", "name", name));
    if (json_is_object(spec)) {
        json_t *s2 = json_copy(spec);
        json_object_del(s2, "devices");
        json_object_set_new(top, "spec", s2);
    } else if (spec) {
        json_object_set(top, "spec", spec);
    }
    dra_buf_reset(&b);
    dra_json_write_compact(&b, top);
    json_decref(top);
    x->rest = dra_xstrdup(dra_buf_str(&b)); /* exact size: the buffer grew for the devices */
    dra_buf_free(&b);
    const char *nn = json_string_value(json_object_get(spec, "nodeName"));
    x->node_name = nn && *nn ? dra_xstrdup(nn) : NULL;
    p->v = dra_xgrow(p->v, p->n, sizeof *p->v);
    p->v[p->n++] = x;
    p->bytes += x->len + strlen(x->rest);
}

const char *dra_packed_next(const dra_packed_slice *s, const char *cur)
{
    const char *next = s->text;
    if (cur) {
        next = cur + strlen(cur) + 1;
        next += facts_size(next);
    }
    return next < s->text + s->len ? next : NULL;
}

void dra_slice_packs_free(dra_slice_packs *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i]->rest);
        free(p->v[i]->node_name);
        free(p->v[i]);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}
