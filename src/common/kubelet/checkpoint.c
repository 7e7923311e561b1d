/* The node's checkpoint of prepared claims (see checkpoint.h).
 * Format facts: kubernetes pkg/kubelet/cm/dra/state/{checkpoint.go,state.go}. */
#include "kubelet/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sort.h"
#include "base/wfile.h"
#include "io/json.h"

uint32_t dra_crc32(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

/* ---- growth inside the arena ---- */

static void *agrow(dra_arena *a, void *old, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return old;
    size_t nc = *cap ? *cap * 2 : 4;
    void *p = dra_arena_zalloc(a, nc * size);
    if (n)
        memcpy(p, old, n * size);
    *cap = nc;
    return p;
}

dra_ckpt_claim *dra_ckpt_find_uid(dra_checkpoint *cp, const char *uid)
{
    for (size_t i = 0; i < cp->n; i++)
        if (strcmp(cp->claims[i].uid, uid) == 0)
            return &cp->claims[i];
    return NULL;
}

dra_ckpt_claim *dra_ckpt_find(dra_checkpoint *cp, const char *ns, const char *name)
{
    for (size_t i = 0; i < cp->n; i++)
        if (strcmp(cp->claims[i].namespace_, ns) == 0 && strcmp(cp->claims[i].name, name) == 0)
            return &cp->claims[i];
    return NULL;
}

dra_ckpt_claim *dra_ckpt_add(dra_checkpoint *cp, const char *ns, const char *name, const char *uid)
{
    cp->claims = agrow(&cp->arena, cp->claims, cp->n, &cp->cap, sizeof *cp->claims);
    dra_ckpt_claim *c = &cp->claims[cp->n++];
    memset(c, 0, sizeof *c);
    c->namespace_ = dra_arena_strdup(&cp->arena, ns);
    c->name = dra_arena_strdup(&cp->arena, name);
    c->uid = dra_arena_strdup(&cp->arena, uid);
    return c;
}

void dra_ckpt_remove(dra_checkpoint *cp, dra_ckpt_claim *c)
{
    size_t i = (size_t)(c - cp->claims);
    if (i >= cp->n)
        return;
    memmove(&cp->claims[i], &cp->claims[i + 1], (cp->n - i - 1) * sizeof *c);
    cp->n--;
}

bool dra_ckpt_has_pod(const dra_ckpt_claim *c, const char *pod_uid)
{
    for (size_t i = 0; i < c->n_pods; i++)
        if (strcmp(c->pods[i].uid, pod_uid) == 0)
            return true;
    return false;
}

bool dra_ckpt_add_pod(dra_checkpoint *cp, dra_ckpt_claim *c, const char *pod_uid, const char *pod_name)
{
    for (size_t i = 0; i < c->n_pods; i++) {
        if (strcmp(c->pods[i].uid, pod_uid) == 0) {
            if (pod_name && (!c->pods[i].name || strcmp(c->pods[i].name, pod_name) != 0))
                c->pods[i].name = dra_arena_strdup(&cp->arena, pod_name);
            return false;
        }
    }
    c->pods = agrow(&cp->arena, c->pods, c->n_pods, &c->cap_pods, sizeof *c->pods);
    c->pods[c->n_pods].uid = dra_arena_strdup(&cp->arena, pod_uid);
    c->pods[c->n_pods].name = pod_name ? dra_arena_strdup(&cp->arena, pod_name) : NULL;
    c->n_pods++;
    return true;
}

void dra_ckpt_remove_pod(dra_ckpt_claim *c, const char *pod_uid)
{
    for (size_t i = 0; i < c->n_pods; i++) {
        if (strcmp(c->pods[i].uid, pod_uid) == 0) {
            memmove(&c->pods[i], &c->pods[i + 1], (c->n_pods - i - 1) * sizeof *c->pods);
            c->n_pods--;
            return;
        }
    }
}

unsigned dra_skip_ops_mask(const json_t *ops)
{
    unsigned m = 0;
    size_t i;
    json_t *v;
    json_array_foreach(ops, i, v) {
        const char *s = json_string_value(v);
        if (!s)
            continue;
        if (strcmp(s, "*") == 0)
            m |= DRA_SKIP_ALL;
        else if (strcmp(s, "NodePrepareResources") == 0)
            m |= DRA_SKIP_PREPARE;
        else if (strcmp(s, "NodeUnprepareResources") == 0)
            m |= DRA_SKIP_UNPREPARE;
    }
    return m;
}

dra_ckpt_driver *dra_ckpt_driver_get(dra_checkpoint *cp, dra_ckpt_claim *c, const char *driver)
{
    for (size_t i = 0; i < c->n_drivers; i++)
        if (strcmp(c->drivers[i].name, driver) == 0)
            return &c->drivers[i];
    dra_ckpt_driver *d = dra_arena_zalloc(&cp->arena, (c->n_drivers + 1) * sizeof *d);
    if (c->n_drivers)
        memcpy(d, c->drivers, c->n_drivers * sizeof *d);
    c->drivers = d;
    d = &c->drivers[c->n_drivers++];
    d->name = dra_arena_strdup(&cp->arena, driver);
    return d;
}

static char **copy_strs(dra_arena *a, char *const *v, size_t n)
{
    char **o = dra_arena_zalloc(a, (n + 1) * sizeof *o);
    for (size_t i = 0; i < n; i++)
        o[i] = dra_arena_strdup(a, v[i] ? v[i] : "");
    return o;
}

dra_ckpt_driver *dra_ckpt_set_devices(dra_checkpoint *cp, dra_ckpt_claim *c, const char *driver,
                                      const dra_prep_device *devs, size_t n)
{
    dra_ckpt_driver *d = dra_ckpt_driver_get(cp, c, driver);
    d->n_devices = n;
    d->devices = dra_arena_zalloc(&cp->arena, (n + 1) * sizeof *d->devices);
    for (size_t i = 0; i < n; i++) {
        const dra_prep_device *s = &devs[i];
        dra_ckpt_device *x = &d->devices[i];
        x->pool = dra_arena_strdup(&cp->arena, s->pool ? s->pool : "");
        x->device = dra_arena_strdup(&cp->arena, s->device ? s->device : "");
        x->requests = copy_strs(&cp->arena, s->requests, s->n_requests);
        x->n_requests = s->n_requests;
        x->cdi_ids = copy_strs(&cp->arena, s->cdi_ids, s->n_cdi_ids);
        x->n_cdi_ids = s->n_cdi_ids;
        x->share_id = s->share_id ? dra_arena_strdup(&cp->arena, s->share_id) : NULL;
    }
    return d;
}

void dra_ckpt_driver_add_file(dra_checkpoint *cp, dra_ckpt_driver *d, const char *path)
{
    for (size_t i = 0; i < d->n_spec_files; i++)
        if (strcmp(d->spec_files[i], path) == 0)
            return;
    char **v = dra_arena_zalloc(&cp->arena, (d->n_spec_files + 1) * sizeof *v);
    if (d->n_spec_files)
        memcpy(v, d->spec_files, d->n_spec_files * sizeof *v);
    v[d->n_spec_files++] = dra_arena_strdup(&cp->arena, path);
    d->spec_files = v;
}

void dra_ckpt_free(dra_checkpoint *cp)
{
    dra_arena_free(&cp->arena);
    cp->claims = NULL;
    cp->n = cp->cap = 0;
}

/* ---- reading ---- */

typedef struct rd {
    const char *file;
    dra_arena *a;
    dra_err *err;
    dra_arena scratch; /* field paths */
} rd;

#define P(...) dra_arena_printf(&r->scratch, __VA_ARGS__)

static void rd_fail(rd *r, const char *field, const char *fmt, ...) DRA_PRINTF(3, 4);
static void rd_fail(rd *r, const char *field, const char *fmt, ...)
{
    if (r->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = dra_xvasprintf(fmt, ap);
    va_end(ap);
    r->err = dra_err_new(DRA_EXIT_RUNTIME, "checkpoint is damaged: %s", msg);
    free(msg);
    r->err = dra_err_at(r->err, r->file, 0, 0, 0);
    if (field)
        r->err = dra_err_field(r->err, field);
}

/* A string member; NULL when absent or null and !required. */
static char *rd_str(rd *r, const json_t *obj, const char *key, const char *path, bool required)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) {
        if (required)
            rd_fail(r, path, "Required value");
        return NULL;
    }
    if (!json_is_string(v)) {
        rd_fail(r, path, "expected a string, got %s", dra_json_type_name(v));
        return NULL;
    }
    return dra_arena_strndup(r->a, json_string_value(v), json_string_length(v));
}

