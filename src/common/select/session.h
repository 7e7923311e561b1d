/* The interactive session behind `dra-select repl`, without the terminal:
 * lines in, text out, completion candidates for a cursor position.  The
 * readline glue (src/dra-select/repl.c) only moves text between the two.
 *
 * A line is either a command (":load FILE", ":devices", ":class [NAME]",
 * ":explain [EXPR]", ":help", ":quit") or a CEL expression.  An expression
 * that does not mention `device` prints its value; a bool expression over
 * `device` is a selector and prints the matching devices (ANDed with the
 * class set by :class); any other expression over `device` prints its value
 * on every device.
 *
 * Ownership: the session owns everything it loads; output goes to a
 * caller-owned dra_buf; completion results are owned by the caller
 * (dra_session_completion_free).  Nothing here prints.
 */
#ifndef DRA_SELECT_SESSION_H
#define DRA_SELECT_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../io/stream.h"
#include "../model/features.h"

typedef struct dra_session dra_session;

/* f may be NULL (defaults); it is copied.  Never NULL. */
dra_session *dra_session_new(const dra_features *f);
void dra_session_free(dra_session *s);

/* How files are read (--validate, -R), for every load from now on. */
void dra_session_set_reading(dra_session *s, dra_field_validation fv, bool recursive);

/* Add a file to the loaded input (everything is reloaded; on error the
 * previous input stays).  Warnings of the load (relaxed unknown or
 * duplicate fields) are appended to *warnings when it is not NULL, else
 * freed; skipped counts objects of kinds the session does not use. */
DRA_MUST_USE dra_err *dra_session_load_report(dra_session *s, const char *path, dra_err **warnings, size_t *skipped);
DRA_MUST_USE dra_err *dra_session_load(dra_session *s, const char *path);
size_t dra_session_device_count(const dra_session *s);

/* Run one line, appending the output (newline-terminated lines) to out.
 * Returns false when the session should end (:quit). */
bool dra_session_line(dra_session *s, const char *line, dra_buf *out);

typedef struct dra_session_completion {
    char **v; /* replacements for the text between word_start and the cursor */
    size_t n;
    bool files; /* complete file names instead (after :load) */
} dra_session_completion;

/* Candidates for the text line[word_start, cursor) (the word readline
 * would replace), given the whole line before the cursor. */
void dra_session_complete(const dra_session *s, const char *line, size_t word_start, size_t cursor,
                          dra_session_completion *out);
void dra_session_completion_free(dra_session_completion *c);

#endif
