/* Times as the Kubernetes API writes them (RFC 3339, metav1.Time) and Go
 * durations.
 *
 * A time is seconds since the Unix epoch and nanoseconds, as Go's time.Time
 * keeps it: every time Go's time.Parse(time.RFC3339, s) reads (years 0000
 * to 9999, offsets up to ±24:60, so -0001-12-31 to 10000-01-01 in UTC) is
 * exact, and arithmetic on times never overflows (it saturates, as Go's
 * does, far beyond any parsed time plus any duration).  A duration is int64
 * nanoseconds (Go's time.Duration, about ±292 years).
 *
 * The library never reads the clock: tools resolve `--now` (or the clock) in
 * main with dra_time_now_or() and pass the time down.  Formatting functions
 * return strings the caller frees; nothing else allocates (but errors).
 */
#ifndef DRA_MODEL_TIME_H
#define DRA_MODEL_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

#define DRA_NSEC_PER_SEC INT64_C(1000000000)
/* Go's zero time.Time, 0001-01-01T00:00:00Z, in seconds since the epoch
 * (also the earliest timestamp CEL has). */
#define DRA_TIME_GO_ZERO_SEC INT64_C(-62135596800)

typedef struct dra_time {
    int64_t sec;  /* seconds since 1970-01-01T00:00:00Z (floor) */
    int32_t nsec; /* 0..999999999 */
} dra_time;

/* Go's time.Parse(time.RFC3339, s), which metav1.Time's JSON decoding uses:
 * YYYY-MM-DDTHH:MM:SS, a fraction after '.' or ',' (digits past the ninth
 * dropped), then Z or +hh:mm/-hh:mm; the hour may have one digit, offsets
 * go to 24:60, 'T' and 'Z' are upper case.  Errors are Go's text, e.g.
 * `parsing time "X" as "2006-01-02T15:04:05Z07:00": cannot parse "Y" as "2006"`
 * or `parsing time "X": day out of range` (DRA_EXIT_INPUT); NULL s is
 * "missing time". */
DRA_MUST_USE dra_err *dra_time_parse(const char *s, dra_time *out);
/* The same over n bytes (not NUL-terminated); the one RFC 3339 reader
 * (validation, CEL's timestamps, every time option). */
DRA_MUST_USE dra_err *dra_time_parse_n(const char *s, size_t n, dra_time *out);
/* t.UTC().Format(time.RFC3339) at whole seconds, as metav1.Time marshals:
 * "2026-03-01T10:00:00Z"; years past 9999 or before 0 as Go writes them
 * ("10000-01-01T00:00:00Z", "-0001-12-31T00:00:00Z"). */
char *dra_time_format(dra_time t);
/* The same with nine digits of fraction: "2026-03-01T10:00:00.123456789Z"
 * (the time of a recorded watch event). */
char *dra_time_format_ns(dra_time t);

/* -1, 0, 1 as a is before, equal to, after b. */
int dra_time_cmp(dra_time a, dra_time b);
/* Go's t.Add(d): exact; saturates at the ends of int64 seconds. */
dra_time dra_time_add(dra_time t, int64_t d_ns);
/* Go's a.Sub(b) in nanoseconds, saturating at INT64_MIN/INT64_MAX. */
int64_t dra_time_sub(dra_time a, dra_time b);
/* a - b in whole seconds, truncated toward zero: exact for any two times
 * from the reader (no ±292-year limit); saturating at the int64 ends. */
int64_t dra_time_sub_sec(dra_time a, dra_time b);
/* Go's time.Unix(0, ns): a time from nanoseconds since the epoch. */
dra_time dra_time_from_ns(int64_t ns);
/* Go's time.Duration(s) * time.Second, as upstream computes a number of
 * seconds to add to a time (tolerationSeconds, a deletion's grace period):
 * past about ±292 years the product wraps around as Go's int64 arithmetic
 * does (computed without overflow here); d / DRA_NSEC_PER_SEC != s says it
 * did. */
int64_t dra_duration_of_seconds(int64_t s);

/* The proleptic Gregorian calendar (UTC) of seconds since the epoch, for
 * any int64: year (astronomical: 0 is 1 BC), month 1..12, day 1..31,
 * yday 0..365, wday 0..6 (Sunday 0), hour, min, sec. */
typedef struct dra_civil {
    int64_t year;
    int month, day, yday, wday, hour, min, sec;
} dra_civil;
void dra_civil_from_unix(int64_t sec, dra_civil *c);
/* Days since 1970-01-01 of a date (month 1..12, day 1..31). */
int64_t dra_days_from_civil(int64_t year, int month, int day);

/* Go's Duration.String() of a whole number of seconds (any int64, past the
 * ±292 years a Duration holds too): "45s", "2m5s", "1h0m0s", "-1m0s". */
char *dra_duration_format_sec(int64_t sec);
/* Go's time.ParseDuration over n bytes at s: decimal numbers with optional
 * fractions, each with a unit (ns, us, µs, μs, ms, s, m, h), one optional
 * sign; "0" needs no unit.  False when invalid or beyond int64 nanoseconds.
 * Fractions are scaled in float64 as Go does (the same nanosecond).  The one
 * duration reader (CEL's duration(), every duration option). */
bool dra_duration_parse(const char *s, size_t n, int64_t *ns);
/* The same over a string (NULL is invalid), with Go's error text:
 * `time: invalid duration "S"`, `time: missing unit in duration "S"`,
 * `time: unknown unit "U" in duration "S"` (DRA_EXIT_INPUT). */
DRA_MUST_USE dra_err *dra_duration_parse_go(const char *s, int64_t *ns);
/* A duration given to an option (--timeout, --interval, ...), read the one
 * way every tool reads it: a plain non-negative number is seconds ("10",
 * "2.5"; kubectl's --request-timeout takes "10" too, client-go
 * clientcmd.ParseTimeout), anything else a Go duration ("1h2m3.5s",
 * "300ms"; dra_duration_parse).  NULL is invalid.  Error (DRA_EXIT_INPUT):
 * `invalid duration "S" (want seconds or a Go duration such as 30s, 500ms,
 * 1h2m3.5s)`; the caller names the option. */
DRA_MUST_USE dra_err *dra_duration_arg(const char *s, int64_t *ns);
/* The value of a --now option, or the clock when it is NULL (for mains). */
DRA_MUST_USE dra_err *dra_time_now_or(const char *rfc3339, dra_time *out);
/* The wall clock now, to the nanosecond (for mains, and the loop's
 * recordings of live events). */
dra_time dra_time_now(void);

#endif
