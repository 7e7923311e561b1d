/* Kubernetes CEL libraries (apiserver pkg/cel/library): Quantity, Semver
 * (v1), IP, CIDR and URL.  Values are CEL_OBJECT (value.h).  Parsing uses
 * the project's model/quantity.h and model/semver.h.  Error texts follow the
 * upstream library where it defines them.
 * The Format library lives in lib_format.c. */
#include "functions.h"
#include "netip.h"
#include "neturl.h"
#include "../base/utf8.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

static cel_object *new_obj(cel_call_ctx *cx, cel_object_kind k)
{
    cel_object *o = cel_scratch_alloc(cx->scratch, sizeof *o);
    o->kind = k;
    o->by_pointer = false;
    return o;
}

static cel_value err_from(cel_call_ctx *cx, dra_err *e, const char *prefix)
{
    cel_value v = cel_errorf_s(cx->scratch, "%s%s", prefix, e->msg);
    dra_err_free(e);
    return v;
}

/* ---- Quantity ---- */

/* The evaluation's release's apimachinery rules (dra_quantity_rules). */
static unsigned q_rules(const cel_call_ctx *cx)
{
    return (cx->flags & CEL_EVAL_QUANTITY_138) ? DRA_QUANTITY_RULES_138 : DRA_QUANTITY_RULES_137;
}

/* resource.ParseQuantity of the evaluation's release. */
static dra_err *q_parse_rel(const cel_call_ctx *cx, const cel_value *str, dra_quantity *q)
{
    return dra_quantity_parse_rules(str->v.s.ptr, str->v.s.len, q_rules(cx), q);
}

F(q_parse)
{
    cel_object *o = new_obj(cx, CEL_OBJ_QUANTITY);
    dra_err *e = q_parse_rel(cx, &a[0], &o->u.quantity);
    if (e)
        return err_from(cx, e, "");
    return cel_objval(o);
}
F(q_is)
{
    dra_quantity q;
    dra_err *e = q_parse_rel(cx, &a[0], &q);
    if (e) {
        dra_err_free(e);
        return cel_bool(false);
    }
    return cel_bool(true);
}
#define Q(x) (&(x).v.obj->u.quantity)
F(q_sign)
{
    return cel_int(dra_quantity_sign(Q(a[0])));
}
F(q_is_integer)
{
    return cel_bool(dra_quantity_is_int64(Q(a[0])));
}
F(q_as_integer)
{
    int64_t i;
    if (!dra_quantity_as_int64(Q(a[0]), &i))
        return cel_error("cannot convert value to integer");
    return cel_int(i);
}
F(q_as_float)
{
    return cel_double(dra_quantity_as_float_rules(Q(a[0]), q_rules(cx)));
}
/* Numeric comparison (128-bit arithmetic for every real capacity). */
static int q_cmp(const dra_quantity *x, const dra_quantity *y)
{
    return dra_quantity_cmp(x, y);
}
F(q_compare)
{
    return cel_int(q_cmp(Q(a[0]), Q(a[1])));
}
F(q_greater)
{
    return cel_bool(q_cmp(Q(a[0]), Q(a[1])) > 0);
}
F(q_less)
{
    return cel_bool(q_cmp(Q(a[0]), Q(a[1])) < 0);
}
/* Quantity.Sub through apimachinery v0.37.2 (quantity.go, amount.go
 * int64Amount.Sub): with both on the int64 path it adds -y, and Go's
 * -math.MinInt64 is math.MinInt64, so x - MinInt64 is x + MinInt64
 * whenever that sum stays on the int64 path (8 - MinInt64 is
 * -9223372036854775800).  v0.38.0-beta.0 falls back to inf.Dec there. */
