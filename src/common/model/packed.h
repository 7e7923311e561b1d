/* ResourceSlices held as compact JSON text instead of trees.
 *
 * A tool that holds a whole fleet for the allocator (dra-alloc schedule)
 * keeps each slice as text as it reads it: a device as a JSON tree costs
 * about ten times its text.  The allocator's world reads the slices from the
 * text (dra_alloc_world_input.packs), keeps what it needs of each device,
 * and parses a device's JSON again only while a CEL selector or a constraint
 * needs it.
 *
 * Ownership: a dra_slice_packs owns its packed slices (a few allocations
 * each) and keeps no reference to the objects packed.  dra_slice_packs_free()
 * releases it.  Never fails (aborts on OOM).
 */
#ifndef DRA_MODEL_PACKED_H
#define DRA_MODEL_PACKED_H

#include <jansson.h>
#include <stddef.h>

typedef struct dra_packed_slice {
    char *rest;      /* the slice without spec.devices, compact JSON */
    char *node_name; /* its spec.nodeName when not empty, else NULL */
    size_t n;        /* devices */
    size_t len;      /* bytes of device text, the NULs included */
    char text[];     /* the n devices of spec.devices, compact JSON, each NUL-terminated, in order */
} dra_packed_slice;

typedef struct dra_slice_packs {
    dra_packed_slice **v; /* in the order packed */
    size_t n;
    size_t bytes; /* text held */
} dra_slice_packs;

/* Append slice (not changed) to p as text. */
void dra_slice_pack(dra_slice_packs *p, const json_t *slice);
/* The device after `cur` (NULL: the first); NULL after the last. */
const char *dra_packed_next(const dra_packed_slice *s, const char *cur);
void dra_slice_packs_free(dra_slice_packs *p);

#endif
