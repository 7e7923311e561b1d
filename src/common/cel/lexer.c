/* CEL lexer; token rules from cel-spec CEL.g4 (see lexer.h). */
#include "lexer.h"
#include "../base/utf8.h"

#include <stdlib.h>
#include <string.h>

const char *cel_tok_display(cel_tok_kind kind)
{
    switch (kind) {
    case CEL_TOK_EOF: return "<EOF>";
    case CEL_TOK_INT: return "NUM_INT";
    case CEL_TOK_UINT: return "NUM_UINT";
    case CEL_TOK_FLOAT: return "NUM_FLOAT";
    case CEL_TOK_STRING: return "STRING";
    case CEL_TOK_BYTES: return "BYTES";
    case CEL_TOK_IDENT: return "IDENTIFIER";
    case CEL_TOK_ESC_IDENT: return "ESC_IDENTIFIER";
    case CEL_TOK_TRUE: return "'true'";
    case CEL_TOK_FALSE: return "'false'";
    case CEL_TOK_NULL: return "'null'";
    case CEL_TOK_IN: return "'in'";
    case CEL_TOK_EQ: return "'=='";
    case CEL_TOK_NE: return "'!='";
    case CEL_TOK_LT: return "'<'";
    case CEL_TOK_LE: return "'<='";
    case CEL_TOK_GE: return "'>='";
    case CEL_TOK_GT: return "'>'";
    case CEL_TOK_AND: return "'&&'";
    case CEL_TOK_OR: return "'||'";
    case CEL_TOK_LBRACKET: return "'['";
    case CEL_TOK_RBRACKET: return "']'";
    case CEL_TOK_LBRACE: return "'{'";
    case CEL_TOK_RBRACE: return "'}'";
    case CEL_TOK_LPAREN: return "'('";
    case CEL_TOK_RPAREN: return "')'";
    case CEL_TOK_DOT: return "'.'";
    case CEL_TOK_COMMA: return "','";
    case CEL_TOK_MINUS: return "'-'";
    case CEL_TOK_EXCLAM: return "'!'";
    case CEL_TOK_QUESTION: return "'?'";
    case CEL_TOK_COLON: return "':'";
    case CEL_TOK_PLUS: return "'+'";
    case CEL_TOK_STAR: return "'*'";
    case CEL_TOK_SLASH: return "'/'";
    case CEL_TOK_PERCENT: return "'%'";
    }
    return "?";
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}
static bool is_hex(int c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool is_letter(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_ident_start(int c)
{
    return is_letter(c) || c == '_';
}
static bool is_ident_char(int c)
{
    return is_ident_start(c) || is_digit(c);
}

typedef struct lexer {
    const unsigned char *s;
    size_t n;
    dra_arena *arena;
    cel_token *toks;
    size_t ntoks, captoks;
    cel_lex_error *errs;
    size_t nerrs, caperrs;
} lexer;

static int at(const lexer *lx, size_t i)
{
    return i < lx->n ? lx->s[i] : -1;
}

static void push_tok(lexer *lx, cel_tok_kind kind, size_t start, size_t len)
{
    if (lx->ntoks == lx->captoks) {
        lx->captoks = lx->captoks ? lx->captoks * 2 : 64;
        lx->toks = dra_xrealloc(lx->toks, lx->captoks * sizeof *lx->toks);
    }
    lx->toks[lx->ntoks++] = (cel_token){kind, start, len};
}

/* The refused text as it is (antlr4-go lexer.go notifyListeners does not
 * escape it as the Java runtime does). */
static void push_error(lexer *lx, size_t start, size_t end)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, "token recognition error at: '");
    if (start < lx->n)
        dra_buf_append(&b, (const char *)lx->s + start, (end < lx->n ? end : lx->n) - start);
    dra_buf_putc(&b, '\'');
    if (lx->nerrs == lx->caperrs) {
        lx->caperrs = lx->caperrs ? lx->caperrs * 2 : 8;
        lx->errs = dra_xrealloc(lx->errs, lx->caperrs * sizeof *lx->errs);
    }
    lx->errs[lx->nerrs++] =
        (cel_lex_error){start, dra_arena_strndup(lx->arena, b.data, b.len), b.len, end < lx->n ? end : lx->n};
    dra_buf_free(&b);
}

/* Bytes of the character at i, the one ANTLR's rune input fails on and
 * its recovery consumes (1 past the end or on a bad byte). */
static size_t char_len(const lexer *lx, size_t i)
{
    uint32_t cp;
    size_t n = i < lx->n ? dra_utf8_decode((const char *)lx->s + i, lx->n - i, &cp) : 0;
    return n ? n : 1;
}

/* Length of a valid escape sequence at i (which holds '\\'), 0 if invalid
 * with *fail the first character that does not fit. */
