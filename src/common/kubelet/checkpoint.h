/* The node's record of prepared claims: which ResourceClaims are prepared
 * for which pods, and what each driver returned for them.
 *
 * File format: the kubelet's own DRA checkpoint (pkg/kubelet/cm/dra/state,
 * checkpoint.go), so a kubelet's `dra_manager_state` can be read too:
 *
 *   {"Data":"<JSON text>","Checksum":<CRC-32 (IEEE) of the Data bytes>}
 *
 * where Data is
 *
 *   {"kind":"DRACheckpoint","apiVersion":"checkpoint.dra.kubelet.k8s.io/v1",
 *    "Entries":[{"ClaimUID":..,"ClaimName":..,"Namespace":..,
 *                "PodUIDs":{"<pod uid>":{}},
 *                "DriverState":{"<driver>":{"Devices":[{"PoolName":..,"DeviceName":..,
 *                   "ShareID":null|"..","RequestNames":[..],"CDIDeviceIDs":[..]}],
 *                   "SkipNodeOperations":["NodePrepareResources","NodeUnprepareResources"],
 *                   "CDISpecFiles":["/var/run/cdi/.."]}},
 *                "Prepared":true,"PodNames":{"<pod uid>":"<ns>/<name>"}}]}
 *
 * `SkipNodeOperations` (DRAOptionalNodeOperations, KEP-5945) is the set of
 * driver calls that every device of that driver in the claim's allocation
 * skips, computed once when the claim is first recorded and kept so that an
 * unprepare follows what the prepare saw.  Upstream keeps this set in the
 * claim's checkpointed state too; its JSON name there is not published in a
 * form we could read, so a kubelet may not share it.  Written only when not
 * empty; unknown values are ignored when read ("*" means both).
 *
 * `CDISpecFiles` (in a driver's state, next to Devices) is ours too: the CDI
 * spec files the driver wrote for the claim, as dra-example-driver records
 * them in its own checkpoint so that unprepare removes exactly those.
 * Written only when not empty, so dra-prepare's files do not change.  A
 * state without it (an older checkpoint, or any kubelet's) names no files:
 * nothing is ever derived from file names or CDI device IDs.
 *
 * `Prepared` and `PodNames` are ours (the kubelet ignores unknown fields): a
 * kubelet keeps "prepared" in memory only and calls the driver again after a
 * restart; every dra-prepare run is such a restart, so the flag is stored.
 * An entry without it counts as not prepared (the driver is called again,
 * which drivers must tolerate).
 *
 * A checksum mismatch, a Data that is not the expected JSON, or a wrong type
 * anywhere is an error (DRA_EXIT_RUNTIME) naming the file and field path; a
 * damaged checkpoint is never silently reset, because its claims would then
 * never be unprepared.
 *
 * Ownership: a dra_checkpoint owns everything reachable from it (one arena);
 * dra_ckpt_free releases it.  Strings passed to the mutators are copied.
 */
#ifndef DRA_KUBELET_CHECKPOINT_H
#define DRA_KUBELET_CHECKPOINT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "kubelet/rpc.h"

#define DRA_CKPT_KIND "DRACheckpoint"
#define DRA_CKPT_API_VERSION "checkpoint.dra.kubelet.k8s.io/v1"
#define DRA_CKPT_MAX_BYTES ((size_t)256 << 20)

typedef struct dra_ckpt_device {
    char *pool, *device;
    char *share_id;  /* NULL when the driver sent none */
    char **requests; /* request names as the driver reported them */
    size_t n_requests;
    char **cdi_ids;
    size_t n_cdi_ids;
} dra_ckpt_device;

/* Bits of dra_ckpt_driver.skip (resource/v1 SkipNodeOperation). */
enum { DRA_SKIP_PREPARE = 1, DRA_SKIP_UNPREPARE = 2, DRA_SKIP_ALL = 3 };

typedef struct dra_ckpt_driver {
    char *name;
    dra_ckpt_device *devices;
    size_t n_devices;
    unsigned skip;     /* DRA_SKIP_* bits: driver calls not made for this claim */
    char **spec_files; /* CDISpecFiles: what the driver wrote for the claim */
    size_t n_spec_files;
} dra_ckpt_driver;

typedef struct dra_ckpt_pod {
    char *uid;
    char *name; /* "ns/name", NULL when unknown (kubelet files) */
} dra_ckpt_pod;

