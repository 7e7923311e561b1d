/* Fuzz dra_json_loadb (src/common/io/jparse.c) against json_loadb, whose
 * answer it must give on every text: the same tree, its members in the
 * same order and its numbers of the same types and values, or, where
 * jansson refuses the text, NULL and jansson's own error (text, line,
 * column, position), for both flag sets the readers pass.
 *
 * And the tape read as dra_json_loadb reads (as_jansson): what it takes
 * jansson takes, its tree is jansson's where it builds one, and the line
 * dra_json_write_line_tape writes of it, where it writes one, is the one
 * dra_json_write_line writes of jansson's tree. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/io/jline.h"
#include "../../src/common/io/jparse.h"
#include "../../src/common/io/tape.h"

/* Two trees alike: equal, and written alike (members in order, reals to
 * the last digit). */
static void same_tree(const json_t *a, const json_t *b)
{
    if (!json_equal(a, b))
        abort();
    char *ta = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    char *tb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    if (!ta || !tb || strcmp(ta, tb) != 0)
        abort();
    free(ta);
    free(tb);
}

static void tape_line(const char *p, size_t size)
{
    dra_tape t = DRA_TAPE_INIT;
    t.as_jansson = true;
    size_t used = 0;
    if (dra_tape_parse(&t, p, size, 512, &used)) {
        json_t *jv = json_loadb(p, used, 0, NULL);
        if (!jv)
            abort();
        json_t *tv = dra_tape_tree(&t, 0);
        if (tv)
            same_tree(jv, tv);
        json_decref(tv);
        dra_buf a = DRA_BUF_INIT, b = DRA_BUF_INIT;
        if (dra_json_write_line_tape(&a, &t, 0)) {
            if (!dra_json_write_line(&b, jv) || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
                abort();
        }
        dra_buf_free(&a);
        dra_buf_free(&b);
        json_decref(jv);
    }
    dra_tape_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tape_line((const char *)data, size);
    const char *p = (const char *)data;
    static const size_t flags[] = {0, JSON_REJECT_DUPLICATES};
    for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
        json_error_t ej, ed;
        memset(&ej, 0, sizeof ej);
        memset(&ed, 0, sizeof ed);
        json_t *jv = json_loadb(p, size, flags[f], &ej);
        json_t *dv = dra_json_loadb(p, size, flags[f], &ed);
        if (!jv != !dv)
            abort();
        if (jv)
            same_tree(jv, dv);
        else if (strcmp(ej.text, ed.text) != 0 || ej.line != ed.line || ej.column != ed.column ||
                 ej.position != ed.position || strcmp(ej.source, ed.source) != 0)
            abort();
        json_decref(jv);
        json_decref(dv);
    }
    return 0;
}
