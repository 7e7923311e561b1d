/* base/proc: a child with stdin bytes and collected stdout; how it ended. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "unit.h"

UNIT_TEST(round_trip_larger_than_a_pipe)
{
    /* 4 MiB through cat: both sides of the pipes must move at once */
    size_t n = 4u << 20;
    char *in = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (char)('a' + i % 26);
    char *argv[] = {"cat", NULL};
    dra_proc p = {.argv = argv, .in = in, .inlen = n};
    dra_proc_status st;
    dra_buf out = DRA_BUF_INIT;
    CHECK(dra_proc_run(&p, &out, &st) == NULL);
    CHECK_INT(st.code, 0);
    CHECK(out.len == n && memcmp(out.data, in, n) == 0);
    dra_buf_free(&out);
    free(in);
}

UNIT_TEST(shell_env_and_exit_code)
{
    char *env[] = {"DRA_PROC_TEST=hello", NULL};
    dra_proc p = {.shell = "printf '%s' \"$DRA_PROC_TEST\"; read x; printf ' %s' \"$x\"; exit 3",
                  .in = "there\n",
                  .inlen = 6,
                  .env = env};
    dra_proc_status st;
    dra_buf out = DRA_BUF_INIT;
    CHECK(dra_proc_run(&p, &out, &st) == NULL);
    CHECK_INT(st.code, 3);
    CHECK_INT(st.signal, 0);
    CHECK_STR(dra_buf_str(&out), "hello there");
    CHECK(getenv("DRA_PROC_TEST") == NULL); /* only the child's environment */
    dra_buf_free(&out);
}

UNIT_TEST(not_found)
{
    char *argv[] = {"/nonexistent/dra-proc-test", NULL};
    dra_proc p = {.argv = argv};
    dra_proc_status st;
    dra_buf out = DRA_BUF_INIT;
    CHECK(dra_proc_run(&p, &out, &st) == NULL);
    CHECK_INT(st.exec_errno, ENOENT);
    CHECK_INT(st.code, 127);
    dra_buf_free(&out);
}

UNIT_TEST(timeout_and_output_limit)
{
    char *sleep_argv[] = {"sleep", "30", NULL};
    dra_proc p = {.argv = sleep_argv, .timeout_ms = 100};
    dra_proc_status st;
    dra_buf out = DRA_BUF_INIT;
    CHECK(dra_proc_run(&p, &out, &st) == NULL);
    CHECK(st.timed_out);
    CHECK_INT(st.signal, SIGKILL);
    dra_buf_reset(&out);
    dra_proc q = {.shell = "yes", .max_out = 100000, .group = true};
    CHECK(dra_proc_run(&q, &out, &st) == NULL);
    CHECK(st.too_much);
    CHECK(out.len > 100000);
    dra_buf_free(&out);
}

UNIT_TEST(stop_flag)
{
    volatile sig_atomic_t stop = 1;
    char *argv[] = {"sleep", "30", NULL};
    dra_proc p = {.argv = argv, .group = true, .stop = &stop};
    dra_proc_status st;
    dra_buf out = DRA_BUF_INIT;
    CHECK(dra_proc_run(&p, &out, &st) == NULL);
    CHECK(st.stopped);
    CHECK_INT(st.signal, SIGTERM);
    dra_buf_free(&out);
}

UNIT_MAIN()
