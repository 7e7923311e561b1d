#include "events.h"

#include <string.h>

#include "../io/jparse.h"

static const char *const names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

const char *dra_kube_event_type_name(dra_kube_event_type t)
{
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

bool dra_kube_event_type_parse(const char *s, dra_kube_event_type *t)
{
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i]) == 0) {
            *t = (dra_kube_event_type)i;
            return true;
        }
    return false;
}

/* apimachinery's knownReasons: a Status with another reason is judged by its code. */
static bool known_reason(const char *r)
{
    static const char *const known[] = {"Unauthorized",
                                        "Forbidden",
                                        "NotFound",
                                        "AlreadyExists",
                                        "Conflict",
                                        "Gone",
                                        "Invalid",
                                        "ServerTimeout",
                                        "StoreReadError",
                                        "Timeout",
                                        "TooManyRequests",
                                        "BadRequest",
                                        "MethodNotAllowed",
                                        "NotAcceptable",
                                        "RequestEntityTooLarge",
                                        "UnsupportedMediaType",
                                        "InternalError",
                                        "Expired",
                                        "ServiceUnavailable"};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(r, known[i]) == 0)
            return true;
    return false;
}

#define TOO_LARGE_MSG "Too large resource version" /* k8s.io/apiserver/pkg/storage/errors.go */

dra_kube_rv_problem dra_kube_rv_problem_of(const json_t *status, long http)
{
    const char *reason = NULL, *msg = NULL;
    json_int_t code = 0;
    const json_t *details = NULL, *causes = NULL;
    if (json_is_object(status)) {
        reason = json_string_value(json_object_get(status, "reason"));
        msg = json_string_value(json_object_get(status, "message"));
        code = json_integer_value(json_object_get(status, "code"));
        details = json_object_get(status, "details");
        causes = json_object_get(details, "causes");
    }
    if (!reason)
        reason = "";
    if (!code)
        code = http;
    bool known = known_reason(reason);
    if (strcmp(reason, "Expired") == 0 || strcmp(reason, "Gone") == 0 || (!known && code == 410))
        return KUBE_RV_EXPIRED;
    bool cause_msg = false;
    size_t i;
    const json_t *c;
    json_array_foreach(causes, i, c) {
        const char *type = json_string_value(json_object_get(c, "reason")); /* StatusCause.Type's JSON name */
        const char *m = json_string_value(json_object_get(c, "message"));
        if (type && strcmp(type, "ResourceVersionTooLarge") == 0)
            return KUBE_RV_TOO_LARGE;
        if (m && strcmp(m, TOO_LARGE_MSG) == 0)
            cause_msg = true;
    }
    /* servers before 1.17 and 1.17.0-1.18.5: no cause type, only its message or the Status's */
    bool timeout = strcmp(reason, "Timeout") == 0 || (!known && code == 504);
    if (timeout && json_is_object(details) && (cause_msg || (msg && strstr(msg, TOO_LARGE_MSG))))
        return KUBE_RV_TOO_LARGE;
    return KUBE_RV_OTHER;
}

void dra_kube_events_init(dra_kube_event_reader *r, dra_kube_event_fn fn, void *ud)
{
    memset(r, 0, sizeof *r);
    r->fn = fn;
    r->ud = ud;
}

static dra_err *one_line(dra_kube_event_reader *r, const char *p, size_t n)
{
    while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    while (n > 0 && (*p == ' ' || *p == '\t'))
        p++, n--;
    if (n == 0)
        return NULL;
    size_t no = r->nevents + 1;
    json_error_t jerr;
    json_t *ev = dra_json_loadb(p, n, JSON_REJECT_DUPLICATES, &jerr);
    if (!ev)
        return dra_err_new(DRA_EXIT_RUNTIME, "watch event %zu: invalid JSON at column %d", no, jerr.column);
    dra_kube_event_type t = KUBE_ERROR;
    json_t *obj = json_object_get(ev, "object");
    dra_err *e = NULL;
    if (!json_is_object(ev))
        e = dra_err_new(DRA_EXIT_RUNTIME, "watch event %zu: not a JSON object", no);
    else if (!dra_kube_event_type_parse(json_string_value(json_object_get(ev, "type")), &t))
        e = dra_err_new(DRA_EXIT_RUNTIME, "watch event %zu: type must be ADDED, MODIFIED, DELETED, BOOKMARK or ERROR",
                        no);
    else if (!json_is_object(obj))
        e = dra_err_new(DRA_EXIT_RUNTIME, "watch event %zu: object must be a JSON object", no);
    if (!e) {
        r->nevents++;
        e = r->fn ? r->fn(r->ud, t, obj) : NULL;
    }
    json_decref(ev);
    return e;
}

dra_err *dra_kube_events_feed(dra_kube_event_reader *r, const char *data, size_t len)
{
    /* Whole lines straight from data when nothing is pending. */
    while (len > 0) {
        if (r->pending.len == 0) {
            const char *nl = memchr(data, '\n', len);
            if (!nl)
                break;
            dra_err *e = one_line(r, data, (size_t)(nl - data));
            if (e)
                return e;
            len -= (size_t)(nl - data) + 1;
            data = nl + 1;
            continue;
        }
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        if (r->pending.len + take > KUBE_EVENT_MAX_BYTES)
            return dra_err_new(DRA_EXIT_RUNTIME, "watch event %zu: larger than %zu bytes", r->nevents + 1,
                               (size_t)KUBE_EVENT_MAX_BYTES);
        dra_buf_append(&r->pending, data, take);
        if (!nl)
            return NULL;
        dra_err *e = one_line(r, r->pending.data, r->pending.len);
        dra_buf_reset(&r->pending);
        if (e)
            return e;
        len -= take + 1;
        data += take + 1;
    }
    if (len > 0) {
        if (r->pending.len + len > KUBE_EVENT_MAX_BYTES)
            return dra_err_new(DRA_EXIT_RUNTIME, "watch event %zu: larger than %zu bytes", r->nevents + 1,
                               (size_t)KUBE_EVENT_MAX_BYTES);
        dra_buf_append(&r->pending, data, len);
    }
    return NULL;
}

bool dra_kube_events_truncated(const dra_kube_event_reader *r)
{
    for (size_t i = 0; i < r->pending.len; i++)
        if (r->pending.data[i] != ' ' && r->pending.data[i] != '\r' && r->pending.data[i] != '\t')
            return true;
    return false;
}

void dra_kube_events_reset(dra_kube_event_reader *r)
{
    dra_buf_reset(&r->pending);
}

void dra_kube_events_free(dra_kube_event_reader *r)
{
    dra_buf_free(&r->pending);
}
