/* Documents to objects: Lists flattened into their items, each object to
 * the set or to the streaming callback.  See docs.h. */
#include "docs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void dra_docs_note_line(reader *r, const json_t *node, int line)
{
    if (r->nnotes == r->capnotes) {
        r->capnotes = r->capnotes ? r->capnotes * 2 : 64;
        r->notes = dra_xrealloc(r->notes, r->capnotes * sizeof *r->notes);
    }
    r->notes[r->nnotes++] = (line_note){node, line};
}

/* Notes are recorded in document order and asked for in item order, so the
 * search resumes where the last one matched: linear over a whole List. */
static int noted_line(reader *r, const json_t *node, int fallback)
{
    for (size_t i = r->cursor; i < r->nnotes; i++)
        if (r->notes[i].node == node) {
            r->cursor = i + 1;
            return r->notes[i].line;
        }
    for (size_t i = 0; i < r->cursor && i < r->nnotes; i++)
        if (r->notes[i].node == node) {
            r->cursor = i + 1;
            return r->notes[i].line;
        }
    return fallback;
}

/* The notes of a document are no use after it: its nodes are owned by the
 * objects now, and a freed node's address may come back in the next one. */
void dra_docs_forget_notes(reader *r)
{
    r->nnotes = 0;
    r->cursor = 0;
}

bool dra_docs_is_list_kind(const json_t *v)
{
    const char *kind = json_string_value(json_object_get(v, "kind"));
    size_t n = kind ? strlen(kind) : 0;
    if (n < 4 || strcmp(kind + n - 4, "List") != 0)
        return false;
    /* Whatever its items: `items:` (null) is none, anything else is an
     * error of the List, not an unknown kind. */
    return true;
}

static dra_err *doc_err(reader *r, int doc, int line, const char *fmt, const char *what)
{
    return dra_err_at(dra_err_new(DRA_EXIT_INPUT, fmt, what), r->name, doc, line, 0);
}

static dra_err *add_document_notes(reader *r, json_t *v, int doc, int line, size_t off, int doc_line);

/* One object found (steals v): to fn when streaming, else to the pending
 * set.  path: where it is in its document when not at its root or at
 * items[item] (an item of a List in a List), else NULL. */
dra_err *dra_docs_add_pending(reader *r, json_t *v, int doc, int line, int item, size_t off, int doc_line,
                              const char *path)
{
    if (r->fn) {
        if (!r->file)
            r->file = dra_objset_intern_file(r->set, r->name);
        dra_obj o = {.json = v,
                     .file = r->file,
                     .doc = doc,
                     .line = line,
                     .item = item,
                     .src_path = path,
                     .src = r->src,
                     .src_off = off == SIZE_MAX ? off : r->src_base + off,
                     .src_line = doc_line,
                     .src_item = r->item_src,
                     .content_known = v == r->hashed,
                     .content = r->doc_hash};
        dra_err *e = r->fn(r->fn_ctx, &o);
        json_decref(v);
        r->delivered++;
        r->stopped = e != NULL;
        return e;
    }
    dra_objset *set = r->into;
    if (!r->file)
        r->file = dra_objset_intern_file(set, r->name);
    if (set->n == set->cap) {
        set->cap = set->cap ? set->cap * 2 : 16;
        set->v = dra_xrealloc(set->v, set->cap * sizeof *set->v);
    }
    /* no content hash: a set's objects may change before they are loaded */
    set->v[set->n++] = (dra_obj){.json = v,
                                 .file = r->file,
                                 .doc = doc,
                                 .line = line,
                                 .item = item,
                                 .src_path = dra_objset_own_path(set, path),
                                 .src = r->src,
                                 .src_off = off == SIZE_MAX ? off : r->src_base + off,
                                 .src_line = doc_line};
    return NULL;
}

/* Take one parsed document (steals v); it starts at byte `off` of the text,
 * or, when off is SIZE_MAX, at the start of line doc_line. */
dra_err *dra_docs_add_document(reader *r, json_t *v, int doc, int line, size_t off, int doc_line)
{
    dra_err *e = add_document_notes(r, v, doc, line, off, doc_line);
    dra_docs_forget_notes(r);
    r->hashed = NULL;
    return e;
}

/* A typed List (ResourceClaimList, PodList...) as the API server returns it
 * to curl and client-go: its items carry no kind or apiVersion of their
 * own; they are the List's. */
void dra_docs_list_item_type(const json_t *list, json_t *item)
{
    const char *lkind = json_string_value(json_object_get(list, "kind"));
    size_t lk = lkind ? strlen(lkind) : 0;
    if (lk > 4 && !json_object_get(item, "kind"))
        json_object_set_new(item, "kind", json_stringn(lkind, lk - 4));
    json_t *lver = lk > 4 ? json_object_get(list, "apiVersion") : NULL;
    if (json_is_string(lver) && !json_object_get(item, "apiVersion"))
        json_object_set(item, "apiVersion", lver);
}

void dra_docs_queue_push(list_queue *q, json_t *list, char *path, int line)
{
    q->v = dra_xgrow(q->v, q->n, sizeof *q->v);
    q->v[q->n++] = (waiting_list){list, path, line, 0, 0};
}

void dra_docs_queue_free(list_queue *q)
{
    for (size_t i = q->head; i < q->n; i++) {
        json_decref(q->v[i].list);
        free(q->v[i].path);
    }
    free(q->v);
    *q = (list_queue){0};
}

