/* grpc/ framing and a client/server round trip; kubelet/ rpc.h against the
 * plugin-side codecs of driver.h.  Servers run in a forked child on a unix
 * socket in a temporary directory and are stopped by PID. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grpc/frame.h"
#include "grpc/grpc.h"
#include "kubelet/driver.h"
#include "kubelet/registration.h"
#include "kubelet/rpc.h"
#include "unit.h"

UNIT_TEST(frame_reader_splits_and_joins)
{
    dra_buf b = DRA_BUF_INIT;
    dra_grpc_frame_append(&b, "hello", 5);
    dra_grpc_frame_append(&b, "", 0);
    dra_grpc_frame_append(&b, "xy", 2);
    dra_grpc_reader r;
    dra_grpc_reader_init(&r, 0);
    const char *want[] = {"hello", "", "xy"};
    int got = 0;
    /* one byte at a time */
    for (size_t i = 0; i < b.len; i++) {
        const uint8_t *p = (const uint8_t *)b.data + i;
        size_t left = 1;
        while (left) {
            size_t used;
            const uint8_t *m;
            size_t ml;
            dra_grpc_read_status s = dra_grpc_reader_feed(&r, p, left, &used, &m, &ml);
            CHECK(s == DRA_GRPC_READ_OK || s == DRA_GRPC_READ_MSG);
            if (s == DRA_GRPC_READ_MSG) {
                CHECK(got < 3 && ml == strlen(want[got]) && memcmp(m, want[got], ml) == 0);
                got++;
            }
            p += used;
            left -= used;
        }
    }
    CHECK_INT(got, 3);
    CHECK(!dra_grpc_reader_partial(&r));
    dra_grpc_reader_free(&r);
    dra_buf_free(&b);
}

UNIT_TEST(frame_reader_rejects_compressed_and_large)
{
    dra_grpc_reader r;
    size_t used, ml;
    const uint8_t *m;
    dra_grpc_reader_init(&r, 10);
    const uint8_t comp[] = {1, 0, 0, 0, 1, 'x'};
    CHECK(dra_grpc_reader_feed(&r, comp, sizeof comp, &used, &m, &ml) == DRA_GRPC_READ_COMPRESSED);
    dra_grpc_reader_free(&r);
    dra_grpc_reader_init(&r, 10);
    const uint8_t big[] = {0, 0, 0, 0, 11};
    CHECK(dra_grpc_reader_feed(&r, big, sizeof big, &used, &m, &ml) == DRA_GRPC_READ_TOO_LARGE);
    CHECK_INT(r.want, 11);
    dra_grpc_reader_free(&r);
    dra_grpc_reader_init(&r, 10);
    const uint8_t part[] = {0, 0, 0, 0, 4, 'a'};
    CHECK(dra_grpc_reader_feed(&r, part, sizeof part, &used, &m, &ml) == DRA_GRPC_READ_OK);
    CHECK(dra_grpc_reader_partial(&r));
    dra_grpc_reader_free(&r);
}

UNIT_TEST(percent_coding_and_timeouts)
{
    dra_buf b = DRA_BUF_INIT;
    dra_grpc_percent_encode(&b, "a 100% ok\n\xc3\xa9", 12);
    CHECK_STR(dra_buf_str(&b), "a 100%25 ok%0A%C3%A9");
    dra_buf d = DRA_BUF_INIT;
    dra_grpc_percent_decode(&d, b.data, b.len);
    CHECK_STR(dra_buf_str(&d), "a 100% ok\n\xc3\xa9");
    dra_buf_reset(&d);
    dra_grpc_percent_decode(&d, "bad %zz and %4", 14);
    CHECK_STR(dra_buf_str(&d), "bad %zz and %4");
    dra_buf_free(&b);
    dra_buf_free(&d);
    char t[16];
    dra_grpc_timeout_format(45000, t);
    CHECK_STR(t, "45000m");
    dra_grpc_timeout_format(100000000LL, t);
    CHECK_STR(t, "100000S");
    long long ms;
    CHECK(dra_grpc_timeout_parse("2S", 2, &ms) && ms == 2000);
    CHECK(dra_grpc_timeout_parse("1500u", 5, &ms) && ms == 2);
    CHECK(dra_grpc_timeout_parse("1H", 2, &ms) && ms == 3600000);
    CHECK(!dra_grpc_timeout_parse("123456789m", 10, &ms));
    CHECK(!dra_grpc_timeout_parse("12x", 3, &ms));
    CHECK(!dra_grpc_timeout_parse("m", 1, &ms));
    CHECK_STR(dra_grpc_code_name(14), "UNAVAILABLE");
    CHECK_STR(dra_grpc_code_name(99), "UNKNOWN_STATUS");
    CHECK_INT(dra_grpc_code_from_http(503), DRA_GRPC_UNAVAILABLE);
}

