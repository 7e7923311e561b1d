/* Go's regexp on RE2: the pass that reads a pattern as Go's parser
 * (regexp/syntax parse.go) does and hands RE2 what RE2 reads the same
 * way, Go's error texts, and the search loops.  See regex.h. */
#include "regex.h"

#include "lexer.h"
#include "re2.h"
#include "../base/error.h"
#include "../base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Program and DFA memory RE2 may use for one pattern (two thirds of it
 * for the program).  Go counts a character class as one instruction, RE2
 * as its UTF-8 automaton (\pL: about 1,200): this budget still compiles
 * the largest single classes Go's repeat limit allows, [\p{L}\p{N}]{1000}
 * at 10.7 MB in about a second, and bounds the worst compile at twice
 * that.  What does not fit is Go's "expression too large". */
#define REGEX_MAX_MEM ((int64_t)32 << 20)
enum { MAX_HEIGHT = 1000 }; /* regexp/syntax maxHeight */

struct cel_regex {
    dra_re2 *re;
};

/* Go's ErrorCode texts (regexp/syntax), by RE2 error code. */
static const char *const go_codes[] = {
    [DRA_RE2_INTERNAL] = "regexp/syntax: internal error",
    [DRA_RE2_BAD_ESCAPE] = "invalid escape sequence",
    [DRA_RE2_BAD_CHAR_CLASS] = "invalid character class",
    [DRA_RE2_BAD_CHAR_RANGE] = "invalid character class range",
    [DRA_RE2_MISSING_BRACKET] = "missing closing ]",
    [DRA_RE2_MISSING_PAREN] = "missing closing )",
    [DRA_RE2_UNEXPECTED_PAREN] = "unexpected )",
    [DRA_RE2_TRAILING_BACKSLASH] = "trailing backslash at end of expression",
    [DRA_RE2_REPEAT_ARGUMENT] = "missing argument to repetition operator",
    [DRA_RE2_REPEAT_SIZE] = "invalid repeat count",
    [DRA_RE2_REPEAT_OP] = "invalid nested repetition operator",
    [DRA_RE2_BAD_PERL_OP] = "invalid or unsupported Perl syntax",
    [DRA_RE2_BAD_UTF8] = "invalid UTF-8",
    [DRA_RE2_BAD_NAMED_CAPTURE] = "invalid named capture",
    [DRA_RE2_PATTERN_TOO_LARGE] = "expression too large",
};

/* ---- the syntax pass ------------------------------------------------------ */

/* Heights of the parse tree Go builds, approximately: a literal run, a
 * class or an assertion is 1, a repetition or a capture adds 1, and so
 * does a concatenation or alternation of two or more. */
typedef struct frame {
    int items, max_h, last_h; /* the concatenation being read */
    size_t last_lit;          /* runes in the last item when it is a literal run */
    int alts, alt_h;          /* the alternation's finished branches */
    bool capture;
} frame;

typedef struct span {
    size_t orig, olen; /* p[orig, orig + olen) ... */
    size_t at, len;    /* ... became out[at, at + len) */
} span;

typedef struct scan {
    const char *p;
    size_t n;
    dra_buf out;   /* the pattern for RE2 */
    size_t copied; /* p[0, copied) is in out */
    span *spans;
    size_t nspans, spans_cap;
    frame *frames; /* frames[0] is the whole pattern */
    size_t depth, frames_cap;
    /* the first error Go's parser reports that RE2 would not (or not so) */
    bool failed;
    size_t fail_at;
    const char *code;
    size_t arg_lo, arg_hi;
} scan;

static void fail(scan *s, size_t at, const char *code, size_t lo, size_t hi)
{
    if (s->failed)
        return;
    s->failed = true;
    s->fail_at = at;
    s->code = code;
    s->arg_lo = lo;
    s->arg_hi = hi;
}

/* p[from, to) becomes text in what RE2 reads. */
static void replace(scan *s, size_t from, size_t to, const char *text, size_t len)
{
    dra_buf_append(&s->out, s->p + s->copied, from - s->copied);
    if (s->nspans == s->spans_cap) {
        s->spans_cap = s->spans_cap ? s->spans_cap * 2 : 8;
        s->spans = dra_xrealloc(s->spans, s->spans_cap * sizeof *s->spans);
    }
    s->spans[s->nspans++] = (span){from, to - from, s->out.len, len};
    dra_buf_append(&s->out, text, len);
    s->copied = to;
}

