/* Go's encoding/json syntax errors for control characters; see jsyntax.h.
 * The states and their words are scanner.go's (Go 1.26). */
#include "jsyntax.h"

#include <stdio.h>
#include <stdlib.h>

typedef enum {
    S_BEGIN_VALUE_OR_EMPTY, /* after '[' */
    S_BEGIN_VALUE,
    S_BEGIN_STRING_OR_EMPTY, /* after '{' */
    S_BEGIN_STRING,          /* after ',' in an object */
    S_END_VALUE,
    S_IN_STRING,
    S_IN_STRING_ESC,
    S_IN_STRING_ESC_U, /* hex digits still to come in hex_left */
    S_NEG,
    S_ONE, /* digits after a leading 1-9 */
    S_ZERO,
    S_DOT,
    S_DOT0,
    S_E,
    S_ESIGN,
    S_E0,
    S_LITERAL, /* the rest of true, false or null */
} state;

typedef enum { P_OBJECT_KEY, P_OBJECT_VALUE, P_ARRAY_VALUE } parse_state;

typedef struct scan {
    state st;
    parse_state *stack;
    int depth, max_depth;
    int hex_left;
    const char *word; /* S_LITERAL: the literal, and the next byte of it */
    size_t word_at;
    const char *why; /* the error's context, once stopped */
    char lit_why[48];
} scan;

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool push(scan *s, parse_state ps)
{
    if (s->depth >= s->max_depth)
        return false;
    s->stack[s->depth++] = ps;
    return true;
}

static void literal(scan *s, const char *word)
{
    s->st = S_LITERAL;
    s->word = word;
    s->word_at = 1;
}

/* stateBeginValue: false on an error (s->why set) or too deep (why NULL) */
static bool begin_value(scan *s, unsigned char c)
{
    switch (c) {
    case '{': s->st = S_BEGIN_STRING_OR_EMPTY; return push(s, P_OBJECT_KEY);
    case '[': s->st = S_BEGIN_VALUE_OR_EMPTY; return push(s, P_ARRAY_VALUE);
    case '"': s->st = S_IN_STRING; return true;
    case '-': s->st = S_NEG; return true;
    case '0': s->st = S_ZERO; return true;
    case 't': literal(s, "true"); return true;
    case 'f': literal(s, "false"); return true;
    case 'n': literal(s, "null"); return true;
    default: break;
    }
    if (c >= '1' && c <= '9') {
        s->st = S_ONE;
        return true;
    }
    s->why = "looking for beginning of value";
    return false;
}

/* stateEndValue: c follows a complete value */
static bool end_value(scan *s, unsigned char c)
{
    if (s->depth == 0) { /* stateEndTop: the document's end, for the reader */
        s->st = S_END_VALUE;
        return true;
    }
    if (is_space(c)) {
        s->st = S_END_VALUE;
        return true;
    }
    /* per parse state: the byte that moves on, the state it moves to and
     * the scanner's next state, the byte that closes, and Go's words */
    static const struct {
        char next;
        parse_state then;
        state st;
        char close;
        const char *why;
    } rule[] = {
        [P_OBJECT_KEY] = {':', P_OBJECT_VALUE, S_BEGIN_VALUE, 0, "after object key"},
        [P_OBJECT_VALUE] = {',', P_OBJECT_KEY, S_BEGIN_STRING, '}', "after object key:value pair"},
        [P_ARRAY_VALUE] = {',', P_ARRAY_VALUE, S_BEGIN_VALUE, ']', "after array element"},
    };
    parse_state *top = &s->stack[s->depth - 1];
    if (c == (unsigned char)rule[*top].next) {
        s->st = rule[*top].st;
        *top = rule[*top].then;
        return true;
    }
    if (rule[*top].close && c == (unsigned char)rule[*top].close) {
        s->depth--;
        s->st = S_END_VALUE;
        return true;
    }
    s->why = rule[*top].why;
    return false;
}

static bool fail(scan *s, const char *why)
{
    s->why = why;
    return false;
}

