/* ResourceSlice device lists held as compact JSON text instead of trees.
 *
 * A tool that holds a whole fleet (dra-alloc schedule) moves each slice's
 * spec.devices out of its tree as it reads it: a device as a JSON tree costs
 * about ten times its text.  The allocator's world reads the devices from the
 * text (dra_alloc_world_input.packs) and parses one again only when a CEL
 * selector or a constraint needs its attributes.
 *
 * Ownership: a dra_slice_packs owns its packed lists (one allocation each);
 * it borrows the slice objects only as keys (it never reads them after
 * dra_slice_pack).  dra_slice_packs_free() releases it.  Never fails (aborts
 * on OOM).
 */
#ifndef DRA_MODEL_PACKED_H
#define DRA_MODEL_PACKED_H

#include <jansson.h>
#include <stddef.h>

#include "../base/hash.h"

typedef struct dra_packed_devices {
    const json_t *slice; /* the key: the slice object the devices came from */
    size_t n;            /* devices */
    size_t len;          /* bytes of text, the NULs included */
    char text[];         /* n compact JSON objects, each NUL-terminated, in order */
} dra_packed_devices;

typedef struct dra_slice_packs {
    dra_strmap by_slice; /* slice pointer's bytes -> dra_packed_devices * */
    dra_packed_devices **v;
    size_t n;
    size_t bytes;        /* text held, for reports */
} dra_slice_packs;

/* Move slice's spec.devices (an array) out of the tree into p.  A slice
 * without a devices array is left as it is and gets no entry. */
void dra_slice_pack(dra_slice_packs *p, json_t *slice);
/* The packed devices of slice, or NULL when it was not packed. */
const dra_packed_devices *dra_slice_packed(const dra_slice_packs *p, const json_t *slice);
/* The device after `cur` (NULL: the first); NULL after the last. */
const char *dra_packed_next(const dra_packed_devices *d, const char *cur);
void dra_slice_packs_free(dra_slice_packs *p);

#endif