static char **rd_strs(rd *r, const json_t *obj, const char *key, const char *path, size_t *n)
{
    *n = 0;
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_array(v)) {
        rd_fail(r, path, "expected an array, got %s", dra_json_type_name(v));
        return NULL;
    }
    char **out = dra_arena_zalloc(r->a, (json_array_size(v) + 1) * sizeof *out);
    size_t i;
    json_t *s;
    json_array_foreach(v, i, s) {
        if (!json_is_string(s)) {
            rd_fail(r, P("%s[%zu]", path, i), "expected a string, got %s", dra_json_type_name(s));
            return NULL;
        }
        out[i] = dra_arena_strndup(r->a, json_string_value(s), json_string_length(s));
    }
    *n = json_array_size(v);
    return out;
}

static void rd_devices(rd *r, const json_t *devs, const char *path, dra_ckpt_driver *d)
{
    if (!devs || json_is_null(devs))
        return;
    if (!json_is_array(devs)) {
        rd_fail(r, path, "expected an array, got %s", dra_json_type_name(devs));
        return;
    }
    d->n_devices = json_array_size(devs);
    d->devices = dra_arena_zalloc(r->a, (d->n_devices + 1) * sizeof *d->devices);
    size_t i;
    json_t *dv;
    json_array_foreach(devs, i, dv) {
        const char *p = P("%s[%zu]", path, i);
        if (!json_is_object(dv)) {
            rd_fail(r, p, "expected an object, got %s", dra_json_type_name(dv));
            return;
        }
        dra_ckpt_device *x = &d->devices[i];
        x->pool = rd_str(r, dv, "PoolName", P("%s.PoolName", p), false);
        x->device = rd_str(r, dv, "DeviceName", P("%s.DeviceName", p), false);
        x->share_id = rd_str(r, dv, "ShareID", P("%s.ShareID", p), false);
        x->requests = rd_strs(r, dv, "RequestNames", P("%s.RequestNames", p), &x->n_requests);
        x->cdi_ids = rd_strs(r, dv, "CDIDeviceIDs", P("%s.CDIDeviceIDs", p), &x->n_cdi_ids);
        if (!x->pool)
            x->pool = dra_arena_strdup(r->a, "");
        if (!x->device)
            x->device = dra_arena_strdup(r->a, "");
        if (r->err)
            return;
    }
}

