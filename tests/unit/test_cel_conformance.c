/* The CEL conformance suite (google/cel-spec "simple" tests, as shipped in the
 * npm package @bufbuild/cel-spec) run against the project's CEL engine.
 *
 * Data: tests/cel-conformance/simple-tests.jsonl, produced by
 * tests/cel-conformance/regen.sh (see the README there for the line format).
 * The file is found via $DRA_CEL_CONFORMANCE, else relative to the current
 * directory, else by walking up from this binary's own location (so both
 * `make check` from the repo root and a direct run from anywhere work).
 *
 * Next to the data file:
 *   skip.txt            cases not run at all (protobuf messages, ...)
 *   known-failures.txt  cases that run but are known to fail today
 * Each line: `file`, `file/section` or `file/section/test name`, then " -- "
 * and a one-line justification.  '#' starts a comment line.
 *
 * Per case: declare the variables, compile (with the checker unless
 * disable_check), evaluate with the bindings, and compare the result with the
 * expected value (exact kind match, NaN equals NaN, maps by key set, as
 * cel-spec's runner compares cel.expr.Value protos), or expect any evaluation
 * error, or compare the deduced type.
 *
 * Output: one line per section with counts, the failures (with
 * DRA_CEL_VERBOSE=1 also the known failures), the sections skipped entirely,
 * and a last line "N passed, N failed, N skipped".  Known failures count as
 * skipped there (with a breakdown line just before) unless DRA_CEL_STRICT=1,
 * which counts them as failed.  DRA_CEL_FILTER=text runs only the cases whose
 * "file/section/name" contains text; DRA_CEL_LIST=1 prints every case run
 * with its outcome.  Each case runs in its own child process (a crash or a
 * 20 s hang fails that case only); DRA_CEL_FORK=0 runs them in-process, for
 * debuggers and LeakSanitizer.  Exit status 0 when nothing failed.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "cel/cel.h"
#include "cel/types.h"
#include "cel/value.h"
#include "testdata.h"

#define DATA_REL "tests/cel-conformance/simple-tests.jsonl"

/* ------------------------------------------------------------------------ */
/* Skip and known-failure lists                                               */

typedef struct pattern {
    char *text; /* "file", "file/section" or "file/section/test name" */
    char *reason;
    int line;
    int hits; /* cases matched during this run */
} pattern;

typedef struct pattern_list {
    const char *path;
    pattern *v;
    size_t n;
} pattern_list;

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

/* A missing file is an empty list; a line without a justification is an error. */
static bool load_patterns(pattern_list *pl, const char *path)
{
    pl->path = path;
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    bool ok = true;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *sep = strstr(s, " -- ");
        if (!sep || !*trim(sep + 4)) {
            fprintf(stderr, "%s:%d: entry needs \" -- justification\"\n", path, lineno);
            ok = false;
            continue;
        }
        *sep = 0;
        pl->v = dra_xrealloc(pl->v, (pl->n + 1) * sizeof *pl->v);
        pl->v[pl->n++] = (pattern){dra_xstrdup(trim(s)), dra_xstrdup(trim(sep + 4)), lineno, 0};
    }
    free(line);
    fclose(f);
    return ok;
}

static void free_patterns(pattern_list *pl)
{
    for (size_t i = 0; i < pl->n; i++) {
        free(pl->v[i].text);
        free(pl->v[i].reason);
    }
    free(pl->v);
}

/* The most specific pattern matching the case, or NULL. */
static pattern *match_pattern(pattern_list *pl, const char *file, const char *section, const char *name)
{
    char *fs = dra_xasprintf("%s/%s", file, section);
    char *fsn = dra_xasprintf("%s/%s/%s", file, section, name);
    pattern *best = NULL;
    int best_rank = 0;
    for (size_t i = 0; i < pl->n; i++) {
        int rank = !strcmp(pl->v[i].text, fsn)    ? 3
                   : !strcmp(pl->v[i].text, fs)   ? 2
                   : !strcmp(pl->v[i].text, file) ? 1
                                                  : 0;
        if (rank > best_rank) {
            best = &pl->v[i];
            best_rank = rank;
        }
    }
    free(fs);
    free(fsn);
    return best;
}

