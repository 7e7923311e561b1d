/* Operations and changed objects.  See ops.h. */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

#include "../base/assert.h"
#include "../base/buf.h"
#include "../io/json.h"
#include "../io/jline.h"
#include "../io/jparse.h"
#include "cluster.h"

static void op_free(dra_op *op)
{
    free(op->api_version);
    free(op->kind);
    free(op->ns);
    free(op->name);
    free(op->subresource);
    free(op->patch_type);
    free(op->field_manager);
    free(op->reason);
    json_decref(op->body);
}

struct dra_shared_text {
    json_t *val; /* a reference; its pointer's bytes are the map's key */
    char *text;
    size_t len;
};

void dra_changes_free(dra_changes *c)
{
    for (size_t i = 0; i < c->nops; i++)
        op_free(&c->ops[i]);
    op_free(&c->scratch);
    for (size_t i = 0; i < c->nobjs; i++) {
        json_decref(c->objs[i].obj);
        free(c->objs[i].text);
        free(c->objs[i].kept_key);
        json_decref(c->objs[i].kept);
    }
    free(c->ops);
    free(c->objs);
    for (size_t i = 0; i < c->nshared; i++) {
        json_decref(c->shared_texts[i]->val);
        free(c->shared_texts[i]->text);
        free(c->shared_texts[i]);
    }
    free(c->shared_texts);
    dra_strmap_free(&c->shared);
    dra_lc_index_free(&c->ix);
    memset(c, 0, sizeof *c);
}

/* Index tags: object identity, created object by name ('C' + kind name as
 * the first key part), created object by controller owner UID. */
enum { TAG_OBJ = 'P', TAG_CREATED = 'C', TAG_OWNER = 'U' };

static dra_change *new_change(dra_changes *c)
{
    if (c->nobjs == c->capobjs) {
        c->capobjs = c->capobjs ? c->capobjs * 2 : 16;
        c->objs = dra_xrealloc(c->objs, c->capobjs * sizeof *c->objs);
    }
    dra_change *ch = &c->objs[c->nobjs++];
    memset(ch, 0, sizeof *ch);
    return ch;
}

/* The key of obj's last member when its value is shared with other trees,
 * else NULL. */
static const char *shared_last(json_t *obj)
{
    const char *key = NULL;
    void *it = json_object_iter(obj);
    for (void *next; it && (next = json_object_iter_next(obj, it)); it = next)
        ;
    if (it && json_object_iter_value(it)->refcount > 1)
        key = json_object_iter_key(it);
    return key;
}

/* v as dra_json_write_line writes it, appended to b: from c's text of it
 * when v is an object other trees share (written into c first). */
static void write_member(dra_changes *c, dra_buf *b, json_t *v)
{
    if (!c || !json_is_object(v) || v->refcount < 2) {
        dra_json_write_line(b, v);
        return;
    }
    intptr_t got;
    struct dra_shared_text *t;
    if (dra_strmap_get(&c->shared, (const char *)&v, sizeof v, &got)) {
        t = (struct dra_shared_text *)got;
    } else {
        t = dra_xcalloc(1, sizeof *t);
        t->val = json_incref(v);
        dra_buf tb = DRA_BUF_INIT;
        dra_json_write_line(&tb, v);
        t->len = tb.len;
        t->text = dra_buf_detach(&tb);
        if (c->nshared == c->capshared) {
            c->capshared = c->capshared ? c->capshared * 2 : 8;
            c->shared_texts = dra_xrealloc(c->shared_texts, c->capshared * sizeof *c->shared_texts);
        }
        c->shared_texts[c->nshared++] = t;
        dra_strmap_put(&c->shared, (const char *)&t->val, sizeof t->val, (intptr_t)t);
    }
    dra_buf_append(b, t->text, t->len);
}

static void freeze(dra_changes *c, dra_change *ch)
{
    const char *key = shared_last(ch->obj);
    if (key) { /* held by reference: out of the text */
        ch->kept = json_incref(json_object_get(ch->obj, key));
        ch->kept_key = dra_xstrdup(key);
        json_object_del(ch->obj, ch->kept_key);
    }
    /* the -o jsonl line, written out as it is: dra_json_write_line's
     * object, member by member */
    dra_buf b = DRA_BUF_INIT;
    dra_buf_putc(&b, '{');
    for (void *it = json_object_iter(ch->obj); it; it = json_object_iter_next(ch->obj, it)) {
        if (b.len > 1)
            dra_buf_putc(&b, ',');
        dra_json_write_line_string(&b, json_object_iter_key(it), json_object_iter_key_len(it));
        dra_buf_putc(&b, ':');
        write_member(c, &b, json_object_iter_value(it));
    }
    dra_buf_putc(&b, '}');
    ch->text_len = b.len;
    ch->text = dra_xrealloc(b.data, b.len + 1); /* exact size: the buffer grew by doubling */
    ch->text[b.len] = '\0';
    json_object_clear(ch->obj);
}

