/* DRA devices for CEL selectors (dra_device.c): converting a v1 Device.
 * Included by dra.h, the public header: include dra.h, not this file.
 * Below the public calls, the device's layout, private to cel/dra*.c:
 * built by dra_device.c, read by dra_plan.c. */
#ifndef DRA_CEL_DRA_DEVICE_H
#define DRA_CEL_DRA_DEVICE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/arena.h"
#include "../model/packed.h"
#include "value.h"

typedef struct cel_dra_device cel_dra_device;
struct cel_program;

/* Convert a v1 Device (JSON object: attributes, capacity,
 * allowMultipleAllocations) of `driver`.  Never fails: an attribute that
 * cannot be converted is remembered and makes every match on this device
 * fail with "attribute <name>: ..." (dra-corrections A4/E2-5). */
cel_dra_device *cel_dra_device_new(const json_t *device, const char *driver);
/* The same, with `scratch` for a full conversion made while building (a
 * device whose scan finds a conversion error, a list or another unusual
 * value; reset first and left reset; owned by the caller, who frees it
 * after the last build): building many devices through one scratch arena
 * allocates nothing but each device's one block (two with a full
 * conversion). */
cel_dra_device *cel_dra_device_build(const json_t *device, const char *driver, dra_arena *scratch);
/* How a release converts a device for its selectors; zero is 1.37's
 * (every attribute first; one that cannot be converted fails every match). */
typedef struct cel_dra_convert {
    /* 1.36 with DRAListTypeAttributes off: an attribute holding a list is
     * unsupported, every match on the device fails with "attribute <name>:
     * unsupported attribute value" (getAttributeValue, v0.36.3
     * cel/compile.go), which stops scheduling until the slice changes. */
    bool no_lists;
    /* 1.38: each attribute apart; one without a usable value (none, an
     * empty list, an unparseable version) is an error only where a
     * selector reads it: "attribute <id>: value is invalid or its type is
     * not supported by this version" (v0.38.0-beta.0 cel/compile.go,
     * api/conversion.go).  (1.38 also leaves it out of `in`, has() and map
     * equality; here `in` still finds it.) */
    bool apart;
    /* The release's ParseQuantity for capacity values (dra_quantity_rules:
     * the API server and the scheduler decode a slice's quantities with
     * their own apimachinery). */
    unsigned quantity_rules;
} cel_dra_convert;
/* The same, converting as `how` says. */
cel_dra_device *cel_dra_device_build_as(const json_t *device, const char *driver, dra_arena *scratch,
                                        const cel_dra_convert *how);
/* The same from the device's compact JSON text (len bytes, as
 * dra_json_write_compact writes it: a packed slice's device,
 * model/packed.h), copied: the device its tree builds, with the same
 * answers, without the tree.  Only the members a selector can read are
 * looked at; an attribute or capacity is converted when a selector first
 * reads it.  Text of unusual shape (escapes, lists, values the scan does
 * not vouch for, more than DRA_DEV_TEXT_MAX entries, 64 KiB or more) is
 * read into a tree and built from that. */
cel_dra_device *cel_dra_device_build_text(const char *text, size_t len, const char *driver, dra_arena *scratch,
                                          const cel_dra_convert *how);
/* What one caller's devices pass on to the next (cel_dra_device_build_packed,
 * cel_dra_device_drop): a dropped device's block, and the last capacity
 * value and plain version parsed (a fleet's devices mostly share theirs).  Start zeroed;
 * owned by the caller, who frees it with cel_dra_reuse_free after the
 * last device built with it is dropped or freed. */
typedef struct cel_dra_reuse {
    void *block; /* a dropped device's allocation, or NULL */
    size_t size; /* its bytes */
    bool qset;   /* qtext and q hold a parse */
    uint32_t qlen;
    unsigned qrules;
    char qtext[DRA_QUANTITY_TEXTMAX];
    dra_quantity q;
    uint32_t vlen; /* vtext holds the last "N.N.N" version read (vlen bytes), vpart its numbers; 0: none */
    char vtext[32];
    uint64_t vpart[3];
} cel_dra_reuse;
/* The same from `text`, a device of a packed slice (model/packed.h
 * dra_packed_next) of len bytes, by the facts its slice holds with it: no
 * scan of the text, which is borrowed, as `driver` is (both must outlive
 * the device), not copied.  With reuse (may be NULL, else it must outlive the device): the
 * device takes the block reuse keeps when it fits, and reads and keeps
 * the last capacity value parsed there. */
