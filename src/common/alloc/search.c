/* Claim preparation and the depth-first, first-fit search (dra.md §3.3–§3.5,
 * dra-corrections.md A1–A3, A6, A7; upstream incubating
 * allocator_incubating.go Allocate, validateDeviceRequest, allocateOne,
 * isSelectable, selectorsMatch, allocateDevice).
 *
 * The search visits devices in upstream's order (pools sorted by driver and
 * pool name with binding-condition pools last, slices by name, devices in
 * slice order), tries combinations rather than permutations within one
 * request, and takes the first complete solution, so the same input gives
 * upstream's devices.  Rejections and backtracking undo their bookkeeping as
 * upstream master does (see the comments at allocate_device).
 *
 * Bounded search: before trying devices for a slot, count the devices that
 * could still fill the request from here on; when they are too few the
 * branch cannot succeed and is cut.  The cut is only taken where it cannot
 * change upstream's answer (see can_prune). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/assert.h"
#include "capacity.h"
#include "constraints.h"
#include "counters.h"
#include "explain.h"
#include "pools.h"
#include "result.h"
#include "state.h"
#include "taints.h"

enum { R_FAIL = 0, R_OK, R_TOOMANY, R_ERR };

#define MAX_RESULTS 32 /* resourceapi.AllocationResultsMaxSize */

typedef struct loc {
    size_t pool, slice, dev;
} loc;

typedef struct search {
    al_run *r;
    dra_err *err;
} search;

/* ---- selectors -------------------------------------------------------------------- */

/* Evaluate the request's derived attribute `name` on d, once (upstream's
 * lookupAttribute: when a constraint that applies to the request adds the
 * device, after the in-use, counter and taint checks; a device that never
 * gets that far is never evaluated).  A runtime error aborts allocation. */
static dra_err *derive_attribute(al_run *r, int ci, al_req *req, al_device *d, const char *name)
{
    json_t **vals = &req->dvals[(size_t)d->lid * req->nderived];
    for (size_t k = 0; k < req->nderived; k++) {
        al_derived *x = &req->derived[k];
        if (vals[k] || strcmp(x->name, name) != 0)
            continue;
        if (x->prog->error) /* compiled by upstream when first looked up */
            return dra_err_new(DRA_EXIT_INPUT, "compile derived attribute %s failed: %s", x->name, x->prog->error);
        al_idbuf ib;
        dra_err *e = r->w->eval.derive(r->w->eval.ctx, x->prog->prog, d->slice->driver, dra_al_device_json(d),
                                       &d->eval_cache, &vals[k]);
        if (e) {
            /* upstream's text: lookupAttribute's, unwrapped by the callers */
            dra_err *w = dra_err_new(DRA_EXIT_INPUT, "evaluate derived attribute %s on device %s failed: %s", x->name,
                                     dra_al_id(d, &ib), e->msg);
            dra_err_free(e);
            return w;
        }
    }
    return NULL;
}

/* selectorsMatch: all selectors must be true; errors are fatal. */
static dra_err *selectors_match(al_run *r, int ci, const al_class *class, const json_t *sels, al_device *d,
                                int *failed_index, bool *ok)
{
    *ok = true;
    size_t i;
    const json_t *sel;
    json_array_foreach(sels, i, sel) {
        const json_t *ej = dra_jfield(dra_jfield(sel, "cel"), "expression");
        const char *expr = json_is_string(ej) ? json_string_value(ej) : "";
        /* its bytes, NUL bytes too: cel-go refuses them */
        al_prog *p = dra_al_prog_n(r->w, expr, json_is_string(ej) ? json_string_length(ej) : 0);
        if (p->error) {
            if (class)
                return dra_err_new(DRA_EXIT_INPUT, "class %s: selector #%zu: CEL compile error: %s", class->name, i,
                                   p->error);
            return dra_err_new(DRA_EXIT_INPUT, "claim %s: selector #%zu: CEL compile error: %s", r->claims[ci].ref, i,
                               p->error);
        }
        if (!p->memo)
            p->memo = dra_xcalloc(r->w->ndevices + 1, 1);
        uint8_t *memo = d->widx < r->w->ndevices ? &p->memo[d->widx] : NULL;
        if (memo && *memo) {
            if (*memo == 1) {
                *failed_index = (int)i;
                *ok = false;
                return NULL;
            }
            continue;
        }
        bool m = false;
        dra_err *e = dra_al_match(r->w, p->prog, d, &m);
        if (!e && memo)
            *memo = m ? 2 : 1;
        if (e) {
            dra_err *w;
            al_idbuf ib;
            if (class)
                w = dra_err_new(DRA_EXIT_INPUT, "class %s: selector #%zu on device %s: CEL runtime error: %s",
                                class->name, i, dra_al_id(d, &ib), e->msg);
            else
                w = dra_err_new(DRA_EXIT_INPUT, "claim %s: selector #%zu on device %s: CEL runtime error: %s",
                                r->claims[ci].ref, i, dra_al_id(d, &ib), e->msg);
            dra_err_free(e);
            return w;
        }
        if (!m) {
            *failed_index = (int)i;
            *ok = false;
            return NULL;
        }
    }
    return NULL;
}

/* isSelectable.  `quiet`: a look ahead of the search (count_eligible_claim)
 * that must leave the explain trace as the search would leave it: nothing
 * is recorded, and with --explain the request's verdict is not remembered
 * either, so that the search's own visit records the reason. */
static dra_err *selectable(al_run *r, int ci, al_req *req, al_device *d, int lid, bool quiet, bool *ok)
{
    *ok = false;
    bool ex = r->opts->explain && !quiet, keep = !(r->opts->explain && quiet);
    if (!r->w->f.binding_and_status && d->has_binding) {
        if (ex)
            dra_al_explain_reject(
                r, ci, req, lid, DRA_REJECT_BINDING_DISABLED,
                "has binding conditions, DRADeviceBindingConditions/DRAResourceClaimDeviceStatus off");
        return NULL;
    }
    if (req->match[lid]) {
        *ok = req->match[lid] == 2;
        return NULL;
    }
    int idx = -1;
    bool m;
    dra_err *e;
    if (req->class) {
        e = selectors_match(r, ci, req->class, req->class->selectors, d, &idx, &m);
        if (e) {
            if (ex)
                dra_al_explain_reject(r, ci, req, lid, DRA_REJECT_CEL_ERROR, "%s", e->msg);
            return e;
        }
        if (!m) {
            if (keep)
                req->match[lid] = 1;
            if (ex)
                dra_al_explain_reject(r, ci, req, lid, DRA_REJECT_CLASS_SELECTOR, "class %s selector #%d is false",
                                      req->class->name, idx);
            return NULL;
        }
    }
    e = selectors_match(r, ci, NULL, req->selectors, d, &idx, &m);
    if (e) {
        if (ex)
            dra_al_explain_reject(r, ci, req, lid, DRA_REJECT_CEL_ERROR, "%s", e->msg);
        return e;
    }
    if (!m) {
        if (keep)
            req->match[lid] = 1;
        if (ex)
            dra_al_explain_reject(r, ci, req, lid, DRA_REJECT_REQUEST_SELECTOR, "request selector #%d is false", idx);
        return NULL;
    }
    if (d->slice->per_device) {
        e = dra_node_target_match(r->node, r->node_name, al_x(d)->node_name, d->all_nodes, al_x(d)->node_selector, &m);
        if (e)
            return e;
        if (!m) {
            if (keep)
                req->match[lid] = 1;
            if (ex)
                dra_al_explain_reject(r, ci, req, lid, DRA_REJECT_NODE_MISMATCH,
                                      "per-device node selection does not match node %s", r->node_name);
            return NULL;
        }
    }
    if (keep)
        req->match[lid] = 2;
    *ok = true;
    return NULL;
}

