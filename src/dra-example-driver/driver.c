/* The example driver's work: "prepare" a claim by writing a CDI spec file
 * <cdi-dir>/<driver>-<claim uid>-<device>.json per device (atomically, so a
 * repeated prepare rewrites the same bytes: idempotent) and answering each
 * device with the CDI ID <driver>/gpu=<claim uid>-<device>; unprepare removes
 * the claim's files.
 * The devices are those of the claim's allocation for this driver, read from
 * --claims (a snapshot standing in for the API server GET a driver makes,
 * with the kubelet plugin helper's checks); without --claims, one device
 * derived from the claim UID. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/hash.h"
#include "io/stream.h"
#include "example.h"

static void say(ex_driver *d, const char *fmt, ...) DRA_PRINTF(2, 3);
static void say(ex_driver *d, const char *fmt, ...)
{
    if (!d->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(d->log, "dra-example-driver: ");
    vfprintf(d->log, fmt, ap);
    fputc('\n', d->log);
    va_end(ap);
}

static unsigned device_of(const ex_driver *d, const char *uid)
{
    uint32_t h = dra_fnv1a32_str(DRA_FNV32_OFFSET, uid);
    return h % (unsigned)(d->devices > 0 ? d->devices : 1);
}

static bool listed(char **v, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], uid) == 0)
            return true;
    return false;
}

static const char *fault_of(const ex_driver *d, const char *uid)
{
    for (size_t i = 0; i < d->nfail; i++)
        if (strcmp(d->fail[i].uid, uid) == 0)
            return d->fail[i].msg;
    return NULL;
}

/* A CDI name may hold [A-Za-z0-9_.:-]; replace anything else. */
static char *cdi_name(dra_arena *a, const char *uid, const char *dev)
{
    char *s = dra_arena_printf(a, "%s%s%s", uid, dev ? "-" : "", dev ? dev : "");
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '.' || *p == ':' || *p == '-'))
            *p = '_';
    return s;
}

static char *spec_path(const ex_driver *d, dra_arena *a, const char *name)
{
    return dra_arena_printf(a, "%s/%s-%s.json", d->cdi_dir, d->name, name);
}

static dra_err *write_atomic(const char *path, const char *data, size_t len)
{
    char *tmp = dra_xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    dra_err *e = NULL;
    if (fd < 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "create %s: %s", tmp, strerror(errno));
    } else {
        size_t off = 0;
        while (off < len) {
            ssize_t n = write(fd, data + off, len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                e = dra_err_new(DRA_EXIT_RUNTIME, "write %s: %s", tmp, strerror(errno));
                break;
            }
            off += (size_t)n;
        }
        if (!e && fsync(fd) < 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "fsync %s: %s", tmp, strerror(errno));
        close(fd);
        if (!e && rename(tmp, path) < 0)
            e = dra_err_new(DRA_EXIT_RUNTIME, "rename %s: %s", path, strerror(errno));
        if (e)
            unlink(tmp);
    }
    free(tmp);
    return e;
}

/* The CDI spec of one prepared claim. */
static dra_err *write_spec(const ex_driver *d, const char *path, const char *name, const dra_claim_ref *c, const char *dev)
{
    json_t *spec = json_pack("{s:s,s:s,s:[{s:s,s:{s:[s,s,s]}}]}", "cdiVersion", "0.6.0", "kind",
                             "gpu.example.com/gpu", "devices", "name", name, "containerEdits", "env",
                             "GPU_DEVICE=gpu-", "DRA_CLAIM_UID=", "DRA_CLAIM=");
    /* fill the env values */
    json_t *env = json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0), "containerEdits"),
                                  "env");
    char *v;
    v = dra_xasprintf("GPU_DEVICE=%s", dev);
    json_array_set_new(env, 0, json_string(v));
    free(v);
    v = dra_xasprintf("DRA_CLAIM_UID=%s", c->uid);
    json_array_set_new(env, 1, json_string(v));
    free(v);
    v = dra_xasprintf("DRA_CLAIM=%s/%s", c->namespace_, c->name);
    json_array_set_new(env, 2, json_string(v));
    free(v);
    json_object_set_new(spec, "kind", json_sprintf("%s/gpu", d->name));
    char *text = json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    dra_err *e = write_atomic(path, text, strlen(text));
    free(text);
    json_decref(spec);
    return e;
}

