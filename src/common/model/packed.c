/* ResourceSlices as compact text.  See packed.h. */
#include "packed.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../io/json.h"

void dra_slice_pack(dra_slice_packs *p, const json_t *slice)
{
    json_t *spec = json_object_get(slice, "spec");
    json_t *devs = json_object_get(spec, "devices");
    dra_buf b = DRA_BUF_INIT;
    size_t i;
    json_t *d;
    json_array_foreach(devs, i, d) {
        dra_json_write_compact(&b, d);
        dra_buf_putc(&b, '\0');
    }
    dra_packed_slice *x = dra_xcalloc(1, sizeof *x + b.len + 1);
    x->n = json_array_size(devs);
    x->len = b.len;
    if (b.len)
        memcpy(x->text, b.data, b.len);
    /* the rest: shallow copies without spec.devices */
    json_t *top = json_copy((json_t *)slice);
    if (json_is_object(spec)) {
        json_t *s2 = json_copy(spec);
        json_object_del(s2, "devices");
        json_object_set_new(top, "spec", s2);
    }
    dra_buf_reset(&b);
    dra_json_write_compact(&b, top);
    json_decref(top);
    x->rest = dra_xstrdup(dra_buf_str(&b)); /* exact size: the buffer grew for the devices */
    dra_buf_free(&b);
    const char *nn = json_string_value(json_object_get(spec, "nodeName"));
    x->node_name = nn && *nn ? dra_xstrdup(nn) : NULL;
    p->v = dra_xgrow(p->v, p->n, sizeof *p->v);
    p->v[p->n++] = x;
    p->bytes += x->len + strlen(x->rest);
}

const char *dra_packed_next(const dra_packed_slice *s, const char *cur)
{
    const char *next = cur ? cur + strlen(cur) + 1 : s->text;
    return next < s->text + s->len ? next : NULL;
}

void dra_slice_packs_free(dra_slice_packs *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i]->rest);
        free(p->v[i]->node_name);
        free(p->v[i]);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}
