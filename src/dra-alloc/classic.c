/* The classic drivers' controllers as commands; see classic.h. */
#include "classic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/proc.h"
#include "io/stream.h"

#define ANSWER_TIMEOUT_MS 60000 /* a controller that says nothing for a minute is broken */

typedef struct driver_cmd {
    char *driver, *command;
} driver_cmd;

typedef struct drivers {
    driver_cmd *v;
    size_t n;
    const char **names;
} drivers;

/* sh -c COMMAND with in on stdin; its stdout into out. */
static dra_err *run_command(const char *driver, const char *command, const char *in, size_t inlen, dra_buf *out)
{
    dra_proc p = {
        .shell = command, .in = in, .inlen = inlen, .timeout_ms = ANSWER_TIMEOUT_MS, .max_out = DRA_MAX_INPUT_BYTES};
    dra_proc_status st;
    dra_err *e = dra_proc_run(&p, out, &st);
    if (e) {
        dra_err *w = dra_err_new(e->code, "classic driver %s: %s", driver, e->msg);
        dra_err_free(e);
        return w;
    }
    if (st.timed_out)
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' gave no answer within %d s", driver, command,
                           ANSWER_TIMEOUT_MS / 1000);
    if (st.too_much)
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' printed too much", driver, command);
    if (st.signal)
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' was killed by signal %d", driver, command,
                           st.signal);
    if (st.code != 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' exited with status %d", driver, command, st.code);
    return NULL;
}

static dra_err *ask(void *ctx, const char *driver, const json_t *q, json_t **answer)
{
    drivers *d = ctx;
    const char *command = NULL;
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].driver, driver) == 0)
            command = d->v[i].command;
    char *text = json_dumps(q, JSON_COMPACT);
    dra_buf out = DRA_BUF_INIT;
    size_t len = strlen(text);
    char *line = dra_xasprintf("%s\n", text);
    free(text);
    dra_err *e = run_command(driver, command, line, len + 1, &out);
    free(line);
    if (!e) {
        json_error_t je;
        *answer = json_loadb(out.data ? out.data : "", out.len, 0, &je);
        if (!*answer)
            e = dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' printed no JSON answer: %s", driver, command,
                            je.text);
    }
    dra_buf_free(&out);
    return e;
}

dra_err *classic_run(const dra_strv *specs, const dra_cluster **c, json_t *const *nodes, size_t nnodes, int64_t now,
                     const dra_features *f, classic_pass *out, int *rc)
{
    memset(out, 0, sizeof *out);
    if (!specs->n)
        return NULL;
    drivers d = {dra_xcalloc(specs->n, sizeof *d.v), 0, dra_xcalloc(specs->n, sizeof *d.names)};
    dra_err *e = NULL;
    for (size_t i = 0; i < specs->n && !e; i++) {
        const char *eq = strchr(specs->v[i], '=');
        if (!eq || eq == specs->v[i] || !eq[1])
            e = dra_err_field(
                dra_err_new(DRA_EXIT_INPUT, "Invalid value: \"%s\": expected DRIVER=COMMAND", specs->v[i]),
                "--classic-driver");
        else {
            d.v[d.n] = (driver_cmd){dra_xstrndup(specs->v[i], (size_t)(eq - specs->v[i])), dra_xstrdup(eq + 1)};
            d.names[d.n] = d.v[d.n].driver;
            d.n++;
        }
    }
    dra_classic_sched_opts o = {d.names, d.n, ask, &d};
    if (!e)
        e = dra_classic_schedule(*c, nodes, nnodes, &o, &out->res);
    for (size_t i = 0; !e && i < out->res.npods; i++)
        if (!out->res.pods[i].scheduled) {
            fprintf(stderr, "dra-alloc: pod %s: %s\n", out->res.pods[i].ref, out->res.pods[i].message);
            *rc = DRA_EXIT_NEGATIVE;
        }
    if (!e && out->res.npods) {
        /* the structured pass sees everything but the pods placed (or kept) here */
        const dra_objset *set = (*c)->set;
        for (size_t i = 0; i < set->n; i++) {
            bool handled = false;
            for (size_t k = 0; k < out->res.npods && !handled; k++)
                handled = out->res.handled[k] == set->v[i].json;
            if (!handled)
                dra_objset_add(&out->rest, json_incref(set->v[i].json), set->v[i].file, set->v[i].doc, set->v[i].line,
                               set->v[i].item);
        }
        dra_load_opts lo = {.skip_unknown = true, .no_validate = true, .now = now};
        lo.validate.features = f;
        e = dra_load(&out->rest, &lo, &out->model);
        if (!e)
            e = dra_cluster_adopt(&out->cluster, &out->rest, &out->model);
        *c = &out->cluster;
    }
    for (size_t i = 0; i < d.n; i++)
        free(d.v[i].driver), free(d.v[i].command);
    free(d.v);
    free(d.names);
    return e;
}

dra_err *classic_write(FILE *f, const classic_pass *p, const dra_sched_result *res, dra_format fmt)
{
    dra_writer *w = dra_writer_new(f, fmt);
    dra_err *e = NULL;
    for (size_t i = 0; !e && i < p->res.nobjs; i++)
        e = dra_writer_put(w, p->res.objs[i]);
    for (size_t i = 0; !e && i < res->nobjs; i++) {
        if (res->texts && res->texts[i]) { /* text results stay text: jsonl writes them as they are */
            e = dra_writer_put_line(w, res->texts[i], strlen(res->texts[i]));
            continue;
        }
        e = dra_writer_put(w, res->objs[i]);
    }
    return dra_writer_finish(w, e);
}

void classic_pass_free(classic_pass *p)
{
    dra_classic_sched_result_free(&p->res);
    dra_cluster_free(&p->cluster);
    dra_model_free(&p->model);
    dra_objset_free(&p->rest);
}
