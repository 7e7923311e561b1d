/* Recycling allocator for jansson; see jalloc.h. */
#include "jalloc.h"

#include <jansson.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base/assert.h"

#ifdef DRA_HAVE_ASAN
#define DRA_JALLOC_OFF 1
#endif

#define CLASSES (DRA_JALLOC_MAX / 16)

/* An arena chunk: this header, then blocks cut one after the other. */
typedef struct chunk {
    size_t live;        /* blocks not yet freed */
    struct chunk *next; /* in the list of free chunks */
} chunk;
_Static_assert(sizeof(chunk) % 16 == 0, "blocks after the header are aligned as malloc's");

/* The arena (jalloc.h): a region of chunks, the chunk blocks are cut from
 * and how much of it is cut, the chunks free for use again. */
static struct {
    bool allowed, on;
    char *lo;         /* the region, DRA_JALLOC_ARENA_BYTES; NULL until used */
    size_t made;      /* bytes of the region made into chunks */
    chunk *cur;       /* NULL: none yet */
    size_t off;       /* bytes of cur used, its header included (all of them: no cur) */
    chunk *free_list; /* chunks whose blocks were all freed */
    bool failed;      /* the region could not be reserved */
} arena = {.off = DRA_JALLOC_CHUNK};

static inline bool in_arena(const void *p)
{
    return (uintptr_t)p - (uintptr_t)arena.lo < arena.made;
}

#ifndef DRA_JALLOC_OFF

/* Free blocks by size class: class c holds blocks of at least 16c usable
 * bytes and serves requests of up to 16c.  The allocator's one state. */
static struct {
    void *head[CLASSES + 1];
    size_t kept; /* bytes held */
    bool on;
} cache;

/* A chunk to cut blocks from, cur being full: a free one, else a new one
 * from the region; NULL when the region is used up (or could not be had). */
static chunk *arena_chunk(void)
{
    chunk *c = arena.free_list;
    if (c) {
        arena.free_list = c->next;
        return c;
    }
    if (!arena.lo && !arena.failed) {
        void *r = mmap(NULL, DRA_JALLOC_ARENA_BYTES + DRA_JALLOC_CHUNK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (r == MAP_FAILED) {
            arena.failed = true;
            return NULL;
        }
        /* chunks aligned to their size, so a block finds its chunk */
        uintptr_t a = ((uintptr_t)r + DRA_JALLOC_CHUNK - 1) & ~(uintptr_t)(DRA_JALLOC_CHUNK - 1);
        arena.lo = (char *)a;
    }
    if (!arena.lo || arena.made == DRA_JALLOC_ARENA_BYTES)
        return NULL;
    c = (chunk *)(arena.lo + arena.made);
    arena.made += DRA_JALLOC_CHUNK;
    return c;
}

/* A block of size bytes (a multiple of 16) from a new chunk, cur being
 * full; NULL: none. */
static __attribute__((noinline)) void *arena_refill(size_t size)
{
    if (size > DRA_JALLOC_ARENA_MAX)
        return NULL;
    chunk *c = arena_chunk();
    if (!c)
        return NULL;
    /* the chunk left behind goes to the free list with its last block (ja_free) */
    arena.cur = c;
    c->live = 1;
    arena.off = sizeof(chunk) + size;
    return (char *)c + sizeof(chunk);
}

static void *ja_malloc(size_t n)
{
    if (arena.on) {
        size_t size = n ? (n + 15) & ~(size_t)15 : 16;
        if (arena.off + size <= DRA_JALLOC_CHUNK && size <= DRA_JALLOC_ARENA_MAX) {
            void *p = (char *)arena.cur + arena.off;
            arena.off += size;
            arena.cur->live++;
            return p;
        }
        void *p = arena_refill(size);
        if (p)
            return p;
    }
    size_t c = n ? (n + 15) >> 4 : 1;
    if (c > CLASSES)
        return malloc(n);
    void *p = cache.head[c];
    if (p) {
        DRA_ASSERT(malloc_usable_size(p) >= c << 4); /* a class holds blocks of at least its size */
        cache.head[c] = *(void **)p;
        cache.kept -= c << 4;
        return p;
    }
    return malloc(c << 4);
}

static void ja_free(void *p)
{
    if (!p)
        return;
    if (in_arena(p)) {
        chunk *k = (chunk *)((uintptr_t)p & ~(uintptr_t)(DRA_JALLOC_CHUNK - 1));
        DRA_ASSERT(k->live > 0);
        if (--k->live > 0)
            return;
        if (k == arena.cur) { /* cut again from its start */
            arena.off = sizeof(chunk);
        } else {
            k->next = arena.free_list;
            arena.free_list = k;
        }
        return;
    }
    size_t c = malloc_usable_size(p) >> 4;
    if (c == 0 || c > CLASSES || cache.kept + (c << 4) > DRA_JALLOC_KEEP) {
        free(p);
        return;
    }
    *(void **)p = cache.head[c];
    cache.head[c] = p;
    cache.kept += c << 4;
}

#endif

bool dra_jalloc_install(void)
{
#ifdef DRA_JALLOC_OFF
    return false;
#else
    if (!cache.on) {
        json_set_alloc_funcs(ja_malloc, ja_free);
        cache.on = true;
    }
    return true;
#endif
}

void dra_jalloc_arena_allow(void)
{
#ifndef DRA_JALLOC_OFF
    arena.allowed = true;
#endif
}

bool dra_jalloc_arena_set(bool on)
{
    bool was = arena.on;
#ifdef DRA_JALLOC_OFF
    arena.on = on && arena.allowed; /* never allowed here */
#else
    arena.on = on && arena.allowed && cache.on;
#endif
    return was;
}

bool dra_jalloc_in_arena(const void *p)
{
    return in_arena(p);
}

json_t *dra_jalloc_keep(json_t *v)
{
    if (!in_arena(v))
        return json_incref(v);
    bool was = dra_jalloc_arena_set(false);
    json_t *copy = json_deep_copy(v);
    dra_jalloc_arena_set(was);
    return copy ? copy : json_incref(v); /* no memory for a copy: v itself, pinning its chunk */
}

void dra_jalloc_release(void)
{
#ifndef DRA_JALLOC_OFF
    for (size_t c = 0; c <= CLASSES; c++)
        while (cache.head[c]) {
            void *p = cache.head[c];
            cache.head[c] = *(void **)p;
            free(p);
        }
    cache.kept = 0;
#endif
}

void dra_jalloc_uninstall(void)
{
#ifndef DRA_JALLOC_OFF
    if (!cache.on)
        return;
    arena.on = false; /* its chunks stay: no tree of them is alive (jalloc.h) */
    json_set_alloc_funcs(malloc, free);
    dra_jalloc_release();
    cache.on = false;
#endif
}
