/* The REPL engine: commands, expressions and completion. */
#include "session.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

struct dra_session {
    dra_features features;
    char **paths;
    size_t npaths;
    dra_sel_input in;
    dra_sel_eval ev;
    char *class_name; /* :class, or NULL */
    char *last;       /* the last selector expression, for :explain */
    dra_field_validation fv;
    bool recursive;
    /* Completion: the attribute [0] and capacity [1] keys of the loaded
     * devices, "domain/name", in first-seen order; made on the first Tab
     * after a load (the one part of a const session that is filled in). */
    dra_strset keys[2];
    bool keys_ready;
};

static void forget_keys(dra_session *s)
{
    dra_strset_free(&s->keys[0]);
    dra_strset_free(&s->keys[1]);
    s->keys_ready = false;
}

void dra_session_set_reading(dra_session *s, dra_field_validation fv, bool recursive)
{
    s->fv = fv;
    s->recursive = recursive;
}

dra_session *dra_session_new(const dra_features *f)
{
    dra_session *s = dra_xcalloc(1, sizeof *s);
    if (f)
        s->features = *f;
    else
        dra_features_default(&s->features);
    dra_sel_eval_init(&s->ev, &s->features);
    return s;
}

void dra_session_free(dra_session *s)
{
    if (!s)
        return;
    dra_sel_eval_free(&s->ev);
    dra_sel_input_free(&s->in);
    forget_keys(s);
    for (size_t i = 0; i < s->npaths; i++)
        free(s->paths[i]);
    free(s->paths);
    free(s->class_name);
    free(s->last);
    free(s);
}

dra_err *dra_session_load(dra_session *s, const char *path)
{
    return dra_session_load_report(s, path, NULL, NULL);
}

dra_err *dra_session_load_report(dra_session *s, const char *path, dra_err **warnings, size_t *skipped)
{
    /* Files are read again on every :load, and standard input carries the
     * session's own lines: neither can be read as objects. */
    if (strcmp(path, "-") == 0)
        return dra_err_new(DRA_EXIT_INPUT, "cannot load standard input ('-') in a session: name a file");
    char **paths = dra_xcalloc(s->npaths + 1, sizeof *paths);
    for (size_t i = 0; i < s->npaths; i++)
        paths[i] = s->paths[i];
    paths[s->npaths] = (char *)path;
    dra_sel_input in = {0};
    in.set.field_validation = s->fv;
    in.set.recursive = s->recursive;
    dra_err *e = dra_sel_input_load(&in, paths, s->npaths + 1, &s->features);
    free(paths);
    if (e) {
        dra_sel_input_free(&in);
        return e;
    }
    if (warnings) {
        *warnings = dra_err_append(*warnings, in.model.warnings);
        in.model.warnings = NULL;
    }
    if (skipped)
        *skipped = in.model.skipped;
    dra_sel_input_free(&s->in);
    s->in = in;
    forget_keys(s);
    s->paths = dra_xgrow(s->paths, s->npaths, sizeof *s->paths);
    s->paths[s->npaths++] = dra_xstrdup(path);
    return NULL;
}

size_t dra_session_device_count(const dra_session *s)
{
    return s->in.devs.n;
}

static void put_err(dra_buf *out, const dra_err *e)
{
    for (; e; e = e->next) {
        char *t = dra_err_format(e);
        dra_buf_printf(out, "error: %s\n", t);
        free(t);
    }
}

static const char help_text[] =
    "Enter a CEL expression, or a command:\n"
    "  :load FILE       add the objects of FILE (slices, classes, claims)\n"
    "  :devices         list the loaded devices\n"
    "  :class [NAME]    AND the selectors of DeviceClass NAME with every selector (none: clear)\n"
    "  :explain [EXPR]  why each device matches EXPR or not (default: the last selector)\n"
    "  :help            this text\n"
    "  :quit            leave (also Ctrl-D)\n"
    "A bool expression over `device` lists the matching devices; another expression over\n"
    "`device` shows its value on each device; anything else shows its value.\n";

