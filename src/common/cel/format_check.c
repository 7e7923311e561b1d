/* Static validation of string.format calls, as the Strings extension's
 * AST validator does in Kubernetes' environment (cel-go v0.29.2
 * ext/formatting.go stringFormatValidator, ext/strings.go version 2): a
 * format() call on a literal string with a list literal argument has its
 * clauses parsed and checked against the static types of the list's
 * elements.  See format_check.h. */
#include "format_check.h"

#include <stdio.h>
#include <string.h>

#include "functions.h"
#include "types.h"

/* The type name cel-go's Type.TypeName() gives a checked type. */
static const char *type_name(const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_LIST: return "list";
    case CEL_T_MAP: return "map";
    case CEL_T_TYPE: return "type";
    case CEL_T_NULL: return "null_type";
    case CEL_T_OPTIONAL: return "optional_type";
    default: return cel_type_runtime_name(t);
    }
}

/* verifyTypeOneOf: dyn passes; otherwise the kind must be one of `ok`. */
static bool type_one_of(const cel_type *t, const cel_type_kind *ok, size_t n)
{
    if (!t || t->kind == CEL_T_DYN)
        return true;
    for (size_t i = 0; i < n; i++)
        if (t->kind == ok[i])
            return true;
    return false;
}
/* clang-format off */
#define ONE_OF(t, ...) type_one_of(t, (const cel_type_kind[]){__VA_ARGS__}, \
                                   sizeof((const cel_type_kind[]){__VA_ARGS__}) / sizeof(cel_type_kind))
/* clang-format on */

/* verifyString: what %s accepts, list and map literals element by
 * element; the node that fails, or NULL. */
static const cel_node *bad_string_arg(const cel_node *n)
{
    if (!ONE_OF(n->type, CEL_T_LIST, CEL_T_MAP, CEL_T_INT, CEL_T_UINT, CEL_T_DOUBLE, CEL_T_BOOL, CEL_T_STRING,
                CEL_T_TIMESTAMP, CEL_T_BYTES, CEL_T_DURATION, CEL_T_TYPE, CEL_T_NULL))
        return n;
    const cel_node *bad = NULL;
    if (n->kind == CEL_NODE_LIST)
        for (size_t i = 0; !bad && i < n->u.list.nelems; i++)
            bad = bad_string_arg(n->u.list.elems[i]);
    if (n->kind == CEL_NODE_MAP)
        for (size_t i = 0; !bad && i < n->u.map.nentries; i++) {
            bad = bad_string_arg(n->u.map.entries[i].key);
            if (!bad)
                bad = bad_string_arg(n->u.map.entries[i].value);
        }
    return bad;
}

/* One clause's type check (the stringFormatChecker callbacks); NULL when
 * the argument fits, else the message, with *at the node to report. */
static const char *check_clause(char verb, const cel_node *arg, const cel_node **at, char *buf, size_t cap)
{
    const char *what = NULL;
    *at = arg;
    switch (verb) {
    case 's':
        *at = bad_string_arg(arg);
        if (*at)
            what = "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
                   "durations, and timestamps";
        break;
    case 'd':
        if (!ONE_OF(arg->type, CEL_T_INT, CEL_T_UINT))
            what = "decimal clause can only be used on integers";
        break;
    case 'f':
        if (!ONE_OF(arg->type, CEL_T_DOUBLE, CEL_T_STRING))
            what = "fixed-point clause can only be used on doubles";
        break;
    case 'e':
        if (!ONE_OF(arg->type, CEL_T_DOUBLE, CEL_T_STRING))
            what = "scientific clause can only be used on doubles";
        break;
    case 'b':
        if (!ONE_OF(arg->type, CEL_T_INT, CEL_T_UINT, CEL_T_BOOL))
            what = "only integers and bools can be formatted as binary";
        break;
    case 'x':
    case 'X':
        if (!ONE_OF(arg->type, CEL_T_INT, CEL_T_UINT, CEL_T_STRING, CEL_T_BYTES))
            what = "only integers, byte buffers, and strings can be formatted as hex";
        break;
    case 'o':
        if (!ONE_OF(arg->type, CEL_T_INT, CEL_T_UINT))
            what = "octal clause can only be used on integers";
        break;
    }
    if (!what)
        return NULL;
    snprintf(buf, cap, "error during formatting: %s, was given %s", what, type_name((*at)->type));
    return buf;
}