static void pause_for(ex_driver *d, dra_grpc_reply *rep)
{
    rep->delay_ms = d->delay_ms;
    if (d->garbage) {
        /* a message prefix announcing 4096 bytes, then 3: a truncated frame */
        rep->raw = true;
        dra_buf_append(&rep->body, "\0\0\0\x10\0abc", 8);
    }
}

/* The devices `c` gets: with --claims, the results of the claim's allocation
 * for this driver, after the kubelet plugin helper's checks
 * (k8s.io/dynamic-resource-allocation/kubeletplugin: "retrieve claim",
 * "not allocated", "got replaced") and dra-example-driver's own
 * ("requested device is not allocatable"); else one device from the UID.
 * NULL when fine, else the per-claim error (arena). */
static const char *allocated(const ex_driver *d, const dra_objset *set, const dra_claim_ref *c, dra_arena *a,
                             dra_prep_device **out, size_t *n_out)
{
    const char *pool = d->node ? d->node : "pool";
    if (!d->claims_path) {
        dra_prep_device *dv = dra_arena_zalloc(a, sizeof *dv);
        dv->pool = (char *)pool;
        dv->device = dra_arena_printf(a, "gpu-%u", device_of(d, c->uid));
        *out = dv;
        *n_out = 1;
        return NULL;
    }
    const json_t *claim = NULL;
    for (size_t i = 0; i < set->n && !claim; i++) {
        const json_t *o = set->v[i].json, *md = json_object_get(o, "metadata");
        const char *kind = json_string_value(json_object_get(o, "kind"));
        const char *ns = json_string_value(json_object_get(md, "namespace"));
        const char *name = json_string_value(json_object_get(md, "name"));
        if (kind && strcmp(kind, "ResourceClaim") == 0 && name && strcmp(name, c->name) == 0 &&
            strcmp(ns ? ns : "default", c->namespace_) == 0)
            claim = o;
    }
    if (!claim)
        return dra_arena_printf(a, "retrieve claim %s/%s: resourceclaims.resource.k8s.io \"%s\" not found",
                                c->namespace_, c->name, c->name);
    const json_t *alloc = json_object_get(json_object_get(claim, "status"), "allocation");
    if (!json_is_object(alloc))
        return dra_arena_printf(a, "claim %s/%s not allocated", c->namespace_, c->name);
    const char *uid = json_string_value(json_object_get(json_object_get(claim, "metadata"), "uid"));
    if (!uid || strcmp(uid, c->uid) != 0)
        return dra_arena_printf(a, "claim %s/%s got replaced", c->namespace_, c->name);
    const json_t *results = json_object_get(json_object_get(alloc, "devices"), "results");
    size_t n = json_array_size(results), k = 0;
    dra_prep_device *dv = dra_arena_zalloc(a, (n ? n : 1) * sizeof *dv);
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(results, i);
        const char *drv = json_string_value(json_object_get(r, "driver"));
        const char *dev = json_string_value(json_object_get(r, "device"));
        const char *rp = json_string_value(json_object_get(r, "pool"));
        const char *req = json_string_value(json_object_get(r, "request"));
        if (!drv || strcmp(drv, d->name) != 0)
            continue; /* another driver's device */
        char *end = NULL;
        long idx = dev && strncmp(dev, "gpu-", 4) == 0 && dev[4] ? strtol(dev + 4, &end, 10) : -1;
        if (idx < 0 || idx >= d->devices || (end && *end))
            return dra_arena_printf(a, "error preparing devices for claim %s: requested device is not allocatable: %s",
                                    c->uid, dev ? dev : "");
        dv[k].pool = dra_arena_strdup(a, rp ? rp : pool);
        dv[k].device = dra_arena_strdup(a, dev);
        if (req) {
            dv[k].requests = dra_arena_zalloc(a, sizeof *dv[k].requests);
            dv[k].requests[0] = dra_arena_strdup(a, req);
            dv[k].n_requests = 1;
        }
        k++;
    }
    *out = dv;
    *n_out = k;
    return NULL;
}