typedef struct dra_ckpt_claim {
    char *uid, *name, *namespace_;
    dra_ckpt_pod *pods;
    size_t n_pods, cap_pods;
    dra_ckpt_driver *drivers; /* every driver in the allocation, devices once prepared */
    size_t n_drivers;
    bool prepared;
} dra_ckpt_claim;

typedef struct dra_checkpoint {
    dra_arena arena;
    dra_ckpt_claim *claims; /* in the arena; order is kept, written sorted by namespace/name */
    size_t n, cap;
} dra_checkpoint;

#define DRA_CHECKPOINT_INIT                                                                                            \
    {                                                                                                                  \
        DRA_ARENA_INIT, 0, 0, 0                                                                                        \
    }

/* CRC-32 (IEEE 802.3, as Go's hash/crc32.ChecksumIEEE). */
uint32_t dra_crc32(const void *data, size_t len);

/* Parse a checkpoint file's bytes; `name` is used in errors.  `out` must be
 * zeroed; on error it is left empty.  Empty input (0 bytes) is an error: a
 * missing file is the caller's "no checkpoint yet". */
DRA_MUST_USE dra_err *dra_ckpt_parse(const char *data, size_t len, const char *name, dra_checkpoint *out);
/* The file's bytes (entries sorted by namespace/name, pods by UID). */
void dra_ckpt_serialize(const dra_checkpoint *cp, dra_buf *out);
void dra_ckpt_free(dra_checkpoint *cp);

/* The DRA_SKIP_* bits of one skipNodeOperations list (a JSON array of
 * strings, NULL or not an array = 0): "*" is every operation, unknown values
 * are ignored as the kubelet must. */
unsigned dra_skip_ops_mask(const json_t *ops);

/* Lookups and changes. */
dra_ckpt_claim *dra_ckpt_find(dra_checkpoint *cp, const char *ns, const char *name);
/* The first entry with this claim UID, or NULL. */
dra_ckpt_claim *dra_ckpt_find_uid(dra_checkpoint *cp, const char *uid);
/* A new, unprepared entry (no pods, no drivers). */
dra_ckpt_claim *dra_ckpt_add(dra_checkpoint *cp, const char *ns, const char *name, const char *uid);
void dra_ckpt_remove(dra_checkpoint *cp, dra_ckpt_claim *c);
bool dra_ckpt_has_pod(const dra_ckpt_claim *c, const char *pod_uid);
/* Adds the reference (updating the name when one is given); true when new. */
bool dra_ckpt_add_pod(dra_checkpoint *cp, dra_ckpt_claim *c, const char *pod_uid, const char *pod_name);
void dra_ckpt_remove_pod(dra_ckpt_claim *c, const char *pod_uid);
/* The driver's entry, created (without devices) when missing. */
dra_ckpt_driver *dra_ckpt_driver_get(dra_checkpoint *cp, dra_ckpt_claim *c, const char *driver);
/* The driver's entry with these devices (copied), replacing those it had. */
dra_ckpt_driver *dra_ckpt_set_devices(dra_checkpoint *cp, dra_ckpt_claim *c, const char *driver,
                                      const dra_prep_device *devs, size_t n);
/* Adds a CDISpecFiles path unless it is listed already. */
void dra_ckpt_driver_add_file(dra_checkpoint *cp, dra_ckpt_driver *d, const char *path);

/* A checkpoint file held under its lock.
 *
 * dra_ckpt_open takes an exclusive flock(2) on "<path>.lock" (created 0600;
 * a symbolic link or anything but a regular file there is an error, never
 * followed), waiting for other runs to finish, then reads <path> (missing =
 * empty).  dra_ckpt_save replaces <path> through base/wfile.h: a fresh
 * temporary file in its directory (0600), fsynced, renamed over it, the
 * directory fsynced; unless the bytes are those the file holds already (as
 * read or last saved), when nothing is written.  dra_ckpt_close releases the
 * lock and everything (NULL is fine). */
typedef struct dra_ckpt_file {
    char *path;
    int lock_fd;
    dra_checkpoint cp;
    dra_buf disk; /* the file's bytes as read or last saved */
    bool on_disk; /* false: no file yet */
} dra_ckpt_file;

DRA_MUST_USE dra_err *dra_ckpt_open(const char *path, dra_ckpt_file **out);
DRA_MUST_USE dra_err *dra_ckpt_save(dra_ckpt_file *f);
void dra_ckpt_close(dra_ckpt_file *f);

#endif
