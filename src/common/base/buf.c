#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void dra_buf_grow(dra_buf *b, size_t extra)
{
    if (b->cap - b->len > extra)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len <= extra) {
        if (cap > ((size_t)-1) / 2) {
            cap = b->len + extra + 1;
            break;
        }
        cap *= 2;
    }
    b->data = dra_xrealloc(b->data, cap);
    b->cap = cap;
}

void dra_buf_append(dra_buf *b, const void *p, size_t n)
{
    dra_buf_grow(b, n);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void dra_buf_puts(dra_buf *b, const char *s)
{
    dra_buf_append(b, s, strlen(s));
}

void dra_buf_putc(dra_buf *b, char c)
{
    dra_buf_append(b, &c, 1);
}

void dra_buf_vprintf(dra_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0) {
        dra_buf_grow(b, 0);
        b->data[b->len] = '\0';
        return;
    }
    dra_buf_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void dra_buf_printf(dra_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dra_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void dra_buf_reset(dra_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

const char *dra_buf_str(const dra_buf *b)
{
    return b->data ? b->data : "";
}

char *dra_buf_detach(dra_buf *b)
{
    char *p = b->data ? b->data : dra_xstrdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}

void dra_buf_free(dra_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

dra_err *dra_buf_read_fd(dra_buf *b, int fd, const char *name, size_t limit)
{
    /* A regular file's size is known: one buffer of that size, no doubling
     * (a 27 MB file once took a 32 MiB buffer, after copies of the smaller ones). */
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (!limit || (uint64_t)st.st_size <= (uint64_t)limit) && b->cap - b->len < (size_t)st.st_size + 2) {
        b->cap = b->len + (size_t)st.st_size + 2; /* the text, its NUL, and a byte to see the end */
        b->data = dra_xrealloc(b->data, b->cap);
    }
    for (;;) {
        if (b->cap - b->len < 2)
            dra_buf_grow(b, 65536);
        ssize_t n = read(fd, b->data + b->len, b->cap - b->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return dra_err_new(DRA_EXIT_INPUT, "%s: read error: %s", name, strerror(errno));
        }
        if (n == 0)
            break;
        b->len += (size_t)n;
        b->data[b->len] = '\0';
        if (limit && b->len > limit)
            return dra_err_new(DRA_EXIT_INPUT, "%s: input larger than the limit of %zu bytes", name, limit);
    }
    dra_buf_grow(b, 0);
    b->data[b->len] = '\0';
    return NULL;
}

dra_err *dra_buf_read_path(dra_buf *b, const char *path, size_t limit)
{
    if (strcmp(path, "-") == 0)
        return dra_buf_read_fd(b, 0, "<stdin>", limit);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return dra_err_new(DRA_EXIT_INPUT, "%s: %s", *path ? path : "'' (empty file name)", strerror(errno));
    dra_err *e = dra_buf_read_fd(b, fd, path, limit);
    close(fd);
    return e;
}
