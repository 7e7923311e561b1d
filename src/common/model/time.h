/* Times as the Kubernetes API writes them (RFC 3339, metav1.Time) and Go-style
 * durations, in nanoseconds since the Unix epoch.
 *
 * The library never reads the clock: tools resolve `--now` (or the clock) in
 * main with dra_time_now_or() and pass the time down.  Formatting functions
 * return strings the caller frees.
 */
#ifndef DRA_MODEL_TIME_H
#define DRA_MODEL_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

#define DRA_NSEC_PER_SEC INT64_C(1000000000)

/* Parse RFC 3339 ("2026-03-01T10:00:00Z", fractions and +hh:mm offsets too),
 * as Go's time.Parse(time.RFC3339, s); the error quotes Go's text. */
DRA_MUST_USE dra_err *dra_time_parse(const char *s, int64_t *out_ns);
/* The same over n bytes (not NUL-terminated), as seconds since the epoch and
 * nanoseconds (0..999999999); the one RFC 3339 reader (CEL's timestamps too).
 * Fields are range-checked as Go does (2026-02-30 is refused). */
DRA_MUST_USE dra_err *dra_time_parse_n(const char *s, size_t n, int64_t *sec, int32_t *nsec);
/* "2026-03-01T10:00:00Z" (whole seconds, UTC, as metav1.Time marshals). */
char *dra_time_format(int64_t ns);
/* Go's Duration.String() at whole seconds: "45s", "2m5s", "1h0m0s". */
char *dra_duration_format(int64_t ns);
/* Go's time.ParseDuration over n bytes at s: decimal numbers with optional
 * fractions, each with a unit (ns, us, µs, μs, ms, s, m, h), one optional
 * sign; "0" needs no unit.  False when invalid or beyond int64 nanoseconds.
 * The one duration reader (CEL's duration(), every duration option). */
bool dra_duration_parse(const char *s, size_t n, int64_t *ns);
/* The same over a string (NULL is invalid), with Go's error text:
 * `time: invalid duration "S"` (DRA_EXIT_INPUT). */
DRA_MUST_USE dra_err *dra_duration_parse_go(const char *s, int64_t *ns);
/* The value of a --now option, or the clock when it is NULL (for mains). */
DRA_MUST_USE dra_err *dra_time_now_or(const char *rfc3339, int64_t *out_ns);

#endif
