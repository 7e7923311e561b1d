/* Kubelet-side logic: checkpoint format and file, prepare/unprepare/sync
 * against a fake driver (the rpc.h calls are injected through
 * dra_kubelet_calls), CDI device IDs per container, --timeout. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "kubelet/cdi.h"
#include "kubelet/checkpoint.h"
#include "kubelet/prepare.h"
#include "model/load.h"
#include "unit.h"

/* ---- a fake driver ---- */

enum fake_mode { FAKE_OK, FAKE_CLAIM_ERROR, FAKE_SKIP, FAKE_UNKNOWN_UID, FAKE_TRANSPORT };

typedef struct fake {
    enum fake_mode mode;
    int prepares, unprepares, dials;
    size_t last_n;
    char last_names[512];
} fake;

struct dra_plugin {
    fake *f;
    char *service;
};

static fake *the_fake;

static dra_err *f_dial(const char *sock, const char *service, const dra_rpc_opts *o, dra_plugin **out)
{
    (void)o;
    if (strcmp(sock, "/nonexistent") == 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "%s: connect: No such file or directory", sock);
    dra_plugin *p = dra_xcalloc(1, sizeof *p);
    p->f = the_fake;
    p->service = dra_xstrdup(service);
    the_fake->dials++;
    *out = p;
    return NULL;
}

static dra_err *f_answer(dra_plugin *p, bool prep, const dra_claim_ref *c, size_t n, dra_arena *a, dra_prep_claim **out,
                         size_t *nout)
{
    fake *f = p->f;
    if (prep)
        f->prepares++;
    else
        f->unprepares++;
    f->last_n = n;
    f->last_names[0] = 0;
    for (size_t i = 0; i < n; i++) {
        strncat(f->last_names, c[i].name, sizeof f->last_names - strlen(f->last_names) - 2);
        strcat(f->last_names, ",");
    }
    if (f->mode == FAKE_TRANSPORT)
        return dra_err_new(DRA_EXIT_RUNTIME, "rpc error: code = Unavailable desc = connection refused");
    dra_prep_claim *v = dra_arena_zalloc(a, (n + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (f->mode == FAKE_SKIP && i == n - 1)
            continue;
        dra_prep_claim *x = &v[k++];
        x->uid = dra_arena_strdup(a, f->mode == FAKE_UNKNOWN_UID ? "no-such-uid" : c[i].uid);
        if (f->mode == FAKE_CLAIM_ERROR)
            x->error = dra_arena_strdup(a, "device busy");
        if (!prep)
            continue;
        /* Two devices: one for request "gpu" and one for "nic". */
        x->n_devices = 2;
        x->devices = dra_arena_zalloc(a, 2 * sizeof *x->devices);
        for (int d = 0; d < 2; d++) {
            dra_prep_device *dv = &x->devices[d];
            dv->n_requests = 1;
            dv->requests = dra_arena_zalloc(a, sizeof(char *));
            dv->requests[0] = dra_arena_strdup(a, d ? "nic" : "gpu");
            dv->pool = dra_arena_strdup(a, "node-a");
            dv->device = dra_arena_printf(a, "dev-%d", d);
            dv->n_cdi_ids = 1;
            dv->cdi_ids = dra_arena_zalloc(a, sizeof(char *));
            dv->cdi_ids[0] = dra_arena_printf(a, "example.com/%s=%s", d ? "nic" : "gpu", c[i].name);
        }
    }
    *out = v;
    *nout = k;
    return NULL;
}

static dra_err *f_prepare(dra_plugin *p, const dra_claim_ref *c, size_t n, dra_arena *a, dra_prep_claim **o, size_t *no)
{
    return f_answer(p, true, c, n, a, o, no);
}
static dra_err *f_unprepare(dra_plugin *p, const dra_claim_ref *c, size_t n, dra_arena *a, dra_prep_claim **o,
                            size_t *no)
{
    return f_answer(p, false, c, n, a, o, no);
}
static void f_close(dra_plugin *p)
{
    if (p) {
        free(p->service);
        free(p);
    }
}

static const dra_kubelet_calls fake_ops = {f_dial, f_prepare, f_unprepare, f_close};

static dra_err *resolve_known(void *ctx, const char *driver, dra_driver_loc *out)
{
    (void)ctx;
    if (strcmp(driver, "gpu.example.com") != 0 && strcmp(driver, "nic.example.com") != 0)
        return dra_kubelet_not_registered(driver);
    out->socket = "/fake/dra.sock";
    out->service = "v1.DRAPlugin";
    return NULL;
}

/* ---- fixtures ---- */

/* clang-format off */
#define POD(name, uid, node, extra)                                                                         \
    "apiVersion: v1\nkind: Pod\nmetadata: {name: " name ", namespace: ns, uid: " uid "}\n"                 \
    "spec:\n  nodeName: " node "\n  containers:\n"                                                         \
    "  - name: main\n    image: x\n    resources: {claims: [{name: own}, {name: shared, request: nic}]}\n" \
    "  - name: side\n    image: x\n    resources: {claims: [{name: own, request: gpu}]}\n"                 \
    "  resourceClaims:\n  - {name: own, resourceClaimTemplateName: t}\n"                                   \
    "  - {name: shared, resourceClaimName: shared}\n" extra "---\n"

#define STATUS(claim) "status:\n  resourceClaimStatuses:\n  - {name: own, resourceClaimName: " claim "}\n"

#define CLAIM(name, uid, owner, reserved, extra)                                                           \
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: " name "\n  namespace: ns\n" \
    "  uid: " uid "\n" owner                                                                               \
    "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: c}}, {name: nic, exactly: {deviceClassName: c}}]}}\n" \
    "status:\n  allocation:\n    devices:\n      results:\n"                                               \
    "      - {request: gpu, driver: gpu.example.com, pool: node-a, device: dev-0}\n" extra              \
    "  reservedFor:\n" reserved "---\n"