static bool q_sub_wraps(const cel_call_ctx *cx, const dra_quantity *x, const dra_quantity *y, dra_quantity *out)
{
    if ((cx->flags & CEL_EVAL_QUANTITY_138) || x->dec_backed || y->dec_backed || y->rep_scale != 0)
        return false;
    dra_quantity min = dra_quantity_from_int64(INT64_MIN, y->format);
    dra_quantity sum;
    if (dra_quantity_cmp(y, &min) != 0 || !dra_quantity_add(&sum, x, y) || sum.dec_backed)
        return false;
    *out = sum;
    return true;
}

static cel_value q_arith(cel_call_ctx *cx, const dra_quantity *x, const dra_quantity *y, bool add)
{
    cel_object *o = new_obj(cx, CEL_OBJ_QUANTITY);
    bool ok = add                                     ? dra_quantity_add_rules(&o->u.quantity, x, y, q_rules(cx))
              : q_sub_wraps(cx, x, y, &o->u.quantity) ? true
                                                      : dra_quantity_sub_rules(&o->u.quantity, x, y, q_rules(cx));
    if (!ok)
        return cel_error("quantity overflow");
    o->by_pointer = true; /* &apiservercel.Quantity{...} */
    return cel_objval(o);
}
F(q_add)
{
    return q_arith(cx, Q(a[0]), Q(a[1]), true);
}
F(q_sub)
{
    return q_arith(cx, Q(a[0]), Q(a[1]), false);
}
/* library/quantity.go quantityAddInt, quantitySubInt: the int as
 * resource.NewQuantity(i, DecimalExponent) (a zero receiver takes its
 * format: quantity("0").add(1000) is 1e3) */
F(q_add_int)
{
    dra_quantity y = dra_quantity_from_int64(a[1].v.i, DRA_QFMT_DECIMAL_EXPONENT);
    return q_arith(cx, Q(a[0]), &y, true);
}
F(q_sub_int)
{
    dra_quantity y = dra_quantity_from_int64(a[1].v.i, DRA_QFMT_DECIMAL_EXPONENT);
    return q_arith(cx, Q(a[0]), &y, false);
}

/* ---- Semver ---- */
static cel_value semver_parse(cel_call_ctx *cx, const cel_value *s, bool normalize)
{
    cel_object *o = new_obj(cx, CEL_OBJ_SEMVER);
    dra_err *e = normalize ? dra_semver_parse_normalize(s->v.s.ptr, s->v.s.len, &o->u.semver)
                           : dra_semver_parse(s->v.s.ptr, s->v.s.len, &o->u.semver);
    if (e)
        return err_from(cx, e, "");
    return cel_objval(o);
}
F(sv_parse)
{
    return semver_parse(cx, &a[0], false);
}
F(sv_parse_norm)
{
    return semver_parse(cx, &a[0], a[1].v.b);
}
static cel_value semver_is(const cel_value *s, bool normalize)
{
    dra_semver v;
    dra_err *e = normalize ? dra_semver_parse_normalize(s->v.s.ptr, s->v.s.len, &v)
                           : dra_semver_parse(s->v.s.ptr, s->v.s.len, &v);
    dra_err_free(e);
    return cel_bool(e == NULL);
}
F(sv_is)
{
    return semver_is(&a[0], false);
}
F(sv_is_norm)
{
    return semver_is(&a[0], a[1].v.b);
}
#define SV(x) (&(x).v.obj->u.semver)
F(sv_major)
{
    return cel_int((int64_t)SV(a[0])->major);
}
F(sv_minor)
{
    return cel_int((int64_t)SV(a[0])->minor);
}
F(sv_patch)
{
    return cel_int((int64_t)SV(a[0])->patch);
}
F(sv_compare)
{
    return cel_int(dra_semver_cmp(SV(a[0]), SV(a[1])));
}
F(sv_greater)
{
    return cel_bool(dra_semver_cmp(SV(a[0]), SV(a[1])) > 0);
}
F(sv_less)
{
    return cel_bool(dra_semver_cmp(SV(a[0]), SV(a[1])) < 0);
}

