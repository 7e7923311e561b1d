/* The watch-event push reader: bytes of a watch response go in as they
 * arrive, complete events come out, nothing is buffered beyond the one event
 * still incomplete.
 *
 * A Kubernetes watch body (application/json) is a stream of WatchEvent
 * objects {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {...}},
 * one per line (apimachinery's streaming JSON encoder writes a newline after
 * each).  Blank lines are skipped; any other line that is not such an object
 * is an error (DRA_EXIT_RUNTIME: the server sent something we cannot read),
 * naming the event number but never echoing its content.
 *
 * Ownership: the reader owns its pending bytes (dra_kube_events_free).  The
 * callback borrows the event's object; json_incref to keep it.
 */
#ifndef DRA_KUBE_EVENTS_H
#define DRA_KUBE_EVENTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../base/error.h"

typedef enum { KUBE_ADDED, KUBE_MODIFIED, KUBE_DELETED, KUBE_BOOKMARK, KUBE_ERROR } dra_kube_event_type;

/* Return non-NULL to stop reading (the error is handed back by feed). */
typedef dra_err *(*dra_kube_event_fn)(void *ud, dra_kube_event_type type, json_t *object);

#define KUBE_EVENT_MAX_BYTES ((size_t)64 << 20) /* one event; larger is an error */

typedef struct dra_kube_event_reader {
    dra_buf pending; /* bytes of the incomplete last line */
    size_t nevents;  /* events delivered so far */
    dra_kube_event_fn fn;
    void *ud;
} dra_kube_event_reader;

void dra_kube_events_init(dra_kube_event_reader *r, dra_kube_event_fn fn, void *ud);
/* Feed bytes; calls fn for every completed event, in order. */
DRA_MUST_USE dra_err *dra_kube_events_feed(dra_kube_event_reader *r, const char *data, size_t len);
/* End of stream: true when bytes of an unfinished event were left (the
 * connection was cut mid-event; they are discarded). */
bool dra_kube_events_truncated(const dra_kube_event_reader *r);
void dra_kube_events_reset(dra_kube_event_reader *r); /* drop pending bytes, keep memory */
void dra_kube_events_free(dra_kube_event_reader *r);

const char *dra_kube_event_type_name(dra_kube_event_type t); /* "ADDED" ... */

/* What a failed watch or list says about the resourceVersion it started
 * from, as client-go's reflector tells (tools/cache/reflector.go
 * isExpiredError and isTooLargeResourceVersionError, over apimachinery's
 * errors.IsResourceExpired, IsGone, IsTimeout and HasStatusCause):
 *   KUBE_RV_EXPIRED    reason Expired or Gone, or 410 without a reason
 *                      apimachinery knows: older than the server's history.
 *   KUBE_RV_TOO_LARGE  the cause ResourceVersionTooLarge, or reason Timeout
 *                      (504 without a known reason) with the cause message
 *                      or a message saying "Too large resource version":
 *                      newer than anything the server has, as after an
 *                      etcd restore.
 * Both mean: list again from the current state.  status: the Status (an
 * ERROR event's object, or the body of a failed answer; NULL or any other
 * value when there is none); http: the answer's HTTP code, 0 for an ERROR
 * event (the Status's own code counts when it has one). */
typedef enum { KUBE_RV_OTHER, KUBE_RV_EXPIRED, KUBE_RV_TOO_LARGE } dra_kube_rv_problem;
dra_kube_rv_problem dra_kube_rv_problem_of(const json_t *status, long http);
bool dra_kube_event_type_parse(const char *s, dra_kube_event_type *t);

#endif
