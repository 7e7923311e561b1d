/* Socket glue shared by the gRPC client and server. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "grpc/internal.h"

void dra_grpc_status_set(dra_grpc_status *st, int code, const char *fmt, ...)
{
    va_list ap;
    free(st->message);
    st->code = code;
    va_start(ap, fmt);
    st->message = dra_xvasprintf(fmt, ap);
    va_end(ap);
}

void dra_grpc_status_clear(dra_grpc_status *st)
{
    free(st->message);
    st->message = NULL;
    st->code = DRA_GRPC_OK;
}

ssize_t dra_grpc_sock_send(int fd, const uint8_t *data, size_t len)
{
    for (;;) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return NGHTTP2_ERR_WOULDBLOCK;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
}

int dra_grpc_sock_recv(int fd, nghttp2_session *s, int *h2err)
{
    uint8_t buf[65536];
    *h2err = 0;
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 1;
            return -1;
        }
        if (n == 0)
            return 0;
        ssize_t r = nghttp2_session_mem_recv(s, buf, (size_t)n);
        if (r < 0) {
            *h2err = (int)r;
            return -1;
        }
    }
}

const char *dra_grpc_strerror(int err, char *buf, size_t size)
{
    snprintf(buf, size, "%s", strerror(err));
    if (buf[0] && isupper((unsigned char)buf[0]) && !(buf[1] && isupper((unsigned char)buf[1])))
        buf[0] = (char)tolower((unsigned char)buf[0]);
    return buf;
}

void dra_grpc_note(dra_grpc_log_fn log, void *ctx, const char *fmt, ...)
{
    if (!log)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *line = dra_xvasprintf(fmt, ap);
    va_end(ap);
    log(ctx, line);
    free(line);
}