/* Shared with the k8s lists library: sum() and min()/max() over quantities. */
cel_value cel_k8s_add(cel_call_ctx *cx, const cel_value *x, const cel_value *y)
{
    if (x->kind == CEL_OBJECT && y->kind == CEL_OBJECT && x->v.obj->kind == CEL_OBJ_QUANTITY &&
        y->v.obj->kind == CEL_OBJ_QUANTITY)
        return q_arith(cx, &x->v.obj->u.quantity, &y->v.obj->u.quantity, true);
    if (x->kind == CEL_INT && y->kind == CEL_INT) {
        int64_t r;
        return __builtin_add_overflow(x->v.i, y->v.i, &r) ? cel_int_overflow() : cel_int(r);
    }
    if (x->kind == CEL_UINT && y->kind == CEL_UINT) {
        uint64_t r;
        return __builtin_add_overflow(x->v.u, y->v.u, &r) ? cel_uint_overflow() : cel_uint(r);
    }
    if (x->kind == CEL_DOUBLE && y->kind == CEL_DOUBLE)
        return cel_double(x->v.d + y->v.d);
    if (x->kind == CEL_DURATION && y->kind == CEL_DURATION) {
        __int128 ns = ((__int128)x->v.t.sec + y->v.t.sec) * 1000000000 + x->v.t.nsec + y->v.t.nsec;
        if (ns > INT64_MAX || ns < INT64_MIN)
            return cel_int_overflow();
        return cel_duration((int64_t)(ns / 1000000000), (int32_t)(ns % 1000000000));
    }
    return cel_no_such_overload();
}

int cel_k8s_compare(const cel_value *x, const cel_value *y, bool *ok)
{
    *ok = false;
    if (x->kind != CEL_OBJECT || y->kind != CEL_OBJECT || x->v.obj->kind != y->v.obj->kind)
        return 0;
    *ok = true;
    if (x->v.obj->kind == CEL_OBJ_QUANTITY)
        return dra_quantity_cmp(&x->v.obj->u.quantity, &y->v.obj->u.quantity);
    if (x->v.obj->kind == CEL_OBJ_SEMVER)
        return dra_semver_cmp(&x->v.obj->u.semver, &y->v.obj->u.semver);
    *ok = false;
    return 0;
}

/* ---- IP / CIDR (library/ip.go, cidr.go): no zones, no IPv4-mapped IPv6 ---- */

/* library/ip.go parseIPAddr over Go's netip.ParseAddr (netip.c); the
 * error text is appended to err (may be NULL). */
static bool parse_ip_err(const char *p, size_t len, cel_ip *out, dra_buf *err)
{
    cel_netip a;
    dra_buf why = DRA_BUF_INIT;
    bool ok = cel_netip_parse_addr(p, len, &a, err ? &why : NULL);
    if (!ok && err) {
        dra_buf_puts(err, "IP Address ");
        dra_go_quote(err, p, len);
        dra_buf_printf(err, " parse error during conversion from string: %s", dra_buf_str(&why));
    } else if (ok && (a.zoned || cel_netip_is_4in6(&a))) {
        ok = false;
        if (err) {
            dra_buf_puts(err, a.zoned ? "IP address " : "IPv4-mapped IPv6 address ");
            dra_go_quote(err, p, len);
            dra_buf_puts(err, a.zoned ? " with zone value is not allowed" : " is not allowed");
        }
    }
    dra_buf_free(&why);
    if (ok) {
        memset(out, 0, sizeof *out);
        memcpy(out->addr, a.addr, 16);
        out->family = (uint8_t)a.family;
    }
    return ok;
}
static bool parse_ip(const char *p, size_t len, cel_ip *out)
{
    return parse_ip_err(p, len, out, NULL);
}

