/* kube/: kubeconfig reading and merging, the watch-event push reader,
 * resources, base64, strings in messages, plain http, exec plugin failures,
 * what failed watches say about resourceVersions, events of other kinds,
 * conflict backoff; watch/: durations. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base64.h"
#include "kube/api.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/events.h"
#include "kube/internal.h"
#include "kube/text.h"
#include "watch/watch.h"
#include "unit.h"

static dra_err *parse(const char *text, const char *ctx, const char *ns, dra_kube_config *c)
{
    dra_kube_config_opts o = {.context = ctx, .ns = ns};
    return dra_kube_config_parse("kc.yaml", text, strlen(text), "/base", &o, c);
}

static const char *KC = "apiVersion: v1\n"
                        "kind: Config\n"
                        "current-context: a\n"
                        "clusters:\n"
                        "- name: c1\n"
                        "  cluster:\n"
                        "    server: https://10.0.0.1:6443/\n"
                        "    certificate-authority-data: aGVsbG8=\n"
                        "    tls-server-name: api.internal\n"
                        "    proxy-url: http://proxy:3128\n"
                        "- name: c2\n"
                        "  cluster:\n"
                        "    server: https://10.0.0.2\n"
                        "    insecure-skip-tls-verify: true\n"
                        "users:\n"
                        "- name: u1\n"
                        "  user:\n"
                        "    token: s3cr3t\n"
                        "- name: u2\n"
                        "  user:\n"
                        "    username: bob\n"
                        "    password: pw\n"
                        "- name: u3\n"
                        "  user:\n"
                        "    exec:\n"
                        "      apiVersion: client.authentication.k8s.io/v1\n"
                        "      command: ./bin/cred\n"
                        "      args: [get, token]\n"
                        "      env: [{name: A, value: b}]\n"
                        "      provideClusterInfo: true\n"
                        "contexts:\n"
                        "- name: a\n"
                        "  context: {cluster: c1, user: u1, namespace: team-a}\n"
                        "- name: b\n"
                        "  context: {cluster: c2, user: u2}\n"
                        "- name: c\n"
                        "  context: {cluster: c2, user: u3, namespace: x}\n";

UNIT_TEST(kubeconfig_current_context)
{
    dra_kube_config c;
    dra_err *e = parse(KC, NULL, NULL, &c);
    CHECK(e == NULL);
    CHECK_STR(c.context, "a");
    CHECK_STR(c.server, "https://10.0.0.1:6443");
    CHECK_INT(c.ca.len, 5);
    CHECK(memcmp(c.ca.data, "hello", 5) == 0);
    CHECK_STR(c.tls_server_name, "api.internal");
    CHECK_STR(c.proxy_url, "http://proxy:3128");
    CHECK_STR(c.token, "s3cr3t");
    CHECK_STR(c.ns, "team-a");
    CHECK(!c.insecure);
    dra_kube_config_free(&c);
}

UNIT_TEST(kubeconfig_context_and_namespace_flags)
{
    dra_kube_config c;
    CHECK(parse(KC, "b", NULL, &c) == NULL);
    CHECK_STR(c.ns, "default");
    CHECK(c.insecure);
    CHECK_STR(c.username, "bob");
    CHECK_STR(c.password, "pw");
    dra_kube_config_free(&c);
    CHECK(parse(KC, "a", "other", &c) == NULL);
    CHECK_STR(c.ns, "other");
    dra_kube_config_free(&c);
}

UNIT_TEST(kubeconfig_exec)
{
    dra_kube_config c;
    CHECK(parse(KC, "c", NULL, &c) == NULL);
    CHECK(c.exec != NULL);
    if (c.exec) {
        CHECK_STR(c.exec->command, "/base/./bin/cred");
        CHECK_STR(c.exec->args[0], "get");
        CHECK_STR(c.exec->args[1], "token");
        CHECK(c.exec->args[2] == NULL);
        CHECK_STR(c.exec->env[0], "A=b");
        CHECK(c.exec->provide_cluster_info);
    }
    dra_kube_config_free(&c);
}

static void expect_err(int *unit_failed, const char *text, const char *ctx, const char *want)
{
    dra_kube_config c;
    dra_err *e = parse(text, ctx, NULL, &c);
    CHECK(e != NULL);
    if (e) {
        char *m = dra_err_format(e);
        if (!strstr(m, want)) {
            fprintf(stderr, "  got \"%s\", want \"%s\"\n", m, want);
            *unit_failed = 1;
        }
        CHECK(strstr(m, "s3cr3t") == NULL);
        CHECK(strstr(m, "pw") == NULL || strstr(want, "pw"));
        free(m);
        dra_err_free(e);
    } else {
        dra_kube_config_free(&c);
    }
}

UNIT_TEST(kubeconfig_errors)
{
    expect_err(unit_failed, KC, "nope", "context \"nope\" does not exist");
    expect_err(
        unit_failed,
        "clusters: [{name: c, cluster: {server: 'https://x', insecure-skip-tls-verify: true, "
        "certificate-authority-data: aGk=}}]\ncontexts: [{name: a, context: {cluster: c}}]\ncurrent-context: a\n",
        NULL, "specifying a root certificates file with the insecure flag is not allowed");
    expect_err(
        unit_failed,
        "clusters: [{name: c, cluster: {server: 'https://x'}}]\nusers: [{name: u, user: {token: s3cr3t, username: "
        "x}}]\ncontexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n",
        NULL, "more than one authentication method found for u");
    expect_err(unit_failed,
               "clusters: [{name: c, cluster: {certificate-authority-data: aGk=}}]\ncontexts: [{name: a, context: "
               "{cluster: c}}]\ncurrent-context: a\n",
               NULL, "no server found for cluster \"c\"");
    expect_err(unit_failed,
               "clusters: [{name: c, cluster: {server: 'https://x', certificate-authority-data: '!!'}}]\ncontexts: "
               "[{name: a, context: {cluster: c}}]\ncurrent-context: a\n",
               NULL, "certificate-authority-data: illegal base64 data");
    expect_err(unit_failed,
               "clusters: [{name: c, cluster: {server: 'https://x'}}]\nusers: [{name: u, user: {exec: {command: x}}}]\n"
               "contexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n",
               NULL, "apiVersion must be specified for u to use exec authentication plugin");
    expect_err(
        unit_failed,
        "clusters: [{name: c, cluster: {server: 'https://x'}}]\nusers: [{name: u, user: {client-certificate-data: "
        "aGk=}}]\ncontexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n",
        NULL, "client-key-data or client-key must be specified for u");
    expect_err(unit_failed, "clusters: 3\n", NULL, "clusters: must be a list");
    expect_err(unit_failed,
               "clusters: [{name: c, cluster: {server: 'https://x'}}]\ncontexts: [{name: a, context: {cluster: c}}]\n",
               NULL, "no current context");
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

UNIT_TEST(kubeconfig_merge_first_wins)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_kube.XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    write_file("one",
               "current-context: a\nclusters: [{name: c, cluster: {server: 'https://one', certificate-authority: "
               "ca.pem}}]\ncontexts: [{name: a, context: {cluster: c, user: u}}]\n");
    write_file("two", "current-context: b\nclusters: [{name: c, cluster: {server: 'https://two'}}, {name: d, cluster: "
                      "{server: 'https://d'}}]\nusers: [{name: u, user: {tokenFile: tok}}]\ncontexts: [{name: b, "
                      "context: {cluster: d}}]\n");
    write_file("ca.pem", "PEM");
    char env[512];
    snprintf(env, sizeof env, "%s/missing:%s/one::%s/two", tmpdir, tmpdir, tmpdir);
    setenv("KUBECONFIG", env, 1);
    dra_kube_config c;
    dra_kube_config_opts o = {0};
    dra_err *e = dra_kube_config_load(&o, &c);
    CHECK(e == NULL);
    if (!e) {
        CHECK_STR(c.context, "a");
        CHECK_STR(c.server, "https://one");
        CHECK_INT(c.ca.len, 3);
        char want[256];
        snprintf(want, sizeof want, "%s/tok", tmpdir);
        CHECK_STR(c.token_file, want);
        dra_kube_config_free(&c);
    }
    o.context = "b";
    e = dra_kube_config_load(&o, &c);
    CHECK(e == NULL);
    if (!e) {
        CHECK_STR(c.server, "https://d");
        dra_kube_config_free(&c);
    }
    /* --kubeconfig: only that file, and it must exist */
    char p[256];
    snprintf(p, sizeof p, "%s/missing", tmpdir);
    o.kubeconfig = p;
    o.context = NULL;
    e = dra_kube_config_load(&o, &c);
    CHECK(e != NULL && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);
    unsetenv("KUBECONFIG");
    const char *files[] = {"one", "two", "ca.pem"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        unlink(p);
    }
    rmdir(tmpdir);
}

