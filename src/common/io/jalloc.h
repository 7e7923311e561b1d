/* A recycling allocator for jansson's trees.
 *
 * A JSON document read into jansson is thousands of small blocks (an
 * object, its table, each key, each string twice), all freed together when
 * the document is dropped; glibc's allocator keeps only a few freed blocks
 * of a size at hand and sends the rest through its general free path, which
 * on a stream of documents costs as much as reading them.  Installed, every
 * block jansson frees of up to DRA_JALLOC_MAX bytes is kept in a free list
 * of its size class and handed out again, up to DRA_JALLOC_KEEP bytes held.
 *
 * The blocks are ordinary malloc() blocks (the class is read back with
 * malloc_usable_size), so anything jansson returns may still be released
 * with free() (json_dumps), blocks allocated before installing are freed
 * correctly after, and installing or not changes no result.
 *
 * Process-wide by nature (jansson's json_set_alloc_funcs is): a tool's main
 * installs it once, before reading (dra_tool_start); it is left out of
 * AddressSanitizer builds, whose use-after-free and leak checks need every
 * block to go back to the sanitizer.  Not thread-safe (no tool reads JSON
 * on two threads).  Memory it holds at exit is reachable, not leaked.
 */
#ifndef DRA_IO_JALLOC_H
#define DRA_IO_JALLOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define DRA_JALLOC_MAX 256                 /* larger blocks go straight to malloc/free */
#define DRA_JALLOC_KEEP ((size_t)64 << 20) /* bytes of freed blocks kept at most */

/* Install the allocator for jansson; false when it is not (sanitizer
 * builds, or a malloc without malloc_usable_size). */
bool dra_jalloc_install(void);
/* Free the blocks held, the allocator staying installed: for a tool that
 * has just dropped many trees and goes on to allocate other things, which
 * malloc can then place where the trees were.  The arena's chunks (below)
 * stay. */
void dra_jalloc_release(void);
/* Free the blocks held and give jansson back malloc/free.  No tree built
 * in the arena (below) may still be alive. */
void dra_jalloc_uninstall(void);

/* An arena for trees that live about as long as one document, a stream's
 * document read, checked and dropped (dra-slice validate).  While a parse
 * runs in the arena (dra_jalloc_arena_set), jansson's blocks of up to
 * DRA_JALLOC_ARENA_MAX bytes are cut from DRA_JALLOC_CHUNK-byte chunks,
 * one after the other; each chunk counts its live blocks, and a chunk
 * whose blocks are all freed is used again.  A block costs a few
 * instructions to take and to give back, where malloc and free cost tens.
 *
 * Bounded: the chunks lie in one region of DRA_JALLOC_ARENA_BYTES
 * reserved at the first use; when every chunk is held (trees kept for
 * long, which pin theirs), blocks come from the recycling allocator
 * again, as before.  Arena blocks are only ever freed through jansson
 * (json_decref), never with free(): nothing jansson returns to a caller
 * (json_dumps) is made inside a parse.  A tree kept past its document
 * pins its chunk; code that keeps an object or a piece of one past its
 * document (the leaf interner, the loader's Namespaces and held claims,
 * the workloads and Nodes kept to the end) takes it through
 * dra_jalloc_keep, a heap copy.
 *
 * Off unless a tool allows it (dra_jalloc_arena_allow), and off when the
 * allocator is not installed. */
#define DRA_JALLOC_CHUNK ((size_t)64 << 10)
#define DRA_JALLOC_ARENA_MAX 1024
#define DRA_JALLOC_ARENA_BYTES ((size_t)64 << 20)
/* Let parses use the arena from now on (a tool's choice, for the rest of
 * the process). */
void dra_jalloc_arena_allow(void);
/* Whether the blocks jansson takes from now on come from the arena (only
 * when it is allowed): a parse sets true and then restores the answer,
 * the state before; code inside a parse sets false to make blocks that
 * outlive the document. */
bool dra_jalloc_arena_set(bool on);
/* Whether p is a block of the arena. */
bool dra_jalloc_in_arena(const void *p);
/* A reference to v to keep past its document: v's own (json_incref) when
 * v is not in the arena, else a copy of v on the heap, so that a kept
 * object pins no chunk.  The caller owns the reference. */
json_t *dra_jalloc_keep(json_t *v);

#endif
