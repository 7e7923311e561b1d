/* ResourceClaim and ResourceClaimTemplate validation (validation.go:
 * validateDeviceClaim, validateDeviceRequest, validateDeviceConstraint,
 * validateResourceClaimStatusUpdate with no old object). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validate_common.h"

static size_t alen(const json_t *a)
{
    return json_is_array(a) ? json_array_size(a) : 0;
}

static const char REF_MSG[] =
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/* requestNames.Has: "req" or "req/sub" where sub is one of req's firstAvailable names. */
static bool request_ref_exists(const json_t *requests, const char *s, size_t len)
{
    const char *slash = memchr(s, '/', len);
    size_t rlen = slash ? (size_t)(slash - s) : len;
    if (slash && memchr(slash + 1, '/', len - rlen - 1))
        return false;
    for (size_t i = 0; i < alen(requests); i++) {
        const json_t *r = json_array_get(requests, i);
        const json_t *name = json_object_get(r, "name");
        const char *n = json_is_string(name) ? json_string_value(name) : "";
        size_t nlen = json_is_string(name) ? json_string_length(name) : 0;
        if (nlen != rlen || memcmp(n, s, rlen) != 0)
            continue;
        if (!slash)
            return true;
        const json_t *subs = json_object_get(r, "firstAvailable");
        const char *sub = slash + 1;
        size_t slen = len - rlen - 1;
        for (size_t j = 0; j < alen(subs); j++) {
            const json_t *sn = json_object_get(json_array_get(subs, j), "name");
            if (json_is_string(sn) && json_string_length(sn) == slen && memcmp(json_string_value(sn), sub, slen) == 0)
                return true;
        }
        /* Go's map keeps the last request of a duplicated name; checking all is close enough. */
    }
    return false;
}

static void v_request_ref(vctx *v, const json_t *requests, const char *s, size_t len)
{
    size_t slashes = 0;
    for (size_t i = 0; i < len; i++)
        slashes += s[i] == '/';
    if (slashes > 1) {
        dra_ferr_invalid_str(&v->errs, VP(v), s, len, REF_MSG);
        return;
    }
    const char *slash = memchr(s, '/', len);
    if (slash) {
        dra_vcheck(v, dra_check_dns1123_label, s, (size_t)(slash - s));
        dra_vcheck(v, dra_check_dns1123_label, slash + 1, len - (size_t)(slash - s) - 1);
    } else {
        dra_vcheck(v, dra_check_dns1123_label, s, len);
    }
    if (!request_ref_exists(requests, s, len))
        dra_ferr_invalid_str(&v->errs, VP(v), s, len, REF_MSG);
}

/* A list of request references with the size and uniqueness checks of validateSet. */
static void v_request_refs(vctx *v, const json_t *parent, const json_t *requests)
{
    const json_t *refs;
    if (!dra_varr(v, parent, "requests", &refs) || !dra_v_max_items(v, "requests", refs, DRA_DEVICE_REQUESTS_MAX))
        return;
    V_CHILD(v, "requests")
    {
        size_t n = json_array_size(refs);
        for (size_t i = 0; i < n; i++) {
            V_INDEX(v, i)
            {
                const char *s;
                size_t len;
                if (dra_vis_str(v, json_array_get(refs, i), &s, &len))
                    v_request_ref(v, requests, s, len);
            }
        }
        /* a null item decodes as "" in Go's []string, so nulls and ""s are duplicates of each other */
        for (size_t i = 1; i < n; i++) {
            const json_t *a = json_array_get(refs, i);
            if (!json_is_string(a) && !json_is_null(a))
                continue;
            const char *as = json_is_string(a) ? json_string_value(a) : "";
            size_t al = json_is_string(a) ? json_string_length(a) : 0;
            for (size_t j = 0; j < i; j++) {
                const json_t *b = json_array_get(refs, j);
                if (!json_is_string(b) && !json_is_null(b))
                    continue;
                size_t bl = json_is_string(b) ? json_string_length(b) : 0;
                if (al == bl && (al == 0 || memcmp(as, json_string_value(b), al) == 0)) {
                    V_INDEX(v, i) dra_ferr_duplicate_str(&v->errs, VP(v), as, al);
                    break;
                }
            }
        }
    }
}

/* Items of arr with the name of an earlier item: the name is the value
 * reported, or, with a go_type (>= 0), the whole item as Go renders it (the
 * declarative listType=map check the API server enforces from 1.37 on; 1.36
 * reports validateSet's key, the name, v1.36.3 pkg/apis/resource/validation/
 * validation.go validateDeviceClaim and validateDeviceRequest). */