UNIT_TEST(in_cluster)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_kube.XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    write_file("token", "tok\n");
    write_file("ca.crt", "PEM");
    write_file("namespace", "kube-system\n");
    setenv("KUBECONFIG", "/nonexistent/kubeconfig", 1);
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    dra_kube_config c;
    dra_kube_config_opts o = {.sa_dir = tmpdir};
    dra_err *e = dra_kube_config_load(&o, &c);
    CHECK(e == NULL);
    if (!e) {
        CHECK(c.in_cluster);
        CHECK_STR(c.server, "https://10.96.0.1:443");
        CHECK_STR(c.ns, "kube-system");
        CHECK_INT(c.ca.len, 3);
        CHECK(c.as.user == NULL);
        dra_kube_config_free(&c);
    }
    /* --as applies to the service account too */
    const char *groups[] = {"g"};
    dra_kube_config_opts as = {.sa_dir = tmpdir, .as = "alice", .as_groups = groups, .nas_groups = 1};
    e = dra_kube_config_load(&as, &c);
    CHECK(e == NULL);
    if (!e) {
        CHECK(c.in_cluster);
        CHECK_STR(c.as.user, "alice");
        CHECK_INT(c.as.ngroups, 1);
        dra_kube_config_free(&c);
    }
    unsetenv("KUBERNETES_SERVICE_HOST");
    e = dra_kube_config_load(&o, &c);
    CHECK(e != NULL);
    dra_err_free(e);
    unsetenv("KUBECONFIG");
    unsetenv("KUBERNETES_SERVICE_PORT");
    const char *files[] = {"token", "ca.crt", "namespace"};
    char p[256];
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        unlink(p);
    }
    rmdir(tmpdir);
}

typedef struct seen {
    char log[1024];
    int n;
} seen;

static dra_err *collect(void *ud, dra_kube_event_type t, json_t *obj)
{
    seen *s = ud;
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    size_t l = strlen(s->log);
    snprintf(s->log + l, sizeof s->log - l, "%s%s:%s", s->n ? " " : "", dra_kube_event_type_name(t), name ? name : "-");
    s->n++;
    return NULL;
}

