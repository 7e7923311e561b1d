/* CEL AST utilities: positions, lookup, debug rendering (see ast.h). */
#include "ast.h"
#include "../base/utf8.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "../base/buf.h"

void cel_ast_location(const cel_ast *ast, size_t offset, int *line, int *col)
{
    if (!ast || offset == SIZE_MAX || offset > ast->source_len) {
        *line = -1;
        *col = 0;
        return;
    }
    /* Binary search for the last line start <= offset. */
    size_t lo = 0, hi = ast->nlines;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ast->line_offsets[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    size_t from = ast->line_offsets[lo];
    *line = (int)lo + 1;
    *col = 1 + (int)dra_utf8_len(ast->source + from, offset > from ? offset - from : 0);
}

void cel_node_each_child(const cel_node *n, void (*fn)(const cel_node *child, void *ud), void *ud)
{
    const cel_node *kids[5];
    size_t k = 0;
    switch (n->kind) {
    case CEL_NODE_SELECT: kids[k++] = n->u.select.operand; break;
    case CEL_NODE_CALL:
        if (n->u.call.target)
            fn(n->u.call.target, ud);
        for (size_t i = 0; i < n->u.call.nargs; i++)
            fn(n->u.call.args[i], ud);
        return;
    case CEL_NODE_LIST:
        for (size_t i = 0; i < n->u.list.nelems; i++)
            fn(n->u.list.elems[i], ud);
        return;
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            if (n->u.map.entries[i].key)
                fn(n->u.map.entries[i].key, ud);
            fn(n->u.map.entries[i].value, ud);
        }
        return;
    case CEL_NODE_COMPREHENSION:
        kids[k++] = n->u.comp.iter_range;
        kids[k++] = n->u.comp.accu_init;
        kids[k++] = n->u.comp.loop_condition;
        kids[k++] = n->u.comp.loop_step;
        kids[k++] = n->u.comp.result;
        break;
    default: break;
    }
    for (size_t i = 0; i < k; i++)
        if (kids[i])
            fn(kids[i], ud);
}

cel_node *cel_ast_find(cel_node *n, int64_t id)
{
    if (!n)
        return NULL;
    if (n->id == id)
        return n;
    cel_node *r = NULL;
    switch (n->kind) {
    case CEL_NODE_SELECT: return cel_ast_find(n->u.select.operand, id);
    case CEL_NODE_CALL:
        if ((r = cel_ast_find(n->u.call.target, id)))
            return r;
        for (size_t i = 0; i < n->u.call.nargs; i++)
            if ((r = cel_ast_find(n->u.call.args[i], id)))
                return r;
        return NULL;
    case CEL_NODE_LIST:
        for (size_t i = 0; i < n->u.list.nelems; i++)
            if ((r = cel_ast_find(n->u.list.elems[i], id)))
                return r;
        return NULL;
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            if ((r = cel_ast_find(n->u.map.entries[i].key, id)) || (r = cel_ast_find(n->u.map.entries[i].value, id)))
                return r;
        }
        return NULL;
    case CEL_NODE_COMPREHENSION:
        if ((r = cel_ast_find(n->u.comp.iter_range, id)) || (r = cel_ast_find(n->u.comp.accu_init, id)) ||
            (r = cel_ast_find(n->u.comp.loop_condition, id)) || (r = cel_ast_find(n->u.comp.loop_step, id)) ||
            (r = cel_ast_find(n->u.comp.result, id)))
            return r;
        return NULL;
    default: return NULL;
    }
}

static void quote(dra_buf *b, const char *s, size_t len, bool bytes)
{
    dra_buf_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            dra_buf_printf(b, "\\%c", c);
        else if (c == '\n')
            dra_buf_puts(b, "\\n");
        else if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80))
            dra_buf_printf(b, "\\x%02x", c);
        else
            dra_buf_putc(b, (char)c);
    }
    dra_buf_putc(b, '"');
}

