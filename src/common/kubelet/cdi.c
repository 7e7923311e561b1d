/* CDI spec loading, checking and device resolution (see cdi.h). */
#include "kubelet/cdi.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/sort.h"
#include "io/json.h"
#include "io/stream.h"

/* ---- names (pkg/parser/parser.go) ---- */

static bool is_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
static bool is_alnum(char c)
{
    return is_letter(c) || (c >= '0' && c <= '9');
}

static dra_err *check_vendor_or_class(const char *what, const char *s, size_t n)
{
    if (n == 0)
        return dra_err_new(DRA_EXIT_INPUT, "invalid %s. empty name", what);
    if (!is_letter(s[0]))
        return dra_err_new(DRA_EXIT_INPUT, "invalid %s. \"%.*s\", should start with letter", what, (int)n, s);
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return dra_err_new(DRA_EXIT_INPUT, "invalid %s. invalid character '%c' in name \"%.*s\"", what, s[i],
                               (int)n, s);
    if (!is_alnum(s[n - 1]))
        return dra_err_new(DRA_EXIT_INPUT, "invalid %s. \"%.*s\", should end with a letter or digit", what, (int)n, s);
    return NULL;
}

static dra_err *check_device_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return dra_err_new(DRA_EXIT_INPUT, "invalid (empty) device name");
    if (!is_alnum(s[0]))
        return dra_err_new(DRA_EXIT_INPUT, "invalid class \"%s\", should start with a letter or digit", s);
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.' && s[i] != ':')
            return dra_err_new(DRA_EXIT_INPUT, "invalid character '%c' in device name \"%s\"", s[i], s);
    if (!is_alnum(s[n - 1]))
        return dra_err_new(DRA_EXIT_INPUT, "invalid name \"%s\", should end with a letter or digit", s);
    return NULL;
}

/* Split "vendor/class" at the first '/'; false when either side is empty. */
static bool split_kind(const char *kind, size_t len, size_t *slash)
{
    const char *p = memchr(kind, '/', len);
    if (!p || p == kind || (size_t)(p - kind) + 1 == len)
        return false;
    *slash = (size_t)(p - kind);
    return true;
}

dra_err *dra_cdi_check_name(const char *id)
{
    const char *eq = id[0] && id[0] != '/' ? strchr(id, '=') : NULL;
    size_t slash = 0;
    bool ok = eq && eq != id && eq[1] && split_kind(id, (size_t)(eq - id), &slash);
    if (!ok) {
        /* ParseDevice failed: which part is missing */
        if (!eq || eq == id || !eq[1] || id[0] == '/')
            return dra_err_new(DRA_EXIT_INPUT, "unqualified device \"%s\", missing vendor", id);
        return dra_err_new(DRA_EXIT_INPUT, "unqualified device \"%s\", missing vendor", id);
    }
    dra_err *e = check_vendor_or_class("vendor", id, slash);
    if (!e)
        e = check_vendor_or_class("class", id + slash + 1, (size_t)(eq - id) - slash - 1);
    if (!e)
        e = check_device_name(eq + 1);
    if (e) {
        dra_err *w = dra_err_new(DRA_EXIT_INPUT, "invalid device \"%s\": %s", id, e->msg);
        dra_err_free(e);
        return w;
    }
    return NULL;
}

/* ---- spec checking (strict decoding + validator-default.go) ---- */

typedef struct sc {
    dra_err *errs;
    dra_buf path;
} sc;

static void fail(sc *c, const char *fmt, ...) DRA_PRINTF(2, 3);
static void fail(sc *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    dra_err *e = dra_err_newv(DRA_EXIT_INPUT, fmt, ap);
    va_end(ap);
    if (c->path.len)
        e = dra_err_field(e, dra_buf_str(&c->path));
    c->errs = dra_err_append(c->errs, e);
}

static size_t push(sc *c, const char *child)
{
    size_t m = c->path.len;
    if (c->path.len)
        dra_buf_putc(&c->path, '.');
    dra_buf_puts(&c->path, child);
    return m;
}
static size_t push_i(sc *c, size_t i)
{
    size_t m = c->path.len;
    dra_buf_printf(&c->path, "[%zu]", i);
    return m;
}
static void pop(sc *c, size_t m)
{
    c->path.len = m;
    if (c->path.data)
        c->path.data[m] = 0;
}

enum ftype { F_STR, F_STRS, F_INT, F_UINT, F_BOOL, F_MAP, F_OBJ, F_OBJS };

