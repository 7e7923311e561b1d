/* Fuzz the object-stream reader and the YAML writer on whatever it accepts;
 * the fast JSON path against jansson on the same bytes (and with its content
 * hash and shared leaves); the streaming reader
 * (a few bytes per read) against the whole-file reader; objects kept from a
 * pipe (dra_objset_keep copies their documents' text) against the field
 * lines they had while they were read. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/jalloc.h"
#include "io/jparse.h"
#include "io/stream.h"

typedef struct collected {
    json_t *all; /* every object handed out, in order */
} collected;

static dra_err *collect(void *ctx, dra_obj *o)
{
    json_array_append(((collected *)ctx)->all, o->json);
    return NULL;
}

static const char *const paths[] = {"kind", "metadata.name", "spec.x", "spec.devices[1].name", "items[0]"};
#define NPATHS (sizeof paths / sizeof *paths)

typedef struct kept_lines {
    dra_objset set; /* the objects kept */
    int *lines;     /* NPATHS per object, as found while it was read */
    size_t n;
} kept_lines;

static dra_err *keep_noting(void *ctx, dra_obj *o)
{
    kept_lines *k = ctx;
    dra_objset_keep(&k->set, o);
    k->lines = realloc(k->lines, (k->n + 1) * NPATHS * sizeof *k->lines);
    if (!k->lines)
        abort();
    for (size_t i = 0; i < NPATHS; i++) {
        k->lines[k->n * NPATHS + i] = dra_obj_field_line(o, paths[i]);
        /* a scalar's text is found only where its line is */
        char *lit = dra_obj_field_literal(o, paths[i]);
        if (lit && !k->lines[k->n * NPATHS + i])
            abort();
        free(lit);
    }
    k->n++;
    return NULL;
}

/* Through a pipe (not readable again, as stdin): the kept objects' field
 * lines after the read are the ones they had while they were read. */
static void kept_from_a_pipe(const uint8_t *data, size_t size)
{
    int p[2];
    if (size > 32768 || pipe(p) != 0)
        return;
    bool written = write(p[1], data, size) == (ssize_t)size;
    close(p[1]);
    if (written) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
        dra_objset rd = DRA_OBJSET_INIT;
        rd.stream_chunk = 5;
        rd.stream_list_min = size % 3 == 0; /* 1: Lists item by item */
        kept_lines k = {DRA_OBJSET_INIT, NULL, 0};
        dra_err_free(dra_read_each(&rd, path, keep_noting, &k));
        if (k.set.n != k.n)
            abort();
        for (size_t i = 0; i < k.n; i++)
            for (size_t j = 0; j < NPATHS; j++)
                if (dra_obj_field_line(&k.set.v[i], paths[j]) != k.lines[i * NPATHS + j])
                    abort();
        free(k.lines);
        dra_objset_free(&k.set);
        dra_objset_free(&rd);
    }
    close(p[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* every parse below in the arena, as dra-slice validate parses
     * (io/jalloc.h; off in sanitizer builds), compared with jansson's
     * own trees on the heap */
    static bool arena;
    if (!arena) {
        dra_jalloc_install();
        dra_jalloc_arena_allow();
        arena = true;
    }
    const char *text = (const char *)data;
    /* the fast path builds jansson's tree for what jansson takes (it also
     * takes numbers past int64 or double and invalid UTF-8, as Go's
     * encoding/json does, which jansson refuses) */
    size_t used = 0;
    json_t *fast = dra_json_parse(text, size, DRA_MAX_DEPTH, &used);
    if (fast) {
        json_error_t jerr;
        json_t *slow = json_loadb(text, size, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
        if (slow && (!json_equal(fast, slow) || (size_t)jerr.position != used))
            abort();
        json_decref(slow);
    }
    /* hashed while parsing, leaves shared through a bounded interner that
     * lives across inputs (read three times: a leaf is kept the second
     * time it is seen, shared the third): the same tree, the tree's hash */
    static dra_json_interner *leaves;
    if (!leaves)
        leaves = dra_json_interner_bounded(64);
    for (int round = 0; round < 3; round++) {
        size_t hused = 0;
        uint64_t h = 0;
        json_t *hashed = dra_json_parse_hashed(text, size, DRA_MAX_DEPTH, &hused, leaves, &h);
        if ((hashed != NULL) != (fast != NULL) ||
            (hashed && (!json_equal(hashed, fast) || hused != used || h != dra_json_content_hash(hashed))))
            abort();
        json_decref(hashed);
    }
    json_decref(fast);

    /* a List's envelope: the document without its items, which are where it says */
    size_t ioff = 0, ilen = 0;
    json_t *env = dra_json_parse_envelope(text, size, DRA_MAX_DEPTH, &used, &ioff, &ilen);
    if (env) {
        json_error_t jerr;
        json_t *slow = json_loadb(text, size, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &jerr);
        if (ioff + ilen > used || used > size || text[ioff] != '[' || text[ioff + ilen - 1] != ']')
            abort();
        if (slow) {
            json_t *items = json_loadb(text + ioff, ilen, JSON_DISABLE_EOF_CHECK, &jerr);
            if (!items || !json_equal(items, json_object_get(slow, "items")))
                abort();
            json_object_del(slow, "items");
            if (!json_equal(env, slow))
                abort();
            json_decref(items);
        }
        json_decref(slow);
        json_decref(env);
    }

    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz", text, size);
    if (!e) {
        for (size_t i = 0; i < set.n; i++) {
            char *y = dra_yaml_dump(set.v[i].json);
            dra_objset again = DRA_OBJSET_INIT;
            dra_err *e2 = dra_read_mem(&again, "again", y, strlen(y));
            /* what we write must read back to the same value */
            if (!e2 && (again.n != 1 || !json_equal(again.v[0].json, set.v[i].json)))
                abort();
            dra_err_free(e2);
            dra_objset_free(&again);
            free(y);
        }
    }

    /* streaming, 7 bytes a read: the same objects when the file reads */
    int fd = memfd_create("fuzz", 0);
    if (fd >= 0 && write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        dra_objset st = DRA_OBJSET_INIT;
        st.stream_chunk = 7;
        st.stream_list_min = size % 2; /* 1: Lists item by item; 0: whole (fuzz inputs are small) */
        collected c = {json_array()};
        dra_err *se = dra_read_each(&st, path, collect, &c);
        if (!e && !se) {
            if (json_array_size(c.all) != set.n)
                abort();
            for (size_t i = 0; i < set.n; i++)
                if (!json_equal(json_array_get(c.all, i), set.v[i].json))
                    abort();
        }
        /* what streams reads whole too; the other way round only but for a
         * List handed out item by item that turns out to be flow YAML (JSON
         * with YAML in it) after items were handed out */
        if (e && !se)
            abort();
        if (!e && se && st.stream_list_min == 0)
            abort();
        dra_err_free(se);
        json_decref(c.all);
        dra_objset_free(&st);
    }
    if (fd >= 0)
        close(fd);
    kept_from_a_pipe(data, size);
    dra_err_free(e);
    dra_objset_free(&set);
    return 0;
}
