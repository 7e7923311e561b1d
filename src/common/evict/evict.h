/* Device-taint eviction as upstream's devicetainteviction controller computes
 * it (dra.md §7, dra-corrections.md E7-1..E7-7; upstream
 * pkg/controller/devicetainteviction/device_taint_eviction.go).
 *
 * Taints come from the devices of each pool's newest generation of
 * ResourceSlices and from DeviceTaintRules (gate DRADeviceTaintRules); only
 * NoExecute taints evict.  Per allocated claim the tolerations of each
 * allocation result count when their effect is exactly NoExecute; a matching
 * toleration without tolerationSeconds ignores the taint, otherwise the
 * smallest tolerationSeconds (negative as 0) delays it from timeAdded (whole
 * seconds, as metav1.Time is stored) by time.Duration(s) * time.Second, which
 * wraps around past about 292 years as Go's does (a warning says so).  A pod
 * is evicted at the earliest time over its claims: it must be bound, use the
 * claim (template claims owned by it) and be listed in reservedFor by UID.
 *
 * Rule selectors: a rule without deviceSelector selects nothing upstream (the
 * result carries a warning), in every release; opts.all_devices treats it as
 * "all devices", as 1.36's scheduler did (kubernetes#141422; from 1.37 on the
 * scheduler also selects none, kubernetes#141648).
 *
 * Ownership: dra_evict_result owns its arrays, the warning strings, the
 * rule objects it returns and the claims and Pods made from records that
 * its records name; records borrow the rest from the dra_cluster, which
 * must outlive the result.  dra_evict_result_free() releases it.
 */
#ifndef DRA_EVICT_EVICT_H
#define DRA_EVICT_EVICT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"
#include "../base/problems.h"
#include "../cluster/cluster.h"
#include "../cluster/ops.h"
#include "../model/features.h"

/* Field manager of the eviction controller in kube-controller-manager. */
#define DRA_EVICT_CONTROLLER_NAME "device-taint-eviction-controller"

typedef struct dra_evict_opts {
    dra_time now;
    bool all_devices;             /* a rule without deviceSelector selects every device */
    const dra_features *features; /* NULL: defaults */
    bool apply;                   /* record the changes made at apply_at */
    dra_time apply_at;            /* with apply: evict every pod due at this time */
} dra_evict_opts;

/* Where a taint comes from (upstream's trackedTaint). */
typedef struct dra_taint_src {
    const json_t *rule;  /* a DeviceTaintRule, or NULL for a slice taint */
    const json_t *slice; /* the ResourceSlice holding the device (slice taints) */
    const char *device;  /* device name (slice taints) */
    int taint_index;     /* index in the device's taints (slice taints) */
    const json_t *taint; /* {key, value, effect, timeAdded} */
} dra_taint_src;

/* "DeviceTaintRule NAME" or "ResourceSlice NAME DRIVER/POOL/DEVICE taint #I"; caller frees. */
char *dra_taint_src_string(const dra_taint_src *s);
/* "key=value:NoExecute" (without "=value" when empty); caller frees. */
char *dra_taint_string(const json_t *taint);

/* One (pod, claim, device, taint) that makes the pod go.  A claim with an
 * eviction time but no pod to evict gets records with pod == NULL. */
typedef struct dra_evict_record {
    const json_t *pod; /* NULL: claim-level record */
    const json_t *claim;
    const json_t *result; /* status.allocation.devices.results[i] */
    dra_taint_src src;
    bool taint_has_time;     /* false when the taint has no timeAdded */
    dra_time taint_evict_at; /* this taint on this device */
    bool has_time;           /* the pod (or claim) has an eviction time */
    dra_time evict_at;       /* the pod's (or claim's) eviction time */
    bool pod_deleting;       /* already being deleted: nothing left to do */
} dra_evict_record;

typedef struct dra_evict_result {
    dra_evict_record *v;
    size_t n, cap;
    dra_problems warnings; /* one line (msg) each, for stderr */
    json_t **rules;        /* every DeviceTaintRule with status.conditions as upstream sets them; owned */
    size_t nrules;
    /* claims and Pods held as records, made into the objects the records
     * name; owned */
    dra_obj **made;
    size_t nmade;
} dra_evict_result;

#define DRA_EVICT_RESULT_INIT                                                                                          \
    {                                                                                                                  \
        0                                                                                                              \
    }

void dra_evict_result_free(dra_evict_result *r);
/* Keep only the records of namespace ns (a pod's, or a claim's for a
 * claim-level record), in their order; ns NULL keeps all (-n/-A). */
void dra_evict_keep_namespace(dra_evict_result *r, const char *ns);

/* Compute eviction records (sorted by evict-at, namespace, pod, claim, device,
 * reason order) and rule status.  With opts->apply, also record in changes (may
 * be NULL otherwise) what the controller does at apply_at for every due pod
 * not yet being deleted: the DisruptionTarget condition (status patch, when it
 * changes) then a DELETE with a UID precondition; rule status counts those
 * pods as evicted.  Input errors (invalid rules, slices, taints) are
 * DRA_EXIT_INPUT. */
DRA_MUST_USE dra_err *dra_evict_compute(const dra_cluster *c, const dra_evict_opts *opts, dra_evict_result *out,
                                        dra_changes *changes);

/* The devices of a cluster as the eviction controller sees them, indexed
 * once for many questions (`dra-claim doctor` asks about every allocated
 * device): the newest generation of each pool, the claims' allocated
 * devices, the DeviceTaintRules.  Borrows c, which must outlive it; copies
 * opts (NULL: defaults).  Free with dra_evict_view_free. */
typedef struct dra_evict_view dra_evict_view;
dra_evict_view *dra_evict_view_new(const dra_cluster *c, const dra_evict_opts *opts);
void dra_evict_view_free(dra_evict_view *v);

/* NoExecute taints that apply to one allocated device of v's claims now
 * (slice taints of the newest pool generation, then NoExecute rules),
 * without tolerations.  Returns the number found and fills up to max. */
size_t dra_evict_view_taints(const dra_evict_view *v, const char *driver, const char *pool, const char *device,
                             dra_taint_src *srcs, size_t max);

/* Whether an allocation result's tolerations ignore the taint for good (a
 * matching NoExecute toleration without tolerationSeconds; from 1.38 on
 * also one without effect).  features NULL: the default release. */
bool dra_evict_tolerated_forever(const json_t *result, const json_t *taint, const dra_features *features);

/* Whether the newest generation of the pool publishes an allocated device
 * of v's claims; *pool_known says whether any slice of the pool exists. */
bool dra_evict_view_published(const dra_evict_view *v, const char *driver, const char *pool, const char *device,
                              bool *pool_known);

#endif
