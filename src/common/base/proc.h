/* Run one child process: bytes to its stdin, its stdout collected.
 *
 * One copy of fork/exec/poll for every place that runs a command: the
 * reconcile loop's pipeline stages, nvidia-smi discovery, kubeconfig exec
 * credential plugins and classic drivers' controller commands.
 *
 * The child gets `in` on stdin (or /dev/null), a pipe as stdout, the
 * caller's stderr, the default disposition of SIGPIPE, SIGINT, SIGTERM and
 * SIGHUP, and `env` added to its environment.  The parent never blocks on
 * one side of the pipes: stdin is written as the child reads, stdout read as
 * it writes.  While the child runs SIGPIPE is ignored in the calling process
 * (a child that stops reading gives EPIPE, not death) and restored after.
 *
 * Ownership: everything in `dra_proc` is borrowed; output is appended to
 * the caller's buffer.  Errors (a returned dra_err) are only failures to run
 * at all (pipe, fork, poll); how the child ended is in dra_proc_status, for
 * the caller to word.
 */
#ifndef DRA_BASE_PROC_H
#define DRA_BASE_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "error.h"

typedef struct dra_proc {
    char *const *argv; /* argv[0] looked up in PATH; or NULL with shell set */
    const char *shell; /* run with /bin/sh -c when argv is NULL */
    const char *in;    /* stdin bytes; NULL: stdin is /dev/null */
    size_t inlen;
    char *const *env;                  /* NAME=VALUE strings added in the child, or NULL */
    int timeout_ms;                    /* kill (SIGKILL) after this long; 0: no limit */
    size_t max_out;                    /* kill (SIGKILL) when stdout grows past this; 0: no limit */
    bool group;                        /* the child leads its own process group; signals go to the group */
    const volatile sig_atomic_t *stop; /* polled every 100 ms: set -> SIGTERM, give up */
} dra_proc;

typedef struct dra_proc_status {
    int code;       /* exit status, or 128 + signal */
    int signal;     /* the signal that ended it, 0 when it exited */
    int exec_errno; /* the program could not be started (code is then 127) */
    bool timed_out, too_much, stopped;
} dra_proc_status;

DRA_MUST_USE dra_err *dra_proc_run(const dra_proc *p, dra_buf *out, dra_proc_status *st);

#endif
