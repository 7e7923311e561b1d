/* What changed between two allocation results or two dumps (`dra-alloc
 * diff A B`): per ResourceClaim, its devices (allocation results), node
 * (allocation.nodeSelector), config (allocation.devices.config) and
 * reservations (status.reservedFor); per Pod, its node (spec.nodeName).
 *
 * The report:
 *   {"changes": [{"kind", "namespace", "name", "change": "changed|added|removed",
 *                 "allocated": {"from", "to"}            (when it changed)
 *                 "devices": {"removed": [R], "added": [R]}  R = {request, driver, pool, device}
 *                 "node": {"from", "to"}                 (null: not allocated / not bound)
 *                 "config": {"from", "to"}
 *                 "reservations": {"removed": [name], "added": [name]}}],
 *    "summary": {"claims", "changed", "added", "removed", "unchanged",
 *                "devices", "node", "config", "reservations", "pods", "podsMoved"}}
 * Claims in A's order, then those only in B; then pods the same way.
 *
 * Ownership: the models (or records) are borrowed; the report belongs to the caller.
 * Nothing here prints or exits.
 */
#ifndef DRA_INSIGHT_DIFF_H
#define DRA_INSIGHT_DIFF_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/buf.h"
#include "../model/compact.h"
#include "../model/load.h"

/* The report (a new object).  Never fails. */
json_t *dra_diff_models(const dra_model *a, const dra_model *b);
/* The same over two lists of ResourceClaims (borrowed), matched by
 * namespace and name (pods: none). */
json_t *dra_diff_claim_lists(json_t *const *a, size_t na, json_t *const *b, size_t nb);
/* The same over the claims and Pods of two sets of records that keep their
 * objects whole (model/compact.h, dra_compact_keep_whole; borrowed), in
 * input order: objects are made again one pair at a time and dropped. */
json_t *dra_diff_records(const dra_compact *a, const dra_compact *b);
/* Whether the report has any change. */
bool dra_diff_differs(const json_t *report);
/* One line per change, then the summary line, appended to out. */
void dra_diff_text(const json_t *report, dra_buf *out);

/* The node an allocation's nodeSelector names: the one metadata.name of a
 * single matchFields term, "" for none (any node), else the selector as
 * compact JSON.  Caller frees; NULL for a NULL selector and allocated false. */
char *dra_diff_alloc_node(const json_t *allocation);

#endif
