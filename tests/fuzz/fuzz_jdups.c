/* Fuzz the scan for repeated JSON keys (src/common/io/jdups.c) against
 * jansson: on any text it must not crash; on a document jansson reads
 * without repeats it finds none, and on one whose only fault is a repeat
 * (and no deeper than the scan's limit) it finds one. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/io/jdups.h"

#define DEPTH 64

static size_t depth_of(const json_t *v)
{
    size_t d = 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            size_t c = depth_of(x);
            d = c > d ? c : d;
        }
        return d + 1;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            size_t c = depth_of(x);
            d = c > d ? c : d;
        }
        return d + 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    char *first = NULL;
    bool found = dra_json_first_duplicate(p, size, DEPTH, &first);
    free(first);
    json_error_t jerr;
    json_t *strict = json_loadb(p, size, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (strict) {
        if (found) /* no repeat to find */
            abort();
        json_decref(strict);
        return 0;
    }
    bool dup = strstr(jerr.text, "duplicate object key") != NULL;
    json_t *lax = dup ? json_loadb(p, size, JSON_DECODE_ANY, &jerr) : NULL;
    /* a repeat jansson saw (a NUL byte ends the scan's tokens, where
     * jansson may read on: the reader then keeps jansson's words) */
    if (lax && !memchr(p, '\0', size) && depth_of(lax) < DEPTH && !found)
        abort();
    json_decref(lax);
    return 0;
}