/* ---- a forked server ---- */

static char dir[64];
static char sock[128];

static void echo(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)
{
    if (len >= 4 && memcmp(req, "fail", 4) == 0) {
        rep->code = DRA_GRPC_FAILED_PRECONDITION;
        dra_buf_puts(&rep->message, "refused: 100% sure\nreally");
        return;
    }
    if (len >= 4 && memcmp(req, "slow", 4) == 0)
        rep->delay_ms = 2000;
    if (len >= 4 && memcmp(req, "trnc", 4) == 0) {
        rep->raw = true;
        dra_buf_append(&rep->body,
                       "\0\0\0\0\x10"
                       "abc",
                       8);
        return;
    }
    dra_buf_append(&rep->body, req, len);
}

static void stream_open(void *ctx, const uint8_t *req, size_t len, dra_grpc_reply *rep)
{
    dra_buf_puts(&rep->body, "first");
}

static pid_t start_server(void (*setup)(dra_grpc_server *))
{
    snprintf(dir, sizeof dir, "/tmp/dra-grpc-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    int pfd[2];
    if (pipe(pfd) < 0)
        abort();
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        dra_grpc_server *s = dra_grpc_server_new(NULL);
        setup(s);
        dra_err *e = dra_grpc_server_listen(s, sock);
        if (e)
            _exit(1);
        if (write(pfd[1], "x", 1) != 1)
            _exit(1);
        close(pfd[1]);
        int ticks = 0;
        for (;;) {
            dra_grpc_server_poll(s, 50);
            if (dra_grpc_server_open_calls(s, "/t.S/Stream") && ++ticks % 4 == 0)
                dra_grpc_server_broadcast(s, "/t.S/Stream", "tick", 4);
        }
    }
    close(pfd[1]);
    char c;
    if (read(pfd[0], &c, 1) != 1)
        abort();
    close(pfd[0]);
    return pid;
}

static void stop_server(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    unlink(sock);
    rmdir(dir);
}

static void setup_echo(dra_grpc_server *s)
{
    dra_grpc_server_unary(s, "/t.S/Echo", echo, NULL);
    dra_grpc_server_stream(s, "/t.S/Stream", stream_open, NULL);
}

static int count_msgs(void *ctx, const uint8_t *m, size_t len)
{
    int *n = ctx;
    (*n)++;
    return *n >= 3; /* stop after three */
}

UNIT_TEST(client_server_round_trip)
{
    pid_t pid = start_server(setup_echo);
    dra_grpc_client *c;
    dra_grpc_client_opts o = {.max_msg = 1 << 20};
    CHECK(dra_grpc_client_new(sock, &o, &c) == NULL);
    dra_buf r = DRA_BUF_INIT;
    dra_grpc_status st = {0};
    for (int i = 0; i < 3; i++) { /* the connection is reused */
        dra_buf_reset(&r);
        CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "ping", 4, 5000, &r, &st), DRA_GRPC_OK);
        CHECK(r.len == 4 && memcmp(r.data, "ping", 4) == 0);
    }
    dra_buf_reset(&r);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "", 0, 5000, &r, &st), DRA_GRPC_OK);
    CHECK_INT(r.len, 0);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "fail", 4, 5000, &r, &st), DRA_GRPC_FAILED_PRECONDITION);
    CHECK_STR(st.message, "refused: 100% sure\nreally");
    CHECK_INT(dra_grpc_unary(c, "/t.S/Nope", "x", 1, 5000, &r, &st), DRA_GRPC_UNIMPLEMENTED);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "slow", 4, 200, &r, &st), DRA_GRPC_DEADLINE_EXCEEDED);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "trnc", 4, 5000, &r, &st), DRA_GRPC_INTERNAL);
    CHECK(st.message && strstr(st.message, "truncated"));
    /* size caps both ways */
    char *big = calloc(1, (1 << 20) + 10);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", big, (1 << 20) + 10, 5000, &r, &st), DRA_GRPC_RESOURCE_EXHAUSTED);
    CHECK(strstr(st.message, "trying to send message larger than max"));
    dra_grpc_client *c2;
    dra_grpc_client_opts o2 = {.max_msg = 3 << 20};
    CHECK(dra_grpc_client_new(sock, &o2, &c2) == NULL);
    big = realloc(big, 2 << 20);
    memset(big, 'z', 2 << 20);
    dra_buf_reset(&r);
    CHECK_INT(dra_grpc_unary(c2, "/t.S/Echo", big, 2 << 20, 5000, &r, &st), DRA_GRPC_OK);
    CHECK_INT(r.len, 2 << 20);
    free(big);
    /* still fine after all of that */
    dra_buf_reset(&r);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "ok", 2, 5000, &r, &st), DRA_GRPC_OK);
    int n = 0;
    CHECK_INT(dra_grpc_server_streaming(c, "/t.S/Stream", "", 0, 5000, count_msgs, &n, &st), DRA_GRPC_CANCELLED);
    CHECK_INT(n, 3);
    /* the server goes away: a clear UNAVAILABLE, then reconnects fine */
    stop_server(pid);
    CHECK_INT(dra_grpc_unary(c, "/t.S/Echo", "ping", 4, 5000, &r, &st), DRA_GRPC_UNAVAILABLE);
    CHECK(strstr(st.message, "connect: no such file or directory") != NULL);
    pid = start_server(setup_echo);
    dra_grpc_client_free(c2);
    CHECK(dra_grpc_client_new(sock, &o2, &c2) == NULL);
    dra_buf_reset(&r);
    CHECK_INT(dra_grpc_unary(c2, "/t.S/Echo", "back", 4, 5000, &r, &st), DRA_GRPC_OK);
    dra_grpc_status_clear(&st);
    dra_buf_free(&r);
    dra_grpc_client_free(c);
    dra_grpc_client_free(c2);
    stop_server(pid);
}

