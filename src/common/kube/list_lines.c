/* A page of a list read as a tape and its items written as `-o jsonl`
 * lines, without building their trees (see dra_kube_list_lines, api.h).
 *
 * A line is what dra_json_write_line writes of the item after
 * dra_kube_api_normalize: apiVersion and kind first when the item lacks
 * either, metadata.managedFields left out.  Items of a version the tools
 * convert, and anything the tape cannot write as the tree would be (a key
 * twice, a token it declined), go as normalised trees instead. */
#include "internal.h"
#include "api.h"

#include <stdlib.h>
#include <string.h>

#include "../io/jline.h"
#include "../io/jparse.h"
#include "../io/tape.h"

/* dra_json_loadb's depth: deeper documents are read as it reads them */
#define LINES_DEPTH 512

static bool key_is(const dra_tape_tok *k, const char *s, size_t n)
{
    return k->n == n && memcmp(k->v.s, s, n) == 0;
}

/* The string member key of the object at token o (SIZE_MAX: none),
 * copied into b; NULL when it is absent or not a string. */
static const char *member_str(dra_buf *b, const dra_tape *t, size_t o, const char *key)
{
    dra_buf_reset(b);
    size_t m = o == SIZE_MAX || t->tok[o].type != DRA_TAPE_OBJECT ? SIZE_MAX : dra_tape_member(t, o, key, strlen(key));
    if (m == SIZE_MAX || t->tok[m].type != DRA_TAPE_STRING)
        return NULL;
    dra_buf_append(b, t->tok[m].v.s, t->tok[m].n);
    return dra_buf_str(b);
}

static bool drop_managed(const dra_tape_tok *k);

/* The members of the object at token o, leaving out those drop (when not
 * NULL) names; *first says whether none was written before.  item: o is
 * the item, whose metadata goes without managedFields. */
static bool put_members(dra_buf *b, const dra_tape *t, size_t o, bool (*drop)(const dra_tape_tok *), bool *first,
                        bool item)
{
    if (!dra_tape_keys_unique(t, o))
        return false;
    size_t j = o + 1;
    for (uint32_t m = 0; m < t->tok[o].n; m++, j = dra_tape_skip(t, j + 1)) {
        const dra_tape_tok *k = &t->tok[j];
        if (drop && drop(k))
            continue;
        if (!*first)
            dra_buf_putc(b, ',');
        *first = false;
        if (!dra_json_write_line_string(b, k->v.s, k->n))
            return false;
        dra_buf_putc(b, ':');
        bool inner = true, ok;
        if (item && key_is(k, "metadata", 8) && t->tok[j + 1].type == DRA_TAPE_OBJECT) {
            dra_buf_putc(b, '{');
            ok = put_members(b, t, j + 1, drop_managed, &inner, false);
            dra_buf_putc(b, '}');
        } else {
            ok = dra_json_write_line_tape(b, t, j + 1);
        }
        if (!ok)
            return false;
    }
    return true;
}

static bool drop_type_meta(const dra_tape_tok *k)
{
    return key_is(k, "apiVersion", 10) || key_is(k, "kind", 4);
}

static bool drop_managed(const dra_tape_tok *k)
{
    return key_is(k, "managedFields", 13);
}

/* The line of the item object at token i into b; false: write its tree. */
static bool item_line(dra_buf *b, const dra_tape *t, size_t i, const char *av, const char *kind)
{
    dra_buf_reset(b);
    bool head = dra_tape_member(t, i, "apiVersion", 10) == SIZE_MAX || dra_tape_member(t, i, "kind", 4) == SIZE_MAX;
    bool first = !head;
    dra_buf_putc(b, '{');
    if (head) {
        dra_buf_puts(b, "\"apiVersion\":");
        if (!dra_json_write_line_string(b, av, strlen(av)))
            return false;
        dra_buf_puts(b, ",\"kind\":");
        if (!dra_json_write_line_string(b, kind, strlen(kind)))
            return false;
    }
    if (!put_members(b, t, i, head ? drop_type_meta : NULL, &first, true))
        return false;
    dra_buf_putc(b, '}');
    return true;
}

