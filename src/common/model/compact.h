/* ResourceClaims and Pods held as compact records instead of JSON trees.
 *
 * A report over a fleet in use reads a few fields of every claim and pod:
 * as a JSON tree each costs about 5 KiB, as a record a few hundred bytes.
 * A record keeps what the reports read (names, UIDs, allocation results,
 * reservedFor, a pod's claims and node), its strings interned: the same
 * namespace, driver or pool is held once for all records (names and UIDs,
 * which records seldom share, are copied instead).  Records are made
 * from an object as read (converted to v1 and defaulted), which can then be
 * freed at once.
 *
 * Ownership: a dra_compact owns its records, their strings (one arena) and
 * the JSON values a record keeps (references held); records and strings live
 * until dra_compact_free().  A zero-initialised dra_compact (DRA_COMPACT_INIT)
 * is empty.  Building never fails (aborts on OOM).  Strings are NULL where
 * the object has no such string field, as dra_jstr reads it.
 *
 * Whole objects: a report that prints or changes a few of the objects (the
 * claims `dra-claim doctor` fixes, the Pods `dra-evict --apply-at` deletes)
 * asks cp to keep every record's object whole (dra_compact_keep_whole): as
 * its compact JSON text, written to a temporary file (held in the arena
 * when no such file can be made), read back as a new tree when asked.
 * Reading it back can fail (the file unreadable): the object is then
 * missing, and the failure is kept for dra_compact_failure(), which a tool
 * asks before it writes an answer made from the records.
 */
#ifndef DRA_MODEL_COMPACT_H
#define DRA_MODEL_COMPACT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
#include "../base/hash.h"
#include "../io/stream.h"

/* A file a record's object was read from and the apiVersion the input
 * used when reading converted it (else NULL): one per pair in the
 * dra_compact, its strings interned there. */
typedef struct dra_rec_origin {
    const char *file, *served;
} dra_rec_origin;

/* Where a record's object came from, and its text when kept whole (32
 * bytes: a million are held at once). */
typedef struct dra_rec_whole {
    const dra_rec_origin *from; /* file (as dra_obj.file) and served version; NULL when not placed */
    uint64_t at;                /* the text: offset in the temporary file, or its address in the arena */
    int doc, line, item;        /* as dra_obj's */
    uint32_t len : 31;          /* its length */
    uint32_t in_arena : 1;      /* the text is in the arena (no temporary file, or writing it failed) */
} dra_rec_whole;

/* The apiVersion the input used for w's object when reading converted it,
 * else NULL (also for w NULL). */
static inline const char *dra_rec_served(const dra_rec_whole *w)
{
    return w && w->from ? w->from->served : NULL;
}

/* One entry of status.allocation.devices.results. */
typedef struct dra_rec_result {
    const char *request, *driver, *pool, *device, *share_id;
    /* what the driver reported for this device (its status.devices entry of
     * the same driver, pool, device and shareID): an object of its
     * conditions, data and networkData (those present and not null); NULL
     * when it reported nothing; owned by the dra_compact */
    json_t *status;
    bool admin_access; /* adminAccess: true */
    /* consumedCapacity when a non-empty object, else NULL; owned by the
     * dra_compact */
    json_t *consumed;
} dra_rec_result;

/* One entry of status.reservedFor. */
typedef struct dra_rec_consumer {
    const char *api_group, *resource, *name, *uid;
} dra_rec_consumer;

typedef struct dra_claim_rec { /* 80 bytes: half a million are held at once */
    const char *ns, *name, *uid;
    /* the one node the allocation's nodeSelector pins (dra_selector_node):
     * "*" without a selector, NULL when it is no single node or unallocated */
    const char *node;
    dra_rec_result *results;
    dra_rec_consumer *reserved;
    uint32_t nresults, nreserved;
    /* the UIDs of its controller ownerReferences ("" for one without) */
    const char **owners;
    uint32_t nowners;
    bool deleting;        /* metadata.deletionTimestamp set */
    bool allocated;       /* status.allocation set (not null) */
    dra_rec_whole *whole; /* NULL unless cp keeps objects whole */
} dra_claim_rec;