static size_t escape_len(const lexer *lx, size_t i, size_t *fail)
{
    int c = at(lx, i + 1);
    *fail = i + 1;
    if (c < 0)
        return 0;
    if (strchr("abfnrtv\"'\\?`", c))
        return 2;
    if (c >= '0' && c <= '3') {
        for (size_t k = 2; k < 4; k++) {
            int d = at(lx, i + k);
            if (d < '0' || d > '7') {
                *fail = i + k;
                return 0;
            }
        }
        return 4;
    }
    size_t digits = c == 'x' || c == 'X' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (!digits)
        return 0;
    for (size_t k = 0; k < digits; k++)
        if (!is_hex(at(lx, i + 2 + k))) {
            *fail = i + 2 + k;
            return 0;
        }
    return 2 + digits;
}

/* Scan a (possibly raw, possibly triple-quoted) string whose opening quote is
 * at q.  Returns the end offset (exclusive) or 0 and sets *fail to the offset
 * of the offending character (n at end of input). */
static size_t scan_string(const lexer *lx, size_t q, bool raw, size_t *fail)
{
    int quote = lx->s[q];
    bool triple = at(lx, q + 1) == quote && at(lx, q + 2) == quote;
    size_t i = q + (triple ? 3 : 1);
    for (;;) {
        int c = at(lx, i);
        if (c < 0) {
            *fail = lx->n;
            return 0;
        }
        if (triple) {
            if (c == quote && at(lx, i + 1) == quote && at(lx, i + 2) == quote)
                return i + 3;
        } else {
            if (c == quote)
                return i + 1;
            if (c == '\n' || c == '\r') {
                *fail = i;
                return 0;
            }
        }
        if (c == '\\' && !raw) {
            size_t at_fail;
            size_t el = escape_len(lx, i, &at_fail);
            if (!el) {
                /* ANTLR fails on the first character that does not fit */
                *fail = at_fail < lx->n ? at_fail : lx->n;
                return 0;
            }
            i += el;
            continue;
        }
        i++;
    }
}

static cel_tok_kind keyword(const unsigned char *p, size_t len)
{
    if (len == 4 && !memcmp(p, "true", 4))
        return CEL_TOK_TRUE;
    if (len == 5 && !memcmp(p, "false", 5))
        return CEL_TOK_FALSE;
    if (len == 4 && !memcmp(p, "null", 4))
        return CEL_TOK_NULL;
    if (len == 2 && !memcmp(p, "in", 2))
        return CEL_TOK_IN;
    return CEL_TOK_IDENT;
}

/* Exponent at i: returns its length or 0. */
static size_t exponent_len(const lexer *lx, size_t i)
{
    int c = at(lx, i);
    if (c != 'e' && c != 'E')
        return 0;
    size_t k = i + 1;
    if (at(lx, k) == '+' || at(lx, k) == '-')
        k++;
    if (!is_digit(at(lx, k)))
        return 0;
    while (is_digit(at(lx, k)))
        k++;
    return k - i;
}

static size_t scan_number(const lexer *lx, size_t i, cel_tok_kind *kind)
{
    size_t start = i;
    if (lx->s[i] == '.') { /* '.' DIGIT+ EXPONENT? */
        i++;
        while (is_digit(at(lx, i)))
            i++;
        i += exponent_len(lx, i);
        *kind = CEL_TOK_FLOAT;
        return i - start;
    }
    if (lx->s[i] == '0' && at(lx, i + 1) == 'x' && is_hex(at(lx, i + 2))) {
        i += 2;
        while (is_hex(at(lx, i)))
            i++;
        if (at(lx, i) == 'u' || at(lx, i) == 'U') {
            *kind = CEL_TOK_UINT;
            return i + 1 - start;
        }
        *kind = CEL_TOK_INT;
        return i - start;
    }
    while (is_digit(at(lx, i)))
        i++;
    if (at(lx, i) == '.' && is_digit(at(lx, i + 1))) {
        i++;
        while (is_digit(at(lx, i)))
            i++;
        i += exponent_len(lx, i);
        *kind = CEL_TOK_FLOAT;
        return i - start;
    }
    size_t e = exponent_len(lx, i);
    if (e) {
        *kind = CEL_TOK_FLOAT;
        return i + e - start;
    }
    if (at(lx, i) == 'u' || at(lx, i) == 'U') {
        *kind = CEL_TOK_UINT;
        return i + 1 - start;
    }
    *kind = CEL_TOK_INT;
    return i - start;
}

/* A string or bytes literal at i ([bB]? [rR]? quote): its token or
 * error pushed, the index past it; 0 when none starts at i. */
