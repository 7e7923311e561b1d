/* Differential test of the project's CEL engine against @bufbuild/cel.
 *
 * tests/cel-diff/cases.jsonl holds random, well-typed expressions with the
 * result @bufbuild/cel computed for them (tests/cel-diff/gen.mjs), one case a
 * line: {"id":N,"expr":"...","want":"<CEL literal>" | "error"}.  Each case is
 * compiled (parse + check) and evaluated through cel.h with the standard
 * library and the strings extension, the libraries both engines have; the
 * expected literal is compiled and evaluated the same way and the two values
 * are compared: same kind (1 is not 1u), doubles with NaN equal to NaN,
 * lists in order, maps by key set, type values by name.  An expected "error"
 * passes on any evaluation error.  A compile error always fails: the
 * generator writes only well-typed expressions.
 *
 * The data is found via $DRA_CEL_DIFF, else tests/cel-diff/cases.jsonl from
 * the current directory, else by walking up from the executable.  Next to it:
 *   pinned.jsonl        hand-written cases (ids from 900001) whose expected
 *                       value is cel-go's where @bufbuild/cel deviates, so
 *                       engine bugs found there stay covered (optional)
 *   skip.txt            ids not run (where @bufbuild/cel deviates from cel-go)
 *   known-failures.txt  ids that fail today (engine bugs, reported to the
 *                       CEL maintainer); a listed case that passes is
 *                       reported as stale.
 * Both: one "ID reason..." a line, '#' comments.  DRA_CEL_DIFF_STRICT=1 runs
 * the known failures as ordinary cases.
 *
 * Last line: "N passed, N failed, N skipped" (skipped = skip.txt + known
 * failures); exit 1 when anything failed.
 */
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"
#include "cel/cel.h"
#include "testdata.h"

#define DATA_REL "tests/cel-diff/cases.jsonl"
#define DIFF_LIBS (CEL_LIB_STD | CEL_LIB_STRINGS)
#define MAX_ID 1000000

/* ---- id lists ------------------------------------------------------------ */

typedef struct id_list {
    unsigned char *mark; /* mark[id]: 1 listed, 2 listed and seen */
    int n;
} id_list;

static bool load_ids(id_list *l, const char *path)
{
    l->mark = dra_xcalloc(MAX_ID + 1, 1);
    FILE *f = fopen(path, "r");
    if (!f)
        return true; /* an absent list is an empty list */
    char line[4096];
    int lineno = 0;
    bool ok = true;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            continue;
        char *end;
        long id = strtol(s, &end, 10);
        if (end == s || id <= 0 || id > MAX_ID) {
            fprintf(stderr, "%s:%d: expected a case id\n", path, lineno);
            ok = false;
            continue;
        }
        l->mark[id] = 1;
        l->n++;
    }
    fclose(f);
    return ok;
}

/* ---- value comparison ---------------------------------------------------- */

/* Strict equality: kinds must match (unlike CEL ==, where 1 == 1u). */
static bool same_value(const cel_value *a, const cel_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_NULL: return true;
    case CEL_BOOL: return a->v.b == b->v.b;
    case CEL_INT: return a->v.i == b->v.i;
    case CEL_UINT: return a->v.u == b->v.u;
    case CEL_DOUBLE: return (isnan(a->v.d) && isnan(b->v.d)) || a->v.d == b->v.d;
    case CEL_STRING:
    case CEL_BYTES: return a->v.s.len == b->v.s.len && (a->v.s.len == 0 || !memcmp(a->v.s.ptr, b->v.s.ptr, a->v.s.len));
    case CEL_LIST:
        if (a->v.list->n != b->v.list->n)
            return false;
        for (size_t i = 0; i < a->v.list->n; i++)
            if (!same_value(&cel_list_items(a->v.list)[i], &cel_list_items(b->v.list)[i]))
                return false;
        return true;
    case CEL_MAP:
        if (a->v.map->n != b->v.map->n)
            return false;
        for (size_t i = 0; i < a->v.map->n; i++) {
            size_t j = 0;
            while (j < b->v.map->n && !same_value(&a->v.map->keys[i], &b->v.map->keys[j]))
                j++;
            if (j == b->v.map->n || !same_value(&a->v.map->vals[i], &b->v.map->vals[j]))
                return false;
        }
        return true;
    case CEL_TYPE: return !strcmp(cel_type_runtime_name(a->v.type), cel_type_runtime_name(b->v.type));
    default: return false; /* the generator writes no other kinds */
    }
}

static char *value_text(const cel_value *v)
{
    dra_buf b = DRA_BUF_INIT;
    cel_value_format(v, &b);
    return dra_buf_detach(&b);
}

/* ---- one case ------------------------------------------------------------ */

typedef enum { CASE_PASS, CASE_FAIL } outcome;

