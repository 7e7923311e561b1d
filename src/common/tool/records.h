/* Findings as records: `-o json|jsonl` of the checking commands
 * (dra-slice validate and lint, dra-select lint, dra-claim doctor).
 *
 * One record per finding, written to the FILE given at start:
 *
 *   {"severity": "error"|"warning", "file": F|null, "line": N|null,
 *    "object": {"kind": K, "namespace": NS|null, "name": N}|null,
 *    "field": PATH|null, "message": M}
 *
 * plus "scope" (lint's "driver/pool") and "fix" (doctor's command line)
 * where the finding has them.  A file read from standard input is
 * "<stdin>", as in the text.  jsonl writes each record as one line when
 * it is added; json writes one array of them at dra_records_finish (so a
 * run with no findings prints `[]`).
 *
 * Ownership: a dra_records holds its records until finish; it borrows f.
 */
#ifndef DRA_TOOL_RECORDS_H
#define DRA_TOOL_RECORDS_H

#include <stdbool.h>
#include <stdio.h>

#include "../base/error.h"
#include "../base/problems.h"

typedef struct dra_records {
    int fmt;   /* 0 text: the caller prints as it always has; 1 json; 2 jsonl */
    FILE *f;   /* borrowed */
    void *all; /* json: the records so far (a json_t array) */
} dra_records;

/* output: the -o value (NULL or "text" for text).  An unknown one is a
 * usage error "unknown output format V (want text, json or jsonl)". */
DRA_MUST_USE dra_err *dra_records_start(dra_records *r, const char *output, FILE *f);
/* -o json or jsonl was asked for. */
bool dra_records_on(const dra_records *r);
/* Every error of the chain e as a record of the given severity. */
DRA_MUST_USE dra_err *dra_records_errs(dra_records *r, const dra_err *e, bool warning);
DRA_MUST_USE dra_err *dra_records_problems(dra_records *r, const dra_problems *l);
/* A run's errors (chain, taken): those about the input become records and
 * raise *rc to their exit code, as printing them would have; the failures
 * of the tool itself (DRA_EXIT_RUNTIME: a write, a server), and any error
 * writing the records, are returned for the caller to return. */
DRA_MUST_USE dra_err *dra_records_take(dra_records *r, dra_err *chain, int *rc);
/* The end of a checking run with records on: the input's errors (errs,
 * taken, as dra_records_take), warnings (taken) and problems (borrowed;
 * NULL for none) as records, then dra_records_finish.  *rc becomes the
 * errors' highest exit code, else DRA_EXIT_NEGATIVE when a problem that is
 * not a warning was found, else stays.  Returns what dra_records_take and
 * finish return. */
DRA_MUST_USE dra_err *dra_records_end(dra_records *r, dra_err *errs, dra_err *warnings, const dra_problems *problems,
                                      int *rc);
/* Write what is held (json) and free it; a failed write is an error
 * (DRA_EXIT_RUNTIME). */
DRA_MUST_USE dra_err *dra_records_finish(dra_records *r);

#endif
