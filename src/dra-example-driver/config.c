/* dra-example-driver's opaque configuration: the gpu profile's GpuConfig
 * (gpu.resource.example.com/v1alpha1) in a claim's allocation, decoded,
 * chosen per device, normalized and validated as sigs.k8s.io/dra-example-driver
 * v0.4.0 does (cmd/dra-example-kubeletplugin/state.go GetOpaqueDeviceConfigs
 * and computeDeviceConfig; api/example.com/resource/gpu/v1alpha1 api.go
 * Normalize, validate.go, sharing.go; internal/profiles/gpu/gpu.go
 * applyGpuConfig).  Unknown fields are dropped, as its decoder drops them. */
#include <stdlib.h>
#include <string.h>

#include "example.h"

#define GPU_API "gpu.resource.example.com/v1alpha1"

typedef struct gpu_config {
    const json_t *requests; /* the config's requests (NULL or empty: all) */
    bool set;               /* false: the default (no config) */
    bool sharing;           /* a sharing object was given */
    const char *strategy;
    bool ts, sp; /* timeSlicingConfig / spacePartitioningConfig given */
    const char *interval;
    json_int_t partitions;
} gpu_config;

/* Decode one opaque parameters object; NULL, or the decoding error. */
static const char *decode(const json_t *p, dra_arena *a, gpu_config *c)
{
    const char *kind = json_string_value(json_object_get(p, "kind"));
    const char *api = json_string_value(json_object_get(p, "apiVersion"));
    if (!json_is_object(p) || !kind || !*kind) {
        char *raw = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        const char *m = dra_arena_printf(a, "Object 'Kind' is missing in '%s'", raw ? raw : "");
        free(raw);
        return m;
    }
    if (!api || strcmp(api, GPU_API) != 0 || strcmp(kind, "GpuConfig") != 0)
        return dra_arena_printf(a, "no kind \"%s\" is registered for version \"%s\"", kind, api ? api : "");
    const json_t *s = json_object_get(p, "sharing");
    c->set = true;
    if (!s || json_is_null(s))
        return NULL;
    if (!json_is_object(s))
        return "json: cannot unmarshal into Go struct field GpuConfig.sharing of type v1alpha1.GpuSharing";
    c->sharing = true;
    const json_t *st = json_object_get(s, "strategy"), *ts = json_object_get(s, "timeSlicingConfig"),
                 *sp = json_object_get(s, "spacePartitioningConfig");
    if (st && !json_is_null(st) && !json_is_string(st))
        return "json: cannot unmarshal into Go struct field GpuSharing.sharing.strategy of type "
               "v1alpha1.GpuSharingStrategy";
    c->strategy = json_is_string(st) ? json_string_value(st) : "";
    if (ts && !json_is_null(ts)) {
        const json_t *iv = json_object_get(ts, "interval");
        if (!json_is_object(ts) || (iv && !json_is_null(iv) && !json_is_string(iv)))
            return "json: cannot unmarshal into Go struct field GpuSharing.sharing.timeSlicingConfig of type "
                   "v1alpha1.TimeSlicingConfig";
        c->ts = true;
        c->interval = json_is_string(iv) ? json_string_value(iv) : "";
    }
    if (sp && !json_is_null(sp)) {
        const json_t *pc = json_object_get(sp, "partitionCount");
        if (!json_is_object(sp) || (pc && !json_is_null(pc) && !json_is_integer(pc)))
            return "json: cannot unmarshal into Go struct field GpuSharing.sharing.spacePartitioningConfig of type "
                   "v1alpha1.SpacePartitioningConfig";
        c->sp = true;
        c->partitions = json_integer_value(pc);
    }
    return NULL;
}

/* Normalize and validate; NULL, or the error. */
static const char *check(gpu_config *c, dra_arena *a)
{
    if (!c->set) { /* DefaultGpuConfig */
        c->set = c->sharing = c->ts = true;
        c->strategy = "TimeSlicing";
        c->interval = "Default";
    }
    if (!c->sharing) {
        c->sharing = true;
        c->strategy = "TimeSlicing";
    }
    bool tsl = strcmp(c->strategy, "TimeSlicing") == 0, spp = strcmp(c->strategy, "SpacePartitioning") == 0;
    if (tsl && !c->ts) {
        c->ts = true;
        c->interval = "Default";
    }
    if (spp && !c->sp) {
        c->sp = true;
        c->partitions = 1;
    }
    if (!tsl && !spp)
        return dra_arena_printf(a, "error validating GPU config: unknown GPU sharing strategy: %s", c->strategy);
    if (tsl && strcmp(c->interval, "Default") != 0 && strcmp(c->interval, "Short") != 0 &&
        strcmp(c->interval, "Medium") != 0 && strcmp(c->interval, "Long") != 0)
        return dra_arena_printf(a, "error validating GPU config: unknown time-slice interval: %s", c->interval);
    if (spp && c->partitions < 0)
        return dra_arena_printf(a, "error validating GPU config: invalid partition count: %lld",
                                (long long)c->partitions);
    return NULL;
}