cel_dra_device *cel_dra_device_build_packed(const char *text, size_t len, const char *driver, dra_arena *scratch,
                                            const cel_dra_convert *how, cel_dra_reuse *reuse);
void cel_dra_device_free(cel_dra_device *d);
/* Free d (NULL: nothing), keeping its allocation in r (may be NULL) for a
 * device built next: r keeps the larger of its block and d's. */
void cel_dra_device_drop(cel_dra_device *d, cel_dra_reuse *r);
void cel_dra_reuse_free(cel_dra_reuse *r);
/* Heap bytes the device holds, its full conversion included once made.
 * *single is false when that conversion did not fit one arena block
 * (64 KiB) and keeps its arena. */
size_t cel_dra_device_bytes(const cel_dra_device *d, bool *single);
/* The `device` value (a map), e.g. for tests or custom activations: the
 * full conversion, made on first call. */
cel_value cel_dra_device_value(const cel_dra_device *d);
/* The conversion error every match on d reports ("attribute <name>:
 * ..."), or NULL; it lives as long as d.  An evaluation with the device
 * bound fails with it, as upstream's DeviceMatches does before it
 * evaluates. */
const char *cel_dra_device_error(const cel_dra_device *d);
/* The same as p's environment sees it: under 1.36 without
 * DRAListTypeAttributes a list attribute fails the device too ("attribute
 * X: unsupported attribute value", v0.36.3 cel/compile.go getAttributeValue). */
const char *cel_dra_device_error_in(const struct cel_program *p, const cel_dra_device *d);

/* ---- private to cel/dra*.c ---- */

enum { DEV_DRIVER, DEV_ATTRIBUTES, DEV_CAPACITY, DEV_ALLOW, DEV_NFIELDS };

/* One attribute or capacity in a device's lookup table (see dra_dev_table_build). */
typedef struct dev_entry {
    uint64_t hash;
    const char *key; /* encoded (domain, name); NULL = empty slot */
    size_t klen;
    cel_value val;
} dev_entry;

typedef struct dev_table {
    dev_entry *slots; /* mask + 1 slots, at most half used */
    size_t mask, n;
} dev_table;

/* A device converted in full: the `device` map and the lookup tables.  It
 * is built in a scratch arena and then moved into one allocation of
 * exactly the bytes it uses, the struct first (see device_compact); `arena`
 * is set only when the build did not fit one arena block, and then the
 * struct lives in that arena. */
typedef struct dev_full {
    dra_arena arena;
    cel_value value;               /* the `device` map */
    cel_value fields[DEV_NFIELDS]; /* its values, for compiled plans */
    dev_table attrs, caps;         /* attributes / capacity by (domain, name), for compiled plans */
    const char *error;             /* conversion error shared by every match, or NULL */
    const char *list_error; /* "attribute X: unsupported attribute value" for the first list attribute, or NULL */
    size_t size;            /* bytes of the one allocation; 0 with an arena */
} dev_full;

/* ---- lazy devices ----------------------------------------------------------
 * A device is first only scanned (dra_device.c scan; from text,
 * model/packed.h dra_packed_scan, or the facts a packed slice holds): every
 * attribute and capacity is checked the way the full conversion would
 * convert it, and remembered by name with its JSON value (a packed
 * device's entries are filled from its facts as they are read).  A
 * compiled plan reads the few it needs (dra_plan.c dev_lazy_find), each
 * converted on first read and kept; the `device` map, the whole attributes
 * or capacity maps and anything the scan does not vouch for (a conversion
 * error, a list, an attribute of unusual shape, a name given both with and
 * without the driver's domain) come from the full conversion
 * (dra_dev_full), made once, when first needed. */

enum { LZ_INT, LZ_BOOL, LZ_STRING, LZ_VERSION, LZ_QUANTITY };