static dra_err *dra_al_is_selectable(al_run *r, int ci, al_req *req, al_device *d, int lid, bool *ok)
{
    return selectable(r, ci, req, d, lid, false, ok);
}

/* ---- in-progress device marks (allocatingDevices) -------------------------------------- */

static bool allocating_for(const al_run *r, int lid, int ci)
{
    for (int i = 0; i < r->nallocating[lid]; i++)
        if (r->allocating[lid][i] == ci)
            return true;
    return false;
}

static void allocating_insert(al_run *r, int lid, int ci)
{
    if (allocating_for(r, lid, ci))
        return;
    r->allocating[lid] = dra_xgrow(r->allocating[lid], (size_t)r->nallocating[lid], sizeof(int));
    r->allocating[lid][r->nallocating[lid]++] = ci;
}

/* Whether ci was marked (and is no longer). */
static bool allocating_delete(al_run *r, int lid, int ci)
{
    for (int i = 0; i < r->nallocating[lid]; i++)
        if (r->allocating[lid][i] == ci) {
            r->allocating[lid][i] = r->allocating[lid][--r->nallocating[lid]];
            return true;
        }
    return false;
}

static bool in_use(const al_run *r, const al_device *d)
{
    return r->w->st[d->gid].allocated || r->nallocating[d->lid] > 0;
}

static bool capacity_in_use(const al_run *r, const al_device *d)
{
    return dra_al_agg(r->w, d->gid)->present || r->w->st[d->gid].shared || r->nshares[d->lid] > 0;
}

static const al_capuse *agg_of(al_run *r, const al_device *d)
{
    return dra_al_agg(r->w, d->gid);
}

/* Whether the search loop passes over d for req because d is taken: by
 * this claim (an admin request), by an in-use claim or earlier in this
 * attempt.  With --explain the reason names the holder when known. */
static bool busy(al_run *r, int ci, al_req *req, al_device *d)
{
    if (req->admin && allocating_for(r, d->lid, ci)) {
        if (r->opts->explain)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "already allocated to this claim");
        return true;
    }
    if (req->admin || !in_use(r, d))
        return false;
    if (r->opts->explain) {
        /* A device the request would not select is explained by that,
         * not by who holds it (upstream looks at use first; the outcome
         * is the same).  A selector error is recorded, not raised: the
         * search never evaluates a device in use. */
        bool ok;
        dra_err *e = dra_al_is_selectable(r, ci, req, d, d->lid, &ok);
        bool failed = e != NULL;
        dra_err_free(e);
        if (failed || !ok)
            return true;
        const al_idstate *st = &r->w->st[d->gid];
        if (!st->allocated)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "allocated earlier in this attempt");
        else if (st->x && st->x->holder)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "allocated to %s", st->x->holder);
        else
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "allocated by an in-use claim");
    }
    return true;
}

/* ---- allocateDevice -------------------------------------------------------------------- */

static al_req *req_of(al_claim *c, int ri, int si)
{
    al_req *q = &c->reqs[ri];
    return q->nsubs ? &q->subs[si] : q;
}

static const char *bare(const al_req *q)
{
    return q->name;
}

enum { WHY_MAX = 512 }; /* allocate_device's reason of a rejection */

/* allocateDevice's checks before any bookkeeping: d is not taken (by this
 * claim, an in-use claim, earlier in this attempt, or a live share of a
 * device no longer shared) and may be handed out with these gates on this
 * node.  False with the reason recorded under --explain. */
static bool device_free(al_run *r, int ci, al_req *req, const al_device *d, bool multi)
{
    const al_features *f = &r->w->f;
    bool ex = r->opts->explain;
    if (!multi && req->admin && allocating_for(r, d->lid, ci)) {
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "already allocated to this claim");
        return false;
    }
    if (!req->admin && in_use(r, d)) {
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "already allocated");
        return false;
    }
    /* PR #140798: a device that no longer allows multiple allocations is
     * not handed out exclusively while a share of it is live. */
    if (!req->admin && !multi && capacity_in_use(r, d)) {
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_IN_USE, "shared by %s",
                                  r->w->st[d->gid].x && r->w->st[d->gid].x->holder ? r->w->st[d->gid].x->holder
                                                                                   : "an in-use claim");
        return false;
    }
    /* DRAOptionalNodeOperations (KEP-5945): a device whose slice skips node
     * operations is not allocatable with the gate off, nor on a node that
     * does not declare the feature (its kubelet would call a driver that may
     * not exist there).  Upstream checks it in allocateDevice, not
     * isSelectable: such a device is still one of an All request's devices,
     * which then cannot be allocated (allocator_experimental.go).  Only that
     * variant looks at the field: with the gate off and no other feature
     * that needs it, the scheduler runs the incubating allocator, to which
     * the device is like any other (structured/allocator.go: NewAllocator
     * takes the first variant whose features cover the gates). */
    if (d->slice->skip_node_ops && !r->optional_node_ops && (f->optional_node_operations || al_experimental(f))) {
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_NODE_FEATURE,
                                  f->optional_node_operations
                                      ? "skipNodeOperations: node %s does not declare DRAOptionalNodeOperations"
                                      : "skipNodeOperations: DRAOptionalNodeOperations off%s",
                                  f->optional_node_operations ? r->node_name : "");
        return false;
    }
    if (!f->partitionable && d->ncons > 0) {
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_COUNTERS_DISABLED,
                                  "consumes counters, DRAPartitionableDevices off");
        return false;
    }
    return true;
}

/* Undo a rejected device's additions to the claim's first n constraints,
 * then its counter reservation (charged). */
static void undo_take(al_run *r, al_claim *c, al_req *req, al_pool *pool, al_device *d, size_t n, bool charged)
{
    for (size_t e = 0; e < n; e++)
        dra_al_constraint_remove(r, &c->cons[e], req, d);
    if (charged)
        dra_al_counters_release(r, pool, d);
}

/* Add d to each constraint of the claim, deriving the attributes they
 * compare.  A rejection undoes the additions and the counters (charged);
 * must (an All request's device) makes it an error. */
static int add_constraints(search *s, int ci, al_req *req, al_pool *pool, al_device *d, bool must, bool charged,
                           char *why)
{
    al_run *r = s->r;
    al_claim *c = &r->claims[ci];
    bool ex = r->opts->explain;
    for (size_t i = 0; i < c->ncons; i++) {
        dra_err *de = req->nderived && dra_al_constraint_applies(&c->cons[i], req)
                          ? derive_attribute(r, ci, req, d, c->cons[i].attr)
                          : NULL;
        if (de) {
            undo_take(r, c, req, pool, d, i, charged);
            if (ex)
                dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_CEL_ERROR, "%s", de->msg);
            s->err = de;
            return R_ERR;
        }
        dra_err *fatal;
        if (dra_al_constraint_add(r, &c->cons[i], req, d, ex ? why : NULL, WHY_MAX, &fatal))
            continue;
        undo_take(r, c, req, pool, d, i, charged);
        if (fatal) {
            if (ex)
                dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_CONSTRAINT, "%s", fatal->msg);
            s->err = fatal;
            return R_ERR;
        }
        if (must) {
            al_idbuf ib;
            s->err = dra_err_new(
                DRA_EXIT_INPUT,
                "claim %s, request %s: cannot add device %s because a claim constraint would not be satisfied", c->ref,
                bare(req), dra_al_id(d, &ib));
            return R_ERR;
        }
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_CONSTRAINT, "%s", why);
        return R_FAIL;
    }
    return R_OK;
}

