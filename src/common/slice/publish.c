/* Publishing devices as ResourceSlices.  See publish.h. */
#include "publish.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

dra_err *dra_slice_write(dra_writer *w, const dra_slice_result *r)
{
    for (size_t i = 0; i < r->nslices; i++) {
        dra_err *e = dra_writer_put(w, r->slices[i]);
        if (e)
            return e;
    }
    return NULL;
}

dra_err *dra_node_selector_from_labels(const char *spec, json_t **out)
{
    json_t *exprs = json_array();
    char *copy = dra_xstrdup(spec), *save = NULL;
    dra_err *e = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            e = dra_err_new(DRA_EXIT_INPUT, "expected KEY=VALUE, not '%s'", tok);
            break;
        }
        *eq = '\0';
        json_array_append_new(exprs, json_pack("{s:s, s:s, s:[s]}", "key", tok, "operator", "In", "values", eq + 1));
    }
    free(copy);
    if (!e && json_array_size(exprs) == 0)
        e = dra_err_new(DRA_EXIT_INPUT, "expected KEY=VALUE");
    if (e) {
        json_decref(exprs);
        return e;
    }
    *out = json_pack("{s:[{s:o}]}", "nodeSelectorTerms", "matchExpressions", exprs);
    return NULL;
}

dra_err *dra_discover_parse_timeout(const char *text, int *ms)
{
    if (!text || !*text)
        return NULL;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v <= 0 || v > 3600000)
        return dra_err_new(DRA_EXIT_INPUT, "must be milliseconds between 1 and 3600000, not '%s'", text);
    *ms = (int)v;
    return NULL;
}