UNIT_TEST(long_socket_path_is_an_input_error)
{
    char p[200];
    memset(p, 'a', sizeof p - 1);
    p[sizeof p - 1] = 0;
    dra_grpc_client *c;
    dra_err *e = dra_grpc_client_new(p, NULL, &c);
    CHECK(e && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);
}

/* ---- rpc.h against driver.h ---- */

static void drv_prepare(void *ctx, const char *svc, const dra_claim_ref *claims, size_t n, dra_arena *a,
                        dra_prep_claim **out, size_t *n_out, dra_grpc_reply *rep)
{
    dra_prep_claim *cl = dra_arena_zalloc(a, (n + 1) * sizeof *cl);
    for (size_t i = 0; i < n; i++) {
        cl[i].uid = dra_arena_strdup(a, claims[i].uid);
        if (strcmp(claims[i].name, "bad") == 0) {
            cl[i].error = dra_arena_printf(a, "no device for %s/%s", claims[i].namespace_, claims[i].name);
            continue;
        }
        cl[i].n_devices = 1;
        cl[i].devices = dra_arena_zalloc(a, sizeof *cl[i].devices);
        cl[i].devices->pool = "pool";
        cl[i].devices->device = dra_arena_printf(a, "dev-%zu", i);
        cl[i].devices->requests = dra_arena_zalloc(a, sizeof(char *));
        cl[i].devices->requests[0] = (char *)svc;
        cl[i].devices->n_requests = 1;
        cl[i].devices->cdi_ids = dra_arena_zalloc(a, sizeof(char *));
        cl[i].devices->cdi_ids[0] = dra_arena_printf(a, "example.com/gpu=%s", claims[i].uid);
        cl[i].devices->n_cdi_ids = 1;
        cl[i].devices->share_id = i == 0 ? "share-1" : NULL; /* consumable capacity: a share */
    }
    *out = cl;
    *n_out = n;
}

static void drv_health(void *ctx, dra_arena *a, dra_health_device **out, size_t *n)
{
    dra_health_device *d = dra_arena_zalloc(a, sizeof *d);
    d->pool = "pool";
    d->device = "dev-0";
    d->health = DRA_HEALTH_UNHEALTHY;
    d->last_updated = 42;
    *out = d;
    *n = 1;
}

static const char *const services[] = {"v9.Other", "v1beta1.DRAPlugin", "v1.DRAPlugin"};
static dra_driver_info info = {"gpu.example.com", NULL, services, 3};
static const dra_driver_ops ops = {drv_prepare, drv_prepare, drv_health, NULL, NULL};

static void setup_driver(dra_grpc_server *s)
{
    info.endpoint = sock;
    dra_driver_serve_registration(s, &info, &ops);
    dra_driver_serve_plugin(s, &ops);
}

static int health_cb(void *ctx, const dra_health_device *d, size_t n)
{
    int *got = ctx;
    *got =
        n == 1 && strcmp(d[0].device, "dev-0") == 0 && d[0].health == DRA_HEALTH_UNHEALTHY && d[0].last_updated == 42;
    return 1;
}