/* clang-format on */

#define OWNER(uid) "  ownerReferences:\n  - {apiVersion: v1, kind: Pod, name: p, uid: " uid ", controller: true}\n"
#define RES(name, uid) "  - {resource: pods, name: " name ", uid: " uid "}\n"
#define NIC_RESULT "      - {request: nic, driver: nic.example.com, pool: node-a, device: eth0}\n"

/* p1 and p2 share "shared"; p1 owns p1-own. */
static const char *SNAP = POD("p1", "u-p1", "node-a", STATUS("p1-own"))
    POD("p2", "u-p2", "node-a", "status:\n  resourceClaimStatuses:\n  - {name: own, resourceClaimName: p2-own}\n")
        CLAIM("p1-own", "c-p1", OWNER("u-p1"), RES("p1", "u-p1"), "")
            CLAIM("p2-own", "c-p2", OWNER("u-p2"), RES("p2", "u-p2"), "")
                CLAIM("shared", "c-sh", "", RES("p1", "u-p1") RES("p2", "u-p2"), NIC_RESULT);

typedef struct world {
    dra_objset set;
    dra_model m;
    char dir[64];
    char path[128];
    dra_ckpt_file *f;
    dra_kubelet *k;
    fake fk;
    json_t *out;
} world;

static int after_rpc_checks;
static void check_on_disk(void *ctx)
{
    /* Between the driver calls and the final write, the claims are on disk
     * with this pod's reference, not yet prepared. */
    world *w = ctx;
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_path(&b, w->path, 0);
    dra_checkpoint cp = DRA_CHECKPOINT_INIT;
    if (!e)
        e = dra_ckpt_parse(b.data, b.len, w->path, &cp);
    if (!e) {
        dra_ckpt_claim *c = dra_ckpt_find(&cp, "ns", "p1-own");
        if (c && !c->prepared && dra_ckpt_has_pod(c, "u-p1"))
            after_rpc_checks++;
    }
    dra_err_free(e);
    dra_ckpt_free(&cp);
    dra_buf_free(&b);
}

static int world_open(world *w, const char *yaml)
{
    memset(w, 0, sizeof *w);
    the_fake = &w->fk;
    strcpy(w->dir, "/tmp/dra-kubelet-XXXXXX");
    if (!mkdtemp(w->dir))
        return 1;
    snprintf(w->path, sizeof w->path, "%s/state", w->dir);
    dra_err *e = dra_read_mem(&w->set, "snap.yaml", yaml, strlen(yaml));
    dra_load_opts lo = {.skip_unknown = true};
    if (!e)
        e = dra_load(&w->set, &lo, &w->m);
    if (!e)
        e = dra_ckpt_open(w->path, &w->f);
    if (e) {
        char *s = dra_err_format(e);
        fprintf(stderr, "  world: %s\n", s);
        free(s);
        dra_err_free(e);
        return 1;
    }
    dra_kubelet_opts o = {.ops = &fake_ops, .resolve = resolve_known};
    o.after_rpc = check_on_disk;
    o.after_rpc_ctx = w;
    w->k = dra_kubelet_new(&o, w->f);
    w->out = json_array();
    return 0;
}

/* Close and reopen the checkpoint (a new run). */
static void world_rerun(world *w)
{
    dra_kubelet_opts o = {.ops = &fake_ops, .resolve = resolve_known};
    dra_kubelet_free(w->k);
    dra_ckpt_close(w->f);
    w->f = NULL;
    dra_err *e = dra_ckpt_open(w->path, &w->f);
    if (e) {
        dra_err_print(stderr, "rerun", e);
        dra_err_free(e);
        abort();
    }
    w->k = dra_kubelet_new(&o, w->f);
    json_array_clear(w->out);
}

static void world_close(world *w)
{
    dra_kubelet_free(w->k);
    dra_ckpt_close(w->f);
    dra_model_free(&w->m);
    dra_objset_free(&w->set);
    json_decref(w->out);
    char *cmd = dra_xasprintf("rm -rf '%s'", w->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "  could not remove %s\n", w->dir);
    free(cmd);
}

static char *ids_of(json_t *out, size_t i)
{
    json_t *r = json_array_get(out, i);
    dra_buf b = DRA_BUF_INIT;
    dra_buf_printf(&b, "%s:", json_string_value(json_object_get(r, "container")));
    size_t j;
    json_t *s;
    json_array_foreach(json_object_get(r, "cdiDevices"), j, s)
        dra_buf_printf(&b, " %s", json_string_value(s));
    return dra_buf_detach(&b);
}

static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ---- checkpoint ---- */

UNIT_TEST(crc32_is_ieee)
{
    CHECK_INT(dra_crc32("123456789", 9), 0xCBF43926u);
    CHECK_INT(dra_crc32("", 0), 0);
}

