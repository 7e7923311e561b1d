/* The classic drivers' controllers as commands; see classic.h. */
#include "classic.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"

#define ANSWER_TIMEOUT_MS 60000 /* a controller that says nothing for a minute is broken */

typedef struct driver_cmd {
    char *driver, *command;
} driver_cmd;

typedef struct drivers {
    driver_cmd *v;
    size_t n;
    const char **names;
} drivers;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* sh -c COMMAND with in on stdin; its stdout into out. */
static dra_err *run_command(const char *driver, const char *command, const char *in, size_t inlen, dra_buf *out)
{
    int pin[2], pout[2];
    if (pipe(pin) != 0)
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: pipe: %s", driver, strerror(errno));
    if (pipe(pout) != 0) {
        close(pin[0]), close(pin[1]);
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: pipe: %s", driver, strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(pin[0]), close(pin[1]), close(pout[0]), close(pout[1]);
        return dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: fork: %s", driver, strerror(err));
    }
    if (pid == 0) {
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        close(pin[0]), close(pin[1]), close(pout[0]), close(pout[1]);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    fcntl(pin[1], F_SETFL, O_NONBLOCK);
    int wfd = pin[1], rfd = pout[0];
    size_t off = 0;
    if (inlen == 0)
        close(wfd), wfd = -1;
    dra_err *e = NULL;
    int64_t deadline = now_ms() + ANSWER_TIMEOUT_MS;
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    while (rfd >= 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            kill(pid, SIGKILL);
            e = dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' gave no answer within %d s", driver, command,
                            ANSWER_TIMEOUT_MS / 1000);
            break;
        }
        struct pollfd p[2] = {{rfd, POLLIN, 0}, {wfd, POLLOUT, 0}};
        int n = poll(p, wfd >= 0 ? 2 : 1, (int)(left > 1000 ? 1000 : left));
        if (n < 0 && errno != EINTR) {
            e = dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: poll: %s", driver, strerror(errno));
            break;
        }
        if (n <= 0)
            continue;
        if (wfd >= 0 && p[1].revents) {
            ssize_t w = write(wfd, in + off, inlen - off);
            if (w > 0)
                off += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == inlen)
                close(wfd), wfd = -1;
        }
        if (p[0].revents) {
            char buf[65536];
            ssize_t got = read(rfd, buf, sizeof buf);
            if (got > 0) {
                if (out->len + (size_t)got > DRA_MAX_INPUT_BYTES) {
                    kill(pid, SIGKILL);
                    e = dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' printed too much", driver, command);
                    break;
                }
                dra_buf_append(out, buf, (size_t)got);
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                close(rfd), rfd = -1;
            }
        }
    }
    if (wfd >= 0)
        close(wfd);
    if (rfd >= 0)
        close(rfd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    signal(SIGPIPE, old);
    if (!e && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        e = WIFEXITED(st) ? dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' exited with status %d", driver,
                                        command, WEXITSTATUS(st))
                          : dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' was killed by signal %d", driver,
                                        command, WTERMSIG(st));
    return e;
}

static dra_err *ask(void *ctx, const char *driver, const json_t *q, json_t **answer)
{
    drivers *d = ctx;
    const char *command = NULL;
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].driver, driver) == 0)
            command = d->v[i].command;
    char *text = json_dumps(q, JSON_COMPACT);
    dra_buf out = DRA_BUF_INIT;
    size_t len = strlen(text);
    char *line = dra_xasprintf("%s\n", text);
    free(text);
    dra_err *e = run_command(driver, command, line, len + 1, &out);
    free(line);
    if (!e) {
        json_error_t je;
        *answer = json_loadb(out.data ? out.data : "", out.len, 0, &je);
        if (!*answer)
            e = dra_err_new(DRA_EXIT_RUNTIME, "classic driver %s: '%s' printed no JSON answer: %s", driver, command,
                            je.text);
    }
    dra_buf_free(&out);
    return e;
}

dra_err *classic_run(const dra_strv *specs, dra_objset **set, dra_model **m, json_t *const *nodes, size_t nnodes,
                     int64_t now, const dra_features *f, classic_pass *out)
{
    memset(out, 0, sizeof *out);
    if (!specs->n)
        return NULL;
    drivers d = {dra_xcalloc(specs->n, sizeof *d.v), 0, dra_xcalloc(specs->n, sizeof *d.names)};
    dra_err *e = NULL;
    for (size_t i = 0; i < specs->n && !e; i++) {
        const char *eq = strchr(specs->v[i], '=');
        if (!eq || eq == specs->v[i] || !eq[1])
            e = dra_err_field(dra_err_new(DRA_EXIT_INPUT, "Invalid value: \"%s\": expected DRIVER=COMMAND",
                                          specs->v[i]), "--classic-driver");
        else {
            d.v[d.n] = (driver_cmd){dra_xstrndup(specs->v[i], (size_t)(eq - specs->v[i])), dra_xstrdup(eq + 1)};
            d.names[d.n] = d.v[d.n].driver;
            d.n++;
        }
    }
    dra_classic_sched_opts o = {d.names, d.n, ask, &d};
    if (!e)
        e = dra_classic_schedule(*set, *m, nodes, nnodes, &o, &out->res);
    if (!e && out->res.npods) {
        /* the structured pass sees everything but the pods placed (or kept) here */
        for (size_t i = 0; i < (*set)->n; i++) {
            bool handled = false;
            for (size_t k = 0; k < out->res.npods && !handled; k++)
                handled = out->res.handled[k] == (*set)->v[i].json;
            if (!handled)
                dra_objset_add(&out->rest, json_incref((*set)->v[i].json), (*set)->v[i].file, (*set)->v[i].doc,
                               (*set)->v[i].line, (*set)->v[i].item);
        }
        dra_load_opts lo = {.skip_unknown = true, .no_validate = true, .now = now};
        lo.validate.features = f;
        e = dra_load(&out->rest, &lo, &out->model);
        *set = &out->rest;
        *m = &out->model;
    }
    for (size_t i = 0; i < d.n; i++)
        free(d.v[i].driver), free(d.v[i].command);
    free(d.v);
    free(d.names);
    return e;
}

void classic_pass_free(classic_pass *p)
{
    dra_classic_sched_result_free(&p->res);
    dra_model_free(&p->model);
    dra_objset_free(&p->rest);
}
