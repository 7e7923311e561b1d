/* The compact records' container: arena, interned strings.  See compact.h. */
#include "compact.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/error.h"

const char *dra_compact_str(dra_compact *cp, const char *s)
{
    return dra_strmap_intern(&cp->strings, &cp->arena, s);
}

/* dra_compact_own's room: taken from the arena this many bytes at a time */
enum { OWN_CHUNK = 4096 };

const char *dra_compact_own(dra_compact *cp, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    if (n > OWN_CHUNK / 16) /* a long one alone, the room kept for the next */
        return dra_arena_strdup(&cp->arena, s);
    if (n > cp->nchars) {
        cp->chars = dra_arena_alloc(&cp->arena, OWN_CHUNK);
        cp->nchars = OWN_CHUNK;
    }
    char *p = cp->chars;
    memcpy(p, s, n);
    cp->chars += n;
    cp->nchars -= n;
    return p;
}

/* Out of memory: no answer can be right any more (as base/error.c's
 * allocators do). */
static void fail(const char *what)
{
    fprintf(stderr, "dra-tools: %s\n", what);
    abort();
}

void dra_compact_keep_whole(dra_compact *cp)
{
    if (!cp->keep_whole) {
        cp->spill = tmpfile(); /* NULL: the texts stay in memory */
        cp->failure = dra_xcalloc(1, sizeof *cp->failure);
    }
    cp->keep_whole = true;
}

/* The first failure to read a text back is kept for dra_compact_failure. */
static void failed(const dra_compact *cp, dra_err *e)
{
    if (*cp->failure)
        dra_err_free(e);
    else
        *cp->failure = e;
}

dra_err *dra_compact_failure(const dra_compact *cp)
{
    dra_err *e = cp->failure ? *cp->failure : NULL;
    if (e)
        *cp->failure = NULL;
    return e;
}

/* All of len bytes at offset at of fd: buf written there (put), or read
 * from there into buf.  False with errno set (0: the file ended). */
static bool transfer(int fd, char *buf, size_t len, uint64_t at, bool put)
{
    while (len) {
        errno = 0;
        ssize_t n = put ? pwrite(fd, buf, len, (off_t)at) : pread(fd, buf, len, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
        at += (uint64_t)n;
    }
    return true;
}

dra_rec_whole *dra_compact_store(dra_compact *cp, const json_t *obj)
{
    if (!cp->keep_whole)
        return NULL;
    dra_rec_whole *w = dra_arena_zalloc(&cp->arena, sizeof *w);
    /* exact again when read back: 17 digits of a real, NULs escaped */
    char *text = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
    size_t len = text ? strlen(text) : 0;
    if (!text || len > INT32_MAX) /* out of memory (the readers' strings are UTF-8), or len's 31 bits */
        fail("cannot keep an object's text");
    if (cp->spill && transfer(fileno(cp->spill), text, len, cp->spilled, true)) {
        w->at = cp->spilled;
        cp->spilled += len;
    } else {
        char *copy = dra_arena_alloc(&cp->arena, len);
        memcpy(copy, text, len);
        w->at = (uint64_t)(uintptr_t)copy;
        w->in_arena = 1;
    }
    w->len = (uint32_t)len & INT32_MAX;
    free(text);
    return w;
}

/* The origin of file and served (both interned in cp): the latest ones
 * first, which records read one after another share. */
static const dra_rec_origin *origin(dra_compact *cp, const char *file, const char *served)
{
    for (size_t i = cp->norigins; i-- > 0;)
        if (cp->origins[i]->file == file && cp->origins[i]->served == served)
            return cp->origins[i];
    dra_rec_origin *r = dra_arena_alloc(&cp->arena, sizeof *r);
    *r = (dra_rec_origin){file, served};
    cp->origins = dra_xgrow(cp->origins, cp->norigins, sizeof *cp->origins);
    cp->origins[cp->norigins++] = r;
    return r;
}

void dra_compact_place(dra_compact *cp, dra_rec_whole *w, const dra_obj *o, const char *served)
{
    if (!w)
        return;
    /* the set that read it may go first */
    w->from = origin(cp, dra_compact_str(cp, o->file), dra_compact_str(cp, served));
    w->doc = o->doc;
    w->line = o->line;
    w->item = o->item;
}

bool dra_compact_whole(const dra_compact *cp, const dra_rec_whole *w, dra_obj *o)
{
    memset(o, 0, sizeof *o);
    if (!w)
        return false;
    o->file = w->from ? w->from->file : NULL;
    o->doc = w->doc;
    o->line = w->line;
    o->item = w->item;
    const char *text = (const char *)(uintptr_t)w->at;
    char *buf = NULL;
    if (!w->in_arena) {
        buf = dra_xmalloc(w->len);
        if (!transfer(fileno(cp->spill), buf, w->len, w->at, false)) {
            failed(cp, dra_err_new(DRA_EXIT_RUNTIME, "cannot read back an object kept in a temporary file: %s",
                                   errno ? strerror(errno) : "the file is shorter than written"));
            free(buf);
            return false;
        }
        text = buf;
    }
    json_error_t je;
    o->json = json_loadb(text, w->len, JSON_ALLOW_NUL, &je);
    free(buf);
    if (!o->json) {
        failed(cp, dra_err_new(DRA_EXIT_RUNTIME, "cannot read back an object kept in a temporary file: %s", je.text));
        return false;
    }
    return true;
}

size_t dra_compact_bytes(const dra_compact *cp)
{
    return dra_arena_capacity(&cp->arena) + cp->strings.cap * sizeof *cp->strings.e +
           (cp->capclaims + cp->cappods) * sizeof(void *);
}

void dra_compact_free(dra_compact *cp)
{
    for (size_t i = 0; i < cp->nowned; i++)
        json_decref(cp->owned[i]);
    free(cp->owned);
    free(cp->origins);
    free(cp->claims);
    free(cp->pods);
    if (cp->spill)
        fclose(cp->spill);
    if (cp->failure)
        dra_err_free(*cp->failure);
    free(cp->failure);
    dra_strmap_free(&cp->strings);
    dra_arena_free(&cp->arena);
    memset(cp, 0, sizeof *cp);
}