UNIT_TEST(checkpoint_round_trip_and_kubelet_format)
{
    dra_checkpoint cp = DRA_CHECKPOINT_INIT;
    dra_ckpt_claim *c = dra_ckpt_add(&cp, "ns", "b", "uid-b");
    dra_ckpt_add_pod(&cp, c, "pod-2", "ns/p2");
    dra_ckpt_add_pod(&cp, c, "pod-1", NULL);
    dra_ckpt_driver *d = dra_ckpt_driver_get(&cp, c, "gpu.example.com");
    d->n_devices = 1;
    d->devices = dra_arena_zalloc(&cp.arena, sizeof *d->devices);
    d->devices[0].pool = "pool";
    d->devices[0].device = "dev";
    char *ids[] = {"example.com/gpu=0"};
    d->devices[0].cdi_ids = ids;
    d->devices[0].n_cdi_ids = 1;
    c->prepared = true;
    dra_ckpt_driver_add_file(&cp, d, "/run/cdi/x-b-dev.json");
    dra_ckpt_driver_add_file(&cp, d, "/run/cdi/x-b-dev.json"); /* once */
    dra_ckpt_driver_add_file(&cp, d, "/run/cdi/x-b-dev2.json");
    dra_ckpt_claim *ca = dra_ckpt_add(&cp, "ns", "a", "uid-a");
    dra_ckpt_driver_get(&cp, ca, "gpu.example.com"); /* no files: none written */
    dra_buf b = DRA_BUF_INIT;
    dra_ckpt_serialize(&cp, &b);
    dra_checkpoint back = DRA_CHECKPOINT_INIT;
    dra_err *e = dra_ckpt_parse(b.data, b.len, "f", &back);
    CHECK(e == NULL);
    CHECK_INT(back.n, 2);
    CHECK_STR(back.claims[0].name, "a"); /* written sorted */
    dra_ckpt_claim *bb = dra_ckpt_find(&back, "ns", "b");
    CHECK(bb && bb->prepared && bb->n_pods == 2 && bb->n_drivers == 1);
    CHECK(bb && bb->drivers[0].n_devices == 1 && bb->drivers[0].devices[0].share_id == NULL);
    CHECK_STR(bb ? bb->drivers[0].devices[0].cdi_ids[0] : NULL, "example.com/gpu=0");
    CHECK_STR(bb ? bb->pods[0].uid : NULL, "pod-1");
    CHECK(bb && bb->pods[0].name == NULL);
    CHECK_STR(bb ? bb->pods[1].name : NULL, "ns/p2");
    CHECK(bb && bb->drivers[0].n_spec_files == 2);
    CHECK_STR(bb ? bb->drivers[0].spec_files[1] : NULL, "/run/cdi/x-b-dev2.json");
    CHECK(back.claims[0].n_drivers == 1 && back.claims[0].drivers[0].n_spec_files == 0);
    CHECK(strstr(b.data, "\\\"CDISpecFiles\\\":[\\\"/run/cdi/x-b-dev.json\\\",\\\"/run/cdi/x-b-dev2.json\\\"]"));
    CHECK(strstr(b.data, "{\\\"gpu.example.com\\\":{\\\"Devices\\\":[]}}"));
    /* The same bytes again. */
    dra_buf b2 = DRA_BUF_INIT;
    dra_ckpt_serialize(&back, &b2);
    CHECK_STR(b2.data, b.data);
    CHECK(strstr(b.data, "\"kind\\\":\\\"DRACheckpoint\\\"") != NULL);
    dra_err_free(e);
    dra_buf_free(&b);
    dra_buf_free(&b2);
    dra_ckpt_free(&cp);
    dra_ckpt_free(&back);

    /* A kubelet's own file: no Prepared, no PodNames. */
    const char *data = "{\"kind\":\"DRACheckpoint\",\"apiVersion\":\"checkpoint.dra.kubelet.k8s.io/v1\",\"Entries\":"
                       "[{\"ClaimUID\":\"u\",\"ClaimName\":\"c\",\"Namespace\":\"ns\",\"PodUIDs\":{\"p\":{}},"
                       "\"DriverState\":{\"d\":{\"Devices\":[{\"PoolName\":\"p\",\"DeviceName\":\"x\",\"ShareID\":null,"
                       "\"RequestNames\":null,\"CDIDeviceIDs\":[\"a/b=c\"]}]}}}]}";
    json_t *o = json_object();
    json_object_set_new(o, "Data", json_string(data));
    json_object_set_new(o, "Checksum", json_integer(dra_crc32(data, strlen(data))));
    char *text = json_dumps(o, 0);
    dra_checkpoint k = DRA_CHECKPOINT_INIT;
    e = dra_ckpt_parse(text, strlen(text), "dra_manager_state", &k);
    CHECK(e == NULL);
    CHECK(k.n == 1 && !k.claims[0].prepared && k.claims[0].n_pods == 1);
    CHECK(k.n == 1 && k.claims[0].drivers[0].devices[0].n_requests == 0);
    dra_err_free(e);
    dra_ckpt_free(&k);
    free(text);
    json_decref(o);
}

static char *parse_err(const char *text)
{
    dra_checkpoint cp = DRA_CHECKPOINT_INIT;
    dra_err *e = dra_ckpt_parse(text, strlen(text), "state", &cp);
    char *s = e ? dra_err_format(e) : dra_xstrdup("(no error)");
    dra_err_free(e);
    dra_ckpt_free(&cp);
    return s;
}

static char *wrap(const char *data, long sum_delta)
{
    json_t *o = json_object();
    json_object_set_new(o, "Data", json_string(data));
    json_object_set_new(o, "Checksum", json_integer((json_int_t)dra_crc32(data, strlen(data)) + sum_delta));
    char *text = json_dumps(o, 0);
    json_decref(o);
    return text;
}

