/* Consumable capacity (dra.md §3.8; upstream incubating/consumable_capacity.go
 * CmpRequestOverCapacity, calculateConsumedCapacity, violatesPolicy). */
#include <stdlib.h>
#include <string.h>

#include "../base/assert.h"
#include "../base/utf8.h"
#include "capacity.h"

static bool parse_q(const json_t *v, unsigned rules, dra_quantity *q)
{
    const char *s = json_string_value(v);
    if (!s && json_is_integer(v)) {
        *q = dra_quantity_from_int64(json_integer_value(v), DRA_QFMT_DECIMAL_SI);
        return true;
    }
    if (!s)
        return false;
    dra_err *e = dra_quantity_parse_rules(s, strlen(s), rules, q);
    if (e) {
        dra_err_free(e);
        return false;
    }
    return true;
}

/* useMilli: the gate on, every bound and the step an exact milli value,
 * the step at least 1m.  (The API's documentation asks for a fractional
 * bound too; upstream's code does not, and its code wins.) */
static bool use_milli(const al_cap_policy *x, bool gate)
{
    int64_t m;
    if (!gate)
        return false;
    if (x->has_min && !dra_quantity_milli_exact(&x->min, &m))
        return false;
    if (x->has_max && !dra_quantity_milli_exact(&x->max, &m))
        return false;
    return !x->has_step || (dra_quantity_milli_exact(&x->step, &m) && m >= 1);
}

dra_err *dra_al_parse_capacity(dra_arena *a, const json_t *cap, bool fractional_range, unsigned qrules,
                               al_capacity **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!json_is_object(cap) || !json_object_size(cap))
        return NULL;
    al_capacity *c = dra_arena_zalloc(a, json_object_size(cap) * sizeof *c);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)cap, k, v) {
        al_capacity *c1 = &c[(*n)++];
        c1->name = k;
        parse_q(dra_jfield(v, "value"), qrules, &c1->value);
        const json_t *pol = dra_jfield(v, "requestPolicy");
        if (!pol)
            continue;
        al_cap_policy *x = dra_arena_zalloc(a, sizeof *x);
        c1->policy = x;
        x->has_default = parse_q(dra_jfield(pol, "default"), qrules, &x->def);
        const json_t *vals = dra_jfield(pol, "validValues");
        if (json_is_array(vals)) {
            x->has_values = true;
            x->values = dra_arena_zalloc(a, (json_array_size(vals) + 1) * sizeof *x->values);
            for (size_t i = 0; i < json_array_size(vals); i++)
                if (parse_q(json_array_get(vals, i), qrules, &x->values[x->nvalues]))
                    x->nvalues++;
        }
        const json_t *rng = dra_jfield(pol, "validRange");
        if (rng) {
            x->has_range = true;
            x->has_min = parse_q(dra_jfield(rng, "min"), qrules, &x->min);
            x->has_max = parse_q(dra_jfield(rng, "max"), qrules, &x->max);
            x->has_step = parse_q(dra_jfield(rng, "step"), qrules, &x->step);
            x->milli = use_milli(x, fractional_range);
        }
    }
    *out = c;
    return NULL;
}

/* Quantity.Value() / MilliValue(), saturating where upstream's int64 would
 * wrap (only bounds beyond the API's limits get there). */
static int64_t q_value(const dra_quantity *q)
{
    int64_t v;
    if (dra_quantity_value(q, &v))
        return v;
    return dra_quantity_sign(q) < 0 ? INT64_MIN : INT64_MAX;
}

static int64_t q_milli(const dra_quantity *q)
{
    int64_t v;
    if (dra_quantity_milli_value(q, &v))
        return v;
    return dra_quantity_sign(q) < 0 ? INT64_MIN : INT64_MAX;
}

