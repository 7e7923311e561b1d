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

#include <stdbool.h>
#include <stddef.h>

#define DRA_JALLOC_MAX 256                 /* larger blocks go straight to malloc/free */
#define DRA_JALLOC_KEEP ((size_t)64 << 20) /* bytes of freed blocks kept at most */

/* Install the allocator for jansson; false when it is not (sanitizer
 * builds, or a malloc without malloc_usable_size). */
bool dra_jalloc_install(void);
/* Free the blocks held and give jansson back malloc/free. */
void dra_jalloc_uninstall(void);

#endif