UNIT_TEST(checkpoint_damage_is_an_error_with_a_field_path)
{
    char *s = parse_err("{\"Data\":\"{}\",\"Checksum\":1}");
    CHECK(strstr(s, "checkpoint is corrupt: checksum 1 does not match its data") != NULL);
    CHECK(strstr(s, "not reset") != NULL);
    free(s);
    s = parse_err("garbage");
    CHECK(strstr(s, "checkpoint is damaged: not JSON") != NULL);
    CHECK(strncmp(s, "state", 5) == 0);
    free(s);
    s = parse_err("{\"Checksum\":1}");
    CHECK(strstr(s, "Data: checkpoint is damaged: Required value") != NULL);
    free(s);
    char *t = wrap("{\"Entries\":[{\"ClaimUID\":\"u\",\"ClaimName\":\"c\",\"Namespace\":\"n\",\"DriverState\":{\"d\":{"
                   "\"Devices\":[{\"CDIDeviceIDs\":[1]}]}}}]}",
                   0);
    s = parse_err(t);
    CHECK(strstr(s, "Data.Entries[0].DriverState[d].Devices[0].CDIDeviceIDs[0]: checkpoint is damaged: expected a "
                    "string, got integer") != NULL);
    free(s);
    free(t);
    t = wrap("{\"Entries\":[{\"ClaimUID\":\"u\",\"ClaimName\":\"c\",\"Namespace\":\"n\",\"DriverState\":{\"d\":{"
             "\"CDISpecFiles\":\"/x\"}}}]}",
             0);
    s = parse_err(t);
    CHECK(strstr(s,
                 "Data.Entries[0].DriverState[d].CDISpecFiles: checkpoint is damaged: expected an array, got string") !=
          NULL);
    free(s);
    free(t);
    t = wrap("{\"Entries\":[{\"ClaimName\":\"c\",\"Namespace\":\"n\"}]}", 0);
    s = parse_err(t);
    CHECK(strstr(s, "Data.Entries[0].ClaimUID: checkpoint is damaged: Required value") != NULL);
    free(s);
    free(t);
    t = wrap("{\"kind\":\"Other\"}", 0);
    s = parse_err(t);
    CHECK(strstr(s, "Data.kind") != NULL);
    free(s);
    free(t);
    t = wrap("[1]", 0);
    s = parse_err(t);
    CHECK(strstr(s, "(no error)") == NULL);
    free(s);
    free(t);
}

UNIT_TEST(checkpoint_file_is_0600_and_locked)
{
    char dir[] = "/tmp/dra-ckpt-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *path = dra_xasprintf("%s/state", dir);
    dra_ckpt_file *f = NULL;
    dra_err *e = dra_ckpt_open(path, &f);
    CHECK(e == NULL && f && f->cp.n == 0);
    dra_ckpt_add(&f->cp, "ns", "c", "u");
    CHECK(dra_ckpt_save(f) == NULL);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    char *lock = dra_xasprintf("%s.lock", path);
    int fd = open(lock, O_RDWR);
    CHECK(fd >= 0);
    /* Another run cannot take the lock while this one holds it. */
    CHECK(flock(fd, LOCK_EX | LOCK_NB) != 0);
    dra_ckpt_close(f);
    CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0);
    close(fd);
    CHECK(dra_ckpt_open(path, &f) == NULL && f->cp.n == 1);
    /* the same bytes are not written again: the file stays the one renamed in */
    struct stat before, after;
    CHECK(stat(path, &before) == 0);
    CHECK(dra_ckpt_save(f) == NULL);
    CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino);
    dra_ckpt_add(&f->cp, "ns", "d", "u2");
    CHECK(dra_ckpt_save(f) == NULL);
    CHECK(stat(path, &after) == 0 && after.st_ino != before.st_ino);
    before = after;
    CHECK(dra_ckpt_save(f) == NULL); /* as last saved */
    CHECK(stat(path, &after) == 0 && after.st_ino == before.st_ino);
    dra_ckpt_close(f);
    /* An empty file is damage, not "no checkpoint". */
    int w = open(path, O_WRONLY | O_TRUNC);
    close(w);
    e = dra_ckpt_open(path, &f);
    CHECK(e && e->code == DRA_EXIT_RUNTIME && strstr(e->msg, "empty"));
    dra_err_free(e);
    char *tmp = dra_xasprintf("%s.tmp", path);
    CHECK(!file_exists(tmp));
    unlink(path);
    unlink(lock);
    rmdir(dir);
    free(tmp);
    free(lock);
    free(path);
}

static void put_text(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    close(fd);
    chmod(path, mode);
}

/* Links planted at the names the checkpoint writer uses are never followed:
 * a link at the old fixed temporary name "<path>.tmp" is left alone (its
 * target keeps its bytes and mode), one at the checkpoint is replaced by the
 * file, one at the lock is refused with a message naming it. */
