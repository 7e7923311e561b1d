/* dra-alloc schedule --explain=html [--pod NS/NAME]: one pod's explanation
 * as a page (insight/explain_page.h), to --explain-file or stderr. */
#include <string.h>

#include "insight/explain_page.h"
#include "insight/html.h"
#include "sched/report.h"
#include "alloc_tool.h"

dra_err *dra_alloc_explain_html_check(const opts *x)
{
    if (x->pod && !(x->explain && x->explain_fmt == DRA_ALLOC_EXPLAIN_HTML))
        return dra_err_new(DRA_EXIT_INPUT, "--pod: only with --explain=html (the pod its page explains)");
    return NULL;
}

/* --pod's pod, else the first unschedulable one, among the pods tried. */
static dra_err *pick(const opts *x, const dra_sched_result *res, const dra_sched_pod **out)
{
    for (size_t i = 0; i < res->npods; i++) {
        const dra_sched_pod *sp = &res->pods[i];
        if (x->pod ? strcmp(sp->ref, x->pod) == 0 : sp->outcome == DRA_POD_UNSCHEDULABLE) {
            *out = sp;
            return NULL;
        }
    }
    if (x->pod)
        return dra_err_new(DRA_EXIT_INPUT,
                           "--pod %s: no pending pod of that namespace/name in the input (%zu pending pod%s)", x->pod,
                           res->npods, res->npods == 1 ? "" : "s");
    return dra_err_new(DRA_EXIT_INPUT,
                       "--explain=html: no pod is unschedulable (%zu pending pod%s); name one with --pod NS/NAME",
                       res->npods, res->npods == 1 ? "" : "s");
}

dra_err *dra_alloc_explain_html(const opts *x, const dra_sched_result *res)
{
    const dra_sched_pod *sp = NULL;
    dra_err *e = pick(x, res, &sp);
    if (e)
        return e;
    json_t *o = dra_sched_pod_json(sp);
    dra_buf b = DRA_BUF_INIT;
    dra_explain_page(o, &b);
    json_decref(o);
    e = x->explain_file ? dra_tool_explain_write(x->explain_file, &b) : dra_html_write(stderr, &b);
    dra_buf_free(&b);
    return e;
}