typedef struct dev_lazy {
    const char *dom;    /* qualified "dom/id": the domain; else NULL (the driver's) */
    const char *id;     /* the name without its domain */
    uint32_t dlen;      /* the domain's length */
    uint32_t idlen;     /* the id's length */
    uint64_t tag, tag2; /* dev_tag(id), dev_tag2(id): ids of up to 16 bytes compare as these */
    const char *s;      /* LZ_STRING, LZ_VERSION, LZ_QUANTITY: the bytes (a quantity without: NULL, "0");
                         * LZ_INT, LZ_BOOL from text: the value's ("-12", "true"), else NULL */
    uint32_t slen;      /* their length */
    uint8_t type;       /* LZ_* */
    bool done;          /* val is converted */
    uint32_t obj;       /* LZ_VERSION / LZ_QUANTITY: its object in objs[] */
    int64_t i;          /* LZ_INT: the value; LZ_BOOL: 0 or 1 (built from a tree, or once converted) */
    cel_value val;
} dev_lazy;

/* The first eight bytes of a name, zero-padded: names that differ there
 * (nearly all that differ) are told apart without comparing them. */
static inline __attribute__((always_inline)) uint64_t dev_tag(const char *s, size_t n)
{
    uint64_t t = 0;
    if (n)
        memcpy(&t, s, n < 8 ? n : 8);
    return t;
}

/* dev_tag of a name of n bytes at s in a text ending at end: without a
 * copy of n bytes when eight can be read. */
static inline __attribute__((always_inline)) uint64_t dev_tag_at(const char *s, size_t n, const char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (s + 8 <= end) {
        uint64_t t;
        memcpy(&t, s, 8);
        return n >= 8 ? t : t & ((1ull << (8 * n)) - 1);
    }
#endif
    return dev_tag(s, n);
}

/* Short strings compared inline, a word at a time (of four bytes or
 * more, the last word overlapping the one before). */
static inline __attribute__((always_inline)) bool dev_same_bytes(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    if (n >= 4 && n < 8) {
        uint32_t x0, y0, x1, y1;
        memcpy(&x0, a, 4);
        memcpy(&y0, b, 4);
        memcpy(&x1, a + n - 4, 4);
        memcpy(&y1, b + n - 4, 4);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n >= 8 && n <= 24) { /* the first, middle and last words */
        uint64_t x1, y1, x2, y2;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&x1, a + n / 2 - 4, 8);
        memcpy(&y1, b + n / 2 - 4, 8);
        memcpy(&x2, a + n - 8, 8);
        memcpy(&y2, b + n - 8, 8);
        return ((x ^ y) | (x1 ^ y1) | (x2 ^ y2)) == 0;
    }
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return false;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    for (; n; n--)
        if (*a++ != *b++)
            return false;
    return true;
}

/* The last eight bytes of a name longer than eight, else 0. */
static inline __attribute__((always_inline)) uint64_t dev_tag2(const char *s, size_t n)
{
    uint64_t t = 0;
    if (n > 8)
        memcpy(&t, s + n - 8, 8);
    return t;
}

/* The device itself: one allocation (struct, entries, the objects of its
 * versions and quantities, driver name but a packed device's; built from
 * text, a copy of the text), plus the full conversion when made.  Built from a tree, it holds
 * a reference to it, whose strings the converted values borrow; from
 * text, they borrow the copy, and the full conversion reads the copy
 * again. */
struct cel_dra_device {
    cel_value fields[DEV_NFIELDS]; /* driver and allowMultipleAllocations (the maps: dra_dev_full) */
    dev_full *full;                /* the full conversion, or NULL until needed */
    json_t *json;                  /* held reference; NULL when built from text */
    const char *text;              /* built from text: its copy (tlen bytes and a NUL), or the packed slice's text
                                    * it borrows (cel_dra_device_build_packed); else NULL */
    size_t tlen;                   /* its length */
    const char *error;             /* the full conversion's errors, when the scan made it */
    const char *list_error;
    cel_dra_convert how;
    const char *driver;            /* in the allocation (own_driver), else the builder's */
    bool own_driver;               /* else borrowed (cel_dra_device_build_packed) */
    bool unique_ids;               /* no two attributes share an id, nor two capacities (model/packed.h
                                    * dra_packed_facts.unique, or the tree's scan): a leaf's entry is
                                    * the one of its id */
    uint32_t nattrs, ncaps, nobjs; /* entries: nattrs attributes, then ncaps capacities */
    uint32_t nroom;                /* objects the allocation has room for */
    cel_object *objs;              /* nobjs objects (in the same allocation), filled on first read */
    size_t block;                  /* bytes of the allocation */
    const void *pending;           /* built from a packed slice: its entries' facts, until dra_dev_fill reads
                                    * them all into ents[]; else NULL */
    uint64_t filled;               /* bit i: ents[i] is filled (from pending, one by one as read) */
    uint64_t valued;               /* bit i: ents[i]'s value is (dra_dev_value; a filled entry's is too) */
    cel_dra_reuse *reuse;          /* the builder's (cel_dra_device_build_packed), or NULL */
    /* an open-addressing table of the attributes' and of the capacities'
     * positions by id (dev_id_slot), when there are DRA_DEV_INDEX_MIN or
     * more of them (room in the same allocation; else NULL), filled on
     * the DRA_DEV_INDEX_AFTER-th read of its section (reads[caps] counts
     * them until then); mask[caps] + 1 slots */
    uint32_t *index[2];
    uint32_t mask[2];
    uint8_t reads[2];
    dev_lazy ents[];
};

