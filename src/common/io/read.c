/* The readers' entry points: files, directories, memory and stdin, whole
 * or streamed.  See stream.h. */
#include "stream.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "docs.h"
#include "read_json.h"
#include "read_yaml.h"

/* An unrendered Helm chart file or Go template fails as YAML or JSON; say
 * what it is instead of leaving a syntax error to puzzle over. */
static dra_err *template_hint(dra_err *e, const char *data, size_t len)
{
    int line = 1;
    for (size_t i = 0; i + 1 < len; i++) {
        if (data[i] == '\n')
            line++;
        else if (data[i] == '{' && data[i + 1] == '{') {
            char *m =
                dra_xasprintf("%s (the file looks like a Helm or Go template: \"{{\" at line %d; render it first, "
                              "e.g. with helm template)",
                              e->msg, line);
            dra_err_set_msg(e, m);
            break;
        }
    }
    return e;
}

/* The opening of both readers, whole and streamed: the length of a UTF-8
 * byte-order mark at the start of data (*bom: 3 or 0) and the first byte
 * past it and the white space from *p on (*p = len when there is none
 * yet).  True when that byte opens a JSON object ('{'): the JSON reader
 * reads the file, else the YAML reader does, a '[' file too, as kubectl's
 * GuessJSONStream takes only '{' for JSON (k8s.io/apimachinery@v0.37.2
 * pkg/util/yaml/decoder.go hasJSONPrefix).  An inventory (set->arrays),
 * which kubectl never reads, is JSON at a '[' as well. */
static bool opens_json(const dra_objset *set, const char *data, size_t len, size_t *bom, size_t *p)
{
    *bom = len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (*p < *bom)
        *p = *bom;
    *p += dra_json_space_len(data + *p, len - *p);
    return *p < len && (data[*p] == '{' || (data[*p] == '[' && set->arrays));
}

/* kubectl's YAMLOrJSONDecoder (k8s.io/apimachinery@v0.37.2 pkg/util/yaml/
 * decoder.go) reads a stream that opens with '{' as JSON, and when its
 * second document is not JSON, reads on from the end of the first as YAML:
 * only a stream of two JSON documents or more is JSON for good.  Where that
 * YAML starts in data[0..len) (the first document's value, then the white
 * space after it through the first newline, as consumeWhitespace eats it),
 * and the lines before it in *lines; SIZE_MAX when the text does not open
 * with a JSON object that can be measured. */
static size_t after_first_json(const char *data, size_t len, int *lines)
{
    size_t i = dra_json_space_len(data, len);
    if (i >= len || data[i] != '{')
        return SIZE_MAX;
    size_t used = 0;
    json_t *v = dra_json_parse(data + i, len - i, DRA_MAX_DEPTH, &used);
    if (!v) {
        json_error_t jerr;
        v = json_loadb(data + i, len - i, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, &jerr);
        used = v ? (size_t)jerr.position : 0;
    }
    bool ok = v && used > 0 && used <= len - i;
    json_decref(v);
    if (!ok)
        return SIZE_MAX;
    i += used;
    while (i < len && (dra_json_space_len(data + i, 1) || data[i] == '\v' || data[i] == '\f'))
        if (data[i++] == '\n')
            break;
    *lines = 0;
    for (size_t k = 0; k < i; k++)
        *lines += data[k] == '\n';
    return i;
}

/* The JSON reader failed (e) at the second document of data[0..len): read
 * the rest as YAML, as kubectl does (after_first_json), into r, which holds
 * the first document's objects.  NULL when it all reads (e freed), else e. */
static dra_err *yaml_after_first(reader *r, const char *data, size_t len, dra_err *e)
{
    int lines;
    size_t at = e->doc == 2 ? after_first_json(data, len, &lines) : SIZE_MAX;
    if (at == SIZE_MAX)
        return e;
    r->doc_base = 1;
    r->line_base = lines;
    dra_err *e2 = dra_read_yaml_stream(r, data + at, len - at);
    r->doc_base = r->line_base = 0;
    if (e2) {
        dra_err_free(e2);
        return e;
    }
    dra_err_free(e);
    return NULL;
}

