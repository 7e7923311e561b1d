/* Growable byte buffer.
 *
 * Invariant: after any append, `data` is NUL-terminated (so it can be used as a
 * C string) yet binary-safe (`len` counts the bytes).  Start with
 * `dra_buf b = DRA_BUF_INIT;`, release with dra_buf_free(), or take ownership
 * of the bytes with dra_buf_detach() (caller frees).  Never fails (aborts on OOM).
 */
#ifndef DRA_BASE_BUF_H
#define DRA_BASE_BUF_H

#include <stddef.h>
#include <stdarg.h>
#include "error.h"

typedef struct dra_buf {
    char *data; /* NULL until the first append */
    size_t len, cap;
} dra_buf;

#define DRA_BUF_INIT                                                                                                   \
    {                                                                                                                  \
        0, 0, 0                                                                                                        \
    }

void dra_buf_grow(dra_buf *b, size_t extra);
void dra_buf_append(dra_buf *b, const void *p, size_t n);
void dra_buf_puts(dra_buf *b, const char *s);
void dra_buf_putc(dra_buf *b, char c);
void dra_buf_printf(dra_buf *b, const char *fmt, ...) DRA_PRINTF(2, 3);
void dra_buf_vprintf(dra_buf *b, const char *fmt, va_list ap);
void dra_buf_reset(dra_buf *b);            /* len = 0, keeps memory */
const char *dra_buf_str(const dra_buf *b); /* "" when empty, never NULL */
char *dra_buf_detach(dra_buf *b);          /* caller frees; buffer becomes empty */
void dra_buf_free(dra_buf *b);

/* Read a whole stream/file.  limit = 0 means no limit; over the limit is an
 * input error naming `name`. */
DRA_MUST_USE dra_err *dra_buf_read_fd(dra_buf *b, int fd, const char *name, size_t limit);
DRA_MUST_USE dra_err *dra_buf_read_path(dra_buf *b, const char *path, size_t limit); /* "-" = stdin */

#endif
