/* The few lines every tool's main() shares.
 *
 *   int main(int argc, char **argv) {
 *       dra_args a;
 *       int rc;
 *       if (dra_tool_start(&tool, argc, argv, &a, &rc)) return rc;  // usage error, --help, --version
 *       ... library calls ...
 *       return dra_tool_finish(&tool, &a, err);  // prints err, checks stdout, frees a
 *   }
 */
#ifndef DRA_TOOL_TOOL_H
#define DRA_TOOL_TOOL_H

#include "cli.h"
#include "flood.h"
#include "../base/buf.h"
#include "../io/stream.h"
#include "../model/features.h"
#include "../model/load.h"

/* The whole of a main with run functions:
 *
 *   int main(int argc, char **argv) {
 *       struct opts o = {defaults};
 *       return dra_tool_main(&tool, runners, vals, argc, argv, &o);
 *   }
 *
 * Parses argv (usage errors, --help, --version, --completion), writes the
 * options vals lists into opts, runs the selected subcommand's runner and
 * finishes (dra_tool_finish).  Returns the exit code. */
int dra_tool_main(const dra_tool *tool, const dra_runner *runners, const dra_optval *vals, int argc, char **argv,
                  void *opts);

/* Write an explanation (--explain): to `file` when not NULL (--explain-file:
 * created or replaced whole and atomically, base/wfile.h, mode 0644 less
 * the umask; "-" is standard output), else to stderr.  Errors
 * (DRA_EXIT_RUNTIME) name the file. */
DRA_MUST_USE dra_err *dra_tool_explain_write(const char *file, const dra_buf *b);

/* Parse argv and handle --help/--version/--completion and usage errors.
 * Returns true when main should return *rc right away (a is then freed). */
bool dra_tool_start(const dra_tool *tool, int argc, char **argv, dra_args *a, int *rc);
/* Print err (if any, freeing it; a flood as flood.h says), flush and check
 * stdout, free a.
 * Returns the exit code: err's class, DRA_EXIT_RUNTIME when stdout failed, else ok_code. */
int dra_tool_finish(const dra_tool *tool, dra_args *a, dra_err *err, int ok_code);

/* Set a set's reading options from the shared input options (--validate, -R). */
DRA_MUST_USE dra_err *dra_tool_input_options(dra_objset *set, const dra_args *a);

/* The gates of the release --kubernetes-version names, else
 * $DRA_KUBERNETES_VERSION, else the one the first snapshot among the input
 * files records (dra-watch snapshot; a release the tools do not know is a
 * warning and the default), else DRA_RELEASE_DEFAULT (model/features.h);
 * then every --feature-gates value of a in order.  -v says which release
 * and why.  A bad version is a usage error naming the option (or the
 * variable) and listing the releases known. */
DRA_MUST_USE dra_err *dra_tool_features(const dra_tool *tool, const dra_args *a, dra_features *f);

/* Read paths (stdin when none) into set with the shared input options.
 * DRA_READ_WORKLOADS: a manifest is not a dump: replace workloads by the
 * pods their controllers would make (warnings always, notes with -v);
 * DRA_READ_IDENTITY: also give those pods the names and UIDs the API server
 * would give them. */
enum { DRA_READ_WORKLOADS = 1, DRA_READ_IDENTITY = 2, DRA_READ_IN_ORDER = 4 };
DRA_MUST_USE dra_err *dra_tool_read(const dra_tool *tool, const dra_args *a, char *const *paths, size_t n, int flags,
                                    dra_objset *set);

/* A gatherer of a run's errors (flood.h): folding and capped, or with -v
 * keeping every one. */
dra_tool_errs dra_tool_errs_for(const dra_args *a);

/* The errors a dra_tool_errs kept (flood.h), for a runner to return; c is
 * emptied.  When errors of kinds not kept were dropped, the kept ones are
 * printed here (the tool's main prints through this) and one error "...
 * and N more errors" is returned, so the output is what dra_tool_finish
 * prints for the whole chain. */
DRA_MUST_USE dra_err *dra_tool_errs_take(const dra_tool *tool, dra_tool_errs *c);

/* dra_tool_read for tools that look at one object at a time: each object
 * goes to fn as it is read (dra_read_paths_each; see there for what fn may
 * do and what the caller must decide about objects before a read error).
 * With DRA_READ_WORKLOADS, workloads are held until the end (with the
 * Nodes, and the node names of ResourceSlices, that DaemonSets need) and
 * their pods handed to fn then, after every other object; DRA_READ_IDENTITY
 * names pods as they come.  DRA_READ_IN_ORDER (where the order of pods
 * matters, as in scheduling): after the first workload every object but
 * ResourceSlices and Nodes is held too, so the objects reach fn in the order
 * of a whole read (dra_tool_read), the held ones as small as pods are.  set gives the options and collects the file
 * names and the reader's warnings. */
