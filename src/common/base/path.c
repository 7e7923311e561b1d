/* File-name arithmetic (see path.h). */
#include "base/path.h"

#include <string.h>

#include "base/error.h"

char *dra_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dra_xstrdup(".");
    if (slash == path)
        return dra_xstrdup("/");
    return dra_xstrndup(path, (size_t)(slash - path));
}

const char *dra_path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