/* With consumable capacity, check d's capacity again against the current
 * state (an All list was built before earlier requests of this attempt
 * consumed capacity, A2) and take a share of a multi-allocatable device
 * (*consumed, *has_share).  A rejection undoes the constraints and the
 * counters (charged). */
static int take_capacity(search *s, int ci, al_req *req, al_pool *pool, al_device *d, bool multi, bool charged,
                         char *why, al_capuse *consumed, bool *has_share)
{
    al_run *r = s->r;
    al_claim *c = &r->claims[ci];
    bool ex = r->opts->explain;
    dra_err *fatal;
    if (!dra_al_capacity_fits(req, d, agg_of(r, d), &r->capuse[d->lid], ex ? why : NULL, WHY_MAX, &fatal)) {
        undo_take(r, c, req, pool, d, c->ncons, charged);
        if (fatal) {
            al_idbuf ib;
            s->err = dra_err_new(DRA_EXIT_INPUT, "claim %s, request %s: rechecking capacity for device %s: %s", c->ref,
                                 bare(req), dra_al_id(d, &ib), fatal->msg);
            dra_err_free(fatal);
            return R_ERR;
        }
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_CAPACITY, "%s", why);
        return R_FAIL;
    }
    if (multi) {
        dra_al_capacity_consumed(req, d, consumed);
        dra_al_capuse_add(&r->capuse[d->lid], consumed, r->w->f.qrules);
        r->nshares[d->lid]++;
        *has_share = true;
    }
    return R_OK;
}

/* Record d as the claim's next device, marked in progress unless shared. */
static void record_device(al_run *r, int ci, al_req *req, al_pool *pool, al_device *d, bool multi, bool charged,
                          bool has_share, al_capuse consumed)
{
    al_claim *c = &r->claims[ci];
    if (!multi)
        allocating_insert(r, d->lid, ci);
    if (c->nres == c->capres) {
        c->capres = c->capres ? c->capres * 2 : 8;
        c->res = dra_xrealloc(c->res, c->capres * sizeof *c->res);
    }
    al_result_dev *res = &c->res[c->nres++];
    *res = (al_result_dev){
        .req = req, .dev = d, .pool = pool, .admin = req->admin, .has_share = has_share, .charged_counters = charged};
    res->consumed = consumed;
    if (r->opts->explain)
        dra_al_explain_push(r);
}

/* allocateDevice (dra.md §3.5 step 6, dra-corrections.md A2).
 *
 * Older upstream left state behind when a device was rejected late: counters
 * reserved by the counter check stayed reserved when the taint or constraint
 * check then rejected the device, the capacity re-check did not undo the
 * in-progress mark or the constraint additions, and a multi-allocatable
 * device's counters were never released on backtrack (dra.md §3.5 "upstream
 * quirk", dra-corrections.md A2).  Upstream master rolls all of that back and
 * its test table checks it (allocatortesting/allocator_testing.go:
 * partitionable-devices-taint-releases-counter,
 * partitionable-devices-constraint-releases-counter,
 * partitionable-consumable-capacity-backtrack-releases-counter,
 * consumable-capacity-rejection-rolls-back-constraints,
 * partitionable-empty-capacity-multiple-share-backtrack-keeps-counter-ownership);
 * upstream code wins, so a rejected device leaves nothing behind here.
 *
 * A multi-allocatable device reserves its counters once, with its first
 * share (in-use claims or in progress); later shares skip the counter check,
 * and only the share that reserved them releases them. */
static int allocate_device(search *s, int ci, al_req *req, al_pool *pool, al_device *d, bool must)
{
    al_run *r = s->r;
    const al_features *f = &r->w->f;
    bool multi = f->consumable_capacity && d->allow_multi;
    char why[WHY_MAX];
    why[0] = 0;
    bool ex = r->opts->explain;

    if (!device_free(r, ci, req, d, multi))
        return R_FAIL;
    bool skip_counters = multi && capacity_in_use(r, d);
    bool charged = false;
    if (!skip_counters && d->ncons > 0) {
        if (!dra_al_counters_take(r, pool, d, ex ? why : NULL, sizeof why)) {
            if (ex)
                dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_COUNTERS, "%s", why);
            return R_FAIL;
        }
        charged = true;
    }
    const al_taint *t;
    if (f->device_taints && (t = dra_al_taint_blocks(d, req))) {
        if (charged)
            dra_al_counters_release(r, pool, d);
        if (ex)
            dra_al_explain_reject(r, ci, req, d->lid, DRA_REJECT_TAINT, "taint %s=%s:%s%s%s not tolerated",
                                  t->key ? t->key : "", t->value ? t->value : "", t->effect ? t->effect : "",
                                  t->rule ? " from DeviceTaintRule " : "", t->rule ? t->rule : "");
        return R_FAIL;
    }
    int res = add_constraints(s, ci, req, pool, d, must, charged, why);
    if (res != R_OK)
        return res;
    al_capuse consumed = {0};
    bool has_share = false;
    if (f->consumable_capacity &&
        (res = take_capacity(s, ci, req, pool, d, multi, charged, why, &consumed, &has_share)) != R_OK)
        return res;
    record_device(r, ci, req, pool, d, multi, charged, has_share, consumed);
    return R_OK;
}

/* Give back d, the device claim ci took last: the search undoes in the
 * reverse order it took (constraints, marks, shares and counters are
 * stacks; DRA_ASSERT checks each). */
static void deallocate_last(al_run *r, int ci, const al_device *taken)
{
    al_claim *c = &r->claims[ci];
    DRA_ASSERT(c->nres > 0 && c->res[c->nres - 1].dev == taken);
    al_result_dev *res = &c->res[c->nres - 1];
    al_device *d = res->dev;
    al_req *req = res->req;
    bool multi = r->w->f.consumable_capacity && d->allow_multi;
    for (size_t i = 0; i < c->ncons; i++)
        dra_al_constraint_remove(r, &c->cons[i], req, d);
    bool marked = allocating_delete(r, d->lid, ci);
    DRA_ASSERT(marked || multi);
    if (multi && res->has_share) {
        if (res->consumed.n > 0)
            dra_al_capuse_sub(&r->capuse[d->lid], &res->consumed, r->w->f.qrules);
        DRA_ASSERT(r->nshares[d->lid] > 0);
        r->nshares[d->lid]--;
    }
    if (res->charged_counters)
        dra_al_counters_release(r, res->pool, d);
    dra_al_capuse_free(&res->consumed);
    c->nres--;
    r->stats.backtracks++;
    if (r->opts->explain)
        dra_al_explain_pop(r);
}

