/* The example driver's work: "prepare" a claim by writing one CDI spec file
 * for its devices, as sigs.k8s.io/dra-example-driver does
 * (cmd/dra-example-kubeletplugin/cdi.go, the gpu profile): vendor
 * k8s.<driver>, class gpu, <cdi-dir>/k8s.<driver>-gpu_<claim uid>.yaml with a
 * device <claim uid>-<device> per device (written atomically, so a repeated
 * prepare rewrites the same bytes: idempotent), each device answered with the
 * CDI IDs k8s.<driver>/gpu=common (the spec written at start) and
 * k8s.<driver>/gpu=<claim uid>-<device>; unprepare removes the files the
 * driver's checkpoint (state.c) says it wrote for the claim.
 * The devices are those of the claim's allocation for this driver, read from
 * --claims (a snapshot standing in for the API server GET a driver makes,
 * with the kubelet plugin helper's checks); without --claims, one device
 * derived from the claim UID. */
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
#include "base/wfile.h"
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

/* The CDI class: the published driver's device profile. */
#define EX_CDI_CLASS "gpu"
#define EX_CDI_CLASS_ENV "GPU" /* the class upper case */

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

/* The transient spec file of `id` (a claim UID, or "common"), named as the
 * CDI library's GenerateTransientSpecName (vendor-class_id) and WriteSpec
 * (.yaml) name it. */
static char *spec_path(const ex_driver *d, dra_arena *a, const char *id)
{
    return dra_arena_printf(a, "%s/k8s.%s-" EX_CDI_CLASS "_%s.yaml", d->cdi_dir, d->name, id);
}

/* Upper case, each run of characters other than [A-Za-z0-9] one '_'
 * (cdi.go: strings.ToUpper(nonWord.ReplaceAllString(s, "_"))). */
static char *env_key(dra_arena *a, const char *s)
{
    char *k = dra_arena_printf(a, "%s", s), *o = k;
    bool run = false;
    for (const char *p = s; *p; p++) {
        bool word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        if (word)
            *o++ = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        else if (!run)
            *o++ = '_';
        run = !word;
    }
    *o = '\0';
    return k;
}

/* Write a spec of kind k8s.<driver>/gpu with `devices` (stolen), as YAML,
 * 0600 as the CDI library writes spec files (pkg/cdi/spec.go: os.CreateTemp);
 * cdiVersion 0.3.0, the least version of env-only edits
 * (MinimumRequiredVersion). */
static dra_err *write_yaml_spec(const ex_driver *d, const char *path, json_t *devices)
{
    json_t *spec = json_object();
    json_object_set_new(spec, "cdiVersion", json_string("0.3.0"));
    json_object_set_new(spec, "kind", json_sprintf("k8s.%s/" EX_CDI_CLASS, d->name));
    json_object_set_new(spec, "devices", devices);
    char *body = dra_yaml_dump(spec);
    char *text = dra_xasprintf("---\n%s", body);
    dra_err *e = dra_wfile_replace(path, text, strlen(text), 0600, DRA_WFILE_EXACT_MODE);
    free(text);
    free(body);
    json_decref(spec);
    return e;
}

static json_t *cdi_device(const char *name, json_t *env)
{
    return json_pack("{s:s,s:{s:o}}", "name", name, "containerEdits", "env", env);
}

dra_err *ex_cdi_common(const ex_driver *d)
{
    dra_arena a = DRA_ARENA_INIT;
    json_t *env = json_array();
    json_array_append_new(env, json_sprintf("KUBERNETES_NODE_NAME=%s", d->node ? d->node : ""));
    json_array_append_new(env, json_sprintf("DRA_RESOURCE_DRIVER_NAME=%s", d->name));
    dra_err *e = write_yaml_spec(d, spec_path(d, &a, "common"), json_pack("[o]", cdi_device("common", env)));
    dra_arena_free(&a);
    return e;
}

/* The CDI spec of one prepared claim: per device the claim's and the
 * gpu profile's edits (internal/profiles/gpu/gpu.go applyGpuConfig), the
 * sharing ones (`share`, 2 per device) from its configuration (config.c). */