/* Read one file's text (takes src: the set keeps it on success). */
static dra_err *read_source(dra_objset *set, const char *name, dra_source *src)
{
    const char *data = src->data;
    size_t len = src->len;
    reader r = {0};
    dra_docs_reader_into(&r, set);
    r.name = name;
    r.src = src;
    r.in = dra_json_interner_new();
    size_t off, p = 0;
    bool json = opens_json(set, data, len, &off, &p);
    r.src_base = off;
    dra_err *e;
    if (json) {
        e = dra_read_json_stream(&r, data + off, len - off);
        if (e && set->n == r.first && e->doc == 1) {
            /* maybe YAML in flow style after all */
            reader r2 = {0};
            dra_docs_reader_into(&r2, set);
            r2.name = name;
            r2.src = src;
            r2.src_base = off;
            r2.in = r.in;
            dra_err *e2 = dra_read_yaml_stream(&r2, data + off, len - off);
            if (!e2) {
                dra_err_free(e);
                r.src = NULL;
                r.into = NULL; /* it added nothing; the set's new objects are r2's */
                dra_docs_reader_done(&r, false);
                dra_docs_reader_done(&r2, true);
                dra_json_interner_free(r.in);
                return NULL;
            }
            dra_err_free(e2);
            r2.src = NULL;
            dra_docs_reader_done(&r2, false);
        } else if (e) {
            e = yaml_after_first(&r, data + off, len - off, e);
        }
    } else {
        e = dra_read_yaml_stream(&r, data + off, len - off);
    }
    if (e)
        e = template_hint(e, data, len);
    dra_docs_reader_done(&r, e == NULL);
    dra_json_interner_free(r.in);
    return e;
}

dra_err *dra_read_mem(dra_objset *set, const char *name, const char *data, size_t len)
{
    dra_source *src = dra_xcalloc(1, sizeof *src);
    src->data = dra_xmalloc(len + 1);
    memcpy(src->data, data, len);
    src->data[len] = 0;
    src->len = len;
    return read_source(set, name, src);
}

dra_err *dra_read_path(dra_objset *set, const char *path)
{
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_path(&b, path, DRA_MAX_INPUT_BYTES);
    if (e) {
        dra_buf_free(&b);
        return e;
    }
    dra_source *src = dra_xcalloc(1, sizeof *src);
    src->len = b.len;
    src->data = b.data ? b.data : dra_xstrdup(""); /* the buffer is the source's now */
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == b.len) {
        src->path = dra_xstrdup(path);
        src->mtime_ns =
            (long long)((unsigned long long)st.st_mtim.tv_sec * 1000000000u + (unsigned long long)st.st_mtim.tv_nsec);
    }
    return read_source(set, path, src);
}

/* Read the rest of b and all of it, from byte `at` on (past the byte-order
 * mark), as YAML into r, with *src as its source while it reads (the
 * caller frees src->line_off). */
static dra_err *read_yaml_whole(reader *r, inbuf *b, size_t bom, size_t at, dra_source *src)
{
    dra_err *e = dra_inbuf_all(b);
    *src = (dra_source){.data = b->data, .len = b->len};
    r->src = src;
    r->src_base = bom;
    if (!e)
        e = dra_read_yaml_stream(r, b->data + at, b->len - at);
    r->src = NULL;
    return e;
}

/* Streaming: the documents of a file handed out so far, by their place. */
typedef struct handed_out {
    dra_obj_fn fn;
    void *ctx;
    bool past_first; /* an object of the second document or later */
} handed_out;

static dra_err *hand_out(void *ctx, dra_obj *o)
{
    handed_out *h = ctx;
    h->past_first = h->past_first || o->doc > 1;
    return h->fn(h->ctx, o);
}

/* Streaming a file that opened as JSON and failed (e) where kubectl reads
 * on as YAML: all of it from byte `at` (doc_base documents and line_base
 * lines before it), read whole and handed out only when all of it reads.
 * NULL then (e freed), else e. */
