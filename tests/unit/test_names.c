/* Name formats and field errors (src/common/model/names.c). */
#include <string.h>

#include "model/names.h"
#include "unit.h"

/* Run one check and return "field: msg" of the errors joined by '\n' (static buffer). */
typedef void (*checker)(dra_errs *, const char *, const char *, size_t);
static char out[8192];
static const char *run(checker fn, const char *value)
{
    dra_errs l = DRA_ERRS_INIT;
    fn(&l, "f", value, strlen(value));
    out[0] = '\0';
    for (dra_err *e = l.head; e; e = e->next) {
        if (out[0])
            strncat(out, "\n", sizeof out - strlen(out) - 1);
        strncat(out, e->field ? e->field : "", sizeof out - strlen(out) - 1);
        strncat(out, ": ", sizeof out - strlen(out) - 1);
        strncat(out, e->msg, sizeof out - strlen(out) - 1);
    }
    dra_errs_free(&l);
    return out;
}

static const char LABEL_RE[] = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                               "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
                               "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
static const char SUB_RE[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

UNIT_TEST(dns_label)
{
    CHECK_STR(run(dra_check_dns1123_label, "gpu-0"), "");
    char want[1024];
    snprintf(want, sizeof want, "f: Invalid value: \"Foo\": %s", LABEL_RE);
    CHECK_STR(run(dra_check_dns1123_label, "Foo"), want);
    CHECK_STR(run(dra_check_dns1123_label, "a.b"), "f: Invalid value: \"a.b\": must not contain dots");
    snprintf(want, sizeof want, "f: Invalid value: \"\": %s", LABEL_RE);
    CHECK_STR(run(dra_check_dns1123_label, ""), want);
    char long_label[70];
    memset(long_label, 'a', 64);
    long_label[64] = '\0';
    CHECK(strstr(run(dra_check_dns1123_label, long_label), "must be no more than 63 characters") != NULL);
    long_label[63] = '\0';
    CHECK_STR(run(dra_check_dns1123_label, long_label), "");
    CHECK(dra_is_dns1123_label("x-1", 3));
    CHECK(!dra_is_dns1123_label("-x", 2));
    CHECK(!dra_is_dns1123_label("x-", 2));
}

UNIT_TEST(dns_subdomain)
{
    CHECK_STR(run(dra_check_dns1123_subdomain, "gpu.example.com"), "");
    char want[1024];
    snprintf(want, sizeof want, "f: Invalid value: \"a..b\": %s", SUB_RE);
    CHECK_STR(run(dra_check_dns1123_subdomain, "a..b"), want);
    CHECK(dra_is_dns1123_subdomain("a.b-c.d", 7));
    CHECK(!dra_is_dns1123_subdomain(".a", 2));
    CHECK(!dra_is_dns1123_subdomain("A.b", 3));
}

UNIT_TEST(driver_name)
{
    CHECK_STR(run(dra_check_driver_name, "gpu.example.com"), "");
    CHECK_STR(run(dra_check_driver_name, "GPU.Example.com"), ""); /* checked lower-cased */
    CHECK_STR(run(dra_check_driver_name, ""), "f: Required value");
    char name[80];
    memset(name, 'a', 64);
    name[64] = '\0';
    CHECK_STR(run(dra_check_driver_name, name), "f: Too long: may not be more than 63 bytes");
    char want[1024];
    snprintf(want, sizeof want, "f: Invalid value: \"bad_driver\": %s", SUB_RE);
    CHECK_STR(run(dra_check_driver_name, "bad_driver"), want);
}

UNIT_TEST(pool_name)
{
    CHECK_STR(run(dra_check_pool_name, "node-1"), "");
    CHECK_STR(run(dra_check_pool_name, "a/b.c/d"), "");
    CHECK_STR(run(dra_check_pool_name, ""), "f: Required value");
    char want[1024];
    snprintf(want, sizeof want, "f: Invalid value: \"\": %s", SUB_RE);
    CHECK_STR(run(dra_check_pool_name, "a//b"), want);
    CHECK_STR(run(dra_check_pool_name, "/a"), want);
    CHECK_STR(run(dra_check_pool_name, "a/"), want);
    char pool[300];
    memset(pool, 'a', 254);
    for (int i = 50; i < 254; i += 50)
        pool[i] = '/';
    pool[254] = '\0';
    CHECK(strstr(run(dra_check_pool_name, pool), "Too long: may not be more than 253 bytes") != NULL);
}

UNIT_TEST(qualified_name)
{
    CHECK_STR(run(dra_check_qualified_name, "model"), "");
    CHECK_STR(run(dra_check_qualified_name, "gpu.example.com/model"), "");
    CHECK_STR(run(dra_check_qualified_name, "/model"), "f: Invalid value: \"\": the domain must not be empty");
    CHECK_STR(run(dra_check_qualified_name, "gpu.example.com/"), "f: Invalid value: \"\": the name must not be empty");
    CHECK_STR(run(dra_check_qualified_name, "a/b/c"), ""); /* upstream does not check more than one slash */
    CHECK_STR(run(dra_check_qualified_name, "/b/"), "");
    CHECK(strstr(run(dra_check_qualified_name, "1abc"),
                 "a valid C identifier must start with alphabetic character or '_'") != NULL);
    CHECK_STR(run(dra_check_qualified_name, "abcdefghijabcdefghijabcdefghijabc"),
              "f: Too long: may not be more than 32 bytes");
    CHECK(strstr(run(dra_check_qualified_name, "bad_domain/x"), "a lowercase RFC 1123 subdomain") != NULL);
    CHECK_STR(run(dra_check_fully_qualified_name, "example.com/numa"), "");
    CHECK_STR(run(dra_check_fully_qualified_name, "numa"),
              "f: Invalid value: \"numa\": a fully qualified name must be a domain and a name separated by a slash");
}

UNIT_TEST(qualified_name_one_slash)
{
    /* 1.38's validateQualifiedName: strings.SplitN(name, "/", 3), a third part is one error */
    CHECK_STR(run(dra_check_qualified_name_one_slash, "gpu.example.com/model"), "");
    CHECK_STR(run(dra_check_qualified_name_one_slash, "model"), "");
    CHECK_STR(run(dra_check_qualified_name_one_slash, "a/b/c"),
              "f: Invalid value: \"a/b/c\": must not contain more than one slash");
    CHECK_STR(run(dra_check_qualified_name_one_slash, "/b/"),
              "f: Invalid value: \"/b/\": must not contain more than one slash");
    CHECK_STR(run(dra_check_qualified_name_one_slash, "/model"),
              "f: Invalid value: \"\": the domain must not be empty");
}

/* strfmt.go ResourceFullyQualifiedName, as upstream-validate reports it */
UNIT_TEST(resource_fully_qualified_name)
{
    CHECK_STR(run(dra_check_resource_fully_qualified_name, "derived/numa"), "");
    CHECK_STR(run(dra_check_resource_fully_qualified_name, "a/b/c"), "");
    CHECK_STR(run(dra_check_resource_fully_qualified_name, "a/b/"), "");
    CHECK_STR(run(dra_check_resource_fully_qualified_name, "numa"),
              "f: Invalid value: \"numa\": a fully qualified name must be a domain and a name separated by a slash");
    CHECK_STR(run(dra_check_resource_fully_qualified_name, "/numa"),
              "f: Invalid value: \"\": prefix must not be empty");
    CHECK_STR(run(dra_check_resource_fully_qualified_name, "derived/"),
              "f: Invalid value: \"\": name must not be empty");
    CHECK(strstr(run(dra_check_resource_fully_qualified_name, "Derived/numa"),
                 "f: Invalid value: \"Derived\": prefix: a lowercase RFC 1123 subdomain") != NULL);
    CHECK(strstr(run(dra_check_resource_fully_qualified_name, "1numa"), "a valid C identifier must start") != NULL);
    CHECK(strstr(run(dra_check_resource_fully_qualified_name, "1numa"), "a fully qualified name must be") != NULL);
}

UNIT_TEST(c_identifier)
{
    CHECK(dra_is_c_identifier("_a1", 3));
    CHECK(dra_is_c_identifier("MyName", 6));
    CHECK(!dra_is_c_identifier("1a", 2));
    CHECK(!dra_is_c_identifier("a-b", 3));
    CHECK(!dra_is_c_identifier("", 0));
    CHECK_STR(run(dra_check_c_identifier, "a-b"),
              "f: Invalid value: \"a-b\": a valid C identifier must start with alphabetic character or '_', followed "
              "by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used "
              "for validation is '[A-Za-z_][A-Za-z0-9_]*')");
}

UNIT_TEST(label_name_and_value)
{
    CHECK_STR(run(dra_check_label_name, "example.com/gpu-broken"), "");
    CHECK_STR(run(dra_check_label_name, "Ready"), "");
    CHECK_STR(run(dra_check_label_name, "/x"), "f: Invalid value: \"/x\": prefix part must be non-empty");
    const char *r = run(dra_check_label_name, "");
    CHECK(strstr(r, "f: Invalid value: \"\": name part must be non-empty") != NULL);
    CHECK(strstr(r, "name part must consist of alphanumeric characters") != NULL);
    CHECK(strstr(run(dra_check_label_name, "a/b/c"),
                 "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                 "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                 "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
                 "'/' (e.g. 'example.com/MyName')") != NULL);
    CHECK(strstr(run(dra_check_label_name, "Bad_Prefix/x"), "prefix part a lowercase RFC 1123 subdomain") != NULL);
    CHECK_STR(run(dra_check_label_value, ""), "");
    CHECK_STR(run(dra_check_label_value, "my_value.1"), "");
    CHECK_STR(run(dra_check_label_value, "-x"),
              "f: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, "
              "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value', "
              " or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

UNIT_TEST(uuid)
{
    /* the declarative k8s-uuid format the API server enforces for shareID */
    static const char MSG[] = "must be a lowercase UUID in 8-4-4-4-12 format";
    CHECK_STR(run(dra_check_uuid, "123e4567-e89b-12d3-a456-426614174000"), "");
    CHECK(strstr(run(dra_check_uuid, "123E4567-E89B-12D3-A456-426614174000"), MSG) != NULL);
    CHECK_STR(run(dra_check_uuid, "abc"), "f: Invalid value: \"abc\": must be a lowercase UUID in 8-4-4-4-12 format");
    CHECK(strstr(run(dra_check_uuid, "123e4567-e89b-12d3-a456-42661417400g"), MSG) != NULL);
    CHECK(strstr(run(dra_check_uuid, "123e4567e89b12d3a456426614174000"), MSG) != NULL);
    CHECK(strstr(run(dra_check_uuid, "urn:uuid:123e4567-e89b-12d3-a456-426614174000"), MSG) != NULL);
}

UNIT_TEST(field_error_rendering)
{
    dra_errs l = DRA_ERRS_INIT;
    const char *const modes[] = {"All", "ExactCount"};
    dra_ferr_unsupported(&l, "spec.x", "Foo", 3, modes, 2);
    dra_ferr_too_many(&l, "spec.devices", 129, 128);
    dra_ferr_duplicate_str(&l, "spec.devices[1]", "x", 1);
    dra_ferr_forbidden(&l, "a", "nope");
    dra_ferr_invalid_int(&l, "c", -1, "must be greater than zero");
    dra_ferr_invalid_str(&l, "q", "a\"b\n\x01", 5, "");
    CHECK_INT(l.n, 6);
    dra_err *e = dra_errs_take(&l);
    CHECK_STR(e->msg, "Unsupported value: \"Foo\": supported values: \"All\", \"ExactCount\"");
    CHECK_STR(e->field, "spec.x");
    CHECK_STR(e->next->msg, "Too many: 129: must have at most 128 items");
    CHECK_STR(e->next->next->msg, "Duplicate value: \"x\"");
    CHECK_STR(e->next->next->next->msg, "Forbidden: nope");
    CHECK_STR(e->next->next->next->next->msg, "Invalid value: -1: must be greater than zero");
    CHECK_STR(e->next->next->next->next->next->msg, "Invalid value: \"a\\\"b\\n\\x01\"");
    CHECK_INT(dra_err_count(e), 6);
    dra_err_free(e);
}

UNIT_TEST(paths)
{
    dra_buf p = DRA_BUF_INIT;
    size_t m0 = dra_path_child(&p, "spec");
    size_t m1 = dra_path_child(&p, "devices");
    dra_path_index(&p, 3);
    dra_path_child(&p, "attributes");
    dra_path_key(&p, "x/y", 3);
    CHECK_STR(dra_buf_str(&p), "spec.devices[3].attributes[x/y]");
    dra_path_pop(&p, m1);
    CHECK_STR(dra_buf_str(&p), "spec");
    dra_path_pop(&p, m0);
    CHECK_STR(dra_buf_str(&p), "");
    dra_buf_free(&p);
}

/* Field errors quote values as Go's %q does: non-printable runes escaped
 * (upstream prints "a\u00a0b\u200b"), invalid bytes as \xNN. */
UNIT_TEST(invalid_value_quotes_like_go)
{
    dra_errs l = DRA_ERRS_INIT;
    const char v[] = "a\u00a0b\u200b\xff";
    dra_ferr_invalid_str(&l, "spec.name", v, sizeof v - 1, "bad");
    CHECK(l.head != NULL);
    if (l.head)
        CHECK_STR(l.head->msg, "Invalid value: \"a\\u00a0b\\u200b\\xff\": bad");
    dra_errs_free(&l);
}

UNIT_MAIN()
