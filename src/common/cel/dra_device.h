/* Private to cel/dra.c and cel/dra_plan.c: a converted device as the
 * compiled plans read it (built by dra.c, read by dra_plan.c). */
#ifndef DRA_CEL_DRA_DEVICE_H
#define DRA_CEL_DRA_DEVICE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/arena.h"
#include "dra.h"
#include "value.h"

enum { DEV_DRIVER, DEV_ATTRIBUTES, DEV_CAPACITY, DEV_ALLOW, DEV_NFIELDS };

/* One attribute or capacity in a device's lookup table (see dra_plan_table_build). */
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
 * A device is first only scanned (dra.c device_scan): every attribute and
 * capacity is checked the way the full conversion would convert it, and
 * remembered by name with its JSON value.  A compiled plan reads the few it
 * needs (dra_plan.c dev_lazy_find), each converted on first read and kept; the
 * `device` map, the whole attributes or capacity maps and anything the scan
 * does not vouch for (a conversion error, a list, an attribute of unusual
 * shape, a name given both with and without the driver's domain) come from
 * the full conversion (dra_dev_full), made once, when first needed. */

enum { LZ_INT, LZ_BOOL, LZ_STRING, LZ_VERSION, LZ_QUANTITY };

typedef struct dev_lazy {
    const char *dom;    /* qualified "dom/id": the domain; else NULL (the driver's) */
    const char *id;     /* the name without its domain */
    uint32_t dlen;      /* the domain's length */
    uint32_t idlen;     /* the id's length */
    uint64_t tag, tag2; /* dev_tag(id), dev_tag2(id): ids of up to 16 bytes compare as these */
    const json_t *json; /* the scalar (int, bool, string) or the version or quantity string */
    uint8_t type;       /* LZ_* */
    bool done;          /* val is converted */
    uint32_t obj;       /* LZ_VERSION / LZ_QUANTITY: its object in objs[] */
    cel_value val;
} dev_lazy;

/* The first eight bytes of a name, zero-padded: names that differ there
 * (nearly all that differ) are told apart without comparing them. */
static inline uint64_t dev_tag(const char *s, size_t n)
{
    uint64_t t = 0;
    if (n)
        memcpy(&t, s, n < 8 ? n : 8);
    return t;
}

/* The last eight bytes of a name longer than eight, else 0. */
static inline uint64_t dev_tag2(const char *s, size_t n)
{
    uint64_t t = 0;
    if (n > 8)
        memcpy(&t, s + n - 8, 8);
    return t;
}

/* The device itself: one allocation (struct, entries, the objects of its
 * versions and quantities, driver name), plus the full conversion when
 * made.  It holds a reference to its JSON, whose strings
 * the converted values borrow. */
struct cel_dra_device {
    cel_value fields[DEV_NFIELDS]; /* driver and allowMultipleAllocations (the maps: dra_dev_full) */
    dev_full *full;                /* the full conversion, or NULL until needed */
    json_t *json;                  /* held reference */
    const char *error;             /* the full conversion's errors, when the scan made it */
    const char *list_error;
    cel_dra_convert how;
    const char *driver;
    const char *last_dom;          /* the domain last compared with the driver (a plan's constant) */
    bool last_is_driver;           /* and whether it is the driver's */
    uint32_t nattrs, ncaps, nobjs; /* entries: nattrs attributes, then ncaps capacities */
    cel_object *objs;              /* nobjs objects (in the same allocation), filled on first read */
    dev_lazy ents[];
};

/* The full conversion of d, made on first use (cel/dra.c); d is logically
 * const: only its caches change.  Never NULL. */
const dev_full *dra_dev_full(const cel_dra_device *d);
/* Convert e, an entry of d, into e->val (its first read). */
void dra_dev_lazy_convert(cel_dra_device *d, dev_lazy *e);

#endif