static dra_err *stream_yaml_retry(reader *r, inbuf *b, size_t bom, size_t at, int doc_base, int line_base, dra_err *e)
{
    b->keep = true; /* the text before at: its lines are counted in line_base, its source may be asked for */
    reader r2 = {0};
    r2.set = r->set;
    r2.into = &r2.pending;
    r2.name = r->name;
    r2.doc_base = doc_base;
    r2.line_base = line_base;
    dra_source src;
    dra_err *e2 = read_yaml_whole(&r2, b, bom, at, &src);
    if (!e2) {
        dra_err_free(e);
        e = NULL;
        r->src = &src;
        for (size_t i = 0; i < r2.pending.n && !e; i++) {
            dra_obj *o = &r2.pending.v[i];
            json_t *v = o->json;
            o->json = NULL;
            e = dra_docs_add_pending(r, v, o->doc, o->line, o->item, SIZE_MAX, o->src_line, o->src_path);
        }
        r->src = NULL;
    }
    dra_err_free(e2);
    free(src.line_off);
    dra_docs_reader_done(&r2, false);
    return e;
}

/* Streaming one file: JSON a document at a time, YAML read whole (its text,
 * not its trees).  See dra_read_each(). */
static dra_err *read_each_fd(dra_objset *set, const char *name, int fd, dra_obj_fn fn, void *ctx)
{
    inbuf b = {fd, name, NULL, 0, 0, 0, set->stream_chunk ? set->stream_chunk : 65536, false, true};
    dra_err *e = NULL;
    while (!e && !b.eof && b.len < 3)
        e = dra_inbuf_more(&b);
    size_t bom = 0, p = 0;
    bool json = false;
    while (!e) {
        json = opens_json(set, b.data, b.len, &bom, &p);
        if (p < b.len || b.eof)
            break;
        e = dra_inbuf_more(&b);
    }
    handed_out h = {fn, ctx, false};
    reader r = {0};
    r.set = set;
    r.name = name;
    r.fn = hand_out;
    r.fn_ctx = &h;
    if (!e && json) {
        b.start = bom;
        e = dra_stream_json(&r, &b);
        int lines;
        size_t at;
        if (e && !r.stopped && r.delivered == 0 && e->doc == 1) {
            /* maybe YAML in flow style after all */
            b.start = 0;
            e = stream_yaml_retry(&r, &b, bom, bom, 0, 0, e);
        } else if (e && !r.stopped && e->doc == 2 && !h.past_first) {
            /* what follows the first document is YAML to kubectl: from
             * the buffer when the first document's text is still in it
             * (it was not moved on), else read again from the start (a
             * file can be, a pipe cannot) */
            at = after_first_json(b.data + bom, b.start - bom, &lines);
            if (at != SIZE_MAX && bom + at > b.start)
                at = SIZE_MAX; /* not the first document's end: the buffer was moved on */
            if (at == SIZE_MAX && lseek(fd, 0, SEEK_SET) == 0) {
                b.start = b.len = 0;
                b.eof = false;
                b.keep = true;
                dra_err *ea = dra_inbuf_all(&b);
                at = ea ? SIZE_MAX : after_first_json(b.data + bom, b.len - bom, &lines);
                dra_err_free(ea);
            }
            if (at != SIZE_MAX && bom + at <= b.len)
                e = stream_yaml_retry(&r, &b, bom, bom + at, 1, lines, e);
        }
    } else if (!e) {
        dra_source src;
        e = read_yaml_whole(&r, &b, bom, bom, &src);
        free(src.line_off);
    }
    if (e && !r.stopped && b.data)
        e = template_hint(e, b.data, b.len);
    dra_json_interner_free(r.leaves);
    dra_docs_reader_done(&r, e == NULL);
    free(b.data);
    return e;
}

dra_err *dra_read_each(dra_objset *set, const char *path, dra_obj_fn fn, void *ctx)
{
    if (strcmp(path, "-") == 0)
        return read_each_fd(set, path, 0, fn, ctx);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return dra_err_new(DRA_EXIT_INPUT, "%s: %s", *path ? path : "'' (empty file name)", strerror(errno));
    dra_err *e = read_each_fd(set, path, fd, fn, ctx);
    close(fd);
    return e;
}

dra_err *dra_field_validation_parse(const char *s, dra_field_validation *out)
{
    if (strcmp(s, "strict") == 0 || strcmp(s, "true") == 0)
        *out = DRA_FV_STRICT;
    else if (strcmp(s, "warn") == 0)
        *out = DRA_FV_WARN;
    else if (strcmp(s, "ignore") == 0 || strcmp(s, "false") == 0)
        *out = DRA_FV_IGNORE;
    else
        return dra_err_new(DRA_EXIT_INPUT, "value \"%s\": must be one of: strict (or true), warn, ignore (or false)",
                           s);
    return NULL;
}