const char *ex_env_id(dra_arena *a, const char *device)
{
    char *id = dra_arena_strdup(a, strncmp(device, "gpu-", 4) == 0 ? device + 4 : device);
    for (char *p = id; *p; p++)
        *p = *p == '-' ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    return id;
}

static bool names_request(const json_t *requests, const char *req)
{
    if (json_array_size(requests) == 0)
        return true;
    size_t i;
    const json_t *r;
    json_array_foreach(requests, i, r) {
        const char *s = json_string_value(r);
        if (s && req && strcmp(s, req) == 0)
            return true;
    }
    return false;
}

const char *ex_config_decode(const ex_driver *d, const json_t *alloc, dra_arena *a, ex_configs *out)
{
    const json_t *cfgs = json_object_get(json_object_get(alloc, "devices"), "config");
    size_t n = json_array_size(cfgs);
    gpu_config *v = dra_arena_zalloc(a, (n + 1) * sizeof *v);
    size_t k = 1; /* v[0]: the default, lowest precedence */
    /* class configs, then the claim's (higher precedence) */
    for (int pass = 0; pass < 2; pass++) {
        size_t i;
        const json_t *c;
        json_array_foreach(cfgs, i, c) {
            const char *src = json_string_value(json_object_get(c, "source"));
            if (!src || (strcmp(src, "FromClass") != 0 && strcmp(src, "FromClaim") != 0))
                return dra_arena_printf(a, "error getting opaque device configs: invalid config source: %s",
                                        src ? src : "");
            if ((pass == 0) != (strcmp(src, "FromClass") == 0))
                continue;
            const json_t *op = json_object_get(c, "opaque");
            if (!json_is_object(op))
                return "error getting opaque device configs: only opaque parameters are supported by this driver";
            const char *drv = json_string_value(json_object_get(op, "driver"));
            if (!drv || strcmp(drv, d->name) != 0)
                continue; /* another driver's */
            v[k].requests = json_object_get(c, "requests");
            const char *err = decode(json_object_get(op, "parameters"), a, &v[k]);
            if (err)
                return dra_arena_printf(a, "error getting opaque device configs: error decoding config parameters: %s",
                                        err);
            k++;
        }
    }
    out->v = v;
    out->n = k;
    return NULL;
}

const char *ex_config_sharing(ex_configs *cs, const char *request, const char *device, dra_arena *a, const char **env,
                              size_t *n_env)
{
    size_t i = cs->n;
    while (i-- > 1 && !names_request(((gpu_config *)cs->v)[i].requests, request))
        ;
    gpu_config *c = &((gpu_config *)cs->v)[i];
    const char *err = check(c, a);
    if (err)
        return dra_arena_printf(a, "error applying config: %s", err);
    bool tsl = strcmp(c->strategy, "TimeSlicing") == 0;
    if (tsl && c->sp)
        return dra_arena_printf(a,
                                "error applying config: unable to get time slicing config for device %s: cannot use "
                                "SpacePartitioningConfig with the 'TimeSlicing' strategy",
                                device);
    if (!tsl && c->ts)
        return dra_arena_printf(a,
                                "error applying config: unable to get space partitioning config for device %s: "
                                "cannot use TimeSlicingConfig with the 'SpacePartitioning' strategy",
                                device);
    const char *id = ex_env_id(a, device);
    env[0] = dra_arena_printf(a, "GPU_DEVICE_%s_SHARING_STRATEGY=%s", id, c->strategy);
    env[1] = tsl ? dra_arena_printf(a, "GPU_DEVICE_%s_TIMESLICE_INTERVAL=%s", id, c->interval)
                 : dra_arena_printf(a, "GPU_DEVICE_%s_PARTITION_COUNT=%lld", id, (long long)c->partitions);
    *n_env = 2;
    return NULL;
}
