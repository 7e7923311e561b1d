/* What the workload expanders share (workloads.c: the built-in kinds,
 * workloads_crd.c: the kinds of operators).  Not for use outside model/.
 *
 * Ownership: a dra_wl_ctx's out holds new references (the pods made); the
 * strings given to dra_wl_emit are copied. */
#ifndef DRA_MODEL_WORKLOADS_IMPL_H
#define DRA_MODEL_WORKLOADS_IMPL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/error.h"
#include "../io/stream.h"

/* Pods of one workload at most (more are cut, with a warning naming the count). */
#define DRA_EXPAND_MAX_PODS 10000

/* k8s.io/apimachinery/pkg/util/rand's alphabet: generated name suffixes
 * and SafeEncodeString. */
#define DRA_WL_ALPHABET "bcdfghjklmnpqrstvwxz2456789"

typedef struct dra_wl_objs {
    dra_obj *v;
    size_t n, cap;
} dra_wl_objs;

typedef struct dra_wl_owner {
    const char *api_version, *kind, *name, *uid;
} dra_wl_owner;

/* One workload being expanded. */
typedef struct dra_wl_ctx {
    const dra_objset *set; /* the whole input (runtimes, Nodes) */
    const dra_obj *o;      /* the workload */
    const char *ns;        /* its namespace (defaulted) */
    const char *name;      /* its name (assumed when it has only generateName) */
    uint64_t seed;         /* of kind, namespace and name: for generated names */
    dra_wl_objs *out;
    long n;            /* pods made so far */
    bool capped;       /* DRA_EXPAND_MAX_PODS reached */
    dra_err *warnings; /* appended to the report's */
} dra_wl_ctx;

uint64_t dra_wl_hash(uint64_t h, const char *s);
/* generateName + 5 characters, the base cut to 58 (names.SimpleNameGenerator) */
char *dra_wl_generated_name(const char *base, uint64_t h);
/* A UUID-shaped identifier derived from the words (version nibble 8). */
char *dra_wl_derived_uid(const char *kind, const char *ns, const char *name);
void dra_wl_push(dra_wl_objs *l, dra_obj o);
/* Mark metadata md as the tools' assumption ("name", "uid" or "name,uid"). */
void dra_wl_add_assumed(json_t *md, const char *what);
json_t *dra_wl_make_pod(const json_t *tmpl, const char *ns, const char *name, const dra_wl_owner *own,
                        bool name_assumed);
void dra_wl_set_label(json_t *pod, const char *k, const char *v);
int64_t dra_wl_int_or(const json_t *o, const char *k, int64_t def);

/* A pod from tmpl (a PodTemplateSpec) named `name` (generated: a 5-character
 * suffix was drawn), owned by own, pushed to c->out at the workload's place.
 * Returns the pod (borrowed, for labels), or NULL once the cap is reached. */
json_t *dra_wl_emit(dra_wl_ctx *c, const json_t *tmpl, const char *name, bool generated, const dra_wl_owner *own);
/* generateName's pod name: prefix + 5 characters drawn from c's seed and k. */
char *dra_wl_gen(const dra_wl_ctx *c, const char *prefix, uint64_t k);
/* count, or the cap with a warning naming field and the count asked for */
int64_t dra_wl_count(dra_wl_ctx *c, int64_t want, const char *field);

/* A Job's pods (batch/v1 JobSpec jspec, the Job named job): min(parallelism,
 * completions) of them, <job>-<5>, or <job>-<index>-<5> when Indexed
 * (pkg/controller/job: podGenerateNameWithIndex); field names the count. */
void dra_wl_job_pods(dra_wl_ctx *c, const json_t *jspec, const char *job, const dra_wl_owner *own, const char *field);

/* The operators' kinds (workloads_crd.c): the number of pods made, or -1
 * when obj is none of them; problems the operator would refuse set *err
 * (and return -2). */
long dra_wl_expand_crd(dra_wl_ctx *c, dra_err **err);
/* Is obj of a kind the expanders know (built-in or operator)? */
bool dra_wl_known_kind(const json_t *obj);
bool dra_wl_crd_kind(const json_t *obj);

#endif
