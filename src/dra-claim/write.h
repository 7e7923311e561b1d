/* dra-claim's output of a run's changes: the changed objects (deleted ones
 * with a deletionTimestamp, named on stderr) or, with --patch, the API
 * operations.  Borrows everything it is given; writes to stdout. */
#ifndef DRA_CLAIM_WRITE_H
#define DRA_CLAIM_WRITE_H

#include <stdbool.h>

#include "lifecycle/claims.h"
#include "model/time.h"

typedef struct dra_claim_out {
    bool patch;
    const char *patch_fmt, *output; /* --patch's format, -o (NULL: yaml) */
    dra_time now_at;                /* the deletionTimestamp of deleted objects */
} dra_claim_out;

DRA_MUST_USE dra_err *dra_claim_write_changes(const dra_claim_out *x, const dra_changes *ch);

#endif
