/* Internal to src/common/cel: the layout of a compiled program, shared by
 * cel.c (which creates, evaluates and frees it) and dra.c (which attaches
 * a compiled selector plan and runs it without a function call per field).
 * Not for use outside the CEL engine: the public API is cel.h.
 *
 * Ownership: everything here belongs to the program and is released by
 * cel_program_free; `ext` lives in `arena`. */
#ifndef DRA_CEL_PROGRAM_H
#define DRA_CEL_PROGRAM_H

#include "ast.h"
#include "functions.h"
#include "value.h"

struct cel_program {
    const struct cel_env *env;
    bool checked;
    unsigned flags; /* the CEL_EVAL_* bits of its evaluations (functions.h) */
    void *ext;      /* dra.c: the compiled selector plan (in `arena`), or NULL */
    dra_arena arena;
    cel_ast *ast;
    const cel_type *result;
    const char *result_str;
    uint64_t cost_min, cost_max;
    cel_scratch scratch;
    cel_scratch constants; /* values folded at compile time */
    cel_regex_cache *regexes;
    char *plan_error; /* what cel-go cannot make the program with (heap), or NULL */
};

#endif