/* The rune at i (Go's nextRune): width 0 at the end; false, with the
 * error recorded at `at`, on invalid UTF-8 (Go names the bytes from the
 * bad one to `end`). */
static bool next_rune(scan *s, size_t i, size_t at, size_t end, uint32_t *r, size_t *w)
{
    if (i >= s->n) {
        *r = DRA_RUNE_ERROR;
        *w = 0;
        return true;
    }
    *w = dra_utf8_decode(s->p + i, s->n - i, r);
    if (*w)
        return true;
    fail(s, at, "invalid UTF-8", i, end);
    return false;
}

/* Go's checkUTF8 over p[lo, hi); the error is recorded at `at`, or at
 * the bad byte when `at` is SIZE_MAX. */
static bool check_utf8(scan *s, size_t lo, size_t hi, size_t at)
{
    for (size_t i = lo; i < hi;) {
        uint32_t r;
        size_t w = dra_utf8_decode(s->p + i, hi - i, &r);
        if (!w) {
            fail(s, at == SIZE_MAX ? i : at, "invalid UTF-8", i, hi);
            return false;
        }
        i += w;
    }
    return true;
}

static size_t find_byte(const scan *s, size_t from, char c)
{
    const char *q = from < s->n ? memchr(s->p + from, c, s->n - from) : NULL;
    return q ? (size_t)(q - s->p) : SIZE_MAX;
}

static frame *top(scan *s)
{
    return &s->frames[s->depth - 1];
}

static bool too_deep(scan *s, int h, size_t at)
{
    if (h <= MAX_HEIGHT)
        return false;
    fail(s, at, "expression nests too deeply", 0, s->n);
    return true;
}

static void push_frame(scan *s, bool capture)
{
    if (s->depth == s->frames_cap) {
        s->frames_cap = s->frames_cap ? s->frames_cap * 2 : 16;
        s->frames = dra_xrealloc(s->frames, s->frames_cap * sizeof *s->frames);
    }
    s->frames[s->depth++] = (frame){.capture = capture};
}

static void add_item(scan *s, int h, size_t literal_runes, size_t at)
{
    frame *f = top(s);
    if (literal_runes && f->last_lit) { /* literals merge into one node */
        f->last_lit += literal_runes;
        return;
    }
    f->items++;
    f->last_h = h;
    f->last_lit = literal_runes;
    if (h > f->max_h)
        f->max_h = h;
    too_deep(s, h, at);
}

static void add_repeat(scan *s, size_t at)
{
    frame *f = top(s);
    if (f->items == 0)
        return; /* missing argument: RE2 says so as Go does */
    if (f->last_lit > 1)
        f->items++; /* the repetition takes the last rune of the run */
    f->last_lit = 0;
    f->last_h++;
    if (f->last_h > f->max_h)
        f->max_h = f->last_h;
    too_deep(s, f->last_h, at);
}

static int concat_height(const frame *f)
{
    return f->items >= 2 ? f->max_h + 1 : f->items == 1 ? f->max_h : 1;
}

static void end_branch(scan *s)
{
    frame *f = top(s);
    int h = concat_height(f);
    if (h > f->alt_h)
        f->alt_h = h;
    f->alts++;
    f->items = f->max_h = f->last_h = 0;
    f->last_lit = 0;
}

static void close_frame(scan *s, size_t at)
{
    if (s->depth < 2)
        return; /* unexpected ): RE2 says so as Go does */
    end_branch(s);
    frame f = *top(s);
    s->depth--;
    int h = f.alts >= 2 ? f.alt_h + 1 : f.alt_h;
    if (f.capture)
        h++;
    add_item(s, h, 0, at);
}

/* An escape Go's parseEscape reads as one rune; returns where it ends.
 * Invalid escapes are left to RE2, which rejects the same ones. */
