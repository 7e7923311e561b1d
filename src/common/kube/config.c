/* kubeconfig loading; see config.h.  Field names and messages follow
 * k8s.io/client-go/tools/clientcmd (loader.go, validation.go, client_config.go)
 * and rest/config.go (InClusterConfig). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/base64.h"
#include "../base/path.h"
#include "../io/stream.h"
#include "text.h"

#define KUBE_CONFIG_MAX_BYTES ((size_t)16 << 20)
#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* One named entry of a merged map, with the folder of its file. */
typedef struct entry {
    const char *name;
    json_t *val; /* borrowed from its file's document */
    const char *dir;
    const char *file;
} entry;

typedef struct merged {
    entry *clusters, *users, *contexts;
    size_t nclusters, nusers, ncontexts;
    const char *current;
    dra_objset docs;
    char **dirs;
    size_t ndirs;
    dra_buf files; /* "a:b" for messages */
} merged;

static void merged_free(merged *m)
{
    free(m->clusters);
    free(m->users);
    free(m->contexts);
    dra_objset_free(&m->docs);
    for (size_t i = 0; i < m->ndirs; i++)
        free(m->dirs[i]);
    free(m->dirs);
    dra_buf_free(&m->files);
}

static const entry *find(const entry *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

static dra_err *merge_list(merged *m, json_t *doc, const char *key, const char *inner, entry **v, size_t *n,
                           const char *dir, const char *file)
{
    json_t *arr = json_object_get(doc, key);
    if (!arr || json_is_null(arr))
        return NULL;
    if (!json_is_array(arr))
        return dra_err_field(dra_err_at(dra_err_new(DRA_EXIT_INPUT, "must be a list"), file, 0, 0, 0), key);
    size_t i;
    json_t *it;
    json_array_foreach(arr, i, it) {
        const char *name = json_string_value(json_object_get(it, "name"));
        json_t *val = json_object_get(it, inner);
        if (!json_is_object(it) || !name) {
            dra_err *e = dra_err_new(DRA_EXIT_INPUT, "an entry needs a string name");
            char *f = dra_xasprintf("%s[%zu]", key, i);
            e = dra_err_field(e, f);
            free(f);
            return dra_err_at(e, file, 0, 0, 0);
        }
        if (val && !json_is_object(val) && !json_is_null(val)) {
            dra_err *e = dra_err_new(DRA_EXIT_INPUT, "must be a mapping");
            char *f = dra_xasprintf("%s[%zu].%s", key, i, inner);
            e = dra_err_field(e, f);
            free(f);
            return dra_err_at(e, file, 0, 0, 0);
        }
        if (find(*v, *n, name))
            continue; /* first file wins */
        *v = dra_xgrow(*v, *n, sizeof **v);
        (*v)[(*n)++] = (entry){name, json_is_object(val) ? val : NULL, dir, file};
    }
    return NULL;
}

static dra_err *merge_doc(merged *m, const char *file, const char *data, size_t len, const char *dir)
{
    size_t before = m->docs.n;
    dra_err *e = dra_read_mem(&m->docs, file, data, len);
    if (e)
        return e;
    if (m->docs.n == before)
        return NULL; /* empty file: kubectl accepts it */
    if (m->docs.n > before + 1)
        return dra_err_at(dra_err_new(DRA_EXIT_INPUT, "a kubeconfig holds one document, found %zu", m->docs.n - before),
                          file, 0, 0, 0);
    json_t *doc = m->docs.v[before].json;
    m->dirs = dra_xgrow(m->dirs, m->ndirs, sizeof *m->dirs);
    char *d = dra_xstrdup(dir);
    m->dirs[m->ndirs++] = d;
    const char *fname = m->docs.v[before].file;
    if ((e = merge_list(m, doc, "clusters", "cluster", &m->clusters, &m->nclusters, d, fname)) ||
        (e = merge_list(m, doc, "users", "user", &m->users, &m->nusers, d, fname)) ||
        (e = merge_list(m, doc, "contexts", "context", &m->contexts, &m->ncontexts, d, fname)))
        return e;
    const char *cur = json_string_value(json_object_get(doc, "current-context"));
    if (!m->current && cur && *cur)
        m->current = cur;
    if (m->files.len)
        dra_buf_putc(&m->files, ':');
    dra_buf_puts(&m->files, file);
    return NULL;
}

static char *resolve(const char *dir, const char *p)
{
    if (!p || !*p)
        return NULL;
    if (p[0] == '/' || !dir || !*dir)
        return dra_xstrdup(p);
    return dra_xasprintf("%s/%s", dir, p);
}

static dra_err *merge_file(merged *m, const char *path, bool must_exist)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (!must_exist && errno == ENOENT)
            return NULL;
        int err = errno;
        dra_arena a = DRA_ARENA_INIT;
        dra_err *e = dra_err_new(must_exist ? DRA_EXIT_INPUT : DRA_EXIT_RUNTIME, "stat %s: %s", dra_kube_v(&a, path),
                                 strerror(err));
        dra_arena_free(&a);
        return e;
    }
    dra_buf b = DRA_BUF_INIT;
    dra_err *e = dra_buf_read_path(&b, path, KUBE_CONFIG_MAX_BYTES);
    if (!e) {
        char *d = dra_path_dir(path);
        e = merge_doc(m, path, dra_buf_str(&b), b.len, d);
        free(d);
    }
    dra_buf_free(&b);
    return e;
}