static void rd_entry(rd *r, dra_checkpoint *cp, const json_t *e, size_t idx)
{
    const char *p = P("Data.Entries[%zu]", idx), *q;
    if (!json_is_object(e)) {
        rd_fail(r, p, "expected an object, got %s", dra_json_type_name(e));
        return;
    }
    q = P("%s.ClaimUID", p);
    char *uid = rd_str(r, e, "ClaimUID", q, true);
    q = P("%s.ClaimName", p);
    char *name = rd_str(r, e, "ClaimName", q, true);
    q = P("%s.Namespace", p);
    char *ns = rd_str(r, e, "Namespace", q, true);
    if (r->err)
        return;
    if (dra_ckpt_find(cp, ns, name)) {
        q = P("%s.ClaimName", p);
        rd_fail(r, q, "Duplicate value: ResourceClaim %s/%s is listed twice", ns, name);
        return;
    }
    dra_ckpt_claim *c = dra_ckpt_add(cp, ns, name, uid);

    json_t *pods = json_object_get(e, "PodUIDs");
    q = P("%s.PodUIDs", p);
    if (pods && !json_is_null(pods) && !json_is_object(pods)) {
        rd_fail(r, q, "expected an object, got %s", dra_json_type_name(pods));
        return;
    }
    json_t *names = json_object_get(e, "PodNames");
    if (names && !json_is_null(names) && !json_is_object(names)) {
        q = P("%s.PodNames", p);
        rd_fail(r, q, "expected an object, got %s", dra_json_type_name(names));
        return;
    }
    const char *k;
    json_t *v;
    if (pods) {
        json_object_foreach(pods, k, v) {
            json_t *nm = names ? json_object_get(names, k) : NULL;
            if (nm && !json_is_string(nm)) {
                q = P("%s.PodNames[%.200s]", p, k);
                rd_fail(r, q, "expected a string, got %s", dra_json_type_name(nm));
                return;
            }
            dra_ckpt_add_pod(cp, c, k, nm ? json_string_value(nm) : NULL);
        }
    }

    json_t *ds = json_object_get(e, "DriverState");
    if (ds && !json_is_null(ds)) {
        if (!json_is_object(ds)) {
            q = P("%s.DriverState", p);
            rd_fail(r, q, "expected an object, got %s", dra_json_type_name(ds));
            return;
        }
        json_object_foreach(ds, k, v) {
            q = P("%s.DriverState[%.200s]", p, k);
            if (!json_is_object(v)) {
                rd_fail(r, q, "expected an object, got %s", dra_json_type_name(v));
                return;
            }
            dra_ckpt_driver *d = dra_ckpt_driver_get(cp, c, k);
            rd_devices(r, json_object_get(v, "Devices"), P("%s.Devices", q), d);
            if (r->err)
                return;
            json_t *skip = json_object_get(v, "SkipNodeOperations");
            if (skip && !json_is_null(skip) && !json_is_array(skip)) {
                rd_fail(r, P("%s.SkipNodeOperations", q), "expected an array, got %s", dra_json_type_name(skip));
                return;
            }
            d->skip = dra_skip_ops_mask(skip);
            d->spec_files = rd_strs(r, v, "CDISpecFiles", P("%s.CDISpecFiles", q), &d->n_spec_files);
            if (r->err)
                return;
        }
    }
    json_t *prep = json_object_get(e, "Prepared");
    if (prep && !json_is_null(prep)) {
        if (!json_is_boolean(prep)) {
            q = P("%s.Prepared", p);
            rd_fail(r, q, "expected a boolean, got %s", dra_json_type_name(prep));
            return;
        }
        c->prepared = json_is_true(prep);
    }
}