UNIT_TEST(checkpoint_writer_follows_no_symlink)
{
    char dir[] = "/tmp/dra-ckpt-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *path = dra_xasprintf("%s/state", dir), *tmp = dra_xasprintf("%s.tmp", path);
    char *lock = dra_xasprintf("%s.lock", path), *victim = dra_xasprintf("%s/victim", dir);
    char *gone = dra_xasprintf("%s/gone", dir);
    put_text(victim, "precious\n", 0644);
    CHECK(symlink(victim, tmp) == 0);
    dra_ckpt_file *f = NULL;
    CHECK(dra_ckpt_open(path, &f) == NULL);
    dra_ckpt_add(&f->cp, "ns", "c", "u");
    CHECK(dra_ckpt_save(f) == NULL);
    dra_ckpt_close(f);
    dra_buf b = DRA_BUF_INIT;
    CHECK(dra_buf_read_path(&b, victim, 0) == NULL);
    CHECK(b.len == 9 && memcmp(b.data, "precious\n", 9) == 0);
    dra_buf_free(&b);
    struct stat st;
    CHECK(stat(victim, &st) == 0 && (st.st_mode & 07777) == 0644);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
    /* the checkpoint itself a link: replaced, the target untouched */
    unlink(path);
    CHECK(symlink(victim, path) == 0);
    dra_err *e = dra_ckpt_open(path, &f);
    CHECK(e != NULL); /* "precious" is no checkpoint */
    dra_err_free(e);
    if (!e)
        dra_ckpt_close(f);
    unlink(path);
    CHECK(symlink(gone, path) == 0);
    CHECK(dra_ckpt_open(path, &f) == NULL);
    dra_ckpt_add(&f->cp, "ns", "c", "u");
    CHECK(dra_ckpt_save(f) == NULL);
    dra_ckpt_close(f);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
    CHECK(!file_exists(gone));
    /* the lock a link: refused, its target neither created nor opened */
    unlink(lock);
    CHECK(symlink(gone, lock) == 0);
    f = NULL;
    e = dra_ckpt_open(path, &f);
    CHECK(e && e->code == DRA_EXIT_RUNTIME && strstr(e->msg, lock) && strstr(e->msg, "symbolic link"));
    dra_err_free(e);
    CHECK(f == NULL && !file_exists(gone));
    dra_ckpt_close(f);
    char *cmd = dra_xasprintf("rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    free(cmd);
    free(gone);
    free(victim);
    free(lock);
    free(tmp);
    free(path);
}

/* ---- prepare ---- */

UNIT_TEST(prepare_batches_per_driver_and_maps_requests)
{
    world w;
    CHECK(world_open(&w, SNAP) == 0);
    after_rpc_checks = 0;
    dra_err *e = dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out);
    CHECK(e == NULL);
    if (e)
        dra_err_print(stderr, "t", e);
    dra_err_free(e);
    /* gpu.example.com gets both claims in one call, nic.example.com one. */
    CHECK_INT(w.fk.prepares, 2);
    CHECK_INT(w.fk.last_n, 1);
    CHECK_STR(w.fk.last_names, "shared,");
    CHECK_INT(after_rpc_checks, 1);
    CHECK_INT(json_array_size(w.out), 2);
    char *s = ids_of(w.out, 0);
    /* main: all devices of p1-own (both drivers' answers), the nic of shared */
    CHECK_STR(s, "main: example.com/gpu=p1-own example.com/nic=p1-own example.com/nic=shared example.com/nic=shared");
    free(s);
    s = ids_of(w.out, 1);
    CHECK_STR(s, "side: example.com/gpu=p1-own");
    free(s);
    CHECK_STR(json_string_value(json_object_get(json_array_get(w.out, 0), "pod")), "p1");
    dra_ckpt_claim *c = dra_ckpt_find(&w.f->cp, "ns", "shared");
    CHECK(c && c->prepared && dra_ckpt_has_pod(c, "u-p1"));

    /* Idempotent: a new run prepares nothing again and answers the same. */
    world_rerun(&w);
    int before = w.fk.prepares;
    e = dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out);
    CHECK(e == NULL);
    CHECK_INT(w.fk.prepares, before);
    s = ids_of(w.out, 1);
    CHECK_STR(s, "side: example.com/gpu=p1-own");
    free(s);
    /* p2 shares "shared": only p2-own is prepared, the reference is added. */
    json_array_clear(w.out);
    e = dra_kubelet_prepare(w.k, &w.m, "ns", "p2", w.out);
    CHECK(e == NULL);
    CHECK_INT(w.fk.prepares, before + 1);
    CHECK_STR(w.fk.last_names, "p2-own,");
    c = dra_ckpt_find(&w.f->cp, "ns", "shared");
    CHECK(c && c->n_pods == 2);
    world_close(&w);
}

static char *prep_err(const char *yaml, const char *pod, world *w)
{
    if (world_open(w, yaml) != 0)
        return dra_xstrdup("(world)");
    dra_err *e = dra_kubelet_prepare(w->k, &w->m, "ns", pod, w->out);
    char *s = e ? dra_xasprintf("%d %s", e->code, e->msg) : dra_xstrdup("(no error)");
    dra_err_free(e);
    return s;
}

UNIT_TEST(prepare_refuses_what_the_kubelet_refuses)
{
    world w;
    char *s;
    s = prep_err(POD("p1", "u-p1", "n", STATUS("p1-own")) CLAIM("p1-own", "c-p1", OWNER("u-p1"), RES("x", "u-x"), ""),
                 "p1", &w);
    CHECK_STR(s, "1 pod p1 (u-p1) is not allowed to use ResourceClaim p1-own (c-p1)");
    CHECK(!file_exists(w.path)); /* nothing recorded */
    CHECK_INT(w.fk.prepares, 0);
    free(s);
    world_close(&w);

    s = prep_err(POD("p1", "u-p1", "n", STATUS("p1-own"))
                     CLAIM("p1-own", "c-p1", OWNER("u-other"), RES("p1", "u-p1"), ""),
                 "p1", &w);
    CHECK_STR(s, "1 ResourceClaim ns/p1-own was not created for pod ns/p1 (pod is not owner)");
    free(s);
    world_close(&w);

    s = prep_err(POD("p1", "u-p1", "n", ""), "p1", &w);
    CHECK_STR(s, "1 pod \"ns/p1\": ResourceClaim not created yet");
    free(s);
    world_close(&w);

    s = prep_err(POD("p1", "u-p1", "n", STATUS("p1-own")), "p1", &w);
    CHECK_STR(s, "2 fetch ResourceClaim p1-own: resourceclaims.resource.k8s.io \"p1-own\" not found");
    free(s);
    world_close(&w);

    s = prep_err(
        POD("p1", "u-p1", "n",
            STATUS("p1-own")) "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: p1-own, "
                              "namespace: ns, uid: c, "
                              "ownerReferences: [{apiVersion: v1, kind: Pod, name: p1, uid: u-p1, controller: true}]}\n"
                              "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: c}}]}}\n"
                              "status: {}\n",
        "p1", &w);
    /* (the API server never lets reservedFor exist without an allocation) */
    CHECK_STR(s, "1 pod p1 (u-p1) is not allowed to use ResourceClaim p1-own (c)");
    free(s);
    world_close(&w);

    s = prep_err(POD("p1", "u-p1", "n", STATUS("p1-own"))
                     CLAIM("p1-own", "c-p1", OWNER("u-p1"), RES("p1", "u-p1"),
                           "      - {request: gpu, driver: other.example.com, pool: node-a, device: x}\n"),
                 "p1", &w);
    CHECK_STR(s, "3 DRA driver other.example.com is not registered");
    CHECK(!file_exists(w.path));
    free(s);
    world_close(&w);

    s = prep_err(SNAP, "nope", &w);
    CHECK_STR(s, "2 pod ns/nope is not in the input");
    free(s);
    world_close(&w);
}

