/* A cluster read from YAML text, for the claim-lifecycle tests: load(),
 * unload(). */
#ifndef DRA_UNIT_CLUSTER_WORLD_H
#define DRA_UNIT_CLUSTER_WORLD_H

#include <string.h>

#include "cluster/cluster.h"
#include "io/stream.h"

typedef struct world {
    dra_objset set;
    dra_cluster c;
} world;

/* Read yaml ("t.yaml") and index it; nonzero on an error. */
static inline int load(world *w, const char *yaml)
{
    memset(w, 0, sizeof *w);
    dra_err *e = dra_read_mem(&w->set, "t.yaml", yaml, strlen(yaml));
    if (!e)
        e = dra_cluster_build(&w->c, &w->set);
    int bad = e != NULL;
    dra_err_free(e);
    return bad;
}

static inline void unload(world *w)
{
    dra_cluster_free(&w->c);
    dra_objset_free(&w->set);
}

#endif
