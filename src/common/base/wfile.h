/* Creating or replacing a file safely and atomically.
 *
 * Every file a tool writes goes through here: checkpoints, CDI spec files,
 * watch recordings.  The new content is written to a fresh
 * temporary file in the same directory ("<dir>/.<name>.<random>", created
 * with O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted at that name, a symbolic
 * link least of all, is ever opened), then renamed over the target.  Readers
 * see the old file or the whole new one, never a part; a symbolic link at the
 * target is replaced by the file, its own target is never written.  The
 * kubelet writes its checkpoints the same way (pkg/kubelet/util/store/
 * filestore.go writeFile: a "."-prefixed temporary file in the directory,
 * written, fsynced, closed, renamed), and so does the CDI library for spec
 * files (tags.cncf.io/container-device-interface pkg/cdi/spec.go write:
 * os.CreateTemp in the spec directory, then a rename).
 *
 * A target that exists and is neither a regular file nor a symbolic link
 * (a directory, a device, a FIFO, a socket) is refused: renaming over
 * /dev/null would replace the device node.
 *
 *   dra_wfile w;
 *   e = dra_wfile_begin(&w, path, 0644, 0);
 *   while (!e && more) e = dra_wfile_write(&w, p, n);
 *   e = e ? (dra_wfile_abort(&w), e) : dra_wfile_commit(&w);
 *
 * Errors are DRA_EXIT_RUNTIME and name the target file.  After a failed
 * begin there is nothing to abort; commit and abort always end `w` (the
 * temporary file is removed unless it became the target).
 *
 * Ownership: a dra_wfile owns its copies of the names and the open file
 * descriptor until commit or abort.  No global state; thread-compatible.
 */
#ifndef DRA_BASE_WFILE_H
#define DRA_BASE_WFILE_H

#include <stddef.h>

#include "error.h"

enum {
    /* fsync the file before the rename and its directory after it: the new
     * content survives a crash once commit returns */
    DRA_WFILE_SYNC = 1,
    /* the file gets exactly `mode`, whatever the umask (else the umask
     * narrows it, as for open(2)) */
    DRA_WFILE_EXACT_MODE = 2,
    /* write the target itself as the content comes (a recording someone
     * follows with tail -f, kept up to where a crash stopped it): created
     * or truncated by begin, never through a symbolic link (a link at the
     * name is removed and a new file made in its place, O_EXCL|O_NOFOLLOW),
     * only a regular file; commit and abort both keep what was written */
    DRA_WFILE_STREAM = 4,
};

typedef struct dra_wfile {
    int fd;         /* the temporary file, open for writing; -1 once ended */
    char *path;     /* the target */
    char *tmp;      /* the temporary file's name, in the target's directory (NULL when streaming) */
    unsigned flags; /* DRA_WFILE_* */
} dra_wfile;

DRA_MUST_USE dra_err *dra_wfile_begin(dra_wfile *w, const char *path, unsigned mode, unsigned flags);
DRA_MUST_USE dra_err *dra_wfile_write(dra_wfile *w, const void *data, size_t len);
/* Renames the temporary file over the target. */
DRA_MUST_USE dra_err *dra_wfile_commit(dra_wfile *w);
/* Removes the temporary file; the target is left as it was.  An ended
 * dra_wfile is fine. */
void dra_wfile_abort(dra_wfile *w);

/* The whole cycle for content in memory. */
DRA_MUST_USE dra_err *dra_wfile_replace(const char *path, const void *data, size_t len, unsigned mode, unsigned flags);

#endif
