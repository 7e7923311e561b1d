/* Private to src/common/io/: documents to objects, shared by the readers
 * (read_json.c, read_yaml.c, read.c).  A reader turns each parsed document
 * into the objects of a set (Lists flattened into their items, as kubectl
 * does), or hands them to a callback when streaming.
 *
 * Ownership: a reader borrows its set, name and callback; it owns its notes,
 * its pending set and, until dra_docs_reader_done() gives it to the set, its
 * source.  dra_docs_add_document() and dra_docs_add_pending() steal v. */
#ifndef DRA_IO_DOCS_H
#define DRA_IO_DOCS_H

#include "stream.h"
#include "jparse.h"

typedef struct line_note {
    const json_t *node;
    int line;
} line_note;

typedef struct reader {
    dra_objset *set;
    const char *name;
    dra_objset pending;       /* streaming's flow-YAML retry: the objects before they go to fn */
    dra_objset *into;         /* where objects go when not streaming: the set, or pending */
    size_t first, first_path; /* the set's objects and paths before this reader's */
    line_note *notes;         /* lines of mappings near the top (List items) of the current document */
    size_t nnotes, capnotes;
    size_t cursor;     /* where the next noted_line search starts: items are asked for in order */
    dra_source *src;   /* the file's text, given to the set on success */
    size_t src_base;   /* offset of the parsed text in src (a byte-order mark) */
    dra_err *warnings; /* relaxed duplicate fields (--validate=warn) */
    dra_obj_fn fn;     /* streaming: each object goes to fn instead of pending */
    void *fn_ctx;
    size_t delivered;          /* streaming: objects given to fn so far */
    bool stopped;              /* streaming: fn returned an error */
    bool item_src;             /* streaming a List: src is the item's own text */
    const char *file;          /* the file's name as the set keeps it */
    dra_json_interner *in;     /* whole-file reads: leaves shared across the file's documents */
    dra_json_interner *leaves; /* streaming JSON Lines: repeated leaves parsed once (bounded) */
    int doc_base, line_base;   /* YAML read on after a first JSON document: the documents and lines before */
    const json_t *hashed;      /* the document whose content hash the parser gave (doc_hash) */
    uint64_t doc_hash;
} reader;

/* Lists waiting to be flattened, in the order their items are handed out. */
typedef struct waiting_list {
    json_t *list; /* a reference: a List object, or a document that is an array */
    char *path;   /* where it is in its document: "" for the document, "items[3]" */
    int line;
    size_t text_off, text_len; /* streaming a big List: its text in the document's */
} waiting_list;

typedef struct list_queue {
    waiting_list *v;
    size_t head, n;
} list_queue;

/* Note the line a mapping (a List item) starts at, for its lookup. */
void dra_docs_note_line(reader *r, const json_t *node, int line);
/* Drop the notes of the document just handed out. */
void dra_docs_forget_notes(reader *r);
/* Is v of a List kind ("List", "PodList"...)? */
bool dra_docs_is_list_kind(const json_t *v);
/* Give a typed List's item its kind and apiVersion when it has none. */
void dra_docs_list_item_type(const json_t *list, json_t *item);
/* Queue a List (a reference) at path (owned) behind the ones waiting. */
void dra_docs_queue_push(list_queue *q, json_t *list, char *path, int line);
void dra_docs_queue_free(list_queue *q);
/* Hand out the objects of the queued Lists, breadth first; empties q. */
DRA_MUST_USE dra_err *dra_docs_flatten(reader *r, list_queue *q, int doc, size_t off, int doc_line);
/* One object found (steals v): to the callback when streaming, else to the
 * pending set; path: its place when not the root or items[item]. */
DRA_MUST_USE dra_err *dra_docs_add_pending(reader *r, json_t *v, int doc, int line, int item, size_t off, int doc_line,
                                           const char *path);
/* One parsed document (steals v) at byte off of the text, or at the start
 * of line doc_line when off is SIZE_MAX. */
DRA_MUST_USE dra_err *dra_docs_add_document(reader *r, json_t *v, int doc, int line, size_t off, int doc_line);
/* Start reading whole files into set. */
void dra_docs_reader_into(reader *r, dra_objset *set);
/* Done with a file: ok keeps what it added (and its text), else drops it. */
void dra_docs_reader_done(reader *r, bool ok);

#endif