static void v_unique_names(vctx *v, const json_t *arr, int go_type)
{
    if (dra_vrelease(v) <= DRA_RELEASE_1_36)
        go_type = -1;
    size_t n = alen(arr);
    for (size_t i = 1; i < n; i++) {
        const json_t *a = json_object_get(json_array_get(arr, i), "name");
        const char *s = json_is_string(a) ? json_string_value(a) : "";
        size_t len = json_is_string(a) ? json_string_length(a) : 0;
        for (size_t j = 0; j < i; j++) {
            const json_t *b = json_object_get(json_array_get(arr, j), "name");
            const char *t = json_is_string(b) ? json_string_value(b) : "";
            size_t tl = json_is_string(b) ? json_string_length(b) : 0;
            if (tl == len && memcmp(s, t, len) == 0) {
                if (go_type < 0) {
                    V_INDEX(v, i) dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                } else {
                    char *r = dra_v_go_json(json_array_get(arr, i), (dra_go_type)go_type, dra_vquantity_rules(v));
                    V_INDEX(v, i) dra_ferr_duplicate_raw(&v->errs, VP(v), r);
                    free(r);
                }
                break;
            }
        }
    }
}

static void v_allocation_mode(vctx *v, const json_t *r)
{
    static const char *const modes[] = {"All", "ExactCount"};
    const char *mode = "";
    size_t len = 0;
    int64_t count = 0;
    dra_vstr(v, r, "allocationMode", &mode, &len);
    dra_vint(v, r, "count", &count);
    if (len == 3 && memcmp(mode, "All", 3) == 0) {
        if (count != 0)
            V_CHILD(v, "count")
        dra_ferr_invalid_int(&v->errs, VP(v), count, "must not be specified when allocationMode is 'All'");
    } else if (len == 10 && memcmp(mode, "ExactCount", 10) == 0) {
        if (count <= 0)
            V_CHILD(v, "count") dra_ferr_invalid_int(&v->errs, VP(v), count, "must be greater than zero");
    } else {
        V_CHILD(v, "allocationMode") dra_ferr_unsupported(&v->errs, VP(v), mode, len, modes, 2);
    }
}

/* A subrequest's class name has the declarative k8s-long-name format
 * from 1.37 on; 1.36 reports validateDeviceClassName's
 * (ValidateDNS1123Subdomain, v1.36.3 validation.go). */
static void v_device_class_ref(vctx *v, const json_t *r, bool sub)
{
    bool declarative = sub && dra_vrelease(v) >= DRA_RELEASE_1_37;
    dra_v_required_str(v, r, "deviceClassName", declarative ? dra_check_long_name : dra_check_dns1123_subdomain);
}

/* obj[key]: names mapping to quantities (capacity requests, consumed
 * capacity).  Through 1.37 only the quantities are checked (they must
 * parse; the API server cannot decode others).  From 1.38 on the names are
 * capacity names (validateCapacityNames, each name's errors at the map's
 * path), and, declaratively, at most 32 of them (TooMany alone) and none
 * negative (pkg/apis/resource/validation/validation.go and
 * v1/zz_generated.validations.go, v1.38.0-beta.0, kubernetes#142202). */
static void v_quantity_map(vctx *v, const json_t *obj, const char *key)
{
    const json_t *m;
    if (!dra_vobj(v, obj, key, &m))
        return;
    bool names = dra_vrelease(v) >= DRA_RELEASE_1_38;
    V_CHILD(v, key)
    {
        const char *k;
        const json_t *q;
        json_object_foreach((json_t *)m, k, q) {
            if (names)
                dra_vcheck_name(v, dra_check_qualified_name_one_slash, k, strlen(k));
        }
    }
    bool limits = names && dra_v_max_items(v, key, m, DRA_CAPACITY_REQUIREMENTS_MAX);
    V_CHILD(v, key)
    {
        const char *k;
        const json_t *q;
        json_object_foreach((json_t *)m, k, q) {
            dra_quantity parsed;
            V_KEY(v, k, strlen(k))
            {
                if (dra_vquantity_value(v, q, &parsed) && limits && dra_quantity_sign(&parsed) < 0) {
                    char b[DRA_QUANTITY_STRMAX];
                    const char *str = dra_vqstr(&parsed, b);
                    dra_ferr_invalid_str(&v->errs, VP(v), str, strlen(str), "must be greater than or equal to 0");
                }
            }
        }
    }
}

/* capacity.requests: names mapping to quantities (see v_quantity_map;
 * resource/v1 CapacityRequirements.Requests). */
static void v_capacity_requests(vctx *v, const json_t *r)
{
    const json_t *cap;
    if (!dra_vobj(v, r, "capacity", &cap))
        return;
    V_CHILD(v, "capacity") v_quantity_map(v, cap, "requests");
}

/* The k8s-resource-fully-qualified-name format of the release: 1.38's
 * reports a name with more than one slash (strfmt.go); 1.36 reports
 * validation.go's validateFullyQualifiedName (v1.36.3) instead. */
static vcheck_fn resource_fqn_check(const vctx *v)
{
    if (dra_vrelease(v) <= DRA_RELEASE_1_36)
        return dra_check_fully_qualified_name;
    return dra_vrelease(v) >= DRA_RELEASE_1_38 ? dra_check_resource_fully_qualified_name_one_slash
                                               : dra_check_resource_fully_qualified_name;
}