void dra_changes_freeze(dra_changes *c, dra_change *ch)
{
    if (!ch->text && !ch->orig && json_is_object(ch->obj) && ch->obj->refcount == 1)
        freeze(c, ch);
}

void dra_changes_freeze_in_place(dra_change *ch)
{
    if (!ch->text && ch->orig == ch->obj && json_is_object(ch->obj))
        freeze(NULL, ch); /* no texts kept: an original's members may change in place */
}

/* The change at i, its tree rebuilt when frozen. */
static dra_change *thawed(const dra_changes *c, size_t i)
{
    dra_change *ch = &c->objs[i];
    if (!ch->text)
        return ch;
    json_t *v = dra_json_read_compact(ch->text, ch->text_len);
    json_object_update(ch->obj, v); /* members in their order: the object is empty */
    json_decref(v);
    if (ch->kept) /* last, where it was */
        json_object_set_new(ch->obj, ch->kept_key, ch->kept);
    free(ch->text);
    free(ch->kept_key);
    ch->text = ch->kept_key = NULL;
    ch->kept = NULL;
    ch->text_len = 0;
    return ch;
}

char *dra_changes_take_text(dra_change *ch, size_t *len)
{
    char *t = ch->text;
    *len = ch->text_len;
    if (t && ch->kept) { /* the member held by reference, written in last */
        dra_buf b = DRA_BUF_INIT;
        dra_buf_append(&b, t, ch->text_len - 1); /* without its '}' */
        if (ch->text_len > 2)
            dra_buf_putc(&b, ',');
        dra_json_write_line_string(&b, ch->kept_key, strlen(ch->kept_key));
        dra_buf_putc(&b, ':');
        dra_json_write_line(&b, ch->kept);
        dra_buf_putc(&b, '}');
        free(t);
        *len = b.len;
        t = dra_xrealloc(b.data, b.len + 1);
        t[b.len] = '\0';
        free(ch->kept_key);
        json_decref(ch->kept);
        ch->kept_key = NULL;
        ch->kept = NULL;
    }
    ch->text = NULL;
    ch->text_len = 0;
    return t;
}

/* The index of obj's change, or false. */
static bool find_at(const dra_changes *c, const json_t *obj, size_t *i)
{
    if (!obj || !dra_lc_index_first_ptr(&c->ix, TAG_OBJ, obj, i))
        return false;
    /* Identities are keys: the object found is the change's original or its
     * working copy, never a freed one whose address came back. */
    DRA_ASSERT(c->objs[*i].orig == obj || c->objs[*i].obj == obj);
    return true;
}

dra_change *dra_changes_find(const dra_changes *c, const json_t *obj)
{
    size_t i;
    return find_at(c, obj, &i) ? thawed(c, i) : NULL;
}

dra_change *dra_changes_held(const dra_changes *c, const json_t *obj)
{
    size_t i;
    return find_at(c, obj, &i) ? &c->objs[i] : NULL;
}

const json_t *dra_changes_current(const dra_changes *c, const json_t *obj)
{
    const dra_change *ch = dra_changes_find(c, obj);
    return ch ? ch->obj : obj;
}

dra_change *dra_changes_touch(dra_changes *c, const json_t *orig)
{
    dra_change *found = dra_changes_find(c, orig);
    if (found)
        return found;
    size_t i = c->nobjs;
    dra_change *ch = new_change(c);
    ch->orig = orig;
    ch->obj = c->in_place ? json_incref((json_t *)orig) : json_deep_copy(orig);
    if (!ch->obj)
        ch->obj = json_object();
    dra_lc_index_add_ptr(&c->ix, TAG_OBJ, orig, i);
    dra_lc_index_add_ptr(&c->ix, TAG_OBJ, ch->obj, i);
    return ch;
}

static json_t *metadata(const json_t *obj)
{
    return json_object_get(obj, "metadata");
}

/* "KIND/NS", the first key part of a created object's name, into buf when
 * it fits in cap bytes, else into a new string (the caller frees what is
 * not buf). */
