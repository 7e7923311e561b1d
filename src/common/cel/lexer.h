/* CEL lexer: source bytes -> token array.
 *
 * Token rules follow the lexer part of cel-spec's CEL.g4 (as generated into
 * cel-go parser/gen): numbers, strings/bytes in every quoting form, raw
 * strings, identifiers, backquoted identifiers, `//` comments.  Characters
 * that start no token are reported as ANTLR does ("token recognition error
 * at: '...'") and skipped, so the parser still sees the rest.
 *
 * Literal token text is kept raw; cel_unescape() decodes string/bytes bodies.
 * Ownership: the token array lives in the caller's arena.
 */
#ifndef DRA_CEL_LEXER_H
#define DRA_CEL_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/arena.h"
#include "../base/buf.h"

/* clang-format off */
typedef enum cel_tok_kind {
    CEL_TOK_EOF = 0,
    CEL_TOK_INT, CEL_TOK_UINT, CEL_TOK_FLOAT, CEL_TOK_STRING, CEL_TOK_BYTES,
    CEL_TOK_IDENT, CEL_TOK_ESC_IDENT, /* `a.b-c` (backquotes kept in the text) */
    CEL_TOK_TRUE, CEL_TOK_FALSE, CEL_TOK_NULL, CEL_TOK_IN,
    CEL_TOK_EQ, CEL_TOK_NE, CEL_TOK_LT, CEL_TOK_LE, CEL_TOK_GE, CEL_TOK_GT,
    CEL_TOK_AND, CEL_TOK_OR,
    CEL_TOK_LBRACKET, CEL_TOK_RBRACKET, CEL_TOK_LBRACE, CEL_TOK_RBRACE,
    CEL_TOK_LPAREN, CEL_TOK_RPAREN, CEL_TOK_DOT, CEL_TOK_COMMA, CEL_TOK_MINUS,
    CEL_TOK_EXCLAM, CEL_TOK_QUESTION, CEL_TOK_COLON, CEL_TOK_PLUS, CEL_TOK_STAR,
    CEL_TOK_SLASH, CEL_TOK_PERCENT,
} cel_tok_kind;
/* clang-format on */

typedef struct cel_token {
    cel_tok_kind kind;
    size_t start, len; /* byte range in the source */
} cel_token;

/* A lexical error: byte offset and message (arena), len bytes that may
 * hold NUL bytes (ANTLR echoes the offending input raw); the bytes
 * [offset, end) are refused, in no token. */
typedef struct cel_lex_error {
    size_t offset;
    const char *msg;
    size_t len;
    size_t end;
} cel_lex_error;

typedef struct cel_lex_result {
    cel_token *tokens; /* ntokens entries, the last one is CEL_TOK_EOF */
    size_t ntokens;
    cel_lex_error *errors;
    size_t nerrors;
} cel_lex_result;

/* Tokenise src[0..len).  Never fails; problems land in out->errors. */
void cel_lex(const char *src, size_t len, dra_arena *arena, cel_lex_result *out);

/* ANTLR's display name of a token kind, as used in its messages:
 * "'=='", "IDENTIFIER", "NUM_INT", "<EOF>". */
const char *cel_tok_display(cel_tok_kind kind);

/* Decode the text of a STRING token (bytes == false) or of a BYTES token
 * without its b/B prefix (bytes == true) into `out` (appended).  Returns NULL
 * on success or a static message such as "unable to unescape string". */
const char *cel_unescape(const char *text, size_t len, bool bytes, dra_buf *out);

/* The value of hex digit c (0-9, a-f, A-F), -1 for anything else. */
int cel_hex_digit(int c);

/* UTF-8 decoding and encoding: base/utf8.h. */

#endif