/* derivedAttributes (KEP-6080, DRADerivedAttributes; resource/v1
 * DeviceDerivedAttribute): at most 32, names as attribute names in a
 * ResourceSlice (a domain, "/", a C identifier), unique, an expression of at
 * most 10 Ki.  Without the gate the API server drops the field on create
 * (validate_drop.c), before this is called. */
#define DRA_DERIVED_ATTRIBUTES_MAX 32
/* isAttributeUsedByConstraint (validation.go): a match or distinct
 * constraint on attr for every request, for this request, or for its
 * parent request (req is "request" or "request/subrequest"). */
static bool attribute_constrained(const json_t *constraints, const char *attr, const char *req)
{
    const char *slash = strchr(req, '/');
    size_t plen = slash ? (size_t)(slash - req) : 0;
    for (size_t i = 0; i < alen(constraints); i++) {
        const json_t *c = json_array_get(constraints, i);
        const char *a = json_string_value(dra_vget(c, "matchAttribute"));
        if (!dra_vget(c, "matchAttribute"))
            a = json_string_value(dra_vget(c, "distinctAttribute"));
        if (!a || strcmp(a, attr) != 0)
            continue;
        const json_t *reqs = dra_vget(c, "requests");
        if (alen(reqs) == 0)
            return true;
        for (size_t j = 0; j < alen(reqs); j++) {
            const char *r = json_string_value(json_array_get(reqs, j));
            if (r && (strcmp(r, req) == 0 || (slash && strlen(r) == plen && memcmp(r, req, plen) == 0)))
                return true;
        }
    }
    return false;
}

static void v_derived_attributes(vctx *v, const json_t *r, const char *req)
{
    const json_t *das;
    /* without DRADerivedAttributes they are dropped before (validate_drop.c) */
    if (!dra_varr(v, r, "derivedAttributes", &das))
        return;
    /* the limit is declarative (MaxItems); validation.go's validateSet has
     * none and checks every item even past it, but past the limit the
     * declarative rules stop there: no name format is checked and an empty
     * name or expression is not "Required" (upstream-validate mutations of
     * 129 and 33 members, v1.37.2) */
    bool too_many = !dra_v_max_items(v, "derivedAttributes", das, DRA_DERIVED_ATTRIBUTES_MAX);
    V_CHILD(v, "derivedAttributes")
    {
        for (size_t i = 0; i < json_array_size(das); i++) {
            V_INDEX(v, i)
            {
                const json_t *da = json_array_get(das, i);
                if (!dra_vis_obj(v, da))
                    continue;
                const char *s = "";
                size_t len = 0;
                dra_vstr(v, da, "name", &s, &len);
                V_CHILD(v, "name")
                {
                    if (len == 0) {
                        if (!too_many)
                            dra_ferr_required(&v->errs, VP(v), "");
                    } else {
                        if (!too_many)
                            dra_vcheck(v, resource_fqn_check(v), s, len);
                        char *name = dra_xstrndup(s, len);
                        if (!attribute_constrained(v->claim_constraints, name, req))
                            dra_ferr_invalid_str(&v->errs, VP(v), s, len,
                                                 "must be referenced by at least one matchAttribute or "
                                                 "distinctAttribute constraint targeting this request");
                        free(name);
                    }
                }
                s = "";
                len = 0;
                dra_vstr(v, da, "expression", &s, &len);
                V_CHILD(v, "expression")
                {
                    if (len == 0) {
                        if (!too_many)
                            dra_ferr_required(&v->errs, VP(v), "");
                    } else {
                        dra_v_derived_expression(v, s, len);
                    }
                }
            }
        }
        v_unique_names(v, das, -1);
    }
}

/* req: the request's name, "request/subrequest" for a subrequest */
static void v_exact_or_sub(vctx *v, const json_t *r, bool sub, const char *parent)
{
    if (!dra_vis_obj(v, r))
        return;
    const char *own = json_string_value(dra_vget(r, "name"));
    char *req = sub ? dra_xasprintf("%s/%s", parent, own ? own : "") : dra_xstrdup(parent);
    if (sub)
        dra_vstr_check(v, r, "name", dra_check_dns1123_label);
    v_device_class_ref(v, r, sub);
    dra_v_selectors(v, r);
    v_allocation_mode(v, r);
    dra_v_tolerations(v, r);
    bool admin;
    dra_vbool(v, r, "adminAccess", &admin);
    v_capacity_requests(v, r);
    v_derived_attributes(v, r, req);
    free(req);
}

static void v_request(vctx *v, const json_t *r)
{
    if (!dra_vis_obj(v, r))
        return;
    const char *name = json_string_value(dra_vget(r, "name"));
    name = name ? name : "";
    dra_vstr_check(v, r, "name", dra_check_dns1123_label);
    const json_t *fa = NULL, *exactly = dra_vget(r, "exactly");
    dra_varr(v, r, "firstAvailable", &fa);
    bool has_fa = alen(fa) > 0;
    if (!has_fa && !exactly) {
        dra_ferr_required(&v->errs, VP(v), "exactly one of `exactly` or `firstAvailable` is required");
    } else if (has_fa && exactly) {
        dra_ferr_invalid_raw(&v->errs, VP(v), "null",
                             "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set");
    } else if (has_fa) {
        if (dra_v_max_items(v, "firstAvailable", fa, DRA_FIRST_AVAILABLE_MAX)) {
            V_CHILD(v, "firstAvailable")
            {
                for (size_t i = 0; i < json_array_size(fa); i++)
                    V_INDEX(v, i) v_exact_or_sub(v, json_array_get(fa, i), true, name);
                v_unique_names(v, fa, DRA_GO_DEVICE_SUB_REQUEST);
            }
        }
    } else {
        V_CHILD(v, "exactly") v_exact_or_sub(v, exactly, false, name);
    }
}

