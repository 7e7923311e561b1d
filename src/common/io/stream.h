/* Object streams: reading Kubernetes objects from files in any format and
 * writing them back out.
 *
 * In memory an object is a jansson tree (json_t).  Jansson keeps object keys in
 * insertion order, so what we read is written back in the same order.
 *
 * Input formats, detected per file: multi-document YAML, a JSON object, a JSON
 * array of objects, concatenated JSON values / JSON Lines, and Lists
 * (`kind: List` or any `*List` kind) in either syntax, which are flattened
 * into their items wherever they are: a List among a List's items (or a JSON
 * array's) is flattened too, in the order cli-runtime's FlattenListVisitor
 * gives (a List's own objects first, then the items of the Lists among
 * them, breadth first).  A List without `items` (or with `items: null`) is
 * an empty List at any depth; `items` that is not an array is an error.
 * YAML scalars resolve like sigs.k8s.io/yaml
 * (go-yaml v2): true/false/yes/no/on/off, null/~, ints, floats; quoted scalars
 * stay strings.
 *
 * This header is the umbrella of the files that define it: stream.c (the
 * object set and its sources), read.c (the entry points of reading), over
 * docs.c (documents to objects), read_json.c and read_yaml.c (the readers,
 * private headers of their own), fieldline.c (a field's line) and write.c
 * (writing).
 *
 * Ownership: a dra_objset owns its objects (one json_t reference each) and the
 * file names they point to; dra_objset_free() releases everything.  Borrowed
 * pointers into it stay valid until then.
 */
#ifndef DRA_IO_STREAM_H
#define DRA_IO_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "base/error.h"
#include "base/hash.h"

/* Limits on untrusted input. */
#define DRA_MAX_INPUT_BYTES ((size_t)1 << 30) /* one file or stdin */
#define DRA_MAX_DEPTH 64                      /* nesting of mappings/sequences */
/* clang-format off */
#define DRA_MAX_ALIAS_NODES 100000            /* nodes produced by YAML alias expansion, per input (one file, stdin or buffer) */
/* clang-format on */

/* The text a file was read from, kept by the set so that an error can be
 * placed at the line of its own field (private; see dra_obj_field_line). */
typedef struct dra_source {
    char *data; /* the whole file; NULL while a regular file's text is
                 * not held (read again from `path` when asked) */
    size_t len;
    size_t *line_off; /* start of each line, built on first use */
    size_t nlines;
    char *path;         /* a regular file: its text is dropped after reading */
    long long mtime_ns; /* and must read back the same: size and mtime (a fingerprint: it wraps past 2262) */
} dra_source;

typedef struct dra_obj {
    json_t *json;     /* owned reference; always a JSON object */
    const char *file; /* borrowed from the set ("-" for stdin) */
    int doc;          /* 1-based document (YAML) or value (JSON stream) index in the file */
    int line;         /* 1-based line where the object starts; 0 if unknown */
    int item;         /* -1, or the index in the List's `items` it came from */
    /* where the object is in its source text when that is not `items[item]`
     * or the root: "items[1].items[0]" for an item of a List in a List;
     * NULL otherwise (owned by the set, or by the reader while streaming) */
    const char *src_path;
    /* where its document starts in the source text (NULL when not read from
     * text): a byte offset, or SIZE_MAX and then the start of line src_line */
    const dra_source *src;
    size_t src_off;
    int src_line;
    bool src_item; /* the source text is this List item alone (streaming), not its List */
    /* dra_json_content_hash(json) as read, when a streaming reader computed
     * it while parsing (a JSON document that is one object); a callback that
     * changes json before it reaches the loader clears content_known. */
    bool content_known;
    uint64_t content;
} dra_obj;

/* kubectl's --validate: what an unknown or duplicate field is.  The reader
 * applies it to duplicate fields; the model's strict decoding to unknown ones. */
typedef enum {
    DRA_FV_STRICT = 0, /* an error (kubectl's default) */
    DRA_FV_WARN,       /* a warning; the last duplicate wins, unknown fields are dropped */
    DRA_FV_IGNORE,     /* silently dropped */
} dra_field_validation;

/* Parse a field-validation value (kubectl's --validate): strict (or true),
 * warn, ignore (or false).  The error reads `value "X": must be one of: ...`. */
DRA_MUST_USE dra_err *dra_field_validation_parse(const char *s, dra_field_validation *out);