/* ---- bounded search ------------------------------------------------------------------ */

/* Why cutting a branch cannot change upstream's answer.
 *
 * The cut is taken at a slot of a counted request (not All mode) when fewer
 * devices than the slots still open could fill them.  count_eligible counts
 * the devices from `start` on that pass the loop's own checks: not in use,
 * selectable, and (with consumable capacity) enough capacity left.  Within
 * one request the later slots only see devices after the current one
 * (combinations, not permutations) and only more of everything in use or
 * consumed, so a device failing these checks now fails them for every later
 * slot too, and the count is an upper bound on the devices the exhaustive
 * search could still place.  Counters, taints and constraints can only
 * reject more devices, so they are left out of the count (an over-count
 * cuts less, never wrongly).  A cut subtree therefore has no solution; it
 * cannot raise an error upstream would raise (selector errors make the count
 * untrusted, returning -1; the All-mode constraint error is not on this
 * path; the result-size limit is checked before the cut and cannot trip
 * later in the same request); and it leaves nothing behind, because every
 * tentative allocation is undone exactly (allocate_device, deallocate_last,
 * and last-in first-out constraint undo in constraints.c).  Only the
 * statistics differ, which is why the runner of upstream's table checks
 * allocateOne counts with pruning off. */

/* Count devices from `start` that pass the cheap checks of the device loop,
 * stopping at `need`.  Returns -1 when the count cannot be trusted to stand
 * for upstream's exhaustive search (a selector error). */
static int count_eligible(al_run *r, int ci, al_req *req, loc start, int need)
{
    /* A derived attribute is evaluated on each device the search offers a
     * constraint, and its error is upstream's answer: only the search can
     * tell which devices get that far. */
    if (req->nderived)
        return -1;
    int n = 0;
    for (size_t pi = start.pool; pi < r->npools; pi++) {
        al_pool *p = &r->pools[pi];
        if (p->incomplete || p->invalid)
            continue;
        for (size_t si = pi == start.pool ? start.slice : 0; si < p->ntarget; si++) {
            al_slice *sl = p->target[si];
            for (size_t di = (pi == start.pool && si == start.slice) ? start.dev : 0; di < sl->ndev; di++) {
                al_device *d = &sl->dev[di];
                if (req->admin ? allocating_for(r, d->lid, ci) : in_use(r, d))
                    continue;
                bool ok;
                dra_err *e = dra_al_is_selectable(r, ci, req, d, d->lid, &ok);
                if (e) {
                    dra_err_free(e);
                    return -1;
                }
                if (!ok)
                    continue;
                dra_err *fatal = NULL;
                if (r->w->f.consumable_capacity &&
                    !dra_al_capacity_fits(req, d, agg_of(r, d), &r->capuse[d->lid], NULL, 0, &fatal)) {
                    if (fatal) { /* the search raises it */
                        dra_err_free(fatal);
                        return -1;
                    }
                    continue;
                }
                if (++n >= need)
                    return n;
            }
        }
    }
    return n;
}

/* The same cut across the requests of the claim: the open slots of this
 * request and of every later request of the claim against the devices that
 * could fill any of them (devices from `start` on for this request, every
 * device for the later ones).  The device loop skips a device in use,
 * which includes one allocated earlier in this attempt, so each device fills
 * at most one slot of the claim (a device allowing multiple allocations, with
 * consumable capacity, may fill several: its presence makes the count
 * untrusted), and when the count is short no assignment exists in whatever
 * order the search would try them (12
 * one-device requests competing for 11 devices: millions of branches without
 * it).  Capacity, counters, taints and constraints are left out as above.
 * The count stands for upstream's search only where every later request is a
 * plain counted one: no firstAvailable (whose need depends on the subrequest
 * chosen), no All mode (its constraint error), no admin access (an admin
 * request may take a device in use), and the claim stays within the result
 * limit (so no later request could stop the search with "too many").  Every device is checked against
 * every request that could take it (all of them, not the first to accept
 * it), so a selector error or an amount of
 * capacity that cannot be had anywhere in the subtree makes the count
 * untrusted (-1) as above.  The look ahead records
 * nothing for --explain (selectable's quiet mode): each reason is recorded
 * when the search itself reaches the device. */
static int count_eligible_claim(al_run *r, int ci, int ri, al_req *req, loc start, int need, int *total)
{
    al_claim *c = &r->claims[ci];
    if (req->admin || (size_t)ri + 1 >= c->nreqs)
        return -1;
    for (size_t k = (size_t)ri + 1; k < c->nreqs; k++) {
        const al_req *q = &c->reqs[k];
        if (q->nsubs > 0 || q->mode == AL_MODE_ALL || q->admin || q->ndevices <= 0 || q->nderived)
            return -1;
        need += q->ndevices;
    }
    if ((int)c->nres + need > MAX_RESULTS)
        return -1;
    *total = need;
    int n = 0;
    for (size_t pi = 0; pi < r->npools; pi++) {
        al_pool *p = &r->pools[pi];
        if (p->incomplete || p->invalid)
            continue;
        for (size_t si = 0; si < p->ntarget; si++) {
            al_slice *sl = p->target[si];
            for (size_t di = 0; di < sl->ndev; di++) {
                al_device *d = &sl->dev[di];
                if (r->w->f.consumable_capacity && d->allow_multi)
                    return -1; /* one device may fill several slots */
                if (in_use(r, d))
                    continue;
                bool after = pi > start.pool ||
                             (pi == start.pool && (si > start.slice || (si == start.slice && di >= start.dev)));
                /* Every request is asked, not only until one accepts: the
                 * subtree may offer the device to any of them, and a selector
                 * error of a later one is upstream's answer there. */
                bool any = false;
                for (size_t k = after ? (size_t)ri : (size_t)ri + 1; k < c->nreqs; k++) {
                    al_req *q = k == (size_t)ri ? req : &c->reqs[k];
                    bool ok;
                    dra_err *e = selectable(r, ci, q, d, d->lid, true, &ok);
                    if (!e && ok && r->w->f.consumable_capacity)
                        ok = dra_al_capacity_fits(q, d, agg_of(r, d), &r->capuse[d->lid], NULL, 0, &e);
                    if (e) {
                        dra_err_free(e);
                        return -1;
                    }
                    any = any || ok;
                }
                if (any && ++n >= need)
                    return n; /* no cut: what is left unasked does not matter */
            }
        }
    }
    return n;
}

/* ---- allocateOne ----------------------------------------------------------------------- */

static void note_cut(al_claim *c, const al_req *req, bool claim_wide, int need, int have)
{
    c->cut_req = req->full_name;
    c->cut_claim = claim_wide;
    c->cut_need = need;
    c->cut_have = have;
}

/* --explain at a cut: the reasons the search would have given, had it
 * tried each device, for the request cut (and, when the cut spans the
 * claim, for every later request): a device taken, not selected, or
 * without the capacity asked for.  Devices that could serve get no reason:
 * there are too few of them, which the cut itself says.  A device the
 * search already gave a reason for keeps it (the search's own reason is
 * the one --no-prune reports).  Errors are left to the search (the look
 * ahead did not trust its count then). */
