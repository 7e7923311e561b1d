/* CEL parser: recursive descent over the token array from lexer.c, with the
 * grammar of cel-spec CEL.g4 and the AST-building rules of cel-go
 * parser/parser.go and parser/helper.go (balanced && / || trees, folded
 * unary operators, signed literals, reserved identifiers, optional syntax).
 *
 * Recursion guard: cel-go counts, per grammar rule, how deeply the rule is
 * nested (an ANTLR parse listener; left-recursive rules count once per
 * operator) and stops at 250 with "expression recursion limit exceeded".
 * We keep the same counters for the rules that can nest (expr, member, calc,
 * relation), so the C stack depth stays bounded whatever the input.
 *
 * On the first syntax error parsing stops (ANTLR would try to recover and
 * may report more); lexical errors are all reported first.
 */
#include "parser.h"
#include "../base/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "lexer.h"
#include "macros.h"
#include "nodes.h"

enum { R_EXPR, R_MEMBER, R_CALC, R_REL, R_COUNT };

typedef struct parse_state {
    cel_parser p;
    const cel_token *toks;
    size_t ntoks, pos;
    const cel_lex_error *refused; /* the lexer's errors, in source order */
    size_t nrefused;
    size_t nlexed; /* how many of them the lexer has reported (see lexed_upto) */
    int max_errors;
    int depth[R_COUNT];
    int max_depth;
    bool optional_syntax;
    bool ident_escape; /* `quoted` field names (cel-go v0.29's EnableIdentEscapeSyntax) */
    int syntax_errors;
    uint64_t follow;       /* what may follow the expression being parsed (TOKSET) */
    const char *start_set; /* the expected set shown at token start_pos */
    int start_rule;        /* and the rule that reports it (X_*) */
    size_t start_pos;
    /* ANTLR's DefaultErrorStrategy (see "error recovery" below) */
    bool recovering;   /* errorRecoveryMode: syntax errors not reported */
    int exc;           /* the rule (X_*) a pending syntax error unwinds to */
    uint64_t *follows; /* follow set of each rule invocation (TOKSET) */
    size_t nfollows, capfollows;
    size_t last_err_pos; /* lastErrorIndex */
    unsigned last_err_rules;
    int recoveries;
    bool unary_done; /* primary_rule parsed a whole unary after a deleted token */
} parse_state;

/* The rules that catch a syntax error (ANTLR: the rule it is thrown in). */
enum { X_NONE, X_EXPR, X_UNARY, X_MEMBER, X_PRIMARY, X_ESCIDENT, X_ENTRIES, X_START };
/* X_START: thrown at the start of a parse_expr_in expression by the sync
 * of the rule that called it (start_rule), which catches it. */

/* cel-go parser.go: recoveryLimitErrorStrategy's default limit */
#define RECOVERY_LIMIT 30

#define TOKSET(k) ((uint64_t)1 << (k))
#define RELOP_SET                                                                                                      \
    (TOKSET(CEL_TOK_LT) | TOKSET(CEL_TOK_LE) | TOKSET(CEL_TOK_GE) | TOKSET(CEL_TOK_GT) | TOKSET(CEL_TOK_EQ) |          \
     TOKSET(CEL_TOK_NE) | TOKSET(CEL_TOK_IN))
#define CALCOP_SET                                                                                                     \
    (TOKSET(CEL_TOK_STAR) | TOKSET(CEL_TOK_SLASH) | TOKSET(CEL_TOK_PERCENT) | TOKSET(CEL_TOK_PLUS) |                   \
     TOKSET(CEL_TOK_MINUS))
/* What may follow an operand: postfix, binary and ternary operators. */
#define FOLLOW_OPERAND                                                                                                 \
    (TOKSET(CEL_TOK_DOT) | TOKSET(CEL_TOK_LBRACKET) | TOKSET(CEL_TOK_STAR) | TOKSET(CEL_TOK_SLASH) |                   \
     TOKSET(CEL_TOK_PERCENT) | TOKSET(CEL_TOK_PLUS) | TOKSET(CEL_TOK_MINUS) | TOKSET(CEL_TOK_LT) |                     \
     TOKSET(CEL_TOK_LE) | TOKSET(CEL_TOK_GE) | TOKSET(CEL_TOK_GT) | TOKSET(CEL_TOK_EQ) | TOKSET(CEL_TOK_NE) |          \
     TOKSET(CEL_TOK_IN) | TOKSET(CEL_TOK_AND) | TOKSET(CEL_TOK_OR) | TOKSET(CEL_TOK_QUESTION))

/* clang-format off */
static const char *const reserved_ids[] = {
    "as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in",
    "let", "loop", "package", "namespace", "null", "return", "true", "var", "void", "while",
};
/* clang-format on */

/* ---- token helpers ---- */

static const cel_token *peek(const parse_state *s)
{
    return &s->toks[s->pos];
}
static const cel_token *peek_at(const parse_state *s, size_t k)
{
    size_t i = s->pos + k;
    return &s->toks[i < s->ntoks ? i : s->ntoks - 1];
}
static cel_tok_kind kind(const parse_state *s)
{
    return s->toks[s->pos].kind;
}
/* A token matched: ANTLR's ReportMatch (endErrorCondition) ends error
 * recovery mode and forgets where the last error was. */
static void end_recovery(parse_state *s)
{
    s->recovering = false;
    s->last_err_pos = SIZE_MAX;
    s->last_err_rules = 0;
}

static const cel_token *advance(parse_state *s)
{
    const cel_token *t = &s->toks[s->pos];
    if (t->kind != CEL_TOK_EOF)
        s->pos++;
    end_recovery(s);
    return t;
}

static cel_node *placeholder(parse_state *s, size_t offset)
{
    return cel_p_node(&s->p, CEL_NODE_CONST, offset);
}

/* ---- error recovery ----
 *
 * ANTLR's DefaultErrorStrategy as cel-go runs it: a syntax error is
 * reported unless the parser is recovering from one (errorRecoveryMode,
 * ended by the next token matched), then unwinds to the rule it was
 * thrown in (X_*), which consumes tokens up to one that may follow some
 * rule invocation on the stack (the follows pushed around each call) and
 * returns what it has; its caller goes on.  Deletion and insertion of a
 * single token at a match (expect) and at a sync point go on in place. */

/* ---- the syntax error count ----
 *
 * cel-go's parser (parser.go SyntaxError, the same in v0.26, v0.29.2 and
 * cel.dev v0.33.2) is the error listener of both ANTLR's lexer and its
 * parser: every report of either counts, the error recovery limit's too,
 * and the report past errorReportingLimit (100) is "More than 100 syntax
 * errors", after which the parser panics (nothing more is reported, the
 * visitor never runs).  ANTLR lexes as the parser fetches tokens, so a
 * lexer error is reported when the parser first fetches the token after
 * it: when the parser reports at a token, the lexer's errors before that
 * token (lookahead 0: adaptive prediction's "no viable alternative", the
 * recovery limit) or before the one after it (lookahead 1: a mismatch,
 * whose single-token deletion looks at the next token) came first. */

/* Count one report at offset; false (the parser stopped) past the limit. */
static bool count_syntax(parse_state *s, size_t offset)
{
    if (s->syntax_errors >= s->max_errors) {
        cel_p_parse_error(&s->p, offset, "Syntax error: More than %d syntax errors", s->max_errors);
        s->p.fatal = true;
        s->exc = X_NONE;
        return false;
    }
    s->syntax_errors++;
    return true;
}

/* The lexer's reports before offset bound; false when they passed the
 * limit. */
static bool lexed_upto(parse_state *s, size_t bound)
{
    while (s->nlexed < s->nrefused && s->refused[s->nlexed].offset < bound) {
        const cel_lex_error *e = &s->refused[s->nlexed];
        if (!count_syntax(s, e->offset))
            return false;
        s->nlexed++;
        cel_p_parse_error_n(&s->p, e->offset, "Syntax error: ", e->msg, e->len);
    }
    return true;
}

/* The lexer's reports up to the token at offset (lookahead 0) or the one
 * after it (1), then the parser's own one there; false when the parser
 * stopped. */
