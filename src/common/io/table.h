/* Tables for people: the `-o table` output some tools offer next to
 * yaml/json/jsonl.  Columns are padded with three spaces, as kubectl does. */
#ifndef DRA_IO_TABLE_H
#define DRA_IO_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"
#include "stream.h"

/* Print rows of cells (NULL cells print "-"); cells is nrows*ncols, row 0 is
 * the header.  A failed write is DRA_EXIT_RUNTIME. */
DRA_MUST_USE dra_err *dra_table_write(FILE *f, const char *const *cells, size_t nrows, size_t ncols);

/* Parse an -o value for a tool that also prints tables: NULL or "table" sets
 * *table; otherwise *out as dra_format_parse.  The error lists all four. */
DRA_MUST_USE dra_err *dra_format_parse_table(const char *s, bool *table, dra_format *out);

#endif
