/* Name formats and field errors; see names.h.  Message texts are upstream's
 * (k8s.io/apimachinery/pkg/api/validate/content: dns.go, identifier.go,
 * kube.go, errors.go; pkg/util/validation/field/errors.go). */
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

/* ---- field errors ---- */

static void add_msg(dra_errs *l, const char *field, dra_buf *msg)
{
    dra_err *e = dra_err_newn(DRA_EXIT_INPUT, dra_buf_str(msg), msg->len);
    if (field && *field)
        e = dra_err_field(e, field);
    dra_buf_free(msg);
    dra_errs_add(l, e);
}

static void add_detail(dra_buf *m, const char *detail)
{
    if (detail && *detail) {
        dra_buf_puts(m, ": ");
        dra_buf_puts(m, detail);
    }
}

void dra_ferr_required(dra_errs *l, const char *field, const char *detail)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Required value");
    add_detail(&m, detail);
    add_msg(l, field, &m);
}

void dra_ferr_forbidden(dra_errs *l, const char *field, const char *detail)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Forbidden");
    add_detail(&m, detail);
    add_msg(l, field, &m);
}

void dra_ferr_internal(dra_errs *l, const char *field, const char *detail)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Internal error");
    add_detail(&m, detail);
    add_msg(l, field, &m);
}

void dra_ferr_invalid_str(dra_errs *l, const char *field, const char *value, size_t len, const char *detail)
{
    dra_ferr_invalid_str_n(l, field, value, len, detail, detail ? strlen(detail) : 0);
}

void dra_ferr_invalid_str_n(dra_errs *l, const char *field, const char *value, size_t len, const char *detail,
                            size_t dlen)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Invalid value: ");
    dra_go_quote_echo(&m, value ? value : "", value ? len : 0);
    if (detail && dlen) {
        dra_buf_puts(&m, ": ");
        dra_buf_append(&m, detail, dlen);
    }
    add_msg(l, field, &m);
}

void dra_ferr_invalid_int(dra_errs *l, const char *field, int64_t value, const char *detail)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_printf(&m, "Invalid value: %lld", (long long)value);
    add_detail(&m, detail);
    add_msg(l, field, &m);
}

void dra_ferr_invalid_raw(dra_errs *l, const char *field, const char *rendered, const char *detail)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Invalid value: ");
    if (rendered)
        dra_put_echo(&m, rendered, strlen(rendered));
    else
        dra_buf_puts(&m, "null");
    add_detail(&m, detail);
    add_msg(l, field, &m);
}

void dra_ferr_too_long(dra_errs *l, const char *field, long max)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_printf(&m, "Too long: may not be more than %ld %s", max, max == 1 ? "byte" : "bytes");
    add_msg(l, field, &m);
}

void dra_ferr_too_long_chars(dra_errs *l, const char *field, long max)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_printf(&m, "Too long: may not be more than %ld %s", max, max == 1 ? "character" : "characters");
    add_msg(l, field, &m);
}

void dra_ferr_too_many(dra_errs *l, const char *field, long actual, long max)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_printf(&m, "Too many: %ld: must have at most %ld %s", actual, max, max == 1 ? "item" : "items");
    add_msg(l, field, &m);
}

void dra_ferr_duplicate_str(dra_errs *l, const char *field, const char *value, size_t len)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Duplicate value: ");
    dra_go_quote_echo(&m, value, len);
    add_msg(l, field, &m);
}

void dra_ferr_duplicate_raw(dra_errs *l, const char *field, const char *rendered)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Duplicate value: ");
    dra_put_echo(&m, rendered, strlen(rendered));
    add_msg(l, field, &m);
}

void dra_ferr_unsupported(dra_errs *l, const char *field, const char *value, size_t len, const char *const *supported,
                          size_t nsupported)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Unsupported value: ");
    dra_go_quote_echo(&m, value, len);
    if (nsupported) {
        dra_buf_puts(&m, ": supported values: ");
        for (size_t i = 0; i < nsupported; i++) {
            if (i)
                dra_buf_puts(&m, ", ");
            dra_go_quote(&m, supported[i], strlen(supported[i]));
        }
    }
    add_msg(l, field, &m);
}

void dra_ferr_not_found(dra_errs *l, const char *field, const char *value, size_t len)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Not found: ");
    dra_go_quote_echo(&m, value, len);
    add_msg(l, field, &m);
}

void dra_ferr_not_found_detail(dra_errs *l, const char *field, const char *value, size_t len, const char *detail)
{
    dra_buf m = DRA_BUF_INIT;
    dra_buf_puts(&m, "Not found: ");
    dra_go_quote(&m, value, len);
    add_detail(&m, detail);
    add_msg(l, field, &m);
}

