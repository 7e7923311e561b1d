/* dra-alloc schedule --classic-driver DRIVER=COMMAND: the drivers'
 * control-plane controllers of classic DRA as commands (one run per
 * question: the question on stdin, the answer on stdout; see
 * sched/classic.h), and the classic pass before the structured one. */
#ifndef DRA_ALLOC_CLASSIC_H
#define DRA_ALLOC_CLASSIC_H

#include "sched/classic.h"
#include "sched/schedule.h"
#include "tool/cli.h"

typedef struct classic_pass {
    dra_classic_sched_result res;
    dra_objset rest;     /* the input without the pods the classic pass placed or kept */
    dra_model model;     /* rest, loaded (moved into cluster) */
    dra_cluster cluster; /* rest with its model */
} classic_pass;

/* Run the classic pass over *c when specs (DRIVER=COMMAND...) are given;
 * then *c points at what the structured pass should see.  Pods it could
 * not place are named on stderr and set *rc to 1. */
dra_err *classic_run(const dra_strv *specs, const dra_cluster **c, json_t *const *nodes, size_t nnodes, int64_t now,
                     const dra_features *f, classic_pass *out, int *rc);
/* Write the classic pass's objects, then the structured pass's result. */
dra_err *classic_write(FILE *f, const classic_pass *p, const dra_sched_result *res, dra_format fmt);
void classic_pass_free(classic_pass *p);

#endif
