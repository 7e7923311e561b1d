/* What the dra-select subcommands compute, over select.h: `check`, `eval`
 * and the per-device notes of `select`.
 *
 * Ownership: arguments are borrowed; text is appended to the caller's
 * buffer; returned error chains are the caller's.
 */
#ifndef DRA_SELECT_COMMANDS_H
#define DRA_SELECT_COMMANDS_H

#include <stddef.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../model/features.h"
#include "select.h"

/* `check`: compile selectors as the API server validates a new one
 * (upstream's pkg/apis/resource/validation validateCELExpression: the
 * NewExpressions environment of the gates in f, and its cost rule).
 * One line per compiled expression, "type T, estimated cost LO..HI", and
 * one error per expression that does not compile or costs more than
 * CEL_DRA_MAX_COST; both are prefixed "#i: " when there are several. */
DRA_MUST_USE dra_err *dra_sel_check(char *const *exprs, size_t n, const dra_features *f, dra_buf *out);

/* `eval`: evaluate expr with `device` bound to the device of that ID among
 * devs (when device is set) and the variables ("NAME=CEL") declared in
 * order; appends the value in CEL syntax and a newline.  A device that is
 * not among devs is an error about the parameter "device". */
DRA_MUST_USE dra_err *dra_sel_eval_expr(const char *expr, const dra_sel_devices *devs, const char *device,
                                        const char *const *vars, size_t nvars, const dra_features *f, dra_buf *out);

/* `select` over devs: the devices that match, in input order (*matched, an
 * array the caller frees, of devices borrowed from devs), and for every
 * other device what dra_sel_note says, one line each appended to notes
 * (with error_prefix before each line in DRA_SEL_NOTE_ERRORS mode).
 * Returns the number of matches; *failed counts CEL runtime errors. */
typedef enum { DRA_SEL_NOTE_ERRORS, DRA_SEL_NOTE_TEXT, DRA_SEL_NOTE_JSON } dra_sel_note_mode;
size_t dra_sel_select(dra_selection *s, const dra_sel_devices *devs, dra_sel_note_mode mode, const char *error_prefix,
                      const dra_sel_device ***matched, size_t *failed, dra_buf *notes);

/* --claim of `select`: a request of the claim "NS/NAME", or of a bare NAME
 * in namespace ns (NULL: "default", as kubectl). */
DRA_MUST_USE dra_err *dra_sel_add_claim(dra_selection *s, const dra_model *m, const char *claim, const char *ns,
                                        const char *request);

/* What `select` says about a device that did not match: with ERRORS only a
 * runtime error, in upstream's words; with TEXT the explain line; with JSON
 * the explain object on one line.  Appended to b without a newline;
 * nothing when there is nothing to say. */
void dra_sel_note(const dra_selection *s, const dra_sel_device *d, const dra_sel_verdict *v, dra_sel_note_mode mode,
                  dra_buf *b);

#endif
