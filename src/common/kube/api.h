/* The Kubernetes REST API over dra_kube_client: the resources dra-tools use,
 * discovery of their served versions, list/get/create/update/patch/delete,
 * and informers (list, then watch with relist and resume).
 *
 * Resources: resource.k8s.io deviceclasses, resourceslices, resourceclaims,
 * resourceclaimtemplates, devicetaintrules (served version found by
 * discovery: v1, else v1beta2, else v1beta1 (v1alpha3 for taint rules);
 * objects of an older version are converted to v1 on read with
 * model/convert.h, but for a kind some release the tools know does not
 * serve as v1: a DeviceTaintRule keeps the version it was served at, as
 * kubectl get prints it), and core v1 pods, nodes, namespaces, events.
 *
 * Objects read from lists get apiVersion and kind like kubectl's
 * unstructured decoding gives them (the list's apiVersion, its kind without
 * "List"), so `dra-watch get` prints what `kubectl get -o json` prints.
 *
 * Ownership: returned json_t are new references the caller releases; paths
 * and names are borrowed.  Errors are DRA_EXIT_RUNTIME except unknown
 * resource names (DRA_EXIT_INPUT).
 */
#ifndef DRA_KUBE_API_H
#define DRA_KUBE_API_H

#include <jansson.h>
#include <stdbool.h>

#include "client.h"
#include "events.h"

typedef struct dra_kube_resource {
    const char *group;      /* "" for core */
    const char *resource;   /* plural: "resourceclaims" */
    const char *kind;       /* "ResourceClaim" */
    const char *singular;   /* "resourceclaim" */
    const char *shortnames; /* space-separated, "" for none */
    bool namespaced;
    const char *versions; /* preferred first: "v1 v1beta2 v1beta1" */
} dra_kube_resource;

extern const dra_kube_resource dra_kube_resources[];
extern const size_t dra_kube_nresources;

/* By plural, singular, kind (any case), short name, or "plural.group". */
const dra_kube_resource *dra_kube_resource_find(const char *name);
const dra_kube_resource *dra_kube_resource_by_kind(const char *kind);

/* The version the server serves for r ("v1", "v1beta2", ...), by discovery
 * (cached in the api handle).  An error when none of r's versions is served. */
typedef struct dra_kube_api dra_kube_api;
dra_kube_api *dra_kube_api_new(dra_kube_client *c); /* borrows c */
void dra_kube_api_free(dra_kube_api *a);
dra_kube_client *dra_kube_api_client(dra_kube_api *a);
DRA_MUST_USE dra_err *dra_kube_api_version(dra_kube_api *a, const dra_kube_resource *r, const char **version);
/* "/apis/resource.k8s.io/v1/namespaces/NS/resourceclaims[/NAME[/SUB]]"; ns
 * NULL or "" = all namespaces (or a cluster-scoped resource).  Caller frees. */
char *dra_kube_api_path(dra_kube_api *a, const dra_kube_resource *r, const char *version, const char *ns,
                        const char *name, const char *sub);

/* Convert an object read from the server to v1 (where the client
 * converts r's kind: see above) and give it apiVersion/kind (version = the
 * served version); metadata.managedFields is dropped, as kubectl get does. */
DRA_MUST_USE dra_err *dra_kube_api_normalize(const dra_kube_resource *r, const char *version, json_t *obj);

/* Is obj, from a watch of r at the served version, of that kind?  As
 * client-go's typed watch decoding and reflector see it
 * (rest/watch/decoder.go, tools/cache/reflector.go handleAnyWatch):
 *   KUBE_OBJ_EXPECTED  r's apiVersion and kind (either may be absent:
 *                      they are taken as r's);
 *   KUBE_OBJ_OTHER     another kind or version the client knows (a resource
 *                      of dra_kube_resources at a version it may serve): the
 *                      reflector drops the event ("Unexpected watch event
 *                      object type") and the watch goes on;
 *   KUBE_OBJ_UNKNOWN   a kind it cannot decode: the decoder fails, the watch
 *                      ends with "unable to decode an event from the watch
 *                      stream" and the reflector lists again.
 * *why (when not NULL): for OTHER "v1 Node name", for UNKNOWN the decoder's
 * message; malloc'd, caller frees, control characters escaped. */