/* DRAOptionalNodeOperations (KEP-5945): a driver is neither looked up nor
 * called for a claim when every one of its devices skips the call; the set
 * is kept in the checkpoint and unprepare follows it. */
/* clang-format off */
#define NIC_SKIP(ops) "      - {request: nic, driver: nic.example.com, pool: node-a, device: eth0, skipNodeOperations: " ops "}\n"
/* clang-format on */

static void world_gate(world *w, bool on)
{
    dra_kubelet_opts o = {.ops = &fake_ops, .resolve = resolve_known, .optional_node_operations = on};
    dra_kubelet_free(w->k);
    w->k = dra_kubelet_new(&o, w->f);
}

UNIT_TEST(skip_node_operations_mask_and_checkpoint)
{
    json_t *v = json_loads("[\"NodeUnprepareResources\", \"Later\", 3]", 0, NULL);
    CHECK_INT(dra_skip_ops_mask(v), DRA_SKIP_UNPREPARE);
    json_decref(v);
    v = json_loads("[\"*\"]", 0, NULL);
    CHECK_INT(dra_skip_ops_mask(v), DRA_SKIP_ALL);
    json_decref(v);
    CHECK_INT(dra_skip_ops_mask(NULL), 0);

    dra_checkpoint cp = DRA_CHECKPOINT_INIT;
    dra_ckpt_claim *c = dra_ckpt_add(&cp, "ns", "c", "u");
    dra_ckpt_driver_get(&cp, c, "a.example.com")->skip = DRA_SKIP_ALL;
    dra_ckpt_driver_get(&cp, c, "b.example.com")->skip = DRA_SKIP_UNPREPARE;
    dra_ckpt_driver_get(&cp, c, "c.example.com");
    dra_buf b = DRA_BUF_INIT;
    dra_ckpt_serialize(&cp, &b);
    CHECK(strstr(b.data, "\\\"SkipNodeOperations\\\":[\\\"NodePrepareResources\\\",\\\"NodeUnprepareResources\\\"]") !=
          NULL);
    dra_checkpoint back = DRA_CHECKPOINT_INIT;
    dra_err *e = dra_ckpt_parse(b.data, b.len, "f", &back);
    CHECK(e == NULL);
    dra_ckpt_claim *bc = dra_ckpt_find(&back, "ns", "c");
    CHECK(bc && bc->n_drivers == 3);
    for (size_t i = 0; bc && i < bc->n_drivers; i++) {
        unsigned want = strcmp(bc->drivers[i].name, "a.example.com") == 0   ? DRA_SKIP_ALL
                        : strcmp(bc->drivers[i].name, "b.example.com") == 0 ? DRA_SKIP_UNPREPARE
                                                                            : 0;
        CHECK_INT(bc->drivers[i].skip, want);
    }
    dra_err_free(e);
    dra_buf_free(&b);
    dra_ckpt_free(&cp);
    dra_ckpt_free(&back);
}

UNIT_TEST(prepare_skips_drivers_whose_devices_all_skip)
{
    world w;
    const char *snap = POD("p1", "u-p1", "node-a", STATUS("p1-own"))
        CLAIM("p1-own", "c-p1", OWNER("u-p1"), RES("p1", "u-p1"), NIC_SKIP("['*']"))
            CLAIM("shared", "c-sh", "", RES("p1", "u-p1"), NIC_SKIP("[NodeUnprepareResources]"));
    CHECK(world_open(&w, snap) == 0);
    /* gate off: refused, nothing written */
    dra_err *e = dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out);
    CHECK(e && e->code == DRA_EXIT_NEGATIVE);
    CHECK_STR(e ? e->msg : NULL, "ResourceClaim p1-own: DRAOptionalNodeOperations feature gate is disabled on kubelet");
    CHECK(!file_exists(w.path));
    CHECK_INT(w.fk.prepares, 0);
    dra_err_free(e);
    world_gate(&w, true);
    e = dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out);
    CHECK(e == NULL);
    dra_err_free(e);
    /* gpu: both claims; nic: only "shared" (p1-own's nic skips everything) */
    CHECK_INT(w.fk.prepares, 2);
    CHECK_STR(w.fk.last_names, "shared,");
    dra_ckpt_claim *c = dra_ckpt_find(&w.f->cp, "ns", "p1-own");
    CHECK(c && c->prepared);
    for (size_t i = 0; c && i < c->n_drivers; i++)
        CHECK_INT(c->drivers[i].skip, strcmp(c->drivers[i].name, "nic.example.com") == 0 ? DRA_SKIP_ALL : 0);
    /* unprepare, with the gate off: what the checkpoint says counts */
    world_rerun(&w);
    e = dra_kubelet_unprepare(w.k, &w.m, "ns", "p1", w.out);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(w.fk.unprepares, 1); /* gpu only: both nic entries skip NodeUnprepareResources */
    CHECK_STR(w.fk.last_names, "p1-own,shared,");
    CHECK(dra_ckpt_find(&w.f->cp, "ns", "shared") == NULL);
    world_close(&w);
}

