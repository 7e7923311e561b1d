/* Fuzz strict decoding (model/strict.c) and the field-line lookup it uses
 * (io/fieldline.c).  Input: the first byte picks the field validation, the
 * release (its high bit: 1.36) and, for objects without a known kind, a
 * schema; the rest is read as YAML/JSON.
 * Every error and warning is formatted, and every field path it names is
 * looked up again in the text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/stream.h"
#include "model/kinds.h"
#include "model/strict.h"

static void drain(dra_err *e, const dra_obj *o)
{
    for (dra_err *i = e; i; i = i->next) {
        char *line = dra_err_format(i);
        free(line);
        /* the path inside `unknown field "..."` */
        const char *q = strchr(i->msg, '"');
        if (q) {
            const char *end = strrchr(q + 1, '"');
            if (end && end > q + 1) {
                char *path = dra_xstrndup(q + 1, (size_t)(end - q - 1));
                (void)dra_obj_field_line(o, path);
                free(path);
            }
        }
    }
    dra_err_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t ctl = data[0];
    dra_objset set = DRA_OBJSET_INIT;
    set.field_validation = (dra_field_validation)(ctl % 3);
    dra_err *e = dra_read_mem(&set, "fuzz", (const char *)data + 1, size - 1);
    dra_err_free(e);
    static const dra_kind kinds[] = {DRA_KIND_RESOURCE_SLICE,
                                     DRA_KIND_DEVICE_CLASS,
                                     DRA_KIND_RESOURCE_CLAIM,
                                     DRA_KIND_RESOURCE_CLAIM_TEMPLATE,
                                     DRA_KIND_DEVICE_TAINT_RULE,
                                     DRA_KIND_POD,
                                     DRA_KIND_NODE,
                                     DRA_KIND_NAMESPACE,
                                     DRA_KIND_RESOURCE_CLASS,
                                     DRA_KIND_CLASSIC_CLAIM,
                                     DRA_KIND_CLASSIC_CLAIM_TEMPLATE,
                                     DRA_KIND_POD_SCHEDULING_CONTEXT};
    static const dra_apiver vers[] = {DRA_APIVER_RESOURCE_V1, DRA_APIVER_RESOURCE_V1BETA2, DRA_APIVER_RESOURCE_V1BETA1,
                                      DRA_APIVER_RESOURCE_V1ALPHA3, DRA_APIVER_CORE_V1};
    static const char *const parts[] = {"device", "counterSet", "inventory", "nothing"};
    for (size_t i = 0; i < set.n; i++) {
        dra_obj *o = &set.v[i];
        dra_kind k;
        dra_apiver v;
        dra_err *ke = dra_kind_of(o->json, &k, &v);
        if (ke) {
            dra_err_free(ke);
            k = kinds[(ctl >> 2) % (sizeof kinds / sizeof *kinds)];
            v = vers[(ctl >> 5) % (sizeof vers / sizeof *vers)];
        }
        dra_err *w = NULL;
        /* the high bit: as a 1.36 API server, which lacks 1.37's fields */
        int release = (ctl & 0x80) ? 36 : 0;
        drain(dra_strict_check_release(o->json, k, v, set.field_validation, release, &w, o), o);
        drain(w, o);
        w = NULL;
        drain(dra_strict_check_part(o->json, parts[(ctl >> 3) & 3], (ctl & 0x40) ? "devices[0]" : "",
                                    set.field_validation, &w, o),
              o);
        drain(w, o);
        /* arbitrary paths: the path parser and the walker on any text */
        (void)dra_obj_field_line(o, (const char *)set.files[0]);
        (void)dra_obj_field_line(o, "spec.devices[0].attributes[\"a/b\"].int");
        (void)dra_obj_field_line(o, "items[0].spec.requests[1].exactly.count");
        (void)dra_obj_field_line(o, "[\"unterminated");
        (void)dra_obj_field_line(o, "a[99999999999999999999].b[");
    }
    dra_objset_free(&set);
    return 0;
}
