/* Fuzz the compact records of claims and Pods (model/compact.h): every
 * object read, whatever its shape, made into a claim record and a Pod
 * record, then dra-claim status's rows over the objects as a cluster (made
 * into records on the way).  Every object kept whole must read back equal
 * (dra_compact_whole).  Input: any bytes, read as YAML/JSON by
 * dra_read_mem; the length's low bit picks JSON or table output. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "doctor/report.h"
#include "io/stream.h"
#include "model/compact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data, size);
    dra_compact cp = DRA_COMPACT_INIT;
    dra_compact_keep_whole(&cp); /* and every object read back the same */
    for (size_t i = 0; !e && i < set.n; i++) {
        dra_claim_rec *c = dra_compact_claim(&cp, set.v[i].json);
        dra_pod_rec *p = dra_compact_pod(&cp, set.v[i].json);
        dra_compact_place(&cp, c->whole, &set.v[i], "resource.k8s.io/v1beta1");
        dra_obj back;
        if (!dra_compact_whole(&cp, c->whole, &back) || !json_equal(back.json, set.v[i].json) ||
            back.line != set.v[i].line || strcmp(dra_rec_served(c->whole), "resource.k8s.io/v1beta1") != 0)
            abort();
        json_decref(back.json);
        if (!dra_compact_whole(&cp, p->whole, &back) || !json_equal(back.json, set.v[i].json))
            abort();
        json_decref(back.json);
        /* every string a record holds is readable */
        size_t n = (c->ns ? strlen(c->ns) : 0) + (p->name ? strlen(p->name) : 0);
        for (uint32_t k = 0; k < c->nresults; k++)
            n += c->results[k].device ? strlen(c->results[k].device) : 0;
        for (uint32_t k = 0; k < p->nclaims; k++)
            n += p->claims[k].name ? strlen(p->claims[k].name) : 0;
        (void)n;
    }
    (void)dra_compact_bytes(&cp);
    dra_compact_free(&cp);
    dra_cluster c = DRA_CLUSTER_INIT;
    if (!e)
        e = dra_cluster_build(&c, &set);
    if (!e) {
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            dra_err_free(size & 1 ? dra_claim_status_write(f, &c, DRA_FMT_JSON, NULL)
                                  : dra_claim_status_table(f, &c, true, NULL));
            fclose(f);
        }
    }
    dra_cluster_free(&c);
    dra_err_free(e);
    dra_objset_free(&set);
    return 0;
}
