/* How `dra-evict` shows its results: eviction records as objects
 * (dra-tools/v1alpha1 Eviction) and as a table, DeviceTaintRule status as a
 * table.  Tables go to f; write errors are DRA_EXIT_RUNTIME.
 *
 * Ownership: results are borrowed; the record object is new (caller decrefs).
 */
#ifndef DRA_EVICT_REPORT_H
#define DRA_EVICT_REPORT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/error.h"
#include "evict.h"

/* {apiVersion, kind: Eviction, pod, claim, device, taint, source, taintEvictAt?, evictAt, due, podDeleting?, note?};
 * due when evictAt <= now. */
json_t *dra_evict_record_json(const dra_evict_record *r, dra_time now);
/* NAMESPACE POD CLAIM DEVICE TAINT EVICT-AT WHEN SOURCE; WHEN is "due",
 * "deleting" or "in 1h2m3s" (whole seconds, exact for any two times). */
DRA_MUST_USE dra_err *dra_evict_records_table(FILE *f, const dra_evict_result *res, dra_time now);
/* NAME EFFECT STATUS REASON MESSAGE (the EvictionInProgress condition) */
DRA_MUST_USE dra_err *dra_evict_rules_table(FILE *f, const dra_evict_result *res);

#endif