dra_err *dra_ckpt_parse(const char *data, size_t len, const char *name, dra_checkpoint *out)
{
    rd r = {name, &out->arena, NULL, DRA_ARENA_INIT};
    json_error_t je;
    json_t *outer = json_loadb(data, len, JSON_DECODE_ANY, &je);
    if (!outer) {
        dra_err *e = dra_err_new(DRA_EXIT_RUNTIME, "checkpoint is damaged: not JSON: %s", je.text);
        return dra_err_at(e, name, 0, je.line > 0 ? je.line : 0, 0);
    }
    json_t *inner = NULL;
    if (!json_is_object(outer)) {
        rd_fail(&r, NULL, "expected a JSON object, got %s", dra_json_type_name(outer));
        goto done;
    }
    json_t *d = json_object_get(outer, "Data");
    json_t *cs = json_object_get(outer, "Checksum");
    if (!d || !json_is_string(d)) {
        rd_fail(&r, "Data", d ? "expected a string" : "Required value");
        goto done;
    }
    if (!cs || !json_is_integer(cs) || json_integer_value(cs) < 0 || json_integer_value(cs) > 0xFFFFFFFFll) {
        rd_fail(&r, "Checksum", cs ? "expected an unsigned 32-bit integer" : "Required value");
        goto done;
    }
    uint32_t want = (uint32_t)json_integer_value(cs);
    uint32_t got = dra_crc32(json_string_value(d), json_string_length(d));
    if (want != got) {
        dra_err *e = dra_err_new(DRA_EXIT_RUNTIME,
                                 "checkpoint is corrupt: checksum %u does not match its data (computed %u); "
                                 "it still names the claims prepared on this node, so it is not reset: "
                                 "restore it, or unprepare those claims with the driver and then remove it",
                                 want, got);
        r.err = dra_err_at(e, name, 0, 0, 0);
        goto done;
    }
    inner = json_loadb(json_string_value(d), json_string_length(d), JSON_DECODE_ANY, &je);
    if (inner && !json_is_object(inner)) {
        rd_fail(&r, "Data", "expected a JSON object, got %s", dra_json_type_name(inner));
        goto done;
    }
    if (!inner) {
        rd_fail(&r, "Data", "not a JSON object: %s", je.text);
        goto done;
    }
    json_t *kind = json_object_get(inner, "kind"), *av = json_object_get(inner, "apiVersion");
    if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), DRA_CKPT_KIND) != 0)) {
        rd_fail(&r, "Data.kind", "Unsupported value: must be \"%s\"", DRA_CKPT_KIND);
        goto done;
    }
    if (av && (!json_is_string(av) || strcmp(json_string_value(av), DRA_CKPT_API_VERSION) != 0)) {
        rd_fail(&r, "Data.apiVersion", "Unsupported value: must be \"%s\"", DRA_CKPT_API_VERSION);
        goto done;
    }
    json_t *entries = json_object_get(inner, "Entries");
    if (entries && !json_is_null(entries)) {
        if (!json_is_array(entries)) {
            rd_fail(&r, "Data.Entries", "expected an array, got %s", dra_json_type_name(entries));
            goto done;
        }
        size_t i;
        json_t *e;
        json_array_foreach(entries, i, e) {
            rd_entry(&r, out, e, i);
            if (r.err)
                break;
        }
    }
