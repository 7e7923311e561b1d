/* The example driver's work: "prepare" a claim by writing a CDI spec file
 * <cdi-dir>/<driver>-<claim uid>.json (atomically, so a repeated prepare
 * rewrites the same bytes: idempotent) and answering its device with the
 * CDI ID <driver>/gpu=<claim uid>-<device>; unprepare removes the file.
 * Which device a claim gets is derived from its UID (the example does not
 * read the claim's allocation from the API server). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
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
    unsigned h = 2166136261u; /* FNV-1a */
    for (const char *p = uid; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
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
static char *cdi_name(dra_arena *a, const char *uid, unsigned dev)
{
    char *s = dra_arena_printf(a, "%s-gpu-%u", uid, dev);
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
static dra_err *write_spec(const ex_driver *d, const char *path, const char *name, const dra_claim_ref *c, unsigned dev)
{
    json_t *spec = json_pack("{s:s,s:s,s:[{s:s,s:{s:[s,s,s]}}]}", "cdiVersion", "0.6.0", "kind",
                             "gpu.example.com/gpu", "devices", "name", name, "containerEdits", "env",
                             "GPU_DEVICE=gpu-", "DRA_CLAIM_UID=", "DRA_CLAIM=");
    /* fill the env values */
    json_t *env = json_object_get(json_object_get(json_array_get(json_object_get(spec, "devices"), 0), "containerEdits"),
                                  "env");
    char *v;
    v = dra_xasprintf("GPU_DEVICE=gpu-%u", dev);
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

static void prepare(void *ctx, const char *svc, const dra_claim_ref *claims, size_t n, dra_arena *a,
                    dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep)
{
    ex_driver *d = ctx;
    d->calls++;
    say(d, "NodePrepareResources (%s): %zu claim(s)", svc, n);
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
        if (!*c->uid) {
            o->error = "claim UID is empty";
            continue;
        }
        unsigned dev = device_of(d, c->uid);
        char *name = cdi_name(a, c->uid, dev);
        dra_err *e = write_spec(d, spec_path(d, a, name), name, c, dev);
        if (e) {
            o->error = dra_arena_printf(a, "prepare claim %s/%s: %s", c->namespace_, c->name, e->msg);
            dra_err_free(e);
            continue;
        }
        dra_prep_device *dv = dra_arena_zalloc(a, sizeof *dv);
        dv->pool = (char *)(d->node ? d->node : "pool");
        dv->device = dra_arena_printf(a, "gpu-%u", dev);
        size_t extra = d->pad_bytes ? d->pad_bytes / 64 + 1 : 0;
        dv->cdi_ids = dra_arena_zalloc(a, (1 + extra) * sizeof *dv->cdi_ids);
        dv->cdi_ids[0] = dra_arena_printf(a, "%s/gpu=%s", d->name, name);
        for (size_t j = 0; j < extra; j++)
            dv->cdi_ids[1 + j] = dra_arena_printf(a, "%s/gpu=pad-%048zu", d->name, j);
        dv->n_cdi_ids = 1 + extra;
        o->devices = dv;
        o->n_devices = 1;
        say(d, "prepared %s/%s (%s) as gpu-%u", c->namespace_, c->name, c->uid, dev);
    }
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
        char *path = spec_path(d, a, cdi_name(a, c->uid, device_of(d, c->uid)));
        if (unlink(path) < 0 && errno != ENOENT)
            o->error = dra_arena_printf(a, "unprepare claim %s/%s: remove %s: %s", c->namespace_, c->name, path,
                                        strerror(errno));
        else
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