static size_t escape_end(scan *s, size_t i)
{
    size_t t = i + 1;
    uint32_t c;
    size_t w;
    if (t >= s->n)
        return s->n; /* trailing backslash */
    if (!next_rune(s, t, i, s->n, &c, &w))
        return s->n;
    t += w;
    switch (c) {
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
        if (t >= s->n || s->p[t] < '0' || s->p[t] > '7')
            return t; /* a backreference: invalid */
        /* fallthrough */
    case '0':
        for (int k = 1; k < 3 && t < s->n && s->p[t] >= '0' && s->p[t] <= '7'; k++)
            t++;
        return t;
    case 'x':
        if (t < s->n && s->p[t] == '{') { /* \x{hex}: Go's own words for every way it can fail */
            uint32_t v = 0;
            size_t nhex = 0;
            for (t++;;) {
                if (t >= s->n) {
                    fail(s, i, "invalid escape sequence", i, t);
                    return s->n;
                }
                if (!next_rune(s, t, i, s->n, &c, &w))
                    return s->n;
                t += w;
                if (c == '}')
                    break;
                int d = c < 0x80 ? cel_hex_digit((int)c) : -1;
                if (d < 0 || (v = v * 16 + (uint32_t)d) > DRA_RUNE_MAX) {
                    fail(s, i, "invalid escape sequence", i, t);
                    return s->n;
                }
                nhex++;
            }
            if (nhex == 0)
                fail(s, i, "invalid escape sequence", i, t);
            return t;
        }
        if (!next_rune(s, t, i, s->n, &c, &w))
            return s->n;
        t += w;
        if (!next_rune(s, t, i, s->n, &c, &w))
            return s->n;
        return t + w;
    default: return t;
    }
}

/* \pN, \p{Name}, \PN, \P{^Name} at i (Go's parseUnicodeClass): written as
 * RE2 class items, inside [...] when not already in a class.  Returns
 * where it ends, or SIZE_MAX after an error. */
static size_t unicode_class(scan *s, size_t i, bool in_class)
{
    bool negated = s->p[i + 1] == 'P';
    size_t t = i + 2, name, name_end, end;
    uint32_t c;
    size_t w;
    if (!next_rune(s, t, i, s->n, &c, &w))
        return SIZE_MAX;
    if (c != '{') {
        name = t;
        name_end = end = t + w;
    } else {
        size_t close = find_byte(s, i, '}');
        if (close == SIZE_MAX) {
            if (check_utf8(s, i, s->n, i))
                fail(s, i, "invalid character class range", i, s->n);
            return SIZE_MAX;
        }
        name = i + 3;
        name_end = close;
        end = close + 1;
        if (!check_utf8(s, name, name_end, i))
            return SIZE_MAX;
    }
    if (name < name_end && s->p[name] == '^') {
        negated = !negated;
        name++;
    }
    dra_buf items = DRA_BUF_INIT;
    if (!in_class)
        dra_buf_putc(&items, '[');
    if (!cel_regex_unicode_items(s->p + name, name_end - name, negated, &items)) {
        dra_buf_free(&items);
        fail(s, i, "invalid character class range", i, end);
        return SIZE_MAX;
    }
    if (!in_class)
        dra_buf_putc(&items, ']');
    replace(s, i, end, items.data, items.len);
    dra_buf_free(&items);
    return end;
}

static bool perl_class_letter(char c)
{
    return c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W';
}

/* [...] at i (Go's parseClass); returns where it ends, SIZE_MAX when the
 * rest is RE2's to reject or after an error. */
static size_t char_class(scan *s, size_t i)
{
    size_t t = i + 1;
    if (t < s->n && s->p[t] == '^')
        t++;
    bool first = true;
    while (t >= s->n || s->p[t] != ']' || first) {
        first = false;
        if (t >= s->n)
            return SIZE_MAX; /* missing ]: RE2 says so as Go does */
        if (t + 2 < s->n && s->p[t] == '[' && s->p[t + 1] == ':') {
            const char *q = memmem(s->p + t + 2, s->n - t - 2, ":]", 2);
            if (q) { /* a POSIX class; RE2 knows the same names */
                t = (size_t)(q - s->p) + 2;
                continue;
            }
        }
        if (s->p[t] == '\\' && t + 1 < s->n && (s->p[t + 1] == 'p' || s->p[t + 1] == 'P')) {
            t = unicode_class(s, t, true);
            if (t == SIZE_MAX)
                return SIZE_MAX;
            continue;
        }
        if (s->p[t] == '\\' && t + 1 < s->n && perl_class_letter(s->p[t + 1])) {
            t += 2;
            continue;
        }
        for (int k = 0; k < 2; k++) { /* lo, and hi of a range */
            if (t >= s->n)
                return SIZE_MAX;
            if (s->p[t] == '\\') {
                t = escape_end(s, t);
            } else {
                uint32_t c;
                size_t w;
                if (!next_rune(s, t, t, s->n, &c, &w))
                    return SIZE_MAX;
                t += w;
            }
            if (s->failed)
                return SIZE_MAX;
            if (k == 1 || !(t + 1 < s->n && s->p[t] == '-' && s->p[t + 1] != ']'))
                break;
            t++;
        }
    }
    return t + 1;
}