static const char *str_field(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s && *s ? s : NULL;
}

/* An input error about the entry `name`, shown as it is (upstream's %v) or,
 * with cfg_errq, quoted (upstream's %q); control characters are escaped
 * either way (text.h). */
static dra_err *cfg_err_as(const char *fmt, const char *name, bool quote)
{
    dra_arena a = DRA_ARENA_INIT;
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, fmt, quote ? dra_kube_q(&a, name) : dra_kube_v(&a, name));
    dra_arena_free(&a);
    return e;
}

static dra_err *cfg_err(const char *fmt, const char *name)
{
    return cfg_err_as(fmt, name, false);
}
static dra_err *cfg_errq(const char *fmt, const char *name)
{
    return cfg_err_as(fmt, name, true);
}

/* A file a kubeconfig names (what: "certificate-authority", "client-cert",
 * "client-key"; owner: its cluster or user), read whole; errors in
 * clientcmd's words (validation.go): "unable to read WHAT PATH for OWNER due
 * to open PATH: no such file or directory" (DRA_EXIT_RUNTIME), or what is
 * wrong with the file once open (too large: DRA_EXIT_INPUT). */
static dra_err *read_file_into(dra_buf *out, const char *path, const char *what, const char *owner)
{
    dra_buf_reset(out);
    dra_arena a = DRA_ARENA_INIT;
    const char *shown = dra_kube_v(&a, path);
    dra_err *e = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        e = dra_err_new(DRA_EXIT_RUNTIME, "unable to read %s %s for %s due to open %s: %s", what, shown,
                        dra_kube_v(&a, owner), shown, dra_kube_strerror(&a, errno));
    } else {
        dra_err *re = dra_buf_read_fd(out, fd, shown, KUBE_CONFIG_MAX_BYTES);
        close(fd);
        if (re) {
            e = dra_err_new(re->code, "unable to read %s %s for %s due to %s", what, shown, dra_kube_v(&a, owner),
                            re->msg);
            dra_err_free(re);
        }
    }
    dra_arena_free(&a);
    return e;
}

