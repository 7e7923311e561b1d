/* Progress on a terminal and a summary line, for the commands whose work
 * can take a while (dra-slice validate, dra-alloc schedule and capacity,
 * dra-claim status and doctor).
 *
 * dra_tool_start makes one per run (dra_args.progress), idle; a command
 * turns it on with dra_progress_begin.  Then, while standard error is a
 * terminal, a line there says what the run is doing once it has taken more
 * than a second: the objects read and how fast, and the step an engine
 * reports ("pods placed 1200/5000"), redrawn at most five times a second
 * with a carriage return (no escape sequences) and wiped when a phase ends
 * (dra_progress_clear) and before the run's errors are printed.  On a pipe
 * or a file it prints nothing.  With -v the command's last line on standard
 * error is one summary, once it has begun reading its input: "PROG: N
 * objects read, N errors, S.SS s".
 *
 * The engines never print: they report through a callback of the
 * dra_progress_step shape in their options (void *ud is the dra_progress).
 * Ownership: dra_args owns it; dra_tool_finish ends and frees it.  Every
 * function takes NULL and does nothing.
 *
 * DRA_PROGRESS_DELAY_MS (default 1000) is when the line first appears; the
 * tests set it to 0.
 */
#ifndef DRA_TOOL_PROGRESS_H
#define DRA_TOOL_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../base/error.h"

typedef struct dra_progress dra_progress;

/* An idle progress for prog, drawing to err (stderr) when it is a terminal;
 * verbose: print the summary at the end. */
dra_progress *dra_progress_new(const char *prog, FILE *err, bool verbose);
/* This command reports progress and, with -v, its summary. */
void dra_progress_begin(dra_progress *p);
/* n more objects read (0: the reading has begun; a run that stops before
 * it, at its options, prints no summary). */
void dra_progress_read(dra_progress *p, size_t n);
/* An engine's step: done of total (0: unknown) things of what ("pods
 * placed"); done == total ends the step and wipes the line. */
void dra_progress_step(void *p, const char *what, size_t done, size_t total);
/* Wipe the line (before other output on stderr, at the end of a phase). */
void dra_progress_clear(dra_progress *p);
/* The end: wipe the line, then with -v the summary with the run's count
 * of errors.  Frees p. */
void dra_progress_end(dra_progress *p, size_t errors);
/* Wipe the line and free p, no summary (dra_args_free). */
void dra_progress_free(dra_progress *p);

#endif
