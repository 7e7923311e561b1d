/* The Kubernetes Format library (apiserver pkg/cel/library/format.go):
 * format.named(name) -> optional(kubernetes.NamedFormat), format.<name>()
 * and <format>.validate(s) -> optional(list(string)) (none when valid).
 * The messages are apimachinery's (pkg/util/validation IsDNS1123Label,
 * IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName, IsValidLabelValue;
 * pkg/api/validation NameIsDNS* with prefix masking) and those of the
 * format table (uri, uuid, byte, date, datetime). */
#include "functions.h"
#include "../base/base64.h"
#include "../model/names.h"

#include <string.h>

#define F(name) static cel_value name(cel_call_ctx *cx, const cel_value *a, size_t n)

/* clang-format off */
enum {
    FMT_DNS1123_LABEL, FMT_DNS1123_SUBDOMAIN, FMT_DNS1035_LABEL, FMT_QUALIFIED_NAME, FMT_DNS1123_LABEL_PREFIX,
    FMT_DNS1123_SUBDOMAIN_PREFIX, FMT_DNS1035_LABEL_PREFIX, FMT_LABEL_VALUE, FMT_URI, FMT_UUID, FMT_BYTE, FMT_DATE,
    FMT_DATETIME, FMT_COUNT
};
/* clang-format on */

/* One static object per format: values may point at them from anywhere.
 * Each carries its name, so printing a value needs no library table. */
#define FORMAT(i, name)                                                                                                \
    {                                                                                                                  \
        CEL_OBJ_FORMAT, .u.format = { i, name }                                                                        \
    }
static const cel_object format_objects[FMT_COUNT] = {
    FORMAT(FMT_DNS1123_LABEL, "dns1123Label"),
    FORMAT(FMT_DNS1123_SUBDOMAIN, "dns1123Subdomain"),
    FORMAT(FMT_DNS1035_LABEL, "dns1035Label"),
    FORMAT(FMT_QUALIFIED_NAME, "qualifiedName"),
    FORMAT(FMT_DNS1123_LABEL_PREFIX, "dns1123LabelPrefix"),
    FORMAT(FMT_DNS1123_SUBDOMAIN_PREFIX, "dns1123SubdomainPrefix"),
    FORMAT(FMT_DNS1035_LABEL_PREFIX, "dns1035LabelPrefix"),
    FORMAT(FMT_LABEL_VALUE, "labelValue"),
    FORMAT(FMT_URI, "uri"),
    FORMAT(FMT_UUID, "uuid"),
    FORMAT(FMT_BYTE, "byte"),
    FORMAT(FMT_DATE, "date"),
    FORMAT(FMT_DATETIME, "datetime"),
};
#undef FORMAT

/* The regex size upstream estimates each format's validation with
 * (apiserver library/format.go ConstantFormats MaxRegexSize). */
/* clang-format off */
static const int max_regex_size[FMT_COUNT] = {
    [FMT_DNS1123_LABEL] = 30, [FMT_DNS1123_SUBDOMAIN] = 60, [FMT_DNS1035_LABEL] = 30,
    [FMT_QUALIFIED_NAME] = 60, [FMT_DNS1123_LABEL_PREFIX] = 30, [FMT_DNS1123_SUBDOMAIN_PREFIX] = 60,
    [FMT_DNS1035_LABEL_PREFIX] = 30, [FMT_LABEL_VALUE] = 40, [FMT_URI] = 1103, [FMT_UUID] = 70,
    [FMT_BYTE] = 84, [FMT_DATE] = 71, [FMT_DATETIME] = 71,
};
/* clang-format on */

int cel_format_max_regex_size(const cel_value *format)
{
    if (format->kind != CEL_OBJECT || format->v.obj->kind != CEL_OBJ_FORMAT)
        return -1;
    int i = format->v.obj->u.format.index;
    return i >= 0 && i < FMT_COUNT ? max_regex_size[i] : -1;
}

