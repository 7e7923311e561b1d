/* Creating or replacing a file safely and atomically (see wfile.h). */
#include "base/wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/path.h"

/* The longest part of the target's name kept in the temporary name, so the
 * temporary name stays within NAME_MAX (255). */
#define KEEP_NAME 200
#define TRIES 64

static dra_err *sys_err(const char *what, const char *path, int err)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "%s %s: %s", what, path, strerror(err));
}

/* Ten characters of [A-Za-z0-9], from getrandom(2) or, where it has nothing
 * to give, the clock and the attempt. */
static void suffix(char *out, unsigned attempt)
{
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (uint64_t)dra_mono_ns() * 0x9E3779B97F4A7C15ull ^ ((uint64_t)getpid() << 32) ^ attempt;
    for (int i = 0; i < 10; i++) {
        out[i] = chars[r % 62];
        r /= 62;
    }
    out[10] = 0;
}

/* DRA_WFILE_STREAM: the target opened for writing in place, a link at its
 * name replaced by a new file rather than followed. */
static dra_err *begin_stream(dra_wfile *w, const char *path, unsigned mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, (mode_t)mode & 07777);
    if (fd < 0 && errno == ELOOP) {
        /* a link: removed, and a file made where it was; a link planted
         * again in between makes O_EXCL fail, never a write through it */
        if (unlink(path) != 0)
            return sys_err("replacing the symbolic link", path, errno);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, (mode_t)mode & 07777);
    }
    if (fd < 0)
        return sys_err("cannot write", path, errno);
    w->fd = fd;
    w->path = dra_xstrdup(path);
    return NULL;
}

dra_err *dra_wfile_begin(dra_wfile *w, const char *path, unsigned mode, unsigned flags)
{
    *w = (dra_wfile){-1, NULL, NULL, flags};
    const char *name = dra_path_base(path);
    char *dir = dra_path_dir(path);
    dra_err *e = NULL;
    struct stat st;
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "cannot write %s: not a file name", path);
    } else if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "cannot replace %s: it is %s, not a regular file", path,
                        S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    }
    if (e || (flags & DRA_WFILE_STREAM)) {
        free(dir);
        return e ? e : begin_stream(w, path, mode);
    }
    char sfx[11];
    int fd = -1, err = 0;
    char *tmp = NULL;
    for (unsigned i = 0; i < TRIES && fd < 0; i++) {
        suffix(sfx, i);
        free(tmp);
        tmp = strcmp(dir, ".") == 0 && name == path
                  ? dra_xasprintf(".%.*s.%s", KEEP_NAME, name, sfx)
                  : dra_xasprintf("%s%s.%.*s.%s", dir, strcmp(dir, "/") == 0 ? "" : "/", KEEP_NAME, name, sfx);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, (mode_t)mode & 07777);
        err = errno;
        if (fd < 0 && err != EEXIST)
            break;
    }
    if (fd < 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "cannot create a temporary file in %s for %s: %s", dir, path, strerror(err));
        free(tmp);
        free(dir);
        return e;
    }
    free(dir);
    if ((flags & DRA_WFILE_EXACT_MODE) && fchmod(fd, (mode_t)mode & 07777) != 0) {
        e = sys_err("setting the mode of", path, errno);
        close(fd);
        unlink(tmp);
        free(tmp);
        return e;
    }
    w->fd = fd;
    w->tmp = tmp;
    w->path = dra_xstrdup(path);
    return NULL;
}

dra_err *dra_wfile_write(dra_wfile *w, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return sys_err("writing", w->path, n < 0 ? errno : EIO);
        p += n;
        len -= (size_t)n;
    }
    return NULL;
}

static void end(dra_wfile *w, bool remove_tmp)
{
    if (w->fd >= 0)
        close(w->fd);
    if (remove_tmp && w->tmp)
        unlink(w->tmp);
    free(w->tmp);
    free(w->path);
    *w = (dra_wfile){-1, NULL, NULL, 0};
}

dra_err *dra_wfile_commit(dra_wfile *w)
{
    dra_err *e = NULL;
    if ((w->flags & DRA_WFILE_SYNC) && fsync(w->fd) != 0)
        e = sys_err("syncing", w->path, errno);
    int fd = w->fd;
    w->fd = -1;
    if (close(fd) != 0 && !e)
        e = sys_err("closing", w->path, errno);
    if (!e && w->tmp && rename(w->tmp, w->path) != 0)
        e = sys_err("replacing", w->path, errno);
    if (e) {
        end(w, true);
        return e;
    }
    if ((w->flags & DRA_WFILE_SYNC) && w->tmp) {
        char *dir = dra_path_dir(w->path);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || fsync(dfd) != 0)
            e = sys_err("syncing directory", dir, errno);
        if (dfd >= 0)
            close(dfd);
        free(dir);
    }
    end(w, false);
    return e;
}

void dra_wfile_abort(dra_wfile *w)
{
    end(w, true);
}

dra_err *dra_wfile_replace(const char *path, const void *data, size_t len, unsigned mode, unsigned flags)
{
    dra_wfile w;
    dra_err *e = dra_wfile_begin(&w, path, mode, flags);
    if (e)
        return e;
    e = dra_wfile_write(&w, data, len);
    if (e) {
        dra_wfile_abort(&w);
        return e;
    }
    return dra_wfile_commit(&w);
}