done:
    json_decref(inner);
    json_decref(outer);
    dra_arena_free(&r.scratch);
    if (r.err)
        dra_ckpt_free(out);
    return r.err;
}

/* ---- writing ---- */

static int cmp_claim(const void *a, const void *b)
{
    const dra_ckpt_claim *x = *(dra_ckpt_claim *const *)a, *y = *(dra_ckpt_claim *const *)b;
    int c = strcmp(x->namespace_, y->namespace_);
    return c ? c : strcmp(x->name, y->name);
}

static int cmp_pod(const void *a, const void *b)
{
    return strcmp(((const dra_ckpt_pod *)a)->uid, ((const dra_ckpt_pod *)b)->uid);
}

static int cmp_driver(const void *a, const void *b)
{
    return strcmp(((const dra_ckpt_driver *)a)->name, ((const dra_ckpt_driver *)b)->name);
}

static json_t *strs_json(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

void dra_ckpt_serialize(const dra_checkpoint *cp, dra_buf *out)
{
    const dra_ckpt_claim **order = dra_xmalloc((cp->n + 1) * sizeof *order);
    for (size_t i = 0; i < cp->n; i++)
        order[i] = &cp->claims[i];
    dra_sort(order, cp->n, sizeof *order, cmp_claim);

    json_t *entries = json_array();
    for (size_t i = 0; i < cp->n; i++) {
        const dra_ckpt_claim *c = order[i];
        json_t *e = json_object();
        json_object_set_new(e, "ClaimUID", json_string(c->uid));
        json_object_set_new(e, "ClaimName", json_string(c->name));
        json_object_set_new(e, "Namespace", json_string(c->namespace_));
        dra_ckpt_pod *pods = dra_xmalloc((c->n_pods + 1) * sizeof *pods);
        if (c->n_pods)
            memcpy(pods, c->pods, c->n_pods * sizeof *pods);
        dra_sort(pods, c->n_pods, sizeof *pods, cmp_pod);
        json_t *pu = json_object(), *pn = json_object();
        for (size_t j = 0; j < c->n_pods; j++) {
            json_object_set_new(pu, pods[j].uid, json_object());
            if (pods[j].name)
                json_object_set_new(pn, pods[j].uid, json_string(pods[j].name));
        }
        free(pods);
        json_object_set_new(e, "PodUIDs", pu);
        dra_ckpt_driver *drv = dra_xmalloc((c->n_drivers + 1) * sizeof *drv);
        if (c->n_drivers)
            memcpy(drv, c->drivers, c->n_drivers * sizeof *drv);
        dra_sort(drv, c->n_drivers, sizeof *drv, cmp_driver);
        json_t *ds = json_object();
        for (size_t j = 0; j < c->n_drivers; j++) {
            json_t *devs = json_array();
            for (size_t k = 0; k < drv[j].n_devices; k++) {
                const dra_ckpt_device *x = &drv[j].devices[k];
                json_t *o = json_object();
                json_object_set_new(o, "PoolName", json_string(x->pool));
                json_object_set_new(o, "DeviceName", json_string(x->device));
                json_object_set_new(o, "ShareID", x->share_id ? json_string(x->share_id) : json_null());
                json_object_set_new(o, "RequestNames", strs_json(x->requests, x->n_requests));
                json_object_set_new(o, "CDIDeviceIDs", strs_json(x->cdi_ids, x->n_cdi_ids));
                json_array_append_new(devs, o);
            }
            json_t *st = json_object();
            json_object_set_new(st, "Devices", devs);
            if (drv[j].skip) {
                json_t *ops = json_array();
                if (drv[j].skip & DRA_SKIP_PREPARE)
                    json_array_append_new(ops, json_string("NodePrepareResources"));
                if (drv[j].skip & DRA_SKIP_UNPREPARE)
                    json_array_append_new(ops, json_string("NodeUnprepareResources"));
                json_object_set_new(st, "SkipNodeOperations", ops);
            }
            if (drv[j].n_spec_files)
                json_object_set_new(st, "CDISpecFiles", strs_json(drv[j].spec_files, drv[j].n_spec_files));
            json_object_set_new(ds, drv[j].name, st);
        }
        free(drv);
        json_object_set_new(e, "DriverState", ds);
        json_object_set_new(e, "Prepared", json_boolean(c->prepared));
        json_object_set_new(e, "PodNames", pn);
        json_array_append_new(entries, e);
    }
    free(order);
    json_t *inner = json_object();
    json_object_set_new(inner, "kind", json_string(DRA_CKPT_KIND));
    json_object_set_new(inner, "apiVersion", json_string(DRA_CKPT_API_VERSION));
    json_object_set_new(inner, "Entries", entries);
    char *data = json_dumps(inner, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(inner);
    if (!data)
        abort();
    json_t *outer = json_object();
    json_object_set_new(outer, "Data", json_string(data));
    json_object_set_new(outer, "Checksum", json_integer((json_int_t)dra_crc32(data, strlen(data))));
    free(data);
    char *text = json_dumps(outer, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(outer);
    if (!text)
        abort();
    dra_buf_puts(out, text);
    dra_buf_putc(out, '\n');
    free(text);
}

/* ---- the file ---- */

static dra_err *sys_err(const char *what, const char *path)
{
    return dra_err_new(DRA_EXIT_RUNTIME, "%s %s: %s", what, path, strerror(errno));
}

dra_err *dra_ckpt_open(const char *path, dra_ckpt_file **out)
{
    *out = NULL;
    char *lock = dra_xasprintf("%s.lock", path);
    /* never through a link planted at the lock's name; only a regular file */
    int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    if (fd < 0) {
        dra_err *e = errno == ELOOP
                         ? dra_err_new(DRA_EXIT_RUNTIME,
                                       "checkpoint lock %s is a symbolic link, which is not followed: remove it", lock)
                     : errno == EINVAL ? dra_err_new(DRA_EXIT_RUNTIME, "checkpoint lock %s is not a regular file", lock)
                                       : sys_err("opening checkpoint lock", lock);
        free(lock);
        return e;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR)
            continue;
        dra_err *e = sys_err("locking", lock);
        close(fd);
        free(lock);
        return e;
    }
    free(lock);
    dra_ckpt_file *f = dra_xcalloc(1, sizeof *f);
    f->path = dra_xstrdup(path);
    f->lock_fd = fd;
    int cfd = open(path, O_RDONLY | O_CLOEXEC);
    if (cfd < 0) {
        if (errno == ENOENT) {
            *out = f;
            return NULL;
        }
        dra_err *e = sys_err("opening checkpoint", path);
        dra_ckpt_close(f);
        return e;
    }
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_fd(&b, cfd, path, DRA_CKPT_MAX_BYTES);
    close(cfd);
    if (e) {
        e->code = DRA_EXIT_RUNTIME;
    } else if (b.len == 0) {
        e = dra_err_at(dra_err_new(DRA_EXIT_RUNTIME, "checkpoint is damaged: the file is empty"), path, 0, 0, 0);
    } else {
        e = dra_ckpt_parse(b.data, b.len, path, &f->cp);
    }
    f->disk = b;
    f->on_disk = true;
    if (e) {
        dra_ckpt_close(f);
        return e;
    }
    *out = f;
    return NULL;
}

dra_err *dra_ckpt_save(dra_ckpt_file *f)
{
    dra_buf b = DRA_BUF_INIT;
    dra_ckpt_serialize(&f->cp, &b);
    if (f->on_disk && b.len == f->disk.len && memcmp(b.data, f->disk.data, b.len) == 0) {
        dra_buf_free(&b);
        return NULL;
    }
    dra_err *e = dra_wfile_replace(f->path, b.data, b.len, 0600, DRA_WFILE_SYNC | DRA_WFILE_EXACT_MODE);
    if (e) {
        dra_buf_free(&b);
        return e;
    }
    dra_buf_free(&f->disk);
    f->disk = b;
    f->on_disk = true;
    return NULL;
}

void dra_ckpt_close(dra_ckpt_file *f)
{
    if (!f)
        return;
    dra_ckpt_free(&f->cp);
    dra_buf_free(&f->disk);
    if (f->lock_fd >= 0)
        close(f->lock_fd); /* releases the flock */
    free(f->path);
    free(f);
}