UNIT_TEST(rpc_prepare_unprepare_both_versions)
{
    pid_t pid = start_server(setup_driver);
    const char *svcs[] = {"v1.DRAPlugin", "v1beta1.DRAPlugin"};
    for (int v = 0; v < 2; v++) {
        dra_plugin *p;
        CHECK(dra_plugin_dial(sock, svcs[v], NULL, &p) == NULL);
        dra_claim_ref claims[] = {{"ns", "uid-1", "one"}, {"ns", "uid-2", "bad"}};
        dra_arena a = DRA_ARENA_INIT;
        dra_prep_claim *out;
        size_t n;
        dra_err *e = dra_plugin_prepare(p, claims, 2, &a, &out, &n);
        CHECK(e == NULL);
        CHECK_INT(n, 2);
        if (n == 2) {
            dra_prep_claim *one = strcmp(out[0].uid, "uid-1") == 0 ? &out[0] : &out[1];
            dra_prep_claim *bad = one == &out[0] ? &out[1] : &out[0];
            CHECK(one->error == NULL && one->n_devices == 1);
            CHECK_STR(one->devices[0].requests[0], svcs[v]);
            CHECK_STR(one->devices[0].cdi_ids[0], "example.com/gpu=uid-1");
            /* Device.share_id is v1's (api.proto field 5), absent in v1beta1 */
            if (v == 0)
                CHECK_STR(one->devices[0].share_id, "share-1");
            else
                CHECK(one->devices[0].share_id == NULL);
            CHECK_STR(bad->error, "no device for ns/bad");
        }
        e = dra_plugin_unprepare(p, claims, 2, &a, &out, &n);
        CHECK(e == NULL && n == 2 && out[0].n_devices == 0);
        dra_arena_free(&a);
        dra_plugin_close(p);
    }
    dra_plugin *p;
    dra_err *e = dra_plugin_dial(sock, "v2.DRAPlugin", NULL, &p);
    CHECK(e && e->code == DRA_EXIT_INPUT);
    dra_err_free(e);

    /* registration */
    dra_arena a = DRA_ARENA_INIT;
    dra_reg_plugin rp;
    dra_reg_opts ro = {.notify = true};
    dra_registry_probe(sock, &ro, &a, &rp);
    CHECK(rp.registered && rp.reachable && rp.error == NULL);
    CHECK_STR(rp.name, "gpu.example.com");
    CHECK_STR(rp.service, "v1beta1.DRAPlugin"); /* the plugin's order wins */
    char *why;
    char *none[] = {"v1alpha3.Node"};
    CHECK(dra_registry_choose(none, 1, &a, &why) == NULL);
    CHECK_STR(why, "none of services supported by the plugin ([\"v1alpha3.Node\"]) are supported by the kubelet "
                   "([\"v1.DRAPlugin\" \"v1beta1.DRAPlugin\"])");
    /* each name as Go's %q writes it (strconv.Quote): controls escaped */
    char *odd[] = {"v1.Node\tx", "caf\xc3\xa9\n\x01"};
    CHECK(dra_registry_choose(odd, 2, &a, &why) == NULL);
    CHECK_STR(why, "none of services supported by the plugin ([\"v1.Node\\tx\" \"caf\xc3\xa9\\n\\x01\"]) are "
                   "supported by the kubelet ([\"v1.DRAPlugin\" \"v1beta1.DRAPlugin\"])");
    CHECK(dra_registry_choose(none, 0, &a, &why) == NULL);
    CHECK_STR(why, "empty list of supported gRPC services (aka supported versions)");
    dra_reg_plugin *list;
    size_t nl;
    CHECK(dra_registry_scan(dir, &ro, &a, &list, &nl) == NULL);
    CHECK_INT(nl, 1);
    CHECK(dra_registry_lookup(list, nl, "gpu.example.com") == &list[0]);
    CHECK(dra_registry_lookup(list, nl, "other") == NULL);
    dra_arena_free(&a);

    /* health */
    int got = 0;
    dra_health_opts ho = {.ctx = &got, .max_attempts = 1};
    CHECK(dra_health_watch(sock, &ho, health_cb) == NULL);
    CHECK_INT(got, 1);
    got = 0;
    ho.service = DRA_HEALTH_V1;
    CHECK(dra_health_watch(sock, &ho, health_cb) == NULL);
    CHECK_INT(got, 1);
    stop_server(pid);

    /* nobody listening: a clear runtime error naming the socket */
    CHECK(dra_plugin_dial(sock, "v1.DRAPlugin", NULL, &p) == NULL);
    dra_claim_ref c1 = {"ns", "u", "n"};
    dra_prep_claim *out;
    size_t n;
    e = dra_plugin_prepare(p, &c1, 1, &a, &out, &n);
    CHECK(e && e->code == DRA_EXIT_RUNTIME && strstr(e->msg, "UNAVAILABLE") && strstr(e->msg, sock));
    dra_err_free(e);
    dra_plugin_close(p);
    dra_arena_free(&a);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    return unit_run();
}