typedef struct field {
    const char *name;
    enum ftype t;
} field;

/* Known keys and their types; unknown keys are errors (UnmarshalStrict). */
static bool check_fields(sc *c, const json_t *o, const field *fs)
{
    if (!json_is_object(o)) {
        fail(c, "expected an object, got %s", dra_json_type_name(o));
        return false;
    }
    bool ok = true;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        const field *f = fs;
        while (f->name && strcmp(f->name, k) != 0)
            f++;
        size_t m = push(c, k);
        if (!f->name) {
            fail(c, "unknown field \"%s\"", k);
            ok = false;
        } else if (!json_is_null(v)) {
            const char *want = NULL;
            switch (f->t) {
            case F_STR: want = json_is_string(v) ? NULL : "a string"; break;
            case F_INT: want = json_is_integer(v) ? NULL : "an integer"; break;
            case F_UINT:
                want = json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 0xFFFFFFFFll
                           ? NULL
                           : "an unsigned 32-bit integer";
                break;
            case F_BOOL: want = json_is_boolean(v) ? NULL : "a boolean"; break;
            case F_OBJ: want = json_is_object(v) ? NULL : "an object"; break;
            case F_MAP:
                want = json_is_object(v) ? NULL : "a map of strings";
                if (!want) {
                    const char *mk;
                    json_t *mv;
                    json_object_foreach(v, mk, mv)
                        if (!json_is_string(mv))
                            want = "a map of strings";
                }
                break;
            case F_STRS:
            case F_OBJS:
                want = json_is_array(v) ? NULL : "an array";
                if (!want && f->t == F_STRS) {
                    size_t i;
                    json_t *x;
                    json_array_foreach(v, i, x)
                        if (!json_is_string(x))
                            want = "an array of strings";
                }
                break;
            }
            if (want) {
                fail(c, "expected %s, got %s", want, dra_json_type_name(v));
                ok = false;
            }
        }
        pop(c, m);
    }
    return ok;
}

static void check_env(sc *c, const json_t *env, const char *hook)
{
    size_t i;
    json_t *v;
    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);
        const char *eq = s ? strchr(s, '=') : NULL;
        if (!s || !eq || eq == s) {
            size_t m = push_i(c, i);
            if (hook)
                fail(c, "invalid hook \"%s\": invalid environment variable \"%s\"", hook, s ? s : "");
            else
                fail(c, "invalid container edits: invalid environment variable \"%s\"", s ? s : "");
            pop(c, m);
            return;
        }
    }
}

/* clang-format off */
static const field edits_fields[] = {{"env", F_STRS}, {"deviceNodes", F_OBJS}, {"hooks", F_OBJS}, {"mounts", F_OBJS},
                                     {"intelRdt", F_OBJ}, {"additionalGids", F_OBJS}, {"netDevices", F_OBJS}, {NULL, 0}};
static const field node_fields[] = {{"path", F_STR}, {"hostPath", F_STR}, {"type", F_STR}, {"major", F_INT},
                                    {"minor", F_INT}, {"fileMode", F_UINT}, {"permissions", F_STR}, {"uid", F_UINT},
                                    {"gid", F_UINT}, {NULL, 0}};
static const field mount_fields[] = {{"hostPath", F_STR}, {"containerPath", F_STR}, {"options", F_STRS}, {"type", F_STR}, {NULL, 0}};
static const field hook_fields[] = {{"hookName", F_STR}, {"path", F_STR}, {"args", F_STRS}, {"env", F_STRS}, {"timeout", F_INT}, {NULL, 0}};
static const field rdt_fields[] = {{"closID", F_STR}, {"l3CacheSchema", F_STR}, {"memBwSchema", F_STR},
                                   {"schemata", F_STRS}, {"enableMonitoring", F_BOOL}, {NULL, 0}};
/* clang-format on */
static const field net_fields[] = {{"hostInterfaceName", F_STR}, {"name", F_STR}, {NULL, 0}};