typedef struct dra_objset {
    dra_obj *v;
    size_t n, cap;
    char **files; /* interned file names */
    size_t nfiles;
    char **paths; /* the objects' src_path strings */
    size_t npaths;
    dra_source **sources; /* owned: the text of every file read */
    size_t nsources;
    /* reading options, set before reading (kept by dra_objset_free) */
    dra_field_validation field_validation;
    bool recursive;         /* directories: descend into subdirectories (-R) */
    bool arrays;            /* a document that is a list of objects is read as a List (an
                               inventory of devices); else it is refused, as kubectl does */
    dra_err *warnings;      /* owned: problems relaxed by field_validation, in input order */
    size_t files_repeated;  /* files named more than once and read once */
    size_t stream_chunk;    /* streaming reads (dra_read_each): bytes per read; 0 = 64 KiB */
    size_t stream_list_min; /* streaming: Lists longer are handed out item by item; 0 = 64 KiB */
    const char *kept_file;  /* dra_objset_keep: the last file and its source (private) */
    const dra_source *kept_src;
    const char *copied_file; /* dra_objset_keep: the last document whose text was copied (private) */
    int copied_doc;
    const char *copied_at; /* where its text was */
    const dra_source *copied_src;
    dra_strmap file_index;   /* private: files by name, sources by path (many files read in */
    dra_strmap source_index; /* time linear in their number) */
} dra_objset;

#define DRA_OBJSET_INIT                                                                                                \
    {                                                                                                                  \
        0                                                                                                              \
    }

/* Read every object of one file ("-" = stdin) and append them to set.
 * On error nothing of that file is appended. */
DRA_MUST_USE dra_err *dra_read_path(dra_objset *set, const char *path);
/* Same from memory; `name` is used in locations and error messages. */
DRA_MUST_USE dra_err *dra_read_mem(dra_objset *set, const char *name, const char *data, size_t len);
/* Read all paths in order; no paths means stdin.  A directory is read as
 * kubectl reads one: its files ending in .json, .yaml or .yml in name order,
 * and with set->recursive its subdirectories too; the same file named twice
 * (a glob plus an explicit name) is read once. */
DRA_MUST_USE dra_err *dra_read_paths(dra_objset *set, char *const *paths, size_t npaths);

/* Streaming: the objects of a file one at a time, for tools that look at one
 * object at a time.  fn is called for every object in input order with o
 * borrowed for the call: o->json is the reader's reference (fn may change
 * the object, and takes a reference of its own to keep it), o->src is valid
 * only during the call, so locate errors (dra_obj_locate) inside fn.  set
 * gives the reading options and collects the file names and warnings; its
 * object list is not used.
 *
 * Memory follows the largest document, not the file: JSON (a stream of
 * values, JSON Lines) is read a document at a time, each document's text
 * dropped after its objects.  A big JSON List (kubectl get -o json; over
 * stream_list_min bytes) is held as text only: its items are parsed and
 * handed out one at a time, each the source of its own field lines, and a
 * bad item is an error after the items before it were handed out (such a
 * List is not tried as flow YAML, as a whole file's first document is).
 * YAML files are read whole as text, their trees built one document at a
 * time.  A single document is limited to DRA_MAX_INPUT_BYTES; the file is
 * not.
 *
 * Unlike dra_read_path, objects before an error of the file (invalid syntax
 * at document N) have been handed to fn already: the caller decides what
 * that means (a validator reports them and fails).  An error fn returns
 * stops reading (every file) and is returned as it is. */
typedef dra_err *(*dra_obj_fn)(void *ctx, dra_obj *o);
DRA_MUST_USE dra_err *dra_read_each(dra_objset *set, const char *path, dra_obj_fn fn, void *ctx);
/* dra_read_paths() streaming: paths, directories and stdin as it reads them,
 * each file through dra_read_each(); read errors of one file are collected
 * and reading goes on with the next, as dra_read_paths() does. */
DRA_MUST_USE dra_err *dra_read_paths_each(dra_objset *set, char *const *paths, size_t npaths, dra_obj_fn fn, void *ctx);

/* Keep an object handed out by a streaming read (dra_read_each): append it
 * to set (a new reference) with its place, its field lines found later by
 * reading its file again (dra_obj_field_line; none once the file changed).
 * Input that cannot be read again (stdin, a pipe) keeps the text of the
 * kept object's document instead (copied once for the objects of one
 * document): memory follows what is kept, not the input. */
void dra_objset_keep(dra_objset *set, const dra_obj *o);

/* Private to io/: where line `line` (1-based) of src starts, or SIZE_MAX;
 * builds src's line index on first use. */
size_t dra_source_line_start(dra_source *src, int line);

/* Private to io/ (stream.c), for the readers (docs.c): the set's copy of a
 * file name, interned; a source freed (NULL is fine); a source given to the
 * set (found by its path when it has one); a copy of path the set owns
 * (NULL for NULL). */
const char *dra_objset_intern_file(dra_objset *set, const char *name);
void dra_source_free(dra_source *s);
void dra_objset_add_source(dra_objset *set, dra_source *src);
const char *dra_objset_own_path(dra_objset *set, const char *path);

/* Append an object (steals the reference) with a location. */
void dra_objset_add(dra_objset *set, json_t *json, const char *file, int doc, int line, int item);
void dra_objset_free(dra_objset *set);

/* Location of an object as an error would print it, applied to every error in
 * the chain that has none yet (object reference included).  An error with a
 * field path gets the line of that field in the source text when it can be
 * found there (else the deepest part of the path that can, else the object's
 * first line). */