/* ---- paths ---- */

size_t dra_path_child(dra_buf *p, const char *name)
{
    size_t mark = p->len;
    if (p->len)
        dra_buf_putc(p, '.');
    dra_buf_puts(p, name);
    return mark;
}

size_t dra_path_index(dra_buf *p, size_t i)
{
    size_t mark = p->len;
    char digits[24], *d = digits + sizeof digits;
    *--d = ']';
    do
        *--d = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    *--d = '[';
    dra_buf_append(p, d, (size_t)(digits + sizeof digits - d));
    return mark;
}

size_t dra_path_key(dra_buf *p, const char *key, size_t len)
{
    size_t mark = p->len;
    dra_buf_putc(p, '[');
    dra_buf_append(p, key, len);
    dra_buf_putc(p, ']');
    return mark;
}

void dra_path_pop(dra_buf *p, size_t mark)
{
    if (p->data && mark <= p->len) {
        p->len = mark;
        p->data[mark] = '\0';
    }
}

/* ---- message texts ---- */

/* RegexError(msg, fmt, examples...) renders examples as "'a', " joined by " or ". */
static const char MSG_LABEL_REGEX[] =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'" DRA_DNS1123_LABEL_FMT "')";
static const char MSG_SUBDOMAIN_REGEX[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'" DRA_DNS1123_SUBDOMAIN_FMT "')";
/* content.IsDNS1123SubdomainCaseless: its own words, the lower-case regex */
static const char MSG_SUBDOMAIN_CASELESS_REGEX[] =
    "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'Example.com', regex used for validation is '" DRA_DNS1123_SUBDOMAIN_FMT "')";
static const char MSG_QUALIFIED_REGEX[] = DRA_QUALIFIED_NAME_ERR
    " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" DRA_QUALIFIED_NAME_FMT "')";
static const char MSG_LABEL_VALUE_REGEX[] =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation "
    "is '(" DRA_QUALIFIED_NAME_FMT ")?')";
static const char MSG_C_IDENTIFIER_REGEX[] =
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')";

/* ---- predicates ---- */

static bool is_lower_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(unsigned char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? without a length limit */
bool dra_is_dns1123_label_format(const char *s, size_t len)
{
    if (len == 0 || !is_lower_alnum((unsigned char)s[0]) || !is_lower_alnum((unsigned char)s[len - 1]))
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_lower_alnum(c) && c != '-')
            return false;
    }
    return true;
}

bool dra_is_dns1035_label_format(const char *s, size_t len)
{
    return len > 0 && s[0] >= 'a' && s[0] <= 'z' && dra_is_dns1123_label_format(s, len);
}

bool dra_is_dns1123_subdomain_format(const char *s, size_t len)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            if (!dra_is_dns1123_label_format(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

bool dra_is_qualified_name_part_format(const char *s, size_t len)
{
    if (len == 0 || !is_alnum((unsigned char)s[0]) || !is_alnum((unsigned char)s[len - 1]))
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_alnum(c) && c != '-' && c != '_' && c != '.')
            return false;
    }
    return true;
}

bool dra_is_qualified_name(const char *s, size_t len)
{
    const char *slash = memchr(s, '/', len);
    if (!slash)
        return len <= DRA_QUALIFIED_NAME_MAX && dra_is_qualified_name_part_format(s, len);
    size_t plen = (size_t)(slash - s), nlen = len - plen - 1;
    return plen > 0 && dra_is_dns1123_subdomain(s, plen) && !memchr(slash + 1, '/', nlen) &&
           nlen <= DRA_QUALIFIED_NAME_MAX && dra_is_qualified_name_part_format(slash + 1, nlen);
}

bool dra_is_dns1123_label(const char *s, size_t len)
{
    return len <= DRA_DNS1123_LABEL_MAX && dra_is_dns1123_label_format(s, len);
}

bool dra_is_dns1123_subdomain(const char *s, size_t len)
{
    return len <= DRA_DNS1123_SUBDOMAIN_MAX && dra_is_dns1123_subdomain_format(s, len);
}

bool dra_is_c_identifier(const char *s, size_t len)
{
    if (len == 0)
        return false;
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
        return false;
    for (size_t i = 1; i < len; i++) {
        c = (unsigned char)s[i];
        if (!is_alnum(c) && c != '_')
            return false;
    }
    return true;
}

/* ---- checks ---- */

