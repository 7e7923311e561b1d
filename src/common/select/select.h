/* Device selection with CEL: which devices of the input match a device
 * class, a claim request and extra expressions, and why the others do not.
 *
 * Devices come from the ResourceSlices of a loaded model (model/load.h):
 * slices are grouped by (driver, pool name) and only the newest generation of
 * each pool is kept, as the allocator does (dra.md §3.2 step 4).  A pool
 * whose newest generation has fewer slices than `resourceSliceCount` is
 * incomplete: its devices are still listed (this is a selector tool, not the
 * allocator) and a note says the allocator would not use it.  Devices are in
 * the allocator's order: pools by (driver, pool), slices by name, devices in
 * slice order.
 *
 * A selection is an ordered list of compiled selectors: the class selectors,
 * then the request selectors, then extra expressions, evaluated in that order
 * with the first false or failing one deciding (upstream stops there too).
 * Selectors are numbered from 0 as upstream's messages number them.
 *
 * Ownership: dra_sel_devices owns its cel_dra_device values, ids and notes;
 * it borrows the JSON of the model (keep the model and its object set alive).
 * A dra_selection owns its env, programs and texts.  Verdicts own their
 * error text (dra_sel_verdict_clear).  Nothing here prints.
 */
#ifndef DRA_SELECT_SELECT_H
#define DRA_SELECT_SELECT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../cel/dra.h"
#include "../model/features.h"
#include "../model/load.h"

/* ---- devices ---------------------------------------------------------------- */

typedef struct dra_sel_device {
    const char *driver, *pool, *name; /* borrowed from the slice JSON */
    const char *node;                 /* spec.nodeName or the device's nodeName; NULL otherwise */
    const json_t *device;             /* the v1 Device object (borrowed), or NULL when it is kept as
                                       * text: read it through dra_sel_device_obj */
    const char *text;                 /* the Device as compact JSON (borrowed), or NULL */
    size_t text_len;
    const json_t *slice;       /* the ResourceSlice (borrowed) */
    char *id;                  /* "driver/pool/device" (owned) */
    cel_dra_device *cel_cache; /* converted for CEL on first use (owned): read it through
                                * dra_sel_device_cel */
} dra_sel_device;

/* The device converted for CEL as `how` says (cel_dra_convert_of: the
 * release's conversion), built on first use and kept until
 * dra_sel_device_release or dra_sel_devices_free (one process converts one
 * way).  The conversion is most of
 * a device's memory (a few KiB), so one pass over many devices releases each
 * one after use: memory then follows one device, not the input. */
const cel_dra_device *dra_sel_device_cel(const dra_sel_device *d, const cel_dra_convert *how);
/* The v1 Device object as a new reference (the caller's to drop): the
 * input's, or parsed from its text now (not kept: memory stays with the
 * text). */
json_t *dra_sel_device_ref(const dra_sel_device *d);
/* Drop the CEL form built on first use. */
void dra_sel_device_release(const dra_sel_device *d);

typedef struct dra_sel_devices {
    dra_sel_device *v;
    size_t n;
    char **notes; /* warnings for the user, e.g. incomplete pools (owned) */
    size_t nnotes;
} dra_sel_devices;

/* Gather the devices of every pool's newest generation.  f may be NULL
 * (defaults): with DRAPartitionableDevices off, slices using sharedCounters
 * or perDeviceNodeSelection are skipped as the allocator skips them.
 * `out` must be zeroed.  Never fails today; returns an error chain for
 * future checks. */
DRA_MUST_USE dra_err *dra_sel_gather(const dra_model *m, const dra_features *f, dra_sel_devices *out);
void dra_sel_devices_free(dra_sel_devices *d);
/* Lookup by "driver/pool/device"; NULL when absent. */
const dra_sel_device *dra_sel_find(const dra_sel_devices *d, const char *id);
/* {driver, pool, node (when known), device} as a new JSON reference. */
json_t *dra_sel_device_json(const dra_sel_device *d);

/* Everything a command works on: the objects read, the loaded model and
 * the gathered devices.  Start zeroed; dra_sel_input_free releases all. */
typedef struct dra_sel_input {
    dra_objset set;
    dra_model model;
    dra_sel_devices devs;
} dra_sel_input;

/* Read `paths` (stdin when npaths == 0), load them (kinds of other API
 * groups skipped, validation with features f) and gather devices.  Objects
 * are checked one at a time as they are read; a ResourceSlice keeps each
 * device as compact JSON text (about a quarter of its tree), parsed again
 * when a command needs the object.  Errors:
 * read, parse and validation errors and unknown kinds or versions of
 * resource.k8s.io (DRA_EXIT_INPUT), all of them. */
DRA_MUST_USE dra_err *dra_sel_input_load(dra_sel_input *in, char *const *paths, size_t npaths, const dra_features *f);
void dra_sel_input_free(dra_sel_input *in);

/* ---- selections --------------------------------------------------------------- */

typedef enum { DRA_SEL_CLASS, DRA_SEL_REQUEST, DRA_SEL_EXPR } dra_sel_origin;

typedef struct dra_sel_selector {
    dra_sel_origin origin;
    char *owner;  /* class name, request name ("r" or "r/sub") or NULL for -e */
    char *claim;  /* "ns/name" for request selectors, else NULL */
    size_t index; /* position among the owner's selectors (0-based) */
    char *label;  /* "class C selector #i", "request R selector #j", "-e #k" */
    char *expr;
    cel_program *prog;
} dra_sel_selector;