UNIT_TEST(events_split_anywhere)
{
    const char *stream = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n"
                         "\r\n"
                         "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\"}}}\n"
                         "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"9\"}}}\n"
                         "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"}}}\n";
    size_t len = strlen(stream);
    /* every split point, and byte by byte */
    for (size_t cut = 0; cut <= len; cut++) {
        seen s = {{0}, 0};
        dra_kube_event_reader r;
        dra_kube_events_init(&r, collect, &s);
        CHECK(dra_kube_events_feed(&r, stream, cut) == NULL);
        CHECK(dra_kube_events_feed(&r, stream + cut, len - cut) == NULL);
        CHECK_STR(s.log, "ADDED:a MODIFIED:b BOOKMARK:- DELETED:c");
        CHECK(!dra_kube_events_truncated(&r));
        dra_kube_events_free(&r);
    }
    seen s = {{0}, 0};
    dra_kube_event_reader r;
    dra_kube_events_init(&r, collect, &s);
    for (size_t i = 0; i < len; i++)
        CHECK(dra_kube_events_feed(&r, stream + i, 1) == NULL);
    CHECK_INT(s.n, 4);
    CHECK(dra_kube_events_feed(&r, "{\"type\":\"ADD", 12) == NULL);
    CHECK(dra_kube_events_truncated(&r));
    dra_kube_events_free(&r);
}

static void expect_event_err(int *unit_failed, const char *line, const char *want)
{
    dra_kube_event_reader r;
    dra_kube_events_init(&r, NULL, NULL);
    dra_err *e = dra_kube_events_feed(&r, line, strlen(line));
    CHECK(e != NULL);
    if (e) {
        if (!strstr(e->msg, want)) {
            fprintf(stderr, "  got \"%s\", want \"%s\"\n", e->msg, want);
            *unit_failed = 1;
        }
        CHECK(strstr(e->msg, "secret") == NULL);
        dra_err_free(e);
    }
    dra_kube_events_free(&r);
}

UNIT_TEST(events_bad_input)
{
    expect_event_err(unit_failed, "not json secret\n", "watch event 1: invalid JSON");
    expect_event_err(unit_failed, "[1]\n", "not a JSON object");
    expect_event_err(unit_failed, "{\"type\":\"SECRET\",\"object\":{}}\n", "type must be ADDED");
    expect_event_err(unit_failed, "{\"type\":\"ADDED\",\"object\":\"secret\"}\n", "object must be a JSON object");
}

UNIT_TEST(resources)
{
    CHECK_STR(dra_kube_resource_find("pods")->kind, "Pod");
    CHECK_STR(dra_kube_resource_find("po")->kind, "Pod");
    CHECK_STR(dra_kube_resource_find("ResourceClaim")->resource, "resourceclaims");
    CHECK_STR(dra_kube_resource_find("resourceslice")->resource, "resourceslices");
    CHECK_STR(dra_kube_resource_find("resourceclaims.resource.k8s.io")->kind, "ResourceClaim");
    CHECK(dra_kube_resource_find("pods.resource.k8s.io") == NULL);
    CHECK(dra_kube_resource_find("deployments") == NULL);
    CHECK(dra_kube_resource_by_kind("DeviceTaintRule")->namespaced == false);
}

UNIT_TEST(normalize_v1beta1)
{
    json_t *o = json_loads("{\"metadata\":{\"name\":\"s\"},\"spec\":{\"driver\":\"d\",\"pool\":{\"name\":\"p\","
                           "\"generation\":1,\"resourceSliceCount\":1},\"allNodes\":true,\"devices\":[{\"name\":\"g\","
                           "\"basic\":{\"attributes\":{\"a\":{\"int\":1}}}}]}}",
                           0, NULL);
    dra_err *e = dra_kube_api_normalize(dra_kube_resource_find("resourceslices"), "v1beta1", o);
    CHECK(e == NULL);
    CHECK_STR(json_string_value(json_object_get(o, "apiVersion")), "resource.k8s.io/v1");
    CHECK_STR(json_string_value(json_object_get(o, "kind")), "ResourceSlice");
    json_t *dev = json_array_get(json_object_get(json_object_get(o, "spec"), "devices"), 0);
    CHECK(json_object_get(dev, "basic") == NULL);
    CHECK(json_object_get(dev, "attributes") != NULL);
    /* apiVersion and kind come first */
    CHECK_STR(json_object_iter_key(json_object_iter(o)), "apiVersion");
    json_decref(o);
}

/* A kind every release the tools know serves as v1 is read as v1; a
 * DeviceTaintRule (1.36 serves it as v1beta2 and v1alpha3 only) keeps the
 * version it was served at, whatever the release. */
