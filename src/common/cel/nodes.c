/* Node construction for the CEL front end (parser.c, macros.c): every node
 * gets the next ID and lives in the parse arena.  See nodes.h. */
#include "nodes.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"

cel_node *cel_p_node(cel_parser *p, cel_node_kind kind, size_t offset)
{
    cel_node *n = dra_arena_zalloc(p->arena, sizeof *n);
    n->id = ++p->next_id;
    n->offset = offset;
    n->kind = kind;
    if (kind == CEL_NODE_CONST)
        n->u.constant.kind = CEL_CONST_NULL;
    return n;
}

/* Whether a problem of this mark is kept: the parser's always (at most
 * max_errors + 1 of them, parser.c), the visitor's while fewer than
 * max_errors of them are kept, so that the first max_errors of cel-go's
 * order (the parser's, then the visitor's) are among those kept. */
static bool keeps(const cel_parser *p, unsigned mark)
{
    return (mark & CEL_P_PARSE_TIME) || p->nvisit < p->max_errors || !p->tail;
}

static cel_node *add_error(cel_parser *p, size_t offset, dra_err *e, unsigned mark)
{
    p->nerrs++;
    if (e) {
        int line = 1, col = 0;
        if (offset != CEL_P_NO_LOCATION)
            cel_ast_location(p->ast, offset, &line, &col);
        e->line = line > 0 ? line : 0;
        e->col = line > 0 ? col : 0;
        e->mark = mark;
        p->errs = dra_err_append(p->errs, e);
        p->tail = e;
        if (!(mark & CEL_P_PARSE_TIME))
            p->nvisit++;
    } else {
        p->tail->more++;
    }
    return cel_p_node(p, CEL_NODE_CONST, offset == SIZE_MAX ? 0 : offset);
}

static cel_node *add_errorv(cel_parser *p, size_t offset, unsigned mark, const char *fmt, va_list ap)
{
    dra_err *e = NULL;
    if (keeps(p, mark))
        e = dra_err_newv(DRA_EXIT_INPUT, fmt, ap);
    return add_error(p, offset, e, mark);
}

cel_node *cel_p_error(cel_parser *p, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_node *n = add_errorv(p, offset, 0, fmt, ap);
    va_end(ap);
    return n;
}

cel_node *cel_p_parse_error(cel_parser *p, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cel_node *n = add_errorv(p, offset, CEL_P_PARSE_TIME, fmt, ap);
    va_end(ap);
    return n;
}

cel_node *cel_p_parse_error_n(cel_parser *p, size_t offset, const char *prefix, const char *msg, size_t len)
{
    dra_err *e = NULL;
    if (keeps(p, CEL_P_PARSE_TIME)) {
        size_t n = strlen(prefix);
        char *m = dra_xmalloc(n + len + 1);
        memcpy(m, prefix, n);
        memcpy(m + n, msg, len);
        e = dra_err_newn(DRA_EXIT_INPUT, m, n + len);
        free(m);
    }
    return add_error(p, offset, e, CEL_P_PARSE_TIME);
}

void cel_p_unvisit(cel_parser *p, size_t mark)
{
    dra_err *kept = NULL, *rest = p->errs;
    p->tail = NULL;
    for (size_t i = 0; rest; i++) {
        dra_err *e = dra_err_pop(&rest);
        if (i < mark || (e->mark & CEL_P_PARSE_TIME)) {
            kept = dra_err_append(kept, e);
            p->tail = e;
        } else {
            p->nerrs -= 1 + (int)e->more;
            p->nvisit--;
            dra_err_free(e);
        }
    }
    p->errs = kept;
}

cel_node *cel_p_ident(cel_parser *p, size_t offset, const char *name)
{
    cel_node *n = cel_p_node(p, CEL_NODE_IDENT, offset);
    n->u.ident.name = dra_arena_strdup(p->arena, name);
    return n;
}

cel_node *cel_p_bool(cel_parser *p, size_t offset, bool v)
{
    cel_node *n = cel_p_node(p, CEL_NODE_CONST, offset);
    n->u.constant.kind = CEL_CONST_BOOL;
    n->u.constant.v.b = v;
    return n;
}

cel_node *cel_p_int(cel_parser *p, size_t offset, int64_t v)
{
    cel_node *n = cel_p_node(p, CEL_NODE_CONST, offset);
    n->u.constant.kind = CEL_CONST_INT;
    n->u.constant.v.i = v;
    return n;
}

cel_node *cel_p_string(cel_parser *p, size_t offset, const char *s, size_t len)
{
    cel_node *n = cel_p_node(p, CEL_NODE_CONST, offset);
    n->u.constant.kind = CEL_CONST_STRING;
    n->u.constant.v.s.data = dra_arena_strndup(p->arena, s, len);
    n->u.constant.v.s.len = len;
    return n;
}