static void v_constraint(vctx *v, const json_t *c, const json_t *requests)
{
    if (!dra_vis_obj(v, c))
        return;
    v_request_refs(v, c, requests);
    const char *s;
    size_t len;
    if (dra_vget(c, "matchAttribute")) {
        if (dra_vstr(v, c, "matchAttribute", &s, &len))
            V_CHILD(v, "matchAttribute") dra_vcheck(v, resource_fqn_check(v), s, len);
    } else if (dra_vget(c, "distinctAttribute")) {
        if (dra_vstr(v, c, "distinctAttribute", &s, &len))
            V_CHILD(v, "distinctAttribute") dra_vcheck(v, resource_fqn_check(v), s, len);
    } else if (dra_vfeature(v, DRA_FEATURE_CONSUMABLE_CAPACITY)) {
        /* Upstream's text, "multiple fields are set" included. */
        dra_ferr_required(
            &v->errs, VP(v),
            "exactly one of \"matchAttribute\" or \"distinctAttribute\" is required, but multiple fields are set");
    } else {
        V_CHILD(v, "matchAttribute") dra_ferr_required(&v->errs, VP(v), "");
    }
}

void dra_v_claim_spec(vctx *v, const json_t *spec)
{
    const json_t *devices = NULL;
    dra_vobj(v, spec, "devices", &devices);
    V_CHILD(v, "devices")
    {
        const json_t *requests = NULL, *constraints = NULL, *config = NULL;
        dra_varr(v, devices, "requests", &requests);
        dra_varr(v, devices, "constraints", &constraints);
        dra_varr(v, devices, "config", &config);
        v->claim_constraints = constraints; /* derived attributes look them up */
        v->derived_cost = 0;
        if (requests && dra_v_max_items(v, "requests", requests, DRA_DEVICE_REQUESTS_MAX)) {
            V_CHILD(v, "requests")
            {
                for (size_t i = 0; i < json_array_size(requests); i++)
                    V_INDEX(v, i) v_request(v, json_array_get(requests, i));
                v_unique_names(v, requests, DRA_GO_DEVICE_REQUEST);
            }
        }
        v->claim_constraints = NULL;
        if (constraints && dra_v_max_items(v, "constraints", constraints, DRA_DEVICE_CONSTRAINTS_MAX)) {
            V_CHILD(v, "constraints")
            for (size_t i = 0; i < json_array_size(constraints); i++)
                V_INDEX(v, i) v_constraint(v, json_array_get(constraints, i), requests);
        }
        if (config && dra_v_max_items(v, "config", config, DRA_DEVICE_CONFIG_MAX)) {
            V_CHILD(v, "config")
            for (size_t i = 0; i < json_array_size(config); i++) {
                V_INDEX(v, i)
                {
                    const json_t *cfg = json_array_get(config, i);
                    if (!dra_vis_obj(v, cfg))
                        continue;
                    v_request_refs(v, cfg, requests);
                    dra_v_device_configuration(v, cfg);
                }
            }
        }
        if (v->derived_cost > DRA_DEVICE_CLAIM_DERIVED_ATTRIBUTE_MAX_COST)
            dra_ferr_forbidden(
                &v->errs, VP(v),
                "too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit");
    }
}

/* ---- status ---- */

static bool hex2(const char *p)
{
    return strchr("0123456789abcdefABCDEF", p[0]) && p[0] && strchr("0123456789abcdefABCDEF", p[1]) && p[1];
}

/* A shareID through 1.36: validation.go's validateUID (k8s.io/kubernetes
 * v1.36.3 pkg/apis/resource/validation), google/uuid v1.6.0's Validate
 * then the normalized form; from 1.37 on the declarative k8s-uuid format
 * (dra_check_uuid). */
