/* From an inventory of devices to the ResourceSlices of one pool.
 *
 * This is what a driver's resourceslice controller does when it publishes a
 * pool (staging/src/k8s.io/dynamic-resource-allocation/resourceslice/
 * resourceslicecontroller.go), done offline and deterministically:
 *
 *  - split: shared counter sets go into slices of their own (a v1 slice holds
 *    either `devices` or `sharedCounters`, at most 8 sets each); devices are
 *    cut in order into slices of at most 128, or 64 when a slice holds any
 *    device with taints, consumesCounters or list attributes; an empty
 *    inventory still gives one empty slice ("empty pool" != "no pool");
 *  - name: `<index>-<driver>-<owner>-<suffix>` as upstream's generateName
 *    `<index>-<driver>-<owner>-` (owner = the node for node-local pools, absent
 *    otherwise), the index in hex with at least 5 digits (wider when needed),
 *    the base cut to 58 characters as the API server does, and a 5-character
 *    suffix from the API server's alphabet derived from a hash of
 *    driver, pool and index instead of a random one;
 *  - generation: as syncPool does against the previous slices of the pool; a
 *    new pool starts at generation 1 (the highest existing generation, 0,
 *    bumped because slices have to be created), or at a higher requested one.
 *
 * Ownership: an inventory borrows the JSON it lists from the objects it was
 * filled from (keep the dra_objset alive) and owns its bookkeeping; results own
 * their slices (one reference each).
 */
#ifndef DRA_SLICE_BUILD_H
#define DRA_SLICE_BUILD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "../io/stream.h"
#include "../model/features.h"

/* One device or counter set and where it came from (for error messages). */
typedef struct dra_slice_item {
    json_t *json;       /* borrowed; NULL when held as text */
    const dra_obj *src; /* borrowed; NULL for items made in memory */
    char *field;        /* owned path inside src: "spec.devices[3]", "devices[0]", "" */
    char *text;         /* owned compact JSON while json is NULL (dra_inventory_hold) */
} dra_slice_item;

typedef struct dra_inventory {
    dra_slice_item *devices;
    size_t ndevices, capdevices;
    dra_slice_item *counter_sets;
    size_t ncounter_sets, capcounter_sets;
    /* dra_inventory_add: unknown fields of what it reads are errors
     * (strict, the default), warnings collected here (warn, owned), or
     * dropped (ignore), as --validate says */
    dra_field_validation field_validation;
    dra_errs warnings;
} dra_inventory;

#define DRA_INVENTORY_INIT                                                                                             \
    {                                                                                                                  \
        0                                                                                                              \
    }

/* Add what one read object contributes:
 *   - a ResourceSlice: its spec.devices and spec.sharedCounters (re-slicing);
 *   - a mapping with `devices` (and optional `sharedCounters`): an inventory;
 *   - a mapping without `kind` but with `name`: one device (a list of devices
 *     is flattened into such objects by the reader);
 * anything else is an input error naming the object. */
DRA_MUST_USE dra_err *dra_inventory_add(dra_inventory *inv, const dra_obj *o);
/* Hold the devices from d0 and the counter sets from c0 on as compact text
 * instead of borrowing their JSON (for a streaming read, whose objects are
 * gone after each one; repoint their src at what stays).  A few times
 * smaller than the trees; they are parsed again slice by slice. */
void dra_inventory_hold(dra_inventory *inv, size_t d0, size_t c0);
/* Add one device / counter set held elsewhere (borrowed). */
void dra_inventory_add_device(dra_inventory *inv, json_t *device, const dra_obj *src, const char *field);
void dra_inventory_add_counter_set(dra_inventory *inv, json_t *set, const dra_obj *src, const char *field);
void dra_inventory_free(dra_inventory *inv);

typedef struct dra_slice_opts {
    const char *driver;         /* required */
    const char *node_name;      /* node-local pool: spec.nodeName, and the owner in names */
    bool all_nodes;             /* spec.allNodes */
    json_t *node_selector;      /* spec.nodeSelector (borrowed), a v1 NodeSelector */
    const char *pool;           /* pool name; NULL = node_name */
    int64_t generation;         /* driver-supplied generation; used when > the previous one (0 = none) */
    const dra_objset *previous; /* previously published slices, or NULL */
    /* The release and gates the slices are validated at (borrowed; NULL:
     * DRA_RELEASE_DEFAULT's defaults). */
    const dra_features *features;
    /* From 1.38 on, attribute and capacity names qualified with the driver's
     * own domain are refused, as the publishing helper does (DRA
     * resourceslice/validation.go validatePool); true lets them through, as
     * kubeletplugin.ValidateQualifiedNames(false). */
    bool qualified_names;
} dra_slice_opts;

/* Whether a build with opts refuses names qualified with the driver's domain. */
bool dra_slice_checks_qualified_names(const dra_slice_opts *opts);
/* A device's attribute and capacity names qualified with driver's own
 * domain, one error each in upstream's words ("pool \"P\": device \"D\":
 * attribute \"N\": use unqualified \"X\", the driver name is added
 * implicitly"), the field the name's ("attributes[N]"); NULL when none. */