/* Item i (token j) as a normalised tree to fn. */
static dra_err *item_tree(const dra_kube_resource *r, const char *version, const dra_tape *t, const char *p, size_t j,
                          dra_kube_line_fn fn, void *ud)
{
    const dra_tape_tok *k = &t->tok[j];
    json_t *obj = dra_tape_tree(t, j);
    if (!obj && (k->type == DRA_TAPE_OBJECT || k->type == DRA_TAPE_ARRAY)) /* a key twice: jansson's tree */
        obj = dra_json_loadb(p + k->off, (size_t)(k->v.end - k->off), 0, NULL);
    if (!obj)
        return dra_err_new(DRA_EXIT_RUNTIME, "list of %s: an item the tools cannot read", r->resource);
    dra_err *e = dra_kube_api_normalize(r, version, obj);
    if (!e) {
        const char *ns = dra_kube_meta_str(obj, "namespace"), *name = dra_kube_meta_str(obj, "name");
        dra_kube_list_item it = {obj, NULL, 0, ns ? ns : "", name ? name : ""};
        e = fn(ud, &it);
    }
    json_decref(obj);
    return e;
}

bool dra_kube_list_page_lines(const dra_kube_resource *r, const char *version, const char *text, size_t len,
                              dra_kube_line_fn fn, void *ud, char **lrv, char **cont, dra_err **err)
{
    *err = NULL;
    size_t i = dra_json_space_len(text, len), used = 0;
    const char *p = text + i;
    dra_tape t = DRA_TAPE_INIT;
    t.as_jansson = true;
    if (!dra_tape_parse(&t, p, len - i, LINES_DEPTH, &used) ||
        dra_json_space_len(p + used, len - i - used) != len - i - used || t.tok[0].type != DRA_TAPE_OBJECT ||
        !dra_tape_keys_unique(&t, 0)) {
        dra_tape_free(&t);
        return false;
    }
    size_t md = dra_tape_member(&t, 0, "metadata", 8);
    if (md != SIZE_MAX && (t.tok[md].type != DRA_TAPE_OBJECT || !dra_tape_keys_unique(&t, md)))
        md = SIZE_MAX;
    dra_buf s = DRA_BUF_INIT, line = DRA_BUF_INIT, ns = DRA_BUF_INIT;
    const char *v = member_str(&s, &t, md, "resourceVersion");
    if (!*lrv && v)
        *lrv = dra_xstrdup(v);
    size_t its = dra_tape_member(&t, 0, "items", 5);
    dra_err *e = NULL;
    if (its != SIZE_MAX && t.tok[its].type != DRA_TAPE_ARRAY && t.tok[its].type != DRA_TAPE_NULL)
        e = dra_err_new(DRA_EXIT_RUNTIME, "list of %s: items is not a list", r->resource);
    bool convert = dra_kube_api_converts(r, version);
    char *av = *r->group ? dra_xasprintf("%s/%s", r->group, version) : dra_xstrdup(version);
    size_t j = its + 1;
    for (uint32_t n = 0; !e && its != SIZE_MAX && t.tok[its].type == DRA_TAPE_ARRAY && n < t.tok[its].n;
         n++, j = dra_tape_skip(&t, j)) {
        if (convert || t.tok[j].type != DRA_TAPE_OBJECT || !item_line(&line, &t, j, av, r->kind)) {
            e = item_tree(r, version, &t, p, j, fn, ud);
            continue;
        }
        size_t m = dra_tape_member(&t, j, "metadata", 8);
        const char *nsv = member_str(&ns, &t, m, "namespace"), *name = member_str(&s, &t, m, "name");
        dra_kube_list_item it = {NULL, line.data, line.len, nsv ? nsv : "", name ? name : ""};
        e = fn(ud, &it);
    }
    free(av);
    v = e ? NULL : member_str(&s, &t, md, "continue");
    free(*cont);
    *cont = v && *v ? dra_xstrdup(v) : NULL;
    dra_buf_free(&s);
    dra_buf_free(&line);
    dra_buf_free(&ns);
    dra_tape_free(&t);
    *err = e;
    return true;
}