/* Attributes and capacities together that cel_dra_device_build_text scans
 * from text (DRA_PACKED_ENTRIES_MAX); a device with more is read into a
 * tree. */
#define DRA_DEV_TEXT_MAX 64

/* From this many attributes (or capacities) on, a device read this many
 * times finds one by its id's slot in an index rather than by reading
 * them all (filling the index costs about as much as five reads). */
#define DRA_DEV_INDEX_MIN 8
#define DRA_DEV_INDEX_AFTER 4
/* An index slot with no entry. */
#define DRA_DEV_NO_ENTRY UINT32_MAX

/* The first slot to probe for an id of n bytes whose tags are t1, t2. */
static inline size_t dev_id_slot(uint64_t t1, uint64_t t2, size_t n, uint32_t mask)
{
    uint64_t h = t1 ^ (t2 * 0x9e3779b97f4a7c15ull) ^ n; /* then a full mix (MurmurHash3's) */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (size_t)h & mask;
}

/* Fill t from grouped, a map of domain -> (name -> value), in arena a. */
void dra_dev_table_build(dra_arena *a, dev_table *t, cel_value grouped);
/* A (domain, name) key as the tables hold it (in a), its length in *klen,
 * and its hash. */
const char *dra_dev_key_encode(dra_arena *a, const char *dom, size_t dlen, const char *name, size_t nlen, size_t *klen);
uint64_t dra_dev_key_hash(const char *k, size_t n);

/* The full conversion of d, made on first use (cel/dra.c); d is logically
 * const: only its caches change.  Never NULL. */
const dev_full *dra_dev_full(const cel_dra_device *d);
/* The index of d's attributes (caps false) or capacities, or NULL when
 * it has none or has not been read often enough (then read them all):
 * from dev_id_slot on, the slots up to an empty one hold every entry of
 * an id (and maybe others).  Counts the reads, fills the index once. */
const uint32_t *dra_dev_index(const cel_dra_device *d, bool caps);
/* Fill d's entries from its pending facts (d->pending not NULL). */
void dra_dev_fill(cel_dra_device *d);
/* Entry i's value fields (s, slen, type, done, obj) from its facts p: an
 * object, if it needs one, is the next of d's room. */
static inline __attribute__((always_inline)) void dra_dev_fill_value(cel_dra_device *d, const dra_packed_entry *p,
                                                                     size_t i)
{
    dev_lazy *x = &d->ents[i];
    x->s = p->val ? d->text + p->val : NULL; /* an int's or a bool's too: converted from it */
    x->slen = p->vlen;
    x->type = (uint8_t)p->type;
    x->done = false;
    if (x->type >= LZ_VERSION)
        x->obj = d->nobjs++;
    d->valued |= 1ull << i;
}
/* Entry i of d (d->pending not NULL) with its value fields set from its
 * facts if they are not yet; its name is filled only by dra_dev_fill
 * (read it from the facts until then). */
static inline __attribute__((always_inline)) dev_lazy *dra_dev_value(cel_dra_device *d, size_t i)
{
    if (!(d->valued >> i & 1)) {
        const dra_packed_entry p = dra_packed_entry_at(d->pending, i);
        dra_dev_fill_value(d, &p, i);
    }
    return &d->ents[i];
}
/* Convert e, an entry of d, into e->val (its first read). */
void dra_dev_lazy_convert(cel_dra_device *d, dev_lazy *e);

#endif