/* An error value with the text of b, which is freed. */
static cel_value error_of(cel_call_ctx *cx, dra_buf *b)
{
    cel_value r = cel_errorf_s(cx->scratch, "%s", dra_buf_str(b));
    dra_buf_free(b);
    return r;
}
static void format_ip(const cel_ip *ip, char *buf, size_t cap)
{
    dra_buf b = DRA_BUF_INIT;
    cel_netip_format(ip->addr, ip->family, &b);
    snprintf(buf, cap, "%s", dra_buf_str(&b));
    dra_buf_free(&b);
}
F(ip_parse)
{
    cel_object *o = new_obj(cx, CEL_OBJ_IP);
    dra_buf err = DRA_BUF_INIT;
    if (!parse_ip_err(a[0].v.s.ptr, a[0].v.s.len, &o->u.ip, &err))
        return error_of(cx, &err);
    return cel_objval(o);
}
F(ip_is)
{
    cel_ip ip;
    return cel_bool(parse_ip(a[0].v.s.ptr, a[0].v.s.len, &ip));
}
F(ip_is_canonical)
{
    cel_ip ip;
    dra_buf err = DRA_BUF_INIT;
    if (!parse_ip_err(a[0].v.s.ptr, a[0].v.s.len, &ip, &err))
        return error_of(cx, &err);
    char buf[64];
    format_ip(&ip, buf, sizeof buf);
    return cel_bool(strlen(buf) == a[0].v.s.len && memcmp(buf, a[0].v.s.ptr, a[0].v.s.len) == 0);
}
#define IP(x) (&(x).v.obj->u.ip)
F(ip_family)
{
    return cel_int(IP(a[0])->family);
}
F(ip_is_unspecified)
{
    static const uint8_t zero[16] = {0};
    return cel_bool(memcmp(IP(a[0])->addr, zero, IP(a[0])->family == 4 ? 4 : 16) == 0);
}
F(ip_is_loopback)
{
    const cel_ip *ip = IP(a[0]);
    if (ip->family == 4)
        return cel_bool(ip->addr[0] == 127);
    static const uint8_t lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return cel_bool(memcmp(ip->addr, lo, 16) == 0);
}
F(ip_is_ll_multicast)
{
    const cel_ip *ip = IP(a[0]);
    if (ip->family == 4)
        return cel_bool(ip->addr[0] == 224 && ip->addr[1] == 0 && ip->addr[2] == 0);
    return cel_bool(ip->addr[0] == 0xff && (ip->addr[1] & 0x0f) == 0x02);
}
F(ip_is_ll_unicast)
{
    const cel_ip *ip = IP(a[0]);
    if (ip->family == 4)
        return cel_bool(ip->addr[0] == 169 && ip->addr[1] == 254);
    return cel_bool(ip->addr[0] == 0xfe && (ip->addr[1] & 0xc0) == 0x80);
}
F(ip_is_global_unicast)
{
    const cel_ip *ip = IP(a[0]);
    if (ip->family == 4) {
        bool bcast = ip->addr[0] == 255 && ip->addr[1] == 255 && ip->addr[2] == 255 && ip->addr[3] == 255;
        bool zero = !ip->addr[0] && !ip->addr[1] && !ip->addr[2] && !ip->addr[3];
        return cel_bool(!bcast && !zero && ip->addr[0] != 127 && ip->addr[0] < 224 &&
                        !(ip->addr[0] == 169 && ip->addr[1] == 254));
    }
    static const uint8_t zero[16] = {0};
    static const uint8_t lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return cel_bool(memcmp(ip->addr, zero, 16) && memcmp(ip->addr, lo, 16) && ip->addr[0] != 0xff &&
                    !(ip->addr[0] == 0xfe && (ip->addr[1] & 0xc0) == 0x80));
}
F(ip_to_string)
{
    char buf[64];
    format_ip(IP(a[0]), buf, sizeof buf);
    return cel_string_copy_s(cx->scratch, buf, strlen(buf));
}

/* library/cidr.go parseCIDR over Go's netip.ParsePrefix; the error text,
 * as stringToCIDR wraps it, is appended to err (may be NULL). */
