/* Compact device lists of ResourceSlices.  See packed.h. */
#include "packed.h"

#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/error.h"
#include "../io/json.h"

void dra_slice_pack(dra_slice_packs *p, json_t *slice)
{
    json_t *spec = json_object_get(slice, "spec");
    json_t *devs = json_object_get(spec, "devices");
    if (!json_is_array(devs))
        return;
    dra_buf b = DRA_BUF_INIT;
    size_t i;
    json_t *d;
    json_array_foreach(devs, i, d) {
        dra_json_write_compact(&b, d);
        dra_buf_putc(&b, '\0');
    }
    dra_packed_devices *x = dra_xmalloc(sizeof *x + b.len + 1);
    x->slice = slice;
    x->n = json_array_size(devs);
    x->len = b.len;
    if (b.len)
        memcpy(x->text, b.data, b.len);
    x->text[b.len] = '\0';
    dra_buf_free(&b);
    json_object_del(spec, "devices");
    intptr_t old;
    if (dra_strmap_add(&p->by_slice, (const char *)&x->slice, sizeof x->slice, (intptr_t)x, &old)) {
        free(x); /* the same object twice: its devices are already out */
        return;
    }
    p->v = dra_xgrow(p->v, p->n, sizeof *p->v);
    p->v[p->n++] = x;
    p->bytes += x->len;
}

const dra_packed_devices *dra_slice_packed(const dra_slice_packs *p, const json_t *slice)
{
    intptr_t v;
    if (!p || !dra_strmap_get(&p->by_slice, (const char *)&slice, sizeof slice, &v))
        return NULL;
    return (const dra_packed_devices *)v;
}

const char *dra_packed_next(const dra_packed_devices *d, const char *cur)
{
    const char *next = cur ? cur + strlen(cur) + 1 : d->text;
    return next < d->text + d->len ? next : NULL;
}

void dra_slice_packs_free(dra_slice_packs *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    dra_strmap_free(&p->by_slice);
    memset(p, 0, sizeof *p);
}
