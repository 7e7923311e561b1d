/* Private to src/common/kube/. */
#ifndef DRA_KUBE_INTERNAL_H
#define DRA_KUBE_INTERNAL_H

#include <stdint.h>

#include <stdbool.h>

#include "../base/buf.h"
#include "config.h"

/* A credential from an exec plugin.  Owned; kube_cred_clear wipes it. */
typedef struct kube_cred {
    bool valid;
    char *token;
    dra_buf cert, key; /* PEM */
    int64_t expiry_ns; /* 0 = does not expire */
} kube_cred;

void kube_cred_clear(kube_cred *c);
/* Run cfg->exec and read its ExecCredential. */
DRA_MUST_USE dra_err *kube_exec_credential(const kube_config *cfg, kube_cred *cred);

#endif