static char *kind_ns_key(char *buf, size_t cap, const char *kind, const char *ns)
{
    size_t nk = strlen(kind), nn = ns ? strlen(ns) : 0;
    char *k = nk + nn + 2 <= cap ? buf : dra_xmalloc(nk + nn + 2);
    memcpy(k, kind, nk);
    k[nk] = '/';
    if (nn)
        memcpy(k + nk + 1, ns, nn);
    k[nk + 1 + nn] = '\0';
    return k;
}

dra_change *dra_changes_add_created(dra_changes *c, json_t *obj)
{
    size_t i = c->nobjs;
    dra_change *ch = new_change(c);
    ch->obj = obj;
    ch->versioned = true; /* the server assigns its version */
    dra_lc_index_add_ptr(&c->ix, TAG_OBJ, obj, i);
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    const char *ns = json_string_value(json_object_get(metadata(obj), "namespace"));
    const char *name = json_string_value(json_object_get(metadata(obj), "name"));
    if (kind && name) {
        char buf[256];
        char *k = kind_ns_key(buf, sizeof buf, kind, ns);
        dra_lc_index_add(&c->ix, TAG_CREATED, k, name, i);
        if (k != buf)
            free(k);
    }
    size_t j;
    json_t *r;
    json_array_foreach(json_object_get(metadata(obj), "ownerReferences"), j, r) {
        const char *uid = json_string_value(json_object_get(r, "uid"));
        if (json_is_true(json_object_get(r, "controller")))
            dra_lc_index_add(&c->ix, TAG_OWNER, uid ? uid : "", NULL, i);
    }
    return ch;
}

dra_change *dra_changes_created(const dra_changes *c, const char *kind, const char *ns, const char *name)
{
    if (!kind || !name)
        return NULL;
    char buf[256];
    char *k = kind_ns_key(buf, sizeof buf, kind, ns);
    size_t i;
    bool found = dra_lc_index_first(&c->ix, TAG_CREATED, k, name, &i);
    if (k != buf)
        free(k);
    return found ? thawed(c, i) : NULL;
}

size_t dra_changes_owned(const dra_changes *c, const char *uid)
{
    return uid ? dra_lc_index_find(&c->ix, TAG_OWNER, uid, NULL) : 0;
}

dra_change *dra_changes_owned_next(const dra_changes *c, size_t *it)
{
    size_t i;
    return dra_lc_index_next(&c->ix, it, &i) ? thawed(c, i) : NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? dra_xstrdup(s) : NULL;
}

dra_op *dra_changes_op(dra_changes *c, dra_op_verb verb, const json_t *target, const char *subresource, json_t *body,
                       const char *reason)
{
    if (c->objects_only) {
        /* callers may still fill in a few fields: they land here */
        json_decref(body);
        op_free(&c->scratch);
        memset(&c->scratch, 0, sizeof c->scratch);
        c->scratch.name_var = c->scratch.name_from = -1;
        return &c->scratch;
    }
    if (c->nops == c->capops) {
        c->capops = c->capops ? c->capops * 2 : 16;
        c->ops = dra_xrealloc(c->ops, c->capops * sizeof *c->ops);
    }
    dra_op *op = &c->ops[c->nops++];
    memset(op, 0, sizeof *op);
    op->verb = verb;
    op->api_version = dup_or_null(dra_jstr(target, "apiVersion"));
    op->kind = dup_or_null(dra_jstr(target, "kind"));
    op->ns = dup_or_null(dra_jstr(target, "metadata.namespace"));
    op->name = dup_or_null(dra_jstr(target, "metadata.name"));
    op->subresource = dup_or_null(subresource);
    op->body = body;
    op->reason = dup_or_null(reason);
    op->name_var = -1;
    op->name_from = -1;
    if (verb == DRA_OP_PATCH)
        op->patch_type = dra_xstrdup("json");
    return op;
}

static json_t *test_op(const char *path, json_t *value)
{
    return json_pack("{s:s,s:s,s:o}", "op", "test", "path", path, "value", value);
}

json_t *dra_changes_new_patch(const dra_changes *c)
{
    return c->objects_only ? NULL : json_array();
}

void dra_patch_preconditions(json_t *patch, dra_change *ch)
{
    if (!patch) {
        ch->versioned = true;
        return;
    }
    const json_t *o = ch->orig ? ch->orig : ch->obj;
    const char *uid = dra_jstr(o, "metadata.uid");
    const char *rv = dra_jstr(o, "metadata.resourceVersion");
    if (uid)
        json_array_append_new(patch, test_op("/metadata/uid", json_string(uid)));
    if (rv && !ch->versioned)
        json_array_append_new(patch, test_op("/metadata/resourceVersion", json_string(rv)));
    ch->versioned = true;
}