cel_node *cel_p_call(cel_parser *p, size_t offset, const char *fn, cel_node *target, cel_node **args, size_t nargs)
{
    cel_node *n = cel_p_node(p, CEL_NODE_CALL, offset);
    n->u.call.function = dra_arena_strdup(p->arena, fn);
    n->u.call.target = target;
    n->u.call.nargs = nargs;
    if (nargs) {
        n->u.call.args = dra_arena_alloc(p->arena, nargs * sizeof *args);
        memcpy(n->u.call.args, args, nargs * sizeof *args);
    }
    return n;
}

cel_node *cel_p_call1(cel_parser *p, size_t offset, const char *fn, cel_node *a)
{
    return cel_p_call(p, offset, fn, NULL, &a, 1);
}

cel_node *cel_p_call2(cel_parser *p, size_t offset, const char *fn, cel_node *a, cel_node *b)
{
    cel_node *args[2] = {a, b};
    return cel_p_call(p, offset, fn, NULL, args, 2);
}

cel_node *cel_p_call3(cel_parser *p, size_t offset, const char *fn, cel_node *a, cel_node *b, cel_node *c)
{
    cel_node *args[3] = {a, b, c};
    return cel_p_call(p, offset, fn, NULL, args, 3);
}

cel_node *cel_p_list(cel_parser *p, size_t offset, cel_node **elems, size_t n)
{
    cel_node *l = cel_p_node(p, CEL_NODE_LIST, offset);
    l->u.list.nelems = n;
    if (n) {
        l->u.list.elems = dra_arena_alloc(p->arena, n * sizeof *elems);
        memcpy(l->u.list.elems, elems, n * sizeof *elems);
    }
    return l;
}

cel_node *cel_p_comprehension(cel_parser *p, size_t offset, cel_node *range, const char *iter_var,
                              const char *iter_var2, const char *accu_var, cel_node *init, cel_node *cond,
                              cel_node *step, cel_node *result)
{
    cel_node *n = cel_p_node(p, CEL_NODE_COMPREHENSION, offset);
    n->u.comp.iter_range = range;
    n->u.comp.iter_var = dra_arena_strdup(p->arena, iter_var);
    n->u.comp.iter_var2 = iter_var2 ? dra_arena_strdup(p->arena, iter_var2) : NULL;
    n->u.comp.accu_var = dra_arena_strdup(p->arena, accu_var);
    n->u.comp.accu_init = init;
    n->u.comp.loop_condition = cond;
    n->u.comp.loop_step = step;
    n->u.comp.result = result;
    return n;
}

cel_node *cel_p_copy(cel_parser *p, const cel_node *n)
{
    if (!n)
        return NULL;
    cel_node *c = cel_p_node(p, n->kind, n->offset);
    int64_t id = c->id;
    *c = *n;
    c->id = id;
    switch (n->kind) {
    case CEL_NODE_SELECT: c->u.select.operand = cel_p_copy(p, n->u.select.operand); break;
    case CEL_NODE_CALL:
        c->u.call.target = cel_p_copy(p, n->u.call.target);
        if (n->u.call.nargs) {
            c->u.call.args = dra_arena_alloc(p->arena, n->u.call.nargs * sizeof *c->u.call.args);
            for (size_t i = 0; i < n->u.call.nargs; i++)
                c->u.call.args[i] = cel_p_copy(p, n->u.call.args[i]);
        }
        break;
    case CEL_NODE_LIST:
        if (n->u.list.nelems) {
            c->u.list.elems = dra_arena_alloc(p->arena, n->u.list.nelems * sizeof *c->u.list.elems);
            for (size_t i = 0; i < n->u.list.nelems; i++)
                c->u.list.elems[i] = cel_p_copy(p, n->u.list.elems[i]);
        }
        break;
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        if (n->u.map.nentries) {
            c->u.map.entries = dra_arena_alloc(p->arena, n->u.map.nentries * sizeof *c->u.map.entries);
            for (size_t i = 0; i < n->u.map.nentries; i++) {
                c->u.map.entries[i] = n->u.map.entries[i];
                c->u.map.entries[i].id = ++p->next_id;
                c->u.map.entries[i].key = cel_p_copy(p, n->u.map.entries[i].key);
                c->u.map.entries[i].value = cel_p_copy(p, n->u.map.entries[i].value);
            }
        }
        break;
    case CEL_NODE_COMPREHENSION:
        c->u.comp.iter_range = cel_p_copy(p, n->u.comp.iter_range);
        c->u.comp.accu_init = cel_p_copy(p, n->u.comp.accu_init);
        c->u.comp.loop_condition = cel_p_copy(p, n->u.comp.loop_condition);
        c->u.comp.loop_step = cel_p_copy(p, n->u.comp.loop_step);
        c->u.comp.result = cel_p_copy(p, n->u.comp.result);
        break;
    default: break;
    }
    return c;
}
