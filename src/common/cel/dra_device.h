/* Private to cel/dra.c and cel/dra_plan.c: a converted device as the
 * compiled plans read it (built by dra.c, read by dra_plan.c). */
#ifndef DRA_CEL_DRA_DEVICE_H
#define DRA_CEL_DRA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
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

/* A device is built in a scratch arena and then moved into one allocation of
 * exactly the bytes it uses, the struct first (see device_compact); `arena`
 * is set only when the build did not fit one arena block, and then the
 * struct lives in that arena. */
struct cel_dra_device {
    dra_arena arena;
    cel_value value;               /* the `device` map */
    cel_value fields[DEV_NFIELDS]; /* its values, for compiled plans */
    dev_table attrs, caps;         /* attributes / capacity by (domain, name), for compiled plans */
    const char *error;             /* conversion error shared by every match, or NULL */
    const char *list_error; /* "attribute X: unsupported attribute value" for the first list attribute, or NULL */
    size_t size;            /* bytes of the one allocation; 0 with an arena */
};

#endif