bool dra_discover_host_name(char *buf, size_t size)
{
    if (size < 2 || gethostname(buf, size - 1) != 0)
        return false;
    buf[size - 1] = '\0';
    for (char *c = buf; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return *buf != '\0';
}

size_t dra_discovery_count(const dra_discovery *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += json_array_size(d->v[i].devices);
    return n;
}

static void add_lists(dra_inventory *inv, const json_t *devices, const json_t *sets)
{
    size_t k;
    json_t *x;
    json_array_foreach(devices, k, x)
        dra_inventory_add_device(inv, x, NULL, NULL);
    json_array_foreach(sets, k, x)
        dra_inventory_add_counter_set(inv, x, NULL, NULL);
}

/* Build one pool on node and write its slices, validated as the release
 * of f validates them (NULL: the default release). */
static dra_err *publish(dra_writer *w, const dra_inventory *inv, const char *driver, const char *node,
                        const dra_features *f)
{
    dra_slice_opts so = {0};
    so.driver = driver;
    so.node_name = node;
    so.features = f;
    dra_slice_result r = {0};
    dra_err *e = dra_slice_build(&so, inv, &r);
    if (!e)
        e = dra_slice_write(w, &r);
    dra_slice_result_free(&r);
    return e;
}

dra_err *dra_discovery_write(dra_writer *w, const dra_discovery *d, const char *driver, const char *node,
                             bool inventory, const dra_features *f)
{
    dra_err *e = NULL;
    if (inventory) {
        for (size_t i = 0; !e && i < d->n; i++) {
            if (!json_array_size(d->v[i].devices))
                continue;
            json_t *inv = json_pack("{s:O}", "devices", d->v[i].devices);
            if (json_array_size(d->v[i].counter_sets))
                json_object_set(inv, "sharedCounters", d->v[i].counter_sets);
            e = dra_writer_put(w, inv);
            json_decref(inv);
        }
        return e;
    }
    size_t groups = driver ? 1 : d->n;
    for (size_t g = 0; !e && g < groups; g++) {
        dra_inventory inv = DRA_INVENTORY_INIT;
        for (size_t i = 0; i < d->n; i++)
            if (driver || i == g)
                add_lists(&inv, d->v[i].devices, d->v[i].counter_sets);
        if (inv.ndevices > 0)
            e = publish(w, &inv, driver ? driver : d->v[g].default_driver, node, f);
        dra_inventory_free(&inv);
    }
    return e;
}

dra_err *dra_profile_write(dra_writer *w, const dra_profile_opts *o, const char *driver, const dra_features *f)
{
    if (!driver)
        driver = dra_profile_default_driver(o->kind);
    dra_err *e = NULL;
    for (size_t n = 0; !e && n < o->nodes; n++) {
        json_t *devices, *sets;
        dra_profile_node(o, n, &devices, &sets);
        char *node = dra_profile_node_name(n);
        dra_inventory inv = DRA_INVENTORY_INIT;
        add_lists(&inv, devices, sets);
        e = publish(w, &inv, driver, node, f);
        dra_inventory_free(&inv);
        free(node);
        json_decref(devices);
        json_decref(sets);
    }
    return e;
}

/* dra-slice build reads its files three times as a stream (see
 * dra_slice_builder); the first problem of the first pass is kept while
 * reading goes on, so that read errors come first as a whole read gives them. */
typedef struct build_reader {
    dra_slice_builder *b;
    int pass;
    dra_err *err;
} build_reader;

static dra_err *build_read(void *ctx, dra_obj *o)
{
    build_reader *r = ctx;
    if (r->err)
        return NULL;
    dra_err *e = dra_slice_builder_read(r->b, o);
    if (r->pass > 1)
        return e;
    r->err = e;
    return NULL;
}

/* Files and directories can be read again; standard input, pipes and
 * process substitutions cannot. */
static bool can_read_again(char *const *paths, size_t npaths)
{
    if (npaths == 0)
        return false;
    for (size_t i = 0; i < npaths; i++) {
        struct stat st;
        if (strcmp(paths[i], "-") == 0 || stat(paths[i], &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
            return false;
    }
    return true;
}

static dra_err *put_slice(void *ctx, json_t *slice)
{
    return dra_writer_put(ctx, slice);
}

dra_err *dra_slice_build_write(dra_writer *w, const dra_slice_opts *o, const char *const *prev, size_t nprev,
                               char *const *paths, size_t npaths, const dra_objset *reading, dra_slice_result *r,
                               dra_err **warnings)
{
    dra_objset old = DRA_OBJSET_INIT, in = DRA_OBJSET_INIT;
    if (reading) {
        in.field_validation = old.field_validation = reading->field_validation;
        in.recursive = reading->recursive;
    }
    in.arrays = true; /* an inventory may be a list of devices */
    dra_err *e = NULL;
    for (size_t i = 0; !e && i < nprev; i++)
        e = dra_read_path(&old, prev[i]);
    dra_slice_opts oo = *o;
    oo.previous = nprev ? &old : NULL;
    dra_inventory inv = DRA_INVENTORY_INIT;
    inv.field_validation = in.field_validation;
    if (!e && !can_read_again(paths, npaths)) {
        /* Read whole: its text is not there to read again, for the devices
         * nor for the lines of fields that problems found after reading name. */
        e = dra_read_paths(&in, paths, npaths);
        for (size_t i = 0; !e && i < in.n; i++)
            e = dra_inventory_add(&inv, &in.v[i]);
        if (!e)
            e = dra_slice_build_each(&oo, &inv, put_slice, w, r);
    } else if (!e) {
        build_reader br = {dra_slice_builder_new(&oo, in.field_validation, put_slice, w, r), 1, NULL};
        e = dra_read_paths_each(&in, paths, npaths, build_read, &br);
        if (!e) /* read errors first, as a whole read gives them */
            e = br.err;
        else
            dra_err_free(br.err);
        if (!e)
            e = dra_slice_builder_next(br.b);
        for (br.pass = 2; !e && br.pass <= 3; br.pass++) {
            dra_objset again = DRA_OBJSET_INIT;
            again.field_validation = in.field_validation;
            again.recursive = in.recursive;
            again.arrays = true;
            again.stream_chunk = in.stream_chunk;
            e = dra_read_paths_each(&again, paths, npaths, build_read, &br);
            if (!e)
                e = dra_slice_builder_next(br.b);
            dra_objset_free(&again);
        }
        dra_errs_add(&inv.warnings, dra_slice_builder_warnings(br.b));
        dra_slice_builder_free(br.b);
        if (e)
            dra_slice_result_free(r);
    }
    if (warnings && !e) {
        /* duplicate fields the reader relaxed, then unknown ones */
        *warnings = dra_err_append(*warnings, in.warnings);
        in.warnings = NULL;
        *warnings = dra_err_append(*warnings, dra_errs_take(&inv.warnings));
    }
    dra_inventory_free(&inv);
    dra_objset_free(&in);
    dra_objset_free(&old);
    return e;
}