/* The selection for a selector line: the :class selectors, then expr. */
static dra_err *build_selection(dra_session *s, const char *expr, dra_selection *sel)
{
    dra_selection_init(sel, &s->features);
    dra_err *e = NULL;
    if (s->class_name)
        e = dra_selection_add_class(sel, &s->in.model, s->class_name);
    if (!e && expr && !(e = dra_selection_add_expr(sel, expr))) {
        dra_sel_selector *x = &sel->v[sel->n - 1];
        free(x->label);
        x->label = dra_xstrdup("expression");
    }
    return e;
}

static void run_selection(dra_session *s, const char *expr, bool explain, dra_buf *out)
{
    dra_selection sel;
    dra_err *e = build_selection(s, expr, &sel);
    if (e) {
        put_err(out, e);
        dra_err_free(e);
        dra_selection_free(&sel);
        return;
    }
    size_t matched = 0;
    for (size_t i = 0; i < s->in.devs.n; i++) {
        const dra_sel_device *d = &s->in.devs.v[i];
        dra_sel_verdict v;
        dra_selection_match(&sel, d, &v);
        if (v.matched)
            matched++;
        if (explain || (!v.matched && v.error)) {
            dra_sel_explain_text(&sel, d, &v, out);
            dra_buf_putc(out, '\n');
        } else if (v.matched)
            dra_buf_printf(out, "%s\n", d->id);
        dra_sel_verdict_clear(&v);
    }
    dra_buf_printf(out, "(%zu of %zu devices match%s%s)\n", matched, s->in.devs.n, s->class_name ? ", class " : "",
                   s->class_name ? s->class_name : "");
    dra_selection_free(&sel);
}

static void put_value(dra_buf *out, cel_value v, dra_release rel)
{
    if (v.kind == CEL_ERROR) {
        dra_buf_printf(out, "error: %s%s\n", v.v.err, cel_dra_runtime_hint(rel, v.v.err));
        return;
    }
    cel_value_format(&v, out);
    dra_buf_putc(out, '\n');
}

static void run_expression(dra_session *s, const char *expr, dra_buf *out)
{
    cel_program *p = NULL;
    dra_err *e = dra_sel_eval_compile(&s->ev, expr, &p);
    if (e) {
        dra_buf_printf(out, "%s\n", e->msg);
        dra_err_free(e);
        return;
    }
    if (!dra_sel_uses_device(expr)) {
        put_value(out, dra_sel_eval_run(&s->ev, p, NULL), s->ev.release);
    } else if (!s->in.devs.n) {
        dra_buf_puts(out, "no devices loaded (:load FILE)\n");
    } else if (cel_program_result_type(p)->kind == CEL_T_BOOL) {
        free(s->last);
        s->last = dra_xstrdup(expr);
        run_selection(s, expr, false, out);
    } else {
        for (size_t i = 0; i < s->in.devs.n; i++) {
            dra_buf_printf(out, "%s: ", s->in.devs.v[i].id);
            put_value(out, dra_sel_eval_run(&s->ev, p, &s->in.devs.v[i]), s->ev.release);
        }
    }
    cel_program_free(p);
}