static dra_err *write_spec(const ex_driver *d, dra_arena *a, const char *path, const dra_claim_ref *c,
                           char *const *names, const dra_prep_device *dv, size_t n, bool admin,
                           const char *const *share)
{
    json_t *devices = json_array();
    for (size_t j = 0; j < n; j++) {
        const char *dev = dv[j].device;
        const char *id = ex_env_id(a, dev);
        json_t *env = json_array();
        json_array_append_new(env,
                              json_sprintf(EX_CDI_CLASS_ENV "_DEVICE_%s_RESOURCE_CLAIM=%s", env_key(a, dev), c->uid));
        json_array_append_new(env, json_sprintf("DRA_ADMIN_ACCESS=%s", admin ? "true" : "false"));
        json_array_append_new(env, json_sprintf("GPU_DEVICE_%s=%s", id, dev));
        for (size_t x = 0; x < 2; x++)
            if (share[2 * j + x])
                json_array_append_new(env, json_string(share[2 * j + x]));
        json_array_append_new(devices, cdi_device(names[j], env));
    }
    return write_yaml_spec(d, path, devices);
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

/* The claim `c` as the kubelet plugin helper GETs it before the driver sees
 * any claim (k8s.io/dynamic-resource-allocation/kubeletplugin/draplugin.go
 * getResourceClaims: "retrieve claim", "not allocated", "got replaced"); a
 * failure there fails the whole call.  NULL when fine (*out: the claim,
 * borrowed from `set`), else the error (arena). */
static const char *helper_get(const dra_objset *set, const dra_claim_ref *c, dra_arena *a, const json_t **out)
{
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
    if (!json_is_object(json_object_get(json_object_get(claim, "status"), "allocation")))
        return dra_arena_printf(a, "claim %s/%s not allocated", c->namespace_, c->name);
    const char *uid = json_string_value(json_object_get(json_object_get(claim, "metadata"), "uid"));
    if (!uid || strcmp(uid, c->uid) != 0)
        return dra_arena_printf(a, "claim %s/%s got replaced", c->namespace_, c->name);
    *out = claim;
    return NULL;
}

/* The devices `c` gets: with --claims, the results of the claim's allocation
 * for this driver (the helper's checks passed), with dra-example-driver's own
 * check (cmd/dra-example-kubeletplugin/state.go computeDeviceConfig:
 * "requested device is not allocatable", wrapped as Prepare and
 * prepareResourceClaim wrap it); else one device from the UID.  NULL when
 * fine, else the per-claim error (arena). */
static const char *allocated(const ex_driver *d, const dra_objset *set, const dra_claim_ref *c, dra_arena *a,
                             dra_prep_device **out, size_t *n_out, bool *admin, const char ***share)
{
    const char *pool = d->node ? d->node : "pool";
    if (!d->claims_path) {
        dra_prep_device *dv = dra_arena_zalloc(a, sizeof *dv);
        dv->pool = (char *)pool;
        dv->device = dra_arena_printf(a, "gpu-%u", device_of(d, c->uid));
        ex_configs none = {0};
        const char *err = ex_config_decode(d, NULL, a, &none);
        *share = dra_arena_zalloc(a, 2 * sizeof **share);
        size_t ne = 0;
        if (!err)
            err = ex_config_sharing(&none, NULL, dv->device, a, *share, &ne);
        *out = dv;
        *n_out = 1;
        return err;
    }
    const json_t *claim = NULL;
    const char *err = helper_get(set, c, a, &claim);
    if (err)
        return err;
    const json_t *alloc = json_object_get(json_object_get(claim, "status"), "allocation");
    const json_t *results = json_object_get(json_object_get(alloc, "devices"), "results");
    size_t n = json_array_size(results), k = 0;
    dra_prep_device *dv = dra_arena_zalloc(a, (n ? n : 1) * sizeof *dv);
    ex_configs cfg;
    err = ex_config_decode(d, alloc, a, &cfg);
    if (err)
        return dra_arena_printf(a, "error preparing devices for claim %s: prepare failed: %s", c->uid, err);
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(results, i);
        const char *drv = json_string_value(json_object_get(r, "driver"));
        const char *dev = json_string_value(json_object_get(r, "device"));
        const char *rp = json_string_value(json_object_get(r, "pool"));
        const char *req = json_string_value(json_object_get(r, "request"));
        /* any result's adminAccess, whatever its driver (state.go checkAdminAccess) */
        if (json_is_true(json_object_get(r, "adminAccess")))
            *admin = true;
        if (!drv || strcmp(drv, d->name) != 0)
            continue; /* another driver's device */
        char *end = NULL;
        long idx = dev && strncmp(dev, "gpu-", 4) == 0 && dev[4] ? strtol(dev + 4, &end, 10) : -1;
        if (idx < 0 || idx >= d->devices || (end && *end))
            return dra_arena_printf(a,
                                    "error preparing devices for claim %s: prepare failed: "
                                    "requested device is not allocatable: %s",
                                    c->uid, dev ? dev : "");
        dv[k].pool = dra_arena_strdup(a, rp ? rp : pool);
        dv[k].device = dra_arena_strdup(a, dev);
        const char *share_id = json_string_value(json_object_get(r, "shareID"));
        if (share_id) /* answered, and part of the CDI device's name (helpers.GetCDIDeviceID) */
            dv[k].share_id = dra_arena_strdup(a, share_id);
        if (req) {
            dv[k].requests = dra_arena_zalloc(a, sizeof *dv[k].requests);
            dv[k].requests[0] = dra_arena_strdup(a, req);
            dv[k].n_requests = 1;
        }
        k++;
    }
    /* then the configs applied (computeDeviceConfig) */
    *share = dra_arena_zalloc(a, (2 * k + 1) * sizeof **share);
    for (size_t j = 0; j < k; j++) {
        size_t ne = 0;
        const char *req = dv[j].n_requests ? dv[j].requests[0] : NULL;
        err = ex_config_sharing(&cfg, req, dv[j].device, a, *share + 2 * j, &ne);
        if (err)
            return dra_arena_printf(a, "error preparing devices for claim %s: prepare failed: %s", c->uid, err);
    }
    *out = dv;
    *n_out = k;
    return NULL;
}