static dra_err *load_cluster(dra_kube_config *c, const entry *en)
{
    const json_t *cl = en->val;
    const char *server = str_field(cl, "server");
    if (!server)
        return cfg_errq("invalid configuration: no server found for cluster %s", en->name);
    dra_err *ue = dra_kube_url_check(server);
    if (ue) /* url.Parse's error, as kubectl fails with it before any request */
        return dra_err_at(ue, en->file, 0, 0, 0);
    size_t n = strlen(server);
    while (n > 0 && server[n - 1] == '/')
        n--;
    c->server = dra_xstrndup(server, n);
    const char *ca = str_field(cl, "certificate-authority");
    const char *cad = str_field(cl, "certificate-authority-data");
    json_t *ins = json_object_get(cl, "insecure-skip-tls-verify");
    c->insecure = json_is_true(ins);
    if (ca && cad)
        return cfg_err("invalid configuration: certificate-authority-data and certificate-authority are both specified "
                       "for %s. certificate-authority-data will override.",
                       en->name);
    if (c->insecure && (ca || cad))
        return cfg_err("invalid configuration: specifying a root certificates file with the insecure flag is not "
                       "allowed for cluster %s",
                       en->name);
    dra_err *e = NULL;
    if (cad) {
        dra_buf_reset(&c->ca);
        if (!dra_base64_decode(&c->ca, cad, strlen(cad)))
            return cfg_errq("cluster %s: certificate-authority-data: illegal base64 data", en->name);
    } else if (ca) {
        char *p = resolve(en->dir, ca);
        e = read_file_into(&c->ca, p, "certificate-authority", en->name);
        free(p);
        if (e)
            return e;
    }
    const char *sni = str_field(cl, "tls-server-name");
    const char *proxy = str_field(cl, "proxy-url");
    c->tls_server_name = sni ? dra_xstrdup(sni) : NULL;
    c->proxy_url = proxy ? dra_xstrdup(proxy) : NULL;
    return NULL;
}

static dra_err *load_exec(dra_kube_config *c, const entry *en, const json_t *ex)
{
    dra_kube_exec *x = dra_xcalloc(1, sizeof *x);
    c->exec = x;
    const char *cmd = str_field(ex, "command");
    const char *av = str_field(ex, "apiVersion");
    if (!cmd)
        return cfg_err("invalid configuration: command must be specified for %s to use exec authentication plugin",
                       en->name);
    if (!av)
        return cfg_err("invalid configuration: apiVersion must be specified for %s to use exec authentication plugin",
                       en->name);
    if (strcmp(av, "client.authentication.k8s.io/v1") != 0 && strcmp(av, "client.authentication.k8s.io/v1beta1") != 0)
        return cfg_errq("exec plugin: invalid apiVersion %s", av);
    x->api_version = dra_xstrdup(av);
    x->command = strchr(cmd, '/') ? resolve(en->dir, cmd) : dra_xstrdup(cmd);
    json_t *args = json_object_get(ex, "args");
    size_t na = json_is_array(args) ? json_array_size(args) : 0;
    x->args = dra_xcalloc(na + 1, sizeof *x->args);
    for (size_t i = 0; i < na; i++) {
        const char *s = json_string_value(json_array_get(args, i));
        if (!s)
            return cfg_err("invalid configuration: exec args of %s must be strings", en->name);
        x->args[i] = dra_xstrdup(s);
    }
    json_t *env = json_object_get(ex, "env");
    size_t ne = json_is_array(env) ? json_array_size(env) : 0;
    x->env = dra_xcalloc(ne + 1, sizeof *x->env);
    for (size_t i = 0; i < ne; i++) {
        json_t *v = json_array_get(env, i);
        const char *nm = str_field(v, "name");
        const char *val = json_string_value(json_object_get(v, "value"));
        if (!nm)
            return cfg_err("invalid configuration: env variable name must be specified for %s to use exec "
                           "authentication plugin",
                           en->name);
        x->env[i] = dra_xasprintf("%s=%s", nm, val ? val : "");
    }
    const char *hint = str_field(ex, "installHint");
    x->install_hint = hint ? dra_kube_clean_ansi(hint) : NULL; /* as clientcmd does */
    x->provide_cluster_info = json_is_true(json_object_get(ex, "provideClusterInfo"));
    return NULL;
}

