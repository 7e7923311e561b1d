/* Arena allocator for per-document and per-run data.
 *
 * Allocations live until dra_arena_free() releases them all at once; there is
 * no per-object free.  An arena is a plain struct the caller owns (on the
 * stack or inside another object): `dra_arena a = DRA_ARENA_INIT;`.
 * Allocation never fails (aborts on OOM).  Memory is 16-byte aligned.
 */
#ifndef DRA_BASE_ARENA_H
#define DRA_BASE_ARENA_H

#include <stddef.h>
#include <stdarg.h>
#include "error.h"

typedef struct dra_arena_block dra_arena_block;
typedef struct dra_arena {
    dra_arena_block *head;
    size_t total; /* bytes handed out, for statistics */
} dra_arena;

#define DRA_ARENA_INIT                                                                                                 \
    {                                                                                                                  \
        0, 0                                                                                                           \
    }

void *dra_arena_alloc(dra_arena *a, size_t n);  /* uninitialised */
void *dra_arena_zalloc(dra_arena *a, size_t n); /* zeroed */
char *dra_arena_strdup(dra_arena *a, const char *s);
char *dra_arena_strndup(dra_arena *a, const char *s, size_t n);
char *dra_arena_printf(dra_arena *a, const char *fmt, ...) DRA_PRINTF(2, 3);
char *dra_arena_vprintf(dra_arena *a, const char *fmt, va_list ap);
/* Bytes of heap memory the arena holds (its blocks). */
size_t dra_arena_capacity(const dra_arena *a);
void dra_arena_free(dra_arena *a); /* releases everything; the arena is reusable after */
/* Forget every allocation but keep the memory: the blocks are coalesced into
 * one as large as everything used since the last reset, so a loop that resets
 * between iterations of the same shape (per evaluation, per document) stops
 * calling malloc after the first.  Pointers handed out before are invalid. */
void dra_arena_reset(dra_arena *a);

/* A point to come back to: dra_arena_release(a, m) frees everything
 * allocated since dra_arena_mark(a) returned m (pointers handed out since
 * are invalid, those from before stay valid).  Marks nest like a stack;
 * no reset or free may happen between a mark and its release. */
typedef struct dra_arena_mark {
    dra_arena_block *head, *next; /* the current block and the one after it */
    size_t used, total;
} dra_arena_mark;
dra_arena_mark dra_arena_mark_get(const dra_arena *a);
void dra_arena_release(dra_arena *a, dra_arena_mark m);

#endif
