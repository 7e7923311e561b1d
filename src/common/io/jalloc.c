/* Recycling allocator for jansson; see jalloc.h. */
#include "jalloc.h"

#include <jansson.h>
#include <malloc.h>
#include <stdlib.h>

#include "base/assert.h"

#ifdef DRA_HAVE_ASAN
#define DRA_JALLOC_OFF 1
#endif

#define CLASSES (DRA_JALLOC_MAX / 16)

#ifndef DRA_JALLOC_OFF

/* Free blocks by size class: class c holds blocks of at least 16c usable
 * bytes and serves requests of up to 16c.  The allocator's one state. */
static struct {
    void *head[CLASSES + 1];
    size_t kept; /* bytes held */
    bool on;
} cache;

static void *ja_malloc(size_t n)
{
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

void dra_jalloc_uninstall(void)
{
#ifndef DRA_JALLOC_OFF
    if (!cache.on)
        return;
    json_set_alloc_funcs(malloc, free);
    for (size_t c = 0; c <= CLASSES; c++)
        while (cache.head[c]) {
            void *p = cache.head[c];
            cache.head[c] = *(void **)p;
            free(p);
        }
    cache.kept = 0;
    cache.on = false;
#endif
}
