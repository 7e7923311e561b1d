/* The object set and the sources of its objects.  See stream.h. */
#include "stream.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"

/* ---- object sets ------------------------------------------------------- */

const char *dra_objset_intern_file(dra_objset *set, const char *name)
{
    intptr_t i;
    if (dra_strmap_get(&set->file_index, name, strlen(name), &i))
        return set->files[i];
    set->files = dra_xgrow(set->files, set->nfiles, sizeof *set->files);
    char *copy = set->files[set->nfiles] = dra_xstrdup(name);
    dra_strmap_put(&set->file_index, copy, strlen(copy), (intptr_t)set->nfiles);
    return set->files[set->nfiles++];
}

void dra_objset_add(dra_objset *set, json_t *json, const char *file, int doc, int line, int item)
{
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 16;
        set->v = dra_xrealloc(set->v, set->cap * sizeof *set->v);
    }
    set->v[set->n++] = (dra_obj){.json = json,
                                 .file = file ? dra_objset_intern_file(set, file) : NULL,
                                 .doc = doc,
                                 .line = line,
                                 .item = item,
                                 .src_off = SIZE_MAX};
}

void dra_source_free(dra_source *s)
{
    if (s) {
        free(s->data);
        free(s->line_off);
        free(s->path);
        free(s);
    }
}

void dra_objset_free(dra_objset *set)
{
    for (size_t i = 0; i < set->n; i++)
        json_decref(set->v[i].json);
    for (size_t i = 0; i < set->nfiles; i++)
        free(set->files[i]);
    for (size_t i = 0; i < set->npaths; i++)
        free(set->paths[i]);
    free(set->paths);
    for (size_t i = 0; i < set->nsources; i++)
        dra_source_free(set->sources[i]);
    free(set->sources);
    free(set->v);
    free(set->files);
    dra_strmap_free(&set->file_index);
    dra_strmap_free(&set->source_index);
    dra_err_free(set->warnings);
    dra_field_validation fv = set->field_validation;
    bool rec = set->recursive, arrays = set->arrays;
    memset(set, 0, sizeof *set);
    set->field_validation = fv; /* reading options survive a reset */
    set->recursive = rec;
    set->arrays = arrays;
}

/* A string member of a reference: its bytes, a NUL written as Go's %q
 * writes it (\x00), since a message cannot carry the byte; NULL when x is
 * not a string or is empty. */
static char *ref_part(const json_t *x)
{
    if (!json_is_string(x) || json_string_length(x) == 0)
        return NULL;
    const char *s = json_string_value(x);
    size_t n = json_string_length(x);
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\0')
            dra_buf_puts(&b, "\\x00");
        else
            dra_buf_putc(&b, s[i]);
    }
    return dra_buf_detach(&b);
}

char *dra_obj_ref(const json_t *obj)
{
    const json_t *md = json_object_get(obj, "metadata");
    char *kind = ref_part(json_object_get(obj, "kind"));
    char *name = ref_part(json_object_get(md, "name"));
    char *ns = ref_part(json_object_get(md, "namespace"));
    const char *k = kind ? kind : "object";
    char *ref;
    if (!name) {
        char *gen = ref_part(json_object_get(md, "generateName"));
        if (gen)
            ref = ns ? dra_xasprintf("%s/%s/%s*", k, ns, gen) : dra_xasprintf("%s/%s*", k, gen);
        else
            ref = dra_xasprintf("<unnamed %s>", k);
        free(gen);
    } else {
        ref = ns ? dra_xasprintf("%s/%s/%s", k, ns, name) : dra_xasprintf("%s/%s", k, name);
    }
    free(kind);
    free(name);
    free(ns);
    return ref;
}

dra_err *dra_obj_locate(dra_err *e, const dra_obj *o)
{
    int lookups = DRA_FIELD_LINE_LOOKUPS;
    return dra_obj_locate_within(e, o, &lookups);
}

dra_err *dra_obj_locate_within(dra_err *e, const dra_obj *o, int *lookups)
{
    if (!e || !o)
        return e;
    char *ref = o->json ? dra_obj_ref(o->json) : NULL;
    /* an unnamed object from a List is best named by its position */
    if (ref && ref[0] == '<' && o->item >= 0) {
        char *r2 = o->src_path ? dra_xasprintf("%s %s", o->src_path, ref) : dra_xasprintf("items[%d] %s", o->item, ref);
        free(ref);
        ref = r2;
    }
    if (o->src) {
        /* each lookup parses the object's document again: the first errors
         * get their field's line, a flood of them the object's */
        for (dra_err *i = e; i && *lookups > 0; i = i->next) {
            if (i->file || !i->field || !*i->field)
                continue;
            --*lookups;
            int line = dra_obj_field_line(o, i->field);
            if (line > 0)
                i = dra_err_at(i, o->file, o->doc, line, 0);
        }
    }
    e = dra_err_locate_all(e, o->file, o->doc, o->line, ref);
    free(ref);
    return e;
}