/* IsDNS1123Label messages; returns how many were stored in msgs.  The
 * length is counted in "characters" by k8s.io/apimachinery/pkg/util/
 * validation (the handwritten rules) and in "bytes" by pkg/api/validate/
 * content (the declarative formats, label keys and values). */
static int label_msgs(const char *s, size_t len, const char *msgs[2], bool bytes)
{
    int n = 0;
    if (len > DRA_DNS1123_LABEL_MAX)
        msgs[n++] = bytes ? "must be no more than 63 bytes" : "must be no more than 63 characters";
    if (!dra_is_dns1123_label_format(s, len)) {
        /* A valid subdomain that is not a label must contain dots. */
        msgs[n++] = dra_is_dns1123_subdomain_format(s, len) ? "must not contain dots" : MSG_LABEL_REGEX;
    }
    return n;
}

static int subdomain_msgs(const char *s, size_t len, const char *msgs[2], bool bytes)
{
    int n = 0;
    if (len > DRA_DNS1123_SUBDOMAIN_MAX)
        msgs[n++] = bytes ? "must be no more than 253 bytes" : "must be no more than 253 characters";
    if (!dra_is_dns1123_subdomain_format(s, len))
        msgs[n++] = MSG_SUBDOMAIN_REGEX;
    return n;
}

/* A check that reports "Invalid value" once per message of msgs_of, with
 * the length in characters (util/validation) or bytes (content). */
/* clang-format off */
#define NAME_CHECK(fn, msgs_of, bytes)                                      \
    void fn(dra_errs *l, const char *field, const char *s, size_t len)      \
    {                                                                       \
        const char *msgs[2];                                                \
        int n = msgs_of(s, len, msgs, bytes);                               \
        for (int i = 0; i < n; i++)                                         \
            dra_ferr_invalid_str(l, field, s, len, msgs[i]);                \
    }
/* clang-format on */

NAME_CHECK(dra_check_dns1123_label, label_msgs, false)

NAME_CHECK(dra_check_dns1123_subdomain, subdomain_msgs, false)

NAME_CHECK(dra_check_short_name, label_msgs, true)

NAME_CHECK(dra_check_long_name, subdomain_msgs, true)

void dra_check_driver_name_caseless(dra_errs *l, const char *field, const char *s, size_t len)
{
    if (len == 0) {
        dra_ferr_required(l, field, "");
        return;
    }
    /* validate.MaxLength counts characters (runes), not bytes */
    size_t runes = 0;
    for (size_t i = 0; i < len; i++)
        runes += ((unsigned char)s[i] & 0xC0) != 0x80;
    if (runes > DRA_DRIVER_NAME_MAX)
        dra_ferr_too_long_chars(l, field, DRA_DRIVER_NAME_MAX);
    dra_check_long_name_caseless(l, field, s, len);
}

void dra_check_long_name_caseless(dra_errs *l, const char *field, const char *s, size_t len)
{
    char *lower = dra_xstrndup(s, len);
    for (size_t i = 0; i < len; i++)
        if (lower[i] >= 'A' && lower[i] <= 'Z')
            lower[i] = (char)(lower[i] - 'A' + 'a');
    if (len > DRA_DNS1123_SUBDOMAIN_MAX)
        dra_ferr_invalid_str(l, field, s, len, "must be no more than 253 bytes");
    if (!dra_is_dns1123_subdomain_format(lower, len))
        dra_ferr_invalid_str(l, field, s, len, MSG_SUBDOMAIN_CASELESS_REGEX);
    free(lower);
}

void dra_check_pool_name_segments(dra_errs *l, const char *field, const char *s, size_t len)
{
    if (len > DRA_POOL_NAME_MAX)
        dra_ferr_too_long(l, field, DRA_POOL_NAME_MAX);
    size_t start = 0;
    int seg = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '/')
            continue;
        char *m = NULL;
        if (i == start) {
            m = dra_xasprintf("segment %d: must not be empty", seg);
            dra_ferr_invalid_str(l, field, s, len, m);
            free(m);
        } else {
            const char *msgs[2];
            int n = subdomain_msgs(s + start, i - start, msgs, true);
            for (int k = 0; k < n; k++) {
                m = dra_xasprintf("segment %d: %s", seg, msgs[k]);
                /* the segment is the value, as LongName(part) reports it */
                dra_ferr_invalid_str(l, field, s + start, i - start, m);
                free(m);
            }
        }
        seg++;
        start = i + 1;
    }
}

void dra_check_node_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    dra_check_dns1123_subdomain(l, field, s, len);
}

