/* ResourceSlices held as compact JSON text instead of trees.
 *
 * A tool that holds a whole fleet for the allocator (dra-alloc schedule)
 * keeps each slice as text as it reads it: a device as a JSON tree costs
 * about ten times its text.  The allocator's world reads the slices from the
 * text (dra_alloc_world_input.packs), keeps what it needs of each device,
 * and parses a device's JSON again only while a constraint needs it (or a
 * CEL selector, for a device whose facts below are not plain: a CEL
 * selector reads the others from their text and facts).
 *
 * Ownership: a dra_slice_packs owns its packed slices (a few allocations
 * each) and keeps no reference to the objects packed.  dra_slice_packs_free()
 * releases it.  Never fails (aborts on OOM).
 */
#ifndef DRA_MODEL_PACKED_H
#define DRA_MODEL_PACKED_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct dra_packed_slice {
    char *rest;      /* metadata.name and spec without devices, compact JSON (what the world reads) */
    char *node_name; /* its spec.nodeName when not empty, else NULL */
    size_t n;        /* devices */
    size_t len;      /* bytes of device text and facts */
    /* the n devices of spec.devices in order, each as compact JSON, a NUL
     * and its facts (dra_packed_facts) */
    char text[];
} dra_packed_slice;

typedef struct dra_slice_packs {
    dra_packed_slice **v; /* in the order packed */
    size_t n;
    size_t bytes; /* text held */
} dra_slice_packs;

/* Append slice (not changed) to p as text. */
void dra_slice_pack(dra_slice_packs *p, const json_t *slice);
/* The device after `cur` (NULL: the first); NULL after the last.  Its
 * text is NUL-terminated. */
const char *dra_packed_next(const dra_packed_slice *s, const char *cur);

/* ---- a device's facts: what a CEL selector needs of its text ----------------
 * Decided once, when the slice is packed (and by cel/dra_device.c for text
 * of other sources): whether every attribute and capacity of the device
 * converts plainly for a selector (a typed scalar, a version and quantities
 * every release parses, a string without escapes; at most
 * DRA_PACKED_ENTRIES_MAX of them, no member given twice, text under 64 KiB),
 * and where each entry's name and value lie in the text. */

#define DRA_PACKED_ENTRIES_MAX 64

/* An entry's type (cel/dra_device.h LZ_* follow this order). */
enum { DRA_PACKED_INT, DRA_PACKED_BOOL, DRA_PACKED_STRING, DRA_PACKED_VERSION, DRA_PACKED_QUANTITY };

/* Offsets are in bytes from the start of the device's text. */
typedef struct dra_packed_entry {
    uint16_t name, nlen; /* its name, "dom/id" or "id" */
    uint16_t dlen;       /* "dom/id": the domain's length + 1; else 0 */
    uint16_t val, vlen;  /* its value: a string's bytes, an int's digits, "true" or "false"; a capacity without a
                          * value: val 0 */
    uint16_t type;       /* DRA_PACKED_* */
} dra_packed_entry;

typedef struct dra_packed_facts {
    bool plain;             /* every entry converts plainly (else nothing below is set) */
    bool allow;             /* allowMultipleAllocations is true */
    bool unique;            /* no two attributes share an id (the name without its domain), nor two capacities */
    uint32_t nattrs, ncaps; /* entries: nattrs attributes, then ncaps capacities */
    uint32_t nobjs;         /* of them, versions and quantities */
    dra_packed_entry ents[DRA_PACKED_ENTRIES_MAX];
} dra_packed_facts;

/* Scan a device's compact text (len bytes, as dra_json_write_compact
 * writes it) into *f; false (f->plain false) when it is not plain. */
bool dra_packed_scan(const char *text, size_t len, dra_packed_facts *f);
/* The facts stored with `text`, a device of a packed slice
 * (dra_packed_next) of len bytes, but its entries (f->ents is not set):
 * they are where the pointer returned points, as they are stored (not
 * aligned), read with dra_packed_entry_at. */
static inline __attribute__((always_inline)) const void *dra_packed_facts_of(const char *text, size_t len,
                                                                             dra_packed_facts *f)
{
    const unsigned char *at = (const unsigned char *)text + len + 1; /* as packed.c facts_put stores them */
    f->plain = at[0] & 1;
    f->allow = (at[0] & 2) != 0;
    f->unique = (at[0] & 4) != 0;
    f->nattrs = at[1];
    f->ncaps = at[2];
    f->nobjs = at[3];
    return at + 4;
}
/* An entry as stored, in DRA_PACKED_STORED bytes (a million devices are
 * held at once): name, val and (type << 13 | vlen) as 16 bits each, then
 * nlen and dlen a byte each.  A device with an entry that does not fit
 * (a name over 255 bytes, a value over 8,191) is stored as not plain. */
#define DRA_PACKED_STORED 8
#define DRA_PACKED_STORED_VLEN_MAX 0x1fff
/* f's entries (f->plain) stored into out as dra_packed_entry_at reads
 * them; false when one does not fit (the device is then not plain). */
bool dra_packed_store(const dra_packed_facts *f, unsigned char out[DRA_PACKED_ENTRIES_MAX * DRA_PACKED_STORED]);
/* Entry i of entries stored at `ents` (dra_packed_facts_of, dra_packed_store). */
static inline __attribute__((always_inline)) dra_packed_entry dra_packed_entry_at(const void *ents, size_t i)
{
    const unsigned char *p = (const unsigned char *)ents + i * DRA_PACKED_STORED;
    uint16_t name, val, tv;
    memcpy(&name, p, 2);
    memcpy(&val, p + 2, 2);
    memcpy(&tv, p + 4, 2);
    return (dra_packed_entry){.name = name,
                              .nlen = p[6],
                              .dlen = p[7],
                              .val = val,
                              .vlen = (uint16_t)(tv & DRA_PACKED_STORED_VLEN_MAX),
                              .type = (uint16_t)(tv >> 13)};
}
/* "N.N.N" that dra_semver_parse accepts for certain (numbers of 1-19
 * digits without a leading zero), its numbers into part[]; false for
 * anything else (pre-release, build, errors: for the parser to decide). */
bool dra_packed_version_quick(const char *s, size_t n, uint64_t part[3]);
/* An integer of n bytes, -?[1-9][0-9]{0,17} or "0", that JSON reads as
 * that int64 for certain, into *out; false for anything else (for the
 * JSON scanner to decide). */
bool dra_packed_int_quick(const char *s, size_t n, int64_t *out);
/* A version dra_semver_parse accepts (n bytes, no NUL among them). */
bool dra_packed_version_ok(const char *s, size_t n);
/* A quantity of n bytes (no NUL among them) that every release's
 * ParseQuantity accepts (1.38 refuses an exponent of -2^31). */
bool dra_packed_quantity_ok(const char *s, size_t n);
void dra_slice_packs_free(dra_slice_packs *p);

#endif