static dra_err *list_err(reader *r, int doc, int line, char *msg)
{
    dra_err *e = dra_err_at(dra_err_new(DRA_EXIT_INPUT, "%s", msg), r->name, doc, line, 0);
    free(msg);
    return e;
}

/* The items of one waiting List: objects handed out, Lists among them
 * queued behind the ones already waiting. */
static dra_err *flatten_one(reader *r, list_queue *q, const waiting_list *w, int doc, size_t off, int doc_line)
{
    json_t *v = w->list;
    bool list = json_is_object(v); /* else a document that is an array of objects */
    json_t *items = list ? json_object_get(v, "items") : v;
    const char *dot = *w->path ? "." : "";
    if (list && (!items || json_is_null(items)))
        return NULL; /* an empty List, as kubectl prints `items: []` trimmed */
    if (!json_is_array(items))
        return list_err(r, doc, w->line,
                        dra_xasprintf("%s: %s%sitems: must be a list of objects",
                                      json_string_value(json_object_get(v, "kind")), w->path, dot));
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item) {
        int line = noted_line(r, item, w->line);
        if (!json_is_object(item)) {
            if (!list)
                return list_err(r, doc, line, dra_xasprintf("list item[%zu]: expected an object", i));
            return list_err(r, doc, line, dra_xasprintf("%s%sitems[%zu]: expected an object", w->path, dot, i));
        }
        if (list)
            dra_docs_list_item_type(v, item);
        /* its place, when items[i] alone does not say it */
        bool nested = dra_docs_is_list_kind(item);
        char *path = nested || *w->path ? dra_xasprintf("%s%sitems[%zu]", w->path, dot, i) : NULL;
        dra_err *e = NULL;
        if (nested)
            dra_docs_queue_push(q, json_incref(item), path, line);
        else
            e = dra_docs_add_pending(r, json_incref(item), doc, line, (int)i, off, doc_line, path);
        if (!nested)
            free(path);
        if (r->fn) /* streaming: an item nobody kept is freed now, not with the whole List */
            json_array_set_new(items, i, json_null());
        if (e)
            return e;
    }
    return NULL;
}

/* The objects of the queued Lists, as kubectl's FlattenListVisitor
 * (cli-runtime pkg/resource/visitor.go) flattens a List in a List: the
 * objects among a List's items in order, each List among them queued after
 * the Lists already waiting (breadth first).  Empties the queue. */
dra_err *dra_docs_flatten(reader *r, list_queue *q, int doc, size_t off, int doc_line)
{
    dra_err *e = NULL;
    while (!e && q->head < q->n) {
        waiting_list w = q->v[q->head++];
        e = flatten_one(r, q, &w, doc, off, doc_line);
        json_decref(w.list);
        free(w.path);
    }
    dra_docs_queue_free(q);
    return e;
}

static dra_err *add_document_notes(reader *r, json_t *v, int doc, int line, size_t off, int doc_line)
{
    if (json_is_null(v)) {
        json_decref(v);
        return NULL; /* empty document */
    }
    /* a document of a List kind without items is an object to kubectl
     * (unstructuredJSONScheme.decode, k8s.io/apimachinery v0.37.2
     * pkg/apis/meta/v1/unstructured/helpers.go), refused by its kind */
    if (json_is_object(v) && (!dra_docs_is_list_kind(v) || !json_object_get(v, "items")))
        return dra_docs_add_pending(r, v, doc, line, -1, off, doc_line, NULL);
    if (!json_is_object(v) && !(json_is_array(v) && r->set->arrays)) {
        /* kubectl decodes a document as an object or a List
         * (unstructuredJSONScheme.decode): it refuses anything else */
        const char *what = json_is_string(v)                       ? "a string"
                           : json_is_integer(v) || json_is_real(v) ? "a number"
                           : json_is_boolean(v)                    ? "a boolean"
                           : json_is_array(v)                      ? "a list"
                                                                   : "not an object";
        dra_err *e = doc_err(r, doc, line, "document is %s; expected an object or a List", what);
        json_decref(v);
        return e;
    }
    list_queue q = {0};
    dra_docs_queue_push(&q, v, dra_xstrdup(""), line);
    return dra_docs_flatten(r, &q, doc, off, doc_line);
}

/* A reader that reads into a set (whole files): start at the set's end. */
void dra_docs_reader_into(reader *r, dra_objset *set)
{
    r->set = set;
    r->into = set;
    r->first = set->n;
    r->first_path = set->npaths;
}

/* Done with a file: on success its text goes to the set (to be read again
 * for a field's line); on failure the objects it added to the set go. */
void dra_docs_reader_done(reader *r, bool ok)
{
    if (!ok && r->into == r->set && r->set) {
        dra_objset *set = r->set;
        for (size_t i = r->first; i < set->n; i++)
            json_decref(set->v[i].json);
        set->n = r->first;
        for (size_t i = r->first_path; i < set->npaths; i++)
            free(set->paths[i]);
        set->npaths = r->first_path;
    }
    if (ok && !r->fn && r->into == r->set && r->src) {
        if (r->src->path) { /* read again if an error needs a line */
            free(r->src->data);
            r->src->data = NULL;
        }
        dra_objset_add_source(r->set, r->src);
        r->src = NULL;
    }
    dra_source_free(r->src);
    r->src = NULL;
    dra_objset_free(&r->pending);
    free(r->notes);
    if (ok)
        r->set->warnings = dra_err_append(r->set->warnings, r->warnings);
    else
        dra_err_free(r->warnings);
    r->warnings = NULL;
}
