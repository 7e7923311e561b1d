#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dra_arena_block {
    dra_arena_block *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void *dra_arena_alloc(dra_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    dra_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        if (b && b->size > ARENA_BLOCK && n <= ARENA_BLOCK / 4)
            size = ARENA_BLOCK; /* after a coalescing reset, grow by standard blocks again */
        if (size > SIZE_MAX - sizeof *b) {
            fputs("dra-tools: out of memory\n", stderr);
            abort();
        }
        dra_arena_block *nb = dra_xmalloc(sizeof *nb + size);
        nb->used = 0;
        nb->size = size;
        if (b && size != ARENA_BLOCK) {
            /* big one-off allocation: keep filling the current block */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    return p;
}

void *dra_arena_zalloc(dra_arena *a, size_t n)
{
    void *p = dra_arena_alloc(a, n);
    memset(p, 0, n);
    return p;
}

char *dra_arena_strndup(dra_arena *a, const char *s, size_t n)
{
    char *p = dra_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *dra_arena_strdup(dra_arena *a, const char *s)
{
    return dra_arena_strndup(a, s, strlen(s));
}

char *dra_arena_vprintf(dra_arena *a, const char *fmt, va_list ap)
{
    /* one formatting pass for the usual short text (as dra_xvasprintf) */
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        n = 0;
        small[0] = '\0';
    }
    char *p = dra_arena_alloc(a, (size_t)n + 1);
    if ((size_t)n < sizeof small)
        memcpy(p, small, (size_t)n + 1);
    else
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *dra_arena_printf(dra_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = dra_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

size_t dra_arena_capacity(const dra_arena *a)
{
    size_t total = 0;
    for (const dra_arena_block *b = a->head; b; b = b->next)
        total += b->size;
    return total;
}

void dra_arena_free(dra_arena *a)
{
    dra_arena_block *b = a->head;
    while (b) {
        dra_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}

void dra_arena_reset(dra_arena *a)
{
    size_t used = 0, blocks = 0;
    for (dra_arena_block *b = a->head; b; b = b->next) {
        used += b->size;
        blocks++;
    }
    if (blocks <= 1) {
        if (a->head)
            a->head->used = 0;
        a->total = 0;
        return;
    }
    /* Coalesce into one block as large as the last round needed, so the next
     * round of the same shape allocates nothing. */
    dra_arena_free(a);
    size_t size = used < ARENA_BLOCK ? ARENA_BLOCK : used;
    dra_arena_block *nb = dra_xmalloc(sizeof *nb + size);
    nb->next = NULL;
    nb->used = 0;
    nb->size = size;
    a->head = nb;
}

dra_arena_mark dra_arena_mark_get(const dra_arena *a)
{
    dra_arena_mark m = {a->head, a->head ? a->head->next : NULL, a->head ? a->head->used : 0, a->total};
    return m;
}

/* Blocks come in two ways (dra_arena_alloc): a new current block goes in
 * front, a large one-off goes right after the current one.  So what came
 * since the mark is in front of the marked block, and between it and the
 * block that followed it then. */
void dra_arena_release(dra_arena *a, dra_arena_mark m)
{
    dra_arena_block *b = a->head;
    while (b && b != m.head) {
        dra_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = b;
    if (b) {
        dra_arena_block *x = b->next;
        while (x && x != m.next) {
            dra_arena_block *next = x->next;
            free(x);
            x = next;
        }
        b->next = m.next;
        b->used = m.used;
    }
    a->total = m.total;
}