static void explain_cut(al_run *r, int ci, int ri, al_req *req, bool claim_wide)
{
    al_claim *c = &r->claims[ci];
    size_t end = claim_wide ? c->nreqs : (size_t)ri + 1;
    for (size_t k = (size_t)ri; k < end; k++) {
        al_req *q = k == (size_t)ri ? req : &c->reqs[k];
        if (q->nsubs > 0)
            continue;
        for (size_t pi = 0; pi < r->npools; pi++) {
            al_pool *p = &r->pools[pi];
            if (p->incomplete || p->invalid)
                continue;
            for (size_t si = 0; si < p->ntarget; si++)
                for (size_t di = 0; di < p->target[si]->ndev; di++) {
                    al_device *d = &p->target[si]->dev[di];
                    bool ok;
                    if (dra_al_explain_seen(r, ci, q, d->lid) || busy(r, ci, q, d))
                        continue;
                    dra_err *e = dra_al_is_selectable(r, ci, q, d, d->lid, &ok);
                    if (e) {
                        dra_err_free(e);
                        continue;
                    }
                    char why[256];
                    if (ok && r->w->f.consumable_capacity &&
                        !dra_al_capacity_fits(q, d, agg_of(r, d), &r->capuse[d->lid], why, sizeof why, &e)) {
                        if (e)
                            dra_err_free(e);
                        else
                            dra_al_explain_reject(r, ci, q, d->lid, DRA_REJECT_CAPACITY, "%s", why);
                    }
                }
        }
    }
}

static double elapsed(const al_run *r)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - r->start.tv_sec) + (double)(now.tv_nsec - r->start.tv_nsec) / 1e9;
}

static int allocate_one(search *s, int ci, int ri, int si, int d, bool in_sub, loc start)
{
    al_run *r = s->r;
    r->stats.invocations++;
    if (r->opts->timeout > 0 && (r->stats.invocations & 255) == 0 && elapsed(r) > r->opts->timeout) {
        r->timed_out = true;
        s->err = dra_err_new(DRA_EXIT_INPUT, "timed out trying to allocate devices");
        return R_ERR;
    }
    if ((size_t)ci >= r->nclaims)
        return R_OK;
    al_claim *c = &r->claims[ci];
    if ((size_t)ri >= c->nreqs) {
        /* what an earlier attempt at the next claim took, it gave back */
        DRA_ASSERT((size_t)ci + 1 >= r->nclaims || r->claims[ci + 1].nres == 0);
        int res = allocate_one(s, ci + 1, 0, 0, 0, false, (loc){0, 0, 0});
        return res == R_TOOMANY ? R_FAIL : res;
    }
    al_req *top = &c->reqs[ri];
    if (!in_sub && top->nsubs > 0) {
        bool all_exceeded = true;
        for (size_t k = 0; k < top->nsubs; k++) {
            int res = allocate_one(s, ci, ri, (int)k, 0, true, (loc){0, 0, 0});
            if (res == R_TOOMANY)
                continue;
            all_exceeded = false;
            if (res == R_ERR)
                return R_ERR;
            if (res == R_OK) {
                top->selected_sub = (int)k;
                return R_OK;
            }
        }
        return all_exceeded ? R_TOOMANY : R_FAIL;
    }
    al_req *req = req_of(c, ri, si);
    bool all = req->mode == AL_MODE_ALL;
    if (all && req->nall == 0)
        return R_FAIL;
    if (d >= req->ndevices)
        return allocate_one(s, ci, ri + 1, 0, 0, false, (loc){0, 0, 0});
    if ((int)c->nres + req->ndevices - d > MAX_RESULTS)
        return R_TOOMANY;

    if (all) {
        size_t taken = c->nres;
        int res = allocate_device(s, ci, req, req->all_pool[d], req->all[d], true);
        if (res != R_OK)
            return res;
        res = allocate_one(s, ci, ri, si, d + 1, in_sub, (loc){0, 0, 0});
        if (res != R_OK) {
            DRA_ASSERT(c->nres == taken + 1);
            deallocate_last(r, ci, req->all[d]);
        }
        return res;
    }

    if (!r->opts->no_prune) {
        int need = req->ndevices - d;
        int n = count_eligible(r, ci, req, start, need);
        if (n >= 0 && n < need) {
            r->stats.pruned++;
            note_cut(c, req, false, need, n);
            if (r->opts->explain)
                explain_cut(r, ci, ri, req, false);
            return R_FAIL;
        }
        int total = 0;
        int m = n >= 0 ? count_eligible_claim(r, ci, ri, req, start, need, &total) : -1;
        if (m >= 0 && m < total) {
            r->stats.pruned++;
            note_cut(c, req, true, total, m);
            if (r->opts->explain)
                explain_cut(r, ci, ri, req, true);
            return R_FAIL;
        }
    }

    const al_features *f = &r->w->f;
    for (size_t pi = start.pool; pi < r->npools; pi++) {
        al_pool *p = &r->pools[pi];
        if (p->incomplete || p->invalid)
            continue;
        for (size_t sli = pi == start.pool ? start.slice : 0; sli < p->ntarget; sli++) {
            al_slice *sl = p->target[sli];
            for (size_t di = (pi == start.pool && sli == start.slice) ? start.dev : 0; di < sl->ndev; di++) {
                al_device *dev = &sl->dev[di];
                r->stats.devices_tried++;
                if (busy(r, ci, req, dev))
                    continue;
                bool ok;
                s->err = dra_al_is_selectable(r, ci, req, dev, dev->lid, &ok);
                if (s->err)
                    return R_ERR;
                if (!ok)
                    continue;
                if (f->consumable_capacity) {
                    char why[256];
                    dra_err *fatal;
                    if (!dra_al_capacity_fits(req, dev, agg_of(r, dev), &r->capuse[dev->lid],
                                              r->opts->explain ? why : NULL, sizeof why, &fatal)) {
                        if (fatal) {
                            al_idbuf ib;
                            s->err =
                                dra_err_new(DRA_EXIT_INPUT, "claim %s, request %s: checking capacity for device %s: %s",
                                            c->ref, bare(req), dra_al_id(dev, &ib), fatal->msg);
                            dra_err_free(fatal);
                            return R_ERR;
                        }
                        if (r->opts->explain)
                            dra_al_explain_reject(r, ci, req, dev->lid, DRA_REJECT_CAPACITY, "%s", why);
                        continue;
                    }
                }
                size_t taken = c->nres;
                int res = allocate_device(s, ci, req, p, dev, false);
                if (res == R_ERR)
                    return R_ERR;
                if (res != R_OK)
                    continue;
                res = allocate_one(s, ci, ri, si, d + 1, in_sub, (loc){pi, sli, di + 1});
                if (res == R_OK)
                    return R_OK;
                DRA_ASSERT(c->nres == taken + 1);
                deallocate_last(r, ci, dev);
                if (res != R_FAIL)
                    return res;
            }
        }
    }
    return R_FAIL;
}

/* ---- preparation ------------------------------------------------------------------------- */