static const char *skip_space(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

/* Copy of the argument with trailing blanks removed; NULL when empty. */
static char *argument(const char *p)
{
    p = skip_space(p);
    size_t n = strlen(p);
    while (n && isspace((unsigned char)p[n - 1]))
        n--;
    return n ? dra_xstrndup(p, n) : NULL;
}

static bool is_cmd(const char *line, const char *name, const char **rest)
{
    size_t n = strlen(name);
    if (strncmp(line, name, n) || (line[n] && !isspace((unsigned char)line[n])))
        return false;
    *rest = line + n;
    return true;
}

bool dra_session_line(dra_session *s, const char *line, dra_buf *out)
{
    line = skip_space(line);
    const char *rest;
    if (!*line)
        return true;
    if (line[0] != ':') {
        run_expression(s, line, out);
        return true;
    }
    if (is_cmd(line, ":quit", &rest) || is_cmd(line, ":q", &rest) || is_cmd(line, ":exit", &rest))
        return false;
    if (is_cmd(line, ":help", &rest) || is_cmd(line, ":h", &rest)) {
        dra_buf_puts(out, help_text);
    } else if (is_cmd(line, ":load", &rest)) {
        char *path = argument(rest);
        if (!path)
            dra_buf_puts(out, "error: usage: :load FILE\n");
        else {
            dra_err *w = NULL;
            dra_err *e = dra_session_load_report(s, path, &w, NULL);
            for (const dra_err *x = e ? NULL : w; x; x = x->next) {
                char *t = dra_err_format(x);
                dra_buf_printf(out, "warning: %s\n", t);
                free(t);
            }
            dra_err_free(w);
            if (e)
                put_err(out, e);
            else
                dra_buf_printf(out, "loaded %s: %zu devices in all\n", path, s->in.devs.n);
            for (size_t i = 0; !e && i < s->in.devs.nnotes; i++)
                dra_buf_printf(out, "note: %s\n", s->in.devs.notes[i]);
            dra_err_free(e);
            free(path);
        }
    } else if (is_cmd(line, ":devices", &rest)) {
        for (size_t i = 0; i < s->in.devs.n; i++) {
            const dra_sel_device *d = &s->in.devs.v[i];
            dra_buf_printf(out, "%s%s%s\n", d->id, d->node ? "  node " : "", d->node ? d->node : "");
        }
        dra_buf_printf(out, "(%zu devices)\n", s->in.devs.n);
    } else if (is_cmd(line, ":class", &rest)) {
        char *name = argument(rest);
        free(s->class_name);
        s->class_name = NULL;
        if (!name) {
            dra_buf_puts(out, "class cleared\n");
        } else {
            dra_selection sel;
            dra_selection_init(&sel, &s->features);
            dra_err *e = dra_selection_add_class(&sel, &s->in.model, name);
            dra_selection_free(&sel);
            if (e) {
                put_err(out, e);
                dra_err_free(e);
                free(name);
            } else {
                s->class_name = name;
                run_selection(s, NULL, false, out);
            }
        }
    } else if (is_cmd(line, ":explain", &rest)) {
        char *expr = argument(rest);
        if (!expr && !s->last)
            dra_buf_puts(out, "error: no selector yet: :explain EXPR\n");
        else
            run_selection(s, expr ? expr : s->last, true, out);
        free(expr);
    } else {
        dra_buf_printf(out, "error: unknown command %s (:help lists them)\n", line);
    }
    return true;
}

/* ---- completion ---- */

/* Functions offered when the registry has them (cel_registry_has_function
 * filters out what the environment lacks). */
/* clang-format off */
static const char *const functions[] = {
    "size", "contains", "startsWith", "endsWith", "matches", "int", "uint", "double", "string", "bytes", "bool",
    "type", "dyn", "duration", "timestamp", "quantity", "isQuantity", "semver", "isSemver", "compareTo",
    "isGreaterThan", "isLessThan", "major", "minor", "patch", "add", "sub", "sign", "asInteger", "isInteger",
    "asApproximateFloat", "charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split",
    "substring", "trim", "join", "quote", "reverse", "find", "findAll", "ip", "isIP", "cidr", "isCIDR", "url",
    "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery", "containsIP",
    "containsCIDR", "prefixLength", "masked", "family", "isUnspecified", "isLoopback", "isGlobalUnicast",
    "isLinkLocalMulticast", "isLinkLocalUnicast", "isCanonical", "orValue", "hasValue", "value", "or", "includes",
    "isSorted", "sum", "min", "max", "slice", "flatten", "distinct", "sort", "sortBy", "first", "last",
    "sets.contains", "sets.equivalent", "sets.intersects", "lists.range", "optional.of", "optional.none",
    "optional.ofNonZeroValue", "strings.quote", "format", "validate", "named", "getDate", "getDayOfMonth",
    "getDayOfWeek", "getDayOfYear", "getFullYear", "getHours", "getMilliseconds", "getMinutes", "getMonth",
    "getSeconds", NULL,
};
/* Parser macros and names that are not functions. */
static const char *const always[] = {
    "has", "all", "exists", "exists_one", "map", "filter", "cel.bind", "optMap", "optFlatMap", "transformList",
    "transformMap", "device", "true", "false", "null", "in", "list", NULL,
};
/* clang-format on */
static const char *const commands[] = {":load ", ":devices", ":class ", ":explain ", ":help", ":quit", NULL};
static const char *const device_fields[] = {"driver", "attributes", "capacity", "allowMultipleAllocations", NULL};

typedef struct cands {
    char **v;
    size_t n;
    const char *keep; /* text kept in front of each candidate: line[word_start, token) */
    size_t keep_len;
    const char *prefix; /* what the candidate must start with */
    size_t prefix_len;
} cands;

static void offer(cands *c, const char *word, const char *suffix)
{
    if (c->prefix_len && strncmp(word, c->prefix, c->prefix_len))
        return;
    char *s = dra_xasprintf("%.*s%s%s", (int)c->keep_len, c->keep, word, suffix);
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], s)) {
            free(s);
            return;
        }
    c->v = dra_xgrow(c->v, c->n, sizeof *c->v);
    c->v[c->n++] = s;
}