/* ---- impersonation ---- */

static void extra_add(dra_kube_impersonate *as, const char *key, const char *value, bool replace)
{
    dra_kube_extra *x = NULL;
    for (size_t i = 0; i < as->nextra && !x; i++)
        if (strcmp(as->extra[i].key, key) == 0)
            x = &as->extra[i];
    if (!x) {
        as->extra = dra_xgrow(as->extra, as->nextra, sizeof *as->extra);
        x = &as->extra[as->nextra++];
        *x = (dra_kube_extra){dra_xstrdup(key), NULL, 0};
    } else if (replace) {
        for (size_t i = 0; i < x->nvalues; i++)
            free(x->values[i]);
        x->nvalues = 0;
    }
    x->values = dra_xgrow(x->values, x->nvalues, sizeof *x->values);
    x->values[x->nvalues++] = dra_xstrdup(value);
}

static void impersonate_free(dra_kube_impersonate *as)
{
    free(as->user);
    free(as->uid);
    for (size_t i = 0; i < as->ngroups; i++)
        free(as->groups[i]);
    free(as->groups);
    for (size_t i = 0; i < as->nextra; i++) {
        free(as->extra[i].key);
        for (size_t k = 0; k < as->extra[i].nvalues; k++)
            free(as->extra[i].values[k]);
        free(as->extra[i].values);
    }
    free(as->extra);
    memset(as, 0, sizeof *as);
}

/* A field of the user that must be a string: anything else (a YAML number
 * or boolean too) is refused, not silently dropped. */
static dra_err *as_string(const entry *en, const char *field, const json_t *v, const char **out)
{
    *out = NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        dra_arena a = DRA_ARENA_INIT;
        dra_err *e = dra_err_new(DRA_EXIT_INPUT, "invalid configuration: %s of user %s must be a string (quote it)",
                                 field, dra_kube_q(&a, en->name));
        dra_arena_free(&a);
        return dra_err_at(e, en->file, 0, 0, 0);
    }
    *out = json_string_value(v);
    return NULL;
}

static dra_err *as_strings(const entry *en, const char *field, const json_t *v)
{
    size_t i;
    const json_t *it;
    bool list = !v || json_is_null(v) || json_is_array(v);
    json_array_foreach(v, i, it)
        list = list && json_is_string(it);
    if (list)
        return NULL;
    dra_arena a = DRA_ARENA_INIT;
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, "invalid configuration: %s of user %s must be a list of strings", field,
                             dra_kube_q(&a, en->name));
    dra_arena_free(&a);
    return dra_err_at(e, en->file, 0, 0, 0);
}

/* The user's as, as-uid, as-groups and as-user-extra. */
static dra_err *load_impersonation(dra_kube_config *c, const entry *en)
{
    const json_t *u = en->val;
    dra_kube_impersonate *as = &c->as;
    const char *user, *uid;
    dra_err *e;
    if ((e = as_string(en, "as", json_object_get(u, "as"), &user)) ||
        (e = as_string(en, "as-uid", json_object_get(u, "as-uid"), &uid)))
        return e;
    const json_t *groups = json_object_get(u, "as-groups");
    if ((e = as_strings(en, "as-groups", groups)))
        return e;
    const json_t *extra = json_object_get(u, "as-user-extra");
    if (extra && !json_is_null(extra) && !json_is_object(extra)) {
        dra_arena a = DRA_ARENA_INIT;
        e = dra_err_new(DRA_EXIT_INPUT,
                        "invalid configuration: as-user-extra of user %s must be a mapping of lists "
                        "of strings",
                        dra_kube_q(&a, en->name));
        dra_arena_free(&a);
        return dra_err_at(e, en->file, 0, 0, 0);
    }
    if (user && *user)
        as->user = dra_xstrdup(user);
    if (uid && *uid)
        as->uid = dra_xstrdup(uid);
    size_t i;
    const json_t *it;
    json_array_foreach(groups, i, it) {
        as->groups = dra_xgrow(as->groups, as->ngroups, sizeof *as->groups);
        as->groups[as->ngroups++] = dra_xstrdup(json_string_value(it));
    }
    const char *key;
    const json_t *vals;
    json_object_foreach((json_t *)extra, key, vals) {
        dra_arena a = DRA_ARENA_INIT;
        char *f = dra_xasprintf("as-user-extra[%s]", dra_kube_q(&a, key));
        dra_arena_free(&a);
        e = as_strings(en, f, vals);
        free(f);
        if (e)
            return e;
        json_array_foreach(vals, i, it)
            extra_add(as, key, json_string_value(it), false);
    }
    return NULL;
}

