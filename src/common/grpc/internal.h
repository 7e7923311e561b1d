/* Internals shared by client.c and server.c (not a public header). */
#ifndef DRA_GRPC_INTERNAL_H
#define DRA_GRPC_INTERNAL_H

#include <nghttp2/nghttp2.h>
#include <stdint.h>
#include <string.h>

#include "grpc/grpc.h"

/* A header name/value pair for nghttp2 from C strings. */
/* clang-format off */
#define DRA_H2_NV(n, v)                                                                   \
    {(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v),                                \
     NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE}

/* The same with a value nghttp2 copies (a stack or temporary buffer). */
#define DRA_H2_NVC(n, v)                                                                  \
    {(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), NGHTTP2_NV_FLAG_NO_COPY_NAME}
/* clang-format on */

/* nghttp2 send callback for a non-blocking socket whose fd is *(int *)user_data's
 * first member: see the two users.  Returns bytes or NGHTTP2_ERR_WOULDBLOCK /
 * NGHTTP2_ERR_CALLBACK_FAILURE. */
ssize_t dra_grpc_sock_send(int fd, const uint8_t *data, size_t len);
/* Read what is available into the session.  Returns 1 while the connection
 * is open, 0 at EOF, -1 on an error (errno or *h2err set). */
int dra_grpc_sock_recv(int fd, nghttp2_session *s, int *h2err);
/* One log line through the caller's callback (nothing when log is NULL). */
void dra_grpc_note(dra_grpc_log_fn log, void *ctx, const char *fmt, ...) DRA_PRINTF(3, 4);
/* Lower-case strerror, as Go prints syscall errors ("connection refused"). */
const char *dra_grpc_strerror(int err, char *buf, size_t size);

#endif