json_t *dra_delete_options(const char *uid)
{
    json_t *o = json_pack("{s:s,s:s}", "kind", "DeleteOptions", "apiVersion", "v1");
    if (uid)
        json_object_set_new(o, "preconditions", json_pack("{s:s}", "uid", uid));
    return o;
}

dra_err *dra_patch_format_parse(const char *s, dra_patch_format *out)
{
    if (!s || !*s || strcmp(s, "json") == 0) {
        *out = DRA_PATCH_JSON;
        return NULL;
    }
    if (strcmp(s, "kubectl") == 0) {
        *out = DRA_PATCH_KUBECTL;
        return NULL;
    }
    return dra_err_param(dra_err_new(DRA_EXIT_INPUT, "unknown format \"%s\" (want json or kubectl)", s), "patch");
}

const char *dra_kind_resource(const char *kind)
{
    static const struct {
        const char *kind, *res;
    } map[] = {
        {"ResourceClaim", "resourceclaims"},
        {"ResourceClaimTemplate", "resourceclaimtemplates"},
        {"Pod", "pods"},
        {"DeviceTaintRule", "devicetaintrules"},
        {"ResourceSlice", "resourceslices"},
        {"DeviceClass", "deviceclasses"},
        {"Node", "nodes"},
        {"PodGroup", "podgroups"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (kind && strcmp(kind, map[i].kind) == 0)
            return map[i].res;
    return "objects";
}

static const char *verb_name(dra_op_verb v)
{
    switch (v) {
    case DRA_OP_CREATE: return "create";
    case DRA_OP_PATCH: return "patch";
    case DRA_OP_APPLY: return "apply";
    case DRA_OP_DELETE: return "delete";
    }
    return "?";
}

static json_t *op_json(const dra_op *op)
{
    json_t *j = json_object();
    json_object_set_new(j, "verb", json_string(verb_name(op->verb)));
    if (op->api_version)
        json_object_set_new(j, "apiVersion", json_string(op->api_version));
    if (op->kind)
        json_object_set_new(j, "kind", json_string(op->kind));
    if (op->ns)
        json_object_set_new(j, "namespace", json_string(op->ns));
    if (op->name)
        json_object_set_new(j, "name", json_string(op->name));
    else if (op->name_from >= 0)
        json_object_set_new(j, "name", json_sprintf("$DRA_NAME_%d", op->name_from));
    if (op->name_var >= 0)
        json_object_set_new(j, "nameVar", json_sprintf("DRA_NAME_%d", op->name_var));
    if (op->name_from >= 0)
        json_object_set_new(j, "nameFrom", json_integer(op->name_from));
    if (op->subresource)
        json_object_set_new(j, "subresource", json_string(op->subresource));
    if (op->patch_type)
        json_object_set_new(j, "patchType", json_string(op->patch_type));
    if (op->field_manager) {
        json_object_set_new(j, "fieldManager", json_string(op->field_manager));
        json_object_set_new(j, "force", json_true());
    }
    json_object_set_new(j, "body", json_incref(op->body));
    if (op->reason)
        json_object_set_new(j, "reason", json_string(op->reason));
    return j;
}

/* Single-quote a word for sh unless it is plainly safe. */
static void sh_word(dra_buf *b, const char *s)
{
    bool plain = *s != 0;
    for (const char *p = s; *p; p++)
        if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') || ('0' <= *p && *p <= '9') ||
              strchr("._-/=:,@", *p)))
            plain = false;
    if (plain) {
        dra_buf_puts(b, s);
        return;
    }
    dra_buf_putc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            dra_buf_puts(b, "'\\''");
        else
            dra_buf_putc(b, *p);
    }
    dra_buf_putc(b, '\'');
}

/* A JSON text inside single quotes; "$DRA_NAME_n" strings are spliced in as
 * shell variables. */
static void sh_json(dra_buf *b, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    dra_buf_putc(b, '\'');
    for (const char *p = s; p && *p; p++) {
        if (*p == '\'') {
            dra_buf_puts(b, "'\\''");
        } else if (strncmp(p, "$DRA_NAME_", 10) == 0) {
            size_t n = 10;
            while (p[n] >= '0' && p[n] <= '9')
                n++;
            dra_buf_puts(b, "'\"");
            dra_buf_append(b, p, n);
            dra_buf_puts(b, "\"'");
            p += n - 1;
        } else {
            dra_buf_putc(b, *p);
        }
    }
    dra_buf_putc(b, '\'');
    free(s);
}

