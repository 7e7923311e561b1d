#include "tool.h"
#include "progress.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/arena.h"
#include "args.h"
#include "../base/hash.h"
#include "../io/jalloc.h"
#include "../model/workloads.h"

/* Make sure fds 0-2 exist so that files we open never become "stdout".
 * A closed stdout (`>&-`) gets a read-only directory: the fd is taken, and
 * any write to it fails with EBADF, so output that goes nowhere is reported
 * as the error it is instead of vanishing into /dev/null. */
static void check_fds(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        int got = fd == 1 ? open("/", O_RDONLY | O_DIRECTORY) : -1;
        if (got < 0)
            got = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        /* open() returns the lowest free fd: this one */
        if (got >= 0 && got != fd)
            close(got);
    }
}

bool dra_tool_start(const dra_tool *tool, int argc, char **argv, dra_args *a, int *rc)
{
    dra_jalloc_install(); /* before jansson allocates anything */
    check_fds();
    /* a reader that leaves (`| head -1`) is an EPIPE seen by the writer,
     * which stops; dra_tool_finish then ends quietly (not death by signal) */
    signal(SIGPIPE, SIG_IGN);
    dra_err *e = dra_cli_parse(tool, argc, argv, a);
    if (e) {
        dra_err_print(stderr, tool->prog, e);
        dra_err_free(e);
        *rc = DRA_EXIT_INPUT;
        return true;
    }
    if (dra_cli_standard(tool, a, rc)) {
        dra_args_free(a);
        return true;
    }
    a->progress = dra_progress_new(tool->prog, stderr, dra_args_has(a, DRA_OPT_VERBOSE));
    return false;
}

char *dra_tool_hinted(const dra_args *a, const char *msg, const char *hint)
{
    const dra_opt *o = a->cmd && hint ? a->cmd->opts : NULL;
    while (o && o->name && strcmp(o->name, hint) != 0)
        o++;
    if (!o || !o->name)
        return dra_xstrdup(msg);
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i].id == o->id)
            return dra_xasprintf("%s (--%s)", msg, o->name);
    return o->help ? dra_xasprintf("%s (see --%s: %s)", msg, o->name, o->help)
                   : dra_xasprintf("%s (see --%s)", msg, o->name);
}

/* Parameters the library names ("node") are this tool's options ("--node"),
 * and so are the parameters its hints name. */
static void name_options(const dra_args *a, dra_err *e)
{
    for (; e; e = e->next) {
        if (e->hint) {
            char *m = dra_tool_hinted(a, e->msg, e->hint);
            dra_err_set_msg(e, m);
            e->hint = NULL;
        }
        if (!e->param || !e->field)
            continue;
        char *flag = dra_xasprintf("--%s", e->field);
        free(e->field);
        e->field = flag;
        e->param = 0;
    }
}

int dra_tool_finish(const dra_tool *tool, dra_args *a, dra_err *err, int ok_code)
{
    name_options(a, err);
    dra_progress_clear(a->progress);
    size_t nerrs = err ? dra_err_count(err) : 0;
    int rc = ok_code;
    /* A write that already failed was reported by its writer as err (a
     * runtime error); do not say it twice. */
    bool reported = ferror(stdout) && err && err->code == DRA_EXIT_RUNTIME;
    dra_err *out = dra_stdout_close();
    if (ferror(stdout) && dra_stdout_gone()) {
        /* the reader has gone (`| head -1`): what it read is the answer, the
         * rest goes nowhere; end quietly with success, as a pipeline expects
         * (a usage or input error found before still counts) */
        dra_err_free(out);
        out = NULL;
        if (err && err->code == DRA_EXIT_RUNTIME) {
            dra_err_free(err);
            err = NULL;
        }
        ok_code = DRA_EXIT_OK;
    }
    if (err) {
        dra_tool_print_errs_every(stderr, tool->prog, NULL, err, dra_args_has(a, DRA_OPT_VERBOSE));
        rc = err->code;
        dra_err_free(err);
    }
    if (out && reported) {
        dra_err_free(out);
    } else if (out) {
        dra_err_print(stderr, tool->prog, out);
        dra_err_free(out);
        rc = DRA_EXIT_RUNTIME;
    }
    dra_progress_end(a->progress, nerrs);
    a->progress = NULL;
    dra_args_free(a);
    return rc;
}