static void check_uid_136(dra_errs *l, const char *field, const char *s, size_t len)
{
    char why[64] = "";
    const char *u = s;
    size_t ulen = len;
    if (len == 45) {
        if (strncasecmp(s, "urn:uuid:", 9) != 0) {
            dra_buf q = DRA_BUF_INIT;
            dra_buf_puts(&q, "error validating uid: invalid urn prefix: ");
            dra_go_quote_echo(&q, s, 9);
            dra_ferr_invalid_str(l, field, s, len, dra_buf_str(&q));
            dra_buf_free(&q);
            return;
        }
        u += 9, ulen = 36;
    } else if (len == 38) {
        if (s[0] != '{' || s[37] != '}')
            snprintf(why, sizeof why, "invalid bracketed UUID format");
        u += 1, ulen = 36;
    } else if (len == 32) {
        for (size_t i = 0; i < 32 && !*why; i += 2)
            if (!hex2(s + i))
                snprintf(why, sizeof why, "invalid UUID format");
    } else if (len != 36) {
        snprintf(why, sizeof why, "invalid UUID length: %zu", len);
    }
    if (!*why && ulen == 36) {
        bool ok = u[8] == '-' && u[13] == '-' && u[18] == '-' && u[23] == '-';
        static const int at[] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
        for (size_t i = 0; ok && i < sizeof at / sizeof *at; i++)
            ok = hex2(u + at[i]);
        if (!ok)
            snprintf(why, sizeof why, "invalid UUID format");
    }
    if (*why) {
        char *msg = dra_xasprintf("error validating uid: %s", why);
        dra_ferr_invalid_str(l, field, s, len, msg);
        free(msg);
        return;
    }
    bool lower = len == 36;
    for (size_t i = 0; lower && i < len; i++)
        lower = !(s[i] >= 'A' && s[i] <= 'Z');
    if (!lower)
        dra_ferr_invalid_str(l, field, s, len,
                             "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with "
                             "lowercase hexadecimal characters");
}

static vcheck_fn share_id_check(vctx *v)
{
    return dra_vrelease(v) <= DRA_RELEASE_1_36 ? check_uid_136 : dra_check_uuid;
}

/* The types of a toleration's fields alone. */
static void v_toleration_types(vctx *v, const json_t *tol)
{
    static const char *const strs[] = {"key", "operator", "value", "effect"};
    const char *s;
    size_t len;
    int64_t secs;
    if (!dra_vis_obj(v, tol))
        return;
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        dra_vstr(v, tol, strs[i], &s, &len);
    dra_vint(v, tol, "tolerationSeconds", &secs);
}

static void v_result(vctx *v, const json_t *r, const json_t *requests)
{
    if (!dra_vis_obj(v, r))
        return;
    const char *s = "";
    size_t len = 0;
    dra_vstr(v, r, "request", &s, &len);
    V_CHILD(v, "request") v_request_ref(v, requests, s, len);
    /* declarative formats of DeviceRequestAllocationResult: the driver
     * k8s-long-name-caseless, the pool k8s-resource-pool-name; 1.36's are
     * validation.go's validateDriverName and validatePoolName (v1.36.3) */
    bool v136 = dra_vrelease(v) <= DRA_RELEASE_1_36;
    dra_vstr_check(v, r, "driver", v136 ? dra_check_driver_name : dra_check_driver_name_caseless);
    dra_v_required_str(v, r, "pool", v136 ? dra_check_pool_name : dra_check_pool_name_segments);
    dra_vstr_check(v, r, "device", dra_check_dns1123_label);
    dra_v_binding_parameters(v, r);
    /* a result's tolerations: validated from 1.37 on; 1.36's
     * validateDeviceRequestAllocationResult leaves them alone (v1.36.3
     * validation.go), past what decoding them asks */
    const json_t *tols;
    if (dra_varr(v, r, "tolerations", &tols)) {
        V_CHILD(v, "tolerations")
        for (size_t i = 0; i < json_array_size(tols); i++)
            V_INDEX(v, i)
            {
                if (v136)
                    v_toleration_types(v, json_array_get(tols, i));
                else
                    dra_v_toleration(v, json_array_get(tols, i));
            }
    }
    if (dra_vstr(v, r, "shareID", &s, &len))
        V_CHILD(v, "shareID") dra_vcheck(v, share_id_check(v), s, len);
    bool admin;
    dra_vbool(v, r, "adminAccess", &admin);
    dra_v_skip_node_operations(v, r);
    /* consumed capacity: quantities (the API server cannot decode others) */
    v_quantity_map(v, r, "consumedCapacity");
}

static void v_allocation(vctx *v, const json_t *alloc, const json_t *requests)
{
    if (!dra_vis_obj(v, alloc))
        return;
    const json_t *devices = NULL;
    dra_vobj(v, alloc, "devices", &devices);
    V_CHILD(v, "devices")
    {
        const json_t *results, *config;
        if (dra_varr(v, devices, "results", &results) &&
            dra_v_max_items(v, "results", results, DRA_ALLOCATION_RESULTS_MAX)) {
            V_CHILD(v, "results")
            for (size_t i = 0; i < json_array_size(results); i++)
                V_INDEX(v, i) v_result(v, json_array_get(results, i), requests);
        }
        if (dra_varr(v, devices, "config", &config) &&
            dra_v_max_items(v, "config", config, DRA_ALLOCATION_CONFIG_MAX)) {
            V_CHILD(v, "config")
            for (size_t i = 0; i < json_array_size(config); i++) {
                V_INDEX(v, i)
                {
                    static const char *const sources[] = {"FromClaim", "FromClass"};
                    const json_t *cfg = json_array_get(config, i);
                    if (!dra_vis_obj(v, cfg))
                        continue;
                    const char *s = "";
                    size_t len = 0;
                    dra_vstr(v, cfg, "source", &s, &len);
                    V_CHILD(v, "source")
                    {
                        if (len == 0)
                            dra_ferr_required(&v->errs, VP(v), "");
                        else if (!(len == 9 && (memcmp(s, "FromClaim", 9) == 0 || memcmp(s, "FromClass", 9) == 0)))
                            dra_ferr_unsupported(&v->errs, VP(v), s, len, sources, 2);
                    }
                    v_request_refs(v, cfg, requests);
                    dra_v_device_configuration(v, cfg);
                }
            }
        }
    }
    const json_t *sel = dra_vget(alloc, "nodeSelector");
    if (sel)
        V_CHILD(v, "nodeSelector") dra_v_node_selector(v, sel);
}