/* Go's int64 arithmetic: wrapping, never undefined. */
static int64_t wadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wsub(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

static int64_t wmul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* a / b and a % b truncated, b != 0; MinInt64 / -1 is MinInt64 as in Go. */
static int64_t wdiv(int64_t a, int64_t b)
{
    return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}

static int64_t wmod(int64_t a, int64_t b)
{
    return b == -1 ? 0 : a % b;
}

/* ---- consumed-capacity bookkeeping --------------------------------------------- */

const dra_quantity *dra_al_capuse_get(const al_capuse *u, const char *name)
{
    for (size_t i = 0; i < u->n; i++)
        if (strcmp(u->names[i], name) == 0)
            return &u->q[i];
    return NULL;
}

void dra_al_capuse_set(al_capuse *u, const char *name, const dra_quantity *q)
{
    for (size_t i = 0; i < u->n; i++)
        if (strcmp(u->names[i], name) == 0) {
            u->q[i] = *q;
            return;
        }
    if (u->n == u->cap) {
        u->cap = u->cap ? u->cap * 2 : 4;
        u->names = dra_xrealloc(u->names, u->cap * sizeof *u->names);
        u->q = dra_xrealloc(u->q, u->cap * sizeof *u->q);
    }
    u->names[u->n] = name;
    u->q[u->n++] = *q;
}

void dra_al_capuse_add(al_capuse *u, const al_capuse *add, unsigned qrules)
{
    u->present = true;
    for (size_t i = 0; i < add->n; i++) {
        const dra_quantity *cur = dra_al_capuse_get(u, add->names[i]);
        if (cur) {
            dra_quantity s;
            if (dra_quantity_add_rules(&s, cur, &add->q[i], qrules))
                dra_al_capuse_set(u, add->names[i], &s);
        } else {
            dra_al_capuse_set(u, add->names[i], &add->q[i]);
        }
    }
}

/* ConsumedCapacityCollection.Remove: subtract what exists; an all-zero entry
 * is deleted. */
void dra_al_capuse_sub(al_capuse *u, const al_capuse *sub, unsigned qrules)
{
    if (!u->present)
        return;
    for (size_t i = 0; i < sub->n; i++) {
        const dra_quantity *cur = dra_al_capuse_get(u, sub->names[i]);
        if (cur) {
            dra_quantity s;
            if (dra_quantity_sub_rules(&s, cur, &sub->q[i], qrules))
                dra_al_capuse_set(u, sub->names[i], &s);
        }
    }
    if (dra_al_capuse_all_zero(u)) {
        u->n = 0;
        u->present = false;
    }
}

bool dra_al_capuse_all_zero(const al_capuse *u)
{
    for (size_t i = 0; i < u->n; i++)
        if (!dra_quantity_is_zero(&u->q[i]))
            return false;
    return true;
}

void dra_al_capuse_copy(al_capuse *dst, const al_capuse *src)
{
    *dst = (al_capuse){0};
    dst->present = src->present;
    for (size_t i = 0; i < src->n; i++)
        dra_al_capuse_set(dst, src->names[i], &src->q[i]);
}

void dra_al_capuse_free(al_capuse *u)
{
    free(u->names);
    free(u->q);
    *u = (al_capuse){0};
}

/* ---- policy arithmetic ------------------------------------------------------------- */

/* ---- capacity names ---------------------------------------------------------------- */

/* A capacity name as upstream resolves it (api/types.go
 * MakeFullyQualifiedName, v0.38.0-beta.0): one without domain is the
 * driver's. */
typedef struct capname {
    const char *dom;
    size_t dlen;
    const char *id;
} capname;

static capname resolve(const char *name, const char *driver)
{
    const char *slash = strchr(name, '/');
    if (!slash)
        return (capname){driver, strlen(driver), name};
    return (capname){name, (size_t)(slash - name), slash + 1};
}

static const char *driver_of(const al_device *d)
{
    return d->slice && d->slice->driver ? d->slice->driver : "";
}

/* Whether two capacity names of d name the same capacity: spelled alike
 * through 1.37; from 1.38 on alike once resolved, "memory" being
 * "<driver>/memory" (structured/internal/experimental/consumable_capacity.go
 * resolveCapacityRequests, v0.38.0-beta.0, kubernetes#142202). */
static bool same_capacity(const al_req *req, const al_device *d, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    if (!req->capacity_1_38)
        return false;
    capname x = resolve(a, driver_of(d)), y = resolve(b, driver_of(d));
    return x.dlen == y.dlen && memcmp(x.dom, y.dom, x.dlen) == 0 && strcmp(x.id, y.id) == 0;
}

/* From 1.38 on a capacity published both without domain and with the
 * driver's is one capacity, the qualified entry winning (api/conversion.go
 * Convert_v1_To_api_DeviceCapacities): the plain one is left out. */
static bool shadowed(const al_req *req, const al_device *d, size_t i)
{
    if (!req->capacity_1_38 || strchr(d->cap[i].name, '/'))
        return false;
    for (size_t j = 0; j < d->ncap; j++)
        if (j != i && same_capacity(req, d, d->cap[j].name, d->cap[i].name))
            return true;
    return false;
}

static const dra_quantity *requested(const al_req *req, const al_device *d, const char *name)
{
    for (size_t i = 0; i < req->ncapreq; i++)
        if (same_capacity(req, d, req->capreq[i].name, name))
            return &req->capreq[i].q;
    return NULL;
}

/* What u holds of capacity `name` of d: from 1.38 on under either spelling,
 * as upstream keys consumed capacity by the resolved name
 * (structured/schedulerapi/types.go, v0.38.0-beta.0). */
static void capuse_of(const al_capuse *u, const al_req *req, const al_device *d, const char *name, dra_quantity *sum)
{
    const dra_quantity *x;
    if (!u || !u->present)
        return;
    if ((x = dra_al_capuse_get(u, name)))
        dra_quantity_add_rules(sum, sum, x, req->qrules);
    if (!req->capacity_1_38)
        return;
    const char *drv = driver_of(d);
    capname n = resolve(name, drv);
    if (n.dom != drv && (n.dlen != strlen(drv) || memcmp(n.dom, drv, n.dlen) != 0))
        return; /* another domain: one spelling only */
    char *alt = n.dom == drv ? dra_xasprintf("%s/%s", drv, name) : dra_xstrdup(n.id);
    if ((x = dra_al_capuse_get(u, alt)))
        dra_quantity_add_rules(sum, sum, x, req->qrules);
    free(alt);
}

/* Two requests of one capacity, with and without the driver's domain: an
 * error, even with equal values (resolveCapacityRequests: "capacity %q
 * requested both as %q and as %q", the second name first). */
static dra_err *ambiguous_request(const al_req *req, const al_device *d)
{
    for (size_t j = 1; req->capacity_1_38 && j < req->ncapreq; j++)
        for (size_t i = 0; i < j; i++) {
            const char *rn = req->capreq[j].name;
            if (!same_capacity(req, d, req->capreq[i].name, rn))
                continue;
            capname k = resolve(rn, driver_of(d));
            char *full = dra_xasprintf("%.*s/%s", (int)k.dlen, k.dom, k.id);
            dra_buf b = DRA_BUF_INIT;
            dra_buf_puts(&b, "capacity ");
            dra_go_quote(&b, k.id, strlen(k.id));
            dra_buf_puts(&b, " requested both as ");
            dra_go_quote(&b, rn, strlen(rn));
            dra_buf_puts(&b, " and as ");
            const char *other = strcmp(rn, full) == 0 ? k.id : full;
            dra_go_quote(&b, other, strlen(other));
            dra_err *e = dra_err_new(DRA_EXIT_INPUT, "%s", dra_buf_str(&b));
            dra_buf_free(&b);
            free(full);
            return e;
        }
    return NULL;
}

/* errCapacityRequestNotRepresentable's text, which roundUpRange extends. */
#define NOT_REPRESENTABLE "capacity request cannot be represented in the device's range arithmetic"

/* roundUpRange past the minimum, with a step: min plus whole steps, in
 * milli-units or integers as use_milli chose, in the step's format. */
static dra_err *round_up_step(const dra_quantity *req, const al_cap_policy *c, dra_quantity *out)
{
    int64_t r, step, min;
    char b[DRA_QUANTITY_STRMAX];
    if (c->milli) {
        if (!dra_quantity_milli_exact(req, &r))
            return dra_err_new(DRA_EXIT_INPUT, NOT_REPRESENTABLE ": request %s is not a representable milli value",
                               dra_quantity_format(req, b));
        step = q_milli(&c->step), min = q_milli(&c->min);
    } else {
        /* Above MaxInt64, Value() would wrap. */
        dra_quantity top = dra_quantity_from_int64(INT64_MAX, DRA_QFMT_DECIMAL_SI);
        if (dra_quantity_cmp(req, &top) > 0)
            return dra_err_new(DRA_EXIT_INPUT, NOT_REPRESENTABLE ": request %s exceeds MaxInt64",
                               dra_quantity_format(req, b));
        r = q_value(req), step = q_value(&c->step), min = q_value(&c->min);
    }
    if (step == 0) { /* upstream divides by zero; the API refuses such a step */
        *out = *req;
        return NULL;
    }
    int64_t added = wsub(r, min), n = wdiv(added, step);
    if (wmod(added, step) != 0)
        n++;
    if (c->milli) {
        if (n > wdiv(wsub(INT64_MAX, min), step))
            return dra_err_new(DRA_EXIT_INPUT,
                               NOT_REPRESENTABLE
                               ": rounding request %s up to the next step passes the milli-value range",
                               dra_quantity_format(req, b));
        int64_t v = wadd(min, wmul(step, n));
        *out = v % 1000 == 0 ? dra_quantity_from_int64(v / 1000, c->step.format)
                             : dra_quantity_from_milli(v, c->step.format);
        return NULL;
    }
    /* Guarded only for a minimum the API allows (not negative). */
    if (min >= 0 && n > wdiv(INT64_MAX - min, step))
        return dra_err_new(DRA_EXIT_INPUT,
                           NOT_REPRESENTABLE ": rounding request %s up to the next step passes MaxInt64",
                           dra_quantity_format(req, b));
    *out = dra_quantity_from_int64(wadd(min, wmul(step, n)), c->step.format);
    return NULL;
}

/* calculateConsumedCapacity.  An error: the amount cannot be computed
 * (upstream aborts the allocation). */
static dra_err *consumed_amount(const dra_quantity *req, const al_capacity *cap, dra_quantity *out)
{
    const al_cap_policy *c = cap->policy;
    if (!req)
        *out = (c && c->has_default) ? c->def : cap->value;
    else if (!c)
        *out = *req;
    else if (c->has_range && c->has_min) {
        if (dra_quantity_cmp(req, &c->min) < 0)
            *out = c->min;
        else if (!c->has_step)
            *out = *req;
        else
            return round_up_step(req, c, out);
    } else {
        *out = *req;
        for (size_t i = 0; c->has_values && i < c->nvalues; i++)
            if (dra_quantity_cmp(req, &c->values[i]) <= 0) {
                *out = c->values[i];
                break;
            }
    }
    return NULL;
}

static bool violates_policy(const dra_quantity *v, const al_capacity *cap)
{
    const al_cap_policy *c = cap->policy;
    if (!c)
        return false;
    if (c->has_default && dra_quantity_cmp(v, &c->def) == 0)
        return false;
    if (c->has_range) {
        if (c->has_max && dra_quantity_cmp(v, &c->max) > 0)
            return true;
        if (c->has_step) {
            int64_t (*val)(const dra_quantity *) = c->milli ? q_milli : q_value;
            int64_t step = val(&c->step), min = c->has_min ? val(&c->min) : 0, got = val(v);
            if (c->milli && !dra_quantity_milli_exact(v, &got))
                return true;
            if (step != 0 && wmod(wsub(got, min), step) != 0)
                return true;
        }
        return false;
    }
    if (c->has_values && c->nvalues > 0) {
        for (size_t i = 0; i < c->nvalues; i++)
            if (dra_quantity_cmp(v, &c->values[i]) == 0)
                return false;
        return true;
    }
    return false;
}

bool dra_al_capacity_requests_exist(const al_req *req, const al_device *d)
{
    for (size_t i = 0; i < req->ncapreq; i++) {
        bool found = false;
        for (size_t j = 0; j < d->ncap && !found; j++)
            found = same_capacity(req, d, req->capreq[i].name, d->cap[j].name);
        if (!found)
            return false;
    }
    return true;
}

/* Why req's capacity requests do not exist on d: the first name asked for
 * and the names d publishes ("gpu.example.com/memory requested; the device
 * publishes memory"), cut to whylen. */
static void missing_capacity(const al_req *req, const al_device *d, char *why, size_t whylen)
{
    const char *name = "";
    for (size_t i = 0; i < req->ncapreq && !*name; i++) {
        bool found = false;
        for (size_t j = 0; j < d->ncap && !found; j++)
            found = same_capacity(req, d, req->capreq[i].name, d->cap[j].name);
        if (!found)
            name = req->capreq[i].name;
    }
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "capacity %s requested; the device publishes ", name);
    if (!d->ncap)
        dra_buf_puts(&b, "no capacity");
    for (size_t j = 0; j < d->ncap; j++)
        dra_buf_printf(&b, "%s%s", j ? ", " : "", d->cap[j].name);
    snprintf(why, whylen, "%s", dra_buf_str(&b));
    dra_buf_free(&b);
}