static dra_err *parse_request(al_run *r, al_claim *c, al_req *q, const json_t *j, al_req *parent)
{
    dra_arena *a = &r->arena;
    q->json = j;
    q->parent = parent;
    q->full_name = parent ? dra_arena_printf(a, "%s/%s", parent->name, q->name) : q->name;
    q->class_name = dra_jfield_str(j, "deviceClassName");
    q->selectors = dra_jfield(j, "selectors");
    q->mode_str = dra_jfield_str(j, "allocationMode");
    if (!q->mode_str)
        q->mode_str = "";
    q->mode = !strcmp(q->mode_str, "ExactCount") ? AL_MODE_EXACT
              : !strcmp(q->mode_str, "All")      ? AL_MODE_ALL
                                                 : AL_MODE_OTHER;
    q->count = json_integer_value(dra_jfield(j, "count"));
    if (!parent) {
        q->has_admin = dra_jfield(j, "adminAccess") != NULL;
        q->admin = dra_jfield_true(j, "adminAccess");
    }
    q->tolerations = dra_jfield(j, "tolerations");
    dra_al_parse_tolerations(a, q->tolerations, &q->tol, &q->ntol);
    const json_t *cap = dra_jfield(j, "capacity");
    q->has_capacity = cap != NULL;
    q->capacity_1_38 = r->w->f.capacity_1_38;
    q->qrules = r->w->f.qrules;
    const json_t *creq = dra_jfield(cap, "requests");
    if (json_is_object(creq) && json_object_size(creq)) {
        q->capreq = dra_arena_zalloc(a, json_object_size(creq) * sizeof *q->capreq);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)creq, k, v) {
            al_capreq *x = &q->capreq[q->ncapreq];
            x->name = k;
            const char *qs = json_string_value(v);
            dra_err *e = qs ? dra_quantity_parse_rules(qs, strlen(qs), r->w->f.qrules, &x->q) : NULL;
            if (!qs && json_is_integer(v)) {
                x->q = dra_quantity_from_int64(json_integer_value(v), DRA_QFMT_DECIMAL_SI);
                qs = "";
            }
            if (!qs || e) {
                dra_err *w = dra_err_new(DRA_EXIT_INPUT, "claim %s, request %s: capacity request %s: %s", c->ref,
                                         q->full_name, k, e ? e->msg : "not a quantity");
                dra_err_free(e);
                return w;
            }
            q->ncapreq++;
        }
    }
    q->match = dra_arena_zalloc(a, r->nldev + 1);
    const json_t *das = dra_jfield(j, "derivedAttributes");
    if (r->w->f.derived_attributes && json_is_array(das) && json_array_size(das)) {
        q->nderived = json_array_size(das);
        q->derived = dra_arena_zalloc(a, q->nderived * sizeof *q->derived);
        for (size_t k = 0; k < q->nderived; k++) {
            const json_t *dj = json_array_get(das, k);
            al_derived *x = &q->derived[k];
            x->name = dra_jfield_str(dj, "name") ? dra_jfield_str(dj, "name") : "";
            const char *expr = dra_jfield_str(dj, "expression") ? dra_jfield_str(dj, "expression") : "";
            x->prog = dra_al_value_prog(r->w, expr); /* a compile error is raised where it is used */
        }
        q->dvals = dra_xcalloc((r->nldev + 1) * q->nderived, sizeof *q->dvals);
    }
    return NULL;
}

/* validateDeviceRequest */
static dra_err *validate_request(al_run *r, int ci, al_req *q)
{
    al_claim *c = &r->claims[ci];
    const al_features *f = &r->w->f;
    /* KEP-6080: a claim made while the gate was on cannot be allocated
     * correctly without its derived attributes. */
    if (!f->derived_attributes && json_array_size(dra_jfield(q->json, "derivedAttributes")))
        return dra_err_new(
            DRA_EXIT_INPUT,
            "claim %s, request %s: cannot handle request with derived attributes, the feature is disabled", c->ref,
            q->name);
    size_t i;
    const json_t *sel;
    json_array_foreach(q->selectors, i, sel) {
        if (!dra_jfield(sel, "cel"))
            return dra_err_new(DRA_EXIT_INPUT,
                               "claim %s, request %s, selector #%zu: CEL expression empty (unsupported selector type?)",
                               c->ref, q->name, i);
    }
    if (!f->admin_access && q->has_admin)
        return dra_err_new(DRA_EXIT_INPUT,
                           "claim %s, request %s: admin access is requested, but the feature is disabled", c->ref,
                           q->name);
    if (!q->class_name || !*q->class_name)
        return dra_err_new(DRA_EXIT_INPUT,
                           "claim %s, request %s: missing device class name (unsupported request type?)", c->ref,
                           q->name);
    intptr_t v;
    if (!dra_strmap_get(&r->w->classes, q->class_name, strlen(q->class_name), &v))
        return dra_err_new(
            DRA_EXIT_INPUT,
            "claim %s, request %s: could not retrieve device class %s: deviceclass.resource.k8s.io \"%s\" not found",
            c->ref, q->name, q->class_name, q->class_name);
    q->class = (al_class *)v;
    switch (q->mode) {
    case AL_MODE_EXACT:
        /* Upstream refuses only a count past math.MaxInt (never, on 64
         * bits); the claim limit refuses a large one.  Any count past the
         * limit searches alike (the slot check gives up), so it is held
         * clamped; the limit check reads q->count. */
        q->ndevices = q->count > MAX_RESULTS ? MAX_RESULTS + 1 : q->count < 0 ? -1 : (int)q->count;
        return NULL;
    case AL_MODE_ALL: break;
    default:
        return dra_err_new(DRA_EXIT_INPUT, "claim %s, request %s: unsupported count mode %s", c->ref, q->name,
                           q->mode_str);
    }
    bool before_1_37 = dra_features_release_of(&r->w->features) < DRA_RELEASE_1_37;
    q->all = dra_arena_alloc(&r->arena, (r->nldev + 1) * sizeof *q->all);
    q->all_pool = dra_arena_alloc(&r->arena, (r->nldev + 1) * sizeof *q->all_pool);
    for (size_t pi = 0; pi < r->npools; pi++) {
        al_pool *p = &r->pools[pi];
        /* From 1.38 on these wrap ErrFailedAllocationOnNode: the node is
         * unschedulable, other nodes may still do (allocator_experimental.go
         * validateDeviceRequest, v0.38.0-beta.0; dynamicresources.go Filter). */
        r->node_failure = (p->incomplete || p->invalid) && r->w->f.all_pool_node_failure;
        if (p->incomplete)
            return dra_err_new(
                DRA_EXIT_INPUT,
                "claim %s, request %s: asks for all devices, but resource pool %s/%s is currently being updated",
                c->ref, q->name, p->driver, p->pool);
        if (p->invalid)
            return dra_err_new(
                DRA_EXIT_INPUT,
                "claim %s, request %s: asks for all devices, but resource pool %s/%s is currently invalid", c->ref,
                q->name, p->driver, p->pool);
        for (size_t si = 0; si < p->ntarget; si++)
            for (size_t di = 0; di < p->target[si]->ndev; di++) {
                al_device *d = &p->target[si]->dev[di];
                bool ok;
                dra_err *e = dra_al_is_selectable(r, ci, q, d, d->lid, &ok);
                if (e)
                    return e;
                if (!ok)
                    continue;
                /* Static capacity test only (kubernetes#140769, corrections A3).
                 * 1.36 tested what the allocated claims leave, skipping the
                 * device on an error too, so that an All request left out a
                 * device in use to capacity (validateDeviceRequest and
                 * allocator.CmpRequestOverCapacity of allocator_incubating.go
                 * and allocator_experimental.go, v0.36.3). */
                dra_err *fatal = NULL;
                if (f->consumable_capacity &&
                    !dra_al_capacity_fits(q, d, before_1_37 ? agg_of(r, d) : NULL, NULL, NULL, 0, &fatal)) {
                    if (fatal && before_1_37) {
                        dra_err_free(fatal);
                        fatal = NULL;
                    }
                    if (fatal) { /* upstream names the device alone here */
                        dra_err *w =
                            dra_err_new(DRA_EXIT_INPUT, "claim %s, request %s: checking capacity for device %s: %s",
                                        c->ref, q->name, d->name, fatal->msg);
                        dra_err_free(fatal);
                        return w;
                    }
                    continue;
                }
                q->all[q->nall] = d;
                q->all_pool[q->nall++] = p;
            }
    }
    q->ndevices = (int)q->nall;
    return NULL;
}

