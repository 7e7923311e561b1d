/* Fuzz the release readers (model/features.c): any bytes as the head of a
 * snapshot file (dra_snapshot_git_version), its gitVersion, and the bytes
 * themselves as a --kubernetes-version value (dra_release_parse); a release
 * read must be a known one whose gate table applies and prints.  Nothing
 * may crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "model/features.h"

static void release_of(const char *s)
{
    dra_release r = 0;
    dra_err *e = dra_release_parse(s, &r);
    if (!e) {
        if (r < DRA_RELEASE_OLDEST || r > DRA_RELEASE_NEWEST)
            abort();
        dra_features f;
        dra_features_release(&f, r);
        if (dra_features_release_of(&f) != r || strcmp(dra_release_name(r), "?") == 0)
            abort();
        dra_buf b = DRA_BUF_INIT;
        dra_features_table(&b, r);
        dra_buf_free(&b);
    }
    dra_err_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *git = dra_snapshot_git_version((const char *)data, size);
    if (git)
        release_of(git);
    free(git);
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    release_of(s);
    free(s);
    return 0;
}
