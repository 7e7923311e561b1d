/* Command-line parsing from one option table per (sub)command.
 *
 * The same table drives parsing, `--help` text and shell completion scripts
 * (`--completion bash|zsh|fish`, the source of the files in completions/), so
 * the three cannot disagree.  Options shared by every tool have the same
 * meaning everywhere (see DRA_OPT_* ids below).
 *
 * Parsing never prints or exits: dra_cli_parse() returns an error (exit class
 * DRA_EXIT_INPUT) for unknown options, missing or unexpected arguments.
 * Arguments are borrowed from argv.
 */
#ifndef DRA_TOOL_CLI_H
#define DRA_TOOL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../base/error.h"

enum dra_opt_arg { DRA_ARG_NONE, DRA_ARG_REQUIRED, DRA_ARG_OPTIONAL /* --explain[=json] */ };

/* Typed options (git's parse-options style): after parsing, a tool's value
 * table writes each given option's value into the tool's option struct at
 * `off`, so a run function reads plain fields instead of looping over argv.
 * Every option a tool reads has an entry; tool/ itself reads the standard
 * options through tool/args.h. */
typedef enum dra_opt_type {
    DRA_T_BOOL = 1, /* bool: true when given */
    DRA_T_INT,      /* long long in [min, max]: "must be an integer between MIN and MAX, not 'V'" */
    DRA_T_ENUM,     /* int: index of the value among the option's completion words:
                       "unknown NOUN V (want A or B)"; 0 when an optional value is not given */
    DRA_T_STRING,   /* const char *: the last value, borrowed from argv */
    DRA_T_STRINGS,  /* dra_strv: every value in command-line order */
    DRA_T_COUNT,    /* int: how many times given (-v -v) */
} dra_opt_type;

typedef struct dra_optval {
    int id; /* the option (dra_opt.id) */
    dra_opt_type type;
    size_t off;         /* offset of the field in the tool's option struct */
    long long min, max; /* DRA_T_INT bounds */
    const char *noun;   /* DRA_T_ENUM: what a value is ("format"); NULL = "value" */
} dra_optval;

/* Entries of a value table (terminated by DRA_VAL_END); ST is the tool's
 * option struct, F its field. */
#define DRA_VAL_BOOL(id, ST, F)                                                                                        \
    {                                                                                                                  \
        id, DRA_T_BOOL, offsetof(ST, F), 0, 0, NULL                                                                    \
    }
#define DRA_VAL_INT(id, ST, F, lo, hi)                                                                                 \
    {                                                                                                                  \
        id, DRA_T_INT, offsetof(ST, F), lo, hi, NULL                                                                   \
    }
#define DRA_VAL_ENUM(id, ST, F, noun)                                                                                  \
    {                                                                                                                  \
        id, DRA_T_ENUM, offsetof(ST, F), 0, 0, noun                                                                    \
    }
#define DRA_VAL_STRING(id, ST, F)                                                                                      \
    {                                                                                                                  \
        id, DRA_T_STRING, offsetof(ST, F), 0, 0, NULL                                                                  \
    }
#define DRA_VAL_STRINGS(id, ST, F)                                                                                     \
    {                                                                                                                  \
        id, DRA_T_STRINGS, offsetof(ST, F), 0, 0, NULL                                                                 \
    }
#define DRA_VAL_COUNT(id, ST, F)                                                                                       \
    {                                                                                                                  \
        id, DRA_T_COUNT, offsetof(ST, F), 0, 0, NULL                                                                   \
    }
#define DRA_VAL_END                                                                                                    \
    {                                                                                                                  \
        0, 0, 0, 0, 0, NULL                                                                                            \
    }

/* The values of a repeatable option; borrowed from argv, the array belongs
 * to the dra_args it was applied from. */
typedef struct dra_strv {
    const char *const *v;
    size_t n;
} dra_strv;

typedef struct dra_opt {
    int id;           /* > 0; returned with each parsed occurrence */
    const char *name; /* long name without "--" */
    char short_name;  /* 0 for none */
    enum dra_opt_arg arg;
    const char *arg_name; /* "FILE", "NAME" ... for help */
    const char *help;     /* one line; NULL hides the option (from --help and the
                             completions): a switch for the tests only */
    const char *complete; /* completion of the argument: "file", "dir", space-separated words, or "!COMMAND":
                             a shell command whose output lines are the words (run at completion
                             time; it silences its own errors; no ' [ ] : in it); NULL = none */
} dra_opt;

