/* Tables; see table.h. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

dra_err *dra_table_write(FILE *f, const char *const *cells, size_t nrows, size_t ncols)
{
    size_t *w = dra_xcalloc(ncols, sizeof *w);
    for (size_t r = 0; r < nrows; r++)
        for (size_t k = 0; k < ncols; k++) {
            const char *s = cells[r * ncols + k] ? cells[r * ncols + k] : "-";
            if (strlen(s) > w[k])
                w[k] = strlen(s);
        }
    dra_buf b = DRA_BUF_INIT;
    for (size_t r = 0; r < nrows; r++) {
        for (size_t k = 0; k < ncols; k++) {
            const char *s = cells[r * ncols + k] ? cells[r * ncols + k] : "-";
            if (k + 1 < ncols)
                dra_buf_printf(&b, "%-*s   ", (int)w[k], s);
            else
                dra_buf_puts(&b, s);
        }
        dra_buf_putc(&b, '\n');
    }
    free(w);
    dra_err *e = NULL;
    if (b.len && fwrite(b.data, 1, b.len, f) != b.len)
        e = dra_err_new(DRA_EXIT_RUNTIME, "error writing output: write failed");
    dra_buf_free(&b);
    return e;
}

dra_err *dra_format_parse_table(const char *s, bool *table, dra_format *out)
{
    *table = !s || strcmp(s, "table") == 0;
    if (*table)
        return NULL;
    dra_err *e = dra_format_parse(s, out);
    if (e) {
        dra_err_free(e);
        return dra_err_new(DRA_EXIT_INPUT, "unknown output format '%s' (table, yaml, json, jsonl)", s);
    }
    return NULL;
}