/* ------------------------------------------------------------------------ */
/* Types written in CEL notation ("list(int)", "map(string, dyn)")           */

typedef struct type_parser {
    const char *p;
    dra_arena *arena;
    const char *unsupported; /* set when a type needs protobuf support */
} type_parser;

static const cel_type *parse_type(type_parser *tp);

static const cel_type *parse_type_args(type_parser *tp, const cel_type **args, unsigned max, unsigned *n)
{
    *n = 0;
    if (*tp->p != '(')
        return &cel_t_dyn;
    tp->p++;
    for (;;) {
        while (*tp->p == ' ')
            tp->p++;
        const cel_type *t = parse_type(tp);
        if (!t)
            return NULL;
        if (*n < max)
            args[*n] = t;
        (*n)++;
        while (*tp->p == ' ')
            tp->p++;
        if (*tp->p == ',') {
            tp->p++;
            continue;
        }
        if (*tp->p == ')') {
            tp->p++;
            return &cel_t_dyn;
        }
        return NULL;
    }
}

/* NULL on malformed text or (with tp->unsupported set) a protobuf-only type. */
static const cel_type *parse_type(type_parser *tp)
{
    const char *start = tp->p;
    while (isalnum((unsigned char)*tp->p) || *tp->p == '_' || *tp->p == '.')
        tp->p++;
    char *name = dra_arena_strndup(tp->arena, start, (size_t)(tp->p - start));
    const cel_type *args[2] = {0};
    unsigned nargs = 0;
    if (!parse_type_args(tp, args, 2, &nargs))
        return NULL;
    if (!strcmp(name, "list") && nargs == 1)
        return cel_type_list(tp->arena, args[0]);
    if (!strcmp(name, "map") && nargs == 2)
        return cel_type_map(tp->arena, args[0], args[1]);
    if (!strcmp(name, "type") && nargs == 1)
        return cel_type_type(tp->arena, args[0]);
    if (!strcmp(name, "optional_type") && nargs == 1)
        return cel_type_optional(tp->arena, args[0]);
    if (nargs) {
        tp->unsupported = dra_arena_printf(tp->arena, "type %s(...) needs protobuf support", name);
        return NULL;
    }
    /* JSON message types are plain CEL values. */
    if (!strcmp(name, "google.protobuf.Value"))
        return &cel_t_dyn;
    if (!strcmp(name, "google.protobuf.Struct"))
        return &cel_t_map_string_dyn;
    if (!strcmp(name, "google.protobuf.ListValue"))
        return &cel_t_list_dyn;
    const cel_type *t = cel_type_by_name(name); /* bare "list" and "map" too */
    if (t)
        return t;
    if (!strcmp(name, "dyn"))
        return &cel_t_dyn;
    tp->unsupported = dra_arena_printf(tp->arena, "type %s needs protobuf support", name);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Tagged JSON values (see convert.mjs) <-> cel_value                        */

static int b64_digit(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Standard or URL-safe base64, padding optional. */
static bool b64_decode(dra_arena *a, const char *s, char **out, size_t *outlen)
{
    size_t n = strlen(s);
    char *o = dra_arena_alloc(a, n * 3 / 4 + 3);
    size_t len = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=')
            break;
        int d = b64_digit((unsigned char)s[i]);
        if (d < 0)
            return false;
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[len++] = (char)((acc >> bits) & 0xff);
        }
    }
    *out = o;
    *outlen = len;
    return true;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* Nanosecond fraction ".123" after p; advances p. */
static int32_t parse_frac(const char **p)
{
    int32_t ns = 0;
    int digits = 0;
    if (**p != '.')
        return 0;
    (*p)++;
    while (isdigit((unsigned char)**p)) {
        if (digits < 9) {
            ns = ns * 10 + (**p - '0');
            digits++;
        }
        (*p)++;
    }
    while (digits++ < 9)
        ns *= 10;
    return ns;
}

/* RFC 3339 as protobuf JSON writes Timestamps ("...Z" or "+hh:mm"). */
static bool parse_timestamp(const char *s, int64_t *sec, int32_t *nsec)
{
    int y, mo, d, h, mi, se, n = 0;
    if (sscanf(s, "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6)
        return false;
    const char *p = s + n;
    *nsec = parse_frac(&p);
    int64_t off = 0;
    if (*p == '+' || *p == '-') {
        int oh, om;
        if (sscanf(p + 1, "%d:%d", &oh, &om) != 2)
            return false;
        off = (*p == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    } else if (*p != 'Z') {
        return false;
    }
    *sec = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se - off;
    return true;
}

/* Protobuf JSON Duration: "-1.5s". */
static bool parse_duration(const char *s, int64_t *sec, int32_t *nsec)
{
    bool neg = *s == '-';
    const char *p = s + neg;
    char *end;
    errno = 0;
    long long whole = strtoll(p, &end, 10);
    if (end == p || errno)
        return false;
    p = end;
    int32_t frac = parse_frac(&p);
    if (strcmp(p, "s") != 0)
        return false;
    *sec = neg ? -whole : whole;
    *nsec = neg ? -frac : frac;
    return true;
}

static bool parse_double(json_t *j, double *out)
{
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return true;
    }
    const char *s = json_string_value(j);
    if (!s)
        return false;
    if (!strcmp(s, "NaN")) {
        *out = NAN;
        return true;
    }
    if (!strcmp(s, "Infinity")) {
        *out = INFINITY;
        return true;
    }
    if (!strcmp(s, "-Infinity")) {
        *out = -INFINITY;
        return true;
    }
    char *end;
    errno = 0;
    *out = strtod(s, &end); /* "-0" included */
    return end != s && !*end;
}

/* The single key of a tagged value, and its payload. */
static const char *tag_of(json_t *v, json_t **payload)
{
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
        *payload = val;
        return key;
    }
    *payload = NULL;
    return "";
}

/* Build the value in `a`.  Returns NULL on success, else why it cannot be built. */
static const char *decode_value(dra_arena *a, json_t *j, cel_value *out)
{
    json_t *p;
    const char *tag = tag_of(j, &p);
    if (!strcmp(tag, "null")) {
        *out = cel_null();
    } else if (!strcmp(tag, "bool")) {
        *out = cel_bool(json_is_true(p));
    } else if (!strcmp(tag, "int")) {
        *out = cel_int(strtoll(json_string_value(p), NULL, 10));
    } else if (!strcmp(tag, "uint")) {
        *out = cel_uint(strtoull(json_string_value(p), NULL, 10));
    } else if (!strcmp(tag, "double")) {
        double d;
        if (!parse_double(p, &d))
            return "bad double";
        *out = cel_double(d);
    } else if (!strcmp(tag, "string")) {
        size_t n = json_string_length(p);
        *out = cel_string(dra_arena_strndup(a, json_string_value(p), n), n);
    } else if (!strcmp(tag, "bytes")) {
        char *b;
        size_t n;
        if (!b64_decode(a, json_string_value(p), &b, &n))
            return "bad base64";
        *out = cel_bytes(b, n);
    } else if (!strcmp(tag, "list")) {
        size_t n = json_array_size(p);
        cel_value *items = dra_arena_zalloc(a, (n ? n : 1) * sizeof *items);
        for (size_t i = 0; i < n; i++) {
            const char *why = decode_value(a, json_array_get(p, i), &items[i]);
            if (why)
                return why;
        }
        *out = cel_list_copy_a(a, items, n);
    } else if (!strcmp(tag, "map")) {
        size_t n = json_array_size(p);
        cel_value *keys = dra_arena_zalloc(a, (n ? n : 1) * sizeof *keys);
        cel_value *vals = dra_arena_zalloc(a, (n ? n : 1) * sizeof *vals);
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(p, i);
            const char *why = decode_value(a, json_array_get(e, 0), &keys[i]);
            if (!why)
                why = decode_value(a, json_array_get(e, 1), &vals[i]);
            if (why)
                return why;
        }
        *out = cel_map_build_a(a, keys, vals, n, 0);
    } else if (!strcmp(tag, "type")) {
        type_parser tp = {json_string_value(p), a, NULL};
        const cel_type *t = parse_type(&tp);
        if (!t)
            return tp.unsupported ? tp.unsupported : "bad type";
        *out = cel_typeval(t);
    } else if (!strcmp(tag, "timestamp")) {
        int64_t s;
        int32_t ns;
        if (!parse_timestamp(json_string_value(p), &s, &ns))
            return "bad timestamp";
        *out = cel_timestamp(s, ns);
    } else if (!strcmp(tag, "duration")) {
        int64_t s;
        int32_t ns;
        if (!parse_duration(json_string_value(p), &s, &ns))
            return "bad duration";
        *out = cel_duration(s, ns);
    } else if (!strcmp(tag, "enum")) {
        /* Legacy (int) enums, as cel-go's default. */
        *out = cel_int((int64_t)json_integer_value(json_object_get(p, "value")));
    } else if (!strcmp(tag, "message")) {
        return dra_arena_printf(a, "protobuf message %s", json_string_value(json_object_get(p, "type")));
    } else if (!strcmp(tag, "error")) {
        *out = cel_error(dra_arena_strdup(a, json_string_value(p)));
    } else {
        return dra_arena_printf(a, "unsupported value tag '%s'", tag);
    }
    return NULL;
}

static const char *kind_name(cel_kind k)
{
    switch (k) {
    case CEL_NULL: return "null";
    case CEL_BOOL: return "bool";
    case CEL_INT: return "int";
    case CEL_UINT: return "uint";
    case CEL_DOUBLE: return "double";
    case CEL_STRING: return "string";
    case CEL_BYTES: return "bytes";
    case CEL_LIST: return "list";
    case CEL_MAP: return "map";
    case CEL_TYPE: return "type";
    case CEL_OPTIONAL: return "optional";
    case CEL_TIMESTAMP: return "timestamp";
    case CEL_DURATION: return "duration";
    case CEL_ERROR: return "error";
    case CEL_OBJECT: return "object";
    }
    return "?";
}

/* Exact equality as cel-spec's runner compares cel.expr.Value protos: same
 * kind, doubles with NaN == NaN (and -0 == 0), lists in order, maps by keys
 * (of the same kind), type values by runtime name. */
static bool same_value(const cel_value *want, const cel_value *got)
{
    if (want->kind != got->kind)
        return false;
    switch (want->kind) {
    case CEL_NULL: return true;
    case CEL_BOOL: return want->v.b == got->v.b;
    case CEL_INT: return want->v.i == got->v.i;
    case CEL_UINT: return want->v.u == got->v.u;
    case CEL_DOUBLE:
        if (isnan(want->v.d) || isnan(got->v.d))
            return isnan(want->v.d) && isnan(got->v.d);
        return want->v.d == got->v.d;
    case CEL_STRING:
    case CEL_BYTES:
        return want->v.s.len == got->v.s.len &&
               (want->v.s.len == 0 || !memcmp(want->v.s.ptr, got->v.s.ptr, want->v.s.len));
    case CEL_LIST:
        if (want->v.list->n != got->v.list->n)
            return false;
        for (size_t i = 0; i < want->v.list->n; i++)
            if (!same_value(&cel_list_items(want->v.list)[i], &cel_list_items(got->v.list)[i]))
                return false;
        return true;
    case CEL_MAP:
        if (want->v.map->n != got->v.map->n)
            return false;
        for (size_t i = 0; i < want->v.map->n; i++) {
            size_t k = 0;
            while (k < got->v.map->n && !same_value(&want->v.map->keys[i], &got->v.map->keys[k]))
                k++;
            if (k == got->v.map->n || !same_value(&want->v.map->vals[i], &got->v.map->vals[k]))
                return false;
        }
        return true;
    case CEL_TYPE: return !strcmp(cel_type_runtime_name(want->v.type), cel_type_runtime_name(got->v.type));
    case CEL_OPTIONAL:
        if (!want->v.opt || !got->v.opt)
            return !want->v.opt && !got->v.opt;
        return same_value(want->v.opt, got->v.opt);
    case CEL_TIMESTAMP:
    case CEL_DURATION: return want->v.t.sec == got->v.t.sec && want->v.t.nsec == got->v.t.nsec;
    case CEL_ERROR: return true;
    case CEL_OBJECT: return cel_value_equal(want, got);
    }
    return false;
}

static const char *show_value(dra_arena *a, const cel_value *v)
{
    if (v->kind < CEL_NULL || v->kind > CEL_OBJECT)
        return dra_arena_printf(a, "<bad kind %d>", (int)v->kind);
    dra_buf b = DRA_BUF_INIT;
    cel_value_format(v, &b);
    const char *s = dra_arena_printf(a, "%s (%s)", dra_buf_str(&b), kind_name(v->kind));
    dra_buf_free(&b);
    return s;
}

/* ------------------------------------------------------------------------ */
/* One case                                                                   */

typedef enum { OUT_PASS, OUT_FAIL } outcome;

typedef struct test_case {
    json_t *j;
    const char *file, *section, *name, *expr, *container, *expect;
    size_t expr_len; /* expressions may contain NUL bytes (inside literals) */
    bool disable_check, check_only;
} test_case;

/* Cases that need what the engine lacks (protobuf types, declared functions)
 * still run when not skipped: they fail with a clear reason.
 *
 * Libraries: those of cel-go's conformance runner (conformance_test.go) that
 * the engine has: standard, strings, math, optionals, lists, sets, encoders. */
/* clang-format off */
#define CONFORMANCE_LIBS (CEL_LIB_STD | CEL_LIB_STRINGS | CEL_LIB_STRINGS_V3 | CEL_LIB_MATH | \
                          CEL_LIB_OPTIONAL | CEL_LIB_LISTS | CEL_LIB_SETS | CEL_LIB_ENCODERS)