UNIT_TEST(normalize_keeps_served_taint_rules)
{
    static const char *const cases[][3] = {
        {"devicetaintrules", "v1beta2", "resource.k8s.io/v1beta2"},
        {"devicetaintrules", "v1alpha3", "resource.k8s.io/v1alpha3"},
        {"devicetaintrules", "v1", "resource.k8s.io/v1"},
        {"resourceclaims", "v1beta2", "resource.k8s.io/v1"},
        {"deviceclasses", "v1beta2", "resource.k8s.io/v1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const dra_kube_resource *r = dra_kube_resource_find(cases[i][0]);
        json_t *o = json_pack("{s:{s:s}, s:{}}", "metadata", "name", "x", "spec");
        dra_err *e = dra_kube_api_normalize(r, cases[i][1], o);
        CHECK(e == NULL);
        CHECK_STR(json_string_value(json_object_get(o, "apiVersion")), cases[i][2]);
        CHECK_STR(json_string_value(json_object_get(o, "kind")), r->kind);
        dra_err_free(e);
        json_decref(o);
    }
}

UNIT_TEST(base64)
{
    dra_buf b = DRA_BUF_INIT;
    CHECK(dra_base64_decode(&b, "aGVsbG8gd29ybGQ=", 16));
    CHECK_STR(dra_buf_str(&b), "hello world");
    dra_buf_reset(&b);
    CHECK(dra_base64_decode(&b, "aGVs\nbG8=\n", 10));
    CHECK_STR(dra_buf_str(&b), "hello");
    dra_buf_reset(&b);
    CHECK(!dra_base64_decode(&b, "a", 1));
    CHECK(!dra_base64_decode(&b, "aGk=x", 5));
    CHECK(!dra_base64_decode(&b, "a$==", 4));
    dra_buf_free(&b);
}

UNIT_TEST(durations)
{
    long ms = -1;
    CHECK(dra_watch_duration_parse("500ms", "--x", &ms) == NULL);
    CHECK_INT(ms, 500);
    CHECK(dra_watch_duration_parse("1m30s", "--x", &ms) == NULL);
    CHECK_INT(ms, 90000);
    CHECK(dra_watch_duration_parse("2h", "--x", &ms) == NULL);
    CHECK_INT(ms, 7200000);
    CHECK(dra_watch_duration_parse("5", "--x", &ms) == NULL); /* a plain number is seconds */
    CHECK_INT(ms, 5000);
    dra_err *e = dra_watch_duration_parse("5x", "interval", &ms);
    CHECK(e != NULL && e->param && strcmp(e->field, "interval") == 0 && strstr(e->msg, "invalid duration \"5x\""));
    dra_err_free(e);
    e = dra_watch_duration_parse("", "interval", &ms);
    CHECK(e != NULL);
    dra_err_free(e);
}

/* ---- strings in messages, server URLs ---- */

UNIT_TEST(text_quote_and_show)
{
    dra_arena a = DRA_ARENA_INIT;
    CHECK_STR(dra_kube_q(&a, "a\"b"), "\"a\\\"b\"");
    CHECK_STR(dra_kube_q(&a, "x\r\ny"), "\"x\\r\\ny\"");
    const char *plain = "https://h:6443/ünï";
    CHECK(dra_kube_v(&a, plain) == plain); /* nothing to escape: the string itself */
    CHECK_STR(dra_kube_v(&a, "a\nb"), "\"a\\nb\"");
    CHECK_STR(dra_kube_v(&a, "\x1b[31mred"), "\"\\x1b[31mred\"");
    CHECK_STR(dra_kube_v(&a, "bad\xff"), "\"bad\\xff\"");
    CHECK_STR(dra_kube_v(&a, NULL), "");
    CHECK_STR(dra_kube_strerror(&a, ENOENT), "no such file or directory");
    CHECK_STR(dra_kube_strerror(&a, E2BIG), "argument list too long");
    dra_arena_free(&a);
    char *h = dra_kube_clean_ansi("run \x1b[1mkubectl\x1b[0m\n\tnow\xff");
    CHECK_STR(h, "run U+001B[1mkubectlU+001B[0m\n\tnow\xef\xbf\xbd");
    free(h);
}

UNIT_TEST(text_redacted_urls)
{
    dra_arena a = DRA_ARENA_INIT;
    CHECK_STR(dra_kube_redacted(&a, "https://alice:pw@10.0.0.1:6443"), "https://alice:***@10.0.0.1:6443");
    CHECK_STR(dra_kube_redacted(&a, "https://alice:p@w:d@h/x@y"), "https://alice:***@h/x@y");
    CHECK_STR(dra_kube_redacted(&a, "https://alice@h"), "https://alice@h"); /* no password */
    CHECK_STR(dra_kube_redacted(&a, "bob:pw@h:8080"), "bob:***@h:8080");    /* no scheme: client-go adds http:// */
    CHECK_STR(dra_kube_redacted(&a, "https://h/p?q=a:b@c"), "https://h/p?q=a:b@c");
    CHECK_STR(dra_kube_redacted(&a, "https://h:6443"), "https://h:6443");
    dra_arena_free(&a);
}

UNIT_TEST(text_server_tls)
{
    CHECK(dra_kube_server_tls("https://10.0.0.1:6443"));
    CHECK(dra_kube_server_tls("HTTPS://h"));
    CHECK(dra_kube_server_tls("https://u:p@h"));
    CHECK(!dra_kube_server_tls("http://10.0.0.1:8080"));
    CHECK(!dra_kube_server_tls("10.0.0.1:6443")); /* host:port is http:// to client-go */
    CHECK(!dra_kube_server_tls("localhost"));
    CHECK(!dra_kube_server_tls("https:///path"));
    CHECK(!dra_kube_server_tls("https://u:p@"));
    CHECK(!dra_kube_server_tls("https://h\r\n"));
    CHECK(!dra_kube_server_tls("unix:///run/k.sock"));
    CHECK(dra_kube_url_check("https://h:1") == NULL);
    dra_err *e = dra_kube_url_check("https://h:1\r\nX: y");
    CHECK(e != NULL);
    if (e)
        CHECK_STR(e->msg, "parse \"https://h:1\\r\\nX: y\": net/url: invalid control character in URL");
    dra_err_free(e);
}

static char *err_text(dra_err *e)
{
    char *m = e ? dra_err_format(e) : dra_xstrdup("(no error)");
    dra_err_free(e);
    return m;
}

UNIT_TEST(kubeconfig_control_characters_escaped)
{
    dra_kube_config c;
    char *m = err_text(parse("clusters: [{name: c, cluster: {server: \"https://h:1\\r\\nX-Injected: 1\"}}]\n"
                             "contexts: [{name: a, context: {cluster: c}}]\ncurrent-context: a\n",
                             NULL, NULL, &c));
    CHECK(strstr(m, "parse \"https://h:1\\r\\nX-Injected: 1\": net/url: invalid control character in URL") != NULL);
    CHECK(strchr(m, '\r') == NULL && strchr(m, '\n') == NULL);
    free(m);
    m = err_text(parse(KC, "x\ny", NULL, &c));
    CHECK_STR(m, "context \"x\\ny\" does not exist");
    free(m);
    m = err_text(parse("clusters: [{name: \"\\e]0;pwned\\a\", cluster: {insecure-skip-tls-verify: true}}]\n"
                       "contexts: [{name: a, context: {cluster: \"\\e]0;pwned\\a\"}}]\ncurrent-context: a\n",
                       NULL, NULL, &c));
    CHECK(strstr(m, "no server found for cluster \"\\x1b]0;pwned\\a\"") != NULL);
    CHECK(strchr(m, '\x1b') == NULL);
    free(m);
    /* the in-cluster server from the environment */
    setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1\n", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    dra_kube_config_opts o = {.sa_dir = "/nonexistent"};
    m = err_text(dra_kube_config_parse("kc", "", 0, "", &o, &c));
    CHECK(strstr(m, "parse \"https://10.0.0.1\\n:443\": net/url: invalid control character in URL") != NULL);
    free(m);
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
}

UNIT_TEST(kubeconfig_unreadable_files_say_why)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_kube.XXXXXX");
    CHECK(mkdtemp(tmpdir) != NULL);
    char big[256], kc[1024];
    snprintf(big, sizeof big, "%s/big.crt", tmpdir);
    FILE *f = fopen(big, "w");
    CHECK(f != NULL);
    if (f) {
        CHECK(ftruncate(fileno(f), (off_t)17 << 20) == 0);
        fclose(f);
    }
    snprintf(kc, sizeof kc,
             "clusters: [{name: c, cluster: {server: 'https://x', certificate-authority: big.crt}}]\n"
             "users: [{name: u, user: {client-certificate: missing.crt, client-key: big.crt}}]\n"
             "contexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n");
    dra_kube_config c;
    dra_kube_config_opts o = {0};
    dra_err *e = dra_kube_config_parse("kc", kc, strlen(kc), tmpdir, &o, &c);
    CHECK(e != NULL && e->code == DRA_EXIT_INPUT);
    char *m = err_text(e);
    char want[1024];
    snprintf(want, sizeof want,
             "unable to read certificate-authority %s for c due to %s: input larger than the limit of "
             "16777216 bytes",
             big, big);
    CHECK_STR(m, want);
    free(m);
    /* the CA read, the client certificate is missing: client-go's words, errno of that open */
    snprintf(kc, sizeof kc,
             "clusters: [{name: c, cluster: {server: 'https://x'}}]\n"
             "users: [{name: u, user: {client-certificate: missing.crt, client-key: big.crt}}]\n"
             "contexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n");
    e = dra_kube_config_parse("kc", kc, strlen(kc), tmpdir, &o, &c);
    CHECK(e != NULL && e->code == DRA_EXIT_RUNTIME);
    m = err_text(e);
    snprintf(want, sizeof want,
             "unable to read client-cert %s/missing.crt for u due to open %s/missing.crt: no such file or "
             "directory",
             tmpdir, tmpdir);
    CHECK_STR(m, want);
    free(m);
    unlink(big);
    rmdir(tmpdir);
}