static void kubectl_target(dra_buf *b, const dra_op *op)
{
    dra_buf_puts(b, " ");
    const char *k = dra_kind_resource(op->kind);
    /* singular, lower-case resource names: "resourceclaim" */
    dra_buf_append(b, k, strlen(k) - 1);
    dra_buf_putc(b, ' ');
    if (op->name)
        sh_word(b, op->name);
    else
        dra_buf_printf(b, "\"$DRA_NAME_%d\"", op->name_from);
    if (op->ns) {
        dra_buf_puts(b, " -n ");
        sh_word(b, op->ns);
    }
}

static void api_path(dra_buf *b, const dra_op *op)
{
    const char *av = op->api_version ? op->api_version : "v1";
    if (strchr(av, '/'))
        dra_buf_printf(b, "/apis/%s", av);
    else
        dra_buf_printf(b, "/api/%s", av);
    if (op->ns)
        dra_buf_printf(b, "/namespaces/%s", op->ns);
    dra_buf_printf(b, "/%s/%s", dra_kind_resource(op->kind), op->name ? op->name : "");
}

static void body_stdin(dra_buf *b, const dra_op *op, const char *cmd)
{
    dra_buf_puts(b, "printf '%s\\n' ");
    sh_json(b, op->body);
    dra_buf_printf(b, " | %s\n", cmd);
}

static void kubectl_line(dra_buf *b, const dra_op *op)
{
    if (op->reason) {
        dra_buf_puts(b, "# ");
        for (const char *p = op->reason; *p; p++)
            dra_buf_putc(b, *p == '\n' ? ' ' : *p);
        dra_buf_putc(b, '\n');
    }
    dra_buf cmd = DRA_BUF_INIT;
    switch (op->verb) {
    case DRA_OP_CREATE:
        if (op->name_var >= 0) {
            dra_buf_printf(b, "DRA_NAME_%d=$(", op->name_var);
            body_stdin(&cmd, op, "kubectl create -o jsonpath='{.metadata.name}' -f -");
            dra_buf_append(b, cmd.data, cmd.len - 1);
            dra_buf_puts(b, ") || exit\n");
        } else {
            body_stdin(b, op, "kubectl create -f -");
        }
        break;
    case DRA_OP_PATCH:
        dra_buf_puts(b, "kubectl patch");
        kubectl_target(b, op);
        if (op->subresource)
            dra_buf_printf(b, " --subresource=%s", op->subresource);
        dra_buf_printf(b, " --type=%s -p ", op->patch_type ? op->patch_type : "json");
        sh_json(b, op->body);
        dra_buf_putc(b, '\n');
        break;
    case DRA_OP_APPLY: {
        dra_buf_puts(&cmd, "kubectl apply --server-side --force-conflicts --field-manager=");
        sh_word(&cmd, op->field_manager ? op->field_manager : "dra-tools");
        if (op->subresource)
            dra_buf_printf(&cmd, " --subresource=%s", op->subresource);
        dra_buf_puts(&cmd, " -f -");
        body_stdin(b, op, dra_buf_str(&cmd));
        break;
    }
    case DRA_OP_DELETE:
        dra_buf_puts(&cmd, "kubectl delete --raw ");
        api_path(&cmd, op);
        dra_buf_puts(&cmd, " -f -");
        body_stdin(b, op, dra_buf_str(&cmd));
        break;
    }
    dra_buf_free(&cmd);
}

