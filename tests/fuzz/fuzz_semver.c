/* Fuzz the semantic version parsers: a parsed version formats to text that
 * parses (strictly) back to the same text and an equal version, the
 * normalize variant always yields a strict version, and the API server's
 * attribute regex agrees with blang's Parse except for number overflow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/semver.h"

static char buf[3 * 21 + DRA_SEMVER_MAX + 3];

static void round_trip(const dra_semver *v)
{
    dra_semver_format(v, buf, sizeof buf);
    dra_semver again;
    dra_err *e = dra_semver_parse(buf, strlen(buf), &again);
    if (e)
        abort();
    if (dra_semver_cmp(v, &again) != 0 || v->build_len != again.build_len ||
        memcmp(v->text, again.text, (size_t)v->pre_len + v->build_len) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    dra_semver v;
    dra_err *e = dra_semver_parse(s, size, &v);
    bool strict_ok = e == NULL;
    bool overflow = e && strstr(e->msg, "value out of range");
    bool too_long = e && strstr(e->msg, "longer than");
    dra_err_free(e);
    if (strict_ok) {
        round_trip(&v);
        if (strlen(buf) != size || memcmp(buf, s, size) != 0)
            abort(); /* strict versions print exactly as written */
    }
    bool attr = dra_semver_valid_attribute(s, size);
    if (attr && !(strict_ok || overflow))
        abort(); /* the regex admits only what blang parses, bar huge numbers */
    if (strict_ok && size <= DRA_SEMVER_ATTRIBUTE_MAXLEN && !attr)
        abort();
    if (attr && too_long)
        abort();
    /* 1.38's regex admits a subset of the older one, and no huge number:
     * what it admits blang parses */
    bool attr18 = dra_semver_matches_regex_digits(s, size, DRA_SEMVER_MAX_DIGITS_1_38);
    if (attr18 && !dra_semver_matches_regex(s, size))
        abort();
    if (attr18 && size <= DRA_SEMVER_ATTRIBUTE_MAXLEN && !strict_ok)
        abort();

    e = dra_semver_parse_normalize(s, size, &v);
    if (!e)
        round_trip(&v);
    dra_err_free(e);
    return 0;
}
