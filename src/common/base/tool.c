#include "tool.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

/* Make sure fds 0-2 exist so that files we open never become "stdout". */
static void check_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            (void)open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

bool dra_tool_start(const dra_tool *tool, int argc, char **argv, dra_args *a, int *rc)
{
    check_fds();
    dra_err *e = dra_cli_parse(tool, argc, argv, a);
    if (e) {
        dra_err_print(stderr, tool->prog, e);
        dra_err_free(e);
        *rc = DRA_EXIT_INPUT;
        return true;
    }
    if (dra_cli_standard(tool, a, rc)) {
        dra_args_free(a);
        return true;
    }
    return false;
}

int dra_tool_finish(const dra_tool *tool, dra_args *a, dra_err *err, int ok_code)
{
    int rc = ok_code;
    dra_err *out = dra_stdout_close();
    if (err) {
        dra_err_print(stderr, tool->prog, err);
        rc = err->code;
        dra_err_free(err);
    }
    if (out) {
        dra_err_print(stderr, tool->prog, out);
        dra_err_free(out);
        rc = DRA_EXIT_RUNTIME;
    }
    dra_args_free(a);
    return rc;
}
