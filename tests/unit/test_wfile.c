/* base/wfile: files created and replaced atomically, never through a
 * symbolic link planted at the target or at a temporary name. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/path.h"
#include "base/wfile.h"
#include "unit.h"

static char *scratch_dir(void)
{
    char *d = dra_xstrdup("/tmp/dra-wfile-XXXXXX");
    if (!mkdtemp(d))
        abort();
    return d;
}

static char *slurp(const char *path)
{
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_path(&b, path, 0);
    if (e) {
        dra_err_free(e);
        dra_buf_free(&b);
        return NULL;
    }
    dra_buf_putc(&b, 0);
    return dra_buf_detach(&b);
}

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    close(fd);
}

/* Entries of `dir` other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static void clean(char *dir)
{
    char *cmd = dra_xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        abort();
    free(cmd);
    free(dir);
}

UNIT_TEST(wfile_creates_and_replaces_with_the_mode_asked)
{
    char *dir = scratch_dir();
    char *p = dra_xasprintf("%s/f", dir);
    CHECK(dra_wfile_replace(p, "one\n", 4, 0600, DRA_WFILE_SYNC | DRA_WFILE_EXACT_MODE) == NULL);
    char *s = slurp(p);
    CHECK_STR(s, "one\n");
    free(s);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
    CHECK(dra_wfile_replace(p, "two", 3, 0640, DRA_WFILE_EXACT_MODE) == NULL);
    s = slurp(p);
    CHECK_STR(s, "two");
    free(s);
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0640);
    CHECK_INT(entries(dir), 1); /* no temporary file left */
    /* a name without a directory is in the working directory */
    char *cwd = getcwd(NULL, 0);
    CHECK(chdir(dir) == 0);
    CHECK(dra_wfile_replace("rel", "r", 1, 0644, 0) == NULL);
    CHECK(chdir(cwd) == 0);
    free(cwd);
    char *rel = dra_xasprintf("%s/rel", dir);
    s = slurp(rel);
    CHECK_STR(s, "r");
    free(s);
    free(rel);
    free(p);
    clean(dir);
}

/* A symbolic link at the target is replaced; the file it points to keeps
 * its bytes and mode (before, a checkpoint's "<path>.tmp" link made the
 * writer truncate and chmod its target). */
UNIT_TEST(wfile_never_writes_through_a_symlink)
{
    char *dir = scratch_dir();
    char *victim = dra_xasprintf("%s/victim", dir), *p = dra_xasprintf("%s/state", dir);
    put(victim, "precious");
    chmod(victim, 0644);
    CHECK(symlink(victim, p) == 0);
    CHECK(dra_wfile_replace(p, "new", 3, 0600, DRA_WFILE_SYNC | DRA_WFILE_EXACT_MODE) == NULL);
    struct stat st;
    CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode));
    char *s = slurp(victim);
    CHECK_STR(s, "precious");
    free(s);
    CHECK(stat(victim, &st) == 0 && (st.st_mode & 07777) == 0644);
    s = slurp(p);
    CHECK_STR(s, "new");
    free(s);
    /* a dangling link at the target is replaced too, its target not created */
    char *gone = dra_xasprintf("%s/gone", dir), *q = dra_xasprintf("%s/q", dir);
    CHECK(symlink(gone, q) == 0);
    CHECK(dra_wfile_replace(q, "q", 1, 0644, 0) == NULL);
    CHECK(access(gone, F_OK) != 0);
    free(gone);
    free(q);
    free(victim);
    free(p);
    clean(dir);
}

UNIT_TEST(wfile_abort_leaves_the_target_as_it_was)
{
    char *dir = scratch_dir();
    char *p = dra_xasprintf("%s/rec", dir);
    put(p, "old");
    dra_wfile w;
    CHECK(dra_wfile_begin(&w, p, 0644, 0) == NULL);
    CHECK(w.tmp && strncmp(w.tmp, dir, strlen(dir)) == 0 && strstr(w.tmp, "/.rec."));
    CHECK(dra_wfile_write(&w, "partial", 7) == NULL);
    CHECK_INT(entries(dir), 2);
    dra_wfile_abort(&w);
    dra_wfile_abort(&w); /* ended: nothing to do */
    CHECK_INT(entries(dir), 1);
    char *s = slurp(p);
    CHECK_STR(s, "old");
    free(s);
    /* the umask narrows the mode unless it is exact */
    mode_t old = umask(077);
    CHECK(dra_wfile_replace(p, "x", 1, 0644, 0) == NULL);
    umask(old);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
    free(p);
    clean(dir);
}

