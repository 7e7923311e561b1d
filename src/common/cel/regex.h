/* Regular expressions as Go's regexp package reads and runs them, which is
 * what Kubernetes' CEL uses for matches(), find() and findAll(): RE2
 * syntax, leftmost-first matching in linear time, Go's error texts.
 *
 * Built on RE2 (re2.h).  RE2 and Go's regexp/syntax share their parser's
 * design; where they differ the pattern is rewritten or rejected before
 * RE2 sees it, as Go 1.26 would read it:
 *   - \C (any byte) is an invalid escape;
 *   - \p{NAME}: Go's names (regex_unicode.c), spelled as RE2 knows them;
 *   - (?<name>re) is a named group; names are ASCII [A-Za-z0-9_]+;
 *   - nesting deeper than 1,000 is "expression nests too deeply";
 *   - invalid UTF-8 is reported where Go's parser meets it;
 *   - errors read "error parsing regexp: CODE: `FRAGMENT`" with Go's codes;
 *   - in the text searched, each byte of invalid UTF-8 is one U+FFFD, as
 *     Go decodes it (`.` and [^a] match it; RE2 alone matches nothing).
 * A pattern RE2 cannot compile within its memory budget is "expression too
 * large", as Go calls the patterns over its own size limit.
 *
 * Ownership: cel_regex_compile returns an object freed by cel_regex_free,
 * or NULL and a malloc'd message in *err the caller frees.  A compiled
 * regex is immutable: it may be searched from several threads. */
#ifndef DRA_CEL_REGEX_H
#define DRA_CEL_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"

typedef struct cel_regex cel_regex;

/* regexp.Compile(pattern): `len` bytes, NUL bytes allowed. */
cel_regex *cel_regex_compile(const char *pattern, size_t len, char **err);
void cel_regex_free(cel_regex *re);

/* re.MatchString(text). */
bool cel_regex_match(const cel_regex *re, const char *text, size_t len);

/* re.FindAllStringIndex(text, limit) (limit < 0: all): each match, in
 * order, as byte offsets into text passed to emit.  Returns the count. */
size_t cel_regex_find_all(const cel_regex *re, const char *text, size_t len, int64_t limit,
                          void (*emit)(void *ud, size_t start, size_t end), void *ud);

/* RE2 class items (text for inside [...]) for Go's \p{name} (negated:
 * \P{name}); false when Go knows no class of that name.  regex_unicode.c. */
bool cel_regex_unicode_items(const char *name, size_t len, bool negated, dra_buf *items);

#endif
