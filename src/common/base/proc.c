/* Run one child process; see proc.h. */
#include "proc.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* In the child: never returns. */
static void child(const dra_proc *p, int in, int out, int report)
{
    if (p->group)
        setpgid(0, 0);
    if (in < 0)
        in = open("/dev/null", O_RDONLY);
    if (in >= 0)
        dup2(in, 0);
    dup2(out, 1);
    static const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], SIG_DFL);
    for (char *const *e = p->env; e && *e; e++)
        putenv(*e);
    if (p->argv)
        execvp(p->argv[0], p->argv);
    else
        execl("/bin/sh", "sh", "-c", p->shell, (char *)NULL);
    int err = errno;
    ssize_t w = write(report, &err, sizeof err);
    (void)!w;
    _exit(127);
}

dra_err *dra_proc_run(const dra_proc *p, dra_buf *out, dra_proc_status *st)
{
    memset(st, 0, sizeof *st);
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, prep[2] = {-1, -1};
    if ((p->in && pipe2(pin, O_CLOEXEC) != 0) || pipe2(pout, O_CLOEXEC) != 0 || pipe2(prep, O_CLOEXEC) != 0) {
        int err = errno;
        close_fd(&pin[0]), close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&pout[1]), close_fd(&prep[0]);
        return dra_err_new(DRA_EXIT_RUNTIME, "pipe: %s", strerror(err));
    }
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        sigaction(SIGPIPE, &old, NULL);
        close_fd(&pin[0]), close_fd(&pin[1]), close_fd(&pout[0]), close_fd(&pout[1]);
        close_fd(&prep[0]), close_fd(&prep[1]);
        return dra_err_new(DRA_EXIT_RUNTIME, "fork: %s", strerror(err));
    }
    if (pid == 0)
        child(p, pin[0], pout[1], prep[1]);
    if (p->group)
        setpgid(pid, pid); /* both sides, so signals reach the group at once */
    close_fd(&pin[0]), close_fd(&pout[1]), close_fd(&prep[1]);
    int wfd = pin[1], rfd = pout[0];
    if (wfd >= 0) {
        fcntl(wfd, F_SETFL, O_NONBLOCK);
        if (p->inlen == 0)
            close_fd(&wfd);
    }
    pid_t target = p->group ? -pid : pid;
    int64_t deadline = p->timeout_ms > 0 ? dra_mono_ms() + p->timeout_ms : 0;
    size_t off = 0;
    dra_err *e = NULL;
    while (rfd >= 0) {
        if (p->stop && *p->stop) {
            kill(target, SIGTERM);
            st->stopped = true;
            break;
        }
        int wait = 100;
        if (deadline) {
            int64_t left = deadline - dra_mono_ms();
            if (left <= 0) {
                kill(target, SIGKILL);
                st->timed_out = true;
                break;
            }
            if (left < wait)
                wait = (int)left;
        }
        struct pollfd fds[2] = {{rfd, POLLIN, 0}, {wfd, POLLOUT, 0}};
        int n = poll(fds, wfd >= 0 ? 2 : 1, wait);
        if (n < 0 && errno != EINTR) {
            e = dra_err_new(DRA_EXIT_RUNTIME, "poll: %s", strerror(errno));
            kill(target, SIGKILL);
            break;
        }
        if (n <= 0)
            continue;
        if (wfd >= 0 && fds[1].revents) {
            ssize_t w = write(wfd, p->in + off, p->inlen - off);
            if (w > 0)
                off += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == p->inlen)
                close_fd(&wfd); /* EPIPE: the child stopped reading; its verdict tells */
        }
        if (fds[0].revents) {
            dra_buf_grow(out, 65536);
            ssize_t got = read(rfd, out->data + out->len, out->cap - out->len - 1);
            if (got > 0) {
                out->len += (size_t)got;
                out->data[out->len] = '\0';
                if (p->max_out && out->len > p->max_out) {
                    kill(target, SIGKILL);
                    st->too_much = true;
                    break;
                }
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                close_fd(&rfd);
            }
        }
    }
    close_fd(&wfd);
    close_fd(&rfd);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGPIPE, &old, NULL);
    int err = 0;
    if (read(prep[0], &err, sizeof err) == (ssize_t)sizeof err)
        st->exec_errno = err;
    close_fd(&prep[0]);
    st->signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    st->code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + st->signal;
    return e;
}