void dra_check_driver_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    /* Empty short-circuits, as the declaratively covered upstream helper does. */
    if (len == 0) {
        dra_ferr_required(l, field, "");
        return;
    }
    if (len > DRA_DRIVER_NAME_MAX)
        dra_ferr_too_long(l, field, DRA_DRIVER_NAME_MAX);
    /* The format is checked on the lower-cased name, so upper case passes. */
    char *lower = dra_xstrndup(s, len);
    for (size_t i = 0; i < len; i++)
        if (lower[i] >= 'A' && lower[i] <= 'Z')
            lower[i] = (char)(lower[i] - 'A' + 'a');
    const char *msgs[2];
    int n = subdomain_msgs(s ? lower : "", len, msgs, false);
    for (int i = 0; i < n; i++)
        dra_ferr_invalid_str(l, field, s, len, msgs[i]);
    free(lower);
}

void dra_check_pool_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    if (len == 0) {
        dra_ferr_required(l, field, "");
        return;
    }
    if (len > DRA_POOL_NAME_MAX)
        dra_ferr_too_long(l, field, DRA_POOL_NAME_MAX);
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '/') {
            dra_check_dns1123_subdomain(l, field, s + start, i - start);
            start = i + 1;
        }
    }
}

void dra_check_c_identifier(dra_errs *l, const char *field, const char *s, size_t len)
{
    if (len > DRA_DEVICE_MAX_ID_LENGTH)
        dra_ferr_too_long(l, field, DRA_DEVICE_MAX_ID_LENGTH);
    if (!dra_is_c_identifier(s, len))
        dra_ferr_invalid_str(l, field, s, len, MSG_C_IDENTIFIER_REGEX);
}

void dra_check_qualified_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    const char *slash = memchr(s, '/', len);
    if (!slash) {
        dra_check_c_identifier(l, field, s, len);
        return;
    }
    size_t dlen = (size_t)(slash - s);
    const char *id = slash + 1;
    size_t idlen = len - dlen - 1;
    if (memchr(id, '/', idlen))
        return; /* more than two parts: not checked (validateQualifiedName's TODO) */
    if (dlen == 0)
        dra_ferr_invalid_str(l, field, "", 0, "the domain must not be empty");
    else
        dra_check_driver_name(l, field, s, dlen);
    if (idlen == 0)
        dra_ferr_invalid_str(l, field, "", 0, "the name must not be empty");
    else
        dra_check_c_identifier(l, field, id, idlen);
}

/* 1.38's rule before a name's own check: more than one slash is one
 * Invalid of the whole name. */
static void check_one_slash(dra_errs *l, const char *field, const char *s, size_t len,
                            void (*check)(dra_errs *, const char *, const char *, size_t))
{
    const char *slash = memchr(s, '/', len);
    if (slash && memchr(slash + 1, '/', len - (size_t)(slash - s) - 1))
        dra_ferr_invalid_str(l, field, s, len, "must not contain more than one slash");
    else
        check(l, field, s, len);
}

void dra_check_resource_fully_qualified_name_one_slash(dra_errs *l, const char *field, const char *s, size_t len)
{
    check_one_slash(l, field, s, len, dra_check_resource_fully_qualified_name);
}

void dra_check_qualified_name_one_slash(dra_errs *l, const char *field, const char *s, size_t len)
{
    check_one_slash(l, field, s, len, dra_check_qualified_name);
}

void dra_check_fully_qualified_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    dra_check_qualified_name(l, field, s, len);
    if (!memchr(s, '/', len))
        dra_ferr_invalid_str(l, field, s, len,
                             "a fully qualified name must be a domain and a name separated by a slash");
}

/* The subdomain messages of a name's prefix s[0:plen] (lengths in bytes),
 * each after `pre`, with s[0:vlen] as the value. */
static void prefix_errs(dra_errs *l, const char *field, const char *s, size_t plen, size_t vlen, const char *pre)
{
    const char *msgs[2];
    int n = subdomain_msgs(s, plen, msgs, true);
    for (int i = 0; i < n; i++) {
        char *m = dra_xasprintf("%s%s", pre, msgs[i]);
        dra_ferr_invalid_str(l, field, s, vlen, m);
        free(m);
    }
}

/* k8s.io/apimachinery v0.37.2 pkg/api/validate/strfmt.go
 * ResourceFullyQualifiedName (resourcesQualifiedName, then the slash). */