/* ---- apimachinery's validators ---- */

/* clang-format off */
#define DNS1123_LABEL_MSG "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
                          "and must start and end with an alphanumeric character"
#define DNS1123_SUBDOMAIN_MSG "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, " \
                              "'-' or '.', and must start and end with an alphanumeric character"
#define DNS1035_LABEL_FMT "[a-z]([-a-z0-9]*[a-z0-9])?"
#define DNS1035_LABEL_MSG "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with " \
                          "an alphabetic character, and end with an alphanumeric character"
#define LABEL_VALUE_FMT "(" DRA_QUALIFIED_NAME_FMT ")?"
#define LABEL_VALUE_MSG "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
                        "or '.', and must start and end with an alphanumeric character"
/* clang-format on */

typedef struct msgs {
    cel_value items[4];
    size_t n;
} msgs;

static void add_msg(msgs *m, cel_value s)
{
    if (m->n < sizeof m->items / sizeof m->items[0])
        m->items[m->n++] = s;
}
static void add_lit(msgs *m, const char *s)
{
    add_msg(m, cel_string(s, strlen(s)));
}
/* A message built in scratch memory. */
static void add_text(msgs *m, const char *s)
{
    add_lit(m, s);
}

static void check_dns1123_label(msgs *m, const char *s, size_t len)
{
    if (len > 63)
        add_lit(m, "must be no more than 63 characters");
    if (!dra_is_dns1123_label_format(s, len)) {
        if (dra_is_dns1123_subdomain_format(s, len))
            add_lit(m, "must not contain dots");
        else
            add_lit(m, DNS1123_LABEL_MSG
                    " (e.g. 'my-name' or '123-abc', regex used for validation is '" DRA_DNS1123_LABEL_FMT "')");
    }
}

static void check_dns1123_subdomain(msgs *m, const char *s, size_t len)
{
    static const char too_long[] = "must be no more than 253 characters";
    static const char bad[] =
        DNS1123_SUBDOMAIN_MSG " (e.g. 'example.com', regex used for validation is '" DRA_DNS1123_SUBDOMAIN_FMT "')";
    if (len > 253)
        add_lit(m, too_long);
    if (!dra_is_dns1123_subdomain_format(s, len))
        add_lit(m, bad);
}

static void check_dns1035_label(msgs *m, const char *s, size_t len)
{
    if (len > 63)
        add_lit(m, "must be no more than 63 characters");
    if (!dra_is_dns1035_label_format(s, len))
        add_lit(m, DNS1035_LABEL_MSG " (e.g. 'my-name' or 'abc-123', regex used for validation is '" DNS1035_LABEL_FMT
                                     "')");
}

static void check_qualified_name(cel_call_ctx *cx, msgs *m, const char *s, size_t len)
{
    const char *slash = memchr(s, '/', len);
    const char *name = s;
    size_t nlen = len;
    if (slash) {
        if (memchr(slash + 1, '/', len - (size_t)(slash + 1 - s))) {
            add_lit(m,
                    "a qualified name " DRA_QUALIFIED_NAME_ERR
                    " (e.g. 'MyName' or 'my.name' or '123-abc', regex used for "
                    "validation is '" DRA_QUALIFIED_NAME_FMT "') with an optional DNS subdomain prefix and '/' (e.g. "
                    "'example.com/MyName')");
            return;
        }
        size_t plen = (size_t)(slash - s);
        if (plen == 0) {
            add_lit(m, "prefix part must be non-empty");
        } else {
            msgs sub = {0};
            check_dns1123_subdomain(&sub, s, plen);
            for (size_t i = 0; i < sub.n; i++) {
                const cel_value *v = &sub.items[i];
                add_text(m, cel_scratch_printf(cx->scratch, "prefix part %.*s", (int)v->v.s.len, v->v.s.ptr));
            }
        }
        name = slash + 1;
        nlen = len - plen - 1;
    }
    if (nlen == 0)
        add_lit(m, "name part must be non-empty");
    else if (nlen > 63)
        add_lit(m, "name part must be no more than 63 characters");
    if (!dra_is_qualified_name_part_format(name, nlen))
        add_lit(m, "name part " DRA_QUALIFIED_NAME_ERR " (e.g. 'MyName' or 'my.name' or '123-abc', regex used for "
                   "validation is '" DRA_QUALIFIED_NAME_FMT "')");
}