static size_t lex_quoted(lexer *lx, size_t i)
{
    size_t k = i;
    bool bytes = false, raw = false;
    if (at(lx, k) == 'b' || at(lx, k) == 'B')
        bytes = true, k++;
    if (at(lx, k) == 'r' || at(lx, k) == 'R')
        raw = true, k++;
    if (at(lx, k) != '"' && at(lx, k) != '\'')
        return 0;
    size_t fail = 0;
    size_t end = scan_string(lx, k, raw, &fail);
    if (!end && at(lx, k + 1) == at(lx, k)) {
        /* ANTLR falls back to its last accepted token: an unterminated
         * triple-quoted string passed the empty string of two quotes */
        end = k + 2;
    } else if (!end && k > i) {
        /* or to the prefix, an identifier; the quote is lexed again */
        push_tok(lx, CEL_TOK_IDENT, i, k - i);
        return k;
    }
    if (!end) {
        size_t past = fail + char_len(lx, fail);
        push_error(lx, i, past);
        return past < lx->n ? past : lx->n;
    }
    push_tok(lx, bytes ? CEL_TOK_BYTES : CEL_TOK_STRING, i, end - i);
    return end;
}

/* A `backquoted` name at i: its token or error pushed, the index past it. */
static size_t lex_backquoted(lexer *lx, size_t i)
{
    size_t k = i + 1;
    for (;;) {
        int d = at(lx, k);
        if (is_ident_char(d) || d == '.' || d == '-' || d == '/' || d == ' ')
            k++;
        else
            break;
    }
    if (k > i + 1 && at(lx, k) == '`') {
        push_tok(lx, CEL_TOK_ESC_IDENT, i, k + 1 - i);
        return k + 1;
    }
    size_t fail = k < lx->n ? k : lx->n;
    size_t past = fail + char_len(lx, fail);
    push_error(lx, i, past);
    return past < lx->n ? past : lx->n;
}

void cel_lex(const char *src, size_t len, dra_arena *arena, cel_lex_result *out)
{
    lexer lx = {.s = (const unsigned char *)src, .n = len, .arena = arena};
    size_t i = 0;
    while (i < lx.n) {
        int c = lx.s[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
            i++;
            continue;
        }
        if (c == '/' && at(&lx, i + 1) == '/') {
            while (i < lx.n && lx.s[i] != '\n')
                i++;
            continue;
        }
        /* Strings and bytes: [bB]? [rR]? quote */
        size_t next = lex_quoted(&lx, i);
        if (next) {
            i = next;
            continue;
        }
        if (is_ident_start(c)) {
            size_t k = i + 1;
            while (is_ident_char(at(&lx, k)))
                k++;
            push_tok(&lx, keyword(lx.s + i, k - i), i, k - i);
            i = k;
            continue;
        }
        if (is_digit(c) || (c == '.' && is_digit(at(&lx, i + 1)))) {
            cel_tok_kind kind;
            size_t n = scan_number(&lx, i, &kind);
            push_tok(&lx, kind, i, n);
            i += n;
            continue;
        }
        if (c == '`') {
            i = lex_backquoted(&lx, i);
            continue;
        }
        cel_tok_kind kind = CEL_TOK_EOF;
        size_t n = 1;
        int d = at(&lx, i + 1);
        switch (c) {
        case '=':
            if (d == '=')
                kind = CEL_TOK_EQ, n = 2;
            break;
        case '!':
            if (d == '=')
                kind = CEL_TOK_NE, n = 2;
            else
                kind = CEL_TOK_EXCLAM;
            break;
        case '<':
            if (d == '=')
                kind = CEL_TOK_LE, n = 2;
            else
                kind = CEL_TOK_LT;
            break;
        case '>':
            if (d == '=')
                kind = CEL_TOK_GE, n = 2;
            else
                kind = CEL_TOK_GT;
            break;
        case '&':
            if (d == '&')
                kind = CEL_TOK_AND, n = 2;
            break;
        case '|':
            if (d == '|')
                kind = CEL_TOK_OR, n = 2;
            break;
        case '[': kind = CEL_TOK_LBRACKET; break;
        case ']': kind = CEL_TOK_RBRACKET; break;
        case '{': kind = CEL_TOK_LBRACE; break;
        case '}': kind = CEL_TOK_RBRACE; break;
        case '(': kind = CEL_TOK_LPAREN; break;
        case ')': kind = CEL_TOK_RPAREN; break;
        case '.': kind = CEL_TOK_DOT; break;
        case ',': kind = CEL_TOK_COMMA; break;
        case '-': kind = CEL_TOK_MINUS; break;
        case '?': kind = CEL_TOK_QUESTION; break;
        case ':': kind = CEL_TOK_COLON; break;
        case '+': kind = CEL_TOK_PLUS; break;
        case '*': kind = CEL_TOK_STAR; break;
        case '/': kind = CEL_TOK_SLASH; break;
        case '%': kind = CEL_TOK_PERCENT; break;
        default: break;
        }
        if (kind == CEL_TOK_EOF) {
            /* One whole UTF-8 character in the message, like ANTLR's rune input. */
            uint32_t cp;
            int ul = (int)dra_utf8_decode((const char *)lx.s + i, lx.n - i, &cp);
            size_t skip = ul > 0 ? (size_t)ul : 1;
            /* "=x": ANTLR fails on the second character, names both and
             * drops both (Lexer.Recover consumes the character it failed
             * on) */
            if ((c == '=' || c == '&' || c == '|') && d >= 0) {
                ul = (int)dra_utf8_decode((const char *)lx.s + i + 1, lx.n - i - 1, &cp);
                skip = 1 + (ul > 0 ? (size_t)ul : 1);
            }
            push_error(&lx, i, i + skip);
            i += skip;
            continue;
        }
        push_tok(&lx, kind, i, n);
        i += n;
    }
    push_tok(&lx, CEL_TOK_EOF, lx.n, 0);
    /* Move the growable arrays into the arena so the caller has one owner. */
    out->tokens = dra_arena_alloc(arena, lx.ntoks * sizeof *lx.toks);
    memcpy(out->tokens, lx.toks, lx.ntoks * sizeof *lx.toks);
    out->ntokens = lx.ntoks;
    out->nerrors = lx.nerrs;
    out->errors = NULL;
    if (lx.nerrs) {
        out->errors = dra_arena_alloc(arena, lx.nerrs * sizeof *lx.errs);
        memcpy(out->errors, lx.errs, lx.nerrs * sizeof *lx.errs);
    }
    free(lx.toks);
    free(lx.errs);
}