/* Go's parseInt: a decimal number without leading zeros, -1 when it
 * would pass 10^9; SIZE_MAX as the end when there is none. */
static size_t parse_int(const scan *s, size_t t, long *v)
{
    if (t >= s->n || s->p[t] < '0' || s->p[t] > '9')
        return SIZE_MAX;
    if (s->p[t] == '0' && t + 1 < s->n && s->p[t + 1] >= '0' && s->p[t + 1] <= '9')
        return SIZE_MAX; /* disallow leading zeros */
    *v = 0;
    for (; t < s->n && s->p[t] >= '0' && s->p[t] <= '9'; t++) {
        if (*v >= 100000000)
            *v = -1;
        if (*v >= 0)
            *v = *v * 10 + (s->p[t] - '0');
    }
    return t;
}

/* Go's parseRepeat: {n}, {n,} or {n,m}; where it ends, or 0 when `{` is a
 * literal.  Counts out of range are Go's error before anything else about
 * the repetition (RE2 checks for a repeated repetition first). */
static size_t repeat_end(scan *s, size_t i)
{
    long min, max;
    size_t t = parse_int(s, i + 1, &min);
    if (t == SIZE_MAX || t >= s->n)
        return 0;
    if (s->p[t] != ',') {
        max = min;
    } else {
        t++;
        if (t >= s->n)
            return 0;
        if (s->p[t] == '}') {
            max = -1;
        } else {
            t = parse_int(s, t, &max);
            if (t == SIZE_MAX)
                return 0;
            if (max < 0)
                min = -1;
        }
    }
    if (t >= s->n || s->p[t] != '}')
        return 0;
    if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max))
        fail(s, i, "invalid repeat count", i, t + 1);
    return t + 1;
}

static bool capture_name_ok(const char *p, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            return false;
    }
    return true;
}

/* "(?" at i (Go's parsePerlFlags): named groups are checked and written
 * (?P<name>; flags and (?: pass.  Returns where the group's head ends,
 * SIZE_MAX when the rest is RE2's to reject or after an error. */
static size_t perl_group(scan *s, size_t i)
{
    size_t rest = s->n - i;
    bool with_p = rest > 4 && s->p[i + 2] == 'P' && s->p[i + 3] == '<';
    bool with_name = rest > 3 && s->p[i + 2] == '<';
    if (with_p || with_name) {
        size_t name = i + (with_p ? 4 : 3);
        size_t close = find_byte(s, i, '>');
        if (close == SIZE_MAX) {
            if (check_utf8(s, i, s->n, i))
                fail(s, i, "invalid named capture", i, s->n);
            return SIZE_MAX;
        }
        if (!check_utf8(s, name, close, i))
            return SIZE_MAX;
        if (!capture_name_ok(s->p + name, close - name)) {
            fail(s, i, "invalid named capture", i, close + 1);
            return SIZE_MAX;
        }
        if (with_name) {
            dra_buf head = DRA_BUF_INIT;
            dra_buf_printf(&head, "(?P<%.*s>", (int)(close - name), s->p + name);
            replace(s, i, close + 1, head.data, head.len);
            dra_buf_free(&head);
        }
        push_frame(s, true);
        return close + 1;
    }
    bool negated = false, saw_flag = false;
    for (size_t t = i + 2;;) {
        uint32_t c;
        size_t w;
        if (!next_rune(s, t, i, s->n, &c, &w) || w == 0)
            return SIZE_MAX;
        t += w;
        switch (c) {
        case 'i':
        case 'm':
        case 's':
        case 'U': saw_flag = true; continue;
        case '-':
            if (negated)
                return SIZE_MAX;
            negated = true;
            saw_flag = false;
            continue;
        case ':':
        case ')':
            if (negated && !saw_flag)
                return SIZE_MAX;
            if (c == ':')
                push_frame(s, false);
            return t;
        default: return SIZE_MAX; /* RE2 rejects what Go rejects here */
        }
    }
}