void dra_check_resource_fully_qualified_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    const char *slash = memchr(s, '/', len);
    if (!slash) {
        dra_check_c_identifier(l, field, s, len);
        dra_ferr_invalid_str(l, field, s, len,
                             "a fully qualified name must be a domain and a name separated by a slash");
        return;
    }
    size_t plen = (size_t)(slash - s);
    const char *id = slash + 1;
    size_t idlen = len - plen - 1;
    if (memchr(id, '/', idlen))
        return; /* more than two parts: not checked (strfmt.go's TODO) */
    if (plen == 0) {
        dra_ferr_invalid_str(l, field, "", 0, "prefix must not be empty");
    } else {
        if (plen > DRA_DRIVER_NAME_MAX)
            dra_ferr_too_long(l, field, DRA_DRIVER_NAME_MAX);
        prefix_errs(l, field, s, plen, plen, "prefix: ");
    }
    if (idlen == 0)
        dra_ferr_invalid_str(l, field, "", 0, "name must not be empty");
    else
        dra_check_c_identifier(l, field, id, idlen);
}

void dra_check_label_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    /* content.IsQualifiedName: [prefix/]name */
    const char *slash = memchr(s, '/', len);
    const char *name = s;
    size_t nlen = len;
    if (slash) {
        size_t plen = (size_t)(slash - s);
        name = slash + 1;
        nlen = len - plen - 1;
        if (memchr(name, '/', nlen)) {
            dra_buf m = DRA_BUF_INIT;
            dra_buf_printf(
                &m, "a valid label key %s with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                MSG_QUALIFIED_REGEX);
            dra_ferr_invalid_str(l, field, s, len, dra_buf_str(&m));
            dra_buf_free(&m);
            return;
        }
        if (plen == 0) {
            dra_ferr_invalid_str(l, field, s, len, "prefix part must be non-empty");
        } else {
            prefix_errs(l, field, s, plen, len, "prefix part ");
        }
    }
    if (nlen == 0)
        dra_ferr_invalid_str(l, field, s, len, "name part must be non-empty");
    else if (nlen > DRA_QUALIFIED_NAME_MAX)
        dra_ferr_invalid_str(l, field, s, len, "name part must be no more than 63 bytes");
    if (!dra_is_qualified_name_part_format(name, nlen)) {
        char *m = dra_xasprintf("name part %s", MSG_QUALIFIED_REGEX);
        dra_ferr_invalid_str(l, field, s, len, m);
        free(m);
    }
}

void dra_check_extended_resource_name(dra_errs *l, const char *field, const char *s, size_t len)
{
    if (!memchr(s, '/', len))
        dra_ferr_invalid_str(l, field, s, len, "a name must be a domain-prefixed path, such as 'example.com/my-prop'");
    else if (memmem(s, len, "kubernetes.io/", 14))
        dra_ferr_invalid_str(l, field, s, len, "must not have \"kubernetes.io/\" domain");
    if (len >= 9 && memcmp(s, "requests.", 9) == 0)
        dra_ferr_invalid_str(l, field, s, len, "must not have \"requests.\" prefix");
    /* the quota's resource name must be a label key; its problems are
     * reported with the name as given as the value */
    char *quota = dra_xasprintf("requests.%.*s", (int)len, s);
    dra_errs tmp = DRA_ERRS_INIT;
    dra_check_label_name(&tmp, field, quota, len + 9);
    for (dra_err *e = tmp.head; e; e = e->next) {
        const char *detail = strstr(e->msg, "\": ");
        dra_ferr_invalid_str(l, field, s, len, detail ? detail + 3 : "");
    }
    dra_errs_free(&tmp);
    free(quota);
}

void dra_check_label_value(dra_errs *l, const char *field, const char *s, size_t len)
{
    if (len > DRA_LABEL_VALUE_MAX)
        dra_ferr_invalid_str(l, field, s, len, "must be no more than 63 bytes");
    if (len > 0 && !dra_is_qualified_name_part_format(s, len))
        dra_ferr_invalid_str(l, field, s, len, MSG_LABEL_VALUE_REGEX);
}

/* validate.UUID (k8s.io/apimachinery v0.37.2 pkg/api/validate/strfmt.go,
 * format k8s-uuid): 36 characters, '-' at 8, 13, 18 and 23, lower-case
 * hexadecimal elsewhere. */
void dra_check_uuid(dra_errs *l, const char *field, const char *s, size_t len)
{
    bool ok = len == 36;
    for (size_t i = 0; ok && i < len; i++) {
        char c = s[i];
        ok = i == 8 || i == 13 || i == 18 || i == 23 ? c == '-' : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
    if (!ok)
        dra_ferr_invalid_str(l, field, s, len, "must be a lowercase UUID in 8-4-4-4-12 format");
}
