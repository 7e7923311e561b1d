/* Doctor's fixes as composed operations.  See fixes.h. */
#include "fixes.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../cluster/cluster.h"

static json_t *test_op(const char *path, const char *value)
{
    return json_pack("{s:s,s:s,s:s}", "op", "test", "path", path, "value", value);
}

static json_t *remove_op(const char *path)
{
    return json_pack("{s:s,s:s}", "op", "remove", "path", path);
}

static bool same_entry(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"apiGroup", "resource", "name", "uid"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(dra_jstr_or(a, keys[i], ""), dra_jstr_or(b, keys[i], "")) != 0)
            return false;
    return true;
}

void dra_fix_drop_entry(dra_changes *ch, const json_t *claim, const json_t *entry, const char *reason)
{
    dra_change *c = dra_changes_touch(ch, claim);
    json_t *rf = dra_jarr(c->obj, "status.reservedFor");
    size_t k, n = json_array_size(rf);
    for (k = 0; k < n && !same_entry(json_array_get(rf, k), entry); k++)
        ;
    if (c->deleted || k == n)
        return;
    json_t *patch = dra_changes_new_patch(ch);
    dra_patch_preconditions(patch, c);
    char *path = dra_xasprintf("/status/reservedFor/%zu", k), *upath = dra_xasprintf("%s/uid", path);
    json_array_append_new(patch, test_op(upath, dra_jstr_or(entry, "uid", "")));
    json_array_append_new(patch, remove_op(path));
    free(path);
    free(upath);
    json_array_remove(rf, k);
    if (!json_array_size(rf))
        json_object_del(json_object_get(c->obj, "status"), "reservedFor");
    dra_changes_op(ch, DRA_OP_PATCH, c->obj, "status", patch, reason);
}

void dra_fix_deallocate(dra_changes *ch, const json_t *claim, const char *reason)
{
    dra_change *c = dra_changes_touch(ch, claim);
    if (c->deleted || !json_object_get(json_object_get(c->obj, "status"), "allocation"))
        return;
    json_t *patch = dra_changes_new_patch(ch);
    dra_patch_preconditions(patch, c);
    json_array_append_new(patch, remove_op("/status/allocation"));
    json_object_del(json_object_get(c->obj, "status"), "allocation");
    dra_changes_op(ch, DRA_OP_PATCH, c->obj, "status", patch, reason);
}

void dra_fix_finalizer(dra_changes *ch, const json_t *claim, const char *reason)
{
    dra_change *c = dra_changes_touch(ch, claim);
    size_t idx;
    if (c->deleted || !dra_has_finalizer(c->obj, DRA_DELETE_PROTECTION_FINALIZER, &idx))
        return;
    json_t *patch = dra_changes_new_patch(ch);
    dra_patch_preconditions(patch, c);
    char *path = dra_xasprintf("/metadata/finalizers/%zu", idx);
    json_array_append_new(patch, test_op(path, DRA_DELETE_PROTECTION_FINALIZER));
    json_array_append_new(patch, remove_op(path));
    free(path);
    json_t *fins = dra_jarr(c->obj, "metadata.finalizers");
    json_array_remove(fins, idx);
    if (!json_array_size(fins))
        json_object_del(json_object_get(c->obj, "metadata"), "finalizers");
    dra_changes_op(ch, DRA_OP_PATCH, c->obj, NULL, patch, reason);
    if (dra_obj_deleting(c->obj) && !json_array_size(dra_jarr(c->obj, "metadata.finalizers")))
        c->deleted = true; /* a deleting object without finalizers is gone */
}

void dra_fix_delete(dra_changes *ch, const json_t *claim, const char *reason)
{
    dra_change *c = dra_changes_touch(ch, claim);
    if (c->deleted)
        return;
    dra_changes_op(ch, DRA_OP_DELETE, c->obj, NULL, dra_delete_options(dra_jstr(claim, "metadata.uid")), reason);
    c->deleted = true;
}
