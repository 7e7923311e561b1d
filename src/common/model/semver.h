/* Semantic versions as Kubernetes uses them.
 *
 * Two parsers:
 *  - dra_semver_parse: strict SemVer 2.0.0 (github.com/blang/semver/v4 Parse,
 *    as the CEL `semver()` library and the DRA `version` attribute use it);
 *  - dra_semver_parse_normalize: `semver(s, true)` in the Kubernetes CEL
 *    library: strips a leading "v", pads "1" / "1.2" to "1.0.0" / "1.2.0",
 *    drops leading zeros, then parses strictly.
 * Comparison follows SemVer precedence (build metadata ignored).
 *
 * Pre-release and build parts are kept as text inside the value (up to
 * DRA_SEMVER_MAX bytes together; longer ones are refused with an error), so
 * a dra_semver is a value type with no heap memory: copy it freely.
 *
 * Errors carry blang/semver's texts ("Version string empty", "No
 * Major.Minor.Patch elements found", "Invalid character(s) found in major
 * number \"x\"", "strconv.ParseUint: parsing \"...\": value out of range",
 * ...); the caller owns the returned dra_err.
 */
#ifndef DRA_MODEL_SEMVER_H
#define DRA_MODEL_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

#define DRA_SEMVER_MAX 256 /* longest pre-release+build text kept */

typedef struct dra_semver {
    uint64_t major, minor, patch;
    uint16_t pre_len, build_len; /* lengths inside text[] */
    char text[DRA_SEMVER_MAX];   /* pre-release (no '-') followed by build (no '+'), not NUL-separated */
} dra_semver;

/* Longest DRA `version` device attribute (DeviceAttributeMaxValueLength). */
#define DRA_SEMVER_ATTRIBUTE_MAXLEN 64

DRA_MUST_USE dra_err *dra_semver_parse(const char *s, size_t len, dra_semver *out);
DRA_MUST_USE dra_err *dra_semver_parse_normalize(const char *s, size_t len, dra_semver *out);
int dra_semver_cmp(const dra_semver *a, const dra_semver *b); /* -1, 0, 1 */
/* "1.2.3-pre+build" into buf (size >= 3*21 + DRA_SEMVER_MAX + 3; shorter
 * buffers get a truncated, NUL-terminated string).  Returns buf. */
const char *dra_semver_format(const dra_semver *v, char *buf, size_t size);

/* The API server's check of a DRA `version` attribute value
 * (pkg/apis/resource/validation validateDeviceAttribute): at most
 * DRA_SEMVER_ATTRIBUTE_MAXLEN bytes and matching its SemVer 2.0.0 regex.
 * The regex puts no bound on the numbers, so "99999999999999999999.0.0" is
 * a valid attribute that dra_semver_parse() (like blang) refuses. */
bool dra_semver_valid_attribute(const char *s, size_t len);
/* The regex alone, for validators that report length separately. */
bool dra_semver_matches_regex(const char *s, size_t len);
/* 1.38's regex: numbers (and all-digit pre-release identifiers) of at most
 * maxd digits, 18 there so that they fit an int64 (validation.go
 * numericIdentifier, v1.38.0-beta.0, kubernetes#142964); maxd 0: any. */
#define DRA_SEMVER_MAX_DIGITS_1_38 18
bool dra_semver_matches_regex_digits(const char *s, size_t len, size_t maxd);

#endif