/* An escape outside a class at i; returns where it ends, SIZE_MAX to stop. */
static size_t escape(scan *s, size_t i)
{
    if (i + 1 >= s->n)
        return SIZE_MAX; /* trailing backslash: RE2 says so as Go does */
    char c = s->p[i + 1];
    if (c == 'A' || c == 'b' || c == 'B' || c == 'z' || perl_class_letter(c)) {
        add_item(s, 1, 0, i);
        return i + 2;
    }
    if (c == 'C') { /* any byte: RE2 has it, Go does not */
        fail(s, i, "invalid escape sequence", i, i + 2);
        return SIZE_MAX;
    }
    if (c == 'Q') { /* \Q...\E: literals */
        const char *q = memmem(s->p + i + 2, s->n - i - 2, "\\E", 2);
        size_t lit_end = q ? (size_t)(q - s->p) : s->n;
        size_t runes = 0;
        for (size_t t = i + 2; t < lit_end;) {
            uint32_t r;
            size_t w;
            if (!next_rune(s, t, i, lit_end, &r, &w))
                return SIZE_MAX;
            t += w;
            runes++;
        }
        if (runes)
            add_item(s, 1, runes, i);
        return q ? lit_end + 2 : s->n;
    }
    if (c == 'p' || c == 'P') {
        size_t end = unicode_class(s, i, false);
        if (end != SIZE_MAX)
            add_item(s, 1, 0, i);
        return end;
    }
    size_t end = escape_end(s, i);
    add_item(s, 1, 1, i);
    return s->failed ? SIZE_MAX : end;
}

/* Read the whole pattern; on return s->out holds what RE2 compiles. */
static void read_pattern(scan *s)
{
    push_frame(s, false);
    for (size_t i = 0; i < s->n && !s->failed;) {
        size_t next;
        switch (s->p[i]) {
        case '(':
            if (i + 1 < s->n && s->p[i + 1] == '?') {
                next = perl_group(s, i);
            } else {
                push_frame(s, true);
                next = i + 1;
            }
            break;
        case '|':
            end_branch(s);
            next = i + 1;
            break;
        case ')':
            close_frame(s, i);
            next = i + 1;
            break;
        case '^':
        case '$':
        case '.':
            add_item(s, 1, 0, i);
            next = i + 1;
            break;
        case '[':
            next = char_class(s, i);
            if (next != SIZE_MAX)
                add_item(s, 1, 0, i);
            break;
        case '*':
        case '+':
        case '?':
            add_repeat(s, i);
            next = i + 1;
            break;
        case '{':
            next = repeat_end(s, i);
            if (s->failed)
                break;
            if (next) {
                add_repeat(s, i);
            } else {
                add_item(s, 1, 1, i);
                next = i + 1;
            }
            break;
        case '\\': next = escape(s, i); break;
        default: {
            uint32_t r;
            size_t w;
            if (!next_rune(s, i, i, s->n, &r, &w))
                return;
            add_item(s, 1, 1, i);
            next = i + w;
            break;
        }
        }
        if (next == SIZE_MAX)
            break;
        i = next;
    }
    if (!s->failed) {
        /* the whole expression's height, and any invalid UTF-8 the pass did not read */
        while (s->depth > 1)
            close_frame(s, s->n);
        end_branch(s);
        frame *f = top(s);
        too_deep(s, f->alts >= 2 ? f->alt_h + 1 : f->alt_h, s->n);
        if (!s->failed)
            check_utf8(s, s->copied, s->n, SIZE_MAX);
    }
}

/* ---- compiling and errors -------------------------------------------------- */

static char *go_error(const char *code, const char *arg, size_t len)
{
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "error parsing regexp: %s: `", code);
    dra_buf_append(&b, arg, len);
    dra_buf_putc(&b, '`');
    return dra_buf_detach(&b);
}