/* Go's net/http refuses a header value holding a control character other
 * than tab (httpguts.ValidHeaderFieldValue), in its words. */
static dra_err *header_value_check(const char *header, const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if ((*p < ' ' && *p != '\t') || *p == 0x7f)
            return dra_err_new(DRA_EXIT_INPUT, "net/http: invalid header field value for \"%s\"", header);
    return NULL;
}

char *dra_kube_extra_header(const char *key)
{
    /* transport/round_trippers.go headerKeyEscape: bytes outside an HTTP
     * token (and '%') as %XX; then net/http's CanonicalMIMEHeaderKey */
    static const char token[] = "!#$&'*+-.^_`|~";
    dra_buf b = DRA_BUF_INIT;
    dra_buf_puts(&b, "Impersonate-Extra-");
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        bool plain = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p && strchr(token, *p));
        if (plain)
            dra_buf_putc(&b, (char)*p);
        else
            dra_buf_printf(&b, "%%%02X", *p);
    }
    char *h = dra_buf_detach(&b);
    bool upper = true;
    for (char *p = h; *p; p++) {
        if (upper && *p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
        else if (!upper && *p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
        upper = *p == '-';
    }
    return h;
}

/* The flags over the kubeconfig's impersonation (clientcmd merges its
 * overrides into the user so), then clientcmd's check. */
static dra_err *impersonation_flags(const dra_kube_config_opts *o, dra_kube_config *c)
{
    dra_kube_impersonate *as = &c->as;
    if (o && o->as && *o->as) {
        free(as->user);
        as->user = dra_xstrdup(o->as);
    }
    if (o && o->as_uid && *o->as_uid) {
        free(as->uid);
        as->uid = dra_xstrdup(o->as_uid);
    }
    if (o && o->nas_groups) {
        for (size_t i = 0; i < as->ngroups; i++)
            free(as->groups[i]);
        as->groups = dra_xrealloc(as->groups, o->nas_groups * sizeof *as->groups);
        for (size_t i = 0; i < o->nas_groups; i++)
            as->groups[i] = dra_xstrdup(o->as_groups[i]);
        as->ngroups = o->nas_groups;
    }
    /* --as-user-extra: a map of the flags' values, whose keys replace the
     * kubeconfig's (cli-runtime's config_flags.go builds it so; kubectl
     * skips a value without '=', which is refused here) */
    dra_kube_impersonate flags = {0};
    for (size_t i = 0; o && i < o->nas_extra; i++) {
        const char *kv = o->as_extra[i], *eq = strchr(kv, '=');
        if (!eq) {
            impersonate_free(&flags);
            dra_arena a = DRA_ARENA_INIT;
            dra_err *e = dra_err_new(DRA_EXIT_INPUT, "--as-user-extra: want KEY=VALUE, not %s", dra_kube_q(&a, kv));
            dra_arena_free(&a);
            return e;
        }
        char *key = dra_xstrndup(kv, (size_t)(eq - kv));
        extra_add(&flags, key, eq + 1, false);
        free(key);
    }
    for (size_t i = 0; i < flags.nextra; i++)
        for (size_t k = 0; k < flags.extra[i].nvalues; k++)
            extra_add(as, flags.extra[i].key, flags.extra[i].values[k], k == 0);
    impersonate_free(&flags);
    if (!as->user && (as->uid || as->ngroups || as->nextra)) {
        impersonate_free(as);
        return cfg_err(
            "invalid configuration: requesting uid, groups or user-extra for %s without impersonating a user",
            c->user_name ? c->user_name : "");
    }
    if (!as->user) {
        impersonate_free(as);
        return NULL;
    }
    dra_err *e = header_value_check("Impersonate-User", as->user);
    if (!e && as->uid)
        e = header_value_check("Impersonate-Uid", as->uid);
    for (size_t i = 0; !e && i < as->ngroups; i++)
        e = header_value_check("Impersonate-Group", as->groups[i]);
    for (size_t i = 0; !e && i < as->nextra; i++) {
        char *h = dra_kube_extra_header(as->extra[i].key);
        for (size_t k = 0; !e && k < as->extra[i].nvalues; k++)
            e = header_value_check(h, as->extra[i].values[k]);
        free(h);
    }
    return e;
}

static dra_err *load_user(dra_kube_config *c, const entry *en)
{
    const json_t *u = en->val;
    if (!u)
        return NULL;
    dra_err *ie = load_impersonation(c, en);
    if (ie)
        return ie;
    const char *token = str_field(u, "token"), *tf = str_field(u, "tokenFile");
    const char *user = str_field(u, "username"), *pass = str_field(u, "password");
    int methods = (token || tf) + (user || pass);
    if (methods > 1)
        return cfg_err("invalid configuration: more than one authentication method found for %s; found [token "
                       "basicAuth], only one is allowed",
                       en->name);
    /* over plain http kubectl never looks at the user's credentials (and so
     * never runs an auth provider): neither does the client, see client.h */
    if (json_object_get(u, "auth-provider") && dra_kube_server_tls(c->server))
        return cfg_errq("user %s: auth-provider plugins are not supported (use an exec credential plugin)", en->name);
    const char *cc = str_field(u, "client-certificate"), *ccd = str_field(u, "client-certificate-data");
    const char *ck = str_field(u, "client-key"), *ckd = str_field(u, "client-key-data");
    if (cc && ccd)
        return cfg_err("invalid configuration: client-cert-data and client-cert are both specified for %s. "
                       "client-cert-data will override.",
                       en->name);
    if (ck && ckd)
        return cfg_err("invalid configuration: client-key-data and client-key are both specified for %s; "
                       "client-key-data will override",
                       en->name);
    dra_err *e;
    if (ccd && !dra_base64_decode(&c->cert, ccd, strlen(ccd)))
        return cfg_errq("user %s: client-certificate-data: illegal base64 data", en->name);
    if (ckd && !dra_base64_decode(&c->key, ckd, strlen(ckd)))
        return cfg_errq("user %s: client-key-data: illegal base64 data", en->name);
    if (cc) {
        char *p = resolve(en->dir, cc);
        e = read_file_into(&c->cert, p, "client-cert", en->name);
        free(p);
        if (e)
            return e;
    }
    if (ck) {
        char *p = resolve(en->dir, ck);
        e = read_file_into(&c->key, p, "client-key", en->name);
        free(p);
        if (e)
            return e;
    }
    if ((c->cert.len > 0) != (c->key.len > 0))
        return cfg_err("invalid configuration: client-key-data or client-key must be specified for %s to use the "
                       "clientCert authentication method.",
                       en->name);
    if (token)
        c->token = dra_xstrdup(token);
    if (tf)
        c->token_file = resolve(en->dir, tf);
    if (user)
        c->username = dra_xstrdup(user);
    if (pass)
        c->password = dra_xstrdup(pass);
    json_t *ex = json_object_get(u, "exec");
    if (ex && !json_is_null(ex)) {
        if (!json_is_object(ex))
            return cfg_errq("user %s: exec must be a mapping", en->name);
        if (user || pass)
            return cfg_err("invalid configuration: more than one authentication method found for %s; found [basicAuth "
                           "exec], only one is allowed",
                           en->name);
        if ((e = load_exec(c, en, ex)))
            return e;
    }
    return NULL;
}

static dra_err *in_cluster(const dra_kube_config_opts *o, dra_kube_config *c)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !*host || !port || !*port)
        return dra_err_new(DRA_EXIT_INPUT, "invalid configuration: no configuration has been provided: no kubeconfig "
                                           "found and not running in a cluster (KUBERNETES_SERVICE_HOST/PORT unset)");
    const char *dir = o && o->sa_dir ? o->sa_dir : SA_DIR;
    c->in_cluster = true;
    c->origin = dra_xstrdup("in-cluster config");
    c->server =
        strchr(host, ':') ? dra_xasprintf("https://[%s]:%s", host, port) : dra_xasprintf("https://%s:%s", host, port);
    dra_err *e = dra_kube_url_check(c->server);
    if (e)
        return e;
    c->token_file = dra_xasprintf("%s/token", dir);
    if (access(c->token_file, R_OK) != 0) {
        int err = errno;
        dra_arena a = DRA_ARENA_INIT;
        e = dra_err_new(DRA_EXIT_RUNTIME, "in-cluster config: open %s: %s", dra_kube_v(&a, c->token_file),
                        dra_kube_strerror(&a, err));
        dra_arena_free(&a);
        return e;
    }
    char *ca = dra_xasprintf("%s/ca.crt", dir);
    e = read_file_into(&c->ca, ca, "certificate-authority", "in-cluster config");
    free(ca);
    if (e)
        return e;
    if (o && o->ns && *o->ns) {
        c->ns = dra_xstrdup(o->ns);
    } else {
        char *nsf = dra_xasprintf("%s/namespace", dir);
        dra_buf b = DRA_BUF_INIT;
        dra_err *ne = dra_buf_read_path(&b, nsf, 4096);
        free(nsf);
        size_t n = b.len;
        while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == ' '))
            n--;
        c->ns = !ne && n ? dra_xstrndup(b.data, n) : dra_xstrdup("default");
        dra_err_free(ne);
        dra_buf_free(&b);
    }
    return NULL;
}

