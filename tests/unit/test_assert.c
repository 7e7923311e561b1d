/* DRA_ASSERT and the lifetime invariants it guards: active in sanitized
 * and DRA_DEBUG builds (a broken invariant aborts the process, naming file,
 * line and condition), compiled out elsewhere (the condition is not even
 * evaluated).  The aborting cases run in a child process. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/assert.h"
#include "io/jparse.h"
#include "unit.h"

/* Run fn in a child with stderr captured into err; true when the child
 * died of SIGABRT. */
static bool aborts(void (*fn)(void), char *err, size_t n)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < n && (r = read(fds[0], err + got, n - 1 - got)) > 0)
        got += (size_t)r;
    err[got] = 0;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static int evaluated;

static bool count_and_fail(void)
{
    evaluated++;
    return false;
}

static void failing_assert(void)
{
    DRA_ASSERT(count_and_fail());
}

UNIT_TEST(assert_aborts_when_on_and_costs_nothing_when_off)
{
    char err[4096];
    bool died = aborts(failing_assert, err, sizeof err);
    if (DRA_ASSERT_ON) {
        CHECK(died);
        CHECK(strstr(err, "test_assert.c:") != NULL);
        CHECK(strstr(err, "assertion failed: count_and_fail()") != NULL);
    } else {
        CHECK(!died);
        CHECK_STR(err, "");
    }
    evaluated = 0;
    DRA_ASSERT(evaluated == 0 || count_and_fail());
    CHECK_INT(evaluated, 0); /* a true condition, evaluated (or not) without effect */
}

/* Two documents whose attribute values are shared through one interner;
 * then one shared leaf is written, which nothing may do. */
static void write_shared_leaf(void)
{
    const char *doc = "{\"spec\":{\"devices\":[{\"name\":\"gpu-0\",\"attributes\":{\"model\":{\"string\":\"A100\"}},"
                      "\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}},{\"name\":\"gpu-1\",\"attributes\":{\"model\":"
                      "{\"string\":\"A100\"}},\"capacity\":{\"memory\":{\"value\":\"80Gi\"}}}]}}";
    dra_json_interner *in = dra_json_interner_new();
    size_t used;
    json_t *v = dra_json_parse_shared(doc, strlen(doc), 64, &used, in);
    json_t *devs = json_object_get(json_object_get(v, "spec"), "devices");
    json_t *a = json_object_get(json_object_get(json_array_get(devs, 0), "attributes"), "model");
    json_t *b = json_object_get(json_object_get(json_array_get(devs, 1), "attributes"), "model");
    if (a != b) /* not shared: nothing to check */
        _exit(3);
    json_object_set_new(a, "string", json_string("H100")); /* gpu-1 changes too */
    dra_json_interner_free(in);
    json_decref(v);
}

UNIT_TEST(a_written_shared_leaf_is_caught)
{
    char err[4096];
    bool died = aborts(write_shared_leaf, err, sizeof err);
    CHECK(died == (bool)DRA_ASSERT_ON);
    if (DRA_ASSERT_ON)
        CHECK(strstr(err, "jparse.c:") != NULL);
}

static void share_untouched(void)
{
    const char *doc = "{\"a\":{\"b\":{\"c\":{\"attributes\":{\"x\":{\"int\":1},\"y\":{\"int\":1}}}}}}";
    dra_json_interner *in = dra_json_interner_new();
    size_t used;
    json_t *v = dra_json_parse_shared(doc, strlen(doc), 64, &used, in);
    dra_json_interner_free(in);
    json_decref(v);
}

UNIT_TEST(untouched_shared_leaves_pass)
{
    char err[4096];
    CHECK(!aborts(share_untouched, err, sizeof err));
    CHECK_STR(err, "");
}

UNIT_MAIN()