/* The checkpoint for one call; NULL, or what every claim of the call answers
 * when it cannot be read (upstream's wording). */
static const char *ckpt_open(const ex_driver *d, dra_arena *a, dra_ckpt_file **f)
{
    dra_err *e = dra_ckpt_open(d->checkpoint, f);
    if (!e)
        return NULL;
    char *msg = dra_err_format(e);
    const char *out = dra_arena_printf(a, "unable to sync from checkpoint: %s", msg);
    free(msg);
    dra_err_free(e);
    return out;
}

static const char *ckpt_save(dra_ckpt_file *f, dra_arena *a)
{
    dra_err *e = dra_ckpt_save(f);
    if (!e)
        return NULL;
    const char *out = dra_arena_printf(a, "unable to sync to checkpoint: %s", e->msg);
    dra_err_free(e);
    return out;
}

/* The CDI IDs of device `dv` named `name` (and the --pad-answer ones). */
static void set_cdi_ids(const ex_driver *d, dra_arena *a, dra_prep_device *dv, const char *name)
{
    size_t extra = d->pad_bytes ? d->pad_bytes / 64 + 1 : 0;
    dv->cdi_ids = dra_arena_zalloc(a, (2 + extra) * sizeof *dv->cdi_ids);
    /* the common device first (cdi.go GetClaimDevices) */
    dv->cdi_ids[0] = dra_arena_printf(a, "k8s.%s/" EX_CDI_CLASS "=common", d->name);
    dv->cdi_ids[1] = dra_arena_printf(a, "k8s.%s/" EX_CDI_CLASS "=%s", d->name, name);
    for (size_t x = 0; x < extra; x++)
        dv->cdi_ids[2 + x] = dra_arena_printf(a, "k8s.%s/" EX_CDI_CLASS "=pad-%048zu", d->name, x);
    dv->n_cdi_ids = 2 + extra;
}

