/* Fuzz the watch-event push reader as a hostile server would feed it:
 * the body whole, or cut in three chunks at input-chosen points (partial
 * frames), gives the same events, the same verdicts on them and the same
 * first error.  Every event goes where the informers send it: an ERROR
 * event's Status to the resourceVersion classification (as an event and as
 * an HTTP 410/504 answer), any other object to the kind check against two
 * watches; strings the server sent are shown as messages would show them,
 * which must hold no control character.
 *
 * Input: two bytes choosing the cuts, then the body. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/api.h"
#include "kube/events.h"
#include "kube/text.h"

typedef struct tally {
    size_t n;
    unsigned long sum;
} tally;

static void mix(tally *s, unsigned long v)
{
    s->sum = s->sum * 31 + v;
}

static void shown_clean(const char *str)
{
    dra_arena a = DRA_ARENA_INIT;
    const char *v = dra_kube_v(&a, str);
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            abort();
    dra_arena_free(&a);
}

static dra_err *count(void *ud, dra_kube_event_type t, json_t *obj)
{
    tally *s = ud;
    s->n++;
    mix(s, (unsigned long)t + json_object_size(obj));
    if (t == KUBE_ERROR) {
        mix(s, dra_kube_rv_problem_of(obj, 0));
        mix(s, dra_kube_rv_problem_of(obj, 410));
        mix(s, dra_kube_rv_problem_of(obj, 504));
        shown_clean(json_string_value(json_object_get(obj, "message")));
        return NULL;
    }
    static const char *const watched[][2] = {{"pods", "v1"}, {"resourceslices", "v1"}};
    for (size_t i = 0; i < 2; i++) {
        char *why = NULL;
        dra_kube_obj_match m = dra_kube_api_match(dra_kube_resource_find(watched[i][0]), watched[i][1], obj, &why);
        mix(s, m);
        if ((m == KUBE_OBJ_EXPECTED) != (why == NULL))
            abort();
        if (why)
            shown_clean(why);
        free(why);
    }
    return NULL;
}

static int run(const char *d, size_t n, size_t c1, size_t c2, tally *t)
{
    dra_kube_event_reader r;
    dra_kube_events_init(&r, count, t);
    dra_err *e = dra_kube_events_feed(&r, d, c1);
    if (!e)
        e = dra_kube_events_feed(&r, d + c1, c2 - c1);
    if (!e)
        e = dra_kube_events_feed(&r, d + c2, n - c2);
    int failed = e != NULL;
    if (e)
        mix(t, strlen(e->msg));
    dra_err_free(e);
    (void)dra_kube_events_truncated(&r);
    dra_kube_events_free(&r);
    return failed;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const char *d = (const char *)data + 2;
    size_t n = size - 2;
    size_t c1 = n ? data[0] * n / 255 : 0, c2 = n ? data[1] * n / 255 : 0;
    if (c1 > c2) {
        size_t x = c1;
        c1 = c2;
        c2 = x;
    }
    tally a = {0, 0}, b = {0, 0};
    int fa = run(d, n, n, n, &a);
    int fb = run(d, n, c1, c2, &b);
    if (fa != fb || a.n != b.n || a.sum != b.sum)
        abort();
    return 0;
}
