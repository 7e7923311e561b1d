/* Option tables: parsing, help and completion output. */
#include <stdlib.h>
#include <string.h>

#include "base/suggest.h"
#include "tool/cli.h"
#include "tool/args.h"
#include "tool/records.h"
#include "tool/flood.h"
#include "unit.h"

enum { OPT_DRIVER = DRA_OPT_TOOL_BASE, OPT_ALL, OPT_TEST_SECRET };
static const dra_opt build_opts[] = {
    {OPT_DRIVER, "driver", 'd', DRA_ARG_REQUIRED, "NAME", "driver name", NULL},
    {OPT_ALL, "all", 0, DRA_ARG_NONE, NULL, "everything", NULL},
    DRA_OPT_OUTPUT_ENTRY("yaml json jsonl"),
    DRA_OPT_EXPLAIN_ENTRY,
    {OPT_TEST_SECRET, "test-secret", 0, DRA_ARG_REQUIRED, "N", NULL, NULL}, /* hidden: no help */
    DRA_OPT_END,
};
static const dra_cmd cmds[] = {
    {"build", "build [OPTIONS] FILE...", "build things", NULL, build_opts, NULL},
    {"lint", "lint FILE...", "lint things", NULL, build_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
static const dra_tool tool = {"dra-test", "a test tool", cmds, NULL};

static dra_err *parse(dra_args *a, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return dra_cli_parse(&tool, argc, argv, a);
}

UNIT_TEST(parses_long_short_and_positional)
{
    char *argv[] = {"dra-test", "build", "-d", "x", "f1", "--output=json", "-ojsonl", "--all", "--", "-f2", NULL};
    dra_args a;
    dra_err *e = parse(&a, argv);
    CHECK(e == NULL);
    CHECK_STR(a.cmd->name, "build");
    CHECK_STR(dra_args_get(&a, OPT_DRIVER), "x");
    CHECK_STR(dra_args_get(&a, DRA_OPT_OUTPUT), "jsonl");
    CHECK_INT(dra_args_count(&a, DRA_OPT_OUTPUT), 2);
    CHECK(dra_args_has(&a, OPT_ALL));
    CHECK_INT(a.npos, 2);
    CHECK_STR(a.pos[0], "f1");
    CHECK_STR(a.pos[1], "-f2");
    dra_args_free(&a);
}

UNIT_TEST(optional_argument)
{
    char *argv[] = {"dra-test", "build", "--explain", "--explain=json", NULL};
    dra_args a;
    CHECK(parse(&a, argv) == NULL);
    CHECK_INT(dra_args_count(&a, DRA_OPT_EXPLAIN), 2);
    CHECK_STR(dra_args_get(&a, DRA_OPT_EXPLAIN), "json");
    dra_args_free(&a);
}

UNIT_TEST(usage_errors)
{
    dra_args a;
    char *argv1[] = {"dra-test", "build", "--nope", NULL};
    dra_err *e = parse(&a, argv1);
    CHECK(e != NULL && strstr(e->msg, "unknown option '--nope'") && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);
    char *argv2[] = {"dra-test", "build", "--driver", NULL};
    e = parse(&a, argv2);
    CHECK(e != NULL && strstr(e->msg, "needs a value"));
    dra_err_free(e);
    char *argv3[] = {"dra-test", "frobnicate", NULL};
    e = parse(&a, argv3);
    CHECK(e != NULL && strstr(e->msg, "unknown command 'frobnicate'"));
    dra_err_free(e);
    char *argv4[] = {"dra-test", NULL};
    e = parse(&a, argv4);
    CHECK(e != NULL && strstr(e->msg, "a command is required"));
    dra_err_free(e);
    char *argv6[] = {"dra-test", "build", "--nope=1", NULL};
    e = parse(&a, argv6);
    CHECK(e != NULL && strstr(e->msg, "unknown option '--nope'") && !strstr(e->msg, "=1"));
    dra_err_free(e);
    char *argv5[] = {"dra-test", "build", "--all=yes", NULL};
    e = parse(&a, argv5);
    CHECK(e != NULL && strstr(e->msg, "takes no value"));
    dra_err_free(e);
}

UNIT_TEST(suggest_weighs_as_git)
{
    CHECK_INT(dra_suggest_distance("schedul", "schedule"), 1);   /* one insertion */
    CHECK_INT(dra_suggest_distance("scheduled", "schedule"), 3); /* one deletion */
    CHECK_INT(dra_suggest_distance("shcedule", "schedule"), 0);  /* a swap */
    CHECK_INT(dra_suggest_distance("schedxle", "schedule"), 2);  /* a substitution */
    static const char *const w[] = {"schedule", "allocate", "diff", "schedule", NULL, "lint", "list"};
    char *s = dra_suggest("schedul", w, 7);
    CHECK_STR(s, "\"schedule\"");
    free(s);
    s = dra_suggest("lit", w, 7); /* ties in the candidates' order */
    CHECK_STR(s, "\"lint\" or \"list\"");
    free(s);
    CHECK(dra_suggest("frobnicate", w, 7) == NULL);
    CHECK(dra_suggest("diff", w, 7) == NULL);
}

UNIT_TEST(usage_errors_suggest_the_nearest)
{
    dra_args a;
    char *argv1[] = {"dra-test", "biuld", NULL};
    dra_err *e = parse(&a, argv1);
    CHECK_STR(e ? e->msg : "", "unknown command 'biuld'; did you mean \"build\"? (see 'dra-test --help')");
    dra_err_free(e);
    char *argv2[] = {"dra-test", "lint", "--outptu=json", NULL};
    e = parse(&a, argv2);
    CHECK_STR(e ? e->msg : "", "unknown option '--outptu'; did you mean \"--output\"? (see 'dra-test lint --help')");
    dra_err_free(e);
    char *argv3[] = {"dra-test", "lint", "--hepl", NULL};
    e = parse(&a, argv3);
    CHECK(e && strstr(e->msg, "did you mean \"--help\"?"));
    dra_err_free(e);
}

UNIT_TEST(records_of_errors_and_problems)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    dra_records r;
    CHECK(dra_records_start(&r, "jsonl", f) == NULL && dra_records_on(&r));
    dra_err *e = dra_err_field(
        dra_err_object(dra_err_at(dra_err_new(2, "bad \xff"), "-", 1, 3, 0), "ResourceClaim/ns/c"), "spec.x");
    e = dra_err_append(e, dra_err_object(dra_err_new(3, "gone"), "DeviceClass/x"));
    int rc = 0;
    dra_err *failed = dra_records_take(&r, e, &rc);
    CHECK(failed && failed->code == 3 && !failed->next && rc == 2);
    dra_err_free(failed);
    dra_problems l = DRA_PROBLEMS_INIT;
    dra_problem *p = dra_problems_add(&l);
    p->warning = true;
    p->msg = dra_xstrdup("m");
    p->scope = dra_xstrdup("d/p");
    CHECK(dra_records_problems(&r, &l) == NULL && dra_records_finish(&r) == NULL);
    dra_problems_free(&l);
    fclose(f);
    CHECK_STR(out, "{\"severity\":\"error\",\"file\":\"<stdin>\",\"line\":3,\"object\":{\"kind\":\"ResourceClaim\","
                   "\"namespace\":\"ns\",\"name\":\"c\"},\"field\":\"spec.x\",\"message\":\"bad \xef\xbf\xbd\"}\n"
                   "{\"severity\":\"warning\",\"file\":null,\"line\":null,\"object\":null,\"field\":null,"
                   "\"message\":\"m\",\"scope\":\"d/p\"}\n");
    free(out);
    e = dra_records_start(&r, "yaml", stdout);
    CHECK(e && e->code == DRA_EXIT_INPUT &&
          strcmp(e->msg, "unknown output format yaml (want text, json or jsonl)") == 0);
    dra_err_free(e);
}

static char *capture(void (*fn)(FILE *, const char *), const char *arg)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fn(f, arg);
    fclose(f);
    return out;
}