static bool parse_cidr_err(const char *p, size_t len, cel_ip *ip, int *prefix, dra_buf *err)
{
    static const char wrap[] = "network address parse error during conversion from string: ";
    cel_netip a;
    dra_buf why = DRA_BUF_INIT;
    bool ok = cel_netip_parse_prefix(p, len, &a, prefix, err ? &why : NULL);
    if (!ok && err) {
        dra_buf_printf(err, "%s%s%s", wrap, wrap, dra_buf_str(&why));
    } else if (ok && cel_netip_is_4in6(&a)) {
        ok = false;
        if (err) {
            dra_buf_printf(err, "%sIPv4-mapped IPv6 address ", wrap);
            dra_go_quote(err, p, len);
            dra_buf_puts(err, " is not allowed");
        }
    }
    dra_buf_free(&why);
    if (ok) {
        memset(ip, 0, sizeof *ip);
        memcpy(ip->addr, a.addr, 16);
        ip->family = (uint8_t)a.family;
    }
    return ok;
}
static bool parse_cidr(const char *p, size_t len, cel_ip *ip, int *prefix)
{
    return parse_cidr_err(p, len, ip, prefix, NULL);
}
static void mask_ip(cel_ip *ip, int prefix)
{
    int bits = ip->family == 4 ? 32 : 128;
    for (int i = prefix; i < bits; i++)
        ip->addr[i / 8] &= (uint8_t) ~(0x80u >> (i % 8));
}
F(cidr_parse)
{
    cel_object *o = new_obj(cx, CEL_OBJ_CIDR);
    dra_buf err = DRA_BUF_INIT;
    if (!parse_cidr_err(a[0].v.s.ptr, a[0].v.s.len, &o->u.cidr.ip, &o->u.cidr.prefix, &err))
        return error_of(cx, &err);
    return cel_objval(o);
}
F(cidr_is)
{
    cel_ip ip;
    int pre;
    return cel_bool(parse_cidr(a[0].v.s.ptr, a[0].v.s.len, &ip, &pre));
}
#define CIDR(x) (&(x).v.obj->u.cidr)
static bool cidr_contains(const cel_value *c, const cel_ip *ip)
{
    if (ip->family != CIDR(*c)->ip.family)
        return false;
    cel_ip x = *ip, net = CIDR(*c)->ip;
    mask_ip(&x, CIDR(*c)->prefix);
    mask_ip(&net, CIDR(*c)->prefix);
    return memcmp(x.addr, net.addr, 16) == 0;
}
F(cidr_contains_ip)
{
    return cel_bool(cidr_contains(&a[0], IP(a[1])));
}
F(cidr_contains_ip_string)
{
    /* cidr.go cidrContainsIPString: a string that is no IP is "no such
     * overload" (the parse error is dropped) */
    cel_ip ip;
    if (!parse_ip(a[1].v.s.ptr, a[1].v.s.len, &ip))
        return cel_no_such_overload();
    return cel_bool(cidr_contains(&a[0], &ip));
}
static cel_value contains_cidr(const cel_value *c, const cel_ip *ip, int prefix)
{
    if (prefix < CIDR(*c)->prefix)
        return cel_bool(false);
    return cel_bool(cidr_contains(c, ip));
}
F(cidr_contains_cidr)
{
    return contains_cidr(&a[0], &CIDR(a[1])->ip, CIDR(a[1])->prefix);
}
F(cidr_contains_cidr_string)
{
    /* cidr.go cidrContainsCIDRString: the parse error is the answer */
    cel_ip ip;
    int pre;
    dra_buf err = DRA_BUF_INIT;
    if (!parse_cidr_err(a[1].v.s.ptr, a[1].v.s.len, &ip, &pre, &err))
        return error_of(cx, &err);
    return contains_cidr(&a[0], &ip, pre);
}
F(cidr_ip)
{
    cel_object *o = new_obj(cx, CEL_OBJ_IP);
    o->u.ip = CIDR(a[0])->ip;
    return cel_objval(o);
}
F(cidr_masked)
{
    cel_object *o = new_obj(cx, CEL_OBJ_CIDR);
    o->u.cidr = *CIDR(a[0]);
    mask_ip(&o->u.cidr.ip, o->u.cidr.prefix);
    return cel_objval(o);
}
F(cidr_prefix_length)
{
    return cel_int(CIDR(a[0])->prefix);
}
F(cidr_to_string)
{
    char buf[64];
    format_ip(&CIDR(a[0])->ip, buf, sizeof buf);
    char *t = cel_scratch_printf(cx->scratch, "%s/%d", buf, CIDR(a[0])->prefix);
    return cel_string(t, strlen(t));
}