/* A claim recorded in the checkpoint whose spec files are to be written. */
typedef struct planned {
    dra_prep_claim *o;
    const dra_claim_ref *c;
    dra_prep_device *dv;
    size_t ndv;
    char **names;       /* per device */
    char *path;         /* the claim's spec file */
    bool admin;         /* a result of the allocation has adminAccess */
    const char **share; /* 2 sharing env strings per device (config.c) */
} planned;

/* The devices of claim `c` and the files they get, recorded in `cp`; NULL,
 * or the claim's error. */
static const char *plan(ex_driver *d, const dra_objset *set, const char *read_err, dra_checkpoint *cp,
                        const dra_claim_ref *c, dra_arena *a, planned *p)
{
    const char *err = read_err ? dra_arena_printf(a, "retrieve claim %s/%s: %s", c->namespace_, c->name, read_err)
                               : allocated(d, set, c, a, &p->dv, &p->ndv, &p->admin, &p->share);
    if (err)
        return err;
    p->c = c;
    p->names = dra_arena_zalloc(a, (p->ndv + 1) * sizeof *p->names);
    p->path = spec_path(d, a, cdi_name(a, c->uid, NULL));
    for (size_t j = 0; j < p->ndv; j++) {
        const dra_prep_device *x = &p->dv[j];
        p->names[j] =
            cdi_name(a, c->uid, x->share_id ? dra_arena_printf(a, "%s-%s", x->device, x->share_id) : x->device);
        set_cdi_ids(d, a, &p->dv[j], p->names[j]);
    }
    return ex_state_record(d, cp, c, p->dv, p->ndv, &p->path, 1, a);
}

/* Prepare: the claims' devices and spec files are recorded first (one
 * checkpoint write), then the files written, then the claims marked
 * prepared (a second write). */
static void prepare(void *ctx, const char *svc, const dra_claim_ref *claims, size_t n, dra_arena *a,
                    dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep)
{
    ex_driver *d = ctx;
    d->calls++;
    say(d, "NodePrepareResources (%s): %zu claim(s)", svc, n);
    dra_prep_claim *cl = dra_arena_zalloc(a, (n + d->nextra + 1) * sizeof *cl);
    planned *pl = dra_arena_zalloc(a, (n + 1) * sizeof *pl);
    size_t k = 0, np = 0;
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
    /* the helper GETs every claim first: one failure fails the call */
    for (size_t i = 0; d->claims_path && i < n; i++) {
        const json_t *claim = NULL;
        const char *err =
            read_err ? dra_arena_printf(a, "retrieve claim %s/%s: %s", claims[i].namespace_, claims[i].name, read_err)
                     : helper_get(&set, &claims[i], a, &claim);
        if (err) {
            dra_objset_free(&set);
            rep->code = DRA_GRPC_UNKNOWN;
            dra_buf_printf(&rep->message, "get resource claims: %s", err);
            *out = cl;
            *n_out = 0;
            return;
        }
    }
    dra_ckpt_file *ck = NULL;
    const char *ck_err = ckpt_open(d, a, &ck);
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
        planned *p = &pl[np];
        const char *err = ck_err ? ck_err : plan(d, &set, read_err, &ck->cp, c, a, p);
        if (err) {
            o->error = (char *)err;
            continue;
        }
        p->o = o;
        np++;
    }
    if (d->claims_path)
        dra_objset_free(&set);
    const char *save_err = np ? ckpt_save(ck, a) : NULL;
    size_t done = 0;
    for (size_t i = 0; i < np; i++) {
        planned *p = &pl[i];
        const char *err = save_err;
        dra_err *e = err ? NULL : write_spec(d, a, p->path, p->c, p->names, p->dv, p->ndv, p->admin, p->share);
        if (e) {
            err = dra_arena_printf(a,
                                   "error preparing devices for claim %s: unable to create CDI spec file for claim: %s",
                                   p->c->uid, e->msg);
            dra_err_free(e);
        }
        if (err) {
            p->o->error = (char *)err;
            p->o = NULL;
            continue;
        }
        dra_ckpt_find_uid(&ck->cp, p->c->uid)->prepared = true;
        done++;
    }
    save_err = done ? ckpt_save(ck, a) : NULL;
    for (size_t i = 0; i < np; i++) {
        planned *p = &pl[i];
        if (!p->o)
            continue;
        if (save_err) {
            p->o->error = (char *)save_err;
            continue;
        }
        p->o->devices = p->dv;
        p->o->n_devices = p->ndv;
        for (size_t j = 0; j < p->ndv; j++)
            say(d, "prepared %s/%s (%s): %s", p->c->namespace_, p->c->name, p->c->uid, p->dv[j].device);
    }
    dra_ckpt_close(ck);
    for (size_t i = 0; i < d->nextra; i++)
        cl[k++].uid = d->extra[i];
    *out = cl;
    *n_out = k;
    pause_for(d, rep);
}

