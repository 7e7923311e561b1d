/* Private to src/common/kube/. */
#ifndef DRA_KUBE_INTERNAL_H
#define DRA_KUBE_INTERNAL_H

#include <stdint.h>

#include <stdbool.h>

#include <jansson.h>

#include "../base/buf.h"
#include "../model/time.h"
#include "config.h"

/* A credential from an exec plugin.  Owned; dra_kube_cred_clear wipes it. */
typedef struct dra_kube_cred {
    bool valid;
    char *token;
    dra_buf cert, key; /* PEM */
    bool expires;      /* status.expirationTimestamp was set (and not Go's zero time) */
    dra_time expiry;
} dra_kube_cred;

void dra_kube_cred_clear(dra_kube_cred *c);
/* Whether the credential has expired at now: strictly after its expiry, as
 * client-go's credsExpired (no skew); never without an expiry. */
bool dra_kube_cred_expired(const dra_kube_cred *c, dra_time now);
/* Run cfg->exec and read its ExecCredential. */
DRA_MUST_USE dra_err *dra_kube_exec_credential(const dra_kube_config *cfg, dra_kube_cred *cred);

/* metadata.<k> of o as a string, or NULL (borrowed; normalize.c). */
const char *dra_kube_meta_str(const json_t *o, const char *k);
/* Does dra_kube_api_normalize convert r's objects served at version to
 * v1?  Only those of a group, at another version, and of a kind that
 * every release the tools know serves as v1 (normalize.c).  A kind some
 * release does not serve as v1 (1.36's DeviceTaintRule, v1 from 1.37:
 * model/strict.h) keeps the version it was served at, so that a reader
 * told that release tells it from a v1 object, which such a cluster
 * cannot hold, and converts it as it converts a file's. */
struct dra_kube_resource;
bool dra_kube_api_converts(const struct dra_kube_resource *r, const char *version);
/* Hand pages of freed list trees back to the system (glibc), so the
 * resident size stays that of the informers' compact stores (api.c). */
void dra_kube_trim_heap(void);

/* One page of dra_kube_list_lines from its text (list_lines.c): its items
 * to fn, *lrv set (when NULL) and *cont replaced from its metadata, *err
 * fn's or the page's error.  false when the text is not one this reads
 * (the caller then decodes it as a tree). */
struct dra_kube_resource;
struct dra_kube_list_item;
bool dra_kube_list_page_lines(const struct dra_kube_resource *r, const char *version, const char *text, size_t len,
                              dra_err *(*fn)(void *ud, const struct dra_kube_list_item *item), void *ud, char **lrv,
                              char **cont, dra_err **err);
#endif