static bool count_parser_report(parse_state *s, size_t offset, size_t lookahead)
{
    size_t i = 0;
    while (i + 1 < s->ntoks && s->toks[i].start < offset)
        i++;
    i += lookahead;
    size_t bound = i < s->ntoks && s->toks[i].kind != CEL_TOK_EOF ? s->toks[i].start : SIZE_MAX;
    return lexed_upto(s, bound) && count_syntax(s, offset);
}

static void report_syntax(parse_state *s, size_t offset, const char *fmt, ...) DRA_PRINTF(3, 4);
static void report_syntax(parse_state *s, size_t offset, const char *fmt, ...)
{
    if (s->recovering)
        return;
    s->recovering = true;
    va_list ap;
    va_start(ap, fmt);
    char *msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    if (count_parser_report(s, offset, strncmp(msg, "no viable alternative", 21) == 0 ? 0 : 1))
        cel_p_parse_error(&s->p, offset, "Syntax error: %s", msg);
    free(msg);
}

/* A syntax error thrown in rule x at token t. */
static cel_node *syntax_error(parse_state *s, int x, const cel_token *t, const char *fmt, ...) DRA_PRINTF(4, 5);
static cel_node *syntax_error(parse_state *s, int x, const cel_token *t, const char *fmt, ...)
{
    if (!s->p.fatal) {
        va_list ap;
        va_start(ap, fmt);
        char *msg = dra_xvasprintf(fmt, ap);
        va_end(ap);
        report_syntax(s, t->start, "%s", msg);
        free(msg);
        if (!s->p.fatal) { /* else past the error limit: the parser stopped */
            s->p.fatal = true;
            s->exc = x;
        }
    }
    return placeholder(s, t->start);
}

static void push_follow(parse_state *s, uint64_t set)
{
    if (s->nfollows == s->capfollows) {
        s->capfollows = s->capfollows ? s->capfollows * 2 : 64;
        s->follows = dra_xrealloc(s->follows, s->capfollows * sizeof *s->follows);
    }
    s->follows[s->nfollows++] = set;
}

static void pop_follow(parse_state *s)
{
    s->nfollows--;
}

/* cel-go's recoveryLimitErrorStrategy: each recovery counts; past the
 * limit parsing stops.  False when it has. */
static bool count_recovery(parse_state *s)
{
    if (s->p.fatal && !s->exc)
        return false;
    if (s->recoveries++ == RECOVERY_LIMIT) {
        if (count_parser_report(s, peek(s)->start, 0))
            cel_p_parse_error(&s->p, peek(s)->start, "Syntax error: error recovery attempt limit exceeded: %d",
                              RECOVERY_LIMIT);
        s->p.fatal = true;
        s->exc = X_NONE;
        return false;
    }
    return true;
}

/* Rule x catches the syntax error thrown in it (DefaultErrorStrategy
 * Recover): a token is consumed when the last error was at the same
 * token in the same rule, then tokens up to one in the recovery set. */
static void catch_error(parse_state *s, int x)
{
    if (!s->p.fatal || s->exc != x || x == X_NONE)
        return;
    s->p.fatal = false;
    s->exc = X_NONE;
    if (!count_recovery(s))
        return;
    if (s->last_err_pos == s->pos && (s->last_err_rules & (1u << x)) && kind(s) != CEL_TOK_EOF)
        s->pos++;
    s->last_err_pos = s->pos;
    s->last_err_rules |= 1u << x;
    uint64_t set = 0;
    for (size_t i = 0; i < s->nfollows; i++)
        set |= s->follows[i];
    while (kind(s) != CEL_TOK_EOF && !(set & TOKSET(kind(s))))
        s->pos++;
}

/* DefaultErrorStrategy escapeWSAndQuote: tabs and line ends shown as
 * \t, \n and \r (the quotes are the callers'). */