/* Give src to the set, found by its path when it has one. */
void dra_objset_add_source(dra_objset *set, dra_source *src)
{
    set->sources = dra_xgrow(set->sources, set->nsources, sizeof *set->sources);
    set->sources[set->nsources] = src;
    if (src->path)
        dra_strmap_put(&set->source_index, src->path, strlen(src->path), (intptr_t)set->nsources);
    set->nsources++;
}

/* A copy of path the set owns (NULL for NULL). */
const char *dra_objset_own_path(dra_objset *set, const char *path)
{
    if (!path)
        return NULL;
    set->paths = dra_xgrow(set->paths, set->npaths, sizeof *set->paths);
    set->paths[set->npaths] = dra_xstrdup(path);
    return set->paths[set->npaths++];
}

/* A regular file's source that reads its text again when asked (owned by
 * the set, one per file); NULL for stdin and anything else. */
static const dra_source *file_source(dra_objset *set, const char *file)
{
    if (!file || strcmp(file, "-") == 0)
        return NULL;
    intptr_t i;
    if (dra_strmap_get(&set->source_index, file, strlen(file), &i))
        return set->sources[i];
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    dra_source *src = dra_xcalloc(1, sizeof *src);
    src->len = (size_t)st.st_size;
    src->path = dra_xstrdup(file);
    src->mtime_ns =
        (long long)((unsigned long long)st.st_mtim.tv_sec * 1000000000u + (unsigned long long)st.st_mtim.tv_nsec);
    dra_objset_add_source(set, src);
    return src;
}

/* A YAML document marker: "---" or "..." at the start of a line, alone or
 * followed by a blank; "---" also right before a comment (kubectl's
 * separator, read_yaml.c). */
static bool doc_marker(const char *p, const char *end)
{
    if (end - p < 3 || (memcmp(p, "---", 3) != 0 && memcmp(p, "...", 3) != 0))
        return false;
    return end - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\r' || p[3] == '\n' || (p[0] == '-' && p[3] == '#');
}

/* The text of o's document as a source of its own (the set's), for input
 * that cannot be read again: from where the document starts to where the
 * text handed out with it ends (a JSON document, a List item), or, in
 * YAML read whole, to the next document marker.  The objects of one
 * document share one copy.  NULL when o has no text. */
static const dra_source *document_copy(dra_objset *set, const dra_obj *o)
{
    dra_source *from = (dra_source *)o->src; /* the reader's; its line index is built here at most */
    if (!from || !from->data || o->src_line < 1)
        return NULL;
    size_t start = o->src_off != SIZE_MAX ? o->src_off : dra_source_line_start(from, o->src_line);
    if (start == SIZE_MAX || start > from->len)
        return NULL;
    /* the same document's text again (the items of a List; each item of a
     * List streamed item by item is a text of its own) */
    if (set->copied_src && set->copied_file == o->file && set->copied_doc == o->doc &&
        set->copied_at == from->data + start)
        return set->copied_src;
    size_t end = from->len;
    if (o->src_off == SIZE_MAX) {
        const char *p = from->data + start, *stop = from->data + from->len;
        const char *nl = memchr(p, '\n', (size_t)(stop - p)); /* the first line is the document's own */
        while (nl && nl + 1 < stop && !doc_marker(nl + 1, stop))
            nl = memchr(nl + 1, '\n', (size_t)(stop - nl - 1));
        if (nl && nl + 1 < stop)
            end = (size_t)(nl + 1 - from->data);
    }
    dra_source *copy = dra_xcalloc(1, sizeof *copy);
    copy->len = end - start;
    copy->data = dra_xmalloc(copy->len + 1);
    memcpy(copy->data, from->data + start, copy->len);
    copy->data[copy->len] = 0;
    dra_objset_add_source(set, copy);
    set->copied_file = o->file;
    set->copied_doc = o->doc;
    set->copied_at = from->data + start;
    set->copied_src = copy;
    return copy;
}

void dra_objset_keep(dra_objset *set, const dra_obj *o)
{
    if (o->file != set->kept_file || !set->kept_file) {
        set->kept_file = o->file;
        set->kept_src = file_source(set, o->file);
    }
    const dra_source *src = set->kept_src;
    size_t off = SIZE_MAX;
    if (!src) { /* stdin: the document's text, copied */
        src = document_copy(set, o);
        off = 0;
    }
    dra_objset_add(set, json_incref(o->json), o->file, o->doc, o->line, o->item);
    dra_obj *n = &set->v[set->n - 1];
    n->src = src;
    n->src_off = off;
    n->src_line = src ? o->src_line : 0;
    n->src_item = o->src_item;
    n->src_path = dra_objset_own_path(set, o->src_path);
}