/* Runs one case; on failure *why is a heap string describing it. */
static outcome run_case(cel_env *env, const char *expr, const char *want, char **why)
{
    cel_program *prog = NULL, *want_prog = NULL;
    outcome o = CASE_FAIL;
    dra_err *e = cel_compile(env, expr, strlen(expr), NULL, &prog);
    if (e) {
        *why = dra_xasprintf("compile error: %s", e->msg);
        dra_err_free(e);
        return CASE_FAIL;
    }
    cel_value got = cel_eval(prog, NULL, NULL);
    if (!strcmp(want, "error")) {
        if (got.kind == CEL_ERROR) {
            o = CASE_PASS;
        } else {
            char *g = value_text(&got);
            *why = dra_xasprintf("want an error, got %s", g);
            free(g);
        }
        goto out;
    }
    e = cel_compile(env, want, strlen(want), NULL, &want_prog);
    if (e) {
        *why = dra_xasprintf("expected literal does not compile: %s", e->msg);
        dra_err_free(e);
        goto out;
    }
    cel_value expect = cel_eval(want_prog, NULL, NULL);
    if (expect.kind == CEL_ERROR) {
        *why = dra_xasprintf("expected literal does not evaluate: %s", expect.v.err);
    } else if (got.kind == CEL_ERROR) {
        *why = dra_xasprintf("got error \"%s\"", got.v.err);
    } else if (same_value(&got, &expect)) {
        o = CASE_PASS;
    } else {
        char *g = value_text(&got);
        *why = dra_xasprintf("got %s", g);
        free(g);
    }
out:
    cel_program_free(want_prog);
    cel_program_free(prog);
    return o;
}

/* ---- data location ------------------------------------------------------- */

static char *sibling(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dra_xstrdup(name);
    return dra_xasprintf("%.*s/%s", (int)(slash - path), path, name);
}

typedef struct tally {
    int passed, failed, skipped, known_failed, bad_lines;
} tally;

static void run_file(cel_env *env, FILE *f, id_list *skips, id_list *known, bool strict, tally *t)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (len <= 1)
            continue;
        json_error_t jerr;
        json_t *tc = json_loadb(line, (size_t)len, 0, &jerr);
        json_int_t id = tc ? json_integer_value(json_object_get(tc, "id")) : 0;
        const char *expr = tc ? json_string_value(json_object_get(tc, "expr")) : NULL;
        const char *want = tc ? json_string_value(json_object_get(tc, "want")) : NULL;
        if (!expr || !want || id <= 0 || id > MAX_ID) {
            fprintf(stderr, "test_cel_diff: bad line: %.80s\n", line);
            t->bad_lines++;
            json_decref(tc);
            continue;
        }
        if (skips->mark[id]) {
            skips->mark[id] = 2;
            t->skipped++;
            json_decref(tc);
            continue;
        }
        char *why = NULL;
        outcome o = run_case(env, expr, want, &why);
        bool is_known = known->mark[id] != 0;
        if (is_known)
            known->mark[id] = o == CASE_FAIL ? 2 : 3;
        if (o == CASE_PASS) {
            t->passed++;
        } else if (is_known && !strict) {
            t->known_failed++;
        } else {
            t->failed++;
            printf("FAIL %lld: %s\n  want %s; %s\n", (long long)id, expr, want, why ? why : "");
        }
        free(why);
        json_decref(tc);
    }
    free(line);
}

int main(void)
{
    char *data = unit_data_path("DRA_CEL_DIFF", DATA_REL);
    if (!data) {
        fprintf(stderr, "test_cel_diff: cannot find %s (set DRA_CEL_DIFF)\n", DATA_REL);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    FILE *f = fopen(data, "r");
    if (!f) {
        fprintf(stderr, "test_cel_diff: cannot open %s\n", data);
        printf("0 passed, 1 failed\n");
        free(data);
        return 1;
    }
    char *skip_path = sibling(data, "skip.txt"), *known_path = sibling(data, "known-failures.txt");
    id_list skips = {0}, known = {0};
    bool lists_ok = load_ids(&skips, skip_path) & load_ids(&known, known_path);
    const char *strict_env = getenv("DRA_CEL_DIFF_STRICT");
    bool strict = strict_env && *strict_env && strcmp(strict_env, "0") != 0;

    cel_env *env = cel_env_new(DIFF_LIBS);
    tally t = {0};
    run_file(env, f, &skips, &known, strict, &t);
    fclose(f);
    char *pinned_path = sibling(data, "pinned.jsonl");
    FILE *pf = fopen(pinned_path, "r");
    if (pf) {
        run_file(env, pf, &skips, &known, strict, &t);
        fclose(pf);
    }
    free(pinned_path);
    int passed = t.passed, failed = t.failed, skipped = t.skipped, known_failed = t.known_failed,
        bad_lines = t.bad_lines;

    for (int id = 1; id <= MAX_ID; id++) {
        if (known.mark[id] == 3)
            printf("# stale: %s lists %d but it passes now\n", known_path, id);
        else if (known.mark[id] == 1)
            printf("# stale: %s lists %d but no such case ran\n", known_path, id);
        if (skips.mark[id] == 1)
            printf("# stale: %s lists %d but there is no such case\n", skip_path, id);
    }
    if (!lists_ok || bad_lines) {
        printf("# malformed list entries or %d bad data lines\n", bad_lines);
        failed++;
    }
    printf("# %s: %d cases; skipped %d by skip.txt, %d known failures%s\n", data,
           passed + failed + skipped + known_failed - (!lists_ok || bad_lines), skipped, known_failed,
           strict ? " (strict: counted as failed)" : "");
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped + known_failed);

    cel_env_free(env);
    free(skips.mark);
    free(known.mark);
    free(skip_path);
    free(known_path);
    free(data);
    return failed ? 1 : 0;
}