static char *escape_ws(dra_buf *b)
{
    dra_buf out = DRA_BUF_INIT;
    for (size_t i = 0; i < b->len; i++) {
        char c = b->data[i];
        if (c == '\t' || c == '\n' || c == '\r') {
            dra_buf_putc(&out, '\\');
            dra_buf_putc(&out, c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        } else {
            dra_buf_putc(&out, c);
        }
    }
    dra_buf_puts(&out, "");
    dra_buf_free(b);
    return dra_buf_detach(&out);
}

/* ANTLR shows the offending token's text; <EOF> at the end. */
static char *tok_text(const parse_state *s, const cel_token *t)
{
    if (t->kind == CEL_TOK_EOF)
        return dra_xstrdup("<EOF>");
    dra_buf b = DRA_BUF_INIT;
    dra_buf_append(&b, s->p.src + t->start, t->len);
    return escape_ws(&b);
}

/* ANTLR's text of tokens first..last (EOF not shown), the hidden ones
 * between them (spaces, comments) included: every byte between two
 * tokens but those the lexer refused. */
static char *span_text(const parse_state *s, const cel_token *first, const cel_token *last)
{
    dra_buf b = DRA_BUF_INIT;
    size_t r = 0;
    for (const cel_token *t = first; t <= last && t->kind != CEL_TOK_EOF; t++) {
        dra_buf_append(&b, s->p.src + t->start, t->len);
        if (t == last)
            break;
        size_t i = t->start + t->len, end = t[1].start;
        while (i < end) {
            while (r < s->nrefused && s->refused[r].end <= i)
                r++;
            size_t stop = r < s->nrefused && s->refused[r].offset < end ? s->refused[r].offset : end;
            if (stop > i)
                dra_buf_append(&b, s->p.src + i, stop - i);
            i = stop < end ? s->refused[r].end : end;
        }
    }
    return escape_ws(&b);
}

/* ANTLR's "no viable alternative" at token bad, its prediction having
 * started at first.  cel-go's error listener (parser/parser.go
 * SyntaxError, reservedIdentifier) rewrites the message matching
 * "no viable alternative at input '.(true|false|null)'" (any one
 * character, not a newline, before the word) as "mismatched input
 * 'WORD' expecting IDENTIFIER", keeping what follows the match. */
static cel_node *no_viable(parse_state *s, int x, const cel_token *first, const cel_token *bad)
{
    char *txt = span_text(s, first, bad);
    char *msg = dra_xasprintf("no viable alternative at input '%s'", txt);
    const char *in = msg + strlen("no viable alternative at input '");
    uint32_t cp;
    size_t ul = *in && *in != '\n' ? dra_utf8_decode(in, strlen(in), &cp) : 0;
    static const char *const words[] = {"true", "false", "null"};
    for (size_t w = 0; ul && w < 3; w++) {
        size_t wl = strlen(words[w]);
        if (!strncmp(in + ul, words[w], wl) && in[ul + wl] == '\'') {
            char *m = dra_xasprintf("mismatched input '%s' expecting IDENTIFIER%s", words[w], in + ul + wl + 1);
            free(msg);
            msg = m;
            break;
        }
    }
    cel_node *n = syntax_error(s, x, bad, "%s", msg);
    free(msg);
    free(txt);
    return n;
}

/* clang-format off */
#define EXPR_START_SET \
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
/* An index: '[' '?'? expr ']' */
#define INDEX_START_SET \
    "{'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
/* Call arguments: '(' exprList? ')' */
#define ARGS_START_SET \
    "{'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
/* '[' listInit? ','? ']' */
#define LIST_START_SET \
    "{'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
/* '{' mapInitializerList? ','? '}' */
#define MAP_START_SET \
    "{'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
/* clang-format on */

static cel_node *mismatched(parse_state *s, int x, const char *expecting)
{
    const cel_token *t = peek(s);
    char *txt = tok_text(s, t);
    cel_node *n = syntax_error(s, x, t, "mismatched input '%s' expecting %s", txt, expecting);
    free(txt);
    return n;
}

static bool starts_operand(cel_tok_kind k);

/* ANTLR's match of token k (DefaultErrorStrategy.RecoverInline): a stray
 * token before k is reported and skipped (single-token deletion); a
 * missing k is reported and taken as there when the token at hand may
 * follow it (single-token insertion); otherwise the input is mismatched
 * and parsing stops. */
static bool expect(parse_state *s, cel_tok_kind k, int x)
{
    if (s->p.fatal) /* a syntax error unwinding */
        return false;
    if (kind(s) == k) {
        advance(s);
        return true;
    }
    const cel_token *t = peek(s);
    if (!count_recovery(s))
        return false;
    if (t->kind != CEL_TOK_EOF && peek_at(s, 1)->kind == k) {
        char *txt = tok_text(s, t);
        report_syntax(s, t->start, "extraneous input '%s' expecting %s", txt, cel_tok_display(k));
        free(txt);
        advance(s);
        advance(s);
        return true;
    }
    bool follows = k == CEL_TOK_COLON ? starts_operand(t->kind) : ((FOLLOW_OPERAND | s->follow) & TOKSET(t->kind)) != 0;
    if (follows) {
        char *txt = tok_text(s, t);
        report_syntax(s, t->start, "missing %s at '%s'", cel_tok_display(k), txt);
        free(txt);
        return true;
    }
    mismatched(s, x, cel_tok_display(k));
    return false;
}

/* At a ','/closer choice (a sync point): a stray token before one of
 * the two is reported and skipped; false otherwise (after throwing, or
 * silently while recovering: the closer's match decides). */
static bool sync_either(parse_state *s, cel_tok_kind a, cel_tok_kind b, const char *set)
{
    if (s->recovering) /* no sync while recovering: the match decides */
        return false;
    const cel_token *t = peek(s);
    cel_tok_kind next = peek_at(s, 1)->kind;
    if (t->kind != CEL_TOK_EOF && (next == a || next == b)) {
        char *txt = tok_text(s, t);
        report_syntax(s, t->start, "extraneous input '%s' expecting %s", txt, set);
        free(txt);
        advance(s);
        return true;
    }
    mismatched(s, X_PRIMARY, set);
    return false;
}

/* The sync before an optional block that may start with an operand, '?'
 * or one of closers (TOKSET): a stray token before one of them is
 * reported as unwanted (expecting set) and skipped. */
static void sync_start(parse_state *s, uint64_t closers, const char *set)
{
    cel_tok_kind k = kind(s), next = peek_at(s, 1)->kind;
    uint64_t ok = closers | TOKSET(CEL_TOK_QUESTION);
    if (s->recovering || k == CEL_TOK_EOF || starts_operand(k) || (ok & TOKSET(k)))
        return;
    if (!starts_operand(next) && !(ok & TOKSET(next)))
        return;
    char *txt = tok_text(s, peek(s));
    report_syntax(s, peek(s)->start, "extraneous input '%s' expecting %s", txt, set);
    free(txt);
    advance(s);
}

/* Per-rule nesting counters (see the file comment). */
static bool enter(parse_state *s, int rule)
{
    if (s->p.fatal)
        return false;
    if (++s->depth[rule] > s->max_depth) {
        cel_p_parse_error(&s->p, SIZE_MAX, "expression recursion limit exceeded: %d", s->max_depth);
        s->p.fatal = true;
        s->exc = X_NONE;
        return false;
    }
    return true;
}

static const char *tok_str(parse_state *s, const cel_token *t)
{
    return dra_arena_strndup(s->p.arena, s->p.src + t->start, t->len);
}

/* ---- grammar ---- */

static cel_node *parse_expr(parse_state *s);
static cel_node *parse_member(parse_state *s);

/* An expression that follow (TOKSET) may end, shown with the expected set
 * start_set (thrown in rule start_rule) when it cannot start. */
static cel_node *parse_expr_in(parse_state *s, uint64_t follow, const char *start_set, int start_rule)
{
    uint64_t saved = s->follow;
    const char *saved_set = s->start_set;
    int saved_rule = s->start_rule;
    size_t saved_pos = s->start_pos;
    s->follow = follow;
    s->start_set = start_set;
    s->start_rule = start_rule;
    s->start_pos = s->pos;
    cel_node *e = parse_expr(s);
    if (s->p.fatal && s->exc == X_START)
        s->exc = start_rule;
    s->follow = saved;
    s->start_set = saved_set;
    s->start_rule = saved_rule;
    s->start_pos = saved_pos;
    return e;
}
static cel_node *parse_primary(parse_state *s);
static cel_node *parse_unary(parse_state *s);

/* A token of EXPR_START_SET */
static bool starts_operand(cel_tok_kind k)
{
    switch (k) {
    case CEL_TOK_LBRACKET:
    case CEL_TOK_LBRACE:
    case CEL_TOK_LPAREN:
    case CEL_TOK_DOT:
    case CEL_TOK_MINUS:
    case CEL_TOK_EXCLAM:
    case CEL_TOK_TRUE:
    case CEL_TOK_FALSE:
    case CEL_TOK_NULL:
    case CEL_TOK_FLOAT:
    case CEL_TOK_INT:
    case CEL_TOK_UINT:
    case CEL_TOK_STRING:
    case CEL_TOK_BYTES:
    case CEL_TOK_IDENT: return true;
    default: return false;
    }
}

static cel_node *global_call(parse_state *s, size_t off, const char *fn, cel_node **args, size_t n)
{
    cel_node *m = cel_expand_macro(&s->p, off, fn, NULL, args, n);
    return m ? m : cel_p_call(&s->p, off, fn, NULL, args, n);
}

static cel_node *binary(parse_state *s, size_t off, const char *fn, cel_node *l, cel_node *r)
{
    cel_node *args[2] = {l, r};
    return global_call(s, off, fn, args, 2);
}

/* cel-go helper.go balancedTree: ops[i] joins terms[i] and terms[i+1]. */
static cel_node *balanced(parse_state *s, const char *fn, cel_node **terms, size_t *ops, size_t lo, size_t hi)
{
    size_t mid = (lo + hi + 1) / 2;
    cel_node *left = mid == lo ? terms[mid] : balanced(s, fn, terms, ops, lo, mid - 1);
    cel_node *right = mid == hi ? terms[mid + 1] : balanced(s, fn, terms, ops, mid + 1, hi);
    return cel_p_call2(&s->p, ops[mid], fn, left, right);
}

typedef struct node_vec {
    cel_node **v;
    size_t n, cap;
} node_vec;

static void vec_push(node_vec *v, cel_node *n)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 8;
        v->v = dra_xrealloc(v->v, v->cap * sizeof *v->v);
    }
    v->v[v->n++] = n;
}

static cel_node *parse_relation(parse_state *s);

/* CEL.g4 (cel-spec, as cel-go's parser/gen/CEL.g4):
 *   conditionalOr  : conditionalAnd ('||' conditionalAnd)* ;
 *   conditionalAnd : relation ('&&' relation)* ;
 * is_or picks the rule. */
static cel_node *parse_logic(parse_state *s, bool is_or);

static cel_node *logic_operand(parse_state *s, bool is_or)
{
    push_follow(s, TOKSET(is_or ? CEL_TOK_OR : CEL_TOK_AND));
    cel_node *n = is_or ? parse_logic(s, false) : parse_relation(s);
    pop_follow(s);
    return n;
}

static cel_node *parse_logic(parse_state *s, bool is_or)
{
    cel_node *first = logic_operand(s, is_or);
    cel_tok_kind opk = is_or ? CEL_TOK_OR : CEL_TOK_AND;
    if (kind(s) != opk || s->p.fatal)
        return first;
    node_vec terms = {0};
    size_t *ops = NULL, nops = 0, capops = 0;
    vec_push(&terms, first);
    while (kind(s) == opk && !s->p.fatal) {
        const cel_token *op = advance(s);
        if (nops == capops) {
            capops = capops ? capops * 2 : 8;
            ops = dra_xrealloc(ops, capops * sizeof *ops);
        }
        ops[nops++] = op->start;
        vec_push(&terms, logic_operand(s, is_or));
    }
    cel_node *r = balanced(s, is_or ? CEL_OP_LOGICAL_OR : CEL_OP_LOGICAL_AND, terms.v, ops, 0, nops - 1);
    free(terms.v);
    free(ops);
    return r;
}

static const char *relop(cel_tok_kind k)
{
    switch (k) {
    case CEL_TOK_LT: return CEL_OP_LESS;
    case CEL_TOK_LE: return CEL_OP_LESS_EQUALS;
    case CEL_TOK_GE: return CEL_OP_GREATER_EQUALS;
    case CEL_TOK_GT: return CEL_OP_GREATER;
    case CEL_TOK_EQ: return CEL_OP_EQUALS;
    case CEL_TOK_NE: return CEL_OP_NOT_EQUALS;
    case CEL_TOK_IN: return CEL_OP_IN;
    default: return NULL;
    }
}

static cel_node *parse_calc(parse_state *s, int min_prec);

