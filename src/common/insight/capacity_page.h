/* `dra-alloc capacity -o html`: the capacity report (insight/capacity.h) as one
 * self-contained page, drawn from the report's numbers alone:
 *   - per class, the report's row (total ... free, largest fit);
 *   - a heat map, nodes x classes: one square per device, free, used
 *     (allocated or shared), tainted, other (unhealthy, blocked, unusable);
 *     a tainted device in use shows as tainted; the cell's shade follows its
 *     free share; more than DRA_CAPACITY_PAGE_SQUARES devices show as one
 *     bar of the same four parts;
 *   - per pool with shared counters or consumable capacity, one bar per
 *     counter (consumed = total - left, of total);
 *   - per class, fragmentation: its free devices, the nodes they are spread
 *     over, and the largest block one claim gets on one node, overall and
 *     per node.
 * The report is the one `capacity -o json` prints, with each class's
 * "nodes" (--by node) and "pools" (--by pool) rows: a section whose rows are
 * missing is left out.  Elements carry data-* attributes with the numbers
 * they show (data-class, data-node, data-pool, data-free, ...), for tests and
 * scrapers.
 *
 * Quantities are read and subtracted by the rules of f's release (NULL:
 * the defaults), the release the report was made for.
 *
 * Ownership: report and f borrowed; the page is appended to b.  Nothing prints.
 */
#ifndef DRA_INSIGHT_CAPACITY_PAGE_H
#define DRA_INSIGHT_CAPACITY_PAGE_H

#include <jansson.h>

#include "../base/buf.h"
#include "../model/features.h"

#define DRA_CAPACITY_PAGE_SQUARES 64

void dra_capacity_page(const json_t *report, const dra_features *f, dra_buf *b);

#endif