static void help_build(FILE *f, const char *unused)
{
    dra_cli_help(f, &tool, &cmds[0]);
}
static void help_tool(FILE *f, const char *unused)
{
    dra_cli_help(f, &tool, NULL);
}
static void completion(FILE *f, const char *shell)
{
    dra_err_free(dra_cli_completion(f, &tool, shell));
}

UNIT_TEST(help_and_completion)
{
    char *h = capture(help_build, NULL);
    CHECK(strstr(h, "Usage: dra-test build [OPTIONS] FILE...") != NULL);
    CHECK(strstr(h, "-d, --driver NAME") != NULL);
    CHECK(strstr(h, "--explain[=text|json]") != NULL);
    free(h);
    h = capture(help_tool, NULL);
    CHECK(strstr(h, "lint things") != NULL);
    free(h);
    h = capture(completion, "bash");
    CHECK(strstr(h, "complete -o filenames -F _dra_test dra-test") != NULL);
    CHECK(strstr(h, "--driver") != NULL);
    free(h);
    h = capture(completion, "zsh");
    CHECK(strstr(h, "#compdef dra-test") != NULL);
    free(h);
    h = capture(completion, "fish");
    CHECK(strstr(h, "complete -c dra-test -n '__fish_seen_subcommand_from build' -l driver -s d -x") != NULL);
    CHECK(strstr(h, "set -l __dra_test_cmds build lint") != NULL);
    CHECK(strstr(h, "$__dra_test_cmds") != NULL);
    free(h);
}

