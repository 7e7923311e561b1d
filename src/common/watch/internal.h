/* Private to src/common/watch/. */
#ifndef DRA_WATCH_INTERNAL_H
#define DRA_WATCH_INTERNAL_H

#include "watch.h"

/* KIND arguments ("pods", "resourceclaims,nodes") to resources; *out is
 * malloc'd (caller frees). */
DRA_MUST_USE dra_err *dra_watch_kinds(char *const *args, size_t n, const dra_kube_resource ***out, size_t *nout);
/* One watch event as `get -w` prints it. */
DRA_MUST_USE dra_err *dra_watch_put_event(FILE *out, dra_format fmt, dra_kube_event_type t, const json_t *obj);
/* Watch timeoutSeconds and idle limit: the session's, else 300 and 60
 * (session.c). */
int dra_watch_timeout_s(const dra_session *s);
int dra_watch_idle_s(const dra_session *s);

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
DRA_MUST_USE dra_err *dra_watch_specs(dra_session *s, const char *const *kinds, size_t nkinds,
                                      dra_kube_informer_spec *specs, size_t *n);
/* The server's /version ({major, minor, gitVersion, ...}; snapshot.c). */
DRA_MUST_USE dra_err *dra_watch_server_version(dra_session *s, json_t **version);

/* What a pipeline stage printed, in any format the tools print (YAML, JSON,
 * a List, JSON Lines, read as dra_read_mem reads a file named label): its
 * documents in order, each an operation (with "verb", as dra-claim --patch
 * prints them) or an object (with "kind").  *out is a new array. */
DRA_MUST_USE dra_err *dra_watch_read_output(const char *label, const char *data, size_t len, json_t **out);
/* The writes that bring the server's object cur (NULL: none) to obj, a
 * stage's view of it, appended to ops in upstream's order: a create; else an
 * update of the status subresource when status differs, an update when
 * anything else does (server fields, deletionTimestamp and status aside),
 * each with cur's resourceVersion; then, when obj carries a deletionTimestamp
 * and cur does not, a delete with cur's UID and resourceVersion as
 * preconditions.  Nothing when they agree, or when obj is to be deleted and
 * cur is gone. */
void dra_watch_object_ops(const json_t *obj, const json_t *cur, json_t *ops);
#endif