DRA_MUST_USE dra_err *dra_tool_read_each(const dra_tool *tool, const dra_args *a, char *const *paths, size_t n,
                                         int flags, dra_objset *set, dra_obj_fn fn, void *ctx);

/* What a command reads of its input (dra_tool_load). */
typedef struct dra_tool_uses {
    uint32_t kinds;                   /* 1u << k for each dra_kind it reads; DRA_TOOL_ALL_KINDS */
    bool (*other)(const json_t *obj); /* an object of a kind outside the model that it reads from
                                       * the set (a ResourceQuota); NULL: none */
    /* NULL, or where ResourceSlices go instead of the set (converted and
     * checked; borrowed for the call), e.g. packed as text */
    void (*slice)(void *ctx, const json_t *slice);
    /* NULL, or where ResourceClaims go instead of the set (the same way),
     * e.g. as compact records (model/compact.h) */
    void (*claim)(void *ctx, const json_t *claim);
    /* NULL, or where Pods go instead of the set (the same way) */
    void (*pod)(void *ctx, const json_t *pod);
    /* NULL, or asked of every other object of a kind read (checked, about
     * to be kept in set): true when the command took it instead (as a
     * record, e.g. dra_cluster_take_pod), so that it is not kept */
    bool (*take)(void *ctx, dra_kind kind, const dra_obj *o);
    /* NULL, or told once every object is read and checked, before set is
     * loaded into model: it may add objects to set (as checked ones) */
    void (*read_done)(void *ctx, dra_objset *set);
    void *ctx; /* of slice, claim, pod, take and read_done */
    /* keep the objects of the kinds read as they were read, unchecked, and
     * load none into model, for a command that loads what is kept its own
     * way (errors, warnings and counts of model are then the dropped
     * objects'); `slice` is not used, `other` keeps its objects as usual */
    bool as_read;
} dra_tool_uses;
#define DRA_TOOL_ALL_KINDS UINT32_MAX

/* The input read (dra_tool_read_each, flags as there) and loaded
 * (dra_load) as dra_tool_read then dra_load would, one object at a time:
 * each object is checked as it is read (a dra_loader: the same errors and
 * warnings), then kept in set only when the command reads its kind, else
 * dropped.  So memory follows the objects the command uses, not the input:
 * objects of other kinds, and ones that are errors, cost nothing once read
 * (their errors fold, base/error.h).  Kept objects keep their field lines,
 * stdin's too (dra_objset_keep).  Objects already in set (made up by the
 * command) are checked first and kept.  model gets the kept objects;
 * model->skipped counts every object dropped for its kind (unknown kinds
 * included), for dra_tool_report_model. */
DRA_MUST_USE dra_err *dra_tool_load(const dra_tool *tool, const dra_args *a, char *const *paths, size_t n, int flags,
                                    const dra_tool_uses *uses, const dra_load_opts *lo, dra_objset *set,
                                    dra_model *model);

/* What reading the input relaxed or skipped: every warning ("prog: warning:
 * ..."), and with -v (DRA_OPT_VERBOSE) one line per kind of skip. */
typedef struct dra_input_report {
    const dra_err *warnings; /* borrowed */
    size_t skipped;          /* objects of kinds the tool does not use */
    size_t collapsed;        /* identical duplicates counted once */
    size_t files_repeated;   /* files named twice, read once */
} dra_input_report;
void dra_tool_report_input(const dra_tool *tool, const dra_args *a, const dra_input_report *r);
/* dra_tool_report_input over what loading m relaxed or skipped. */
void dra_tool_report_model(const dra_tool *tool, const dra_args *a, const dra_model *m);
/* msg with the option a library hint names: "msg (--all)" when the option
 * was given, else "msg (see --all: <its help>)"; msg alone without hint
 * (or when the command has no such option).  Caller frees. */
char *dra_tool_hinted(const dra_args *a, const char *msg, const char *hint);
/* Every warning ("prog: warning: ..."), and with -v every note. */
void dra_tool_notes(const dra_tool *tool, const dra_args *a, const dra_err *warnings, const dra_err *notes);
/* One note on stderr when -v is given: "prog: " + printf. */
void dra_tool_verbose(const dra_tool *tool, const dra_args *a, const char *fmt, ...) DRA_PRINTF(3, 4);

#endif
