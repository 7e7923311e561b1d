/* Finding the source tree's test data from a test binary. */
#ifndef DRA_TESTDATA_H
#define DRA_TESTDATA_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A data file of the source tree: $env when set, else rel from the current
 * directory (make check runs from the repository root), else rel above the
 * test binary.  Caller frees; NULL when not found. */
static inline char *unit_data_path(const char *env, const char *rel)
{
    const char *e = env ? getenv(env) : NULL;
    if (e && *e)
        return strdup(e);
    if (access(rel, R_OK) == 0)
        return strdup(rel);
    char exe[PATH_MAX], cand[2 * PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    for (char *slash = strrchr(exe, '/'); slash; slash = strrchr(exe, '/')) {
        *slash = 0;
        snprintf(cand, sizeof cand, "%s/%s", exe, rel);
        if (access(cand, R_OK) == 0)
            return strdup(cand);
    }
    return NULL;
}

/* A new temporary file (/tmp/dra-unit-XXXXXX) holding text: its path, which
 * the caller unlinks and frees; NULL when it cannot be made. */
static inline char *unit_write_temp(const char *text)
{
    char *path = strdup("/tmp/dra-unit-XXXXXX");
    int fd = path ? mkstemp(path) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        free(path);
        return NULL;
    }
    fputs(text, f);
    fclose(f);
    return path;
}

#endif