/* ---- URL (library/urls.go: Go's url.ParseRequestURI checks, url.Parse
 * splits; neturl.c) ---- */
F(url_parse)
{
    cel_object *o = new_obj(cx, CEL_OBJ_URL);
    dra_buf err = DRA_BUF_INIT;
    if (!cel_neturl_parse(cx->scratch, a[0].v.s.ptr, a[0].v.s.len, true, &o->u.url, &err) ||
        !cel_neturl_parse(cx->scratch, a[0].v.s.ptr, a[0].v.s.len, false, &o->u.url, &err)) {
        cel_value r = cel_errorf_s(cx->scratch, "URL parse error during conversion from string: %s", dra_buf_str(&err));
        dra_buf_free(&err);
        return r;
    }
    return cel_objval(o);
}
/* For the Format library's "uri" (url.ParseRequestURI succeeds). */
bool cel_format_url_valid(cel_call_ctx *cx, const char *p, size_t len)
{
    cel_url u;
    return cel_neturl_parse(cx->scratch, p, len, true, &u, NULL);
}
F(url_is)
{
    cel_url u;
    return cel_bool(cel_neturl_parse(cx->scratch, a[0].v.s.ptr, a[0].v.s.len, true, &u, NULL));
}
#define URLF(name, field)                                                                                              \
    F(name)                                                                                                            \
    {                                                                                                                  \
        const char *s = a[0].v.obj->u.url.field;                                                                       \
        return cel_string(s, strlen(s));                                                                               \
    }
URLF(url_scheme, scheme)
URLF(url_host, host)
URLF(url_hostname, hostname)
URLF(url_port, port)
URLF(url_path, path)
F(url_query)
{
    /* map(string, list(string)) of the raw query: keys in first-seen order */
    const char *q = a[0].v.obj->u.url.query;
    size_t len = strlen(q), cnt = 0;
    for (size_t i = 0; i < len; i++)
        cnt += q[i] == '&' || q[i] == ';';
    cnt += 1;
    cel_value *keys = cel_scratch_alloc(cx->scratch, cnt * sizeof *keys);
    cel_value *vals = cel_scratch_alloc(cx->scratch, cnt * sizeof *vals);
    cel_value *lists = cel_scratch_alloc(cx->scratch, cnt * sizeof *lists);
    size_t nk = 0;
    const char *p = q;
    while (len && p <= q + len) {
        const char *e = p;
        while (e < q + len && *e != '&')
            e++;
        if (e > p) {
            const char *eq = memchr(p, '=', (size_t)(e - p));
            cel_value k = cel_string(p, eq ? (size_t)(eq - p) : (size_t)(e - p));
            cel_value v = eq ? cel_string(eq + 1, (size_t)(e - eq - 1)) : cel_string("", 0);
            size_t j;
            for (j = 0; j < nk; j++)
                if (cel_value_equal(&keys[j], &k))
                    break;
            cel_value *items;
            if (j == nk) {
                keys[nk] = k;
                items = cel_scratch_alloc(cx->scratch, cnt * sizeof *items);
                cel_list *l = cel_scratch_zalloc(cx->scratch, sizeof *l);
                l->n = 0;
                l->items_ = items;
                lists[nk] = cel_listval(l);
                nk++;
            }
            cel_list *l = (cel_list *)lists[j].v.list;
            ((cel_value *)l->items_)[l->n++] = v;
        }
        p = e + 1;
    }
    for (size_t j = 0; j < nk; j++)
        vals[j] = lists[j];
    return cel_map_build_s(cx->scratch, keys, vals, nk, 0);
}

