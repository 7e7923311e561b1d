/* dra-example-driver: the driver's state and handlers (driver.c); main.c
 * parses options and runs the loop. */
#ifndef DRA_EXAMPLE_DRIVER_H
#define DRA_EXAMPLE_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "kubelet/driver.h"

typedef struct ex_fault {
    char *uid;
    char *msg;
} ex_fault;

typedef struct ex_driver {
    const char *name;          /* driver name, also the CDI vendor */
    const char *cdi_dir;       /* where CDI specs are written */
    const char *health_file;   /* JSON [{pool, device, health, message}] */
    const char *claims_path;   /* ResourceClaims (file or directory), re-read per prepare; NULL: by UID */
    const char *node;          /* pool name */
    int devices;               /* gpu-0 .. gpu-N-1 */
    long delay_ms;             /* answer prepare/unprepare this late */
    ex_fault *fail;            /* --fail-claim UID=MSG */
    size_t nfail;
    char **omit;               /* --omit-claim UID */
    size_t nomit;
    char **extra;              /* --extra-claim UID */
    size_t nextra;
    bool garbage;              /* answer a truncated frame */
    size_t pad_bytes;          /* add CDI IDs until the answer is about this large */
    bool verbose;
    FILE *log;                 /* stderr */
    unsigned calls;
} ex_driver;

extern const dra_driver_ops ex_ops; /* ctx: ex_driver */

/* The device inventory as dra-slice build reads it (JSON on f). */
DRA_MUST_USE dra_err *ex_inventory(const ex_driver *d, FILE *f);

#endif