static bool edits_empty(const json_t *e)
{
    static const char *const keys[] = {"env", "deviceNodes", "hooks", "mounts", "additionalGids", "netDevices"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (json_array_size(json_object_get(e, keys[i])) > 0)
            return false;
    return !json_is_object(json_object_get(e, "intelRdt"));
}

static void check_edits(sc *c, const json_t *e)
{
    if (!check_fields(c, e, edits_fields))
        return;
    size_t m = push(c, "env"), i;
    check_env(c, json_object_get(e, "env"), NULL);
    pop(c, m);
    json_t *v;
    json_array_foreach(json_object_get(e, "deviceNodes"), i, v) {
        m = push(c, "deviceNodes");
        push_i(c, i);
        if (check_fields(c, v, node_fields)) {
            const char *p = dra_jstr_or(v, "path", ""), *t = dra_jstr_or(v, "type", ""),
                       *perm = dra_jstr_or(v, "permissions", "");
            if (!*p)
                fail(c, "invalid (empty) device path");
            else if (*t && !(strlen(t) == 1 && strchr("bcup", t[0])))
                fail(c, "device \"%s\": invalid type \"%s\"", p, t);
            else if (strspn(perm, "rwm") != strlen(perm))
                fail(c, "device \"%s\": invalid permissions \"%s\"", p, perm);
        }
        pop(c, m);
    }
    json_array_foreach(json_object_get(e, "hooks"), i, v) {
        m = push(c, "hooks");
        push_i(c, i);
        if (check_fields(c, v, hook_fields)) {
            static const char *const names[] = {"prestart",       "createRuntime", "createContainer",
                                                "startContainer", "poststart",     "poststop"};
            const char *hn = dra_jstr_or(v, "hookName", "");
            bool known = false;
            for (size_t k = 0; k < 6; k++)
                known |= strcmp(hn, names[k]) == 0;
            if (!known) {
                fail(c, "invalid hook name \"%s\"", hn);
            } else if (!*dra_jstr_or(v, "path", "")) {
                fail(c, "invalid hook \"%s\" with empty path", hn);
            } else {
                size_t m2 = push(c, "env");
                check_env(c, json_object_get(v, "env"), hn);
                pop(c, m2);
            }
        }
        pop(c, m);
    }
    json_array_foreach(json_object_get(e, "mounts"), i, v) {
        m = push(c, "mounts");
        push_i(c, i);
        if (check_fields(c, v, mount_fields)) {
            if (!*dra_jstr_or(v, "hostPath", ""))
                fail(c, "invalid mount, empty host path");
            else if (!*dra_jstr_or(v, "containerPath", ""))
                fail(c, "invalid mount, empty container path");
        }
        pop(c, m);
    }
    json_array_foreach(json_object_get(e, "additionalGids"), i, v) {
        m = push(c, "additionalGids");
        push_i(c, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 0xFFFFFFFFll)
            fail(c, "expected an unsigned 32-bit integer, got %s", dra_json_type_name(v));
        pop(c, m);
    }
    json_array_foreach(json_object_get(e, "netDevices"), i, v) {
        m = push(c, "netDevices");
        push_i(c, i);
        check_fields(c, v, net_fields);
        pop(c, m);
    }
    json_t *rdt = json_object_get(e, "intelRdt");
    if (json_is_object(rdt)) {
        m = push(c, "intelRdt");
        if (check_fields(c, rdt, rdt_fields)) {
            const char *id = dra_jstr_or(rdt, "closID", "");
            if (strlen(id) >= 4096 || strcmp(id, ".") == 0 || strcmp(id, "..") == 0 || strpbrk(id, "/\n"))
                fail(c, "invalid ClosID");
        }
        pop(c, m);
    }
}

static const char *const known_versions[] = {"0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"};

/* clang-format off */
static const field spec_fields[] = {{"cdiVersion", F_STR}, {"kind", F_STR}, {"annotations", F_MAP}, {"devices", F_OBJS},
                                    {"containerEdits", F_OBJ}, {NULL, 0}};
/* clang-format on */
static const field device_fields[] = {{"name", F_STR}, {"annotations", F_MAP}, {"containerEdits", F_OBJ}, {NULL, 0}};

dra_err *dra_cdi_check_spec(const json_t *spec)
{
    sc c = {NULL, DRA_BUF_INIT};
    check_fields(&c, spec, spec_fields);
    if (!json_is_object(spec))
        goto out;
    const char *ver = dra_jstr_or(spec, "cdiVersion", "");
    bool known = false;
    for (size_t i = 0; i < sizeof known_versions / sizeof known_versions[0]; i++)
        known |= strcmp(ver, known_versions[i]) == 0;
    json_t *verj = json_object_get(spec, "cdiVersion");
    size_t m = push(&c, "cdiVersion");
    if (!known && (!verj || json_is_string(verj) || json_is_null(verj)))
        fail(&c, "invalid version \"%s\"", ver);
    pop(&c, m);
    const char *kind = dra_jstr_or(spec, "kind", "");
    size_t slash;
    m = push(&c, "kind");
    dra_err *e;
    if (!split_kind(kind, strlen(kind), &slash))
        e = check_vendor_or_class("vendor", "", 0);
    else if (!(e = check_vendor_or_class("vendor", kind, slash)))
        e = check_vendor_or_class("class", kind + slash + 1, strlen(kind) - slash - 1);
    if (e) {
        fail(&c, "%s", e->msg);
        dra_err_free(e);
    }
    pop(&c, m);
    json_t *ce = json_object_get(spec, "containerEdits");
    if (json_is_object(ce)) {
        m = push(&c, "containerEdits");
        check_edits(&c, ce);
        pop(&c, m);
    }
    size_t i;
    json_t *d;
    dra_strmap names = {0}; /* the devices' names so far (the spec's strings) */
    json_array_foreach(json_object_get(spec, "devices"), i, d) {
        m = push(&c, "devices");
        push_i(&c, i);
        if (check_fields(&c, d, device_fields) || json_is_object(d)) {
            const char *name = dra_jstr_or(d, "name", "");
            size_t m2;
            if (dra_strmap_add(&names, name, strlen(name), 0, NULL)) {
                m2 = push(&c, "name");
                fail(&c, "invalid spec, multiple device \"%s\"", name);
                pop(&c, m2);
            }
            m2 = push(&c, "name");
            if ((e = check_device_name(name))) {
                fail(&c, "invalid device \"%s\": %s", name, e->msg);
                dra_err_free(e);
            }
            pop(&c, m2);
            m2 = push(&c, "containerEdits");
            json_t *de = json_object_get(d, "containerEdits");
            if (!json_is_object(de) || edits_empty(de))
                fail(&c, "invalid device \"%s\": empty container edits", name);
            else
                check_edits(&c, de);
            pop(&c, m2);
        }
        pop(&c, m);
    }
    dra_strmap_free(&names);
out:
    dra_buf_free(&c.path);
    return c.errs;
}

/* ---- the cache ---- */

typedef struct cspec {
    char *path;
    int prio;
    json_t *json;
} cspec;

typedef struct cdev {
    char *name; /* qualified */
    size_t spec;
    const json_t *dev;
    char *conflict; /* non-NULL: removed, with the reason */
} cdev;

struct dra_cdi {
    dra_objset set; /* owns every loaded document */
    cspec *specs;
    size_t nspecs;
    cdev *devs;
    size_t ndevs;
    dra_strmap by_name; /* qualified name -> index in devs (keys are the devs' names) */
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_ext(const char *n)
{
    size_t l = strlen(n);
    return (l > 5 && strcmp(n + l - 5, ".json") == 0) || (l > 5 && strcmp(n + l - 5, ".yaml") == 0);
}

static void add_spec(dra_cdi *c, const char *path, int prio, dra_err **errs)
{
    size_t before = c->set.n;
    dra_err *e = dra_read_path(&c->set, path);
    if (e) {
        *errs = dra_err_append(*errs, e);
        return;
    }
    if (c->set.n - before != 1) {
        e = dra_err_new(DRA_EXIT_INPUT, "a CDI spec file holds exactly one document, found %zu", c->set.n - before);
        *errs = dra_err_append(*errs, dra_err_at(e, path, 0, 0, 0));
        return;
    }
    const dra_obj *o = &c->set.v[before];
    e = dra_cdi_check_spec(o->json);
    if (e) {
        for (dra_err *x = e; x; x = x->next)
            x = dra_err_at(x, path, 0, o->line, 0);
        *errs = dra_err_append(*errs, e);
        return;
    }
    c->specs = dra_xgrow(c->specs, c->nspecs, sizeof *c->specs);
    c->specs[c->nspecs] = (cspec){dra_xstrdup(path), prio, o->json};
    const char *kind = dra_jstr_or(o->json, "kind", "");
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(o->json, "devices"), i, d) {
        char *q = dra_xasprintf("%s=%s", kind, dra_jstr_or(d, "name", ""));
        intptr_t j;
        if (dra_strmap_get(&c->by_name, q, strlen(q), &j)) {
            cdev *old = &c->devs[j];
            int oldprio = c->specs[old->spec].prio;
            if (prio > oldprio) { /* higher priority replaces */
                old->spec = c->nspecs;
                old->dev = d;
                free(old->conflict);
                old->conflict = NULL;
            } else if (prio == oldprio && !old->conflict) {
                old->conflict = dra_xasprintf("conflicting device \"%s\" (specs \"%s\", \"%s\")", q, path,
                                              c->specs[old->spec].path);
            }
            free(q);
            continue;
        }
        c->devs = dra_xgrow(c->devs, c->ndevs, sizeof *c->devs);
        c->devs[c->ndevs] = (cdev){q, c->nspecs, d, NULL};
        dra_strmap_put(&c->by_name, q, strlen(q), (intptr_t)c->ndevs++);
    }
    c->nspecs++;
}

dra_cdi *dra_cdi_load(const char *const *dirs, size_t ndirs, dra_err **spec_errs)
{
    dra_cdi *c = dra_xcalloc(1, sizeof *c);
    dra_err *errs = NULL;
    for (size_t d = 0; d < ndirs; d++) {
        DIR *dir = opendir(dirs[d]);
        if (!dir) {
            if (errno != ENOENT)
                errs = dra_err_append(errs, dra_err_new(DRA_EXIT_INPUT, "%s: %s", dirs[d], strerror(errno)));
            continue;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(dir))) {
            if (!has_ext(de->d_name))
                continue;
            names = dra_xgrow(names, n, sizeof *names);
            names[n++] = dra_xstrdup(de->d_name);
        }
        closedir(dir);
        dra_sort(names, n, sizeof *names, cmp_str);
        for (size_t i = 0; i < n; i++) {
            char *path = dra_xasprintf("%s/%s", dirs[d], names[i]);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                add_spec(c, path, (int)d, &errs);
            free(path);
            free(names[i]);
        }
        free(names);
    }
    if (spec_errs)
        *spec_errs = errs;
    else
        dra_err_free(errs);
    return c;
}

