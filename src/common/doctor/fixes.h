/* Doctor's fixes of claims as API operations (private to doctor/).
 *
 * Each fix is computed on the claim as the fixes recorded before it leave it
 * (its working copy in the dra_changes), so the operations of one run apply
 * one after another: an index a later patch tests is the index the element
 * has once the earlier patches are in.  The first operation on a claim tests
 * its UID and the resourceVersion of the input, the later ones the UID and
 * the exact element they touch (cluster/ops.h), so a second run of the same
 * fixes fails its first test instead of changing anything.
 *
 * Every function records nothing when the working copy needs no such fix
 * any more (a fix before it did the work).  The claim is borrowed; reason
 * is copied.
 */
#ifndef DRA_DOCTOR_FIXES_H
#define DRA_DOCTOR_FIXES_H

#include <jansson.h>

#include "../cluster/ops.h"

/* Drop the reservedFor entry naming this resource, name and UID. */
void dra_fix_drop_entry(dra_changes *ch, const json_t *claim, const json_t *entry, const char *reason);
/* Clear status.allocation. */
void dra_fix_deallocate(dra_changes *ch, const json_t *claim, const char *reason);
/* Remove the delete-protection finalizer (a deleting claim is then gone). */
void dra_fix_finalizer(dra_changes *ch, const json_t *claim, const char *reason);
/* Delete the claim, with its UID as precondition. */
void dra_fix_delete(dra_changes *ch, const json_t *claim, const char *reason);

#endif