/* One byte: false when the scanner stops there. */
static bool step(scan *s, unsigned char c)
{
    switch (s->st) {
    case S_BEGIN_VALUE_OR_EMPTY:
        if (is_space(c))
            return true;
        if (c == ']')
            return end_value(s, c);
        return begin_value(s, c);
    case S_BEGIN_VALUE: return is_space(c) || begin_value(s, c);
    case S_BEGIN_STRING_OR_EMPTY:
        if (is_space(c))
            return true;
        if (c == '}') {
            s->depth--;
            s->st = S_END_VALUE;
            return true;
        }
        /* fall through */
    case S_BEGIN_STRING:
        if (is_space(c))
            return true;
        if (c == '"') {
            s->st = S_IN_STRING;
            return true;
        }
        return fail(s, "looking for beginning of object key string");
    case S_END_VALUE: return end_value(s, c);
    case S_IN_STRING:
        if (c == '"')
            s->st = S_END_VALUE;
        else if (c == '\\')
            s->st = S_IN_STRING_ESC;
        else if (c < 0x20)
            return fail(s, "in string literal");
        return true;
    case S_IN_STRING_ESC:
        switch (c) {
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
        case '\\':
        case '/':
        case '"': s->st = S_IN_STRING; return true;
        case 'u':
            s->st = S_IN_STRING_ESC_U;
            s->hex_left = 4;
            return true;
        default: return fail(s, "in string escape code");
        }
    case S_IN_STRING_ESC_U:
        if (!is_digit(c) && !((c | 0x20) >= 'a' && (c | 0x20) <= 'f'))
            return fail(s, "in \\u hexadecimal character escape");
        if (--s->hex_left == 0)
            s->st = S_IN_STRING;
        return true;
    case S_NEG:
        if (c == '0') {
            s->st = S_ZERO;
            return true;
        }
        if (c >= '1' && c <= '9') {
            s->st = S_ONE;
            return true;
        }
        return fail(s, "in numeric literal");
    case S_ONE:
        if (is_digit(c))
            return true;
        /* fall through */
    case S_ZERO:
        if (c == '.') {
            s->st = S_DOT;
            return true;
        }
        if (c == 'e' || c == 'E') {
            s->st = S_E;
            return true;
        }
        return end_value(s, c);
    case S_DOT:
        if (!is_digit(c))
            return fail(s, "after decimal point in numeric literal");
        s->st = S_DOT0;
        return true;
    case S_DOT0:
        if (is_digit(c))
            return true;
        if (c == 'e' || c == 'E') {
            s->st = S_E;
            return true;
        }
        return end_value(s, c);
    case S_E:
        if (c == '+' || c == '-') {
            s->st = S_ESIGN;
            return true;
        }
        /* fall through */
    case S_ESIGN:
        if (!is_digit(c))
            return fail(s, "in exponent of numeric literal");
        s->st = S_E0;
        return true;
    case S_E0: return is_digit(c) || end_value(s, c);
    case S_LITERAL:
    default:
        if (c != (unsigned char)s->word[s->word_at]) {
            snprintf(s->lit_why, sizeof s->lit_why, "in literal %s (expecting '%c')", s->word, s->word[s->word_at]);
            return fail(s, s->lit_why);
        }
        if (s->word[++s->word_at] == 0)
            s->st = S_END_VALUE;
        return true;
    }
}

/* strconv.Quote of a control character, between single quotes
 * (scanner.go quoteChar) */
static void quote_control(dra_buf *b, unsigned char c)
{
    static const char short_esc[] = "abtnvfr"; /* 7 to 13 */
    if (c >= 7 && c <= 13)
        dra_buf_printf(b, "'\\%c'", short_esc[c - 7]);
    else
        dra_buf_printf(b, "'\\x%02x'", c);
}

bool dra_json_go_control_error(const char *p, size_t n, int max_depth, dra_buf *msg, size_t *at)
{
    if (max_depth < 1)
        return false;
    scan s = {.st = S_BEGIN_VALUE, .max_depth = max_depth};
    s.stack = malloc((size_t)max_depth * sizeof *s.stack);
    if (!s.stack)
        return false;
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (step(&s, c)) {
            if (s.depth == 0 && s.st == S_END_VALUE)
                break; /* the top-level value is complete */
            continue;
        }
        if (s.why && c < 0x20) {
            dra_buf_puts(msg, "invalid character ");
            quote_control(msg, c);
            dra_buf_printf(msg, " %s", s.why);
            *at = i;
            found = true;
        }
        break;
    }
    free(s.stack);
    return found;
}