/* clang-format on */

static const char *first_error(dra_arena *a, const dra_err *e)
{
    const char *msg = e ? e->msg : "(no message)";
    const char *nl = strchr(msg, '\n');
    return nl ? dra_arena_strndup(a, msg, (size_t)(nl - msg)) : dra_arena_strdup(a, msg);
}

static outcome run_compiled(const test_case *tc, cel_program *prog, dra_arena *a, const char **why)
{
    json_t *want_type = json_object_get(tc->j, "type");
    if (want_type && !tc->disable_check) {
        const char *got = cel_program_result_type_str(prog);
        if (!got || strcmp(got, json_string_value(want_type)) != 0) {
            *why = dra_arena_printf(a, "deduced type %s, want %s", got ? got : "(null)", json_string_value(want_type));
            return OUT_FAIL;
        }
    }
    if (tc->check_only || !strcmp(tc->expect, "type") || !strcmp(tc->expect, "none"))
        return OUT_PASS;
    if (!strcmp(tc->expect, "unknown")) {
        *why = "unknown results are not supported by the runner";
        return OUT_FAIL;
    }

    cel_activation act = CEL_ACTIVATION_INIT;
    const char *key;
    json_t *val;
    json_object_foreach(json_object_get(tc->j, "bindings"), key, val) {
        cel_value v;
        const char *bad = decode_value(a, val, &v);
        if (bad) {
            *why = dra_arena_printf(a, "binding %s: %s", key, bad);
            return OUT_FAIL;
        }
        if (!cel_activation_bind(&act, key, v)) {
            *why = "too many bindings";
            return OUT_FAIL;
        }
    }
    cel_value got = cel_eval(prog, &act, NULL);

    if (!strcmp(tc->expect, "error")) {
        if (got.kind == CEL_ERROR)
            return OUT_PASS;
        *why = dra_arena_printf(a, "got %s, want an error (%s)", show_value(a, &got),
                                json_string_value(json_array_get(json_object_get(tc->j, "errors"), 0)));
        return OUT_FAIL;
    }
    cel_value want;
    const char *bad = decode_value(a, json_object_get(tc->j, "value"), &want);
    if (bad) {
        *why = dra_arena_printf(a, "expected value: %s", bad);
        return OUT_FAIL;
    }
    if (got.kind == CEL_ERROR) {
        *why =
            dra_arena_printf(a, "evaluation error \"%s\", want %s", got.v.err ? got.v.err : "", show_value(a, &want));
        return OUT_FAIL;
    }
    if (!same_value(&want, &got)) {
        *why = dra_arena_printf(a, "got %s, want %s", show_value(a, &got), show_value(a, &want));
        return OUT_FAIL;
    }
    return OUT_PASS;
}

