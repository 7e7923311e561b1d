/* Fuzz the watch-event push reader: feeding the input whole or split at an
 * input-chosen point gives the same events (or the same first error). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/events.h"

typedef struct tally {
    size_t n;
    unsigned long sum;
} tally;

static dra_err *count(void *ud, dra_kube_event_type t, json_t *obj)
{
    tally *s = ud;
    s->n++;
    s->sum = s->sum * 31 + (unsigned long)t + json_object_size(obj);
    return NULL;
}

static int run(const char *d, size_t n, size_t cut, tally *t)
{
    dra_kube_event_reader r;
    dra_kube_events_init(&r, count, t);
    dra_err *e = dra_kube_events_feed(&r, d, cut);
    if (!e)
        e = dra_kube_events_feed(&r, d + cut, n - cut);
    int failed = e != NULL;
    dra_err_free(e);
    (void)dra_kube_events_truncated(&r);
    dra_kube_events_free(&r);
    return failed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t cut = data[0] % size;
    const char *d = (const char *)data + 1;
    size_t n = size - 1;
    if (cut > n)
        cut = n;
    tally a = {0, 0}, b = {0, 0};
    int fa = run(d, n, n, &a);
    int fb = run(d, n, cut, &b);
    if (fa != fb || a.n != b.n || a.sum != b.sum)
        abort();
    return 0;
}