/* An option without help is parsed, but neither --help nor a completion
 * script names it. */
UNIT_TEST(hidden_option)
{
    char *argv[] = {"dra-test", "build", "--test-secret", "7", NULL};
    dra_args a;
    CHECK(parse(&a, argv) == NULL);
    CHECK_STR(dra_args_get(&a, OPT_TEST_SECRET), "7");
    dra_args_free(&a);
    char *h = capture(help_build, NULL);
    CHECK(strstr(h, "--driver") != NULL);
    CHECK(strstr(h, "secret") == NULL);
    free(h);
    const char *shells[] = {"bash", "zsh", "fish"};
    for (size_t i = 0; i < 3; i++) {
        h = capture(completion, shells[i]);
        CHECK(strstr(h, "--driver") != NULL || strstr(h, "-l driver") != NULL);
        CHECK(strstr(h, "secret") == NULL);
        free(h);
    }
}

/* Typed options: the value table writes into the tool's option struct. */
typedef struct topts {
    const char *driver;
    bool all;
    int explain_fmt;
    bool explain;
    dra_strv outputs;
} topts;

static const dra_optval tvals[] = {
    DRA_VAL_STRING(OPT_DRIVER, topts, driver),       DRA_VAL_BOOL(OPT_ALL, topts, all),
    DRA_VAL_BOOL(DRA_OPT_EXPLAIN, topts, explain),   DRA_VAL_ENUM(DRA_OPT_EXPLAIN, topts, explain_fmt, "format"),
    DRA_VAL_STRINGS(DRA_OPT_OUTPUT, topts, outputs), DRA_VAL_END,
};

UNIT_TEST(typed_values)
{
    char *argv[] = {"dra-test", "build", "-d", "x", "--all", "-o", "json", "--explain=json", "-oyaml", "-d", "y", NULL};
    dra_args a;
    CHECK(parse(&a, argv) == NULL);
    topts o = {0};
    CHECK(dra_args_apply(&a, tvals, &o) == NULL);
    CHECK_STR(o.driver, "y"); /* the last one */
    CHECK(o.all);
    CHECK(o.explain);
    CHECK_INT(o.explain_fmt, 1);
    CHECK_INT(o.outputs.n, 2);
    CHECK_STR(o.outputs.v[0], "json");
    CHECK_STR(o.outputs.v[1], "yaml");
    dra_args_free(&a);

    char *bare[] = {"dra-test", "lint", "--explain", NULL};
    topts p = {.explain_fmt = 7};
    CHECK(parse(&a, bare) == NULL);
    CHECK(dra_args_apply(&a, tvals, &p) == NULL);
    CHECK(p.explain && p.explain_fmt == 0 && p.outputs.n == 0 && !p.all);
    dra_args_free(&a);
}

/* A counted option: -v -v is 2, none is 0. */
UNIT_TEST(typed_count)
{
    typedef struct {
        int all;
    } copts;
    static const dra_optval cvals[] = {DRA_VAL_COUNT(OPT_ALL, copts, all), DRA_VAL_END};
    char *argv[] = {"dra-test", "build", "--all", "--all", "--all", NULL};
    dra_args a;
    CHECK(parse(&a, argv) == NULL);
    copts o = {0};
    CHECK(dra_args_apply(&a, cvals, &o) == NULL);
    CHECK_INT(o.all, 3);
    dra_args_free(&a);
    char *none[] = {"dra-test", "build", NULL};
    copts p = {0};
    CHECK(parse(&a, none) == NULL);
    CHECK(dra_args_apply(&a, cvals, &p) == NULL);
    CHECK_INT(p.all, 0);
    dra_args_free(&a);
}