typedef enum { KUBE_OBJ_EXPECTED, KUBE_OBJ_OTHER, KUBE_OBJ_UNKNOWN } dra_kube_obj_match;
dra_kube_obj_match dra_kube_api_match(const dra_kube_resource *r, const char *version, const json_t *obj, char **why);

typedef struct dra_kube_list_opts {
    const char *ns;             /* NULL/"" = all namespaces */
    const char *label_selector; /* NULL = none */
    const char *field_selector;
    int limit; /* page size; 0 = 500 */
} dra_kube_list_opts;

/* List every page; *items is a new array of normalised objects, *rv the list's
 * resourceVersion (caller frees). */
DRA_MUST_USE dra_err *dra_kube_list(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o,
                                    json_t **items, char **rv);
/* The same, page by page without holding the list: fn gets each normalised
 * item (borrowed: incref to keep it; the page is freed after its items), and
 * NULL when an expired continue token makes the list start over in one piece
 * (forget what came before).  An error from fn ends the list. */
typedef dra_err *(*dra_kube_item_fn)(void *ud, json_t *item);
DRA_MUST_USE dra_err *dra_kube_list_each(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o,
                                         dra_kube_item_fn fn, void *ud, char **rv);
/* The same, each item handed over as its `-o jsonl` line where it can be
 * written from the page's text without a tree (the bytes
 * dra_json_write_line writes of the normalised item), else as the
 * normalised tree: exactly one of obj and line is set, both borrowed for
 * the call; ns and name are its metadata's ("" when absent).  fn gets
 * NULL when the list starts over, as above. */
typedef struct dra_kube_list_item {
    json_t *obj;
    const char *line;
    size_t len;
    const char *ns, *name;
} dra_kube_list_item;
typedef dra_err *(*dra_kube_line_fn)(void *ud, const dra_kube_list_item *item);
DRA_MUST_USE dra_err *dra_kube_list_lines(dra_kube_api *a, const dra_kube_resource *r, const dra_kube_list_opts *o,
                                          dra_kube_line_fn fn, void *ud, char **rv);
DRA_MUST_USE dra_err *dra_kube_get(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name,
                                   json_t **obj, dra_kube_resp *resp);

/* Writes.  The body is borrowed.  On success *out (may be NULL) is the
 * server's object, normalised.  resp gives the HTTP code and reason of a
 * failure (409 Conflict: a precondition failed; re-read and retry). */
typedef enum { KUBE_PATCH_JSON, KUBE_PATCH_MERGE, KUBE_PATCH_STRATEGIC } dra_kube_patch_type;
DRA_MUST_USE dra_err *dra_kube_create(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const json_t *obj,
                                      json_t **out, dra_kube_resp *resp);
/* PUT; obj carries metadata.resourceVersion as the precondition.  sub: NULL or "status". */
DRA_MUST_USE dra_err *dra_kube_update(dra_kube_api *a, const dra_kube_resource *r, const json_t *obj, const char *sub,
                                      json_t **out, dra_kube_resp *resp);
DRA_MUST_USE dra_err *dra_kube_patch(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name,
                                     const char *sub, dra_kube_patch_type type, const json_t *patch, json_t **out,
                                     dra_kube_resp *resp);
/* DELETE with DeleteOptions (preconditions uid/resourceVersion when given). */
DRA_MUST_USE dra_err *dra_kube_delete(dra_kube_api *a, const dra_kube_resource *r, const char *ns, const char *name,
                                      const char *uid, const char *rv, dra_kube_resp *resp);