/* "cluster X of context Y was not found": both names quoted. */
static dra_err *of_context(const char *fmt, const char *name, const char *ctx)
{
    dra_arena a = DRA_ARENA_INIT;
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, fmt, dra_kube_q(&a, name), dra_kube_q(&a, ctx));
    dra_arena_free(&a);
    return e;
}

static dra_err *resolve_merged(merged *m, const dra_kube_config_opts *o, dra_kube_config *c)
{
    const char *ctxname = o && o->context && *o->context ? o->context : m->current;
    if (!ctxname) {
        if (m->docs.n == 0 || (!m->nclusters && !m->ncontexts))
            return in_cluster(o, c);
        return dra_err_hint(cfg_err("invalid configuration: no current context is set in %s",
                                    m->files.len ? dra_buf_str(&m->files) : "the kubeconfig"),
                            "context");
    }
    const entry *ctx = find(m->contexts, m->ncontexts, ctxname);
    if (!ctx)
        return cfg_errq("context %s does not exist", ctxname);
    c->context = dra_xstrdup(ctxname);
    c->origin = dra_xasprintf("kubeconfig %s", dra_buf_str(&m->files));
    const char *cl = ctx->val ? str_field(ctx->val, "cluster") : NULL;
    const char *us = ctx->val ? str_field(ctx->val, "user") : NULL;
    const char *ns = ctx->val ? str_field(ctx->val, "namespace") : NULL;
    c->ns = dra_xstrdup(o && o->ns && *o->ns ? o->ns : ns ? ns : "default");
    if (!cl)
        return cfg_errq("invalid configuration: context %s names no cluster", ctxname);
    const entry *cle = find(m->clusters, m->nclusters, cl);
    if (!cle || !cle->val)
        return of_context("invalid configuration: cluster %s of context %s was not found", cl, ctxname);
    c->cluster_name = dra_xstrdup(cl);
    dra_err *e = load_cluster(c, cle);
    if (e)
        return e;
    if (us) {
        const entry *ue = find(m->users, m->nusers, us);
        if (!ue)
            return of_context("invalid configuration: user %s of context %s was not found", us, ctxname);
        c->user_name = dra_xstrdup(us);
        if ((e = load_user(c, ue)))
            return e;
    }
    return NULL;
}

