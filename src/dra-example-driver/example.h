/* dra-example-driver: the driver's state and handlers (driver.c); main.c
 * parses options and runs the loop. */
#ifndef DRA_EXAMPLE_DRIVER_H
#define DRA_EXAMPLE_DRIVER_H

#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>

#include "base/error.h"
#include "kubelet/checkpoint.h"
#include "kubelet/driver.h"
#include "model/features.h"

typedef struct ex_fault {
    char *uid;
    const char *msg;
} ex_fault;

typedef struct ex_driver {
    const char *name;        /* driver name, also the CDI vendor */
    const char *cdi_dir;     /* where CDI specs are written (absolute after ex_state_open) */
    char *checkpoint;        /* <plugin-dir>/checkpoint.json, owned (ex_state_open) */
    char *cdi_abs;           /* owned copy behind cdi_dir when it was made absolute */
    const char *health_file; /* JSON [{pool, device, health, message}] */
    const char *claims_path; /* ResourceClaims (file or directory), re-read per prepare; NULL: by UID */
    const char *node;        /* pool name */
    int devices;             /* gpu-0 .. gpu-N-1 */
    long delay_ms;           /* answer prepare/unprepare this late */
    ex_fault *fail;          /* --fail-claim UID=MSG */
    size_t nfail;
    char **omit; /* --omit-claim UID */
    size_t nomit;
    char **extra; /* --extra-claim UID */
    size_t nextra;
    bool garbage;     /* answer a truncated frame */
    size_t pad_bytes; /* add CDI IDs until the answer is about this large */
    bool verbose;
    FILE *log; /* stderr */
    unsigned calls;
} ex_driver;

extern const dra_driver_ops ex_ops; /* ctx: ex_driver */

/* The driver's checkpoint (state.c): <plugin-dir>/checkpoint.json in the
 * kubelet's DRA checkpoint format (kubelet/checkpoint.h), one entry per
 * claim the driver prepared, with the devices it answered and, under
 * CDISpecFiles, the paths of the CDI spec files it wrote; unprepare removes
 * exactly those (upstream dra-example-driver keeps checkpoint.json in its
 * plugin directory too, keyed by claim UID).
 *
 * ex_state_open sets d->checkpoint, makes d->cdi_dir absolute (so recorded
 * paths stay right whatever the working directory) and reads the checkpoint
 * once, so a damaged one stops the driver before it serves.  ex_state_free
 * releases what it set. */
DRA_MUST_USE dra_err *ex_state_open(ex_driver *d, const char *plugin_dir);
void ex_state_free(ex_driver *d);
/* mkdir -p dir (0755); the error names the directory that failed. */
DRA_MUST_USE dra_err *ex_mkdirs(const char *dir);
/* Record that `c` gets devices `dv` (CDI IDs set) and spec files `files`
 * (before they are written, so a crash leaves nothing unrecorded).  NULL, or
 * the claim's error (arena). */
const char *ex_state_record(const ex_driver *d, dra_checkpoint *cp, const dra_claim_ref *c, const dra_prep_device *dv,
                            size_t n, char *const *files, size_t n_files, dra_arena *a);
/* Remove the spec files recorded for claim `c` (found by UID) and its
 * entry; a claim not recorded has nothing to remove.  *changed when the
 * checkpoint changed.  NULL, or the claim's error (arena). */
const char *ex_state_forget(const ex_driver *d, dra_checkpoint *cp, const dra_claim_ref *c, dra_arena *a,
                            bool *changed);

/* The device inventory as dra-slice build reads it (JSON on f). */
DRA_MUST_USE dra_err *ex_inventory(const ex_driver *d, FILE *f);
/* The gpu profile's opaque configuration (config.c).  ex_config_decode
 * reads the GpuConfigs of this driver in allocation `alloc` (the class's,
 * then the claim's), *out in arena a; NULL, or the error.
 * ex_config_sharing chooses the config of a device of `request` (the last
 * naming it, else the default), normalizes and validates it and sets the
 * device's sharing env (2 strings, arena); NULL, or the error.
 * ex_env_id is the gpu profile's env ID of a device (gpu-1-a: 1_A). */
typedef struct ex_configs {
    void *v; /* config.c's entries; v[0] the default */
    size_t n;
} ex_configs;
const char *ex_config_decode(const ex_driver *d, const json_t *alloc, dra_arena *a, ex_configs *out);
const char *ex_config_sharing(ex_configs *cs, const char *request, const char *device, dra_arena *a, const char **env,
                              size_t *n_env);
const char *ex_env_id(dra_arena *a, const char *device);

/* The supported versions the driver registers when --services does not say
 * (static storage): what the kubeletplugin library of the release the
 * driver follows offers a plugin that serves DRAPlugin v1 and v1beta1 and
 * DRAResourceHealth (driver.c).  flag is --kubernetes-version (NULL: not
 * given; then $DRA_KUBERNETES_VERSION, else the default release).  Errors
 * (input) name the setting. */
DRA_MUST_USE dra_err *ex_default_services(const char *flag, const char **out);

/* Write the spec of the CDI device every prepared device also gets,
 * <cdi-dir>/k8s.<driver>-gpu_common.yaml (upstream: CreateCommonSpecFile at
 * start). */
DRA_MUST_USE dra_err *ex_cdi_common(const ex_driver *d);

#endif