void dra_tool_report_input(const dra_tool *tool, const dra_args *a, const dra_input_report *r)
{
    dra_tool_print_errs_every(stderr, tool->prog, "warning", r->warnings, dra_args_has(a, DRA_OPT_VERBOSE));
    if (r->skipped)
        dra_tool_verbose(tool, a, "skipped %zu object%s of kinds %s does not use", r->skipped,
                         r->skipped == 1 ? "" : "s", tool->prog);
    if (r->collapsed)
        dra_tool_verbose(tool, a, "%zu object%s given more than once, identical: counted once", r->collapsed,
                         r->collapsed == 1 ? "" : "s");
    if (r->files_repeated)
        dra_tool_verbose(tool, a, "%zu file%s named more than once: read once", r->files_repeated,
                         r->files_repeated == 1 ? "" : "s");
}

void dra_tool_verbose(const dra_tool *tool, const dra_args *a, const char *fmt, ...)
{
    if (!dra_args_has(a, DRA_OPT_VERBOSE))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", tool->prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void dra_tool_notes(const dra_tool *tool, const dra_args *a, const dra_err *warnings, const dra_err *notes)
{
    dra_input_report r = {warnings, 0, 0, 0};
    dra_tool_report_input(tool, a, &r);
    if (!dra_args_has(a, DRA_OPT_VERBOSE))
        return;
    for (const dra_err *n = notes; n; n = n->next)
        (void)dra_err_put_line(stderr, tool->prog, n);
}

dra_err *dra_tool_input_options(dra_objset *set, const dra_args *a)
{
    set->recursive = dra_args_has(a, DRA_OPT_RECURSIVE);
    const char *v = dra_args_get(a, DRA_OPT_VALIDATE);
    dra_err *e = v ? dra_field_validation_parse(v, &set->field_validation) : NULL;
    if (e) { /* kubectl's words */
        dra_err_set_msg(e, dra_xasprintf("invalid --validate %s", e->msg));
    }
    return e;
}

/* The gitVersion the first snapshot among the input files records, and
 * that file; NULL when none does.  Standard input is not looked at (it
 * cannot be read twice); nor are directories. */
static char *snapshot_version(const dra_args *a, const char **file)
{
    for (size_t i = 0; i < a->npos; i++) {
        if (strcmp(a->pos[i], "-") == 0)
            continue;
        int fd = open(a->pos[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue; /* the reader says why */
        char buf[4096];
        struct stat st;
        ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof buf) : -1;
        close(fd);
        char *v = n > 0 ? dra_snapshot_git_version(buf, (size_t)n) : NULL;
        if (v) {
            *file = a->pos[i];
            return v;
        }
    }
    return NULL;
}

dra_err *dra_tool_features(const dra_tool *tool, const dra_args *a, dra_features *f)
{
    dra_release r = DRA_RELEASE_DEFAULT;
    bool env;
    const char *v = dra_release_setting(dra_args_get(a, DRA_OPT_KUBERNETES_VERSION), &env);
    const char *from = env ? DRA_KUBERNETES_VERSION_ENV : "--kubernetes-version";
    dra_err *e = NULL;
    if (v && *v) {
        e = dra_err_field(dra_release_parse(v, &r), from);
        if (!e)
            dra_tool_verbose(tool, a, "Kubernetes %s's feature gates (%s)", dra_release_name(r), from);
    } else {
        const char *file = NULL;
        char *git = snapshot_version(a, &file);
        dra_err *pe = git ? dra_release_parse(git, &r) : NULL;
        if (pe) /* a cluster of another release: say so, and go on with the default */
            fprintf(stderr,
                    "%s: warning: %s: the snapshot's server is Kubernetes %s, not a release the tools know "
                    "(%s); using %s's feature gates (see --kubernetes-version)\n",
                    tool->prog, file, git, DRA_RELEASES_KNOWN, dra_release_name(r));
        else if (git) /* the default release goes without saying */
            dra_tool_verbose(tool, a, "Kubernetes %s's feature gates (the snapshot %s is of a %s server)",
                             dra_release_name(r), file, git);
        dra_err_free(pe);
        free(git);
    }
    dra_features_release(f, r);
    for (size_t i = 0; i < a->nopts && !e; i++)
        if (a->opts[i].id == DRA_OPT_FEATURE_GATES)
            e = dra_features_parse(f, a->opts[i].value);
    return e;
}

dra_err *dra_tool_read(const dra_tool *tool, const dra_args *a, char *const *paths, size_t n, int flags,
                       dra_objset *set)
{
    dra_err *e = dra_tool_input_options(set, a);
    if (!e)
        e = dra_read_paths(set, paths, n);
    dra_progress_read(a->progress, set->n);
    if (!e && (flags & DRA_READ_WORKLOADS)) {
        dra_expand_report xr = {0};
        e = dra_expand_workloads(set, NULL, &xr);
        if (flags & DRA_READ_IDENTITY)
            dra_assume_pod_identity(set, NULL, &xr);
        dra_tool_notes(tool, a, xr.warnings, xr.notes);
        dra_expand_report_free(&xr);
    }
    return e;
}

dra_tool_errs dra_tool_errs_for(const dra_args *a)
{
    dra_tool_errs c = DRA_TOOL_ERRS_INIT;
    if (dra_args_has(a, DRA_OPT_VERBOSE))
        c = (dra_tool_errs){.every = true};
    return c;
}

dra_err *dra_tool_errs_take(const dra_tool *tool, dra_tool_errs *c)
{
    size_t dropped = c->errs.dropped;
    dra_err *e = dra_errs_take(&c->errs);
    if (!dropped)
        return e;
    /* the kept ones, then one error with the count of the kinds left out */
    int code = e->code;
    dra_tool_print_errs(stderr, tool->prog, NULL, e);
    dra_err_free(e);
    return dra_err_new(code, "... and %zu more errors", dropped);
}

/* Streaming reads with the workload rules of dra_tool_read. */
typedef struct tool_each {
    const dra_tool *tool;
    const dra_args *a;
    int flags;
    dra_obj_fn fn;
    void *ctx;
    dra_objset deferred; /* workloads (and anything with a pod template): expanded at the end */
    dra_objset context;  /* Nodes: where DaemonSets go */
    dra_strset nodes;    /* node names of ResourceSlices in input order (without Nodes, DaemonSets go there) */
    size_t delivered;    /* objects handed to fn so far */
} tool_each;

/* av: obj's apiVersion; spec: its spec */
static bool has_pod_template(const json_t *obj, const char *av, const json_t *spec)
{
    return (av && (strcmp(av, "apps/v1") == 0 || strcmp(av, "batch/v1") == 0)) || json_object_get(spec, "template") ||
           json_object_get(spec, "jobTemplate") || dra_is_workload(obj);
}

static dra_err *deliver(tool_each *te, dra_obj *o)
{
    const char *kind = te->flags & DRA_READ_IDENTITY ? json_string_value(json_object_get(o->json, "kind")) : NULL;
    size_t place = te->delivered++; /* distinct per object: alike pods get distinct names */
    dra_progress_read(te->a->progress, 1);
    if (kind && strcmp(kind, "Pod") == 0) {
        dra_expand_report xr = {0};
        dra_assume_pod_identity_at(o->json, place, NULL, &xr);
        if (xr.assumed)
            o->content_known = false; /* changed since it was read */
        dra_expand_report_free(&xr);
    }
    return te->fn(te->ctx, o);
}

static dra_err *each_object(void *ctx, dra_obj *o)
{
    tool_each *te = ctx;
    if (!(te->flags & DRA_READ_WORKLOADS))
        return deliver(te, o);
    json_t *obj = o->json;
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    bool node = kind && av && strcmp(kind, "Node") == 0 && strcmp(av, "v1") == 0;
    bool slice = kind && strcmp(kind, "ResourceSlice") == 0;
    const json_t *spec = json_object_get(obj, "spec");
    if ((!node && !slice && has_pod_template(obj, av, spec)) ||
        ((te->flags & DRA_READ_IN_ORDER) && te->deferred.n && !node && !slice)) {
        /* kept to the end of the input: out of the arena (io/jalloc.h) */
        dra_objset_add(&te->deferred, dra_jalloc_keep(obj), o->file, o->doc, o->line, o->item);
        return NULL;
    }
    if (node) {
        dra_objset_add(&te->context, dra_jalloc_keep(obj), NULL, 0, 0, -1);
    } else if (slice) {
        const char *nn = json_string_value(json_object_get(spec, "nodeName"));
        if (nn && *nn)
            dra_strset_add(&te->nodes, nn, strlen(nn), NULL);
    }
    return deliver(te, o);
}

dra_err *dra_tool_read_each(const dra_tool *tool, const dra_args *a, char *const *paths, size_t n, int flags,
                            dra_objset *set, dra_obj_fn fn, void *ctx)
{
    dra_err *e = dra_tool_input_options(set, a);
    if (e)
        return e;
    tool_each te = {tool, a, flags, fn, ctx, DRA_OBJSET_INIT, DRA_OBJSET_INIT, {0}, 0};
    dra_progress_read(a->progress, 0);
    e = dra_read_paths_each(set, paths, n, each_object, &te);
    dra_progress_clear(a->progress); /* the notes below, and the phase ends */
    if (te.deferred.n) {
        /* one stub ResourceSlice per node name, as the slices gave them */
        for (size_t i = 0; i < te.nodes.n; i++)
            dra_objset_add(
                &te.context,
                json_pack("{s:s, s:{s:s}}", "kind", "ResourceSlice", "spec", "nodeName", dra_strset_at(&te.nodes, i)),
                NULL, 0, 0, -1);
        /* the workloads, then the context, in one set: the pods take the
         * workloads' places and the context stays at the end */
        size_t nctx = te.context.n;
        for (size_t i = 0; i < nctx; i++) {
            dra_obj *c = &te.context.v[i];
            dra_objset_add(&te.deferred, c->json, NULL, 0, 0, -1);
            c->json = NULL;
        }
        te.context.n = 0;
        dra_expand_report xr = {0};
        dra_err *xe = dra_expand_workloads(&te.deferred, NULL, &xr);
        dra_tool_notes(tool, a, xr.warnings, xr.notes);
        dra_expand_report_free(&xr);
        e = dra_err_append(e, xe);
        size_t last = te.deferred.n - nctx;
        for (size_t i = 0; i < last; i++) {
            dra_err *fe = deliver(&te, &te.deferred.v[i]);
            if (fe) {
                e = dra_err_append(e, fe);
                break;
            }
        }
    }
    dra_progress_clear(a->progress);
    dra_objset_free(&te.deferred);
    dra_objset_free(&te.context);
    dra_strset_free(&te.nodes);
    return e;
}

void dra_tool_report_model(const dra_tool *tool, const dra_args *a, const dra_model *m)
{
    dra_input_report r = {m->warnings, m->skipped, m->collapsed, m->files_repeated};
    dra_tool_report_input(tool, a, &r);
}

int dra_tool_main(const dra_tool *tool, const dra_runner *runners, const dra_optval *vals, int argc, char **argv,
                  void *opts)
{
    dra_args a;
    int rc;
    if (dra_tool_start(tool, argc, argv, &a, &rc))
        return rc;
    rc = DRA_EXIT_OK;
    dra_err *e = dra_args_apply(&a, vals, opts);
    const char *name = a.cmd ? a.cmd->name : NULL;
    for (const dra_runner *r = runners; !e && r->run; r++) {
        if ((!r->cmd && !name) || (r->cmd && name && strcmp(r->cmd, name) == 0)) {
            e = r->run(&a, opts, &rc);
            break;
        }
    }
    return dra_tool_finish(tool, &a, e, rc);
}