/* (driver, pool, device, shareID) of a result or device status entry. */
static bool same_device(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"driver", "pool", "device", "shareID"};
    for (int i = 0; i < 4; i++) {
        const json_t *x = dra_vget(a, keys[i]), *y = dra_vget(b, keys[i]);
        if (!x && !y)
            continue;
        if (!x || !y || !json_equal(x, y))
            return false;
    }
    return true;
}

/* An interface address "ip/bits" (validation.IsValidInterfaceAddress): false
 * when it does not parse; otherwise canon receives the canonical spelling
 * (inet_ntop's address, bits without leading zeros). */
static bool parse_cidr(const char *s, size_t len, char canon[INET6_ADDRSTRLEN + 8])
{
    char buf[64];
    if (len == 0 || len >= sizeof buf || memchr(s, '\0', len))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *slash = strchr(buf, '/');
    if (!slash)
        return false;
    *slash = '\0';
    unsigned char addr[16];
    int family = strchr(buf, ':') ? AF_INET6 : AF_INET;
    if (inet_pton(family, buf, addr) != 1)
        return false;
    char *end;
    const char *p = slash + 1;
    if (!*p || (p[0] == '0' && p[1]) || *p < '0' || *p > '9')
        return false;
    long bits = strtol(p, &end, 10);
    if (*end != '\0' || bits < 0 || bits > (family == AF_INET ? 32 : 128))
        return false;
    char text[INET6_ADDRSTRLEN];
    if (!inet_ntop(family, addr, text, sizeof text))
        return false;
    snprintf(canon, INET6_ADDRSTRLEN + 8, "%s/%ld", text, bits);
    return true;
}

/* A SharedDeviceID as field.Error renders a value (json.Marshal first, a
 * String() only when that fails): its exported fields, unique strings
 * marshalled as strings, ShareID "" when there is none.  Caller frees. */
static char *shared_device_id(const json_t *d)
{
    static const char *const keys[] = {"driver", "pool", "device", "shareID"};
    static const char *const go[] = {"Driver", "Pool", "Device", "ShareID"};
    json_t *o = json_object();
    for (size_t i = 0; i < 4; i++) {
        const char *s = json_string_value(dra_vget(d, keys[i]));
        json_object_set_new(o, go[i], json_string(s ? s : ""));
    }
    char *r = dra_vjson(o);
    json_decref(o);
    return r;
}

static void v_device_status(vctx *v, const json_t *d, const json_t *results)
{
    if (!dra_vis_obj(v, d))
        return;
    const char *s = "";
    size_t len = 0;
    dra_v_device_id(v, d);
    if (dra_vstr(v, d, "shareID", &s, &len))
        V_CHILD(v, "shareID") dra_vcheck(v, share_id_check(v), s, len);
    bool allocated = false;
    for (size_t i = 0; i < alen(results) && !allocated; i++)
        allocated = same_device(json_array_get(results, i), d);
    if (!allocated) {
        char *id = shared_device_id(d);
        dra_ferr_invalid_raw(&v->errs, VP(v), id, "must be an allocated device in the claim");
        free(id);
    }
    dra_v_conditions(v, d, "conditions", DRA_DEVICE_STATUS_MAX_CONDITIONS);
    const json_t *data = dra_vget(d, "data");
    if (data)
        V_CHILD(v, "data") dra_v_raw_extension(v, data, DRA_DEVICE_STATUS_DATA_MAX_LENGTH);
    const json_t *net;
    if (dra_vobj(v, d, "networkData", &net)) {
        V_CHILD(v, "networkData")
        {
            if (dra_vstr(v, net, "interfaceName", &s, &len) && len > DRA_NETWORK_INTERFACE_NAME_MAX)
                V_CHILD(v, "interfaceName") dra_ferr_too_long(&v->errs, VP(v), DRA_NETWORK_INTERFACE_NAME_MAX);
            if (dra_vstr(v, net, "hardwareAddress", &s, &len) && len > DRA_NETWORK_HARDWARE_ADDRESS_MAX)
                V_CHILD(v, "hardwareAddress") dra_ferr_too_long(&v->errs, VP(v), DRA_NETWORK_HARDWARE_ADDRESS_MAX);
            const json_t *ips;
            if (dra_varr(v, net, "ips", &ips) && dra_v_max_items(v, "ips", ips, DRA_NETWORK_MAX_IPS)) {
                V_CHILD(v, "ips")
                for (size_t i = 0; i < json_array_size(ips); i++) {
                    V_INDEX(v, i)
                    {
                        const json_t *ip = json_array_get(ips, i);
                        if (!dra_vis_str(v, ip, &s, &len))
                            continue;
                        char canon[INET6_ADDRSTRLEN + 8];
                        if (!parse_cidr(s, len, canon)) {
                            dra_ferr_invalid_str(
                                &v->errs, VP(v), s, len,
                                "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)");
                        } else if (strlen(canon) != len || memcmp(canon, s, len) != 0) {
                            dra_buf d2 = DRA_BUF_INIT;
                            dra_buf_puts(&d2, "must be in canonical form (");
                            dra_go_quote(&d2, canon, strlen(canon));
                            dra_buf_putc(&d2, ')');
                            dra_ferr_invalid_str(&v->errs, VP(v), s, len, dra_buf_str(&d2));
                            dra_buf_free(&d2);
                        }
                        for (size_t j = 0; j < i; j++)
                            if (json_equal(ip, json_array_get(ips, j))) {
                                dra_ferr_duplicate_str(&v->errs, VP(v), s, len);
                                break;
                            }
                    }
                }
            }
        }
    }
}

