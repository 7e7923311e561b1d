/* A thin C interface to RE2 (the C++ library libre2): compile a pattern
 * and search a text, nothing more.  regex.h builds Go's regexp, which
 * Kubernetes' CEL uses, on top of it; nothing else should call this.
 *
 * Ownership: dra_re2_new returns an object the caller releases with
 * dra_re2_free; on failure it returns NULL and *arg is a malloc'd string
 * the caller frees.  A dra_re2 is immutable once built: searches may run
 * on it from any number of threads.  Nothing here throws or prints; out
 * of memory aborts, as the project's allocators do. */
#ifndef DRA_CEL_RE2_H
#define DRA_CEL_RE2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dra_re2 dra_re2;

/* RE2::ErrorCode, in RE2's numbering. */
enum {
    DRA_RE2_OK = 0,
    DRA_RE2_INTERNAL,
    DRA_RE2_BAD_ESCAPE,
    DRA_RE2_BAD_CHAR_CLASS,
    DRA_RE2_BAD_CHAR_RANGE,
    DRA_RE2_MISSING_BRACKET,
    DRA_RE2_MISSING_PAREN,
    DRA_RE2_UNEXPECTED_PAREN,
    DRA_RE2_TRAILING_BACKSLASH,
    DRA_RE2_REPEAT_ARGUMENT,
    DRA_RE2_REPEAT_SIZE,
    DRA_RE2_REPEAT_OP,
    DRA_RE2_BAD_PERL_OP,
    DRA_RE2_BAD_UTF8,
    DRA_RE2_BAD_NAMED_CAPTURE,
    DRA_RE2_PATTERN_TOO_LARGE,
};

/* Compile `len` bytes of UTF-8 in RE2's default (Perl-like) syntax,
 * leftmost-first matching, within `max_mem` bytes of program and DFA
 * memory.  NULL on failure, with RE2's error code in *code and the
 * fragment of the pattern it names (RE2::error_arg) in *arg. */
dra_re2 *dra_re2_new(const char *pattern, size_t len, int64_t max_mem, int *code, char **arg);
void dra_re2_free(dra_re2 *re);

/* Unanchored search of text[start, len) with the whole text as context
 * (for ^, $ and \b).  With `where`, the leftmost-first match is stored in
 * where[0] (start) and where[1] (end).  True when there is a match. */
bool dra_re2_search(const dra_re2 *re, const char *text, size_t len, size_t start, size_t where[2]);

/* Instructions in the compiled program (RE2::ProgramSize). */
int dra_re2_program_size(const dra_re2 *re);

#ifdef __cplusplus
}
#endif

#endif