void dra_cdi_free(dra_cdi *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nspecs; i++)
        free(c->specs[i].path);
    for (size_t i = 0; i < c->ndevs; i++) {
        free(c->devs[i].name);
        free(c->devs[i].conflict);
    }
    dra_strmap_free(&c->by_name);
    free(c->specs);
    free(c->devs);
    dra_objset_free(&c->set);
    free(c);
}

size_t dra_cdi_device_count(const dra_cdi *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->ndevs; i++)
        n += c->devs[i].conflict == NULL;
    return n;
}

/* ---- merging (container-edits.go Append + Apply) ---- */

/* The edits so far.  A replaced device node or mount leaves a hole (JSON
 * null) where it was, so that each edit costs a lookup, not a scan: the
 * holes go when the result is built.  The maps' keys are strings of the
 * specs' own JSON, which outlives a resolve. */
typedef struct merged {
    json_t *env, *nodes, *mounts, *hooks, *gids, *net, *rdt;
    dra_strmap env_at, node_at, mount_at, gid_seen; /* variable / path / container path / gid -> index */
} merged;

static size_t env_key_len(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq ? (size_t)(eq - s) : strlen(s);
}

/* Append v to arr in place of the entry with the same key (a hole now),
 * as upstream removes it and appends the new one. */
static void replace_append(json_t *arr, dra_strmap *at, const char *key, json_t *v)
{
    intptr_t old;
    if (dra_strmap_get(at, key, strlen(key), &old))
        json_array_set_new(arr, (size_t)old, json_null());
    dra_strmap_put(at, key, strlen(key), (intptr_t)json_array_size(arr));
    json_array_append_new(arr, v);
}