static void prepare(void *ctx, const char *svc, const dra_claim_ref *claims, size_t n, dra_arena *a,
                    dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep)
{
    ex_driver *d = ctx;
    d->calls++;
    say(d, "NodePrepareResources (%s): %zu claim(s)", svc, n);
    dra_prep_claim *cl = dra_arena_zalloc(a, (n + d->nextra + 1) * sizeof *cl);
    size_t k = 0;
    /* the claims as the driver would GET them now */
    dra_objset set = DRA_OBJSET_INIT;
    const char *read_err = NULL;
    if (d->claims_path) {
        dra_err *e = dra_read_path(&set, d->claims_path);
        if (e) {
            read_err = dra_arena_strdup(a, e->msg);
            dra_err_free(e);
        }
    }
    const bool claims_ok = !read_err;
    for (size_t i = 0; i < n; i++) {
        const dra_claim_ref *c = &claims[i];
        if (listed(d->omit, d->nomit, c->uid))
            continue;
        dra_prep_claim *o = &cl[k++];
        o->uid = (char *)c->uid;
        const char *f = fault_of(d, c->uid);
        if (f) {
            o->error = (char *)f;
            continue;
        }
        if (!*c->uid) {
            o->error = "claim UID is empty";
            continue;
        }
        dra_prep_device *dv = NULL;
        size_t ndv = 0;
        const char *err = claims_ok ? allocated(d, &set, c, a, &dv, &ndv)
                                    : dra_arena_printf(a, "retrieve claim %s/%s: %s", c->namespace_, c->name, read_err);
        for (size_t j = 0; !err && j < ndv; j++) {
            char *name = cdi_name(a, c->uid, dv[j].device);
            dra_err *e = write_spec(d, spec_path(d, a, name), name, c, dv[j].device);
            if (e) {
                err = dra_arena_printf(a, "prepare claim %s/%s: %s", c->namespace_, c->name, e->msg);
                dra_err_free(e);
                break;
            }
            size_t extra = d->pad_bytes ? d->pad_bytes / 64 + 1 : 0;
            dv[j].cdi_ids = dra_arena_zalloc(a, (1 + extra) * sizeof *dv[j].cdi_ids);
            dv[j].cdi_ids[0] = dra_arena_printf(a, "%s/gpu=%s", d->name, name);
            for (size_t x = 0; x < extra; x++)
                dv[j].cdi_ids[1 + x] = dra_arena_printf(a, "%s/gpu=pad-%048zu", d->name, x);
            dv[j].n_cdi_ids = 1 + extra;
            say(d, "prepared %s/%s (%s): %s", c->namespace_, c->name, c->uid, dv[j].device);
        }
        if (err) {
            o->error = (char *)err;
            continue;
        }
        o->devices = dv;
        o->n_devices = ndv;
    }
    if (d->claims_path)
        dra_objset_free(&set);
    for (size_t i = 0; i < d->nextra; i++)
        cl[k++].uid = d->extra[i];
    *out = cl;
    *n_out = k;
    pause_for(d, rep);
}

