/* Fuzz the JSON tape (src/common/io/tape.c) against the fast path it must
 * agree with (io/jparse.c) and against jansson: on any text the tape takes
 * a document exactly when the fast path does (a repeated key shows only
 * when the tree is built), takes the same bytes of it, and builds the same
 * tree; where jansson reads the document (repeats refused, no deeper than
 * the limit) the tape's tree is jansson's.  The text the tape refuses goes
 * to jansson in the readers, so its errors are jansson's by construction.
 * The tape's member lookup and skips are checked against the tree. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/common/io/jparse.h"
#include "../../src/common/io/tape.h"

static int depth_of(const json_t *v)
{
    int d = 0;
    size_t i;
    const char *k;
    json_t *x;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, x) {
            int c = depth_of(x);
            d = c > d ? c : d;
        }
        return d + 1;
    }
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            int c = depth_of(x);
            d = c > d ? c : d;
        }
        return d + 1;
    }
    return 0;
}

/* Every member the tape finds in the object at token i is the tree's. */
static void check_members(const dra_tape *t, size_t i, const json_t *tree)
{
    const dra_tape_tok *o = &t->tok[i];
    if (o->type != DRA_TAPE_OBJECT || !json_is_object(tree))
        return;
    size_t m = 0;
    for (size_t k = i + 1; k < o->next; k = dra_tape_skip(t, k + 1), m++) {
        const dra_tape_tok *key = &t->tok[k];
        size_t at = dra_tape_member(t, i, key->v.s, key->n);
        if (at != k + 1)
            abort(); /* keys are distinct in a tree that was built */
        json_t *sub = dra_tape_tree(t, at);
        if (!json_equal(sub, json_object_getn(tree, key->v.s, key->n)))
            abort();
        json_decref(sub);
    }
    if (m != json_object_size(tree) || dra_tape_member(t, i, "\x01", 1) != SIZE_MAX)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    int max_depth = size > 0 ? 1 + data[size - 1] % 70 : 64;
    size_t used_fast = 0, used_tape = 0;
    json_t *fast = dra_json_parse(p, size, max_depth, &used_fast);
    dra_tape t = DRA_TAPE_INIT;
    bool taken = dra_tape_parse(&t, p, size, max_depth, &used_tape);
    json_t *tree = taken ? dra_tape_tree(&t, 0) : NULL;
    if (!fast != !tree)
        abort();
    if (fast && (used_fast != used_tape || !json_equal(fast, tree) || t.tok[0].v.end != used_tape || t.tok[0].off))
        abort();
    if (tree) {
        check_members(&t, 0, tree);
        if (dra_tape_skip(&t, 0) != t.n)
            abort();
        json_error_t jerr;
        json_t *j = json_loadb(p, size, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
        if (j && depth_of(j) <= max_depth && (size_t)jerr.position == used_tape && !json_equal(j, tree))
            abort();
        json_decref(j);
    }
    json_decref(fast);
    json_decref(tree);
    /* a tape is parsed again into the same memory */
    size_t again = 0;
    if (taken != dra_tape_parse(&t, p, size, max_depth, &again) || again != (taken ? used_tape : 0))
        abort();
    dra_tape_free(&t);
    return 0;
}