UNIT_TEST(prepare_checks_answers_with_upstream_messages)
{
    static const struct {
        enum fake_mode mode;
        const char *want;
    } cases[] = {
        {FAKE_CLAIM_ERROR, "NodePrepareResources failed for ResourceClaim p1-own: device busy"},
        {FAKE_SKIP, "NodePrepareResources skipped 1 ResourceClaims"},
        {FAKE_UNKNOWN_UID, "NodePrepareResources returned result for unknown claim UID no-such-uid"},
        {FAKE_TRANSPORT, "NodePrepareResources: rpc error: code = Unavailable desc = connection refused"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        world w;
        CHECK(world_open(&w, SNAP) == 0);
        w.fk.mode = cases[i].mode;
        dra_err *e = dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out);
        CHECK(e && e->code == DRA_EXIT_RUNTIME);
        CHECK_STR(e ? e->msg : NULL, cases[i].want);
        dra_err_free(e);
        /* The claims are known (pod reference on disk) but not prepared:
         * a later prepare retries, a sync without the pod unprepares. */
        world_rerun(&w);
        dra_ckpt_claim *c = dra_ckpt_find(&w.f->cp, "ns", "p1-own");
        CHECK(c && !c->prepared && dra_ckpt_has_pod(c, "u-p1"));
        w.fk.mode = FAKE_OK;
        e = dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out);
        CHECK(e == NULL);
        dra_err_free(e);
        c = dra_ckpt_find(&w.f->cp, "ns", "p1-own");
        CHECK(c && c->prepared && c->n_drivers == 1 && c->drivers[0].n_devices == 2);
        world_close(&w);
    }
}

UNIT_TEST(unprepare_releases_shared_claims_and_calls_for_the_last_user)
{
    world w;
    CHECK(world_open(&w, SNAP) == 0);
    CHECK(dra_kubelet_prepare(w.k, &w.m, "ns", "p1", w.out) == NULL);
    CHECK(dra_kubelet_prepare(w.k, &w.m, "ns", "p2", w.out) == NULL);
    world_rerun(&w);
    dra_err *e = dra_kubelet_unprepare(w.k, &w.m, "ns", "p1", w.out);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(w.fk.unprepares, 1);
    CHECK_STR(w.fk.last_names, "p1-own,");
    CHECK(dra_ckpt_find(&w.f->cp, "ns", "p1-own") == NULL);
    dra_ckpt_claim *c = dra_ckpt_find(&w.f->cp, "ns", "shared");
    CHECK(c && c->n_pods == 1 && !dra_ckpt_has_pod(c, "u-p2") == 0);
    CHECK_INT(json_array_size(w.out), 2);
    CHECK_STR(json_string_value(json_object_get(json_array_get(w.out, 0), "action")), "release");
    CHECK_STR(json_string_value(json_object_get(json_array_get(w.out, 1), "action")), "unprepare");
    /* p2 is gone from the input: found by name in the checkpoint. */
    world_rerun(&w);
    dra_model empty = DRA_MODEL_INIT;
    e = dra_kubelet_unprepare(w.k, &empty, "ns", "p2", w.out);
    CHECK(e == NULL);
    dra_err_free(e);
    CHECK_INT(w.fk.unprepares, 3); /* gpu.example.com for both, nic.example.com for shared */
    CHECK_INT(w.f->cp.n, 0);
    e = dra_kubelet_unprepare(w.k, &empty, "ns", "p2", w.out);
    CHECK(e && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);
    world_close(&w);
}

UNIT_TEST(sync_end_to_end)
{
    world w;
    const char *snap2 = POD("p1", "u-p1", "node-a", STATUS("p1-own")) POD(
        "p2", "u-p2", "node-a",
        "status:\n  phase: Succeeded\n  resourceClaimStatuses:\n  - {name: own, resourceClaimName: p2-own}\n")
        POD("p3", "u-p3", "node-b", "status:\n  resourceClaimStatuses:\n  - {name: own, resourceClaimName: p3-own}\n")
            CLAIM("p1-own", "c-p1", OWNER("u-p1"), RES("p1", "u-p1"), "")
                CLAIM("p2-own", "c-p2", OWNER("u-p2"), RES("p2", "u-p2"), "")
                    CLAIM("shared", "c-sh", "", RES("p1", "u-p1") RES("p2", "u-p2"), NIC_RESULT);
    CHECK(world_open(&w, snap2) == 0);
    /* p2 was prepared earlier (with the shared claim); a ghost pod too. */
    dra_ckpt_claim *c = dra_ckpt_add(&w.f->cp, "ns", "p2-own", "c-p2");
    dra_ckpt_driver_get(&w.f->cp, c, "gpu.example.com");
    dra_ckpt_add_pod(&w.f->cp, c, "u-p2", "ns/p2");
    c->prepared = true;
    c = dra_ckpt_add(&w.f->cp, "ns", "shared", "c-sh");
    dra_ckpt_driver_get(&w.f->cp, c, "gpu.example.com");
    dra_ckpt_driver_get(&w.f->cp, c, "nic.example.com");
    dra_ckpt_add_pod(&w.f->cp, c, "u-p2", "ns/p2");
    c->prepared = true;
    c = dra_ckpt_add(&w.f->cp, "ns", "ghost-claim", "c-ghost");
    dra_ckpt_driver_get(&w.f->cp, c, "gpu.example.com");
    dra_ckpt_add_pod(&w.f->cp, c, "u-ghost", "ns/ghost");
    CHECK(dra_ckpt_save(w.f) == NULL);
    world_rerun(&w);

    dra_err *e = dra_kubelet_sync(w.k, &w.m, "node-a", w.out);
    CHECK(e == NULL);
    if (e)
        dra_err_print(stderr, "sync", e);
    dra_err_free(e);
    /* p2 (finished): p2-own and shared unprepared; ghost: unprepared;
     * p1: p1-own and shared prepared again. */
    CHECK(dra_ckpt_find(&w.f->cp, "ns", "p2-own") == NULL);
    CHECK(dra_ckpt_find(&w.f->cp, "ns", "ghost-claim") == NULL);
    c = dra_ckpt_find(&w.f->cp, "ns", "shared");
    CHECK(c && c->n_pods == 1 && dra_ckpt_has_pod(c, "u-p1") && c->prepared);
    CHECK(dra_ckpt_find(&w.f->cp, "ns", "p3-own") == NULL);
    size_t n = json_array_size(w.out);
    CHECK_INT(n, 4); /* unprepare p2-own, unprepare shared, unprepare ghost-claim, prepare p1 */
    CHECK_STR(json_string_value(json_object_get(json_array_get(w.out, n - 1), "action")), "prepare");
    CHECK_STR(json_string_value(json_object_get(json_array_get(w.out, n - 1), "pod")), "p1");

    /* Again: nothing to do, no driver calls, nothing written. */
    world_rerun(&w);
    int p = w.fk.prepares, u = w.fk.unprepares, d = w.fk.dials;
    struct stat st1, st2;
    stat(w.path, &st1);
    e = dra_kubelet_sync(w.k, &w.m, "node-a", w.out);
    CHECK(e == NULL);
    dra_err_free(e);
    stat(w.path, &st2);
    CHECK_INT(w.fk.prepares, p);
    CHECK_INT(w.fk.unprepares, u);
    CHECK_INT(w.fk.dials, d); /* not even a connection */
    CHECK(st1.st_ino == st2.st_ino);
    world_close(&w);
}