bool dra_al_capacity_fits(const al_req *req, const al_device *d, const al_capuse *agg, const al_capuse *inprog,
                          char *why, size_t whylen, dra_err **fatal)
{
    *fatal = NULL;
    if (!dra_al_capacity_requests_exist(req, d)) {
        if (why)
            missing_capacity(req, d, why, whylen);
        return false;
    }
    if ((*fatal = ambiguous_request(req, d)))
        return false;
    /* Every amount first: an amount that cannot be had aborts, whichever
     * capacity the soft checks below would have stopped at. */
    dra_quantity small[8];
    dra_quantity *need = d->ncap <= 8 ? small : dra_xcalloc(d->ncap, sizeof *need);
    bool fits = true;
    for (size_t i = 0; i < d->ncap && !*fatal; i++) {
        const al_capacity *c = &d->cap[i];
        if (shadowed(req, d, i))
            continue;
        const dra_quantity *rq = requested(req, d, c->name);
        dra_err *e = NULL;
        char b[DRA_QUANTITY_STRMAX];
        /* 1.38 refuses a negative request before the policy can round it up
         * (calculateConsumedCapacity, v0.38.0-beta.0) */
        if (req->capacity_1_38 && rq && dra_quantity_sign(rq) < 0)
            e = dra_err_new(DRA_EXIT_INPUT, "capacity value is negative: request %s", dra_quantity_format(rq, b));
        else
            e = consumed_amount(rq, c, &need[i]);
        if (!e && dra_quantity_sign(&need[i]) < 0)
            e = dra_err_new(DRA_EXIT_INPUT, "capacity value is negative");
        if (e) {
            *fatal = dra_err_new(DRA_EXIT_INPUT, "capacity \"%s\": %s", c->name, e->msg);
            dra_err_free(e);
        }
    }
    for (size_t i = 0; i < d->ncap && fits && !*fatal; i++) {
        const al_capacity *c = &d->cap[i];
        char b1[DRA_QUANTITY_STRMAX], b2[DRA_QUANTITY_STRMAX];
        if (shadowed(req, d, i))
            continue;
        if (violates_policy(&need[i], c)) {
            if (why)
                snprintf(why, whylen, "capacity %s: %s violates the request policy", c->name,
                         dra_quantity_format(&need[i], b1));
            fits = false;
            break;
        }
        dra_quantity total = need[i], used = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
        capuse_of(agg, req, d, c->name, &used);
        capuse_of(inprog, req, d, c->name, &used);
        dra_quantity_add_rules(&total, &total, &used, req->qrules);
        if (dra_quantity_cmp(&total, &c->value) > 0) {
            if (why) {
                dra_quantity left;
                dra_quantity_sub_rules(&left, &c->value, &used, req->qrules);
                snprintf(why, whylen, "capacity %s: needs %s, %s left", c->name, dra_quantity_format(&need[i], b1),
                         dra_quantity_format_canonical(&left, b2));
            }
            fits = false;
        }
    }
    if (need != small)
        free(need);
    return fits && !*fatal;
}

/* GetConsumedCapacityFromRequest: one amount per device capacity.  Only
 * after dra_al_capacity_fits said yes, so every amount can be had. */
void dra_al_capacity_consumed(const al_req *req, const al_device *d, al_capuse *use)
{
    *use = (al_capuse){0};
    use->present = true;
    for (size_t i = 0; i < d->ncap; i++) {
        dra_quantity q;
        if (shadowed(req, d, i))
            continue;
        dra_err *e = consumed_amount(requested(req, d, d->cap[i].name), &d->cap[i], &q);
        DRA_ASSERT(!e);
        if (e) { /* not reached; a result must still have an amount */
            dra_err_free(e);
            q = dra_quantity_from_int64(0, DRA_QFMT_DECIMAL_SI);
        }
        dra_al_capuse_set(use, d->cap[i].name, &q);
    }
}