static void check_label_value(msgs *m, const char *s, size_t len)
{
    if (len > 63)
        add_lit(m, "must be no more than 63 characters");
    if (len > 0 && !dra_is_qualified_name_part_format(s, len))
        add_lit(m, LABEL_VALUE_MSG
                " (e.g. 'MyValue' or 'my_value' or '12345', regex used for validation is '" LABEL_VALUE_FMT "')");
}

/* apimachinery maskTrailingDash, exactly as upstream writes it
 * (name[:len(name)-2] + "a"): a prefix may end in '-'. */
static const char *mask_trailing_dash(cel_call_ctx *cx, const char *s, size_t *len)
{
    if (*len > 1 && s[*len - 1] == '-') {
        char *t = cel_scratch_alloc(cx->scratch, *len);
        memcpy(t, s, *len - 2);
        t[*len - 2] = 'a';
        *len -= 1;
        return t;
    }
    return s;
}

static bool hexdig(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_uuid(const char *s, size_t len)
{
    if (len != 36)
        return false;
    for (size_t i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !hexdig(s[i]))
            return false;
    }
    return true;
}

/* base64.StdEncoding.DecodeString succeeds (CR and LF ignored, padding required). */
static bool is_std_base64(const char *s, size_t len)
{
    return dra_base64_decode_go(NULL, s, len, 0, NULL);
}

