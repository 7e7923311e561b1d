/* API operations a reconciliation would make, and the changed objects.
 *
 * The claim-lifecycle and eviction code never talk to a server: they record
 * what upstream's controllers would send, in order, as dra_op values, and keep
 * the resulting state of every touched object.  A tool then prints either the
 * objects (-o yaml|json|jsonl) or the operations (--patch):
 *
 *   json     one JSON object per line:
 *            {"verb":"create|patch|apply|delete", "apiVersion", "kind",
 *             "namespace", "name", "subresource"?, "patchType"?,
 *             "fieldManager"?, "force"?, "body", "reason"}
 *            patch bodies are RFC 6902 JSON patches whose leading "test"
 *            operations are the preconditions (metadata.uid, and
 *            metadata.resourceVersion on the first change of an object; later
 *            changes of the same object in one run cannot know the version the
 *            server assigns, so they test the UID and the exact element they
 *            touch instead).  Deletes carry DeleteOptions with a UID
 *            precondition.
 *   kubectl  a sh script of kubectl commands, one per operation, each preceded
 *            by a "# reason" comment.
 *
 * A create whose name is left to the server (generateName only) is numbered;
 * later operations that need that name refer to it as the string
 * "$DRA_NAME_<n>" in json (with "nameFrom": n) and as a shell variable in the
 * kubectl script.
 *
 * Ownership: a dra_changes owns its operations and object copies;
 * dra_changes_free() releases everything.  Originals are never modified.
 */
#ifndef DRA_CLUSTER_OPS_H
#define DRA_CLUSTER_OPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../base/error.h"
#include "../base/hash.h"
#include "cluster.h"
#include "index.h"

typedef enum { DRA_OP_CREATE, DRA_OP_PATCH, DRA_OP_APPLY, DRA_OP_DELETE } dra_op_verb;

typedef struct dra_op {
    dra_op_verb verb;
    char *api_version, *kind, *ns, *name; /* name NULL for a generateName create */
    char *subresource;                    /* "status" or NULL */
    char *patch_type;                     /* "json" or "strategic" for patches */
    char *field_manager;                  /* apply */
    json_t *body;                         /* create: object; patch: patch; apply: object; delete: DeleteOptions */
    char *reason;                         /* one line: why */
    int name_var;                         /* create with generateName: variable number (>= 0), else -1 */
    int name_from;                        /* uses the name created by variable n, else -1 */
} dra_op;

typedef struct dra_change {
    const json_t *orig; /* borrowed original, NULL for a created object */
    json_t *obj;        /* owned current state */
    bool deleted;       /* gone at the end of the run */
    bool versioned;     /* a change already went out (later patches cannot test resourceVersion) */
    /* Held as its -o jsonl line (dra_changes_freeze, io/jline.h): obj is then an empty object
     * (the same one, so identities hold) until an accessor below gives the
     * change out again, filled from the text.  Private. */
    char *text;
    size_t text_len;
    /* Frozen with its last member shared (see dra_changes_freeze): that
     * member's key and value, held as they are, out of the text.  Private. */
    char *kept_key;
    json_t *kept;
} dra_change;

typedef struct dra_changes {
    dra_op *ops;
    size_t nops, capops;
    dra_change *objs;
    size_t nobjs, capobjs;
    int nvars;
    /* Set before the first change to keep only the resulting objects: no
     * operations are recorded (dra_changes_new_patch gives NULL, and
     * dra_changes_op drops the body and returns a scratch op). */
    bool objects_only;
    /* Set before the first change when the caller never reads an original
     * after it changed (through dra_changes_current instead): the working
     * copy is the original itself, changed in place (no deep copy). */
    bool in_place;
    dra_op scratch;  /* (private) */
    dra_lc_index ix; /* object identities, created objects by name and owner (private) */
    /* The texts dra_changes_freeze wrote of objects shared with other trees
     * (private): value pointer -> struct dra_shared_text, each holding a
     * reference to its value. */
    dra_strmap shared;
    struct dra_shared_text **shared_texts;
    size_t nshared, capshared;
} dra_changes;

#define DRA_CHANGES_INIT                                                                                               \
    {                                                                                                                  \
        0                                                                                                              \
    }

void dra_changes_free(dra_changes *c);

/* The working copy of orig (a deep copy made on first use).  orig may also
 * be a working copy or created object of c: its own change is returned.
 * The returned pointer is valid until the next change is added. */
dra_change *dra_changes_touch(dra_changes *c, const json_t *orig);
/* Record a created object (steals obj); returns its change.  Its kind,
 * namespace, name and controller owner UIDs are indexed as they are now. */
dra_change *dra_changes_add_created(dra_changes *c, json_t *obj);

/* Hold a created object's state as compact text (a few times smaller than
 * the tree) while nothing works on it: every accessor here that gives the
 * change out (find, current, touch, created, owned_next) first rebuilds the
 * tree, into the same object.  Pointers into the old tree die; the object's
 * own pointer stays valid.  Only created objects that the changes alone hold
 * are frozen (no original, one reference); others are left as they are.
 * An object's last member whose value other trees share as well (a claim's
 * spec, the template's own: lifecycle/claims.h dra_lc_opts.freeze) is held
 * as it is, by reference: it costs nothing more, and is neither written nor
 * read back until the text is taken.  Another member of the object whose
 * value is such a shared object is written once per value: c keeps its text
 * (and a reference to it, so that it stays shared: whoever would change it
 * in place copies it first) for the changes frozen after (NULL: no
 * cache, each written). */
void dra_changes_freeze(dra_changes *c, dra_change *ch);
/* The same for an original changed in place (in_place): the original itself
 * is emptied.  For a caller that reads the original, from now on, only
 * through the accessors here (which rebuild it) or takes its text.  Its
 * members are written each time, none kept in c's texts (an original's
 * shared members may be changed in place); a last one shared is held by
 * reference all the same. */
