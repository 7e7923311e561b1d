/* Fuzz workload expansion (model/workloads.c, workloads_crd.c): Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, MPIJobs, kubeflow
 * training jobs, RayClusters, RayJobs, JobSets, LeaderWorkerSets and
 * TrainJobs into pods, other kinds searched for pod templates, then names
 * and UIDs for pods without them; before that, the copies dra-claim convert
 * makes of Pods and pod templates with 1.27-1.30 claim sources flattened
 * (model/classic.c).  Input: read as YAML/JSON; the first byte picks the
 * default namespace. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/stream.h"
#include "model/classic.h"
#include "model/workloads.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *ns = data[0] & 1 ? "default" : "team-a";
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data + 1, size - 1);
    if (!e) {
        dra_classic_result conv = {0};
        dra_classic_pods(&set, &conv);
        for (const dra_err *x = conv.changed; x; x = x->next)
            free(dra_err_format(x));
        dra_classic_result_free(&conv);
        dra_expand_report rep = {0};
        e = dra_expand_workloads(&set, ns, &rep);
        dra_assume_pod_identity(&set, ns, &rep);
        for (const dra_err *x = rep.warnings; x; x = x->next)
            free(dra_err_format(x));
        for (const dra_err *x = rep.notes; x; x = x->next)
            free(dra_err_format(x));
        for (size_t i = 0; i < set.n; i++)
            free(dra_obj_ref(set.v[i].json));
        dra_expand_report_free(&rep);
    }
    dra_err_free(e);
    dra_objset_free(&set);
    return 0;
}
