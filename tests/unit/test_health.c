/* The loop's health endpoints (watch/health.h): the responses to requests,
 * readiness, the Prometheus text, and a live server on a free port. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "watch/health.h"
#include "unit.h"

/* The response to req in st, as a new string (caller frees). */
static char *respond(const dra_health_state *st, const char *req)
{
    dra_buf out = DRA_BUF_INIT;
    dra_watch_health_respond(st, req, strlen(req), &out);
    return dra_buf_detach(&out);
}

UNIT_TEST(healthz_ok_readyz_waits_for_a_pass)
{
    dra_health_state st = {0};
    char *r = respond(&st, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
    CHECK(strstr(r, "\r\nContent-Length: 3\r\n") && strstr(r, "\r\n\r\nok\n"));
    free(r);
    r = respond(&st, "GET /readyz HTTP/1.0\n\n");
    CHECK(strncmp(r, "HTTP/1.1 503 Service Unavailable\r\n", 34) == 0);
    CHECK(strstr(r, "not ready: no successful pass yet\n") != NULL);
    free(r);
    st.ready = true;
    r = respond(&st, "GET /readyz?verbose HTTP/1.1\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
    free(r);
}

UNIT_TEST(metrics_in_prometheus_text_format)
{
    dra_health_state st = {.stats = {.requests = 12, .writes = 3, .conflicts = 1},
                           .passes = 4,
                           .failures = 1,
                           .last_pass_s = 0.25,
                           .ready = true};
    char *r = respond(&st, "GET /metrics HTTP/1.1\r\n\r\n");
    CHECK(strstr(r, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n") != NULL);
    CHECK(strstr(r, "\n# HELP dra_watch_requests_total API requests sent, retries included.\n"
                    "# TYPE dra_watch_requests_total counter\ndra_watch_requests_total 12\n") != NULL);
    CHECK(strstr(r, "\ndra_watch_writes_total 3\n") && strstr(r, "\ndra_watch_conflicts_total 1\n"));
    CHECK(strstr(r, "\ndra_watch_passes_total 4\n") && strstr(r, "\ndra_watch_pass_failures_total 1\n"));
    CHECK(strstr(r, "# TYPE dra_watch_last_pass_duration_seconds gauge\ndra_watch_last_pass_duration_seconds 0.25\n"));
    CHECK(strstr(r, "\ndra_watch_ready 1\n") != NULL);
    free(r);
}

UNIT_TEST(head_has_no_body_bad_requests_are_refused)
{
    dra_health_state st = {0};
    char *r = respond(&st, "HEAD /healthz HTTP/1.1\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0);
    CHECK(strstr(r, "Content-Length: 3\r\n") && strlen(strstr(r, "\r\n\r\n")) == 4);
    free(r);
    r = respond(&st, "POST /healthz HTTP/1.1\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.1 405 Method Not Allowed\r\n", 33) == 0 && strstr(r, "\r\nAllow: GET, HEAD\r\n"));
    free(r);
    r = respond(&st, "GET /nope HTTP/1.1\r\n\r\n");
    CHECK(strncmp(r, "HTTP/1.1 404 Not Found\r\n", 24) == 0);
    free(r);
    const char *bad[] = {
        "GET /healthz", "GET /healthz HTTP/2.0\r\n", "GET healthz HTTP/1.1\r\n", "GET  HTTP/1.1\r\n", "\r\n", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        r = respond(&st, bad[i]);
        CHECK(strncmp(r, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
        free(r);
    }
}

/* One request to 127.0.0.1:port; the whole response (caller frees). */
static char *fetch(int port, const char *req)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        if (s >= 0)
            close(s);
        return NULL;
    }
    if (write(s, req, strlen(req)) < 0) {
        close(s);
        return NULL;
    }
    dra_buf b = DRA_BUF_INIT;
    char chunk[512];
    ssize_t n;
    while ((n = read(s, chunk, sizeof chunk)) > 0)
        dra_buf_append(&b, chunk, (size_t)n);
    close(s);
    return dra_buf_detach(&b);
}

UNIT_TEST(server_answers_and_publishes_passes)
{
    dra_watch_health *h = NULL;
    dra_err *e = dra_watch_health_start("127.0.0.1:0", &h);
    CHECK(e == NULL && h != NULL);
    if (!h) {
        dra_err_free(e);
        return;
    }
    int port = dra_watch_health_port(h);
    CHECK(port > 0);
    char *r = fetch(port, "GET /readyz HTTP/1.1\r\n\r\n");
    CHECK(r && strncmp(r, "HTTP/1.1 503 ", 13) == 0);
    free(r);
    dra_kube_stats st = {.requests = 5, .events = 2};
    dra_watch_health_pass(h, false, 10, &st);
    dra_watch_health_pass(h, true, 20, &st);
    r = fetch(port, "GET /readyz HTTP/1.1\r\n\r\n");
    CHECK(r && strncmp(r, "HTTP/1.1 200 ", 13) == 0);
    free(r);
    st.events = 9;
    dra_watch_health_stats(h, &st);
    r = fetch(port, "GET /metrics HTTP/1.1\r\n\r\n");
    CHECK(r && strstr(r, "\ndra_watch_events_total 9\n") && strstr(r, "\ndra_watch_passes_total 2\n") &&
          strstr(r, "\ndra_watch_pass_failures_total 1\n") &&
          strstr(r, "\ndra_watch_last_pass_duration_seconds 0.02\n"));
    free(r);
    dra_watch_health_stop(h);
    CHECK(fetch(port, "GET /healthz HTTP/1.1\r\n\r\n") == NULL);
}

UNIT_TEST(bad_addresses_name_the_option)
{
    const char *bad[] = {"nonsense", "127.0.0.1:", "127.0.0.1:70000", "127.0.0.1:8x", "no.such.host.invalid:80"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dra_watch_health *h = (dra_watch_health *)1;
        dra_err *e = dra_watch_health_start(bad[i], &h);
        CHECK(e != NULL && h == NULL);
        if (e) {
            CHECK(e->code == DRA_EXIT_INPUT);
            char *m = dra_err_format(e);
            CHECK(strstr(m, "health-addr") != NULL);
            free(m);
        }
        dra_err_free(e);
    }
}

UNIT_MAIN()
