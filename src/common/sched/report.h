/* What `dra-alloc schedule` tells about a run, and the nodes it schedules
 * onto, where tests and `dra-watch` can reach them.
 *
 * Ownership: dra_sched_nodes borrows Node objects from the model (which must
 * outlive it) and owns the bare nodes it makes; dra_sched_nodes_free().
 */
#ifndef DRA_SCHED_REPORT_H
#define DRA_SCHED_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../model/load.h"
#include "../model/packed.h"
#include "schedule.h"

typedef struct dra_sched_nodes {
    json_t **v;
    size_t n;
    size_t made; /* 0: v are the input's Nodes; else v are bare nodes made from slice nodeNames */
} dra_sched_nodes;

/* The input's Node objects; without any, one bare Node (no labels) per
 * distinct spec.nodeName of the ResourceSlices, in name order. */
void dra_sched_nodes_from_model(const dra_model *m, const dra_slice_packs *packs, dra_sched_nodes *out);
void dra_sched_nodes_free(dra_sched_nodes *n);

/* One pod's outcome and node-by-node trace as the JSON object --explain=json
 * prints for it ({"pod", "outcome", "node", "score", "message", "queue",
 * "nodes", "summary"}); a new reference, the caller's. */
json_t *dra_sched_pod_json(const dra_sched_pod *sp);

/* One pod's outcome and node-by-node trace: a JSON line, or text lines
 * ("pod NS/NAME: node N (score S)", "  queue: #K, priority P (source),
 * created T", then one line per node and rejected device).  Appended to b. */
void dra_sched_pod_trace(const dra_sched_pod *sp, bool json, dra_buf *b);

/* What `schedule` tells people about its pods, appended to b: each pod's
 * trace when explain is set (text or JSON lines), else one line
 * "<prog>: pod NS/NAME: reason" per pod that did not fit or failed.
 * Raises *rc to 1 for a pod that fits nowhere, sets 2 for a failed pod. */
void dra_sched_report_pods(const dra_sched_result *res, const char *prog, bool explain, bool json, dra_buf *b, int *rc);

/* "P pods, S scheduled, ... , T s" */
void dra_sched_stats_format(const dra_sched_stats *st, dra_buf *b);

#endif
