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
 * Zero-copy: pre-release and build parts point into a buffer inside the value
 * (up to DRA_SEMVER_MAX bytes of input); a dra_semver is a value type with no
 * heap memory.
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
    uint16_t pre_len, build_len;   /* lengths inside text[] */
    char text[DRA_SEMVER_MAX];     /* pre-release (no '-') followed by build (no '+'), not NUL-separated */
} dra_semver;

dra_err *dra_semver_parse(const char *s, size_t len, dra_semver *out);
dra_err *dra_semver_parse_normalize(const char *s, size_t len, dra_semver *out);
int dra_semver_cmp(const dra_semver *a, const dra_semver *b); /* -1, 0, 1 */
/* "1.2.3-pre+build" into buf (size >= 3*21 + DRA_SEMVER_MAX + 3). */
const char *dra_semver_format(const dra_semver *v, char *buf, size_t size);

#endif
