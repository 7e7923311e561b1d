/* `dra-alloc schedule --explain=html`: one pod's explanation as a page,
 * drawn from the object --explain=json prints for it (sched/report.h,
 * dra_sched_pod_json) and nothing else:
 *   - its outcome, place in the queue and the one-sentence summary;
 *   - a table of nodes x requests ("claim / request", in the order the
 *     allocator traces first name them): per cell, each device refused for
 *     that request on that node with the allocator's reason and detail, the
 *     device allocated, and where the search ran short ("needs N, found M");
 *     a node that fits, was not tried, or was refused before allocating gets
 *     one row-wide cell saying so.
 * Rows carry data-node and data-verdict (fits, refused, skipped); cells
 * data-node, data-request and data-refused (the number of devices refused),
 * for tests.
 *
 * Ownership: pod borrowed; the page is appended to b.  Nothing prints.
 */
#ifndef DRA_INSIGHT_EXPLAIN_PAGE_H
#define DRA_INSIGHT_EXPLAIN_PAGE_H

#include <jansson.h>

#include "../base/buf.h"

void dra_explain_page(const json_t *pod, dra_buf *b);

#endif