/* The devices request q needs (upstream's numDevices): its count, or how
 * many devices All mode found. */
static int64_t request_devices(const al_req *q)
{
    return q->mode == AL_MODE_EXACT ? q->count : q->ndevices;
}

static dra_err *prepare_claim(al_run *r, int ci, const json_t *j)
{
    dra_arena *a = &r->arena;
    al_claim *c = &r->claims[ci];
    const al_features *f = &r->w->f;
    c->json = j;
    const json_t *meta = dra_jfield(j, "metadata");
    c->ns = dra_jfield_str(meta, "namespace");
    c->name = dra_jfield_str(meta, "name");
    c->uid = dra_jfield_str(meta, "uid");
    if (!c->name)
        c->name = "";
    c->ref = (c->ns && *c->ns) ? dra_arena_printf(a, "%s/%s", c->ns, c->name) : dra_arena_strdup(a, c->name);
    const json_t *devices = dra_jfield(dra_jfield(j, "spec"), "devices");
    const json_t *reqs = dra_jfield(devices, "requests");
    c->nreqs = json_is_array(reqs) ? json_array_size(reqs) : 0;
    c->reqs = dra_arena_zalloc(a, (c->nreqs + 1) * sizeof *c->reqs);
    int64_t min_total = 0;
    for (size_t i = 0; i < c->nreqs; i++) {
        const json_t *rj = json_array_get(reqs, i);
        al_req *q = &c->reqs[i];
        q->name = dra_jfield_str(rj, "name");
        if (!q->name)
            q->name = "";
        const json_t *fa = dra_jfield(rj, "firstAvailable");
        size_t nsub = json_is_array(fa) ? json_array_size(fa) : 0;
        if (!f->prioritized_list && nsub)
            return dra_err_new(DRA_EXIT_INPUT,
                               "claim %s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled",
                               c->ref, q->name);
        const json_t *exactly = dra_jfield(rj, "exactly");
        if (!f->consumable_capacity) {
            if (exactly && dra_jfield(exactly, "capacity"))
                return dra_err_new(
                    DRA_EXIT_INPUT,
                    "claim %s, request %s: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                    c->ref, q->name);
            for (size_t k = 0; k < nsub; k++) {
                const json_t *sj = json_array_get(fa, k);
                if (dra_jfield(sj, "capacity"))
                    return dra_err_new(DRA_EXIT_INPUT,
                                       "claim %s, subrequest %s: has capacity requests, but the DRAConsumableCapacity "
                                       "feature is disabled",
                                       c->ref, dra_jfield_str(sj, "name") ? dra_jfield_str(sj, "name") : "");
            }
        }
        dra_err *e;
        int64_t min = INT64_MAX;
        if (nsub) {
            q->subs = dra_arena_zalloc(a, nsub * sizeof *q->subs);
            q->nsubs = nsub;
            for (size_t k = 0; k < nsub; k++) {
                const json_t *sj = json_array_get(fa, k);
                al_req *sq = &q->subs[k];
                sq->name = dra_jfield_str(sj, "name");
                if (!sq->name)
                    sq->name = "";
                if ((e = parse_request(r, c, sq, sj, q)) || (e = validate_request(r, ci, sq)))
                    return e;
                min = min < request_devices(sq) ? min : request_devices(sq);
            }
        } else {
            if ((e = parse_request(r, c, q, exactly, NULL))) /* no exactly: every field absent */
                return e;
            if ((e = validate_request(r, ci, q)))
                return e;
            min = request_devices(q);
        }
        /* Each request against what is left, so that no count can wrap the
         * sum (Go's int arithmetic, wrapping, as upstream computes it). */
        if (min > (int64_t)((uint64_t)MAX_RESULTS - (uint64_t)min_total))
            return dra_err_new(
                DRA_EXIT_INPUT,
                "claim %s, request %s: adding %lld devices exceeds the claim limit of %d, with %lld already "
                "accounted for",
                c->ref, q->name, (long long)min, MAX_RESULTS, (long long)min_total);
        min_total = (int64_t)((uint64_t)min_total + (uint64_t)min);
    }
    const json_t *cons = dra_jfield(devices, "constraints");
    c->ncons = json_is_array(cons) ? json_array_size(cons) : 0;
    c->cons = dra_arena_zalloc(a, (c->ncons + 1) * sizeof *c->cons);
    for (size_t i = 0; i < c->ncons; i++) {
        const json_t *cj = json_array_get(cons, i);
        al_constraint *x = &c->cons[i];
        x->requests = dra_jfield(cj, "requests");
        if (dra_jfield_str(cj, "matchAttribute")) {
            x->match = true;
            x->attr = dra_jfield_str(cj, "matchAttribute");
        } else if (dra_jfield_str(cj, "distinctAttribute")) {
            x->attr = dra_jfield_str(cj, "distinctAttribute");
        } else {
            return dra_err_new(DRA_EXIT_INPUT,
                               "claim %s, constraint #%zu: empty constraint (unsupported constraint type?)", c->ref, i);
        }
    }
    return NULL;
}

/* ---- the run ----------------------------------------------------------------------------- */

static void run_free(al_run *r)
{
    for (size_t i = 0; i < r->nldev; i++) {
        free(r->allocating ? r->allocating[i] : NULL);
        if (r->capuse)
            dra_al_capuse_free(&r->capuse[i]);
    }
    free(r->allocating);
    free(r->nallocating);
    free(r->capuse);
    free(r->nshares);
    for (size_t i = 0; i < r->ncstates; i++) {
        free(r->cstates[i].e);
        free(r->cstates[i].g);
    }
    free(r->cstates);
    for (size_t i = 0; i < r->nclaims; i++) {
        al_claim *c = &r->claims[i];
        for (size_t k = 0; k < c->nres; k++)
            dra_al_capuse_free(&c->res[k].consumed);
        free(c->res);
        for (size_t k = 0; k < c->nreqs; k++) {
            al_req *q = &c->reqs[k];
            for (size_t s = 0; s <= q->nsubs; s++) {
                al_req *x = s < q->nsubs ? &q->subs[s] : q;
                if (!x->dvals)
                    continue;
                for (size_t m = 0; m < (r->nldev + 1) * x->nderived; m++)
                    json_decref(x->dvals[m]);
                free(x->dvals);
            }
        }
        for (size_t k = 0; k < c->ncons; k++) {
            free(c->cons[k].ref_set);
            free(c->cons[k].level_end);
            free(c->cons[k].vals);
        }
    }
    for (size_t i = 0; i < r->ntraces; i++) {
        for (size_t k = 0; k < r->traces[i].n; k++)
            free(r->traces[i].rej[k].detail);
        free(r->traces[i].rej);
        free(r->traces[i].seen);
    }
    free(r->traces);
    free(r->gens);
    dra_arena_free(&r->arena);
}

/* A search that did not succeed gave back everything it took, in the
 * reverse order it took it: no results, marks, shares, consumed capacity,
 * constraint values or counters left (what in-use claims hold stays), and
 * no explain generation open.  For DRA_ASSERT. */
static bool all_given_back(const al_run *r)
{
    for (size_t i = 0; i < r->nclaims; i++) {
        const al_claim *c = &r->claims[i];
        if (c->nres)
            return false;
        for (size_t k = 0; k < c->ncons; k++)
            if (c->cons[k].ndevices || c->cons[k].nvals || c->cons[k].nref_set)
                return false;
    }
    for (size_t l = 0; r->nallocating && l < r->nldev; l++) {
        if (r->nallocating[l] || r->nshares[l])
            return false;
        for (size_t k = 0; k < r->capuse[l].n; k++)
            if (dra_quantity_sign(&r->capuse[l].q[k]))
                return false;
    }
    for (size_t i = 0; i < r->ncstates; i++) {
        const al_cstate *cs = &r->cstates[i];
        for (size_t k = 0; k < cs->ng; k++)
            if (cs->g[k].dev)
                return false;
        for (size_t k = 0; k < cs->n; k++)
            if (dra_quantity_sign(&cs->e[k].consumed))
                return false;
    }
    return r->ngens == 0;
}

/* What dra_alloc_commit needs of claim c's allocation (al_commit): the
 * claim's names only for a holder (explained runs) or a shared result. */
static void commit_of(const al_claim *c, al_commit *k, bool holders)
{
    k->gids = dra_xcalloc(c->nres + 1, sizeof *k->gids);
    for (size_t j = 0; j < c->nres; j++) {
        k->shares = k->shares || c->res[j].has_share;
        if (!c->res[j].admin)
            k->gids[k->ngids++] = c->res[j].dev->gid;
    }
    if (c->name && (holders || k->shares)) {
        k->ns = dra_xstrdup(c->ns ? c->ns : "");
        k->name = dra_xstrdup(c->name);
    }
}

dra_err *dra_alloc_run(dra_alloc_world *w, const json_t *node, json_t *const *claims, size_t nclaims,
                       const dra_alloc_opts *opts, dra_alloc_result **out)
{
    /* the world's programs are keyed by its own copies, never by the text
     * of claims of earlier runs, which may be gone by now */
    DRA_ASSERT(dra_strmap_keys_intact(&w->progs) && dra_strmap_keys_intact(&w->value_progs));
    static const dra_alloc_opts defaults = {0};
    *out = NULL;
    al_run run = {0};
    al_run *r = &run;
    dra_al_trim(w); /* nothing borrows device JSON between runs */
    r->w = w;
    r->node = node;
    r->node_name = dra_jfield_str(dra_jfield(node, "metadata"), "name");
    r->optional_node_ops =
        w->f.optional_node_operations && dra_node_declares_feature(node, "DRAOptionalNodeOperations");
    r->opts = opts ? opts : &defaults;
    r->run_id = ++w->run_seq;
    clock_gettime(CLOCK_MONOTONIC, &r->start);

    dra_alloc_result *res = dra_xcalloc(1, sizeof *res);
    search s = {r, NULL};
    dra_err *err = dra_al_gather_pools(r);
    if (!err) {
        r->allocating = dra_xcalloc(r->nldev + 1, sizeof *r->allocating);
        r->nallocating = dra_xcalloc(r->nldev + 1, sizeof *r->nallocating);
        r->capuse = dra_xcalloc(r->nldev + 1, sizeof *r->capuse);
        r->nshares = dra_xcalloc(r->nldev + 1, sizeof *r->nshares);
        r->claims = dra_arena_zalloc(&r->arena, (nclaims + 1) * sizeof *r->claims);
        r->nclaims = nclaims;
        for (size_t i = 0; i < nclaims && !err; i++)
            err = prepare_claim(r, (int)i, claims[i]);
    }
    int outcome = R_FAIL;
    if (err && r->node_failure) {
        res->reason = dra_xstrdup(err->msg);
        dra_err_free(err);
        err = NULL;
    } else if (!err) {
        outcome = allocate_one(&s, 0, 0, 0, 0, false, (loc){0, 0, 0});
        if (outcome == R_ERR)
            err = s.err;
        DRA_ASSERT(outcome == R_OK || all_given_back(r));
    }
    if (!err && outcome == R_OK) {
        res->ok = true;
        res->nallocs = nclaims;
        res->allocs = dra_xcalloc(nclaims + 1, sizeof *res->allocs);
        for (size_t i = 0; i < nclaims && !err; i++)
            res->allocs[i] = dra_al_build_allocation(r, &r->claims[i], &err);
        res->commit = dra_xcalloc(nclaims + 1, sizeof *res->commit);
        res->nclaims = nclaims;
        res->holders = r->opts->explain;
        for (size_t i = 0; i < nclaims; i++)
            commit_of(&r->claims[i], &res->commit[i], res->holders);
        if (err) {
            for (size_t i = 0; i < nclaims; i++)
                json_decref(res->allocs[i]);
            free(res->allocs);
            res->allocs = NULL;
            res->nallocs = 0;
            res->ok = false;
        }
    } else if (!err && !res->reason) {
        for (size_t i = 0; i < r->npools; i++)
            if (r->pools[i].invalid) {
                /* "invalid resource pools were encountered"
                 * (allocator_*.go), naming the first invalid pool and why */
                res->reason =
                    dra_xasprintf("invalid resource pools were encountered (%s/%s: %s)", r->pools[i].driver,
                                  r->pools[i].pool, r->pools[i].invalid_reason ? r->pools[i].invalid_reason : "");
                break;
            }
    }
    r->stats.seconds = elapsed(r);
    res->stats = r->stats;
    r->succeeded = !err && outcome == R_OK;
    if (r->opts->explain)
        res->explain = dra_al_explain_build(r);
    run_free(r);
    if (err && !r->opts->explain) {
        dra_alloc_result_free(res);
        return err;
    }
    *out = res;
    return err;
}

bool dra_alloc_result_ok(const dra_alloc_result *r)
{
    return r && r->ok;
}

const char *dra_alloc_result_reason(const dra_alloc_result *r)
{
    return r ? r->reason : NULL;
}

json_t *dra_alloc_result_allocation(const dra_alloc_result *r, size_t i)
{
    if (!r || !r->ok || i >= r->nallocs)
        return NULL;
    return json_incref(r->allocs[i]);
}

const dra_alloc_stats *dra_alloc_result_stats(const dra_alloc_result *r)
{
    return &r->stats;
}

void dra_alloc_result_free(dra_alloc_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nallocs; i++)
        json_decref(r->allocs[i]);
    free(r->allocs);
    for (size_t i = 0; i < r->nclaims; i++) {
        free(r->commit[i].ns);
        free(r->commit[i].name);
        free(r->commit[i].gids);
    }
    free(r->commit);
    free(r->reason);
    json_decref(r->explain);
    free(r);
}
