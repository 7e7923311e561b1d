/* Where an explanation goes: stderr, or the file --explain-file names,
 * written whole so that a reader never sees half of one.  See tool.h. */
#include <stdio.h>

#include "../base/wfile.h"
#include "tool.h"

dra_err *dra_tool_explain_write(const char *file, const dra_buf *b)
{
    if (file)
        return dra_wfile_replace(file, dra_buf_str(b), b->len, 0644, 0);
    fputs(dra_buf_str(b), stderr);
    return NULL;
}