/* Ids of the options every tool shares (tools number their own from 100). */
/* clang-format off */
enum {
    DRA_OPT_HELP = 1,
    DRA_OPT_VERSION,
    DRA_OPT_OUTPUT,        /* -o yaml|json|jsonl (+ tables where a tool offers them) */
    DRA_OPT_FEATURE_GATES,
    DRA_OPT_NODE,
    DRA_OPT_NOW,
    DRA_OPT_EXPLAIN,
    DRA_OPT_COMPLETION,    /* hidden: --completion bash|zsh|fish */
    DRA_OPT_VALIDATE,      /* --validate strict|warn|ignore: unknown and duplicate fields, as kubectl */
    DRA_OPT_RECURSIVE,     /* -R: directories recursively, as kubectl */
    DRA_OPT_VERBOSE,       /* -v: say what was skipped and why; print every error */
    DRA_OPT_EXPLAIN_FILE,  /* --explain-file FILE: the explanation to FILE, not stderr (dra_tool_explain_write) */
    DRA_OPT_KUBERNETES_VERSION, /* --kubernetes-version V: whose gate table (dra_tool_features) */
    DRA_OPT_FILENAME,      /* -f FILE: one more input file, as kubectl (appended to the positional ones) */
    DRA_OPT_NAMESPACE,     /* -n NS: an offline report's rows of one namespace (dra_namespace_shown) */
    DRA_OPT_ALL_NAMESPACES, /* -A: every namespace (the default offline: a file has no context) */
    DRA_OPT_TOOL_BASE = 100,
};

#define DRA_OPT_HELP_ENTRY {DRA_OPT_HELP, "help", 'h', DRA_ARG_NONE, NULL, "show this help and exit", NULL}
#define DRA_OPT_VERSION_ENTRY {DRA_OPT_VERSION, "version", 0, DRA_ARG_NONE, NULL, "show the version and exit", NULL}
#define DRA_OPT_OUTPUT_ENTRY(words) {DRA_OPT_OUTPUT, "output", 'o', DRA_ARG_REQUIRED, "FORMAT", "output format: " words, words}
/* The release and its gates, always together (two entries): --feature-gates
 * adjusts the table --kubernetes-version selects (dra_tool_features). */
#define DRA_OPT_FEATURE_GATES_ENTRY                                                                                    \
    {DRA_OPT_FEATURE_GATES, "feature-gates", 0, DRA_ARG_REQUIRED, "GATE=BOOL,...",                                   \
     "enable or disable Kubernetes feature gates", DRA_COMPLETE_GATES},                                               \
    DRA_OPT_KUBERNETES_VERSION_ENTRY
#define DRA_OPT_KUBERNETES_VERSION_ENTRY                                                                               \
    {DRA_OPT_KUBERNETES_VERSION, "kubernetes-version", 0, DRA_ARG_REQUIRED, "1.N",                                   \
     "the release whose feature gates apply: 1.36, 1.37 or 1.38 (default: $DRA_KUBERNETES_VERSION, else a snapshot's, else 1.37)",       \
     "1.36 1.37 1.38"}
#define DRA_OPT_NODE_ENTRY(help) {DRA_OPT_NODE, "node", 0, DRA_ARG_REQUIRED, "NAME", help, NULL}
#define DRA_OPT_NOW_ENTRY {DRA_OPT_NOW, "now", 0, DRA_ARG_REQUIRED, "RFC3339", "evaluate as of this time instead of the clock", NULL}
#define DRA_OPT_EXPLAIN_ENTRY {DRA_OPT_EXPLAIN, "explain", 0, DRA_ARG_OPTIONAL, "text|json", "explain the decisions on stderr", "text json"}
#define DRA_OPT_EXPLAIN_FILE_ENTRY {DRA_OPT_EXPLAIN_FILE, "explain-file", 0, DRA_ARG_REQUIRED, "FILE", "the explanation to FILE (- for standard output), not stderr (implies --explain)", "file"}
/* Every tool that explains offers both. */
#define DRA_OPT_EXPLAIN_ENTRIES DRA_OPT_EXPLAIN_ENTRY, DRA_OPT_EXPLAIN_FILE_ENTRY
#define DRA_OPT_VALIDATE_ENTRY {DRA_OPT_VALIDATE, "validate", 0, DRA_ARG_REQUIRED, "MODE", "unknown or duplicate fields: strict (an error, the default), warn or ignore", "strict warn ignore"}
#define DRA_OPT_RECURSIVE_ENTRY {DRA_OPT_RECURSIVE, "recursive", 'R', DRA_ARG_NONE, NULL, "read directories given as input recursively", NULL}
#define DRA_OPT_VERBOSE_ENTRY {DRA_OPT_VERBOSE, "verbose", 'v', DRA_ARG_NONE, NULL, "say on stderr what was skipped and why, and print every error", NULL}
#define DRA_OPT_FILENAME_ENTRY {DRA_OPT_FILENAME, "filename", 'f', DRA_ARG_REQUIRED, "FILE", "read this file or directory too, after the ones named as arguments (repeatable)", "file"}
/* -n/-A on a report over files: kubectl's flags; offline every namespace is
 * shown unless -n names one (a file has no context namespace); -A wins. */
#define DRA_OPT_NAMESPACE_ENTRIES \
    {DRA_OPT_NAMESPACE, "namespace", 'n', DRA_ARG_REQUIRED, "NS", "only what belongs to namespace NS (default: every namespace)", NULL}, \
    {DRA_OPT_ALL_NAMESPACES, "all-namespaces", 'A', DRA_ARG_NONE, NULL, "every namespace (the default; wins over -n)", NULL}