static outcome run_case_inline(const test_case *tc, dra_arena *a, const char **why)
{
    if (json_array_size(json_object_get(tc->j, "func_decls"))) {
        *why = "declares functions (not supported by the engine's API)";
        return OUT_FAIL;
    }
    cel_env *env = cel_env_new(CONFORMANCE_LIBS);
    if (*tc->container)
        cel_env_set_container(env, tc->container);
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(tc->j, "decls"), i, d) {
        const char *text = json_string_value(json_object_get(d, "type"));
        type_parser tp = {text ? text : "", cel_env_arena(env), NULL};
        const cel_type *t = parse_type(&tp);
        if (!t || *tp.p) {
            *why = tp.unsupported ? dra_arena_strdup(a, tp.unsupported)
                                  : dra_arena_printf(a, "cannot read declared type '%s'", text);
            cel_env_free(env);
            return OUT_FAIL;
        }
        cel_env_declare(env, json_string_value(json_object_get(d, "name")), t);
    }
    cel_compile_options opts = {.skip_check = tc->disable_check};
    cel_program *prog = NULL;
    dra_err *err = cel_compile(env, tc->expr, tc->expr_len, &opts, &prog);
    outcome o;
    if (err) {
        *why = dra_arena_printf(a, "%s error: %s", tc->disable_check ? "parse" : "compile", first_error(a, err));
        dra_err_free(err);
        o = OUT_FAIL;
    } else {
        o = run_compiled(tc, prog, a, why);
        cel_program_free(prog);
    }
    cel_env_free(env);
    return o;
}

