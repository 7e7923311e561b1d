/* The HTML pages (insight/html.h, capacity_page.h, explain_page.h):
 * escaping, the device squares' four parts, the explain table's cells, and
 * a failed write. */
#include <stdio.h>
#include <string.h>

#include "insight/capacity_page.h"
#include "insight/explain_page.h"
#include "insight/html.h"
#include "unit.h"

static size_t occurrences(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

UNIT_TEST(html_text_escapes_markup_quotes_and_control_bytes)
{
    dra_buf b = DRA_BUF_INIT;
    dra_html_text(&b, "<a href=\"x\">&'</a>\x01\tok\x7f");
    CHECK_STR(dra_buf_str(&b), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;\xef\xbf\xbd\tok\xef\xbf\xbd");
    dra_buf_reset(&b);
    dra_html_text(&b, NULL);
    dra_html_attr(&b, "data-x", "a\"b");
    dra_html_elem(&b, "td", "<i>");
    CHECK_STR(dra_buf_str(&b), " data-x=\"a&quot;b\"<td>&lt;i&gt;</td>");
    dra_buf_free(&b);
}

UNIT_TEST(html_page_frame_forbids_scripts)
{
    dra_buf b = DRA_BUF_INIT;
    dra_html_begin(&b, "t<script>");
    dra_html_end(&b);
    CHECK(strstr(dra_buf_str(&b), "default-src 'none'") != NULL);
    CHECK(strstr(dra_buf_str(&b), "<title>t&lt;script&gt;</title>") != NULL);
    CHECK(strstr(dra_buf_str(&b), "<script") == NULL);
    CHECK(strstr(dra_buf_str(&b), "</html>\n") != NULL);
    dra_buf_free(&b);
}

UNIT_TEST(html_write_failure_is_a_runtime_error)
{
    FILE *f = fopen("/dev/full", "w");
    CHECK(f != NULL);
    if (!f)
        return;
    dra_buf b = DRA_BUF_INIT;
    dra_html_begin(&b, "x");
    dra_err *e = dra_html_write(f, &b);
    CHECK(e != NULL);
    CHECK_INT(e ? e->code : 0, DRA_EXIT_RUNTIME);
    CHECK(e && strstr(e->msg, "error writing output") != NULL);
    dra_err_free(e);
    fclose(f);
    dra_buf_free(&b);
}

/* A tainted device in use shows as tainted; parts add up to the total. */
UNIT_TEST(capacity_page_squares_split_in_four_parts)
{
    json_t *rep = json_loads("{\"classes\": [{\"name\": \"gpu\", \"total\": 8, \"allocated\": 3, \"shared\": 1,"
                             " \"tainted\": 2, \"unhealthy\": 1, \"blocked\": 1, \"unusable\": 0, \"free\": 2,"
                             " \"largestFit\": {\"devices\": 2, \"node\": \"n1\"},"
                             " \"nodes\": [{\"name\": \"n1\", \"total\": 8, \"allocated\": 3, \"shared\": 1,"
                             " \"tainted\": 2, \"unhealthy\": 1, \"blocked\": 1, \"unusable\": 0, \"free\": 2,"
                             " \"largestFit\": 2}]}]}",
                             0, NULL);
    dra_buf b = DRA_BUF_INIT;
    dra_capacity_page(rep, NULL, &b);
    const char *s = dra_buf_str(&b);
    CHECK(strstr(s, "data-total=\"8\" data-free=\"2\" data-used=\"4\" data-tainted=\"2\" data-other=\"0\"") != NULL);
    CHECK_INT(occurrences(s, "<rect class=\"free\" x="), 2);
    CHECK_INT(occurrences(s, "<rect class=\"used\" x="), 4);
    CHECK_INT(occurrences(s, "<rect class=\"tainted\" x="), 2);
    CHECK(strstr(s, "2 free devices on 1 node; the largest block one claim gets on one node: 2 (n1).") != NULL);
    CHECK(strstr(s, "id=\"counters\"") == NULL); /* no pools rows: no section */
    dra_buf_free(&b);
    json_decref(rep);
}

/* Past DRA_CAPACITY_PAGE_SQUARES devices a cell is one bar; counters are
 * consumed = total - left. */
UNIT_TEST(capacity_page_bar_past_the_squares_and_counter_bars)
{
    json_t *rep = json_loads("{\"classes\": [{\"name\": \"gpu\", \"total\": 100, \"free\": 100,"
                             " \"largestFit\": {\"devices\": 8, \"node\": \"n1\"},"
                             " \"nodes\": [{\"name\": \"n1\", \"total\": 100, \"free\": 100, \"largestFit\": 8}],"
                             " \"pools\": [{\"driver\": \"d\", \"pool\": \"p\", \"node\": \"n1\","
                             "  \"counterSets\": [{\"name\": \"cs\", \"counters\": {\"memory\": {\"total\": \"80Gi\","
                             "  \"left\": \"60Gi\"}, \"bad\": {\"total\": \"x\", \"left\": \"1\"}}}],"
                             "  \"consumable\": []}]}]}",
                             0, NULL);
    dra_buf b = DRA_BUF_INIT;
    dra_capacity_page(rep, NULL, &b);
    const char *s = dra_buf_str(&b);
    CHECK_INT(occurrences(s, "<rect class=\"free\" x="), 1);
    CHECK(strstr(s, "<rect class=\"free\" x=\"0.00\" y=\"0\" width=\"192.00\"") != NULL);
    CHECK(strstr(s, "data-counter-set=\"cs\" data-counter=\"memory\" data-consumed=\"20Gi\" data-capacity=\"80Gi\"") !=
          NULL);
    CHECK(strstr(s, "<rect class=\"cap\" width=\"50.0\"") != NULL);
    CHECK(strstr(s, "data-counter=\"bad\" data-consumed=\"?\"") != NULL); /* not a quantity: no figure made up */
    dra_buf_free(&b);
    json_decref(rep);
}

UNIT_TEST(explain_page_nodes_by_requests)
{
    json_t *pod = json_loads(
        "{\"pod\": \"ns/p\", \"outcome\": \"unschedulable\", \"message\": \"0/3 nodes are available\","
        " \"summary\": \"s<b>\", \"nodes\": ["
        " {\"node\": \"a\", \"fits\": false, \"reason\": \"cannot allocate all claims\", \"allocator\": {\"claims\": ["
        "   {\"claim\": \"ns/c\", \"requests\": [{\"request\": \"r1\", \"rejected\": ["
        "     {\"device\": \"d/a/x\", \"reason\": \"in-use\", \"detail\": \"held\"},"
        "     {\"device\": \"d/a/<y>\", \"reason\": \"counters\", \"detail\": \"short\"}]}],"
        "    \"allocated\": [], \"cut\": {\"request\": \"r1\", \"need\": 2, \"available\": 1}}]}},"
        " {\"node\": \"b\", \"fits\": false, \"reason\": \"cannot allocate all claims\", \"allocator\": {\"claims\": ["
        "   {\"claim\": \"ns/c\", \"requests\": [{\"request\": \"r1\", \"rejected\": []},"
        "    {\"request\": \"r2\", \"rejected\": [{\"device\": \"d/b/z\", \"reason\": \"constraint\", \"detail\": "
        "\"q\"}]}],"
        "    \"allocated\": [{\"request\": \"r1\", \"device\": \"d/b/w\"}]}]}},"
        " {\"node\": \"c\", \"skipped\": \"cannot score higher\"}]}",
        0, NULL);
    dra_buf b = DRA_BUF_INIT;
    dra_explain_page(pod, &b);
    const char *s = dra_buf_str(&b);
    CHECK(strstr(s, "<th>ns/c / r1</th><th>ns/c / r2</th>") != NULL);
    CHECK(strstr(s, "data-refused=\"2\" data-node=\"a\" data-request=\"ns/c / r1\"") != NULL);
    CHECK(strstr(s, "<code>d/a/&lt;y&gt;</code>") != NULL);
    CHECK(strstr(s, "needs 2, found 1") != NULL);
    CHECK(strstr(s, "data-node=\"a\" data-request=\"ns/c / r2\"><span class=\"note\">not reached") != NULL);
    CHECK(strstr(s, "allocated <code>d/b/w</code>") != NULL);
    CHECK(strstr(s, "data-refused=\"1\" data-node=\"b\" data-request=\"ns/c / r2\"") != NULL);
    CHECK(strstr(s, "data-node=\"c\" data-verdict=\"skipped\"><th>c</th><td class=\"note\" colspan=\"2\">not tried: "
                    "cannot score higher</td>") != NULL);
    CHECK(strstr(s, "In short: s&lt;b&gt;") != NULL);
    dra_buf_free(&b);
    json_decref(pod);
}

UNIT_MAIN()