DRA_MUST_USE dra_err *dra_obj_locate(dra_err *e, const dra_obj *o);
/* dra_obj_locate with the field-line lookups counted down from *lookups,
 * which the caller shares across objects: a check that finds thousands of
 * errors gives the first ones their fields' lines and the rest their
 * objects' (dra_obj_locate allows DRA_FIELD_LINE_LOOKUPS per chain). */
DRA_MUST_USE dra_err *dra_obj_locate_within(dra_err *e, const dra_obj *o, int *lookups);

/* Line (1-based) of a field of o in its source text, for a path in
 * upstream's notation (`spec.devices[3].attributes["x/y"]`, or `a.b.c`).
 * The deepest part of the path present in the text decides; the segments
 * that differ between API versions (`exactly` in v1 requests, `basic` in
 * v1beta1 devices) are matched either way.  0 when o was not read from text.
 * The text is parsed again only when asked: reading pays nothing for it. */
int dra_obj_field_line(const dra_obj *o, const char *path);
/* The text of the scalar at path as written in o's source, when that is a
 * JSON document and the scalar a number, true, false or null there (a JSON
 * number keeps its literal: 1e3, -0, 9223372036854775808), or a YAML
 * document and the scalar an unsigned integer past int64, which reaches the
 * API server with all its digits (its decimal digits: 0xFFFFFFFFFFFFFFFF is
 * 18446744073709551615); NULL otherwise.  Caller frees. */
char *dra_obj_field_literal(const dra_obj *o, const char *path);
/* How many errors of one chain (or one strict check) get their field's line;
 * the rest get the object's: each lookup parses the document again. */
#define DRA_FIELD_LINE_LOOKUPS 64

/* "Kind/name" or "Kind/namespace/name"; "<unnamed Kind>" when there is no name.
 * A NUL byte in a member is written \x00 (as Go's %q would).  Caller frees. */
char *dra_obj_ref(const json_t *obj);

typedef enum { DRA_FMT_YAML, DRA_FMT_JSON, DRA_FMT_JSONL } dra_format;

/* Parse an -o value: "yaml", "json", "jsonl".  Error names the accepted values. */
DRA_MUST_USE dra_err *dra_format_parse(const char *s, dra_format *out);

/* Write objects to f in the format:
 *   yaml:  documents separated by "---"
 *   json:  one object pretty-printed, or several as a kubectl-style v1 List
 *   jsonl: one compact object per line
 * Errors (including a failed write) are DRA_EXIT_RUNTIME. */
DRA_MUST_USE dra_err *dra_write(FILE *f, json_t *const *objs, size_t n, dra_format fmt);
/* The items of a JSON array as objects, as dra_write() does; every error
 * (a failed put, then the close) is returned. */
DRA_MUST_USE dra_err *dra_write_array(FILE *f, const json_t *arr, dra_format fmt);
/* Streaming writer: the same bytes as dra_write() over all the objects put,
 * without holding them all.  It writes nothing to f until it holds
 * DRA_WRITER_HOLD bytes of output (or is finished): a run that fails before
 * that leaves nothing on f, never half a document, and one that fails later
 * ends what it wrote as a complete document.  json keeps the first object
 * back besides, to decide between a plain object and a List, so a List is
 * opened only at its second object.  put() borrows obj. */
#define DRA_WRITER_HOLD ((size_t)8 << 20)
typedef struct dra_writer dra_writer;
dra_writer *dra_writer_new(FILE *f, dra_format fmt);
/* Hold at most this many bytes instead (0: write each object as it is put). */
void dra_writer_hold(dra_writer *w, size_t bytes);
DRA_MUST_USE dra_err *dra_writer_put(dra_writer *w, const json_t *obj);
/* Put one object given as the text dra_json_write_line (jline.h) makes of
 * it: jsonl writes the text as it is, json and yaml read it back first.
 * The text is borrowed. */
DRA_MUST_USE dra_err *dra_writer_put_line(dra_writer *w, const char *text, size_t len);
/* Finish the output of a run that succeeded and free the writer: what is
 * held is written and the document ended (an empty json List when nothing
 * was put).  The error of a failed write, or NULL. */
DRA_MUST_USE dra_err *dra_writer_close(dra_writer *w);
/* Finish the output of a run that ended with e and free the writer (call
 * it even after an error).  With e set (the run failed): when nothing was
 * written yet nothing is, else what was written is ended as a complete
 * document; e is returned (the writer's own error dropped).  Without e:
 * dra_writer_close().  For `return dra_writer_finish(w, put_all(w));`. */
DRA_MUST_USE dra_err *dra_writer_finish(dra_writer *w, dra_err *e);

/* Write a single JSON value in the format (for non-object results). */
DRA_MUST_USE dra_err *dra_write_value(FILE *f, const json_t *v, dra_format fmt);

/* YAML text for one value (block style, 2-space indent, no document marker);
 * caller frees. */
char *dra_yaml_dump(const json_t *v);

#endif
