/* What a pipeline stage of `dra-watch run` printed, turned into operations.
 * See internal.h. */
#include "internal.h"

#include <string.h>

#include "io/json.h"

dra_err *dra_watch_read_output(const char *label, const char *data, size_t len, json_t **out)
{
    *out = json_array();
    dra_objset set = DRA_OBJSET_INIT;
    dra_err *e = dra_read_mem(&set, label, data ? data : "", len);
    for (dra_err *x = e; x; x = x->next)
        x->code = DRA_EXIT_RUNTIME; /* what a stage printed is no input of ours */
    for (size_t i = 0; !e && i < set.n; i++) {
        const dra_obj *o = &set.v[i];
        if (!json_object_get(o->json, "verb") && !json_is_string(json_object_get(o->json, "kind")))
            e = dra_err_new(DRA_EXIT_RUNTIME,
                            "%s:%d: document %d has neither verb nor kind (want operations as dra-claim --patch prints "
                            "them, or objects)",
                            label, o->line, o->doc);
        else
            json_array_append(*out, o->json);
    }
    if (e) {
        json_decref(*out);
        *out = NULL;
    }
    dra_objset_free(&set);
    return e;
}

/* a copy of o without the fields a comparison of intent ignores */
static json_t *comparable(const json_t *o)
{
    json_t *c = json_deep_copy(o);
    json_object_del(c, "status");
    /* v1beta2's DRA kinds have v1's fields (kube/api.c served_body): a
     * stage that read a rule served at v1beta2 and printed it as v1 changed
     * nothing by that */
    const char *av = json_string_value(json_object_get(c, "apiVersion"));
    if (av && strcmp(av, "resource.k8s.io/v1beta2") == 0)
        json_object_set_new(c, "apiVersion", json_string("resource.k8s.io/v1"));
    json_t *m = json_object_get(c, "metadata");
    static const char *const server_fields[] = {
        "resourceVersion",           "uid", "creationTimestamp", "generation", "managedFields", "deletionTimestamp",
        "deletionGracePeriodSeconds"};
    for (size_t i = 0; i < sizeof server_fields / sizeof *server_fields; i++)
        json_object_del(m, server_fields[i]);
    return c;
}

static json_t *op_new(const json_t *obj, const char *verb, const char *sub, json_t *body, const char *reason)
{
    json_t *op = json_pack("{s:s, s:s, s:s}", "verb", verb, "apiVersion", dra_jstr_or(obj, "apiVersion", ""), "kind",
                           dra_jstr_or(obj, "kind", ""));
    if (dra_jstr(obj, "metadata.namespace"))
        json_object_set_new(op, "namespace", json_string(dra_jstr(obj, "metadata.namespace")));
    if (dra_jstr(obj, "metadata.name"))
        json_object_set_new(op, "name", json_string(dra_jstr(obj, "metadata.name")));
    if (sub)
        json_object_set_new(op, "subresource", json_string(sub));
    json_object_set_new(op, "body", body);
    json_object_set_new(op, "reason", json_string(reason));
    return op;
}

/* body with metadata.resourceVersion set to rv */
static json_t *with_version(json_t *body, const char *rv)
{
    json_t *md = json_object_get(body, "metadata");
    if (!json_is_object(md))
        json_object_set_new(body, "metadata", md = json_object());
    json_object_set_new(md, "resourceVersion", json_string(rv));
    return body;
}

void dra_watch_object_ops(const json_t *obj, const json_t *cur, json_t *ops)
{
    bool deleting = dra_jstr(obj, "metadata.deletionTimestamp") != NULL;
    if (!cur) {
        if (!deleting) /* an object to delete that is gone already needs nothing */
            json_array_append_new(ops, op_new(obj, "create", NULL, json_deep_copy(obj), "new object"));
        return;
    }
    const char *rv = dra_jstr_or(cur, "metadata.resourceVersion", "");
    json_t *sa = json_object_get(obj, "status"), *sb = json_object_get(cur, "status");
    bool status_changed = sa && !json_equal(sa, sb ? sb : json_null());
    json_t *a = comparable(obj), *b = comparable(cur);
    bool main_changed = !json_equal(a, b);
    json_decref(a);
    json_decref(b);
    bool delete = deleting && !dra_jstr(cur, "metadata.deletionTimestamp");
    /* upstream's order (the claim controller's syncClaim): the status, then
     * the object (a finalizer), then the delete; each later write carries the
     * version the earlier one returned (apply_op chains them) */
    if (status_changed) {
        json_t *body = json_deep_copy(cur);
        json_object_set(body, "status", sa);
        json_array_append_new(ops, op_new(obj, "update", "status", with_version(body, rv), "status changed"));
    }
    if (main_changed) {
        json_t *body = json_deep_copy(obj);
        json_t *md = json_object_get(body, "metadata");
        json_object_del(md, "deletionTimestamp");
        json_object_del(md, "deletionGracePeriodSeconds");
        json_t *cd = json_object_get(cur, "metadata");
        if (json_object_get(cd, "deletionTimestamp")) /* immutable: as the server has it */
            json_object_set(md, "deletionTimestamp", json_object_get(cd, "deletionTimestamp"));
        json_array_append_new(ops, op_new(obj, "update", NULL, with_version(body, rv), "object changed"));
    }
    if (delete) {
        json_t *body = json_pack("{s:s, s:s, s:{s:s, s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
                                 "preconditions", "uid", dra_jstr_or(cur, "metadata.uid", ""), "resourceVersion", rv);
        json_array_append_new(ops, op_new(obj, "delete", NULL, body, "deleted"));
    }
}