void dra_changes_freeze_in_place(dra_change *ch);
/* A frozen change's text, the whole -o jsonl line (a member held by
 * reference written in), given up (the caller frees it; *len its length),
 * leaving the change without a state: for writing results out without
 * rebuilding every tree at once.  NULL when ch is not frozen. */
char *dra_changes_take_text(dra_change *ch, size_t *len);

/* The change of obj (an original, a working copy or a created object), or
 * NULL when the run has not touched it. */
dra_change *dra_changes_find(const dra_changes *c, const json_t *obj);
/* The same, but a frozen change stays frozen (its text for
 * dra_changes_take_text). */
dra_change *dra_changes_held(const dra_changes *c, const json_t *obj);
/* The current state of obj: its working copy when touched, else obj. */
const json_t *dra_changes_current(const dra_changes *c, const json_t *obj);
/* The first object created in the run with this kind ("ResourceClaim"),
 * namespace ("" or NULL for none) and name; NULL when none. */
dra_change *dra_changes_created(const dra_changes *c, const char *kind, const char *ns, const char *name);
/* Objects created in the run with a controller owner reference of this UID,
 * creation order: `for (size_t it = dra_changes_owned(c, uid); (ch =
 * dra_changes_owned_next(c, &it));)`. */
size_t dra_changes_owned(const dra_changes *c, const char *uid);
dra_change *dra_changes_owned_next(const dra_changes *c, size_t *it);

/* Append operations.  Strings are copied; body is stolen. */
dra_op *dra_changes_op(dra_changes *c, dra_op_verb verb, const json_t *target, const char *subresource, json_t *body,
                       const char *reason);

/* A new JSON patch (array) for an operation on c, or NULL when c records
 * objects only; appending to NULL (json_array_append_new) just frees. */
json_t *dra_changes_new_patch(const dra_changes *c);

/* JSON-patch preconditions for the object: a test of metadata.uid and, on the
 * first change of this object in the run, of metadata.resourceVersion.
 * Appends to patch (an array; NULL: nothing to append). */
void dra_patch_preconditions(json_t *patch, dra_change *ch);

/* DeleteOptions {"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":...}}. */
json_t *dra_delete_options(const char *uid);

typedef enum { DRA_PATCH_JSON, DRA_PATCH_KUBECTL } dra_patch_format;
/* "json" (also NULL or "") or "kubectl". */
DRA_MUST_USE dra_err *dra_patch_format_parse(const char *s, dra_patch_format *out);

/* Print the operations.  Errors are DRA_EXIT_RUNTIME (failed write). */
DRA_MUST_USE dra_err *dra_changes_write_ops(FILE *f, const dra_changes *c, dra_patch_format fmt);
/* A view of c with only the operations on objects of namespace ns (and on
 * cluster-scoped ones); ns NULL keeps all.  The view shares c's objects
 * and operations: free only view->ops. */
void dra_changes_view_namespace(const dra_changes *c, const char *ns, dra_changes *view);
/* The same, but the kubectl script gives each object's operations (in a
 * row) a paragraph of their own: a blank line, then a comment naming the
 * object ("# pod ml/d").  json is the same as dra_changes_write_ops. */
DRA_MUST_USE dra_err *dra_changes_write_ops_by_object(FILE *f, const dra_changes *c, dra_patch_format fmt);

/* One operation as the kubectl script has it, without its comment or
 * trailing newline (a create with a server-picked name is an assignment to
 * its shell variable).  Caller frees. */
char *dra_op_kubectl(const dra_op *op);

/* Point the operations on converted input objects (patches, applies,
 * deletes; not creates) at the version the input used (c's served
 * versions): op->api_version and an apply body's apiVersion. */
void dra_cluster_address_ops(const dra_cluster *c, dra_changes *ch);

/* The resource name kubectl and URLs use for a kind ("resourceclaims"). */
const char *dra_kind_resource(const char *kind);

/* ---- reading operations back ----------------------------------------------
 * An operation line as the tools print it (json above, plus "update" for a
 * whole-object write, "merge" patches and "nameVar" naming the variable a
 * create sets), read for whoever applies it (dra-watch).  Nothing is checked
 * but the shape: the applier decides what an unknown verb or kind means. */

/* clang-format off */
typedef enum {
    DRA_OPL_NONE,   /* no "verb" string */
    DRA_OPL_CREATE,
    DRA_OPL_PATCH,
    DRA_OPL_APPLY,
    DRA_OPL_DELETE,
    DRA_OPL_UPDATE,
    DRA_OPL_OTHER,  /* a verb none of the above */
} dra_op_line_verb;
/* clang-format on */

/* patchType: absent or "json", "merge", anything else strategic. */
typedef enum { DRA_OPL_PATCH_JSON, DRA_OPL_PATCH_MERGE, DRA_OPL_PATCH_STRATEGIC } dra_op_line_patch;

/* Every pointer is borrowed from the line; NULL when absent. */
typedef struct dra_op_line {
    dra_op_line_verb verb;
    const char *verb_text; /* the "verb" string */
    const char *kind, *ns, *subresource;
    const json_t *name; /* usually a string; "$DRA_NAME_<n>" for a generated name */
    const json_t *body;
    dra_op_line_patch patch_type;
    const char *field_manager; /* apply */
    bool force;                /* apply */
    const char *name_var;      /* create: "DRA_NAME_<n>" the created name goes to */
    const char *reason;
} dra_op_line;

/* Read one operation line (an object; anything else reads as no verb). */
void dra_op_line_read(const json_t *op, dra_op_line *out);

#endif
