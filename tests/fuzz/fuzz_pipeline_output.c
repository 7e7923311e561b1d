/* Fuzz what dra-watch run makes of a pipeline stage's output: read as the
 * tools' formats (YAML, JSON, Lists, JSON Lines), every document is an
 * operation or an object, or the pass fails with a message and exit 3.
 * Each object is turned into writes against the object before it (or none):
 * every write has a verb and a body, updates carry a resourceVersion and
 * deletes their preconditions; and an object against itself needs none. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "watch/internal.h"

static void check_ops(const json_t *ops)
{
    size_t i;
    json_t *op;
    json_array_foreach(ops, i, op) {
        const char *verb = dra_jstr(op, "verb");
        if (!verb || !json_object_get(op, "body"))
            abort();
        if (strcmp(verb, "update") == 0 && !dra_jstr(op, "body.metadata.resourceVersion"))
            abort();
        if (strcmp(verb, "delete") == 0 && !dra_jstr(op, "body.preconditions.resourceVersion"))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *docs = NULL;
    dra_err *e = dra_watch_read_output("pipeline", (const char *)data, size, &docs);
    if (e) {
        for (dra_err *x = e; x; x = x->next)
            if (!x->msg || !*x->msg || x->code != DRA_EXIT_RUNTIME)
                abort();
        if (docs)
            abort();
        dra_err_free(e);
        return 0;
    }
    size_t i;
    json_t *d, *prev = NULL;
    json_array_foreach(docs, i, d) {
        if (json_object_get(d, "verb"))
            continue;
        if (!json_is_string(json_object_get(d, "kind")))
            abort();
        json_t *ops = json_array();
        dra_watch_object_ops(d, d, ops);
        if (json_array_size(ops))
            abort();
        dra_watch_object_ops(d, prev, ops);
        check_ops(ops);
        json_decref(ops);
        prev = d;
    }
    json_decref(docs);
    return 0;
}
