/* Private to src/common/kube/. */
#ifndef DRA_KUBE_INTERNAL_H
#define DRA_KUBE_INTERNAL_H

#include <stdint.h>

#include <stdbool.h>

#include "../base/buf.h"
#include "config.h"

/* A credential from an exec plugin.  Owned; dra_kube_cred_clear wipes it. */
typedef struct dra_kube_cred {
    bool valid;
    char *token;
    dra_buf cert, key; /* PEM */
    int64_t expiry_ns; /* 0 = does not expire */
} dra_kube_cred;

void dra_kube_cred_clear(dra_kube_cred *c);
/* Run cfg->exec and read its ExecCredential. */
DRA_MUST_USE dra_err *dra_kube_exec_credential(const dra_kube_config *cfg, dra_kube_cred *cred);

#endif