static dra_err *finish(dra_err *e, dra_kube_config *c)
{
    if (e) {
        dra_kube_config_free(c);
        return e;
    }
    return NULL;
}

dra_err *dra_kube_config_parse(const char *name, const char *data, size_t len, const char *dir,
                               const dra_kube_config_opts *o, dra_kube_config *out)
{
    memset(out, 0, sizeof *out);
    merged m = {0};
    dra_err *e = merge_doc(&m, name, data, len, dir ? dir : "");
    if (!e)
        e = resolve_merged(&m, o, out);
    if (!e)
        e = impersonation_flags(o, out);
    merged_free(&m);
    return finish(e, out);
}

dra_err *dra_kube_config_load(const dra_kube_config_opts *o, dra_kube_config *out)
{
    memset(out, 0, sizeof *out);
    merged m = {0};
    dra_err *e = NULL;
    const char *env = getenv("KUBECONFIG");
    if (o && o->kubeconfig && *o->kubeconfig) {
        e = merge_file(&m, o->kubeconfig, true);
    } else if (env && *env) {
        char *list = dra_xstrdup(env);
        char *save = NULL;
        for (char *p = strtok_r(list, ":", &save); p && !e; p = strtok_r(NULL, ":", &save))
            if (*p)
                e = merge_file(&m, p, false);
        free(list);
    } else {
        const char *home = getenv("HOME");
        if (home && *home) {
            char *p = dra_xasprintf("%s/.kube/config", home);
            e = merge_file(&m, p, false);
            free(p);
        }
    }
    if (!e)
        e = resolve_merged(&m, o, out);
    if (!e)
        e = impersonation_flags(o, out);
    merged_free(&m);
    return finish(e, out);
}

