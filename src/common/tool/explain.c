/* Where an explanation goes: stderr, or the file --explain-file names,
 * written whole so that a reader never sees half of one ("-" is standard
 * output, as kubectl reads "-").  See tool.h. */
#include <stdio.h>
#include <string.h>

#include "../base/wfile.h"
#include "tool.h"

dra_err *dra_tool_explain_write(const char *file, const dra_buf *b)
{
    if (file && strcmp(file, "-") == 0) {
        fputs(dra_buf_str(b), stdout);
        return NULL; /* a failed write is found when stdout is closed */
    }
    if (file)
        return dra_wfile_replace(file, dra_buf_str(b), b->len, 0644, 0);
    fputs(dra_buf_str(b), stderr);
    return NULL;
}
