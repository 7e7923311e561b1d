/* The loop's health endpoints: `dra-watch run --health-addr HOST:PORT`.
 *
 *   /healthz  200 "ok" while the process answers (liveness)
 *   /readyz   200 "ok" after the first successful pass; 503 before
 *   /metrics  Prometheus text format (version 0.0.4): the client's counters
 *             (--stats' requests, events, relists, resumes, writes,
 *             conflicts, retries, reauths as dra_watch_*_total), passes,
 *             failed passes, the last pass's duration and readiness
 *
 * A thread of its own accepts and answers one connection at a time (GET and
 * HEAD, HTTP/1.0 and 1.1, Connection: close), so probes are answered while
 * a pass runs.  The loop publishes under a mutex (dra_watch_health_pass,
 * dra_watch_health_stats); the thread reads only that copy.  Nothing here
 * prints.  Ownership: dra_watch_health_start's object belongs to the caller
 * until dra_watch_health_stop, which ends the thread and frees it.
 */
#ifndef DRA_WATCH_HEALTH_H
#define DRA_WATCH_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../kube/client.h"

typedef struct dra_watch_health dra_watch_health;

/* What the endpoints report (a copy the loop publishes). */
typedef struct dra_health_state {
    dra_kube_stats stats;
    uint64_t passes, failures;
    double last_pass_s;  /* duration of the last pass */
    double last_ok_unix; /* end of the last successful pass, Unix seconds; 0 = none */
    bool ready;
} dra_health_state;

/* Listen on addr: "HOST:PORT", ":PORT" (every address) or "[V6]:PORT";
 * PORT 0 picks a free one (dra_watch_health_port).  Errors name the address. */
DRA_MUST_USE dra_err *dra_watch_health_start(const char *addr, dra_watch_health **out);
int dra_watch_health_port(const dra_watch_health *h);
/* After each pass: its outcome, its duration and the client's counters. */
void dra_watch_health_pass(dra_watch_health *h, bool ok, int64_t ms, const dra_kube_stats *st);
/* Between passes: the counters only. */
void dra_watch_health_stats(dra_watch_health *h, const dra_kube_stats *st);
void dra_watch_health_stop(dra_watch_health *h); /* NULL is fine */

/* The answer to one request (bytes read so far: at least its request line)
 * in st's state, appended to out: a whole HTTP/1.1 response. */
void dra_watch_health_respond(const dra_health_state *st, const char *req, size_t len, dra_buf *out);

#endif