UNIT_TEST(wfile_refuses_what_is_not_a_regular_file)
{
    char *dir = scratch_dir();
    char *sub = dra_xasprintf("%s/sub", dir), *fifo = dra_xasprintf("%s/fifo", dir);
    CHECK(mkdir(sub, 0755) == 0);
    CHECK(mkfifo(fifo, 0644) == 0);
    dra_err *e = dra_wfile_replace(sub, "x", 1, 0644, 0);
    CHECK(e && e->code == DRA_EXIT_RUNTIME && strstr(e->msg, "is a directory, not a regular file"));
    dra_err_free(e);
    e = dra_wfile_replace(fifo, "x", 1, 0644, 0);
    CHECK(e && strstr(e->msg, "is a special file, not a regular file") && strstr(e->msg, fifo));
    dra_err_free(e);
    e = dra_wfile_replace("/dev/null", "x", 1, 0644, 0);
    CHECK(e && strstr(e->msg, "cannot replace /dev/null"));
    dra_err_free(e);
    char *slash = dra_xasprintf("%s/", dir);
    e = dra_wfile_replace(slash, "x", 1, 0644, 0);
    CHECK(e && strstr(e->msg, "not a file name"));
    dra_err_free(e);
    free(slash);
    /* a missing directory: the error names the target and the reason */
    char *missing = dra_xasprintf("%s/none/f", dir);
    e = dra_wfile_replace(missing, "x", 1, 0644, 0);
    CHECK(e && e->code == DRA_EXIT_RUNTIME && strstr(e->msg, missing) && strstr(e->msg, "No such file or directory"));
    dra_err_free(e);
    free(missing);
    CHECK_INT(entries(dir), 2);
    free(sub);
    free(fifo);
    clean(dir);
}

UNIT_TEST(wfile_stream_writes_in_place_and_replaces_a_link)
{
    char *dir = scratch_dir();
    char *p = dra_xasprintf("%s/rec", dir), *victim = dra_xasprintf("%s/victim", dir);
    put(victim, "precious");
    CHECK(symlink(victim, p) == 0);
    dra_wfile w;
    CHECK(dra_wfile_begin(&w, p, 0644, DRA_WFILE_STREAM) == NULL);
    CHECK(w.tmp == NULL);
    CHECK(dra_wfile_write(&w, "one\n", 4) == NULL);
    /* readable under its own name while it is written */
    char *s = slurp(p);
    CHECK_STR(s, "one\n");
    free(s);
    struct stat st;
    CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode));
    s = slurp(victim);
    CHECK_STR(s, "precious");
    free(s);
    /* abort keeps what was written; no temporary file was made */
    dra_wfile_abort(&w);
    s = slurp(p);
    CHECK_STR(s, "one\n");
    free(s);
    CHECK_INT(entries(dir), 2);
    /* begun again: truncated */
    CHECK(dra_wfile_begin(&w, p, 0644, DRA_WFILE_STREAM) == NULL);
    CHECK(dra_wfile_commit(&w) == NULL);
    CHECK(stat(p, &st) == 0 && st.st_size == 0);
    dra_err *e = dra_wfile_begin(&w, dir, 0644, DRA_WFILE_STREAM);
    CHECK(e && strstr(e->msg, "is a directory, not a regular file"));
    dra_err_free(e);
    free(p);
    free(victim);
    clean(dir);
}

UNIT_TEST(path_dir_and_base)
{
    const char *cases[][3] = {
        {"a/b/c", "a/b", "c"}, {"/x", "/", "x"}, {"x", ".", "x"}, {"a/", "a", ""}, {"/", "/", ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *d = dra_path_dir(cases[i][0]);
        CHECK_STR(d, cases[i][1]);
        CHECK_STR(dra_path_base(cases[i][0]), cases[i][2]);
        free(d);
    }
}

UNIT_MAIN()