UNIT_TEST(sync_keeps_going_after_one_pod_fails)
{
    world w;
    const char *snap = POD("bad", "u-bad", "node-a", "") POD("p1", "u-p1", "node-a", STATUS("p1-own"))
        CLAIM("p1-own", "c-p1", OWNER("u-p1"), RES("p1", "u-p1"), "")
            CLAIM("shared", "c-sh", "", RES("p1", "u-p1"), "");
    CHECK(world_open(&w, snap) == 0);
    dra_err *e = dra_kubelet_sync(w.k, &w.m, "node-a", w.out);
    CHECK(e && e->code == DRA_EXIT_NEGATIVE);
    CHECK_STR(e ? e->object : NULL, "Pod/ns/bad");
    CHECK(e && e->next == NULL);
    dra_err_free(e);
    CHECK_INT(json_array_size(w.out), 1);
    world_close(&w);
}

UNIT_TEST(extended_resource_requests_map_to_cdi_ids)
{
    world w;
    const char *snap =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: e, namespace: ns, uid: u-e}\n"
        "spec:\n  nodeName: node-a\n  containers:\n"
        "  - name: a\n    image: x\n    resources: {requests: {example.com/gpu: '1'}, limits: {example.com/gpu: '1'}}\n"
        "  - name: b\n    image: x\n    resources: {limits: {example.com/gpu: '0'}}\n"
        "status:\n  extendedResourceClaimStatus:\n    resourceClaimName: e-ext\n    requestMappings:\n"
        "    - {containerName: a, resourceName: example.com/gpu, requestName: gpu}\n"
        "    - {containerName: b, resourceName: example.com/gpu, requestName: nic}\n---\n" CLAIM("e-ext", "c-e", "",
                                                                                                 RES("e", "u-e"), "");
    CHECK(world_open(&w, snap) == 0);
    dra_err *e = dra_kubelet_prepare(w.k, &w.m, "ns", "e", w.out);
    CHECK(e == NULL);
    if (e)
        dra_err_print(stderr, "ext", e);
    dra_err_free(e);
    char *s = ids_of(w.out, 0);
    CHECK_STR(s, "a: example.com/gpu=e-ext");
    free(s);
    s = ids_of(w.out, 1);
    CHECK_STR(s, "b:");
    free(s);
    world_close(&w);
}

UNIT_TEST(cdi_names_follow_the_cdi_parser)
{
    const char *good[] = {"vendor.com/class=name", "a/b=c", "nvidia.com/gpu=0", "v_1/c-2=n:3.x"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        dra_err *e = dra_cdi_check_name(good[i]);
        CHECK(e == NULL);
        dra_err_free(e);
    }
    static const struct {
        const char *id, *msg;
    } bad[] = {
        {"", "unqualified device \"\", missing vendor"},
        {"/dev/x", "unqualified device \"/dev/x\", missing vendor"},
        {"vendor.com/class", "unqualified device \"vendor.com/class\", missing vendor"},
        {"a/b=", "unqualified device \"a/b=\", missing vendor"},
        {"1a/b=c", "invalid device \"1a/b=c\": invalid vendor. \"1a\", should start with letter"},
        {"a/b$c=d", "invalid device \"a/b$c=d\": invalid class. invalid character '$' in name \"b$c\""},
        {"a/b=-x", "invalid device \"a/b=-x\": invalid class \"-x\", should start with a letter or digit"},
        {"a/b=x-", "invalid device \"a/b=x-\": invalid name \"x-\", should end with a letter or digit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dra_err *e = dra_cdi_check_name(bad[i].id);
        CHECK_STR(e ? e->msg : NULL, bad[i].msg);
        dra_err_free(e);
    }
}

UNIT_MAIN()