/* Each case runs in a child process (unless DRA_CEL_FORK=0) so that a crash
 * or a hang in the engine fails that case, not the whole suite. */

static outcome run_case(const test_case *tc, dra_arena *a, const char **why)
{
    const char *fork_env = getenv("DRA_CEL_FORK");
    if (fork_env && !strcmp(fork_env, "0"))
        return run_case_inline(tc, a, why);
    int fds[2];
    if (pipe(fds) != 0)
        return run_case_inline(tc, a, why);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return run_case_inline(tc, a, why);
    }
    if (pid == 0) {
        close(fds[0]);
        alarm(20);
        const char *msg = "";
        outcome o = run_case_inline(tc, a, &msg);
        dra_buf b = DRA_BUF_INIT;
        dra_buf_putc(&b, (char)('0' + o));
        dra_buf_puts(&b, msg ? msg : "");
        size_t off = 0;
        while (off < b.len) {
            ssize_t w = write(fds[1], b.data + off, b.len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    dra_buf b = DRA_BUF_INIT;
    char chunk[4096];
    ssize_t r;
    while ((r = read(fds[0], chunk, sizeof chunk)) > 0)
        dra_buf_append(&b, chunk, (size_t)r);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    outcome o;
    if (WIFSIGNALED(status)) {
        *why = dra_arena_printf(a, "CRASH: %s",
                                WTERMSIG(status) == SIGALRM ? "timeout (20 s)" : strsignal(WTERMSIG(status)));
        o = OUT_FAIL;
    } else if (b.len == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        *why = dra_arena_printf(a, "CRASH: child exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        o = OUT_FAIL;
    } else {
        o = (outcome)(b.data[0] - '0');
        *why = dra_arena_strdup(a, b.data + 1);
    }
    dra_buf_free(&b);
    return o;
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                     */

typedef struct section_stats {
    char *file, *section;
    int passed, failed, known, skipped, total;
} section_stats;

/* Expression text for the report: control bytes escaped, one line. */
static const char *show_expr(dra_arena *a, const char *p, size_t n)
{
    dra_buf b = DRA_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\n')
            dra_buf_puts(&b, "\\n");
        else if (c < 0x20 || c == 0x7f)
            dra_buf_printf(&b, "\\x%02x", c);
        else
            dra_buf_putc(&b, (char)c);
    }
    const char *s = dra_arena_strdup(a, dra_buf_str(&b));
    dra_buf_free(&b);
    return s;
}

static char *sibling(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dra_xstrdup(name);
    return dra_xasprintf("%.*s/%s", (int)(slash - path), path, name);
}

static const char *str_field(json_t *j, const char *key)
{
    const char *s = json_string_value(json_object_get(j, key));
    return s ? s : "";
}

int main(void)
{
    char *data = unit_data_path("DRA_CEL_CONFORMANCE", DATA_REL);
    if (!data) {
        fprintf(stderr, "test_cel_conformance: cannot find %s (set DRA_CEL_CONFORMANCE)\n", DATA_REL);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    FILE *f = fopen(data, "r");
    if (!f) {
        fprintf(stderr, "test_cel_conformance: %s: %s\n", data, strerror(errno));
        printf("0 passed, 1 failed\n");
        return 1;
    }
    char *skip_path = sibling(data, "skip.txt");
    char *known_path = sibling(data, "known-failures.txt");
    pattern_list skips = {0}, known = {0};
    bool lists_ok = load_patterns(&skips, skip_path);
    lists_ok &= load_patterns(&known, known_path);

    const char *filter = getenv("DRA_CEL_FILTER");
    bool verbose = getenv("DRA_CEL_VERBOSE") && *getenv("DRA_CEL_VERBOSE") && strcmp(getenv("DRA_CEL_VERBOSE"), "0");
    bool strict = getenv("DRA_CEL_STRICT") && !strcmp(getenv("DRA_CEL_STRICT"), "1");
    bool list_all = getenv("DRA_CEL_LIST") && !strcmp(getenv("DRA_CEL_LIST"), "1");

    section_stats *secs = NULL;
    size_t nsecs = 0;
    int passed = 0, failed = 0, known_failed = 0, skipped = 0, bad_lines = 0;
    dra_buf failures = DRA_BUF_INIT;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        json_error_t jerr;
        json_t *j = json_loads(line, JSON_ALLOW_NUL, &jerr);
        if (!json_is_object(j)) {
            fprintf(stderr, "%s:%d: %s\n", data, lineno, jerr.text);
            json_decref(j);
            bad_lines++;
            continue;
        }
        test_case tc = {
            .j = j,
            .file = str_field(j, "file"),
            .section = str_field(j, "section"),
            .name = str_field(j, "name"),
            .expr = str_field(j, "expr"),
            .expr_len = json_string_length(json_object_get(j, "expr")),
            .container = str_field(j, "container"),
            .expect = str_field(j, "expect"),
            .disable_check = json_is_true(json_object_get(j, "disable_check")),
            .check_only = json_is_true(json_object_get(j, "check_only")),
        };
        dra_arena a = DRA_ARENA_INIT;
        const char *full = dra_arena_printf(&a, "%s/%s/%s", tc.file, tc.section, tc.name);
        if (filter && *filter && !strstr(full, filter)) {
            json_decref(j);
            dra_arena_free(&a);
            continue;
        }
        if (!nsecs || strcmp(secs[nsecs - 1].file, tc.file) || strcmp(secs[nsecs - 1].section, tc.section)) {
            secs = dra_xrealloc(secs, (nsecs + 1) * sizeof *secs);
            secs[nsecs++] = (section_stats){dra_xstrdup(tc.file), dra_xstrdup(tc.section), 0, 0, 0, 0, 0};
        }
        section_stats *st = &secs[nsecs - 1];
        st->total++;

        pattern *skip = match_pattern(&skips, tc.file, tc.section, tc.name);
        if (skip) {
            skip->hits++;
            st->skipped++;
            skipped++;
        } else {
            const char *why = NULL;
            outcome o = run_case(&tc, &a, &why);
            pattern *kf = o == OUT_FAIL ? match_pattern(&known, tc.file, tc.section, tc.name) : NULL;
            if (list_all)
                printf("%s %s\n", o == OUT_PASS ? "PASS" : "FAIL", full);
            if (o == OUT_PASS) {
                passed++;
                st->passed++;
            } else if (kf && !strict) {
                kf->hits++;
                known_failed++;
                st->known++;
                if (verbose)
                    dra_buf_printf(&failures, "KNOWN %s\n    expr: %s\n    %s\n", full,
                                   show_expr(&a, tc.expr, tc.expr_len), why);
            } else {
                if (kf)
                    kf->hits++;
                failed++;
                st->failed++;
                dra_buf_printf(&failures, "FAIL %s\n    expr: %s\n    %s\n", full, show_expr(&a, tc.expr, tc.expr_len),
                               why);
            }
        }
        json_decref(j);
        dra_arena_free(&a);
    }
    free(line);
    fclose(f);

    /* Per file, then per section. */
    printf("# CEL conformance (%s)\n", data);
    for (size_t i = 0; i < nsecs; i++) {
        section_stats *s = &secs[i];
        printf("%s/%s: %d passed, %d failed, %d known failures, %d skipped (of %d)\n", s->file, s->section, s->passed,
               s->failed, s->known, s->skipped, s->total);
    }
    if (failures.len)
        printf("%s", dra_buf_str(&failures));

    /* Sections where nothing ran, with the skip.txt reason when one entry covers them. */
    int nskipped_secs = 0;
    for (size_t i = 0; i < nsecs; i++) {
        section_stats *s = &secs[i];
        if (s->skipped != s->total)
            continue;
        pattern *p = match_pattern(&skips, s->file, s->section, "");
        printf("# skipped section: %s/%s (%d cases)%s%s\n", s->file, s->section, s->total, p ? " -- " : "",
               p ? p->reason : "");
        nskipped_secs++;
    }
    printf("# %d sections skipped entirely\n", nskipped_secs);

    /* Known-failure entries that matched nothing: the engine got better. */
    for (size_t i = 0; i < known.n; i++)
        if (!known.v[i].hits)
            printf("# %s:%d: '%s' no longer fails (or matches nothing): remove it\n", known_path, known.v[i].line,
                   known.v[i].text);
    for (size_t i = 0; i < skips.n; i++)
        if (!skips.v[i].hits && !(filter && *filter))
            printf("# %s:%d: '%s' matches no case\n", skip_path, skips.v[i].line, skips.v[i].text);

    if (bad_lines || !lists_ok)
        failed += bad_lines + !lists_ok;
    printf("# skipped: %d by skip.txt, %d known failures (known-failures.txt)%s\n", skipped, known_failed,
           strict ? " counted as failed" : "");
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped + known_failed);

    for (size_t i = 0; i < nsecs; i++) {
        free(secs[i].file);
        free(secs[i].section);
    }
    free(secs);
    dra_buf_free(&failures);
    free_patterns(&skips);
    free_patterns(&known);
    free(skip_path);
    free(known_path);
    free(data);
    return failed ? 1 : 0;
}
