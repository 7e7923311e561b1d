/* A tiny selector evaluator for tests (see fake_eval.h): a few fixed
 * expression shapes, matched by text, so the engine can be tested without
 * CEL.  Test-only: linked into the unit-test binaries, not into libdra.a. */
#include <stdlib.h>
#include <string.h>

#include "alloc/internal.h"
#include "fake_eval.h"

enum { F_TRUE, F_FALSE, F_DRIVER, F_ATTR_EQ, F_HAS, F_FAIL };

typedef struct fprog {
    int kind;
    char *a, *b; /* driver / domain, name, or message */
    json_t *val;
} fprog;

static bool quoted(const char **p, char **out)
{
    const char *s = *p;
    if (*s != '"')
        return false;
    const char *e = strchr(s + 1, '"');
    if (!e)
        return false;
    *out = dra_xstrndup(s + 1, (size_t)(e - s - 1));
    *p = e + 1;
    return true;
}

static bool skip(const char **p, const char *lit)
{
    while (**p == ' ')
        (*p)++;
    size_t n = strlen(lit);
    if (strncmp(*p, lit, n) != 0)
        return false;
    *p += n;
    while (**p == ' ')
        (*p)++;
    return true;
}

/* device.attributes["D"].N */
static bool attr_ref(const char **p, char **dom, char **name)
{
    if (!skip(p, "device.attributes[") || !quoted(p, dom))
        return false;
    if (!skip(p, "].")) {
        free(*dom);
        return false;
    }
    const char *s = *p;
    while (*s && (*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
        s++;
    *name = dra_xstrndup(*p, (size_t)(s - *p));
    *p = s;
    return true;
}

static dra_err *fake_compile(void *ctx, const char *expr, size_t len, void **prog)
{
    (void)len; /* the fake's expressions are C strings */
    fprog *f = dra_xcalloc(1, sizeof *f);
    const char *p = expr;
    if (!strcmp(expr, "true")) {
        f->kind = F_TRUE;
    } else if (!strcmp(expr, "false")) {
        f->kind = F_FALSE;
    } else if (!strncmp(expr, "fail:", 5)) {
        f->kind = F_FAIL;
        f->a = dra_xstrdup(expr + 5);
    } else if (skip(&p, "device.driver ==") && quoted(&p, &f->a) && !*p) {
        f->kind = F_DRIVER;
    } else if ((p = expr, skip(&p, "has(")) && attr_ref(&p, &f->a, &f->b) && skip(&p, ")") && !*p) {
        f->kind = F_HAS;
    } else if ((p = expr, attr_ref(&p, &f->a, &f->b)) && skip(&p, "==")) {
        f->kind = F_ATTR_EQ;
        f->val = json_loads(p, JSON_DECODE_ANY, NULL);
        if (!f->val) {
            free(f->a);
            free(f->b);
            free(f);
            return dra_err_new(DRA_EXIT_INPUT, "unsupported expression");
        }
    } else {
        free(f->a);
        free(f->b);
        free(f);
        return dra_err_new(DRA_EXIT_INPUT, "unsupported expression");
    }
    *prog = f;
    return NULL;
}

static const json_t *lookup(const char *driver, const json_t *device, const char *dom, const char *name)
{
    const json_t *attrs = dra_jfield(device, "attributes");
    char key[512];
    snprintf(key, sizeof key, "%s/%s", dom, name);
    const json_t *v = json_object_get(attrs, key);
    if (!v && !strcmp(dom, driver))
        v = json_object_get(attrs, name);
    return v;
}

static dra_err *fake_match(void *ctx, void *prog, const char *driver, const json_t *device,
                           const dra_features *features, void **cache, bool *matched)
{
    fprog *f = prog;
    switch (f->kind) {
    case F_TRUE: *matched = true; return NULL;
    case F_FALSE: *matched = false; return NULL;
    case F_FAIL: return dra_err_new(DRA_EXIT_INPUT, "%s", f->a);
    case F_DRIVER: *matched = !strcmp(driver, f->a); return NULL;
    case F_HAS: *matched = lookup(driver, device, f->a, f->b) != NULL; return NULL;
    }
    const json_t *a = lookup(driver, device, f->a, f->b);
    if (!a)
        return dra_err_new(DRA_EXIT_INPUT, "no such key: %s", f->b);
    const json_t *v = dra_jfield(a, "int");
    if (!v)
        v = dra_jfield(a, "string");
    if (!v)
        v = dra_jfield(a, "bool");
    if (!v)
        v = dra_jfield(a, "version");
    *matched = v && json_equal((json_t *)v, f->val);
    return NULL;
}

static void fake_free(void *ctx, void *prog)
{
    fprog *f = prog;
    free(f->a);
    free(f->b);
    json_decref(f->val);
    free(f);
}

const dra_selector_eval dra_fake_selector_eval = {NULL, fake_compile, fake_match, fake_free, NULL, NULL, NULL, NULL};