char *dra_op_kubectl(const dra_op *op)
{
    dra_op bare = *op;
    bare.reason = NULL;
    dra_buf b = DRA_BUF_INIT;
    kubectl_line(&b, &bare);
    while (b.len && b.data[b.len - 1] == '\n')
        b.data[--b.len] = 0;
    return dra_buf_detach(&b);
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_target(const dra_op *a, const dra_op *b)
{
    return same_str(a->kind, b->kind) && same_str(a->ns, b->ns) && same_str(a->name, b->name) &&
           a->name_from == b->name_from;
}

/* "\n# pod ml/d\n" before the first of an object's operations. */
static void kubectl_heading(dra_buf *b, const dra_op *op)
{
    const char *k = dra_kind_resource(op->kind);
    dra_buf_puts(b, "\n# ");
    dra_buf_append(b, k, strlen(k) - 1);
    dra_buf_putc(b, ' ');
    if (op->ns)
        dra_buf_printf(b, "%s/", op->ns);
    if (op->name)
        dra_buf_puts(b, op->name);
    else
        dra_buf_printf(b, "$DRA_NAME_%d", op->name_from);
    dra_buf_putc(b, '\n');
}

static dra_err *write_ops(FILE *f, const dra_changes *c, dra_patch_format fmt, bool by_object)
{
    dra_buf b = DRA_BUF_INIT;
    if (fmt == DRA_PATCH_KUBECTL && c->nops)
        dra_buf_puts(&b, "set -e\n");
    for (size_t i = 0; i < c->nops; i++) {
        if (fmt == DRA_PATCH_KUBECTL) {
            if (by_object && (i == 0 || !same_target(&c->ops[i - 1], &c->ops[i])))
                kubectl_heading(&b, &c->ops[i]);
            kubectl_line(&b, &c->ops[i]);
        } else {
            json_t *j = op_json(&c->ops[i]);
            char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
            dra_buf_puts(&b, s);
            dra_buf_putc(&b, '\n');
            free(s);
            json_decref(j);
        }
    }
    dra_err *e = NULL;
    if (b.len && fwrite(b.data, 1, b.len, f) != b.len)
        e = dra_err_new(DRA_EXIT_RUNTIME, "write error");
    dra_buf_free(&b);
    return e;
}

dra_err *dra_changes_write_ops(FILE *f, const dra_changes *c, dra_patch_format fmt)
{
    return write_ops(f, c, fmt, false);
}

dra_err *dra_changes_write_ops_by_object(FILE *f, const dra_changes *c, dra_patch_format fmt)
{
    return write_ops(f, c, fmt, true);
}

void dra_cluster_address_ops(const dra_cluster *c, struct dra_changes *ch)
{
    for (size_t i = 0; i < ch->nops; i++) {
        dra_op *op = &ch->ops[i];
        if (op->verb == DRA_OP_CREATE || !op->kind || !op->name)
            continue;
        const char *v = dra_cluster_served_version_of(c, dra_kind_from_name(op->kind), op->ns, op->name);
        if (!v)
            continue;
        free(op->api_version);
        op->api_version = dra_xstrdup(v);
        if (op->verb == DRA_OP_APPLY && json_is_object(op->body))
            json_object_set_new(op->body, "apiVersion", json_string(v));
    }
}

/* ---- reading operations back ---- */

void dra_op_line_read(const json_t *op, dra_op_line *out)
{
    static const char *const verbs[] = {"create", "patch", "apply", "delete", "update"};
    memset(out, 0, sizeof *out);
    out->verb_text = json_string_value(json_object_get(op, "verb"));
    out->verb = out->verb_text ? DRA_OPL_OTHER : DRA_OPL_NONE;
    for (size_t i = 0; out->verb_text && i < sizeof verbs / sizeof *verbs; i++)
        if (strcmp(out->verb_text, verbs[i]) == 0)
            out->verb = (dra_op_line_verb)(DRA_OPL_CREATE + i);
    out->kind = json_string_value(json_object_get(op, "kind"));
    out->ns = json_string_value(json_object_get(op, "namespace"));
    out->name = json_object_get(op, "name");
    out->subresource = json_string_value(json_object_get(op, "subresource"));
    out->body = json_object_get(op, "body");
    const char *pt = json_string_value(json_object_get(op, "patchType"));
    out->patch_type = !pt || strcmp(pt, "json") == 0 ? DRA_OPL_PATCH_JSON
                      : strcmp(pt, "merge") == 0     ? DRA_OPL_PATCH_MERGE
                                                     : DRA_OPL_PATCH_STRATEGIC;
    out->field_manager = json_string_value(json_object_get(op, "fieldManager"));
    out->force = json_is_true(json_object_get(op, "force"));
    out->name_var = json_string_value(json_object_get(op, "nameVar"));
    out->reason = json_string_value(json_object_get(op, "reason"));
}

void dra_changes_view_namespace(const dra_changes *c, const char *ns, dra_changes *view)
{
    *view = *c;
    view->ops = dra_xcalloc(c->nops + 1, sizeof *view->ops);
    view->nops = view->capops = 0;
    for (size_t i = 0; i < c->nops; i++)
        if (!ns || !c->ops[i].ns || strcmp(c->ops[i].ns, ns) == 0)
            view->ops[view->nops++] = c->ops[i];
}