static const dra_strset *device_keys(const dra_session *cs, bool capacity)
{
    dra_session *s = (dra_session *)cs;
    if (!s->keys_ready) {
        dra_buf b = DRA_BUF_INIT;
        for (size_t i = 0; i < s->in.devs.n; i++) {
            const dra_sel_device *d = &s->in.devs.v[i];
            json_t *dev = dra_sel_device_ref(d);
            for (int k = 0; k < 2; k++) {
                const char *key;
                json_t *val;
                json_object_foreach(json_object_get(dev, k ? "capacity" : "attributes"), key, val) {
                    dra_buf_reset(&b);
                    if (!strchr(key, '/'))
                        dra_buf_printf(&b, "%s/", d->driver); /* the driver's own domain */
                    dra_buf_puts(&b, key);
                    dra_strset_add(&s->keys[k], b.data, b.len, NULL);
                }
            }
            json_decref(dev);
        }
        dra_buf_free(&b);
        s->keys_ready = true;
    }
    return &s->keys[capacity];
}

/* Domains, or names within `domain`, of device attributes or capacities. */
static void offer_keys(cands *c, const dra_session *s, bool capacity, const char *domain, size_t dlen, const char *open,
                       const char *close)
{
    const dra_strset *keys = device_keys(s, capacity);
    for (size_t i = 0; i < keys->n; i++) {
        const char *key = dra_strset_at(keys, i), *slash = strchr(key, '/');
        char *word = NULL;
        if (!domain)
            word = dra_xasprintf("%s%.*s", open, (int)(slash - key), key);
        else if ((size_t)(slash - key) == dlen && !strncmp(key, domain, dlen))
            word = dra_xasprintf("%s%s", open, slash + 1);
        if (word)
            offer(c, word, close);
        free(word);
    }
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

static bool ends_with(const char *p, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && !strncmp(p + n - k, suffix, k);
}

/* Before position n: `device.attributes` or `device.capacity`?  Sets *capacity. */
static bool after_map(const char *p, size_t n, bool *capacity)
{
    *capacity = ends_with(p, n, "device.capacity");
    return *capacity || ends_with(p, n, "device.attributes");
}

/* Before position n: `device.attributes["DOM"]`?  Sets the domain span. */
static bool after_domain(const char *p, size_t n, bool *capacity, const char **dom, size_t *dlen)
{
    if (n < 4 || p[n - 1] != ']' || p[n - 2] != '"')
        return false;
    size_t q = n - 2;
    while (q > 0 && p[q - 1] != '"')
        q--;
    if (q < 2 || p[q - 2] != '[')
        return false;
    *dom = p + q;
    *dlen = n - 2 - q;
    return after_map(p, q - 2, capacity);
}

void dra_session_complete(const dra_session *s, const char *line, size_t word_start, size_t cursor,
                          dra_session_completion *out)
{
    memset(out, 0, sizeof *out);
    if (word_start > cursor)
        word_start = cursor;
    cands c = {0};
    /* Commands. */
    if (line[0] == ':') {
        const char *sp = memchr(line, ' ', cursor);
        if (!sp) {
            /* readline's word may start after the ':' */
            for (size_t i = 0; commands[i]; i++)
                if (!strncmp(commands[i], line, cursor) && strlen(commands[i]) >= word_start)
                    offer(&c, commands[i] + word_start, "");
        } else if (!strncmp(line, ":load ", 6)) {
            out->files = true;
        } else if (!strncmp(line, ":class ", 7)) {
            c.keep = line + word_start;
            c.prefix = line + word_start;
            c.prefix_len = cursor - word_start;
            const dra_model_list *l = dra_model_kind(&s->in.model, DRA_KIND_DEVICE_CLASS);
            for (size_t i = 0; i < l->n; i++)
                offer(&c, json_string_value(json_object_get(json_object_get(l->v[i]->json, "metadata"), "name")), "");
        } else if (!strncmp(line, ":explain ", 9)) {
            goto expression;
        }
        out->v = c.v;
        out->n = c.n;
        return;
    }
expression:;
    /* The token being completed: an identifier, or a string just opened
     * after `[`. */
    size_t t = cursor;
    while (t > 0 && ident_char(line[t - 1]))
        t--;
    bool quoted = false;
    /* ["gpu.exa| : a quoted key being typed (dots allowed inside) */
    size_t q = cursor;
    while (q > 0 && line[q - 1] != '"' && line[q - 1] != '[' && line[q - 1] != ']')
        q--;
    if (q > 1 && line[q - 1] == '"' && line[q - 2] == '[') {
        quoted = true;
        t = q - 1;
    }
    if (t < word_start)
        word_start = t; /* never drop text readline will replace */
    c.keep = line + word_start;
    c.keep_len = t - word_start;
    c.prefix = line + t;
    c.prefix_len = cursor - t;
    bool capacity;
    const char *dom;
    size_t dlen;
    if (quoted) {
        /* device.attributes["|  or  device.attributes["dom"]["| */
        if (after_map(line, t - 1, &capacity))
            offer_keys(&c, s, capacity, NULL, 0, "\"", "\"]");
        else if (after_domain(line, t - 1, &capacity, &dom, &dlen))
            offer_keys(&c, s, capacity, dom, dlen, "\"", "\"]");
    } else if (t > 0 && line[t - 1] == '.') {
        if (ends_with(line, t - 1, "device") && (t - 1 == 6 || !ident_char(line[t - 8]))) {
            for (size_t i = 0; device_fields[i]; i++)
                offer(&c, device_fields[i], "");
        } else if (after_domain(line, t - 1, &capacity, &dom, &dlen)) {
            offer_keys(&c, s, capacity, dom, dlen, "", "");
        } else {
            const cel_registry *reg = cel_env_registry(s->ev.env);
            for (size_t i = 0; functions[i]; i++)
                if (!strchr(functions[i], '.') && cel_registry_has_function(reg, functions[i]))
                    offer(&c, functions[i], "(");
            for (size_t i = 1; i < 11; i++) /* the receiver-style macros */
                if (strcmp(always[i], "cel.bind"))
                    offer(&c, always[i], "(");
        }
    } else {
        const cel_registry *reg = cel_env_registry(s->ev.env);
        for (size_t i = 0; functions[i]; i++)
            if (cel_registry_has_function(reg, functions[i]))
                offer(&c, functions[i], "(");
        for (size_t i = 0; always[i]; i++)
            offer(&c, always[i], i < 11 ? "(" : "");
        for (size_t i = 0; i < s->ev.nvars; i++)
            offer(&c, s->ev.var_names[i], "");
    }
    out->v = c.v;
    out->n = c.n;
}

void dra_session_completion_free(dra_session_completion *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->v[i]);
    free(c->v);
    memset(c, 0, sizeof *c);
}