static void apply(merged *m, const json_t *e)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(e, "env"), i, v) {
        const char *s = json_string_value(v);
        size_t kl = env_key_len(s);
        intptr_t at;
        if (dra_strmap_get(&m->env_at, s, kl, &at)) {
            json_array_set(m->env, (size_t)at, v);
        } else {
            dra_strmap_put(&m->env_at, s, kl, (intptr_t)json_array_size(m->env));
            json_array_append(m->env, v);
        }
    }
    json_array_foreach(json_object_get(e, "deviceNodes"), i, v) {
        json_t *n = json_deep_copy(v);
        const char *p = dra_jstr_or(v, "path", "");
        if (!*dra_jstr_or(n, "hostPath", ""))
            json_object_set_new(n, "hostPath", json_string(p));
        replace_append(m->nodes, &m->node_at, p, n);
    }
    json_array_foreach(json_object_get(e, "mounts"), i, v)
        replace_append(m->mounts, &m->mount_at, dra_jstr_or(v, "containerPath", ""), json_incref(v));
    json_array_foreach(json_object_get(e, "hooks"), i, v)
        json_array_append(m->hooks, v);
    json_array_foreach(json_object_get(e, "additionalGids"), i, v) {
        json_int_t g = json_integer_value(v);
        char key[24];
        int kl = snprintf(key, sizeof key, "%lld", (long long)g);
        if (g == 0 || dra_strmap_get(&m->gid_seen, key, (size_t)kl, NULL))
            continue;
        /* the key must outlive the map: the gid's place in the array stands for it */
        json_array_append(m->gids, v);
        dra_strmap_put(&m->gid_seen, dra_xstrdup(key), (size_t)kl, 0);
    }
    json_array_foreach(json_object_get(e, "netDevices"), i, v)
        json_array_append(m->net, v);
    json_t *rdt = json_object_get(e, "intelRdt");
    if (json_is_object(rdt)) {
        json_decref(m->rdt);
        m->rdt = json_incref(rdt);
    }
}

