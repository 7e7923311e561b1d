/* UTF-8 and Go's %q quoting: the one copy for the whole library.
 *
 * Decoding is strict, as Go's unicode/utf8 is: overlong forms, surrogates
 * (U+D800..U+DFFF), runes past U+10FFFF and truncated sequences are invalid.
 * Nothing here allocates except the quoting, which appends to a caller-owned
 * buffer.  Inputs are (pointer, length) pairs and may hold NUL bytes.
 */
#ifndef DRA_BASE_UTF8_H
#define DRA_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define DRA_RUNE_MAX 0x10FFFFu
#define DRA_RUNE_ERROR 0xFFFDu /* U+FFFD, what Go decodes an invalid byte to */

/* Width (1..4) of the valid sequence at s, its rune in *r; 0 when n == 0 or
 * the bytes at s do not start a valid sequence (*r is then undefined). */
size_t dra_utf8_decode(const char *s, size_t n, uint32_t *r);

/* Encode r (<= U+10FFFF, not a surrogate) into out; returns the width. */
size_t dra_utf8_encode(uint32_t r, char out[4]);

/* Whether all n bytes are valid UTF-8 (utf8.Valid). */
bool dra_utf8_valid(const char *s, size_t n);

/* Runes in s, each invalid byte counting as one (utf8.RuneCount). */
size_t dra_utf8_len(const char *s, size_t n);

/* Byte offset of rune number `runes` (clamped to n), counted as dra_utf8_len
 * counts. */
size_t dra_utf8_offset(const char *s, size_t n, size_t runes);

/* Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and
 * the ASCII space (Unicode 15.0, as Go 1.21+). */
bool dra_rune_is_print(uint32_t r);

/* Append Go's strconv.Quote(s) (what %q prints for a string) to b: "\"" and
 * "\\" escaped, printable runes as they are, \a \b \f \n \r \t \v, other
 * runes below U+0080 as \xNN, others as \uNNNN or \UNNNNNNNN, and each byte
 * of invalid UTF-8 as \xNN. */
void dra_go_quote(dra_buf *b, const char *s, size_t n);
/* Input an error echoes (a value, a field path), appended to b: cut in the
 * middle past DRA_ECHO_MAX bytes by upstream's rule (dra_echo_cut in
 * error.h); quoted by dra_go_quote after the cut, as Go would slice the
 * string before quoting it. */
void dra_put_echo(dra_buf *b, const char *s, size_t n);
void dra_go_quote_echo(dra_buf *b, const char *s, size_t n);

/* Go's strings.TrimSpace: *s and *n narrowed to the text without the
 * Unicode white space (unicode.IsSpace) at either end. */
void dra_go_trim_space(const char **s, size_t *n);

#endif