typedef struct dra_selection {
    cel_env *env;
    dra_release release; /* whose CEL (runtime hints) */
    cel_dra_convert how; /* the release's device conversion */
    dra_sel_selector *v;
    size_t n, cap;
    size_t nexprs; /* -e expressions added so far */
} dra_selection;

/* f may be NULL (defaults); the env follows DRAConsumableCapacity. */
void dra_selection_init(dra_selection *s, const dra_features *f);
void dra_selection_free(dra_selection *s);

/* Add a DeviceClass's selectors.  Errors (DRA_EXIT_INPUT):
 *   device class "C" not found
 *   class C: selector #i: CEL compile error: compilation failed: ...   */
DRA_MUST_USE dra_err *dra_selection_add_class(dra_selection *s, const dra_model *m, const char *name);
/* Add a claim request's class and selectors.  `claim` is "NS/NAME" (a
 * ResourceClaim, else a ResourceClaimTemplate of that name); `request` is
 * "R" or "R/SUB" (a firstAvailable subrequest); NULL picks the only request.
 * Errors: unknown claim or request, a request with subrequests but no SUB,
 * an unknown class ("request R: device class C does not exist"), compile
 * errors ("claim NS/N: selector #j: CEL compile error: ..."). */
DRA_MUST_USE dra_err *dra_selection_add_request(dra_selection *s, const dra_model *m, const char *claim,
                                                const char *request);
/* Add an extra expression ("-e #k: CEL compile error: ..."). */
DRA_MUST_USE dra_err *dra_selection_add_expr(dra_selection *s, const char *expr);

typedef struct dra_sel_verdict {
    bool matched;
    size_t failed; /* index into the selection of the deciding selector when !matched */
    char *error;   /* NULL: that selector was false; else the CEL runtime error with upstream's hint */
} dra_sel_verdict;

/* Evaluate the selection on one device.  An empty selection matches all. */
void dra_selection_match(dra_selection *s, const dra_sel_device *d, dra_sel_verdict *out);
void dra_sel_verdict_clear(dra_sel_verdict *v);

/* "D/P/X: class C selector #0: false" / "...: CEL runtime error: <err>". */
void dra_sel_explain_text(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v, dra_buf *b);
/* {"device": "D/P/X", "matched": bool, "selector": label, "expression": e,
 *  "result": false | "error": msg} (new reference). */
json_t *dra_sel_explain_json(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v);
/* Upstream's wording of a runtime failure:
 * "class C: selector #i on device D/P/X: CEL runtime error: <err>". */
char *dra_sel_runtime_error_text(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v);

/* ---- evaluation of arbitrary expressions ----------------------------------------- */

/* An environment for `eval` and the REPL: the DRA env plus variables given as
 * CEL expressions (each evaluated once, with `device` bound when a device is
 * set).  Variables are typed by their value's static type.
 * Ownership: everything is owned by the struct; dra_sel_eval_free. */
typedef struct dra_sel_eval {
    cel_env *env;        /* the DRA env plus the variables */
    cel_env *var_env;    /* where variable expressions are compiled */
    dra_release release; /* whose CEL (runtime hints) */
    cel_dra_convert how; /* the release's device conversion */
    cel_program **var_progs;
    char **var_names;
    cel_value *var_values; /* live in var_progs' scratch memory */
    size_t nvars;
    const dra_sel_device *device; /* borrowed; NULL = `device` unbound */
    uint64_t cost;                /* actual cost of the last dra_sel_eval_run */
} dra_sel_eval;

void dra_sel_eval_init(dra_sel_eval *ev, const dra_features *f);
void dra_sel_eval_free(dra_sel_eval *ev);
/* Bind `device` for variables defined later and for evaluations. */
void dra_sel_eval_set_device(dra_sel_eval *ev, const dra_sel_device *d);
/* "NAME=CEL": evaluate and declare.  Errors: malformed, compile errors (with
 * caret), runtime errors (DRA_EXIT_INPUT). */
DRA_MUST_USE dra_err *dra_sel_eval_add_var(dra_sel_eval *ev, const char *spec);
/* Compile `expr` in ev->env (any result type).  Error text: cel-go's display
 * with carets. */
DRA_MUST_USE dra_err *dra_sel_eval_compile(dra_sel_eval *ev, const char *expr, cel_program **out);
/* Evaluate a program of dra_sel_eval_compile with the variables and `d` (or
 * ev->device when d is NULL) bound; the runtime cost limit is upstream's
 * 1,000,000.  The value lives until the next evaluation of p. */
cel_value dra_sel_eval_run(dra_sel_eval *ev, cel_program *p, const dra_sel_device *d);

/* True when the expression mentions the identifier `device` (parse only;
 * false when it does not parse). */
bool dra_sel_uses_device(const char *expr);

/* ---- lint ------------------------------------------------------------------------------ */

/* Cost at or above which lint warns that a selector is near the limit. */
#define DRA_SEL_LINT_COST_WARN (CEL_DRA_MAX_COST / 2)

/* Compile every DeviceClass, ResourceClaim and ResourceClaimTemplate
 * selector of the model and check it against `devs`: compile errors, missing
 * classes, runtime errors (`no such key` named, with the number of devices),
 * selectors that no device passes, string comparisons with version
 * attributes, estimated costs over or near the limit.  Problems are returned
 * as one chain (DRA_EXIT_NEGATIVE), each located at its object and field;
 * NULL when everything is fine. */
DRA_MUST_USE dra_err *dra_sel_lint(const dra_model *m, const dra_sel_devices *devs, const dra_features *f);

#endif
