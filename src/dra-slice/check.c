/* dra-slice lint and validate: the checking commands, findings as text on
 * stderr/stdout or as records (-o json|jsonl, tool/records.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/validate.h"
#include "io/jalloc.h"
#include "model/validate.h"
#include "slice/lint.h"
#include "tool/progress.h"
#include "tool/records.h"
#include "cmds.h"

dra_err *dra_slice_run_lint(const dra_args *a, void *p, int *rc)
{
    const dra_slice_values *x = p;
    dra_features f;
    dra_err *e = dra_tool_features(&dra_slice_tool, a, &f);
    if (e)
        return e;
    dra_records rec;
    e = dra_records_start(&rec, x->output, stdout);
    if (e)
        return e;
    dra_objset set = DRA_OBJSET_INIT;
    dra_tool_errs errs = dra_tool_errs_for(a); /* objects that are input errors: as many as print, and counts */
    if (dra_records_on(&rec))                  /* a record of every one */
        errs = (dra_tool_errs){.every = true};
    dra_lint_kept kept = {
        .set = &set, .errs = &errs.errs, .features = &f, .qualified_names = x->no_validate_qualified_names};
    e = dra_tool_read_each(&dra_slice_tool, a, a->pos, a->npos, 0, &set, dra_lint_keep, &kept);
    dra_lint_report r = DRA_LINT_REPORT_INIT;
    size_t skipped = 0;
    if (!e)
        e = dra_slice_lint_kept(&kept, &r, &skipped);
    if (!e)
        e = dra_tool_errs_take(&dra_slice_tool, &errs);
    dra_errs_free(&errs.errs);
    dra_lint_kept_free(&kept);
    if (dra_records_on(&rec)) { /* input errors, warnings and problems alike */
        e = dra_records_end(&rec, e, set.warnings, &r, rc);
        set.warnings = NULL;
    }
    dra_tool_report_input(&dra_slice_tool, a, &(dra_input_report){set.warnings, skipped, 0, set.files_repeated});
    for (size_t i = 0; !e && !dra_records_on(&rec) && i < r.n; i++) {
        char *line = dra_lint_format(&r.v[i]);
        printf("%s\n", line);
        free(line);
    }
    if (!e && !dra_records_on(&rec) && dra_problems_count(&r, false) > 0)
        *rc = DRA_EXIT_NEGATIVE;
    dra_problems_free(&r);
    dra_objset_free(&set);
    return e;
}

/* validate streams: one object at a time as it is read, nothing kept but
 * what finds duplicates; every object is checked (the exit code reflects
 * all of them), and errors print at the end as every tool prints them. */
typedef struct validating {
    cel_dra_validator *v;
    dra_tool_errs errs;
    dra_errs unserved; /* warnings: objects of versions no supported release serves, fields a new object loses */
    const dra_features *f;
} validating;

static dra_err *validate_one(void *p, dra_obj *o)
{
    validating *c = p;
    dra_kind k;
    dra_apiver ver;
    dra_err *e = dra_kind_of(o->json, &k, &ver);
    if (!e) {
        dra_errs_add(&c->unserved, dra_obj_locate(dra_kind_unserved(k, ver), o));
        dra_errs_add(&c->unserved, dra_obj_locate(dra_drop_on_create_notes(o->json, k, c->f), o));
    }
    dra_err_free(e);
    dra_tool_errs_add(&c->errs, cel_dra_validator_add(c->v, o));
    return NULL;
}

dra_err *dra_slice_run_validate(const dra_args *a, void *p, int *rc)
{
    /* each document's tree is dropped once checked (io/jalloc.h) */
    dra_jalloc_arena_allow();
    dra_progress_begin(a->progress);
    dra_objset set = DRA_OBJSET_INIT;
    dra_model stats = DRA_MODEL_INIT;
    dra_features f;
    dra_err *e = dra_tool_features(&dra_slice_tool, a, &f);
    if (e)
        return e;
    e = dra_tool_input_options(&set, a);
    if (e)
        return e;
    dra_records rec;
    e = dra_records_start(&rec, ((const dra_slice_values *)p)->output, stdout);
    if (e)
        return e;
    validating c = {.v = cel_dra_validator_new(&f, set.field_validation),
                    .errs = dra_tool_errs_for(a),
                    .unserved = {.fold = DRA_ERRS_FOLD},
                    .f = &f};
    if (dra_records_on(&rec)) /* a record of every one */
        c.errs = (dra_tool_errs){.every = true};
    /* the DRA parts of pod templates are checked on the pods they make */
    dra_tool_errs_add(
        &c.errs, dra_tool_read_each(&dra_slice_tool, a, a->pos, a->npos, DRA_READ_WORKLOADS, &set, validate_one, &c));
    dra_tool_errs_add(&c.errs, cel_dra_validator_finish(c.v, &stats));
    /* duplicate fields the reader relaxed, then the rest */
    stats.warnings = dra_err_append(dra_err_append(set.warnings, stats.warnings), dra_errs_take(&c.unserved));
    set.warnings = NULL;
    stats.files_repeated = set.files_repeated;
    dra_err *warnings = dra_records_on(&rec) ? stats.warnings : NULL; /* records, not stderr */
    stats.warnings = warnings ? NULL : stats.warnings;
    dra_tool_report_model(&dra_slice_tool, a, &stats);
    dra_model_free(&stats);
    dra_objset_free(&set);
    e = dra_tool_errs_take(&dra_slice_tool, &c.errs);
    return dra_records_on(&rec) ? dra_records_end(&rec, e, warnings, NULL, rc) : e;
}