/* Any write: method, optional subresource, query ("fieldManager=x&force=true",
 * escaped) and content type; counts writes and conflicts (409).  A body of
 * r's group at v1 goes to a server that serves r as v1beta2 only (1.36's
 * DeviceTaintRules) with that apiVersion: the two versions have the same
 * fields; body itself is not changed. */
DRA_MUST_USE dra_err *dra_kube_write(dra_kube_api *a, const dra_kube_resource *r, const char *method, const char *ns,
                                     const char *name, const char *sub, const char *query, const char *ctype,
                                     const json_t *body, json_t **out, dra_kube_resp *resp);

/* ---- informers ---- */

/* An informer keeps the objects of one resource (ns/label/field filtered) in
 * a store and reports changes as events: the initial list as ADDED, then the
 * watch's ADDED/MODIFIED/DELETED.  Watches start at the list's
 * resourceVersion with allowWatchBookmarks; a cut or idle connection resumes
 * from the last version seen (bookmarks included); 410 Gone / Expired (HTTP
 * or ERROR event) relists and reports only the differences from the store
 * (so nothing is reported twice), and so does a resourceVersion the server
 * finds too large (504 Timeout, cause ResourceVersionTooLarge: its versions
 * went back, as after an etcd restore); the relist lists the current state
 * and the watch starts again from the list's version.  An event of another
 * known kind is dropped; one that cannot be decoded ends the watch, which
 * relists after a backoff (dra_kube_api_match).  Other failures back off
 * exponentially with jitter.  An event whose object's resourceVersion equals
 * the stored one is not reported again. */
typedef void (*dra_kube_informer_fn)(void *ud, size_t informer, dra_kube_event_type type, json_t *obj);

typedef struct dra_kube_informer_spec {
    const dra_kube_resource *res;
    const char *ns, *label_selector, *field_selector; /* borrowed for the informers' life */
    /* Keep only apiVersion, kind and metadata of each object: enough to tell
     * changes apart and to report a DELETED object found by a relist, for a
     * reader of events (dra-watch get -w) that never asks the store for
     * whole objects; a tenth of the memory. */
    bool meta_only;
} dra_kube_informer_spec;

typedef struct dra_kube_informers dra_kube_informers;
/* timeout_s: the watch's timeoutSeconds (0 = 300); idle_s: a watch silent
 * this long (plus curl's averaging) is dropped and resumed (0 = 60). */
dra_kube_informers *dra_kube_informers_new(dra_kube_api *a, const dra_kube_informer_spec *specs, size_t n,
                                           int timeout_s, int idle_s, dra_kube_informer_fn fn, void *ud);
void dra_kube_informers_free(dra_kube_informers *in);
/* List all (the initial ADDED events).  Errors end the run. */
DRA_MUST_USE dra_err *dra_kube_informers_sync(dra_kube_informers *in);
/* Watch for up to max_ms (< 0: until stopped or tick says stop).  tick is
 * called at least every 100 ms; a non-NULL error from it ends the run (an
 * error with code 0 ends it successfully). */
typedef dra_err *(*dra_kube_tick_fn)(void *ud);
DRA_MUST_USE dra_err *dra_kube_informers_run(dra_kube_informers *in, int64_t max_ms, dra_kube_tick_fn tick, void *ud);
/* The store of informer i, keyed "ns/name" ("/name" for cluster-scoped
 * kinds).  Objects are kept as compact JSON (the bytes json_dumps gives with
 * JSON_COMPACT): each passes them borrowed, in no particular order; get
 * decodes one anew (caller decrefs; NULL when absent). */
typedef void (*dra_kube_store_fn)(void *ud, const char *key, const char *json, size_t len);
size_t dra_kube_informers_count(const dra_kube_informers *in, size_t i);
void dra_kube_informers_each(const dra_kube_informers *in, size_t i, dra_kube_store_fn fn, void *ud);
json_t *dra_kube_informers_get(const dra_kube_informers *in, size_t i, const char *key);
/* Force a relist of every informer now (after a conflict, or SIGHUP). */
void dra_kube_informers_relist(dra_kube_informers *in);

#endif