/* arr without its holes. */
static void drop_holes(json_t *arr)
{
    size_t k = 0, i;
    json_t *v;
    json_array_foreach(arr, i, v)
        if (!json_is_null(v))
            json_array_set(arr, k++, v);
    while (json_array_size(arr) > k)
        json_array_remove(arr, json_array_size(arr) - 1);
}

static void merged_free(merged *m)
{
    json_decref(m->env), json_decref(m->nodes), json_decref(m->mounts), json_decref(m->hooks);
    json_decref(m->gids), json_decref(m->net), json_decref(m->rdt);
    for (size_t i = 0; i < m->gid_seen.cap; i++)
        free((char *)m->gid_seen.e[i].key);
    dra_strmap_free(&m->env_at);
    dra_strmap_free(&m->node_at);
    dra_strmap_free(&m->mount_at);
    dra_strmap_free(&m->gid_seen);
}

static size_t depth(const char *p)
{
    /* filepath.Clean then count separators: collapse repeats, drop a trailing one */
    size_t n = 0, len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        len--;
    for (size_t i = 0; i < len; i++)
        if (p[i] == '/' && (i == 0 || p[i - 1] != '/'))
            n++;
    return n;
}

static int cmp_mount(const void *a, const void *b)
{
    const char *x = dra_jstr_or(*(json_t *const *)a, "containerPath", ""),
               *y = dra_jstr_or(*(json_t *const *)b, "containerPath", "");
    size_t dx = depth(x), dy = depth(y);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    return strcmp(x, y);
}

