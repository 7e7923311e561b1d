/* Scoring and the FitError summary of the DRA scheduler plugin (score.c).
 * No allocation kept; json_t * arguments are borrowed. */
#ifndef DRA_SCHED_SCORE_H
#define DRA_SCHED_SCORE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* resourceapi.FirstAvailableDeviceRequestMaxSize */
#define DRA_FIRST_AVAILABLE_MAX 8

/* computeScore for one claim: for every firstAvailable request whose
 * subrequest i appears in allocation.devices.results[].request ("req/sub"),
 * add 8 - i.  `allocation` is a status.allocation value (NULL = 0). */
int64_t dra_sched_claim_score(const json_t *claim, const json_t *allocation);
/* The best score a claim could get (every firstAvailable request served by
 * its first subrequest). */
int64_t dra_sched_claim_max_score(const json_t *claim);
/* helper.DefaultNormalizeScore(100, false): scores[i] = 100*scores[i]/max
 * (integer division), unchanged when max is 0. */
void dra_sched_normalize(int64_t *scores, size_t n);

/* FitError text: "0/N nodes are available: 3 cannot allocate all claims, 2
 * resourceclaim not available on the node." with "<count> <reason>" sorted as
 * strings; "no nodes available to schedule pods" when n is 0.  `reasons` has
 * one entry per node.  Caller frees. */
char *dra_sched_fit_error(const char *const *reasons, size_t n);

#endif