/* relation : calc | relation ('<'|'<='|'>='|'>'|'=='|'!='|'in') relation ; */
static cel_node *parse_relation(parse_state *s)
{
    int saved = s->depth[R_REL];
    if (!enter(s, R_REL))
        return placeholder(s, peek(s)->start);
    push_follow(s, RELOP_SET);
    cel_node *l = parse_calc(s, 0);
    pop_follow(s);
    const char *fn;
    while (!s->p.fatal && (fn = relop(kind(s)))) {
        const cel_token *op = advance(s);
        if (!enter(s, R_REL) || !enter(s, R_REL)) /* the new context and the rhs rule */
            break;
        push_follow(s, RELOP_SET);
        cel_node *r = parse_calc(s, 0);
        pop_follow(s);
        s->depth[R_REL]--;
        l = binary(s, op->start, fn, l, r);
    }
    s->depth[R_REL] = saved;
    return l;
}

static int calc_prec(cel_tok_kind k, const char **fn)
{
    switch (k) {
    case CEL_TOK_STAR: *fn = CEL_OP_MULTIPLY; return 2;
    case CEL_TOK_SLASH: *fn = CEL_OP_DIVIDE; return 2;
    case CEL_TOK_PERCENT: *fn = CEL_OP_MODULO; return 2;
    case CEL_TOK_PLUS: *fn = CEL_OP_ADD; return 1;
    case CEL_TOK_MINUS: *fn = CEL_OP_SUBTRACT; return 1;
    default: return 0;
    }
}

static cel_node *parse_unary(parse_state *s);

/* Precedence climbing; left-associative within a level. */
/* calc : unary | calc ('*'|'/'|'%') calc | calc ('+'|'-') calc ;
 * by precedence climbing from min_prec. */
static cel_node *parse_calc(parse_state *s, int min_prec)
{
    int saved = s->depth[R_CALC];
    if (!enter(s, R_CALC))
        return placeholder(s, peek(s)->start);
    push_follow(s, CALCOP_SET);
    cel_node *l = parse_unary(s);
    pop_follow(s);
    const char *fn = NULL;
    int prec;
    while (!s->p.fatal && (prec = calc_prec(kind(s), &fn)) > min_prec) {
        const cel_token *op = advance(s);
        const char *opfn = fn;
        if (!enter(s, R_CALC))
            break;
        push_follow(s, CALCOP_SET);
        cel_node *r = parse_calc(s, prec);
        pop_follow(s);
        l = binary(s, op->start, opfn, l, r);
    }
    s->depth[R_CALC] = saved;
    return l;
}

/* unary : member             #MemberExpr
 *       | ('!')+ member       #LogicalNot
 *       | ('-')+ member       #Negate ; */
static cel_node *unary_rule(parse_state *s)
{
    const cel_token *first = peek(s);
    if (first->kind == CEL_TOK_EXCLAM || first->kind == CEL_TOK_MINUS) {
        cel_tok_kind k = first->kind;
        size_t count = 0;
        while (peek_at(s, count)->kind == k)
            count++;
        /* A single '-' before a number is the literal's sign (ANTLR picks the
         * member alternative first); several are all operators. */
        cel_tok_kind next = peek_at(s, count)->kind;
        if (k == CEL_TOK_MINUS && count == 1 && (next == CEL_TOK_INT || next == CEL_TOK_FLOAT))
            return parse_member(s);
        /* '-' before what cannot start a member (the end, '!'): ANTLR's
         * prediction at the last '-' cannot tell the operator from a
         * literal's sign; the '-' is left to the caller's operator loop */
        if (k == CEL_TOK_MINUS && (!starts_operand(next) || next == CEL_TOK_EXCLAM)) {
            s->pos += count - 1;
            if (count > 1) /* the '-' before it matched (ReportMatch) */
                end_recovery(s);
            return no_viable(s, X_UNARY, peek(s), peek_at(s, 1));
        }
        s->pos += count;
        end_recovery(s); /* the operators matched (ReportMatch) */
        if (k == CEL_TOK_EXCLAM && !starts_operand(next) && !s->recovering) {
            /* ('!')+ member: ANTLR's sync at the loop's end reports the
             * token as unwanted and consumes up to what may start the
             * member or follow a rule on the stack */
            char *txt = tok_text(s, peek(s));
            report_syntax(s, peek(s)->start, "extraneous input '%s' expecting %s", txt, EXPR_START_SET);
            free(txt);
            uint64_t set = 0;
            for (size_t i = 0; i < s->nfollows; i++)
                set |= s->follows[i];
            while (kind(s) != CEL_TOK_EOF && !starts_operand(kind(s)) && !(set & TOKSET(kind(s))))
                s->pos++;
        }
        cel_node *m = parse_member(s);
        if (count % 2 == 0)
            return m;
        cel_node *arg = m;
        return global_call(s, first->start, k == CEL_TOK_EXCLAM ? CEL_OP_LOGICAL_NOT : CEL_OP_NEGATE, &arg, 1);
    }
    return parse_member(s);
}

static cel_node *parse_unary(parse_state *s)
{
    cel_node *n = unary_rule(s);
    catch_error(s, X_UNARY);
    return n;
}

/* exprList: expr (',' expr)* up to ')', in rule x (GlobalCall: primary,
 * MemberCall: member). */
static void parse_args(parse_state *s, node_vec *args, int x)
{
    const uint64_t follow = TOKSET(CEL_TOK_COMMA) | TOKSET(CEL_TOK_RPAREN);
    cel_tok_kind k = kind(s), next = peek_at(s, 1)->kind;
    if (k != CEL_TOK_RPAREN && k != CEL_TOK_EOF && !starts_operand(k) && !s->recovering &&
        (next == CEL_TOK_RPAREN || starts_operand(next))) {
        /* exprList? at a sync point: single-token deletion */
        char *txt = tok_text(s, peek(s));
        report_syntax(s, peek(s)->start, "extraneous input '%s' expecting %s", txt, ARGS_START_SET);
        free(txt);
        advance(s);
    }
    if (kind(s) == CEL_TOK_RPAREN) {
        advance(s);
        return;
    }
    push_follow(s, TOKSET(CEL_TOK_RPAREN)); /* exprList */
    for (bool first = true;; first = false) {
        push_follow(s, TOKSET(CEL_TOK_COMMA));
        cel_node *a = parse_expr_in(s, follow, first ? ARGS_START_SET : NULL, x);
        pop_follow(s);
        if (!(first && s->p.fatal && s->exc == x)) /* exprList? not there */
            vec_push(args, a);
        if (s->p.fatal)
            break;
        if (kind(s) == CEL_TOK_COMMA) {
            advance(s);
            continue;
        }
        break;
    }
    pop_follow(s);
    if (!s->p.fatal)
        expect(s, CEL_TOK_RPAREN, x);
}

static bool is_reserved(const char *id)
{
    for (size_t i = 0; i < sizeof reserved_ids / sizeof *reserved_ids; i++)
        if (!strcmp(id, reserved_ids[i]))
            return true;
    return false;
}

/* Field name of an escapeIdent: IDENTIFIER or `backquoted`. */
static const char *field_name(parse_state *s, const cel_token *t)
{
    if (t->kind == CEL_TOK_ESC_IDENT)
        return dra_arena_strndup(s->p.arena, s->p.src + t->start + 1, t->len - 2);
    return tok_str(s, t);
}

/* member : primary                                     #PrimaryExpr
 *        | member '.' '?'? escapeIdent                  #Select
 *        | member '.' IDENTIFIER '(' exprList? ')'      #MemberCall
 *        | member '[' '?'? expr ']'                     #Index ; */