dra_err *dra_cdi_resolve(const dra_cdi *c, char *const *ids, size_t n, json_t **edits)
{
    *edits = NULL;
    dra_buf why = DRA_BUF_INIT;
    merged m = {json_array(), json_array(), json_array(), json_array(), json_array(), json_array(),
                NULL,         {0},          {0},          {0},          {0}};
    bool *spec_done = dra_xcalloc(c->nspecs + 1, sizeof *spec_done);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        intptr_t j;
        const cdev *d = dra_strmap_get(&c->by_name, ids[i], strlen(ids[i]), &j) ? &c->devs[j] : NULL;
        dra_err *ne = NULL;
        if (!d || d->conflict) {
            ne = dra_cdi_check_name(ids[i]);
            dra_buf_printf(&why, "%s%s", bad++ ? "; " : "", ne ? ne->msg : d ? d->conflict : "");
            if (!ne && !d)
                dra_buf_printf(&why, "no CDI spec defines \"%s\"", ids[i]);
            dra_err_free(ne);
            continue;
        }
        if (!spec_done[d->spec]) {
            spec_done[d->spec] = true;
            json_t *se = json_object_get(c->specs[d->spec].json, "containerEdits");
            if (json_is_object(se))
                apply(&m, se);
        }
        apply(&m, json_object_get(d->dev, "containerEdits"));
    }
    free(spec_done);
    if (bad) {
        dra_buf list = DRA_BUF_INIT;
        for (size_t i = 0; i < n; i++)
            dra_buf_printf(&list, "%s%s", i ? ", " : "", ids[i]);
        dra_err *e =
            dra_err_new(DRA_EXIT_INPUT, "unresolvable CDI devices %s: %s", dra_buf_str(&list), dra_buf_str(&why));
        dra_buf_free(&list);
        dra_buf_free(&why);
        merged_free(&m);
        return e;
    }
    dra_buf_free(&why);
    drop_holes(m.nodes);
    drop_holes(m.mounts);
    /* mounts sorted by depth, then container path */
    size_t nm = json_array_size(m.mounts);
    json_t **mv = dra_xmalloc((nm + 1) * sizeof *mv);
    for (size_t i = 0; i < nm; i++)
        mv[i] = json_incref(json_array_get(m.mounts, i));
    dra_sort(mv, nm, sizeof *mv, cmp_mount);
    json_array_clear(m.mounts);
    for (size_t i = 0; i < nm; i++)
        json_array_append_new(m.mounts, mv[i]);
    free(mv);

    json_t *o = json_object(), *devs = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(devs, json_string(ids[i]));
    json_object_set_new(o, "devices", devs);
    json_object_set_new(o, "env", m.env);
    json_object_set_new(o, "deviceNodes", m.nodes);
    json_object_set_new(o, "mounts", m.mounts);
    json_object_set_new(o, "hooks", m.hooks);
    if (json_array_size(m.gids))
        json_object_set_new(o, "additionalGids", m.gids);
    else
        json_decref(m.gids);
    if (json_array_size(m.net))
        json_object_set_new(o, "netDevices", m.net);
    else
        json_decref(m.net);
    if (m.rdt)
        json_object_set_new(o, "intelRdt", m.rdt);
    m.env = m.nodes = m.mounts = m.hooks = m.gids = m.net = m.rdt = NULL; /* o's now */
    merged_free(&m);
    *edits = o;
    return NULL;
}

dra_err *dra_cdi_resolve_records(const dra_cdi *c, const json_t *const *records, size_t n, json_t *out)
{
    dra_err *errs = NULL;
    for (size_t i = 0; i < n; i++) {
        const json_t *r = records[i];
        json_t *ids = json_object_get(r, "cdiDevices");
        json_t *cs = json_object_get(r, "containers");
        if (json_is_array(cs)) { /* a sync record: one per container */
            size_t j;
            json_t *ctr;
            json_array_foreach(cs, j, ctr) {
                json_t *flat = json_object();
                json_object_set(flat, "namespace", json_object_get(r, "namespace"));
                json_object_set(flat, "pod", json_object_get(r, "pod"));
                json_object_set(flat, "container", json_object_get(ctr, "container"));
                json_object_set(flat, "cdiDevices", json_object_get(ctr, "cdiDevices"));
                const json_t *one = flat;
                errs = dra_err_append(errs, dra_cdi_resolve_records(c, &one, 1, out));
                json_decref(flat);
            }
            continue;
        }
        if (!json_is_array(ids))
            continue; /* unprepare records and other objects */
        size_t k = json_array_size(ids);
        char **v = dra_xcalloc(k + 1, sizeof *v);
        bool ok = true;
        for (size_t j = 0; j < k; j++) {
            v[j] = (char *)json_string_value(json_array_get(ids, j));
            ok &= v[j] != NULL;
        }
        json_t *ed = NULL;
        dra_err *e = ok ? dra_cdi_resolve(c, v, k, &ed)
                        : dra_err_field(dra_err_new(DRA_EXIT_INPUT, "expected an array of strings"), "cdiDevices");
        free(v);
        if (e) {
            const char *p = json_string_value(json_object_get(r, "pod")),
                       *ns = json_string_value(json_object_get(r, "namespace"));
            const char *ct = json_string_value(json_object_get(r, "container"));
            if (p) {
                char *o = dra_xasprintf("Pod/%s/%s", ns ? ns : "default", p);
                e = dra_err_object(e, o);
                free(o);
            }
            if (ct) {
                char *fld = dra_xasprintf("container %s", ct);
                if (!e->field)
                    e = dra_err_field(e, fld);
                free(fld);
            }
            errs = dra_err_append(errs, e);
            continue;
        }
        json_t *o = json_object();
        static const char *const keep[] = {"namespace", "pod", "container"};
        for (size_t j = 0; j < 3; j++)
            if (json_object_get(r, keep[j]))
                json_object_set(o, keep[j], json_object_get(r, keep[j]));
        json_object_update(o, ed);
        json_decref(ed);
        json_array_append_new(out, o);
    }
    return errs;
}