/* time.Parse("2006-01-02", s) */
static bool is_full_date(const char *s, size_t len)
{
    if (len != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (size_t i = 0; i < 10; i++)
        if (i != 4 && i != 7 && !(s[i] >= '0' && s[i] <= '9'))
            return false;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int mo = (s[5] - '0') * 10 + (s[6] - '0'), d = (s[8] - '0') * 10 + (s[9] - '0');
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1)
        return false;
    int dim = days[mo - 1] + (mo == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
    return d <= dim;
}

static cel_value validate(cel_call_ctx *cx, int format, const char *s, size_t len)
{
    msgs m = {0};
    switch (format) {
    case FMT_DNS1123_LABEL_PREFIX: s = mask_trailing_dash(cx, s, &len); /* fall through */
    case FMT_DNS1123_LABEL: check_dns1123_label(&m, s, len); break;
    case FMT_DNS1123_SUBDOMAIN_PREFIX: s = mask_trailing_dash(cx, s, &len); /* fall through */
    case FMT_DNS1123_SUBDOMAIN: check_dns1123_subdomain(&m, s, len); break;
    case FMT_DNS1035_LABEL_PREFIX: s = mask_trailing_dash(cx, s, &len); /* fall through */
    case FMT_DNS1035_LABEL: check_dns1035_label(&m, s, len); break;
    case FMT_QUALIFIED_NAME: check_qualified_name(cx, &m, s, len); break;
    case FMT_LABEL_VALUE: check_label_value(&m, s, len); break;
    case FMT_URI:
        if (len == 0)
            add_lit(&m, "parse \"\": empty url");
        else if (!cel_format_url_valid(cx, s, len))
            add_text(&m, cel_scratch_printf(cx->scratch, "parse \"%.*s\": invalid URI for request", (int)len, s));
        break;
    case FMT_UUID:
        if (!is_uuid(s, len))
            add_lit(&m, "does not match the UUID format");
        break;
    case FMT_BYTE:
        if (!is_std_base64(s, len))
            add_lit(&m, "invalid base64");
        break;
    case FMT_DATE:
        if (!is_full_date(s, len))
            add_lit(&m, "invalid date");
        break;
    case FMT_DATETIME: {
        int64_t sec;
        int32_t nsec;
        if (!cel_timestamp_parse(s, len, &sec, &nsec))
            add_lit(&m, "invalid datetime");
        break;
    }
    default: return cel_no_such_overload();
    }
    if (m.n == 0)
        return cel_optional_none();
    return cel_optional_of_s(cx->scratch, cel_list_copy_s(cx->scratch, m.items, m.n));
}

F(format_validate)
{
    if (a[0].kind != CEL_OBJECT || a[0].v.obj->kind != CEL_OBJ_FORMAT || a[1].kind != CEL_STRING)
        return cel_no_such_overload();
    return validate(cx, a[0].v.obj->u.format.index, a[1].v.s.ptr, a[1].v.s.len);
}

F(format_named)
{
    for (int i = 0; i < FMT_COUNT; i++)
        if (strlen(format_objects[i].u.format.name) == a[0].v.s.len &&
            memcmp(format_objects[i].u.format.name, a[0].v.s.ptr, a[0].v.s.len) == 0)
            return cel_optional_of_s(cx->scratch, cel_objval(&format_objects[i]));
    return cel_optional_none();
}

/* clang-format off */
#define CONSTANT(idx, name)                                                  \
    static cel_value format_##name(cel_call_ctx *cx, const cel_value *a, size_t n) \
    {                                                                        \
        return cel_objval(&format_objects[idx]);                             \
    }
/* clang-format on */
CONSTANT(FMT_DNS1123_LABEL, dns1123Label)
CONSTANT(FMT_DNS1123_SUBDOMAIN, dns1123Subdomain)
CONSTANT(FMT_DNS1035_LABEL, dns1035Label)
CONSTANT(FMT_QUALIFIED_NAME, qualifiedName)
CONSTANT(FMT_DNS1123_LABEL_PREFIX, dns1123LabelPrefix)
CONSTANT(FMT_DNS1123_SUBDOMAIN_PREFIX, dns1123SubdomainPrefix)
CONSTANT(FMT_DNS1035_LABEL_PREFIX, dns1035LabelPrefix)
CONSTANT(FMT_LABEL_VALUE, labelValue)
CONSTANT(FMT_URI, uri)
CONSTANT(FMT_UUID, uuid)
CONSTANT(FMT_BYTE, byte)
CONSTANT(FMT_DATE, date)
CONSTANT(FMT_DATETIME, datetime)

static const cel_type t_opt_format = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_format}, .nparams = 1};
static const cel_type t_opt_list_string = {.kind = CEL_T_OPTIONAL, .params = {&cel_t_list_string}, .nparams = 1};

/* clang-format off */
#define FC(name) {"format." #name, "format." #name, false, 0, {NULL}, &cel_t_format, format_##name, \
                   CEL_COST_ONE, 0, NULL, CEL_LIB_K8S_FORMAT, false}
const cel_overload cel_lib_format[] = {
    {"format-validate", "validate", true, 2, {&cel_t_format, &cel_t_string}, &t_opt_list_string, format_validate,
     CEL_COST_ONE, 0, NULL, CEL_LIB_K8S_FORMAT, false},
    {"format-named", "format.named", false, 1, {&cel_t_string}, &t_opt_format, format_named, CEL_COST_ONE, 0, NULL,
     CEL_LIB_K8S_FORMAT, false},
    FC(dns1123Label), FC(dns1123Subdomain), FC(dns1035Label), FC(qualifiedName), FC(dns1123LabelPrefix),
    FC(dns1123SubdomainPrefix), FC(dns1035LabelPrefix), FC(labelValue), FC(uri), FC(uuid), FC(byte), FC(date),
    FC(datetime),
};
/* clang-format on */
const size_t cel_lib_format_n = sizeof cel_lib_format / sizeof cel_lib_format[0];
