/* dra-select's command table: subcommands, options and help (cmds.h). */
#include "cmds.h"

/* clang-format off */
static const dra_opt select_opts[] = {
    {OPT_CLASS, "class", 'c', DRA_ARG_REQUIRED, "NAME", "apply this DeviceClass's selectors", DRA_COMPLETE_DEVICECLASSES},
    {OPT_EXPR, "expr", 'e', DRA_ARG_REQUIRED, "CEL", "also require this expression (repeatable)", NULL},
    {OPT_CLAIM, "claim", 0, DRA_ARG_REQUIRED, "[NS/]NAME", "use a request of this ResourceClaim (or template)", NULL},
    {OPT_NAMESPACE, "namespace", 'n', DRA_ARG_REQUIRED, "NS", "namespace of --claim NAME (default: default, as kubectl)", NULL},
    {OPT_REQUEST, "request", 'r', DRA_ARG_REQUIRED, "R[/SUB]", "the request of --claim (default: its only one)", NULL},
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_EXPLAIN_ENTRIES,
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"),
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};
/* clang-format on */

static const dra_opt eval_opts[] = {
    {OPT_VAR, "var", 0, DRA_ARG_REQUIRED, "NAME=CEL", "declare a variable with this value (repeatable)", NULL},
    {OPT_DEVICE, "device", 'd', DRA_ARG_REQUIRED, "DRIVER/POOL/DEVICE", "bind `device` to this device of the input",
     NULL},
    DRA_OPT_FEATURE_GATES_ENTRY,
    DRA_OPT_INPUT_ENTRIES,
    DRA_OPT_END,
};

static const dra_opt gate_opts[] = {DRA_OPT_FEATURE_GATES_ENTRY, DRA_OPT_END};
/* clang-format off */
static const dra_opt lint_opts[] = {DRA_OPT_FEATURE_GATES_ENTRY, DRA_OPT_INPUT_ENTRIES, DRA_OPT_OUTPUT_ENTRY("text json jsonl"),
                                    DRA_OPT_END};
/* clang-format on */
static const dra_opt repl_opts[] = {DRA_OPT_FEATURE_GATES_ENTRY, DRA_OPT_INPUT_ENTRIES, DRA_OPT_END};

static const dra_cmd cmds[] = {
    {"select", "[select] [--class NAME] [--claim NS/NAME [--request R]] [-e CEL]... [OPTIONS] [FILES]",
     "print the devices that match a class, a claim request and expressions",
     "Devices come from the newest generation of every pool in the input's ResourceSlices (devices\n"
     "of incomplete pools are listed, with a note). A device matches when every class selector, then\n"
     "every request selector, then every -e expression is true. Output: driver/pool/device lines, or\n"
     "{driver, pool, node, device} objects with -o. --explain tells on stderr (--explain-file: in a\n"
     "file), for every other device, the first selector that was false or failed. Exit: 0 matches,\n"
     "1 none, 2 input, compile or CEL runtime errors (upstream's scheduler fails the allocation\n"
     "on any CEL error).",
     select_opts, "file"},
    {"eval", "eval [--var NAME=CEL]... [--device DRIVER/POOL/DEVICE] EXPR [FILES]",
     "evaluate a CEL expression and print its value in CEL syntax",
     "The expression may use `device` (with --device, from the input) and the --var variables.\n"
     "Exit 2 on a compile or runtime error.",
     eval_opts, "file"},
    {"check", "check EXPR...", "compile selectors; print the result type and estimated cost",
     "Compiles as the API server validates a new selector (NewExpressions; see dra-select(1)).\n"
     "Exit 2 when one does not compile, does not yield bool, or costs more than 1000000.",
     gate_opts, ""},
    {"lint", "lint [FILES]", "check every class and claim selector against the input's devices",
     "One line per problem: compile errors, keys that raise `no such key`, selectors no device\n"
     "passes, string comparisons with version attributes, capacity names no device publishes (in\n"
     "selectors and capacity requests), costs near the limit. Exit 1 on problems.",
     lint_opts, "file"},
    {"repl", "repl [FILES]", "interactive CEL session on the input's devices",
     "Each expression prints its value, or for a bool expression over `device` the matching devices.\n"
     "Commands: :load FILE, :devices, :class [NAME], :explain [EXPR], :help, :quit. History in\n"
     "$DRA_SELECT_HISTORY (default ~/.dra_select_history). --validate and -R apply to :load too.",
     repl_opts, "file"},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

/* clang-format off */
const dra_tool dra_select_tool = {"dra-select", "compile and evaluate CEL device selectors; show which devices match and why not",
                              cmds, "select"};
/* clang-format on */
