/* Shared by the files of src/common/kubelet/ (not for tools). */
#ifndef DRA_KUBELET_RPC_INTERNAL_H
#define DRA_KUBELET_RPC_INTERNAL_H

#include "base/error.h"
#include "grpc/grpc.h"

#define DRA_SERVICE_V1 "v1.DRAPlugin"
#define DRA_SERVICE_V1BETA1 "v1beta1.DRAPlugin"

/* 1 for v1, 0 for v1beta1, -1 for anything else. */
int dra_rpc_service_version(const char *service);
/* "WHAT SOCKET: CODE: message" as a DRA_EXIT_RUNTIME error. */
DRA_MUST_USE dra_err *dra_rpc_status_err(const char *what, const char *socket, const dra_grpc_status *st);

#endif