UNIT_TEST(kubeconfig_auth_provider_only_refused_over_https)
{
    const char *users = "users: [{name: u, user: {auth-provider: {name: oidc}}}]\n"
                        "contexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n";
    char kc[512];
    dra_kube_config c;
    snprintf(kc, sizeof kc, "clusters: [{name: c, cluster: {server: 'https://x'}}]\n%s", users);
    char *m = err_text(parse(kc, NULL, NULL, &c));
    CHECK(strstr(m, "user \"u\": auth-provider plugins are not supported") != NULL);
    free(m);
    /* kubectl never reads the user's credentials for a plain http server */
    snprintf(kc, sizeof kc, "clusters: [{name: c, cluster: {server: 'http://x:8080'}}]\n%s", users);
    CHECK(parse(kc, NULL, NULL, &c) == NULL);
    dra_kube_config_free(&c);
}

typedef struct logged {
    int n;
    char last[512];
} logged;

static void log_to(void *ud, dra_kube_log_level level, const char *msg)
{
    logged *l = ud;
    if (level == KUBE_LOG_WARN) {
        l->n++;
        snprintf(l->last, sizeof l->last, "%s", msg);
    }
}

/* A client for kubeconfig text kc, its warnings counted in l. */
static dra_kube_client *client_for(int *unit_failed, const char *kc, logged *l)
{
    dra_kube_config cfg;
    CHECK(parse(kc, NULL, NULL, &cfg) == NULL);
    dra_kube_client_opts o = {.log = log_to, .log_ud = l};
    dra_kube_client *c = NULL;
    CHECK(dra_kube_client_new(&cfg, &o, &c) == NULL);
    return c;
}

