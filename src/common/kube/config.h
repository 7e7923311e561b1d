/* Where the API server is and who we are to it: kubeconfig as kubectl reads
 * it, or the in-cluster service account.
 *
 * Loading rules (k8s.io/client-go/tools/clientcmd/loader.go, merged_client_builder.go):
 *  - --kubeconfig FILE: only that file, which must exist;
 *  - else $KUBECONFIG: a ':'-separated list; missing files are skipped; maps
 *    (clusters, users, contexts) merge by name and the first file that sets a
 *    name or current-context wins;
 *  - else ~/.kube/config when it exists;
 *  - else, or when the merged config names no context and the flags give none,
 *    in-cluster: KUBERNETES_SERVICE_HOST/PORT with the service account's token,
 *    ca.crt and namespace.
 * --context overrides current-context; --namespace overrides the context's
 * namespace ("default" when neither).  Relative paths inside a kubeconfig are
 * relative to the file that holds them.  certificate-authority/client
 * certificate/key files are read at load time into memory (libcurl takes them
 * as blobs, so nothing is ever written to disk).
 *
 * Impersonation (the user's as, as-uid, as-groups, as-user-extra; kubectl's
 * --as, --as-uid, --as-group, --as-user-extra) merges as clientcmd merges
 * its overrides (client_config.go getAuthInfo, merge.go): a non-empty flag
 * wins over the kubeconfig's value, --as-group values replace the groups,
 * --as-user-extra keys replace the kubeconfig's values of the same keys.  It
 * is in force only with a user to act as (rest.Config's Impersonate is set
 * only then); uid, groups or extras without one are clientcmd's validation
 * error "requesting uid, groups or user-extra for NAME without impersonating
 * a user".  Unlike credentials it is kept over plain http (clientcmd sets it
 * before its "only try to read the auth information if we are secure").  The
 * flags apply to the in-cluster configuration too, as rest.Config's
 * Impersonate does in a program that sets it (kubectl itself, given one, no
 * longer falls back to in-cluster and talks to localhost:8080).  A value
 * Go's net/http would refuse as a header (a control character other than
 * tab) is an input error here, not at the first request.
 *
 * Secrets (tokens, passwords, keys) live only in dra_kube_config; no error or log
 * message built here contains them.
 *
 * Ownership: dra_kube_config owns every string and buffer; dra_kube_config_free().
 */
#ifndef DRA_KUBE_CONFIG_H
#define DRA_KUBE_CONFIG_H

#include <stdbool.h>

#include "../base/buf.h"
#include "../base/error.h"

typedef struct dra_kube_exec {
    char *api_version; /* client.authentication.k8s.io/v1 or v1beta1 */
    char *command;     /* resolved against the kubeconfig's folder when it holds a '/' */
    char **args;       /* NULL-terminated */
    char **env;        /* "NAME=VALUE", NULL-terminated */
    char *install_hint;
    bool provide_cluster_info;
} dra_kube_exec;

/* One key of as-user-extra / --as-user-extra with its values. */
typedef struct dra_kube_extra {
    char *key;
    char **values;
    size_t nvalues;
} dra_kube_extra;

/* Whom requests act as (client-go's rest.ImpersonationConfig). */
typedef struct dra_kube_impersonate {
    char *user;    /* NULL: no impersonation (never "") */
    char *uid;     /* NULL: none */
    char **groups; /* in order; an empty string is a group too */
    size_t ngroups;
    dra_kube_extra *extra; /* keys in first-seen order */
    size_t nextra;
} dra_kube_impersonate;

typedef struct dra_kube_config {
    char *context, *cluster_name, *user_name; /* names, for messages; NULL in-cluster */
    char *ns;                                 /* effective namespace, never NULL */
    char *server;                             /* "https://host:port", no trailing '/' */
    dra_buf ca;                               /* PEM bytes; empty = system roots */
    bool insecure;                            /* insecure-skip-tls-verify */
    char *tls_server_name, *proxy_url;
    dra_buf cert, key; /* client certificate and key, PEM */
    char *token;       /* bearer token */
    char *token_file;  /* re-read when it changes (service account rotation) */
    char *username, *password;
    dra_kube_exec *exec;
    dra_kube_impersonate as; /* sent over plain http too */
    bool in_cluster;
    char *origin; /* "kubeconfig FILE[:FILE]" or "in-cluster config", for messages */
} dra_kube_config;

typedef struct dra_kube_config_opts {
    const char *kubeconfig;       /* --kubeconfig */
    const char *context;          /* --context */
    const char *ns;               /* --namespace */
    const char *sa_dir;           /* service-account folder; NULL = /var/run/secrets/kubernetes.io/serviceaccount */
    const char *as;               /* --as (NULL or "": the kubeconfig's) */
    const char *as_uid;           /* --as-uid */
    const char *const *as_groups; /* --as-group, each value (none: the kubeconfig's) */
    size_t nas_groups;
    const char *const *as_extra; /* --as-user-extra KEY=VALUE, each value */
    size_t nas_extra;
} dra_kube_config_opts;

/* Load.  Errors are DRA_EXIT_INPUT for a broken or inconsistent kubeconfig
 * (naming the file, the entry and the field), DRA_EXIT_RUNTIME for unreadable
 * files. */
DRA_MUST_USE dra_err *dra_kube_config_load(const dra_kube_config_opts *o, dra_kube_config *out);
/* Parse one kubeconfig document in memory as if it were the only file
 * (for tests and fuzzing); dir resolves relative paths ("" = none). */
DRA_MUST_USE dra_err *dra_kube_config_parse(const char *name, const char *data, size_t len, const char *dir,
                                            const dra_kube_config_opts *o, dra_kube_config *out);
void dra_kube_config_free(dra_kube_config *c);
/* The header an as-user-extra key goes in, as client-go names it:
 * "Impersonate-Extra-" + the key with bytes outside an HTTP token (and '%')
 * written %XX (transport/round_trippers.go headerKeyEscape), in net/http's
 * canonical case.  Caller frees. */
char *dra_kube_extra_header(const char *key);
/* Forget (and wipe) the user's credentials: token, tokenFile, basic auth,
 * client certificate and key, exec plugin.  The client does this for a
 * server that is not https (client.h). */
void dra_kube_config_drop_credentials(dra_kube_config *c);

#endif