void dra_v_claim_status(vctx *v, const json_t *claim_spec, const json_t *status)
{
    const json_t *requests = dra_vget(dra_vget(claim_spec, "devices"), "requests");
    const json_t *reserved = NULL, *alloc = dra_vget(status, "allocation"), *devices = NULL;
    if (dra_varr(v, status, "reservedFor", &reserved) &&
        dra_v_max_items(v, "reservedFor", reserved, DRA_RESERVED_FOR_MAX)) {
        V_CHILD(v, "reservedFor")
        {
            size_t n = json_array_size(reserved);
            for (size_t i = 0; i < n; i++) {
                V_INDEX(v, i)
                {
                    const json_t *ref = json_array_get(reserved, i);
                    if (!dra_vis_obj(v, ref))
                        continue;
                    static const char *const keys[] = {"resource", "name", "uid"};
                    for (int k = 0; k < 3; k++) {
                        const char *s = "";
                        size_t len = 0;
                        dra_vstr(v, ref, keys[k], &s, &len);
                        if (len == 0)
                            V_CHILD(v, keys[k]) dra_ferr_required(&v->errs, VP(v), "");
                    }
                }
            }
            for (size_t i = 1; i < n; i++) {
                const json_t *uid = dra_vget(json_array_get(reserved, i), "uid");
                if (!json_is_string(uid))
                    continue;
                for (size_t j = 0; j < i; j++) {
                    if (json_equal(uid, dra_vget(json_array_get(reserved, j), "uid"))) {
                        /* 1.36: validateSet's Duplicate of the key, the
                         * uid (v1.36.3 validation.go); the declarative
                         * uniqueness of 1.37 on reports the whole item */
                        if (dra_vrelease(v) == DRA_RELEASE_1_36) {
                            V_INDEX(v, i)
                            dra_ferr_duplicate_str(&v->errs, VP(v), json_string_value(uid), json_string_length(uid));
                            break;
                        }
                        char *jt = dra_v_go_json(json_array_get(reserved, i), DRA_GO_CONSUMER_REFERENCE,
                                                 dra_vquantity_rules(v));
                        V_INDEX(v, i) dra_ferr_duplicate_raw(&v->errs, VP(v), jt);
                        free(jt);
                        break;
                    }
                }
            }
        }
    }
    const json_t *results = dra_vget(dra_vget(alloc, "devices"), "results");
    if (dra_varr(v, status, "devices", &devices)) {
        V_CHILD(v, "devices")
        {
            size_t n = json_array_size(devices);
            for (size_t i = 0; i < n; i++)
                V_INDEX(v, i) v_device_status(v, json_array_get(devices, i), results);
            for (size_t i = 1; i < n; i++)
                for (size_t j = 0; j < i; j++)
                    if (same_device(json_array_get(devices, i), json_array_get(devices, j))) {
                        /* 1.36: validateSet's Duplicate of the key, the
                         * SharedDeviceID (v1.36.3 validation.go); the
                         * declarative uniqueness of 1.37 on reports the
                         * whole item */
                        char *id = dra_vrelease(v) == DRA_RELEASE_1_36
                                       ? shared_device_id(json_array_get(devices, i))
                                       : dra_v_go_json(json_array_get(devices, i), DRA_GO_ALLOCATED_DEVICE_STATUS,
                                                       dra_vquantity_rules(v));
                        V_INDEX(v, i) dra_ferr_duplicate_raw(&v->errs, VP(v), id);
                        free(id);
                        break;
                    }
        }
    }
    if (alen(reserved) > 0 && !alloc)
        V_CHILD(v, "reservedFor")
    dra_ferr_forbidden(&v->errs, VP(v), "may not be specified when `allocated` is not set");
    if (alloc)
        V_CHILD(v, "allocation") v_allocation(v, alloc, requests);
}