typedef dra_strset seen_files; /* "dev:ino" of the files read */

/* True when the file was read already (a glob plus an explicit name). */
static bool seen_before(seen_files *seen, const struct stat *st)
{
    char key[48];
    int n = snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
    bool added;
    dra_strset_add(seen, key, (size_t)n, &added);
    return !added;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool manifest_ext(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0);
}

/* Streaming reads: the callback, and whether it asked to stop. */
typedef struct each {
    dra_obj_fn fn;
    void *ctx;
    bool stopped;
} each;

static dra_err *each_call(void *ctx, dra_obj *o)
{
    each *ea = ctx;
    dra_err *e = ea->fn(ea->ctx, o);
    if (e)
        ea->stopped = true;
    return e;
}

static dra_err *read_one(dra_objset *set, const char *path, seen_files *seen, bool top, int depth, each *ea);

/* kubectl's directory walk (FileVisitorForSTDIN aside): files with a
 * manifest extension, in lexical order; subdirectories only with -R. */
static dra_err *read_dir(dra_objset *set, const char *path, seen_files *seen, int depth, each *ea)
{
    if (depth > 32)
        return dra_err_new(DRA_EXIT_INPUT, "%s: directories nested deeper than 32 levels", path);
    DIR *d = opendir(path);
    if (!d)
        return dra_err_new(DRA_EXIT_INPUT, "%s: %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = dra_xrealloc(names, cap * sizeof *names);
        }
        names[n++] = dra_xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, name_cmp);
    dra_err *all = NULL;
    size_t plen = strlen(path);
    for (size_t i = 0; i < n; i++) {
        if (ea && ea->stopped) {
            free(names[i]);
            continue;
        }
        char *full = dra_xasprintf("%s%s%s", path, plen && path[plen - 1] == '/' ? "" : "/", names[i]);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (set->recursive)
                all = dra_err_append(all, read_dir(set, full, seen, depth + 1, ea));
        } else if (manifest_ext(names[i])) {
            all = dra_err_append(all, read_one(set, full, seen, false, depth, ea));
        }
        free(full);
        free(names[i]);
    }
    free(names);
    return all;
}

static dra_err *read_one(dra_objset *set, const char *path, seen_files *seen, bool top, int depth, each *ea)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0) {
        if (top && S_ISDIR(st.st_mode))
            return read_dir(set, path, seen, depth, ea);
        if (S_ISREG(st.st_mode) && seen_before(seen, &st)) {
            set->files_repeated++;
            return NULL;
        }
    }
    return ea ? dra_read_each(set, path, each_call, ea) : dra_read_path(set, path);
}

static dra_err *read_paths(dra_objset *set, char *const *paths, size_t npaths, each *ea)
{
    if (npaths == 0)
        return ea ? dra_read_each(set, "-", each_call, ea) : dra_read_path(set, "-");
    /* A second "-" would read an already drained stdin as an empty file:
     * objects silently missing from the answer.  Refuse before reading. */
    size_t stdin_uses = 0;
    for (size_t i = 0; i < npaths; i++)
        stdin_uses += strcmp(paths[i], "-") == 0;
    if (stdin_uses > 1)
        return dra_err_new(DRA_EXIT_INPUT, "standard input ('-') is named %zu times; it can be read only once",
                           stdin_uses);
    dra_err *all = NULL;
    seen_files seen = {0};
    for (size_t i = 0; i < npaths && !(ea && ea->stopped); i++)
        all = dra_err_append(all, read_one(set, paths[i], &seen, true, 0, ea));
    dra_strset_free(&seen);
    return all;
}

dra_err *dra_read_paths(dra_objset *set, char *const *paths, size_t npaths)
{
    return read_paths(set, paths, npaths, NULL);
}

dra_err *dra_read_paths_each(dra_objset *set, char *const *paths, size_t npaths, dra_obj_fn fn, void *ctx)
{
    each ea = {fn, ctx, false};
    return read_paths(set, paths, npaths, &ea);
}
