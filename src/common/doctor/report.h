/* Read-only views of a cluster dump: `dra-claim doctor` findings and the
 * `dra-claim status` table.
 *
 * Ownership: dra_findings owns its strings (dra_problems_free); the status
 * rows are JSON objects the caller decrefs.  The cluster is only read.
 */
#ifndef DRA_DOCTOR_REPORT_H
#define DRA_DOCTOR_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "../base/error.h"
#include "../base/problems.h"
#include "../model/features.h"
#include "../model/nodesel.h"
#include "../cluster/cluster.h"
#include "../cluster/ops.h"
#include "../io/stream.h"
#include "../io/table.h"

/* Findings are the list of problems (base/problems.h): object
 * "ResourceClaim/ns/name" or "Pod/ns/name", msg one line, fix one shell
 * command line; release with dra_problems_free(). */
typedef dra_problem dra_finding;
typedef dra_problems dra_findings;
#define DRA_FINDINGS_INIT DRA_PROBLEMS_INIT

typedef struct dra_doctor_opts {
    const char *dump;             /* how fixes that rerun a tool name the input ("dump.yaml"); NULL: "DUMP" */
    const dra_features *features; /* NULL: defaults */
    dra_time now;                 /* for taint rules' view */
    /* NULL, or where the fixes that are writes to claims go as operations
     * (dra-claim doctor --patch): those findings are then left out of the
     * list, which keeps the ones fixed otherwise (pods to delete or
     * recreate, tools to run).  The caller owns the changes. */
    dra_changes *ops;
} dra_doctor_opts;

/* Every stuck or suspicious claim and pod, in input order (claims, then pods):
 * reservedFor naming missing, replaced or done pods; deleting claims held by
 * the finalizer without users; allocations from pools, devices or nodes that
 * are gone (checked only when the dump has slices / nodes); devices with
 * NoExecute taints; generated claims without an owning pod; pods referring to
 * claims that are missing, not created yet or owned by another pod. */
void dra_doctor(const dra_cluster *c, const dra_doctor_opts *opts, dra_findings *out);

/*
 * Fixes that are writes to claims (dropping stale reservedFor entries,
 * clearing an allocation, removing the delete-protection finalizer, deleting
 * an orphaned generated claim) are computed one after another, each on the
 * claim as the fixes before it leave it (doctor/fixes.h): run in the order
 * given they all apply, and run again they fail their first precondition.
 * Such a finding's fix is its kubectl commands joined by "&&" (with the
 * preconditions: the claim's UID, the input's resourceVersion on the first
 * write to it, the element each patch touches; deletes with the UID), or
 * "# the fix above does it" when an earlier fix did its work.
 */

/* "OBJECT: problem; fix: command" lines. */
DRA_MUST_USE dra_err *dra_findings_write(FILE *f, const dra_findings *fs);

/* One status row per claim (input order):
 *   {"apiVersion":"dra-tools/v1alpha1","kind":"ClaimStatus","metadata":{"namespace","name"},
 *    "state":"pending|allocated|reserved|deleting",
 *    "devices":[{"request","driver","pool","device"}], "node": NAME | "*" (any node) | null,
 *    "users":[{"resource","name","uid"}]}
 * Returns a new array (caller decrefs). */
json_t *dra_claim_status_rows(const dra_cluster *c);
/* The rows of dra_claim_status_rows written to f as fmt (json, yaml or
 * jsonl, as dra_write_array writes them), each made, written and dropped.
 * Reads c only. */
DRA_MUST_USE dra_err *dra_claim_status_write(FILE *f, const dra_cluster *c, dra_format fmt, const char *ns);
/* Classic DRA claims (resource.k8s.io/v1alpha2), appended to rows in input
 * order (dra_claim_status_rows does it): state also "deallocating"
 * (deallocationRequested); devices [{"driver","data"}] from the resource
 * handles; node from availableOnNodes; and
 *   "classic": {"resourceClassName","allocationMode","driverName",
 *               "parametersRef","shareable","deallocationRequested",
 *               "scheduling": {"podSchedulingContext","selectedNode",
 *                              "potentialNodes","unsuitableNodes"}}
 * where scheduling is the PodSchedulingContext of the pod that owns, uses or
 * names the claim (classic.c). */
void dra_classic_status_rows(const dra_cluster *c, json_t *rows);
/* "WaitForFirstConsumer; selected node-1; potential 3; unsuitable node-2"
 * for a classic row, NULL for others; caller frees. */
char *dra_classic_negotiation_text(const json_t *row);
/* The table of c's claims (the rows of dra_claim_status_rows, made one at a
 * time and dropped once written into cells): NAMESPACE NAME STATE DEVICES
 * NODE USERS, and NEGOTIATION when there are classic claims.  DEVICES shows
 * the first device and how many more there are; `wide` lists them all (-o
 * wide).  Only the claims of namespace ns when not NULL (-n), here and in
 * dra_claim_status_write.  Reads c only. */
DRA_MUST_USE dra_err *dra_claim_status_table(FILE *f, const dra_cluster *c, bool wide, const char *ns);

/* The node an allocation is pinned to (nodeSelector matchFields metadata.name
 * or kubernetes.io/hostname In [one value]); "*" without nodeSelector; NULL
 * for other selectors.  Borrowed from the claim. */
const char *dra_allocation_node(const json_t *claim);

#endif
