/* Private to src/common/watch/. */
#ifndef DRA_WATCH_INTERNAL_H
#define DRA_WATCH_INTERNAL_H

#include "watch.h"

/* KIND arguments ("pods", "resourceclaims,nodes") to resources; *out is
 * malloc'd (caller frees). */
DRA_MUST_USE dra_err *dra_watch_kinds(char *const *args, size_t n, const dra_kube_resource ***out, size_t *nout);
/* One watch event as `get -w` prints it. */
DRA_MUST_USE dra_err *dra_watch_put_event(FILE *out, dra_format fmt, dra_kube_event_type t, const json_t *obj);
/* get -w from a recording. */
DRA_MUST_USE dra_err *dra_replay_get(dra_session *s, const dra_kube_resource **rs, size_t n, const dra_get_opts *o, FILE *out);
/* Watch timeoutSeconds and idle limit ($DRA_WATCH_TIMEOUT / $DRA_WATCH_IDLE override, for tests). */
int dra_watch_timeout_s(void);
int dra_watch_idle_s(void);



/* Claims a pod uses, as "ns/name" keys added to set (a JSON object):
 * spec.resourceClaims[].resourceClaimName, status.resourceClaimStatuses[]
 * (claims from templates) and status.extendedResourceClaimStatus. */
void dra_watch_pod_claims(const json_t *pod, json_t *set);

/* Replay: call fn for every recorded event in order, at the recorded pace
 * unless replay_fast.  fn returning an error with code 0 ends early, cleanly. */
typedef dra_err *(*dra_replay_fn)(void *ud, dra_kube_event_type t, json_t *obj);
DRA_MUST_USE dra_err *dra_replay_each(dra_session *s, dra_replay_fn fn, void *ud);
/* Informer specs for the DRA kinds the server serves; specs has room for 16. */
DRA_MUST_USE dra_err *dra_watch_dra_specs(dra_session *s, dra_kube_informer_spec *specs, size_t *n);
/* The same for the named resources. */
DRA_MUST_USE dra_err *dra_watch_specs(dra_session *s, const char *const *kinds, size_t nkinds, dra_kube_informer_spec *specs, size_t *n);
/* The server's /version ({major, minor, gitVersion, ...}; snapshot.c). */
DRA_MUST_USE dra_err *dra_watch_server_version(dra_session *s, json_t **version);

#endif