/* Unprepare: the files the checkpoint records for each claim, then the
 * claims' entries (one checkpoint write). */
static void unprepare(void *ctx, const char *svc, const dra_claim_ref *claims, size_t n, dra_arena *a,
                      dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep)
{
    ex_driver *d = ctx;
    d->calls++;
    say(d, "NodeUnprepareResources (%s): %zu claim(s)", svc, n);
    dra_prep_claim *cl = dra_arena_zalloc(a, (n + d->nextra + 1) * sizeof *cl);
    const dra_claim_ref **of = dra_arena_zalloc(a, (n + 1) * sizeof *of); /* the claim of each answer */
    size_t k = 0;
    dra_ckpt_file *ck = NULL;
    const char *ck_err = ckpt_open(d, a, &ck);
    bool changed = false;
    for (size_t i = 0; i < n; i++) {
        const dra_claim_ref *c = &claims[i];
        if (listed(d->omit, d->nomit, c->uid))
            continue;
        of[k] = c;
        dra_prep_claim *o = &cl[k++];
        o->uid = (char *)c->uid;
        const char *f = fault_of(d, c->uid);
        o->error = (char *)(f ? f : ck_err ? ck_err : ex_state_forget(d, &ck->cp, c, a, &changed));
    }
    /* written at every unprepare, even of claims it does not hold, as
     * cmd/dra-example-kubeletplugin/state.go Unprepare writes its checkpoint */
    const char *save_err = changed || (k && !ck_err) ? ckpt_save(ck, a) : NULL;
    for (size_t i = 0; i < k; i++) {
        if (!cl[i].error && save_err)
            cl[i].error = (char *)save_err;
        if (!cl[i].error)
            say(d, "unprepared %s/%s (%s)", of[i]->namespace_, of[i]->name, of[i]->uid);
    }
    dra_ckpt_close(ck);
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
        json_array_foreach(j, i, e) {
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

dra_err *ex_default_services(const char *flag, const char **out)
{
    bool env;
    const char *v = dra_release_setting(flag, &env);
    dra_release r = DRA_RELEASE_DEFAULT;
    if (v && *v) {
        dra_err *e = dra_release_parse(v, &r);
        if (e)
            return dra_err_field(e, env ? DRA_KUBERNETES_VERSION_ENV : "--kubernetes-version");
    }
    /* k8s.io/dynamic-resource-allocation v0.36.3 kubeletplugin/draplugin.go
     * offers v1alpha1.DRAResourceHealth alone (k8s.io/kubelet v0.36.3 has
     * no v1 of pkg/apis/dra-health); v0.37.2 offers v1, then v1alpha1 */
    *out = r <= DRA_RELEASE_1_36 ? "v1.DRAPlugin,v1beta1.DRAPlugin,v1alpha1.DRAResourceHealth"
                                 : "v1.DRAPlugin,v1beta1.DRAPlugin,v1.DRAResourceHealth,v1alpha1.DRAResourceHealth";
    return NULL;
}