UNIT_TEST(plain_http_sends_no_credentials)
{
    static const char *const users[] = {"{token: s3cr3t}", "{tokenFile: /tmp/x}", "{username: bob, password: pw}",
                                        "{client-certificate-data: aGk=, client-key-data: aGk=}",
                                        "{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false}}"};
    for (size_t i = 0; i < sizeof users / sizeof *users; i++) {
        char kc[512];
        snprintf(
            kc, sizeof kc,
            "clusters: [{name: c, cluster: {server: 'http://alice:pw@10.0.0.1:8080'}}]\nusers: [{name: u, user: %s}]\n"
            "contexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n",
            users[i]);
        logged l = {0, ""};
        dra_kube_client *c = client_for(unit_failed, kc, &l);
        if (!c)
            continue;
        const dra_kube_config *k = dra_kube_client_config(c);
        CHECK(!k->token && !k->token_file && !k->username && !k->password && !k->exec && !k->cert.len && !k->key.len);
        CHECK_INT(l.n, 1);
        CHECK(strstr(l.last,
                     "server http://alice:***@10.0.0.1:8080 is not https: not sending the credentials of user \"u\"") !=
              NULL);
        CHECK(strstr(l.last, "pw@") == NULL && strstr(l.last, "s3cr3t") == NULL);
        /* a reload to the same: said once */
        dra_kube_config cfg;
        CHECK(parse(kc, NULL, NULL, &cfg) == NULL);
        dra_kube_client_set_config(c, &cfg);
        CHECK_INT(l.n, 1);
        dra_kube_client_free(c);
    }
    /* https keeps them */
    logged l = {0, ""};
    dra_kube_client *c = client_for(unit_failed, KC, &l);
    if (c) {
        CHECK_STR(dra_kube_client_config(c)->token, "s3cr3t");
        CHECK_INT(l.n, 0);
        dra_kube_client_free(c);
    }
}

static char *exec_error(const char *command, const char *arg)
{
    dra_kube_exec x = {0};
    char *args[2] = {(char *)arg, NULL};
    char *env[1] = {NULL};
    x.api_version = "client.authentication.k8s.io/v1";
    x.command = (char *)command;
    x.args = args;
    x.env = env;
    x.install_hint = "install it";
    dra_kube_config cfg = {0};
    cfg.server = "https://x";
    cfg.exec = &x;
    dra_kube_cred cred = {0};
    dra_err *e = dra_kube_exec_credential(&cfg, &cred);
    dra_kube_cred_clear(&cred);
    return err_text(e);
}

UNIT_TEST(exec_failures_in_client_go_words)
{
    char *big = malloc(300000);
    memset(big, 'a', 299999);
    big[299999] = 0;
    char *m = exec_error("/bin/true", big);
    CHECK_STR(m, "exec: fork/exec /bin/true: argument list too long");
    free(m);
    free(big);
    m = exec_error("no-such-plugin-for-dra-tools", NULL);
    CHECK(strncmp(m,
                  "exec: executable no-such-plugin-for-dra-tools not found\n\nIt looks like you are trying to use a "
                  "client-go credential plugin that is not installed.",
                  120) == 0);
    CHECK(strstr(m, "#client-go-credential-plugins\n\ninstall it") != NULL);
    free(m);
    m = exec_error("/nonexistent/plugin", NULL);
    CHECK_STR(m, "exec: fork/exec /nonexistent/plugin: no such file or directory");
    free(m);
    m = exec_error("/dev/null", NULL);
    CHECK_STR(m, "exec: fork/exec /dev/null: permission denied");
    free(m);
}

UNIT_TEST(exec_killed_plugin_exit_code)
{
    dra_kube_exec x = {0};
    char *args[3] = {"-c", "kill -9 $$", NULL};
    char *env[1] = {NULL};
    x.api_version = "client.authentication.k8s.io/v1";
    x.command = "sh";
    x.args = args;
    x.env = env;
    dra_kube_config cfg = {0};
    cfg.server = "https://x";
    cfg.exec = &x;
    dra_kube_cred cred = {0};
    char *m = err_text(dra_kube_exec_credential(&cfg, &cred));
    CHECK_STR(m, "exec: executable sh failed with exit code -1"); /* ProcessState.ExitCode() */
    free(m);
    dra_kube_cred_clear(&cred);
}

/* ---- failed watches, events of other kinds ---- */

static dra_kube_rv_problem rv_problem(const char *status, long http)
{
    json_t *j = status ? json_loads(status, 0, NULL) : NULL;
    dra_kube_rv_problem p = dra_kube_rv_problem_of(j, http);
    json_decref(j);
    return p;
}

UNIT_TEST(rv_problems_as_the_reflector_tells_them)
{
    CHECK_INT(rv_problem("{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old\"}", 0),
              KUBE_RV_EXPIRED);
    CHECK_INT(rv_problem("{\"reason\":\"Gone\"}", 0), KUBE_RV_EXPIRED);
    CHECK_INT(rv_problem(NULL, 410), KUBE_RV_EXPIRED);                                 /* no Status: the code */
    CHECK_INT(rv_problem("{\"reason\":\"Conflict\",\"code\":410}", 0), KUBE_RV_OTHER); /* a known reason wins */
    const char *too_large =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"Timeout: Too large resource version: 9, "
        "current: 6\",\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\","
        "\"message\":\"Too large resource version\"}],\"retryAfterSeconds\":1},\"code\":504}";
    CHECK_INT(rv_problem(too_large, 0), KUBE_RV_TOO_LARGE);
    CHECK_INT(rv_problem(too_large, 504), KUBE_RV_TOO_LARGE);
    /* 1.17.0-1.18.5: the cause's message only; before: the Status's message (details present) */
    CHECK_INT(
        rv_problem("{\"reason\":\"Timeout\",\"code\":504,\"details\":{\"causes\":[{\"message\":\"Too large resource "
                   "version\"}]}}",
                   0),
        KUBE_RV_TOO_LARGE);
    CHECK_INT(rv_problem("{\"reason\":\"Timeout\",\"message\":\"Too large resource version: 5\",\"details\":{}}", 0),
              KUBE_RV_TOO_LARGE);
    CHECK_INT(rv_problem("{\"reason\":\"Timeout\",\"message\":\"Too large resource version: 5\"}", 0), KUBE_RV_OTHER);
    CHECK_INT(rv_problem("{\"message\":\"Too large resource version\",\"details\":{}}", 504), KUBE_RV_TOO_LARGE);
    CHECK_INT(
        rv_problem(
            "{\"reason\":\"InternalError\",\"code\":500,\"message\":\"Too large resource version\",\"details\":{}}", 0),
        KUBE_RV_OTHER);
    CHECK_INT(rv_problem("{\"reason\":\"Timeout\",\"code\":504,\"message\":\"request did not complete\"}", 504),
              KUBE_RV_OTHER);
    CHECK_INT(rv_problem("[1]", 504), KUBE_RV_OTHER);
    CHECK_INT(rv_problem(NULL, 0), KUBE_RV_OTHER);
}