static cel_node *member_rule(parse_state *s)
{
    int saved = s->depth[R_MEMBER];
    if (!enter(s, R_MEMBER))
        return placeholder(s, peek(s)->start);
    push_follow(s, TOKSET(CEL_TOK_DOT) | TOKSET(CEL_TOK_LBRACKET));
    cel_node *e = parse_primary(s);
    pop_follow(s);
    if (s->unary_done) { /* primary_rule's deletion parsed the whole operand */
        s->unary_done = false;
        s->depth[R_MEMBER] = saved;
        return e;
    }
    while (!s->p.fatal) {
        cel_tok_kind k = kind(s);
        if (k == CEL_TOK_DOT) {
            cel_tok_kind k1 = peek_at(s, 1)->kind;
            if (k1 != CEL_TOK_QUESTION && k1 != CEL_TOK_IDENT && k1 != CEL_TOK_ESC_IDENT) {
                /* Select or MemberCall: ANTLR's prediction fails, nothing
                 * consumed */
                no_viable(s, X_MEMBER, peek(s), peek_at(s, 1));
                break;
            }
            const cel_token *op = advance(s);
            bool opt = false;
            if (kind(s) == CEL_TOK_QUESTION) {
                advance(s);
                opt = true;
            }
            const cel_token *id = peek(s);
            if (id->kind != CEL_TOK_IDENT && id->kind != CEL_TOK_ESC_IDENT) {
                cel_tok_kind next = peek_at(s, 1)->kind;
                if (opt && !s->recovering && id->kind != CEL_TOK_EOF &&
                    (next == CEL_TOK_IDENT || next == CEL_TOK_ESC_IDENT)) {
                    /* single-token deletion */
                    char *txt = tok_text(s, id);
                    report_syntax(s, id->start, "extraneous input '%s' expecting {IDENTIFIER, ESC_IDENTIFIER}", txt);
                    free(txt);
                    advance(s);
                    id = peek(s);
                } else if (opt) {
                    /* escapeIdent fails and recovers; the visitor then
                     * meets the error node in place of the field */
                    mismatched(s, X_ESCIDENT, "{IDENTIFIER, ESC_IDENTIFIER}");
                    push_follow(s, TOKSET(CEL_TOK_DOT) | TOKSET(CEL_TOK_LBRACKET));
                    catch_error(s, X_ESCIDENT);
                    pop_follow(s);
                    cel_p_error(&s->p, id->start, "unsupported ident kind");
                    /* VisitSelect goes on: the '.?' call, at the '.' */
                    e = placeholder(s, op->start);
                    continue;
                }
                if (s->p.fatal)
                    break;
            }
            advance(s);
            if (!enter(s, R_MEMBER))
                break;
            if (!opt && id->kind == CEL_TOK_IDENT && kind(s) == CEL_TOK_LPAREN) {
                const cel_token *open = advance(s);
                node_vec args = {0};
                parse_args(s, &args, X_MEMBER);
                const char *fn = tok_str(s, id);
                cel_node *m = cel_expand_macro(&s->p, open->start, fn, e, args.v, args.n);
                e = m ? m : cel_p_call(&s->p, open->start, fn, e, args.v, args.n);
                free(args.v);
                continue;
            }
            const char *field = field_name(s, id);
            if (id->kind == CEL_TOK_ESC_IDENT && !s->ident_escape) {
                /* parser.go VisitSelect: normalizeIdent's error is
                 * reported, the selection kept with an empty name */
                cel_p_error(&s->p, id->start, "unsupported syntax: '`'");
                field = "";
            }
            if (opt) {
                if (!s->optional_syntax) {
                    cel_p_error(&s->p, op->start, "unsupported syntax '.?'");
                    e = placeholder(s, op->start);
                    continue;
                }
                e = cel_p_call2(&s->p, op->start, CEL_OP_OPT_SELECT, e,
                                cel_p_string(&s->p, id->start, field, strlen(field)));
                continue;
            }
            cel_node *sel = cel_p_node(&s->p, CEL_NODE_SELECT, op->start);
            sel->u.select.operand = e;
            sel->u.select.field = field;
            e = sel;
        } else if (k == CEL_TOK_LBRACKET) {
            const cel_token *op = advance(s);
            sync_start(s, 0, INDEX_START_SET);
            bool opt = false;
            if (kind(s) == CEL_TOK_QUESTION) {
                advance(s);
                opt = true;
            }
            if (!enter(s, R_MEMBER))
                break;
            push_follow(s, TOKSET(CEL_TOK_RBRACKET));
            cel_node *idx = parse_expr_in(s, TOKSET(CEL_TOK_RBRACKET), opt ? NULL : INDEX_START_SET, X_MEMBER);
            pop_follow(s);
            if (!expect(s, CEL_TOK_RBRACKET, X_MEMBER)) {
                /* VisitIndex builds the index at its '[' all the same */
                if (opt && !s->optional_syntax)
                    e = cel_p_error(&s->p, op->start, "unsupported syntax '[?'");
                else
                    e = binary(s, op->start, opt ? CEL_OP_OPT_INDEX : CEL_OP_INDEX, e, idx);
                break;
            }
            if (opt && !s->optional_syntax) {
                e = cel_p_error(&s->p, op->start, "unsupported syntax '[?'");
                continue;
            }
            e = binary(s, op->start, opt ? CEL_OP_OPT_INDEX : CEL_OP_INDEX, e, idx);
        } else {
            break;
        }
    }
    s->depth[R_MEMBER] = saved;
    return e;
}

static cel_node *parse_member(parse_state *s)
{
    cel_node *n = member_rule(s);
    catch_error(s, X_MEMBER);
    return n;
}

/* ---- literals ---- */

