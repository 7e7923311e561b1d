/* Fuzz dra_json_write_line against jansson: the JSON value jansson reads
 * from the input, and the input's bytes as a string and as a key (invalid
 * UTF-8 let through, as trees made without checks may hold it), are
 * written with the same bytes as json_dumps(JSON_COMPACT |
 * JSON_REAL_PRECISION(17)), or fail where jansson's dump fails. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/jline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t err;
    json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    json_t *wrap = v ? json_pack("{s:o,s:[O]}", "v", v, "a", v) : json_object();
    /* a key and a string of the raw bytes, valid UTF-8 or not */
    json_object_set_new(wrap, "raw", json_stringn_nocheck((const char *)data, size));
    json_t *keyed = json_object();
    json_object_setn_new_nocheck(keyed, (const char *)data, size, json_integer((json_int_t)size));
    json_object_set_new(wrap, "keyed", keyed);
    dra_buf b = DRA_BUF_INIT;
    bool ok = dra_json_write_line(&b, wrap);
    char *want = json_dumps(wrap, JSON_COMPACT | JSON_REAL_PRECISION(17));
    if (ok != (want != NULL) || (want && strcmp(want, dra_buf_str(&b)) != 0))
        abort();
    free(want);
    dra_buf_free(&b);
    json_decref(wrap);
    return 0;
}