int cel_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Semantics of cel-go parser/unescape.go: newlines normalised to \n, raw
 * strings verbatim, \x and octal are code points in strings but raw bytes in
 * bytes literals.  Unlike older cel-go, surrogate code points are refused. */
const char *cel_unescape(const char *text, size_t len, bool bytes, dra_buf *out)
{
    bool raw = false;
    if (len && (text[0] == 'r' || text[0] == 'R'))
        raw = true, text++, len--;
    if (len < 2 || text[0] != text[len - 1] || (text[0] != '"' && text[0] != '\''))
        return "unable to unescape string";
    size_t q = 1;
    if (len >= 6 && text[1] == text[0] && text[2] == text[0])
        q = 3;
    const char *p = text + q, *end = text + len - q;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '\r') { /* \r\n and \r become \n */
            dra_buf_putc(out, '\n');
            p += (p + 1 < end && p[1] == '\n') ? 2 : 1;
            continue;
        }
        if (c != '\\' || raw) {
            dra_buf_putc(out, (char)c);
            p++;
            continue;
        }
        if (p + 1 >= end)
            return "unable to unescape string, found '\\' as last character";
        char e = p[1];
        p += 2;
        char simple = 0;
        switch (e) {
        case 'a': simple = '\a'; break;
        case 'b': simple = '\b'; break;
        case 'f': simple = '\f'; break;
        case 'n': simple = '\n'; break;
        case 'r': simple = '\r'; break;
        case 't': simple = '\t'; break;
        case 'v': simple = '\v'; break;
        case '\\': simple = '\\'; break;
        case '\'': simple = '\''; break;
        case '"': simple = '"'; break;
        case '`': simple = '`'; break;
        case '?': simple = '?'; break;
        default: break;
        }
        if (simple) {
            dra_buf_putc(out, simple);
            continue;
        }
        unsigned v = 0;
        bool encode;
        if (bytes && (e == 'u' || e == 'U'))
            return "unable to unescape string"; /* cel-go parser/unescape.go */
        if (e == 'x' || e == 'X' || e == 'u' || e == 'U') {
            int n = (e == 'x' || e == 'X') ? 2 : e == 'u' ? 4 : 8;
            if (end - p < n)
                return "unable to unescape string";
            for (int j = 0; j < n; j++) {
                int h = cel_hex_digit((unsigned char)p[j]);
                if (h < 0)
                    return "unable to unescape string";
                v = (v << 4) | (unsigned)h;
            }
            p += n;
            encode = !(bytes && n == 2);
        } else if (e >= '0' && e <= '3') {
            if (end - p < 2)
                return "unable to unescape octal sequence in string";
            v = (unsigned)(e - '0');
            for (int j = 0; j < 2; j++) {
                if (p[j] < '0' || p[j] > '7')
                    return "unable to unescape octal sequence in string";
                v = v * 8 + (unsigned)(p[j] - '0');
            }
            p += 2;
            encode = !bytes;
        } else {
            return "unable to unescape string";
        }
        if (!encode) {
            dra_buf_putc(out, (char)v);
            continue;
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return "unable to unescape string";
        char u[4];
        dra_buf_append(out, u, dra_utf8_encode(v, u));
    }
    return NULL;
}