static bool parse_magnitude(const char *t, size_t n, int base, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)t[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        if (d >= base || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return true;
}

/* literal : '-'? NUM_INT | NUM_UINT | '-'? NUM_FLOAT | STRING | BYTES
 *         | 'true' | 'false' | 'null' ; */
static cel_node *literal(parse_state *s)
{
    const cel_token *first = peek(s);
    bool negative = false;
    if (first->kind == CEL_TOK_MINUS) {
        negative = true;
        advance(s);
    }
    const cel_token *t = advance(s);
    const char *txt = s->p.src + t->start;
    size_t off = first->start;
    cel_node *n = cel_p_node(&s->p, CEL_NODE_CONST, off);
    cel_const *c = &n->u.constant;
    switch (t->kind) {
    case CEL_TOK_INT:
    case CEL_TOK_UINT: {
        size_t len = t->len - (t->kind == CEL_TOK_UINT ? 1 : 0);
        int base = 10;
        if (len > 2 && txt[0] == '0' && txt[1] == 'x')
            base = 16, txt += 2, len -= 2;
        uint64_t mag;
        bool ok = parse_magnitude(txt, len, base, &mag);
        if (t->kind == CEL_TOK_UINT) {
            if (!ok)
                return cel_p_error(&s->p, off, "invalid uint literal");
            c->kind = CEL_CONST_UINT;
            c->v.u = mag;
        } else {
            if (!ok || mag > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
                return cel_p_error(&s->p, off, "invalid int literal");
            c->kind = CEL_CONST_INT;
            c->v.i = negative ? (int64_t)(0 - mag) : (int64_t)mag;
        }
        return n;
    }
    case CEL_TOK_FLOAT: {
        char *buf = dra_xasprintf("%s%.*s", negative ? "-" : "", (int)t->len, txt);
        double d = strtod(buf, NULL);
        free(buf);
        /* Go's ParseFloat fails only on overflow to infinity. */
        if (d == HUGE_VAL || d == -HUGE_VAL)
            return cel_p_error(&s->p, off, "invalid double literal");
        c->kind = CEL_CONST_DOUBLE;
        c->v.d = d;
        return n;
    }
    case CEL_TOK_STRING:
    case CEL_TOK_BYTES: {
        bool bytes = t->kind == CEL_TOK_BYTES;
        dra_buf b = DRA_BUF_INIT;
        const char *err = cel_unescape(txt + bytes, t->len - bytes, bytes, &b);
        if (err) {
            dra_buf_free(&b);
            return cel_p_error(&s->p, off, "%s", err);
        }
        c->kind = bytes ? CEL_CONST_BYTES : CEL_CONST_STRING;
        c->v.s.len = b.len;
        c->v.s.data = dra_arena_alloc(s->p.arena, b.len + 1);
        if (b.len)
            memcpy((char *)c->v.s.data, b.data, b.len);
        ((char *)c->v.s.data)[b.len] = '\0';
        dra_buf_free(&b);
        return n;
    }
    case CEL_TOK_TRUE:
    case CEL_TOK_FALSE:
        c->kind = CEL_CONST_BOOL;
        c->v.b = t->kind == CEL_TOK_TRUE;
        return n;
    default: c->kind = CEL_CONST_NULL; return n;
    }
}

/* ---- aggregates ---- */

/* primary: '[' listInit? ','? ']'   #CreateList
 * listInit : optExpr (',' optExpr)* ;  optExpr : '?'? expr ; */
static cel_node *parse_list(parse_state *s)
{
    const cel_token *open = advance(s);
    node_vec elems = {0};
    size_t *opts = NULL, nopts = 0;
    const uint64_t follow = TOKSET(CEL_TOK_COMMA) | TOKSET(CEL_TOK_RBRACKET);
    sync_start(s, follow, LIST_START_SET);
    bool closing = kind(s) == CEL_TOK_COMMA; /* '[' ','? ']' */
    if (closing)
        advance(s);
    while (!closing && kind(s) != CEL_TOK_RBRACKET && !s->p.fatal) {
        bool opt = false;
        const cel_token *q = peek(s);
        if (q->kind == CEL_TOK_QUESTION) {
            advance(s);
            opt = true;
        }
        push_follow(s, follow); /* listInit, optExpr */
        cel_node *e = parse_expr_in(s, follow, elems.n || opt ? NULL : LIST_START_SET, X_PRIMARY);
        pop_follow(s);
        if (s->p.fatal)
            break;
        if (opt) {
            if (!s->optional_syntax) {
                cel_p_error(&s->p, q->start, "unsupported syntax '?'");
            } else {
                opts = dra_xgrow(opts, nopts, sizeof *opts);
                opts[nopts++] = elems.n;
            }
        }
        vec_push(&elems, e);
        if (kind(s) == CEL_TOK_COMMA) {
            advance(s);
            /* the trailing ',' when no element follows */
            closing = kind(s) != CEL_TOK_QUESTION && !starts_operand(kind(s));
            continue;
        }
        if (kind(s) != CEL_TOK_RBRACKET) {
            /* past listInit: the sync before ','? ']' */
            if (sync_either(s, CEL_TOK_RBRACKET, CEL_TOK_COMMA, "{']', ','}") && kind(s) == CEL_TOK_COMMA)
                advance(s);
            break;
        }
    }
    if (!s->p.fatal)
        expect(s, CEL_TOK_RBRACKET, X_PRIMARY);
    cel_node *l = cel_p_list(&s->p, open->start, elems.v, elems.n);
    if (nopts) {
        l->u.list.optional_indices = dra_arena_alloc(s->p.arena, nopts * sizeof *opts);
        memcpy(l->u.list.optional_indices, opts, nopts * sizeof *opts);
        l->u.list.noptional = nopts;
    }
    free(elems.v);
    free(opts);
    return l;
}

/* Map literal `{k: v}` (message_name == NULL) or message `Name{f: v}`:
 *   mapInitializerList   : optExpr ':' expr (',' optExpr ':' expr)* ;
 *   fieldInitializerList : optField ':' expr (',' optField ':' expr)* ;
 *   optField : '?'? escapeIdent ; */
static cel_node *parse_entries(parse_state *s, const char *message_name, size_t offset)
{
    advance(s); /* '{' */
    cel_entry *entries = NULL;
    size_t n = 0;
    if (!message_name)
        sync_start(s, TOKSET(CEL_TOK_COMMA) | TOKSET(CEL_TOK_RBRACE), MAP_START_SET);
    bool closing = kind(s) == CEL_TOK_COMMA; /* '{' ','? '}' */
    size_t list_start = peek(s)->start;      /* the initializer list's first token */
    if (closing)
        advance(s);
    push_follow(s, TOKSET(CEL_TOK_COMMA) | TOKSET(CEL_TOK_RBRACE)); /* the initializer list */
    while (!closing && kind(s) != CEL_TOK_RBRACE && !s->p.fatal) {
        cel_entry e = {0};
        size_t key_mark = 0;
        const cel_token *q = peek(s);
        if (q->kind == CEL_TOK_QUESTION) {
            advance(s);
            e.optional = true;
        }
        if (message_name) {
            const cel_token *id = peek(s);
            if (n == 0)
                list_start = q->start;
            cel_tok_kind next = peek_at(s, 1)->kind;
            if (id->kind != CEL_TOK_IDENT && id->kind != CEL_TOK_ESC_IDENT && e.optional && !s->recovering &&
                id->kind != CEL_TOK_EOF && (next == CEL_TOK_IDENT || next == CEL_TOK_ESC_IDENT)) {
                /* escapeIdent's sync: single-token deletion */
                char *txt = tok_text(s, id);
                report_syntax(s, id->start, "extraneous input '%s' expecting {IDENTIFIER, ESC_IDENTIFIER}", txt);
                free(txt);
                advance(s);
                id = advance(s);
                e.field = field_name(s, id);
            } else if (id->kind != CEL_TOK_IDENT && id->kind != CEL_TOK_ESC_IDENT && e.optional) {
                /* optField: '?' escapeIdent, the name missing: escapeIdent
                 * throws and recovers (up to optField's ':' or what
                 * follows the list); the ':' may then be conjured
                 * silently, and the visitor meets the broken optField */
                mismatched(s, X_ESCIDENT, "{IDENTIFIER, ESC_IDENTIFIER}");
                push_follow(s, TOKSET(CEL_TOK_COLON));
                catch_error(s, X_ESCIDENT);
                pop_follow(s);
                if (s->p.fatal)
                    break;
                e.field = NULL;
            } else if (id->kind != CEL_TOK_IDENT && id->kind != CEL_TOK_ESC_IDENT) {
                if (n) {
                    mismatched(s, X_ENTRIES, "{IDENTIFIER, ESC_IDENTIFIER}");
                    break;
                }
                /* fieldInitializerList? ','? '}' at the '{' */
                const char *set = "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}";
                if (id->kind == CEL_TOK_EOF || s->recovering ||
                    (next != CEL_TOK_RBRACE && next != CEL_TOK_COMMA && next != CEL_TOK_QUESTION &&
                     next != CEL_TOK_IDENT && next != CEL_TOK_ESC_IDENT)) {
                    mismatched(s, X_PRIMARY, set);
                    break;
                }
                char *txt = tok_text(s, id);
                report_syntax(s, id->start, "extraneous input '%s' expecting %s", txt, set);
                free(txt);
                advance(s);
                if (kind(s) == CEL_TOK_COMMA) {
                    advance(s);
                    closing = true;
                    continue;
                }
                if (kind(s) == CEL_TOK_QUESTION || kind(s) == CEL_TOK_RBRACE)
                    continue;
                id = peek(s);
                advance(s);
                e.field = field_name(s, id);
            } else {
                advance(s);
                e.field = field_name(s, id);
            }
        } else {
            key_mark = dra_err_count(s->p.errs);
            push_follow(s, TOKSET(CEL_TOK_COLON));
            e.key = parse_expr_in(s, TOKSET(CEL_TOK_COLON), n || e.optional ? NULL : MAP_START_SET, X_PRIMARY);
            pop_follow(s);
        }
        const cel_token *colon = peek(s);
        if (s->p.fatal || !expect(s, CEL_TOK_COLON, X_ENTRIES)) {
            /* cel-go visits the entries that have their ':' */
            if (!message_name)
                cel_p_unvisit(&s->p, key_mark);
            break;
        }
        size_t value_mark = dra_err_count(s->p.errs);
        push_follow(s, TOKSET(CEL_TOK_COMMA));
        e.value = parse_expr_in(s, TOKSET(CEL_TOK_COMMA) | TOKSET(CEL_TOK_RBRACE), NULL, X_NONE);
        pop_follow(s);
        /* only a limit ends parsing inside the value (every rule's
         * exception is caught there), and then nothing is visited
         * (cel_parse): the entry needs no building */
        if (s->p.fatal)
            break;
        e.id = ++s->p.next_id;
        e.offset = colon->start;
        /* parser.go VisitIFieldInitializerList, VisitMapInitializerList:
         * an entry refused goes unvisited (its key and value) */
        if (message_name && !e.field) {
            /* normalizeIdent's error, at the list */
            cel_p_unvisit(&s->p, value_mark);
            cel_p_error(&s->p, list_start, "unsupported ident kind");
        } else if (e.optional && !s->optional_syntax) {
            cel_p_unvisit(&s->p, message_name ? value_mark : key_mark);
            cel_p_error(&s->p, q->start, "unsupported syntax '?'");
        } else {
            entries = dra_xgrow(entries, n, sizeof *entries);
            entries[n++] = e;
        }
        if (kind(s) == CEL_TOK_COMMA) {
            advance(s);
            cel_tok_kind k = kind(s);
            closing = k != CEL_TOK_QUESTION &&
                      (message_name ? k != CEL_TOK_IDENT && k != CEL_TOK_ESC_IDENT : !starts_operand(k));
            continue;
        }
        if (kind(s) != CEL_TOK_RBRACE) {
            /* past the initializer list: the sync before ','? '}' */
            if (sync_either(s, CEL_TOK_RBRACE, CEL_TOK_COMMA, "{'}', ','}") && kind(s) == CEL_TOK_COMMA)
                advance(s);
            break;
        }
    }
    bool caught = s->p.fatal && s->exc == X_ENTRIES;
    catch_error(s, X_ENTRIES);
    pop_follow(s);
    if (caught && kind(s) == CEL_TOK_COMMA) /* ','? */
        advance(s);
    if (!s->p.fatal)
        expect(s, CEL_TOK_RBRACE, X_PRIMARY);
    cel_node *m = cel_p_node(&s->p, message_name ? CEL_NODE_STRUCT : CEL_NODE_MAP, offset);
    m->u.map.message_name = message_name;
    m->u.map.nentries = n;
    if (n) {
        m->u.map.entries = dra_arena_alloc(s->p.arena, n * sizeof *entries);
        memcpy(m->u.map.entries, entries, n * sizeof *entries);
    }
    free(entries);
    return m;
}

/* primary : '.'? IDENTIFIER                             #Ident
 *         | '.'? IDENTIFIER '(' exprList? ')'           #GlobalCall
 *         | '(' expr ')'                                #Nested
 *         | '[' listInit? ','? ']'                      #CreateList
 *         | '{' mapInitializerList? ','? '}'            #CreateMap
 *         | '.'? IDENTIFIER ('.' IDENTIFIER)* '{' fieldInitializerList? ','? '}'  #CreateMessage
 *         | literal                                     #ConstantLiteral ; */
static cel_node *primary_rule(parse_state *s)
{
    const cel_token *t = peek(s);
    switch (t->kind) {
    case CEL_TOK_LPAREN: {
        advance(s);
        push_follow(s, TOKSET(CEL_TOK_RPAREN));
        cel_node *e = parse_expr_in(s, TOKSET(CEL_TOK_RPAREN), NULL, X_NONE);
        pop_follow(s);
        expect(s, CEL_TOK_RPAREN, X_PRIMARY);
        return e;
    }
    case CEL_TOK_LBRACKET: return parse_list(s);
    case CEL_TOK_LBRACE: return parse_entries(s, NULL, t->start);
    case CEL_TOK_MINUS:
        /* after '!': a sign with no number (literal's prediction fails) */
        if (peek_at(s, 1)->kind != CEL_TOK_INT && peek_at(s, 1)->kind != CEL_TOK_FLOAT)
            return no_viable(s, X_PRIMARY, t, peek_at(s, 1));
        return literal(s);
    case CEL_TOK_INT:
    case CEL_TOK_UINT:
    case CEL_TOK_FLOAT:
    case CEL_TOK_STRING:
    case CEL_TOK_BYTES:
    case CEL_TOK_TRUE:
    case CEL_TOK_FALSE:
    case CEL_TOK_NULL: return literal(s);
    case CEL_TOK_DOT:
    case CEL_TOK_IDENT: break;
    default: {
        /* ANTLR's single-token deletion: a stray token before one that
         * may start an operand is reported and skipped */
        bool at_start = s->start_set && s->pos == s->start_pos;
        const char *set = at_start ? s->start_set : EXPR_START_SET;
        int x = at_start ? X_START : X_UNARY;
        if (t->kind != CEL_TOK_EOF && !s->recovering && starts_operand(peek_at(s, 1)->kind)) {
            char *txt = tok_text(s, t);
            report_syntax(s, t->start, "extraneous input '%s' expecting %s", txt, set);
            free(txt);
            advance(s);
            /* ANTLR deletes it at unary's sync, before member is entered:
             * the follow member_rule pushed ('.', '[') is not on the stack */
            uint64_t member_follow = s->follows[--s->nfollows];
            cel_node *n = parse_unary(s);
            push_follow(s, member_follow);
            s->unary_done = true; /* and member_rule's loop is not ANTLR's */
            return n;
        }
        return mismatched(s, x, set);
    }
    }
    bool leading_dot = t->kind == CEL_TOK_DOT;
    size_t i = leading_dot ? 1 : 0;
    if (peek_at(s, i)->kind != CEL_TOK_IDENT) {
        /* '.' IDENTIFIER: ANTLR's prediction fails after the dot, in
         * primary before any alternative, a context cel-go's visitor does
         * not know (an expression at NoLocation) */
        cel_node *n = no_viable(s, X_PRIMARY, t, peek_at(s, i));
        n->offset = CEL_P_NO_LOCATION;
        return n;
    }
    /* Qualified name followed by '{' is a message construction. */
    size_t k = i + 1;
    while (peek_at(s, k)->kind == CEL_TOK_DOT && peek_at(s, k + 1)->kind == CEL_TOK_IDENT)
        k += 2;
    if (peek_at(s, k)->kind == CEL_TOK_LBRACE) {
        dra_buf name = DRA_BUF_INIT;
        if (leading_dot)
            dra_buf_putc(&name, '.');
        for (size_t j = i; j < k; j++) {
            const cel_token *x = peek_at(s, j);
            dra_buf_append(&name, s->p.src + x->start, x->len);
        }
        s->pos += k;
        end_recovery(s); /* the name's tokens matched */
        const char *msg = dra_arena_strdup(s->p.arena, dra_buf_str(&name));
        dra_buf_free(&name);
        return parse_entries(s, msg, peek(s)->start);
    }
    s->pos += i;
    const cel_token *id = advance(s);
    const char *idtext = tok_str(s, id);
    if (is_reserved(idtext)) {
        cel_node *r = cel_p_error(&s->p, t->start, "reserved identifier: %s", idtext);
        if (kind(s) == CEL_TOK_LPAREN) {
            /* ANTLR parses the call; cel-go's visitor stops at the name */
            advance(s);
            size_t mark = dra_err_count(s->p.errs);
            node_vec args = {0};
            parse_args(s, &args, X_PRIMARY);
            free(args.v);
            cel_p_unvisit(&s->p, mark);
        }
        return r;
    }
    const char *name = leading_dot ? dra_arena_printf(s->p.arena, ".%s", idtext) : idtext;
    if (kind(s) == CEL_TOK_LPAREN) {
        const cel_token *open = advance(s);
        node_vec args = {0};
        parse_args(s, &args, X_PRIMARY);
        /* cel-go visits what ANTLR recovered: has(a..b) is refused as
         * has(a), has(a.b..c) is has(a.b) */
        cel_node *r = global_call(s, open->start, name, args.v, args.n);
        free(args.v);
        return r;
    }
    return cel_p_ident(&s->p, id->start, name);
}

static cel_node *parse_primary(parse_state *s)
{
    cel_node *n = primary_rule(s);
    catch_error(s, X_PRIMARY);
    return n;
}

/* expr : conditionalOr ('?' conditionalOr ':' expr)? ; */
static cel_node *parse_expr(parse_state *s)
{
    int saved = s->depth[R_EXPR];
    if (!enter(s, R_EXPR))
        return placeholder(s, peek(s)->start);
    push_follow(s, TOKSET(CEL_TOK_QUESTION));
    cel_node *cond = parse_logic(s, true);
    pop_follow(s);
    if (kind(s) == CEL_TOK_QUESTION && !s->p.fatal) {
        const cel_token *op = advance(s);
        uint64_t saved_follow = s->follow;
        s->follow = TOKSET(CEL_TOK_COLON);
        push_follow(s, TOKSET(CEL_TOK_COLON));
        cel_node *t = parse_logic(s, true);
        pop_follow(s);
        s->follow = saved_follow;
        /* VisitExpr builds the conditional once the '?' is matched,
         * whatever is missing after it */
        cel_node *f = expect(s, CEL_TOK_COLON, X_EXPR) ? parse_expr(s) : placeholder(s, CEL_P_NO_LOCATION);
        cel_node *args[3] = {cond, t, f};
        cond = global_call(s, op->start, CEL_OP_CONDITIONAL, args, 3);
    }
    catch_error(s, X_EXPR);
    s->depth[R_EXPR] = saved;
    return cond;
}

/* ---- entry point ---- */

dra_err *cel_parse(const char *src, size_t len, const cel_parse_limits *limits, dra_arena *arena, cel_ast **out)
{
    cel_parse_limits lim = limits ? *limits : (cel_parse_limits){0};
    if (!lim.max_expression_size)
        lim.max_expression_size = 100000;
    if (lim.max_recursion_depth <= 0)
        lim.max_recursion_depth = 250;
    if (lim.max_errors <= 0)
        lim.max_errors = 100;
    if (!lim.macros)
        lim.macros = CEL_MACROS_ALL;
    *out = NULL;

    cel_ast *ast = dra_arena_zalloc(arena, sizeof *ast);
    char *copy = dra_arena_alloc(arena, len + 1);
    if (len)
        memcpy(copy, src, len);
    copy[len] = '\0';
    ast->source = copy;
    ast->source_len = len;

    parse_state s = {0};
    s.p.src = copy;
    s.p.len = len;
    s.p.arena = arena;
    s.p.ast = ast;
    s.p.macros = lim.macros;
    s.p.max_errors = lim.max_errors;
    s.max_errors = lim.max_errors;
    s.max_depth = lim.max_recursion_depth;
    s.optional_syntax = !lim.disable_optional_syntax;
    s.ident_escape = !lim.disable_ident_escape;

    /* Line starts, code point count, UTF-8 validity. */
    size_t nlines = 1, points = 0, bad = SIZE_MAX;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        int ul = (int)dra_utf8_decode(copy + i, len - i, &cp);
        if (ul == 0) {
            if (bad == SIZE_MAX)
                bad = i;
            ul = 1;
        }
        if (copy[i] == '\n')
            nlines++;
        points++;
        i += (size_t)ul;
    }
    ast->line_offsets = dra_arena_alloc(arena, nlines * sizeof *ast->line_offsets);
    ast->line_offsets[0] = 0;
    ast->nlines = 1;
    for (size_t i = 0; i < len; i++)
        if (copy[i] == '\n')
            ast->line_offsets[ast->nlines++] = i + 1;

    if (points > lim.max_expression_size) {
        cel_p_error(&s.p, SIZE_MAX, "expression code point size exceeds limit: size: %zu, limit %zu", points,
                    lim.max_expression_size);
        return s.p.errs;
    }
    if (bad != SIZE_MAX) {
        cel_p_parse_error(&s.p, bad, "Syntax error: invalid UTF-8 input");
        return s.p.errs;
    }

    cel_lex_result lx;
    cel_lex(copy, len, arena, &lx);
    s.toks = lx.tokens;
    s.ntoks = lx.ntokens;
    s.refused = lx.errors;
    s.nrefused = lx.nerrors;

    s.follow = TOKSET(CEL_TOK_EOF);
    push_follow(&s, TOKSET(CEL_TOK_EOF));
    cel_node *root = parse_expr(&s);
    if (!s.p.fatal && kind(&s) != CEL_TOK_EOF && count_recovery(&s)) {
        const cel_token *t = peek(&s);
        char *txt = tok_text(&s, t);
        report_syntax(&s, t->start, "%s input '%s' expecting <EOF>",
                      peek_at(&s, 1)->kind == CEL_TOK_EOF ? "extraneous" : "mismatched", txt);
        free(txt);
    }
    /* the parser fetched every token: the lexer has reported all */
    if (!(s.p.fatal && s.exc == X_NONE))
        lexed_upto(&s, SIZE_MAX);
    free(s.follows);
    /* A limit (recursion, recovery attempts) is a panic in cel-go's
     * parser (parser.go parse): its visitor never runs, and only what the
     * parser reported is left. */
    if (s.p.fatal && s.exc == X_NONE)
        cel_p_unvisit(&s.p, 0);
    if (s.p.errs)
        return s.p.errs;
    ast->root = root;
    ast->max_id = s.p.next_id;
    *out = ast;
    return NULL;
}

/* ---- error display ---- */

/* The caret block of cel_error_caret appended to b (the source line's
 * bytes as they are, NUL bytes too); false, b untouched, when line is out
 * of range. */
static bool caret_to(dra_buf *out, const char *src, size_t len, int line, int col)
{
    if (line < 1)
        return false;
    size_t start = 0;
    for (int l = 1; l < line; l++) {
        const char *nl = memchr(src + start, '\n', len - start);
        if (!nl)
            return false;
        start = (size_t)(nl - src) + 1;
    }
    const char *nl = memchr(src + start, '\n', len - start);
    size_t end = nl ? (size_t)(nl - src) : len;
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, " | ");
    for (size_t i = start; i < end; i++)
        dra_buf_putc(&b, src[i] == '\t' ? ' ' : src[i]);
    dra_buf_puts(&b, "\n | ");
    /* cel-go: one '.' per code point before the column, a full-width dot
     * (U+FF0E) for multi-byte characters; the caret is U+FF3E under one. */
    size_t i = start;
    for (int c = 1; c < col && i < end; c++) {
        uint32_t cp;
        int ul = (int)dra_utf8_decode(src + i, end - i, &cp);
        if (ul <= 0)
            ul = 1;
        dra_buf_puts(&b, ul > 1 ? "\xef\xbc\x8e" : ".");
        i += (size_t)ul;
    }
    uint32_t cp;
    int ul = i < end ? (int)dra_utf8_decode(src + i, end - i, &cp) : 1;
    dra_buf_puts(&b, ul > 1 ? "\xef\xbc\xbe" : "^");
    dra_buf_append(out, b.data, b.len);
    dra_buf_free(&b);
    return true;
}