/* One entry of a Pod's spec.resourceClaims (template set) or of its
 * status.resourceClaimStatuses (template NULL). */
typedef struct dra_rec_pod_claim {
    const char *name, *claim, *template;
} dra_rec_pod_claim;

typedef struct dra_pod_rec {
    const char *ns, *name, *uid, *node_name, *phase;
    bool deleting;
    dra_rec_pod_claim *claims;   /* spec.resourceClaims */
    dra_rec_pod_claim *statuses; /* status.resourceClaimStatuses */
    uint32_t nclaims, nstatuses;
    dra_rec_whole *whole; /* NULL unless cp keeps objects whole */
} dra_pod_rec;

typedef struct dra_compact {
    dra_arena arena;    /* records and strings */
    dra_strmap strings; /* interned strings (keys in the arena) */
    dra_claim_rec **claims;
    dra_pod_rec **pods;
    size_t nclaims, npods, capclaims, cappods;
    char *chars;              /* room for dra_compact_own's copies, packed end to end (in the arena) */
    size_t nchars;            /* bytes of it left */
    dra_rec_origin **origins; /* every dra_rec_origin (in the arena) */
    size_t norigins;
    json_t **owned; /* values records keep (device status, consumed capacity) */
    size_t nowned;
    bool keep_whole;  /* records keep their object's text (dra_compact_keep_whole) */
    FILE *spill;      /* where the texts are; NULL: in the arena */
    uint64_t spilled; /* bytes written to spill */
    /* a slot for the first failure to read a text back (owned; NULL until
     * dra_compact_keep_whole): the readers get cp const */
    dra_err **failure;
} dra_compact;

#define DRA_COMPACT_INIT                                                                                               \
    {                                                                                                                  \
        0                                                                                                              \
    }

/* s interned in cp (NULL for NULL): equal strings share one copy. */
const char *dra_compact_str(dra_compact *cp, const char *s);
/* s copied into cp (NULL for NULL), not interned: for the strings few
 * records share (names, UIDs), which would cost a table entry each.  The
 * copies lie end to end, not 16-byte aligned as the arena's blocks. */
const char *dra_compact_own(dra_compact *cp, const char *s);

/* A record of claim (a v1 ResourceClaim, not changed) appended to
 * cp->claims; returns it. */
dra_claim_rec *dra_compact_claim(dra_compact *cp, const json_t *claim);
/* A record of pod (a v1 Pod, not changed) appended to cp->pods. */
dra_pod_rec *dra_compact_pod(dra_compact *cp, const json_t *pod);

/* From now on every record made keeps its object whole (see above). */
void dra_compact_keep_whole(dra_compact *cp);
/* obj's text kept in cp when cp keeps objects whole (the record makers'
 * step), else NULL. */
dra_rec_whole *dra_compact_store(dra_compact *cp, const json_t *obj);
/* Note in w (NULL: nothing) where the record's object o was read and
 * (served, NULL when none) the apiVersion the input used, interned in cp. */
void dra_compact_place(dra_compact *cp, dra_rec_whole *w, const dra_obj *o, const char *served);
/* The object of w as it was made into the record: o->json a new tree (the
 * caller decrefs it), o's location from w (no source text).  False, o
 * cleared, when w is NULL, or when its text cannot be read back (that
 * failure kept in cp for dra_compact_failure). */
bool dra_compact_whole(const dra_compact *cp, const dra_rec_whole *w, dra_obj *o);
/* The first failure of dra_compact_whole to read an object back
 * (DRA_EXIT_RUNTIME; the caller owns it, and cp forgets it), or NULL: an
 * answer made while one failed is missing objects and must not be given. */
DRA_MUST_USE dra_err *dra_compact_failure(const dra_compact *cp);

/* Bytes held (arena and tables), for statistics. */
size_t dra_compact_bytes(const dra_compact *cp);
void dra_compact_free(dra_compact *cp);

#endif