static void wipe(char *s)
{
    if (s) {
        volatile char *p = s;
        while (*p)
            *p++ = 0;
        free(s);
    }
}

static void wipe_buf(dra_buf *b)
{
    if (b->data) {
        volatile char *p = b->data;
        for (size_t i = 0; i < b->cap; i++)
            p[i] = 0;
    }
    dra_buf_free(b);
}

void dra_kube_config_drop_credentials(dra_kube_config *c)
{
    dra_buf_free(&c->cert);
    wipe_buf(&c->key);
    wipe(c->token);
    free(c->token_file);
    free(c->username);
    wipe(c->password);
    c->token = c->token_file = c->username = c->password = NULL;
    if (c->exec) {
        free(c->exec->api_version);
        free(c->exec->command);
        for (char **p = c->exec->args; p && *p; p++)
            free(*p);
        free(c->exec->args);
        for (char **p = c->exec->env; p && *p; p++)
            wipe(*p);
        free(c->exec->env);
        free(c->exec->install_hint);
        free(c->exec);
        c->exec = NULL;
    }
}

void dra_kube_config_free(dra_kube_config *c)
{
    if (!c)
        return;
    free(c->context);
    free(c->cluster_name);
    free(c->user_name);
    free(c->ns);
    free(c->server);
    dra_buf_free(&c->ca);
    free(c->tls_server_name);
    free(c->proxy_url);
    dra_kube_config_drop_credentials(c);
    impersonate_free(&c->as);
    free(c->origin);
    memset(c, 0, sizeof *c);
}