/* The options of every tool that reads objects. */
#define DRA_OPT_INPUT_ENTRIES DRA_OPT_FILENAME_ENTRY, DRA_OPT_VALIDATE_ENTRY, DRA_OPT_RECURSIVE_ENTRY, DRA_OPT_VERBOSE_ENTRY
/* clang-format on */
/* GATE=true and GATE=false for every gate a release the tools know has. */
#define DRA_COMPLETE_GATES "@gates"
/* Completions from the cluster and the kubeconfig, through kubectl (quietly
 * nothing when it is missing or the cluster cannot be reached). */
#define DRA_COMPLETE_CONTEXTS "!kubectl config get-contexts -o name 2>/dev/null"
#define DRA_COMPLETE_NAMES(plural) "!kubectl get " plural " -o name --request-timeout=2s 2>/dev/null | cut -d/ -f2"
#define DRA_COMPLETE_NAMESPACES DRA_COMPLETE_NAMES("namespaces")
#define DRA_COMPLETE_DEVICECLASSES DRA_COMPLETE_NAMES("deviceclasses")
#define DRA_OPT_END                                                                                                    \
    {                                                                                                                  \
        0, NULL, 0, DRA_ARG_NONE, NULL, NULL, NULL                                                                     \
    }

typedef struct dra_cmd {
    const char *name;          /* subcommand name; NULL for a tool without subcommands */
    const char *usage;         /* "build --driver D [OPTIONS] INVENTORY..." (without the program name) */
    const char *summary;       /* one line */
    const char *details;       /* optional paragraph(s) printed after the options */
    const dra_opt *opts;       /* terminated by DRA_OPT_END */
    const char *args_complete; /* completion of positional arguments: "file" or words; NULL = files */
} dra_cmd;

typedef struct dra_tool {
    const char *prog; /* "dra-slice" */
    const char *summary;
    const dra_cmd *cmds;     /* terminated by an entry with name == NULL and opts == NULL;
                                a tool without subcommands has one entry with name == NULL */
    const char *default_cmd; /* subcommand used when argv[1] is not a subcommand; NULL = required */
} dra_tool;

typedef struct dra_parsed_opt {
    int id;
    const char *value; /* NULL for options without an argument */
} dra_parsed_opt;

typedef struct dra_args {
    const dra_cmd *cmd;   /* the selected (sub)command */
    bool cmd_given;       /* the subcommand was named on the command line */
    dra_parsed_opt *opts; /* in command-line order; owned (dra_args_free) */
    size_t nopts;
    char **pos; /* positional arguments (borrowed from argv) */
    size_t npos;
    const char **strv;             /* storage of the DRA_T_STRINGS values (owned) */
    struct dra_progress *progress; /* progress.h: made by dra_tool_start (owned) */
} dra_args;

/* Parse argv (argv[0] is the program).  "--" ends options; "-" is positional.
 * Options may appear after positional arguments.  The values of -f
 * (DRA_OPT_FILENAME) are positional arguments too, after the others in
 * the order given (a leading non-file argument, such as an expression,
 * stays first). */
DRA_MUST_USE dra_err *dra_cli_parse(const dra_tool *tool, int argc, char **argv, dra_args *out);
void dra_args_free(dra_args *a);

/* Write the options given in a that vals lists into opts (the struct the
 * offsets refer to).  Errors are usage errors (DRA_EXIT_INPUT) whose field
 * is the option ("--nodes"). */
DRA_MUST_USE dra_err *dra_args_apply(dra_args *a, const dra_optval *vals, void *opts);

/* A subcommand's work over the tool's option struct (values applied):
 * returns an error or sets *rc (DRA_EXIT_*; DRA_EXIT_OK is preset). */
typedef dra_err *dra_run_fn(const dra_args *a, void *opts, int *rc);
typedef struct dra_runner {
    const char *cmd; /* dra_cmd.name; NULL for a tool without subcommands */
    dra_run_fn *run;
} dra_runner;

/* Help for one command (or the tool overview when cmd is NULL). */
void dra_cli_help(FILE *f, const dra_tool *tool, const dra_cmd *cmd);
/* Completion script for "bash", "zsh" or "fish". */
DRA_MUST_USE dra_err *dra_cli_completion(FILE *f, const dra_tool *tool, const char *shell);

/* Standard handling shared by every main: --help, --version, --completion.
 * Returns true when one of them was handled (the caller exits with *exit_code). */
bool dra_cli_standard(const dra_tool *tool, const dra_args *a, int *exit_code);

/* Check and flush stdout at exit: a failed write is an error (DRA_EXIT_RUNTIME),
 * unless the reader has gone (dra_stdout_gone). */
DRA_MUST_USE dra_err *dra_stdout_close(void);

/* Standard output is a pipe or socket whose reader has gone (`| head -1`):
 * what is still to be written has nowhere to go, and is not an error. */
bool dra_stdout_gone(void);

#endif
