/* HTML pages for people: escaping, the page frame every page shares, and
 * writing a finished page.
 *
 * A page is built whole in a dra_buf (so a page is written entirely or not
 * at all) and then written with dra_html_write.  Pages are self-contained:
 * inline CSS and SVG only, no script, nothing from a network; the frame's
 * Content-Security-Policy forbids scripts and remote loads, so a string the
 * escaping missed still could not run.
 *
 * Ownership: b is the caller's; strings are borrowed.  Nothing here prints
 * or exits.
 */
#ifndef DRA_INSIGHT_HTML_H
#define DRA_INSIGHT_HTML_H

#include <stdio.h>

#include "../base/buf.h"
#include "../base/error.h"

/* s (UTF-8, NULL = "") escaped for text and attribute values: & < > " '
 * become entities; control bytes other than tab and newline become U+FFFD. */
void dra_html_text(dra_buf *b, const char *s);

/* ` name="value"`, value escaped (name is markup: a literal). */
void dra_html_attr(dra_buf *b, const char *name, const char *value);
/* <tag>text</tag>, text escaped (tag is markup: a literal such as "td"). */
void dra_html_elem(dra_buf *b, const char *tag, const char *text);

/* The page up to <body> (doctype, charset, the security policy, the shared
 * style sheet), then <h1>title</h1>; title is escaped. */
void dra_html_begin(dra_buf *b, const char *title);
/* </body></html> */
void dra_html_end(dra_buf *b);

/* The page to f and flushed.  A failed write or flush is DRA_EXIT_RUNTIME
 * ("error writing output: ..."). */
DRA_MUST_USE dra_err *dra_html_write(FILE *f, const dra_buf *b);

#endif
