/* cel-match: the project's selector match (what `dra-select select` and
 * the allocator run for each device) behind the CEL table harness
 * (dratools_cel_test.go here), as upstream's table runs
 * CompilationResult.DeviceMatches.
 *
 * One JSON request per line on stdin:
 *   {"expr": "...", "gates": "G=B,...", "driver": "...", "device": {v1 Device}}
 * one JSON response per line on stdout: {"match": B}, {"error": "..."}
 * (the evaluation error, or the conversion error of a result that is not
 * a bool), or {"compile": "..."} when the selector does not compile in
 * the StoredExpressions environment the scheduler matches with.
 *
 * The gates are those of the release DRA_KUBERNETES_VERSION names, else
 * the default release's.  Exit 0, 2 on a malformed request (with its line
 * number) or an unknown release, 3 on a failed write. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/dra.h"
#include "model/features.h"

static json_t *match(const json_t *req, dra_release rel, char **why)
{
    const json_t *jexpr = json_object_get(req, "expr");
    const char *gates = json_string_value(json_object_get(req, "gates"));
    const char *driver = json_string_value(json_object_get(req, "driver"));
    if (!json_is_string(jexpr)) {
        *why = dra_xstrdup("no \"expr\" string");
        return NULL;
    }
    dra_features f;
    dra_features_release(&f, rel);
    dra_err *e = gates ? dra_features_parse(&f, gates) : NULL;
    if (e) {
        *why = dra_xstrdup(e->msg);
        dra_err_free(e);
        return NULL;
    }
    cel_dra_options o = {.consumable_capacity = dra_feature_enabled(&f, DRA_FEATURE_CONSUMABLE_CAPACITY),
                         .list_type_attributes = dra_feature_enabled(&f, DRA_FEATURE_LIST_TYPE_ATTRIBUTES),
                         .release = rel};
    cel_env *env = cel_dra_env_new(&o);
    cel_program *p = NULL;
    json_t *r;
    e = cel_dra_compile(env, json_string_value(jexpr), json_string_length(jexpr), &p);
    if (e) {
        r = json_pack("{ss}", "compile", e->msg);
    } else {
        dra_arena scratch = DRA_ARENA_INIT;
        cel_dra_convert how = cel_dra_convert_of(&o);
        cel_dra_device *d =
            cel_dra_device_build_as(json_object_get(req, "device"), driver ? driver : "", &scratch, &how);
        dra_arena_free(&scratch);
        bool m = false;
        e = cel_dra_match(p, d, &m);
        r = e ? json_pack("{ss}", "error", e->msg) : json_pack("{sb}", "match", m);
        cel_dra_device_free(d);
    }
    dra_err_free(e);
    cel_program_free(p);
    cel_env_free(env);
    return r;
}

int main(void)
{
    dra_release rel = DRA_RELEASE_DEFAULT;
    const char *v = getenv("DRA_KUBERNETES_VERSION");
    if (v && *v) {
        dra_err *e = dra_release_parse(v, &rel);
        if (e) {
            fprintf(stderr, "cel-match: DRA_KUBERNETES_VERSION: %s\n", e->msg);
            dra_err_free(e);
            return 2;
        }
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    for (size_t lineno = 1; rc == 0 && (n = getline(&line, &cap, stdin)) > 0; lineno++) {
        json_error_t jerr;
        json_t *req = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &jerr);
        char *why = NULL;
        json_t *r = req ? match(req, rel, &why) : NULL;
        json_decref(req);
        if (!r) {
            fprintf(stderr, "cel-match: line %zu: %s\n", lineno, why ? why : jerr.text);
            rc = 2;
        } else {
            char *s = json_dumps(r, JSON_COMPACT);
            if (!s || printf("%s\n", s) < 0 || fflush(stdout) != 0) {
                fprintf(stderr, "cel-match: write failed\n");
                rc = 3;
            }
            free(s);
        }
        free(why);
        json_decref(r);
    }
    free(line);
    return rc;
}
