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
 * due when evictAt <= now (ns since the epoch). */
json_t *dra_evict_record_json(const dra_evict_record *r, int64_t now);
/* NAMESPACE POD CLAIM DEVICE TAINT EVICT-AT WHEN SOURCE */
DRA_MUST_USE dra_err *dra_evict_records_table(FILE *f, const dra_evict_result *res, int64_t now);
/* NAME EFFECT STATUS REASON MESSAGE (the EvictionInProgress condition) */
DRA_MUST_USE dra_err *dra_evict_rules_table(FILE *f, const dra_evict_result *res);

#endif