static dra_kube_obj_match match(const char *res, const char *version, const char *obj, char **why)
{
    json_t *j = json_loads(obj, 0, NULL);
    dra_kube_obj_match m = dra_kube_api_match(dra_kube_resource_find(res), version, j, why);
    json_decref(j);
    return m;
}

UNIT_TEST(events_of_other_kinds)
{
    char *why = NULL;
    CHECK_INT(match("pods", "v1", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}", &why), KUBE_OBJ_EXPECTED);
    CHECK(why == NULL);
    CHECK_INT(match("pods", "v1", "{\"metadata\":{}}", NULL), KUBE_OBJ_EXPECTED);
    CHECK_INT(match("resourceslices", "v1beta2",
                    "{\"apiVersion\":\"resource.k8s.io/v1beta2\",\"kind\":\"ResourceSlice\"}", NULL),
              KUBE_OBJ_EXPECTED);
    CHECK_INT(match("pods", "v1", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\\r\"}}", &why),
              KUBE_OBJ_OTHER);
    CHECK_STR(why, "v1 Node \"n\\r\"");
    free(why);
    /* the same kind at another version is another Go type */
    CHECK_INT(
        match("resourceslices", "v1", "{\"apiVersion\":\"resource.k8s.io/v1beta2\",\"kind\":\"ResourceSlice\"}", NULL),
        KUBE_OBJ_OTHER);
    CHECK_INT(match("pods", "v1", "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\"}", &why), KUBE_OBJ_UNKNOWN);
    CHECK_STR(why,
              "unable to decode an event from the watch stream: unable to decode watch event: no kind \"Widget\" is "
              "registered for version \"example.com/v1\"");
    free(why);
    CHECK_INT(match("pods", "v1", "{\"apiVersion\":\"v2\",\"kind\":\"Pod\"}", NULL), KUBE_OBJ_UNKNOWN);
    CHECK_INT(match("pods", "v1", "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"Pod\"}", NULL), KUBE_OBJ_UNKNOWN);
}

UNIT_TEST(conflict_backoff_as_retry_default_backoff)
{
    dra_kube_config cfg;
    CHECK(parse(KC, NULL, NULL, &cfg) == NULL);
    dra_kube_client *c = NULL;
    CHECK(dra_kube_client_new(&cfg, NULL, &c) == NULL);
    if (!c)
        return;
    static const int64_t base[] = {10, 50, 250, 1250, 6250};
    for (int round = 0; round < 50; round++)
        for (int n = 0; n < 5; n++) {
            int64_t d = dra_kube_conflict_backoff_ms(c, n);
            CHECK(d >= base[n] && d <= base[n] + base[n] / 10);
        }
    dra_kube_client_free(c);
}

/* The user's as, as-uid, as-groups, as-user-extra, and kubectl's flags over
 * them (clientcmd client_config.go getAuthInfo merging its overrides). */
static const char *KC_AS = "current-context: a\n"
                           "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\n"
                           "users:\n"
                           "- name: u\n"
                           "  user:\n"
                           "    token: t\n"
                           "    as: alice\n"
                           "    as-uid: '42'\n"
                           "    as-groups: [g1, '']\n"
                           "    as-user-extra: {scopes: [a, b], reason: [r]}\n"
                           "contexts: [{name: a, context: {cluster: c, user: u}}]\n";

static dra_err *parse_as(const char *text, const dra_kube_config_opts *o, dra_kube_config *c)
{
    return dra_kube_config_parse("kc.yaml", text, strlen(text), "/base", o, c);
}

UNIT_TEST(impersonation_from_kubeconfig)
{
    dra_kube_config c;
    dra_kube_config_opts o = {0};
    dra_err *e = parse_as(KC_AS, &o, &c);
    CHECK(e == NULL);
    if (e)
        return;
    CHECK_STR(c.as.user, "alice");
    CHECK_STR(c.as.uid, "42");
    CHECK_INT(c.as.ngroups, 2);
    CHECK_STR(c.as.groups[0], "g1");
    CHECK_STR(c.as.groups[1], "");
    CHECK_INT(c.as.nextra, 2);
    CHECK_STR(c.as.extra[0].key, "scopes");
    CHECK_INT(c.as.extra[0].nvalues, 2);
    CHECK_STR(c.as.extra[0].values[1], "b");
    CHECK_STR(c.as.extra[1].key, "reason");
    /* plain http: the token goes, whom to act as stays */
    dra_kube_config_drop_credentials(&c);
    CHECK(c.token == NULL);
    CHECK_STR(c.as.user, "alice");
    dra_kube_config_free(&c);
}

UNIT_TEST(impersonation_flags_win)
{
    dra_kube_config c;
    const char *groups[] = {"x"};
    const char *extra[] = {"scopes=z", "new=1", "new=2"};
    dra_kube_config_opts o = {
        .as = "bob", .as_uid = "", .as_groups = groups, .nas_groups = 1, .as_extra = extra, .nas_extra = 3};
    dra_err *e = parse_as(KC_AS, &o, &c);
    CHECK(e == NULL);
    if (e)
        return;
    CHECK_STR(c.as.user, "bob");
    CHECK_STR(c.as.uid, "42"); /* an empty flag leaves the kubeconfig's */
    CHECK_INT(c.as.ngroups, 1);
    CHECK_STR(c.as.groups[0], "x");
    CHECK_INT(c.as.nextra, 3);
    CHECK_STR(c.as.extra[0].key, "scopes"); /* replaced, not added to */
    CHECK_INT(c.as.extra[0].nvalues, 1);
    CHECK_STR(c.as.extra[0].values[0], "z");
    CHECK_STR(c.as.extra[1].key, "reason");
    CHECK_STR(c.as.extra[2].key, "new");
    CHECK_INT(c.as.extra[2].nvalues, 2);
    dra_kube_config_free(&c);
}

UNIT_TEST(impersonation_errors)
{
    static const char *base = "current-context: a\n"
                              "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
                              "contexts: [{name: a, context: {cluster: c, user: u}}]\n"
                              "users: [{name: u, user: {%s}}]\n";
    static const struct {
        const char *user, *flag_group, *want;
    } cases[] = {
        {"as-groups: [g]", NULL,
         "invalid configuration: requesting uid, groups or user-extra for u without "
         "impersonating a user"},
        {"as-uid: '1'", NULL, "requesting uid, groups or user-extra for u"},
        {"as-user-extra: {k: [v]}", NULL, "requesting uid, groups or user-extra for u"},
        {"token: t", "g", "requesting uid, groups or user-extra for u"},
        {"as: 5", NULL, "as of user \"u\" must be a string"},
        {"as: alice, as-groups: g", NULL, "as-groups of user \"u\" must be a list of strings"},
        {"as: alice, as-user-extra: {k: v}", NULL, "as-user-extra[\"k\"] of user \"u\" must be a list of strings"},
        {"as: \"alice\\r\\nX-Injected: 1\"", NULL, "net/http: invalid header field value for \"Impersonate-User\""},
        {"as: alice, as-groups: [\"a\\nb\"]", NULL, "invalid header field value for \"Impersonate-Group\""},
        {"as: alice, as-user-extra: {\"k/y\": [\"\\u007f\"]}", NULL,
         "invalid header field value for \"Impersonate-Extra-K%2fy\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512];
        snprintf(text, sizeof text, base, cases[i].user);
        const char *g[] = {cases[i].flag_group};
        dra_kube_config_opts o = {.as_groups = g, .nas_groups = cases[i].flag_group ? 1 : 0};
        dra_kube_config c;
        dra_err *e = parse_as(text, &o, &c);
        CHECK(e != NULL && e->code == DRA_EXIT_INPUT);
        if (e && !strstr(e->msg, cases[i].want)) {
            fprintf(stderr, "  case %zu: %s\n", i, e->msg);
            CHECK(false);
        }
        dra_err_free(e);
        if (!e)
            dra_kube_config_free(&c);
    }
    /* a flag value without '=' */
    const char *extra[] = {"novalue"};
    dra_kube_config_opts o = {.as = "a", .as_extra = extra, .nas_extra = 1};
    dra_kube_config c;
    dra_err *e = parse_as(KC_AS, &o, &c);
    CHECK(e != NULL && strstr(e->msg, "--as-user-extra: want KEY=VALUE, not \"novalue\""));
    dra_err_free(e);
}

UNIT_TEST(impersonation_extra_header_names)
{
    /* client-go's headerKeyEscape, then net/http's canonical case */
    static const char *cases[][2] = {
        {"scopes", "Impersonate-Extra-Scopes"},       {"example.com/team", "Impersonate-Extra-Example.com%2fteam"},
        {"a b%c", "Impersonate-Extra-A%20b%25c"},     {"k\xc3\xa9", "Impersonate-Extra-K%c3%a9"},
        {"UP-down_x", "Impersonate-Extra-Up-Down_x"}, {"", "Impersonate-Extra-"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *h = dra_kube_extra_header(cases[i][0]);
        CHECK_STR(h, cases[i][1]);
        free(h);
    }
}

/* A one-shot client (kubectl's) gives up at once on a refused connection,
 * in kubectl's words; the loop's retries it with backoff. */
UNIT_TEST(fail_fast_on_refused_connection)
{
    static const char kc[] = "clusters: [{name: c, cluster: {server: 'https://alice:pw@127.0.0.1:1/'}}]\n"
                             "users: [{name: u, user: {token: t}}]\n"
                             "contexts: [{name: a, context: {cluster: c, user: u}}]\ncurrent-context: a\n";
    for (int fast = 0; fast <= 1; fast++) {
        dra_kube_config cfg;
        CHECK(parse(kc, NULL, NULL, &cfg) == NULL);
        dra_kube_client_opts o = {.fail_fast = fast, .backoff_base_ms = 1, .backoff_cap_ms = 2, .max_retries = 3};
        dra_kube_client *c = NULL;
        CHECK(dra_kube_client_new(&cfg, &o, &c) == NULL);
        if (!c)
            continue;
        dra_kube_req req = {"GET", "/api/v1/pods", NULL, NULL, 0, false};
        dra_kube_resp resp;
        dra_err *e = dra_kube_do(c, &req, &resp);
        CHECK(e != NULL);
        if (e)
            CHECK_STR(e->msg,
                      "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?");
        CHECK_INT((int)dra_kube_client_stats(c)->retries, fast ? 0 : 3);
        dra_err_free(e);
        dra_kube_resp_free(&resp);
        dra_kube_client_free(c);
    }
}

UNIT_MAIN()