static json_t *spec_or_empty(vctx *v, const json_t *obj, json_t **tmp)
{
    const json_t *spec = NULL;
    *tmp = NULL;
    if (dra_vobj(v, obj, "spec", &spec))
        return (json_t *)spec;
    *tmp = json_object();
    return *tmp;
}

dra_err *dra_validate_resource_claim(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    json_t *tmp;
    json_t *spec = spec_or_empty(&v, obj, &tmp);
    V_CHILD(&v, "spec") dra_v_claim_spec(&v, spec);
    const json_t *status;
    if (dra_vobj(&v, obj, "status", &status))
        V_CHILD(&v, "status") dra_v_claim_status(&v, spec, status);
    json_decref(tmp);
    return dra_vctx_finish(&v);
}

dra_err *dra_validate_resource_claim_template(const json_t *obj, const dra_validate_opts *opts)
{
    vctx v;
    dra_vctx_init(&v, opts);
    dra_v_object_meta(&v, obj, true, false);
    json_t *tmp;
    json_t *spec = spec_or_empty(&v, obj, &tmp);
    V_CHILD(&v, "spec")
    {
        const json_t *meta, *inner = NULL;
        if (dra_vobj(&v, spec, "metadata", &meta))
            V_CHILD(&v, "metadata") dra_v_labels_annotations(&v, meta);
        json_t *tmp2 = NULL;
        if (!dra_vobj(&v, spec, "spec", &inner))
            inner = tmp2 = json_object();
        V_CHILD(&v, "spec") dra_v_claim_spec(&v, inner);
        json_decref(tmp2);
    }
    json_decref(tmp);
    return dra_vctx_finish(&v);
}

/* Whether a request's error (rel: its path after "requests[i].exactly")
 * comes from the declarative validation of resource/v1beta1
 * DeviceRequest (pkg/apis/resource/v1beta1/zz_generated.validations.go,
 * Validate_DeviceRequest): at most 32 selectors, the allocation mode and
 * a toleration's key, operator and effect, at most 32 derived attributes,
 * each with a qualified name and an expression.  A derived attribute's
 * name that no constraint uses is validation.go's. */
static bool declarative_request_error(const char *rel, const char *msg)
{
    const char *r;
    if (strcmp(rel, ".selectors") == 0 || strcmp(rel, ".derivedAttributes") == 0)
        return strncmp(msg, "Too many:", 9) == 0;
    if (strcmp(rel, ".allocationMode") == 0)
        return strncmp(msg, "Unsupported value", 17) == 0;
    if (strncmp(rel, ".tolerations[", 13) == 0 && (r = strchr(rel + 13, ']')) != NULL)
        return strcmp(r + 1, ".key") == 0 ||
               ((strcmp(r + 1, ".operator") == 0 || strcmp(r + 1, ".effect") == 0) &&
                (strncmp(msg, "Unsupported value", 17) == 0 || strncmp(msg, "Required value", 14) == 0));
    if (strncmp(rel, ".derivedAttributes[", 19) == 0 && (r = strchr(rel + 19, ']')) != NULL)
        return (strcmp(r + 1, ".name") == 0 && !strstr(msg, "must be referenced by")) ||
               (strcmp(r + 1, ".expression") == 0 && strncmp(msg, "Required value", 14) == 0);
    return false;
}

void dra_validate_claim_v1beta1_paths(dra_err *errs, const json_t *obj, dra_kind kind, const dra_features *features)
{
    if (dra_features_release_of(features) <= DRA_RELEASE_1_36)
        return;
    const char *pre =
        kind == DRA_KIND_RESOURCE_CLAIM_TEMPLATE ? "spec.spec.devices.requests[" : "spec.devices.requests[";
    const json_t *spec = json_object_get(obj, "spec");
    if (kind == DRA_KIND_RESOURCE_CLAIM_TEMPLATE)
        spec = json_object_get(spec, "spec");
    const json_t *requests = json_object_get(json_object_get(spec, "devices"), "requests");
    size_t np = strlen(pre);
    for (dra_err *e = errs; e; e = e->next) {
        if (!e->field || !e->msg || strncmp(e->field, pre, np) != 0)
            continue;
        char *end;
        unsigned long i = strtoul(e->field + np, &end, 10);
        if (*end != ']')
            continue;
        static const char dup[] = "Duplicate value: ";
        if (end[1] == '\0' && strncmp(e->msg, dup, sizeof dup - 1) == 0) {
            const json_t *r = json_array_get(requests, i);
            if (!json_is_object(r))
                continue;
            char *v = dra_v_go_json(r, DRA_GO_V1BETA1_DEVICE_REQUEST,
                                    dra_quantity_rules_of(dra_features_release_of(features)));
            dra_err_set_msg(e, dra_xasprintf("%s%s", dup, v));
            free(v);
        } else if (strncmp(end + 1, ".exactly", 8) == 0 && declarative_request_error(end + 9, e->msg)) {
            memmove(end + 1, end + 9, strlen(end + 9) + 1);
        }
    }
}