char *cel_error_caret(const char *src, size_t len, int line, int col)
{
    dra_buf b = DRA_BUF_INIT;
    if (!caret_to(&b, src, len, line, col))
        return NULL;
    return dra_buf_detach(&b);
}

char *cel_errors_display(const dra_err *errs, const char *src, size_t len)
{
    return cel_errors_display_n(errs, src, len, NULL);
}

char *cel_errors_display_n(const dra_err *errs, const char *src, size_t len, size_t *out_len)
{
    /* n: the errors kept; reported: those and the ones counted in their
     * `more` (the parser's, nodes.h) */
    size_t n = dra_err_count(errs), reported = 0;
    for (const dra_err *e = errs; e; e = e->next)
        reported += 1 + e->more;
    const dra_err **v = dra_xmalloc((n ? n : 1) * sizeof *v);
    /* In the order cel-go reports them: the parser's (and lexer's) reports,
     * then the visitor's (it runs after the parse).  cel-go keeps the first
     * 100 reported (common/errors.go maxErrorsToReport), then sorts them. */
    size_t i = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const dra_err *e = errs; e; e = e->next)
            if (((e->mark & CEL_P_PARSE_TIME) != 0) == (pass == 0))
                v[i++] = e;
    size_t shown = n > 100 ? 100 : n;
    /* Stable insertion sort by (line, col). */
    for (size_t a = 1; a < shown; a++) {
        const dra_err *x = v[a];
        size_t b = a;
        while (b > 0) {
            const dra_err *y = v[b - 1];
            int lx = x->line ? x->line : -1, ly = y->line ? y->line : -1;
            if (ly < lx || (ly == lx && y->col <= x->col))
                break;
            v[b] = y;
            b--;
        }
        v[b] = x;
    }

    dra_buf b = DRA_BUF_INIT;
    for (i = 0; i < shown; i++) {
        const dra_err *e = v[i];
        if (i)
            dra_buf_putc(&b, '\n');
        /* an empty source: cel-go places its <EOF> at column 0 and shows
         * no snippet (common/source.go, Snippet) */
        dra_buf_printf(&b, "ERROR: <input>:%d:%d: ", e->line ? e->line : -1, e->line && len ? e->col : 0);
        dra_buf_append(&b, e->msg, dra_err_msg_len(e));
        if (e->line && len) {
            size_t mark = b.len;
            dra_buf_putc(&b, '\n');
            if (!caret_to(&b, src, len, e->line, e->col)) {
                b.len = mark;
                b.data[mark] = '\0';
            }
        }
    }
    if (reported > shown)
        dra_buf_printf(&b, "\n%zu more errors were truncated", reported - shown);
    free(v);
    dra_buf_puts(&b, "");
    if (out_len)
        *out_len = b.len;
    return dra_buf_detach(&b);
}