/* Offset in the pattern of offset `at` in what RE2 read. */
static size_t original_offset(const scan *s, size_t at, bool end)
{
    size_t delta_orig = 0, delta_out = 0;
    for (size_t k = 0; k < s->nspans; k++) {
        const span *sp = &s->spans[k];
        if (end ? at <= sp->at : at < sp->at)
            break;
        if (at < sp->at + sp->len) /* inside a rewritten piece: all of it */
            return end ? sp->orig + sp->olen : sp->orig;
        delta_orig = sp->orig + sp->olen;
        delta_out = sp->at + sp->len;
    }
    return delta_orig + (at - delta_out);
}

/* RE2's error on what it read, as Go words it on the pattern. */
static char *mapped_error(const scan *s, const char *rp, size_t rlen, int code, const char *arg)
{
    const char *text = code > 0 && (size_t)code < sizeof go_codes / sizeof go_codes[0] && go_codes[code]
                           ? go_codes[code]
                           : go_codes[DRA_RE2_INTERNAL];
    size_t alen = strlen(arg);
    if (code == DRA_RE2_MISSING_PAREN || code == DRA_RE2_UNEXPECTED_PAREN || code == DRA_RE2_PATTERN_TOO_LARGE)
        return go_error(text, s->p, s->n);
    if (s->nspans == 0 || alen == 0)
        return go_error(text, arg, alen);
    /* where RE2's fragment is in what it read: a suffix, else the first place */
    size_t at;
    if (alen <= rlen && memcmp(rp + rlen - alen, arg, alen) == 0 &&
        (code == DRA_RE2_MISSING_BRACKET || code == DRA_RE2_BAD_UTF8 || code == DRA_RE2_BAD_NAMED_CAPTURE)) {
        at = rlen - alen;
    } else {
        /* the first place outside the pieces written here (RE2 finds
         * nothing wrong inside those) */
        at = SIZE_MAX;
        for (size_t from = 0; from + alen <= rlen && at == SIZE_MAX;) {
            const char *q = memmem(rp + from, rlen - from, arg, alen);
            if (!q)
                break;
            size_t cand = (size_t)(q - rp);
            bool inside = false;
            for (size_t k = 0; k < s->nspans && !inside; k++)
                inside = cand >= s->spans[k].at && cand < s->spans[k].at + s->spans[k].len;
            if (inside)
                from = cand + 1;
            else
                at = cand;
        }
        if (at == SIZE_MAX)
            return go_error(text, arg, alen);
    }
    size_t lo = original_offset(s, at, false), hi = original_offset(s, at + alen, true);
    return go_error(text, s->p + lo, hi - lo);
}

/* A private-use rune absent from the pattern, escaped: RE2 rejects it as
 * an invalid escape wherever it stands. */
static void marker(const scan *s, char out[5])
{
    for (uint32_t r = 0xF8FF;; r--) {
        out[0] = '\\';
        size_t w = dra_utf8_encode(r, out + 1);
        if (!memmem(s->p, s->n, out, w + 1) || r == 0xE000) {
            out[w + 1] = '\0';
            return;
        }
    }
}

static void scan_free(scan *s)
{
    dra_buf_free(&s->out);
    free(s->spans);
    free(s->frames);
}

cel_regex *cel_regex_compile(const char *pattern, size_t len, char **err)
{
    scan s = {.p = pattern ? pattern : "", .n = len};
    read_pattern(&s);
    char mark[5] = "";
    if (s.failed) {
        /* RE2 reads up to where Go's parser failed, then a marker: an
         * earlier error is RE2's to report, reaching the marker is Go's */
        marker(&s, mark);
        dra_buf_append(&s.out, s.p + s.copied, s.fail_at - s.copied);
        dra_buf_puts(&s.out, mark);
    } else {
        dra_buf_append(&s.out, s.p + s.copied, s.n - s.copied);
    }
    int code = 0;
    char *arg = NULL;
    const char *rp = s.out.data ? s.out.data : "";
    dra_re2 *re = dra_re2_new(rp, s.out.len, REGEX_MAX_MEM, &code, &arg);
    if (re && !s.failed) {
        scan_free(&s);
        *err = NULL;
        cel_regex *r = dra_xmalloc(sizeof *r);
        r->re = re;
        return r;
    }
    if (re) /* cannot be: the marker is an error */
        dra_re2_free(re);
    if (s.failed && (!arg || strcmp(arg, mark) == 0))
        *err = go_error(s.code, s.p + s.arg_lo, s.arg_hi - s.arg_lo);
    else
        *err = mapped_error(&s, rp, s.out.len, code, arg);
    free(arg);
    scan_free(&s);
    return NULL;
}