/* parseFormatString over the static arguments: the first problem, with
 * *at the node to report it at (the call, or the argument at fault). */
static const char *check_format(const cel_node *call, const char *f, size_t len, const cel_node *list,
                                const cel_node **at, char *buf, size_t cap)
{
    size_t nargs = list->u.list.nelems, requested = 0;
    *at = call;
    for (size_t i = 0; i < len;) {
        if (f[i] != '%') {
            i++;
            continue;
        }
        if (i + 1 < len && f[i + 1] == '%') {
            i += 2;
            continue;
        }
        size_t argi = requested++;
        if (i + 1 >= len)
            return "unexpected end of string";
        if (argi >= nargs) {
            snprintf(buf, cap, "index %zu out of range", argi);
            return buf;
        }
        size_t j = i + 1;
        if (f[j] == '.') { /* parsePrecision */
            size_t start = ++j;
            for (;; j++) {
                if (j >= len)
                    return "could not parse formatting clause: error while parsing precision: could not find end "
                           "of precision specifier";
                if (f[j] < '0' || f[j] > '9')
                    break;
            }
            if (j == start)
                return "could not parse formatting clause: error while parsing precision: error while converting "
                       "precision to integer: strconv.Atoi: parsing \"\": invalid syntax";
        }
        char verb = f[j];
        if (verb == 0 || !strchr("sdfebxXo", verb)) {
            /* rune(formatStr[i]): the byte as a code point, printed in UTF-8 */
            unsigned char c = (unsigned char)verb;
            char r[3] = {(char)c, 0, 0};
            if (c >= 0x80) {
                r[0] = (char)(0xc0 | (c >> 6));
                r[1] = (char)(0x80 | (c & 0x3f));
            }
            snprintf(buf, cap, "could not parse formatting clause: unrecognized formatting clause \"%.*s\"",
                     c == 0 ? 1 : (int)strlen(r), r);
            return buf;
        }
        const char *bad = check_clause(verb, list->u.list.elems[argi], at, buf, cap);
        if (bad)
            return bad;
        *at = call;
        i = j + 1;
    }
    if (nargs > requested) {
        snprintf(buf, cap, "too many arguments supplied to string.format (expected %zu, got %zu)", requested, nargs);
        return buf;
    }
    return NULL;
}

typedef struct walker {
    cel_format_report report;
    void *ud;
} walker;

/* Children first, then the call itself. */
static void walk(const cel_node *n, void *wp)
{
    walker *w = wp;
    cel_node_each_child(n, walk, w);
    if (n->kind != CEL_NODE_CALL)
        return;
    const cel_node *t = n->u.call.target;
    bool overload_ok = n->u.call.noverloads == 0;
    for (size_t i = 0; i < n->u.call.noverloads; i++)
        overload_ok |=
            !strcmp(n->u.call.overload_ids ? n->u.call.overload_ids[i] : n->u.call.overloads[i]->id, "string_format");
    if (t && !strcmp(n->u.call.function, "format") && overload_ok && t->kind == CEL_NODE_CONST &&
        t->u.constant.kind == CEL_CONST_STRING && n->u.call.nargs == 1 && n->u.call.args[0]->kind == CEL_NODE_LIST) {
        char buf[512];
        const cel_node *at;
        const char *msg =
            check_format(n, t->u.constant.v.s.data, t->u.constant.v.s.len, n->u.call.args[0], &at, buf, sizeof buf);
        if (msg)
            w->report(w->ud, at, msg);
    }
}

void cel_check_format_calls(const cel_ast *ast, cel_format_report report, void *ud)
{
    walker w = {report, ud};
    if (ast->root)
        walk(ast->root, &w);
}
