/* Fuzz Go's JSON syntax errors for control characters
 * (src/common/io/jsyntax.c): on any text it must not crash; an error it
 * names is at a control character inside the text, with Go's words; and a
 * document the fast JSON reader takes whole has none. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/io/jparse.h"
#include "../../src/common/io/jsyntax.h"

#define DEPTH 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    dra_buf msg = DRA_BUF_INIT;
    size_t at = 0;
    bool found = dra_json_go_control_error(p, size, DEPTH, &msg, &at);
    if (found) {
        if (at >= size || data[at] >= 0x20 || strncmp(dra_buf_str(&msg), "invalid character '", 19) != 0)
            abort();
    } else if (msg.len != 0) {
        abort();
    }
    size_t used = 0;
    json_t *v = dra_json_parse(p, size, DEPTH, &used);
    if (v && found && at < used)
        abort(); /* a valid value holds no control character outside white space */
    json_decref(v);
    dra_buf_free(&msg);
    return 0;
}