UNIT_TEST(typed_value_errors_name_the_option)
{
    char *argv[] = {"dra-test", "build", "--explain=xml", NULL};
    dra_args a;
    CHECK(parse(&a, argv) == NULL);
    topts o = {0};
    dra_err *e = dra_args_apply(&a, tvals, &o);
    CHECK(e != NULL && e->code == DRA_EXIT_INPUT);
    char *s = e ? dra_err_format(e) : NULL;
    CHECK_STR(s, "--explain: unknown format xml (want text or json)");
    free(s);
    dra_err_free(e);
    dra_args_free(&a);

    typedef struct {
        long long n;
    } nopts;
    static const dra_optval nvals[] = {DRA_VAL_INT(OPT_DRIVER, nopts, n, 1, 9), DRA_VAL_END};
    char *bad[] = {"dra-test", "build", "--driver", "12", NULL};
    nopts n = {0};
    CHECK(parse(&a, bad) == NULL);
    e = dra_args_apply(&a, nvals, &n);
    s = e ? dra_err_format(e) : NULL;
    CHECK_STR(s, "--driver: must be an integer between 1 and 9, not '12'");
    free(s);
    dra_err_free(e);
    dra_args_free(&a);
}

/* ---- printing a flood of errors ---- */

static char *print_errs(const char *label, const dra_err *e)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    dra_tool_print_errs(f, "t", label, e);
    fclose(f);
    return out;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* A kind no other shares: letters, since digits and quoted text are not
 * part of a kind. */
static dra_err *kind_err(int i)
{
    char name[8];
    int k = 0;
    do
        name[k++] = (char)('a' + i % 26);
    while ((i /= 26) > 0 && k < 7);
    name[k] = 0;
    return dra_err_new(2, "problem %s", name);
}

/* Quoted names, numbers and indices do not make a new kind: ten of a kind
 * print, then how many more; another kind after them still prints. */
UNIT_TEST(flood_prints_ten_of_a_kind_then_a_count)
{
    dra_err *e = NULL;
    for (int i = 0; i < 25; i++) {
        e = dra_err_append(e, dra_err_new(2, "unknown field \"spec.x%d\"", i));
        if (i == 19)
            e = dra_err_append(e, dra_err_field(dra_err_new(2, "Invalid value: \"A\": bad"), "spec.a"));
    }
    char *out = print_errs(NULL, e);
    CHECK(strstr(out, "t: unknown field \"spec.x9\"\nt: ... and 15 more like the one above\n"
                      "t: spec.a: Invalid value: \"A\": bad\n") != NULL);
    CHECK(strstr(out, "spec.x10\"") == NULL);
    CHECK_INT(count_lines(out), 12);
    free(out);
    out = print_errs("warning", e);
    CHECK(strstr(out, "t: warning: ... and 15 more like the one above\n") != NULL);
    free(out);
    dra_err_free(e);
    /* 150 kinds of one error each: 100 print, then the count */
    e = NULL;
    for (int i = 0; i < 150; i++)
        e = dra_err_append(e, kind_err(i));
    out = print_errs(NULL, e);
    CHECK_INT(count_lines(out), 101);
    CHECK(strstr(out, "\nt: ... and 50 more errors\n") != NULL);
    free(out);
    dra_err_free(e);
}

/* A streaming run keeps ten of a kind (the last kept counts the rest) and a
 * hundred in all; kinds first seen after that are counted alone. */
UNIT_TEST(flood_gatherer_keeps_few_and_counts_the_rest)
{
    dra_tool_errs c = {0};
    for (int i = 0; i < 1000; i++) {
        dra_tool_errs_add(&c, dra_err_new(2, "duplicate \"d%d\"", i));
        if (i % 300 == 0)
            dra_tool_errs_add(&c, dra_err_new(2, "other"));
    }
    CHECK_INT(c.errs.n, 14);
    CHECK_INT(c.errs.dropped, 0);
    dra_err *e = dra_errs_take(&c.errs);
    size_t more = 0;
    for (dra_err *x = e; x; x = x->next)
        more += x->more;
    CHECK_INT(more, 990);
    char *out = print_errs(NULL, e);
    CHECK(strstr(out, "t: duplicate \"d9\"\nt: ... and 990 more like the one above\n") != NULL);
    CHECK_INT(count_lines(out), 15);
    free(out);
    dra_err_free(e);
    dra_tool_errs d = {0};
    for (int i = 0; i < 150; i++)
        dra_tool_errs_add(&d, kind_err(i));
    CHECK_INT(d.errs.n, 100);
    CHECK_INT(d.errs.dropped, 50);
    dra_errs_free(&d.errs);
}

UNIT_MAIN()