DRA_MUST_USE dra_err *dra_slice_unqualified_names(const json_t *dev, const char *driver, const char *pool);

typedef struct dra_slice_result {
    json_t **slices; /* owned references, in index order */
    size_t nslices;
    char **obsolete; /* names of previous slices of the pool that must be deleted (owned) */
    size_t nobsolete;
    int64_t generation; /* the pool generation written */
} dra_slice_result;

/* Build the pool's slices.  Checks options and the inventory first (every
 * problem that keeps it from being published: duplicate device or counter
 * set names, "found duplicate device %q in pool %q" as upstream's
 * pre-validation, and dangling counter references, "counter set X not
 * found", "counter X not found in counter set Y"), then validates every
 * built slice with the model validator, and reports each problem at the
 * inventory item it comes from with its file, document, line and field
 * (DRA_EXIT_INPUT, every problem).  On error *out is left empty. */
DRA_MUST_USE dra_err *dra_slice_build(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_result *out);
void dra_slice_result_free(dra_slice_result *r);

/* The same pool, its slices handed to fn one at a time, in index order,
 * each built only when every slice has passed validation (so an inventory
 * with a problem gives no slice at all); out gets the generation and the
 * obsolete names, no slices.  An error fn returns stops it and is returned.
 * With the inventory held as text (dra_inventory_hold), memory follows the
 * text and one slice, not every device's tree. */
typedef dra_err *(*dra_slice_fn)(void *ctx, json_t *slice);
DRA_MUST_USE dra_err *dra_slice_build_each(const dra_slice_opts *opts, const dra_inventory *inv, dra_slice_fn fn,
                                           void *ctx, dra_slice_result *out);

/* The same build over a stream read three times, in the same order each
 * time (files that can be read again): every object of the input is given
 * to dra_slice_builder_read() once a pass, and dra_slice_builder_next()
 * ends a pass.  The first pass counts the devices and holds the counter
 * sets; its end checks the options and the counter sets and plans the
 * slices.  The second checks every device and validates every slice; its
 * end returns every problem, as dra_slice_build does, or decides the
 * generation.  The third gives the slices to fn, one at a time; its end
 * gives the last ones.  Memory follows one slice, the counter sets and 4
 * bytes a device, not the input.  Objects that differ from the first pass
 * (the input changed while read) are a runtime error.
 *
 * Objects are borrowed for the call.  An error from either call ends the
 * build: free it.  Reading problems of the first pass (an object that is
 * not an inventory) are returned by read(), and the object after them is
 * not looked at: the caller may go on reading to find read errors, as a
 * whole read would.  out gets the generation and the obsolete names (free
 * it with dra_slice_result_free), and must outlive the builder. */
typedef struct dra_slice_builder dra_slice_builder;
dra_slice_builder *dra_slice_builder_new(const dra_slice_opts *opts, dra_field_validation fv, dra_slice_fn fn,
                                         void *ctx, dra_slice_result *out);
DRA_MUST_USE dra_err *dra_slice_builder_read(dra_slice_builder *b, const dra_obj *o);
DRA_MUST_USE dra_err *dra_slice_builder_next(dra_slice_builder *b);
/* Unknown fields relaxed by fv in the first pass (owned by the caller). */
DRA_MUST_USE dra_err *dra_slice_builder_warnings(dra_slice_builder *b);
void dra_slice_builder_free(dra_slice_builder *b);

/* The pieces, exposed for tests and for `profile`, which streams. */

/* Cut devices into slices: returns the number of chunks and fills ends[k] =
 * one past the last device of chunk k (ends must hold ndevices+1 entries). */
size_t dra_slice_split_devices(json_t *const *devices, size_t ndevices, size_t *ends);
/* Width of the hex index for a pool of nslices slices (upstream getIndexLength). */
int dra_slice_index_width(size_t nslices);
/* Deterministic slice name; owner may be NULL.  Caller frees. */
char *dra_slice_name(const char *driver, const char *owner, const char *pool, size_t index, size_t nslices);
/* Index encoded in a name with the expected width, or -1 (upstream decodeIndex). */
long dra_slice_decode_index(const char *name, int width);
/* A ResourceSlice object around `content` (steals the reference to content,
 * which is a `devices` or `sharedCounters` array; NULL = empty slice). */
json_t *dra_slice_object(const dra_slice_opts *opts, const char *name, int64_t generation, size_t nslices,
                         const char *content_key, json_t *content);

/* True when the device makes its slice use the 64-device limit: taints,
 * consumesCounters, or (master) list-typed attributes. */
bool dra_slice_device_is_advanced(const json_t *device);
/* Prefix the field path of every error in the chain (dra_err_field_prefix
 * only touches the head).  Returns e. */
DRA_MUST_USE dra_err *dra_slice_err_prefix(dra_err *e, const char *prefix);

/* Semantic equality as upstream's apiequality.Semantic for slice content:
 * absent, null, [] and {} are equal; quantities compare by value;
 * taint timeAdded: absent equals anything, otherwise within one second.
 * Quantities are read by the rules of f's release (NULL: the defaults). */
bool dra_slice_json_equal(const json_t *a, const json_t *b, const dra_features *f);

#endif