static void unprepare(void *ctx, const char *svc, const dra_claim_ref *claims, size_t n, dra_arena *a,
                      dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep)
{
    ex_driver *d = ctx;
    d->calls++;
    say(d, "NodeUnprepareResources (%s): %zu claim(s)", svc, n);
    dra_prep_claim *cl = dra_arena_zalloc(a, (n + d->nextra + 1) * sizeof *cl);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const dra_claim_ref *c = &claims[i];
        if (listed(d->omit, d->nomit, c->uid))
            continue;
        dra_prep_claim *o = &cl[k++];
        o->uid = (char *)c->uid;
        const char *f = fault_of(d, c->uid);
        if (f) {
            o->error = (char *)f;
            continue;
        }
        /* every device file of the claim: <driver>-<uid>-<device>.json */
        char *prefix = dra_arena_printf(a, "%s-%s-", d->name, cdi_name(a, c->uid, NULL));
        size_t plen = strlen(prefix);
        DIR *dir = opendir(d->cdi_dir);
        struct dirent *de;
        while (dir && !o->error && (de = readdir(dir))) {
            size_t len = strlen(de->d_name);
            if (len <= plen + 5 || strncmp(de->d_name, prefix, plen) != 0 || strcmp(de->d_name + len - 5, ".json") != 0)
                continue;
            char *path = dra_arena_printf(a, "%s/%s", d->cdi_dir, de->d_name);
            if (unlink(path) < 0 && errno != ENOENT)
                o->error = dra_arena_printf(a, "unprepare claim %s/%s: remove %s: %s", c->namespace_, c->name, path,
                                            strerror(errno));
        }
        if (dir)
            closedir(dir);
        if (!o->error)
            say(d, "unprepared %s/%s (%s)", c->namespace_, c->name, c->uid);
    }
    for (size_t i = 0; i < d->nextra; i++)
        cl[k++].uid = d->extra[i];
    *out = cl;
    *n_out = k;
    pause_for(d, rep);
}

static void health(void *ctx, dra_arena *a, dra_health_device **out, size_t *n_out)
{
    ex_driver *d = ctx;
    int n = d->devices;
    dra_health_device *v = dra_arena_zalloc(a, (size_t)(n + 1) * sizeof *v);
    for (int i = 0; i < n; i++) {
        v[i].pool = d->node ? d->node : "pool";
        v[i].device = dra_arena_printf(a, "gpu-%d", i);
        v[i].health = DRA_HEALTH_HEALTHY;
        v[i].message = "";
    }
    /* overrides from the health file: [{"device": "gpu-1", "health": "Unhealthy", "message": "..."}] */
    if (d->health_file) {
        json_error_t je;
        json_t *j = json_load_file(d->health_file, 0, &je);
        size_t i;
        json_t *e;
        json_array_foreach(j, i, e)
        {
            const char *dev = json_string_value(json_object_get(e, "device"));
            const char *h = json_string_value(json_object_get(e, "health"));
            const char *m = json_string_value(json_object_get(e, "message"));
            json_int_t t = json_integer_value(json_object_get(e, "lastUpdated"));
            for (int k = 0; dev && k < n; k++) {
                if (strcmp(v[k].device, dev) != 0)
                    continue;
                v[k].health = h && strcmp(h, "Unhealthy") == 0 ? DRA_HEALTH_UNHEALTHY
                              : h && strcmp(h, "Healthy") == 0 ? DRA_HEALTH_HEALTHY
                                                               : DRA_HEALTH_UNKNOWN;
                v[k].message = dra_arena_strdup(a, m ? m : "");
                v[k].last_updated = t;
            }
        }
        json_decref(j);
    }
    *out = v;
    *n_out = (size_t)n;
    say(d, "health: %d device(s)", n);
}

static void registered(void *ctx, bool ok, const char *error)
{
    ex_driver *d = ctx;
    if (ok)
        say(d, "registered with the kubelet");
    else
        fprintf(d->log, "dra-example-driver: registration failed: %s\n", error);
}

const dra_driver_ops ex_ops = {prepare, unprepare, health, registered, NULL};

dra_err *ex_inventory(const ex_driver *d, FILE *f)
{
    json_t *devs = json_array();
    for (int i = 0; i < d->devices; i++) {
        json_t *dev = json_pack("{s:s#}", "name", "", 0);
        json_object_set_new(dev, "name", json_sprintf("gpu-%d", i));
        json_object_set_new(dev, "attributes",
                            json_pack("{s:{s:i},s:{s:s},s:{s:s}}", "index", "int", i, "model", "string", "EXAMPLE-GPU",
                                      "driverVersion", "version", "1.0.0"));
        json_object_set_new(dev, "capacity", json_pack("{s:{s:s}}", "memory", "value", "16Gi"));
        json_array_append_new(devs, dev);
    }
    json_t *inv = json_pack("{s:o}", "devices", devs);
    int r = json_dumpf(inv, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(inv);
    if (r != 0 || fputc('\n', f) == EOF)
        return dra_err_new(DRA_EXIT_RUNTIME, "write error on stdout");
    return NULL;
}
