/* Node selectors and node features as the scheduler reads them (nodesel.c).
 * All pointers are borrowed for the call; nothing is kept. */
#ifndef DRA_MODEL_NODESEL_H
#define DRA_MODEL_NODESEL_H

#include <jansson.h>
#include <stdbool.h>

#include "../base/error.h"

/* NodeSelector matching as the scheduler's nodeaffinity package: terms are
 * ORed, requirements ANDed, matchFields support metadata.name only.  Errors
 * for malformed selectors (unknown operator, wrong number of values). */
DRA_MUST_USE dra_err *dra_node_selector_match(const json_t *selector, const json_t *node, bool *matched);

/* Whether a slice or device targets node (named node_name; node may be
 * NULL when the server has no Node object) as the scheduler's pool
 * gathering reads it: its nodeName (name) is the node's, or allNodes
 * (all), or its nodeSelector (sel; NULL: none) matches.  None of the
 * three set: false.  A selector that does not parse is an error, "failed
 * to parse node selector SEL: ..." (*match false). */
DRA_MUST_USE dra_err *dra_node_target_match(const json_t *node, const char *node_name, const char *name, bool all,
                                            const json_t *sel, bool *match);

/* Whether the Node lists `feature` in status.declaredFeatures (Node
 * Declared Features, as the scheduler reads them). */
bool dra_node_declares_feature(const json_t *node, const char *feature);

/* Whether an allocation result (status.allocation) has a device with a
 * non-empty skipNodeOperations: such a claim may only be used on a node that
 * declares DRAOptionalNodeOperations (KEP-5945, the dynamicresources Filter
 * of an allocated claim). */
bool dra_allocation_skips_node_operations(const json_t *allocation);

/* The one node a NodeSelector pins (matchFields metadata.name or
 * kubernetes.io/hostname In [one value]); "*" for no selector; NULL else
 * (borrowed from sel). */
const char *dra_selector_node(const json_t *sel);

#endif
