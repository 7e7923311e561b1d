/* dra-claim's output of a run's changes (see write.h). */
#include <stdio.h>
#include <stdlib.h>

#include "io/stream.h"
#include "cmds.h"
#include "write.h"

dra_err *dra_claim_write_changes(const dra_claim_out *x, const dra_changes *ch)
{
    if (x->patch) {
        dra_patch_format pf;
        dra_err *e = dra_patch_format_parse(x->patch_fmt, &pf);
        return e ? e : dra_changes_write_ops(stdout, ch, pf);
    }
    dra_format fmt = DRA_FMT_YAML;
    dra_err *e = x->output ? dra_format_parse(x->output, &fmt) : NULL;
    if (e)
        return e;
    dra_writer *w = dra_writer_new(stdout, fmt);
    char *now = dra_time_format(x->now_at);
    for (size_t i = 0; i < ch->nobjs && !e; i++) {
        const dra_change *c = &ch->objs[i];
        if (c->deleted && !c->orig)
            continue; /* made and dropped in the run: the server never sees it */
        if (!c->deleted) {
            e = dra_writer_put(w, c->obj);
            continue;
        }
        /* the object's last state, being deleted: a reader that applies
         * objects (dra-watch run) deletes it after its other changes */
        char *ref = dra_obj_ref(c->obj);
        fprintf(stderr, "%s: deleted %s\n", dra_claim_tool.prog, ref);
        free(ref);
        json_t *gone = json_deep_copy(c->obj), *md = json_object_get(gone, "metadata");
        if (json_is_object(md) && !json_object_get(md, "deletionTimestamp"))
            json_object_set_new(md, "deletionTimestamp", json_string(now));
        e = dra_writer_put(w, gone);
        json_decref(gone);
    }
    free(now);
    return dra_writer_finish(w, e);
}