void cel_regex_free(cel_regex *re)
{
    if (!re)
        return;
    dra_re2_free(re->re);
    free(re);
}

/* ---- searching -------------------------------------------------------------- */

/* A text with each byte of invalid UTF-8 as U+FFFD, as Go's decoder reads
 * it, and where each of its offsets was in the original. */
typedef struct subject {
    const char *text;
    size_t len;
    char *copy;   /* NULL when the text was valid */
    size_t *orig; /* orig[k]: offset in the original of copy offset k */
} subject;

static void subject_init(subject *sj, const char *text, size_t len)
{
    sj->text = text ? text : "";
    sj->len = len;
    sj->copy = NULL;
    sj->orig = NULL;
    if (dra_utf8_valid(sj->text, len))
        return;
    dra_buf b = DRA_BUF_INIT;
    size_t cap = len * 3 + 1;
    sj->orig = dra_xmalloc(cap * sizeof *sj->orig);
    for (size_t i = 0; i < len;) {
        uint32_t r;
        size_t w = dra_utf8_decode(sj->text + i, len - i, &r);
        size_t at = b.len;
        if (w) {
            dra_buf_append(&b, sj->text + i, w);
        } else {
            dra_buf_append(&b, "\xEF\xBF\xBD", 3);
            w = 1;
        }
        for (size_t k = at; k < b.len; k++)
            sj->orig[k] = i;
        i += w;
    }
    sj->orig[b.len] = len;
    sj->len = b.len;
    sj->copy = dra_buf_detach(&b);
    sj->text = sj->copy ? sj->copy : "";
}

static size_t subject_orig(const subject *sj, size_t at)
{
    return sj->orig ? sj->orig[at] : at;
}

static void subject_free(subject *sj)
{
    free(sj->copy);
    free(sj->orig);
}

/* The leftmost match at or after pos that starts on a rune boundary: RE2
 * searches byte by byte and can find an empty match (\B) between the
 * bytes of one rune, where Go's decoder never stands. */
static bool search(const cel_regex *re, const subject *sj, size_t pos, size_t m[2])
{
    for (;;) {
        if (!dra_re2_search(re->re, sj->text, sj->len, pos, m))
            return false;
        if (m[0] >= sj->len || (sj->text[m[0]] & 0xC0) != 0x80)
            return true;
        pos = m[0];
        while (pos < sj->len && (sj->text[pos] & 0xC0) == 0x80)
            pos++;
    }
}

static bool ascii(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] >= 0x80)
            return false;
    return true;
}

bool cel_regex_match(const cel_regex *re, const char *text, size_t len)
{
    if (!text || ascii(text, len)) /* every offset is a rune boundary */
        return dra_re2_search(re->re, text ? text : "", len, 0, NULL);
    subject sj;
    subject_init(&sj, text, len);
    size_t m[2];
    bool found = search(re, &sj, 0, m);
    subject_free(&sj);
    return found;
}

/* Go's Regexp.allMatches: an empty match right after the previous match
 * is skipped, and the search moves on by one rune after an empty match. */
size_t cel_regex_find_all(const cel_regex *re, const char *text, size_t len, int64_t limit,
                          void (*emit)(void *ud, size_t start, size_t end), void *ud)
{
    subject sj;
    subject_init(&sj, text, len);
    size_t found = 0, pos = 0;
    bool have_prev = false;
    size_t prev_end = 0;
    while ((limit < 0 || (int64_t)found < limit) && pos <= sj.len) {
        size_t m[2];
        if (!search(re, &sj, pos, m))
            break;
        bool accept = true;
        if (m[1] == pos) {
            if (have_prev && m[0] == prev_end)
                accept = false;
            uint32_t r;
            size_t w = pos < sj.len ? dra_utf8_decode(sj.text + pos, sj.len - pos, &r) : 0;
            pos += w ? w : 1;
        } else {
            pos = m[1];
        }
        prev_end = m[1];
        have_prev = true;
        if (accept) {
            emit(ud, subject_orig(&sj, m[0]), subject_orig(&sj, m[1]));
            found++;
        }
    }
    subject_free(&sj);
    return found;
}