/* clang-format off */
static const cel_type t_map_string_list_string = {.kind = CEL_T_MAP, .params = {&cel_t_string, &cel_t_list_string}, .nparams = 2};

#define S (&cel_t_string)
#define I (&cel_t_int)
#define B (&cel_t_bool)
#define QT (&cel_t_quantity)
#define SVT (&cel_t_semver)
#define IPT (&cel_t_ip)
#define CT (&cel_t_cidr)
#define UT (&cel_t_url)
#define K(id, fn, mem, res, impl, lib, n, ...) {id, fn, mem, n, {__VA_ARGS__}, res, impl, CEL_COST_ONE, 0, NULL, lib, false}
/* clang-format on */
const cel_overload cel_lib_k8s[] = {
    K("string_to_quantity", "quantity", false, QT, q_parse, CEL_LIB_K8S_QUANTITY, 1, S),
    K("is_quantity_string", "isQuantity", false, B, q_is, CEL_LIB_K8S_QUANTITY, 1, S),
    K("quantity_sign", "sign", false, I, q_sign, CEL_LIB_K8S_QUANTITY, 1, QT),
    K("quantity_is_integer", "isInteger", true, B, q_is_integer, CEL_LIB_K8S_QUANTITY, 1, QT),
    K("quantity_get_int", "asInteger", true, I, q_as_integer, CEL_LIB_K8S_QUANTITY, 1, QT),
    K("quantity_get_float", "asApproximateFloat", true, &cel_t_double, q_as_float, CEL_LIB_K8S_QUANTITY, 1, QT),
    K("quantity_compare_to", "compareTo", true, I, q_compare, CEL_LIB_K8S_QUANTITY, 2, QT, QT),
    K("quantity_is_greater_than", "isGreaterThan", true, B, q_greater, CEL_LIB_K8S_QUANTITY, 2, QT, QT),
    K("quantity_is_less_than", "isLessThan", true, B, q_less, CEL_LIB_K8S_QUANTITY, 2, QT, QT),
    K("quantity_add", "add", true, QT, q_add, CEL_LIB_K8S_QUANTITY, 2, QT, QT),
    K("quantity_add_int", "add", true, QT, q_add_int, CEL_LIB_K8S_QUANTITY, 2, QT, I),
    K("quantity_sub", "sub", true, QT, q_sub, CEL_LIB_K8S_QUANTITY, 2, QT, QT),
    K("quantity_sub_int", "sub", true, QT, q_sub_int, CEL_LIB_K8S_QUANTITY, 2, QT, I),

    K("string_to_semver", "semver", false, SVT, sv_parse, CEL_LIB_K8S_SEMVER, 1, S),
    K("string_bool_to_semver_normalize", "semver", false, SVT, sv_parse_norm, CEL_LIB_K8S_SEMVER, 2, S, B),
    K("is_semver_string", "isSemver", false, B, sv_is, CEL_LIB_K8S_SEMVER, 1, S),
    K("is_semver_string_bool_normalize", "isSemver", false, B, sv_is_norm, CEL_LIB_K8S_SEMVER, 2, S, B),
    K("semver_major", "major", true, I, sv_major, CEL_LIB_K8S_SEMVER, 1, SVT),
    K("semver_minor", "minor", true, I, sv_minor, CEL_LIB_K8S_SEMVER, 1, SVT),
    K("semver_patch", "patch", true, I, sv_patch, CEL_LIB_K8S_SEMVER, 1, SVT),
    K("semver_compare_to", "compareTo", true, I, sv_compare, CEL_LIB_K8S_SEMVER, 2, SVT, SVT),
    K("semver_is_greater_than", "isGreaterThan", true, B, sv_greater, CEL_LIB_K8S_SEMVER, 2, SVT, SVT),
    K("semver_is_less_than", "isLessThan", true, B, sv_less, CEL_LIB_K8S_SEMVER, 2, SVT, SVT),

    K("string_to_ip", "ip", false, IPT, ip_parse, CEL_LIB_K8S_IP, 1, S),
    K("is_ip", "isIP", false, B, ip_is, CEL_LIB_K8S_IP, 1, S),
    K("ip_is_canonical", "ip.isCanonical", false, B, ip_is_canonical, CEL_LIB_K8S_IP, 1, S),
    K("ip_family", "family", true, I, ip_family, CEL_LIB_K8S_IP, 1, IPT),
    K("ip_is_unspecified", "isUnspecified", true, B, ip_is_unspecified, CEL_LIB_K8S_IP, 1, IPT),
    K("ip_is_loopback", "isLoopback", true, B, ip_is_loopback, CEL_LIB_K8S_IP, 1, IPT),
    K("ip_is_link_local_multicast", "isLinkLocalMulticast", true, B, ip_is_ll_multicast, CEL_LIB_K8S_IP, 1, IPT),
    K("ip_is_link_local_unicast", "isLinkLocalUnicast", true, B, ip_is_ll_unicast, CEL_LIB_K8S_IP, 1, IPT),
    K("ip_is_global_unicast", "isGlobalUnicast", true, B, ip_is_global_unicast, CEL_LIB_K8S_IP, 1, IPT),
    K("ip_to_string", "string", false, S, ip_to_string, CEL_LIB_K8S_IP, 1, IPT),

    K("string_to_cidr", "cidr", false, CT, cidr_parse, CEL_LIB_K8S_CIDR, 1, S),
    K("is_cidr", "isCIDR", false, B, cidr_is, CEL_LIB_K8S_CIDR, 1, S),
    /* in cidr.go's order: a type variable binds to string first */
    K("cidr_contains_ip_string", "containsIP", true, B, cidr_contains_ip_string, CEL_LIB_K8S_CIDR, 2, CT, S),
    K("cidr_contains_ip_ip", "containsIP", true, B, cidr_contains_ip, CEL_LIB_K8S_CIDR, 2, CT, IPT),
    K("cidr_contains_cidr_string", "containsCIDR", true, B, cidr_contains_cidr_string, CEL_LIB_K8S_CIDR, 2, CT, S),
    K("cidr_contains_cidr", "containsCIDR", true, B, cidr_contains_cidr, CEL_LIB_K8S_CIDR, 2, CT, CT),
    K("cidr_ip", "ip", true, IPT, cidr_ip, CEL_LIB_K8S_CIDR, 1, CT),
    K("cidr_masked", "masked", true, CT, cidr_masked, CEL_LIB_K8S_CIDR, 1, CT),
    K("cidr_prefix_length", "prefixLength", true, I, cidr_prefix_length, CEL_LIB_K8S_CIDR, 1, CT),
    K("cidr_to_string", "string", false, S, cidr_to_string, CEL_LIB_K8S_CIDR, 1, CT),

    K("string_to_url", "url", false, UT, url_parse, CEL_LIB_K8S_URL, 1, S),
    K("is_url_string", "isURL", false, B, url_is, CEL_LIB_K8S_URL, 1, S),
    K("url_get_scheme", "getScheme", true, S, url_scheme, CEL_LIB_K8S_URL, 1, UT),
    K("url_get_host", "getHost", true, S, url_host, CEL_LIB_K8S_URL, 1, UT),
    K("url_get_hostname", "getHostname", true, S, url_hostname, CEL_LIB_K8S_URL, 1, UT),
    K("url_get_port", "getPort", true, S, url_port, CEL_LIB_K8S_URL, 1, UT),
    K("url_get_escaped_path", "getEscapedPath", true, S, url_path, CEL_LIB_K8S_URL, 1, UT),
    K("url_get_query", "getQuery", true, &t_map_string_list_string, url_query, CEL_LIB_K8S_URL, 1, UT),
};
const size_t cel_lib_k8s_n = sizeof cel_lib_k8s / sizeof cel_lib_k8s[0];