static void debug(dra_buf *b, const cel_node *n)
{
    if (!n) {
        dra_buf_puts(b, "<nil>");
        return;
    }
    switch (n->kind) {
    case CEL_NODE_CONST: {
        const cel_const *c = &n->u.constant;
        switch (c->kind) {
        case CEL_CONST_NULL: dra_buf_puts(b, "null"); break;
        case CEL_CONST_BOOL: dra_buf_puts(b, c->v.b ? "true" : "false"); break;
        case CEL_CONST_INT: dra_buf_printf(b, "%" PRId64, c->v.i); break;
        case CEL_CONST_UINT: dra_buf_printf(b, "%" PRIu64 "u", c->v.u); break;
        case CEL_CONST_DOUBLE:
            if (isfinite(c->v.d) && c->v.d == floor(c->v.d) && fabs(c->v.d) < 1e15)
                dra_buf_printf(b, "%.1f", c->v.d);
            else
                dra_buf_printf(b, "%.17g", c->v.d);
            break;
        case CEL_CONST_STRING: quote(b, c->v.s.data, c->v.s.len, false); break;
        case CEL_CONST_BYTES:
            dra_buf_putc(b, 'b');
            quote(b, c->v.s.data, c->v.s.len, true);
            break;
        default: dra_buf_puts(b, "<error>"); break;
        }
        break;
    }
    case CEL_NODE_IDENT: dra_buf_puts(b, n->u.ident.name); break;
    case CEL_NODE_SELECT:
        debug(b, n->u.select.operand);
        dra_buf_printf(b, ".%s", n->u.select.field);
        if (n->u.select.test_only)
            dra_buf_puts(b, "~test-only~");
        break;
    case CEL_NODE_CALL:
        if (n->u.call.target) {
            debug(b, n->u.call.target);
            dra_buf_putc(b, '.');
        }
        dra_buf_printf(b, "%s(", n->u.call.function);
        for (size_t i = 0; i < n->u.call.nargs; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            debug(b, n->u.call.args[i]);
        }
        dra_buf_putc(b, ')');
        break;
    case CEL_NODE_LIST: {
        dra_buf_putc(b, '[');
        size_t o = 0;
        for (size_t i = 0; i < n->u.list.nelems; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            if (o < n->u.list.noptional && n->u.list.optional_indices[o] == i) {
                dra_buf_putc(b, '?');
                o++;
            }
            debug(b, n->u.list.elems[i]);
        }
        dra_buf_putc(b, ']');
        break;
    }
    case CEL_NODE_MAP:
    case CEL_NODE_STRUCT:
        if (n->kind == CEL_NODE_STRUCT)
            dra_buf_puts(b, n->u.map.message_name);
        dra_buf_putc(b, '{');
        for (size_t i = 0; i < n->u.map.nentries; i++) {
            const cel_entry *e = &n->u.map.entries[i];
            if (i)
                dra_buf_puts(b, ", ");
            if (e->optional)
                dra_buf_putc(b, '?');
            if (e->field)
                dra_buf_puts(b, e->field);
            else
                debug(b, e->key);
            dra_buf_putc(b, ':');
            debug(b, e->value);
        }
        dra_buf_putc(b, '}');
        break;
    case CEL_NODE_COMPREHENSION:
        dra_buf_printf(b, "__comprehension__(%s, ", n->u.comp.iter_var);
        if (n->u.comp.iter_var2)
            dra_buf_printf(b, "%s, ", n->u.comp.iter_var2);
        debug(b, n->u.comp.iter_range);
        dra_buf_printf(b, ", %s, ", n->u.comp.accu_var);
        debug(b, n->u.comp.accu_init);
        dra_buf_puts(b, ", ");
        debug(b, n->u.comp.loop_condition);
        dra_buf_puts(b, ", ");
        debug(b, n->u.comp.loop_step);
        dra_buf_puts(b, ", ");
        debug(b, n->u.comp.result);
        dra_buf_putc(b, ')');
        break;
    }
}

char *cel_ast_debug(const cel_node *n)
{
    dra_buf b = DRA_BUF_INIT;
    debug(&b, n);
    dra_buf_puts(&b, ""); /* non-NULL data even when empty */
    return dra_buf_detach(&b);
}

bool cel_ast_is_call(const cel_node *n, const char *fn)
{
    return n->kind == CEL_NODE_CALL && !n->u.call.target && strcmp(n->u.call.function, fn) == 0;
}

bool cel_ast_is_attribute_chain(const cel_node *n)
{
    return n->kind == CEL_NODE_IDENT || n->kind == CEL_NODE_SELECT || cel_ast_is_call(n, CEL_OP_INDEX) ||
           cel_ast_is_call(n, CEL_OP_OPT_INDEX) || cel_ast_is_call(n, CEL_OP_OPT_SELECT) ||
           cel_ast_is_call(n, CEL_OP_CONDITIONAL);
}

const cel_node *cel_ast_chain_root(const cel_node *n)
{
    for (;;) {
        if (n->kind == CEL_NODE_SELECT && !n->u.select.test_only)
            n = n->u.select.operand;
        else if ((cel_ast_is_call(n, CEL_OP_INDEX) || cel_ast_is_call(n, CEL_OP_OPT_INDEX) ||
                  cel_ast_is_call(n, CEL_OP_OPT_SELECT)) &&
                 n->u.call.nargs > 0)
            n = n->u.call.args[0];
        else
            return n;
    }
}
