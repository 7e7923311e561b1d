/* One pod's explanation as a page.  See explain_page.h. */
#include "explain_page.h"

#include <string.h>

#include "../io/json.h"
#include "html.h"

/* "claim / request": the column key. */
static void column_key(const char *claim, const char *req, dra_buf *k)
{
    dra_buf_reset(k);
    dra_buf_printf(k, "%s / %s", claim ? claim : "", req ? req : "");
}

/* Every (claim, request) any node's allocator trace names, first-seen order:
 * the keys of an object. */
static json_t *columns(const json_t *nodes)
{
    json_t *cols = json_object();
    dra_buf k = DRA_BUF_INIT;
    size_t i, c, r;
    json_t *n, *cl, *rq;
    json_array_foreach(nodes, i, n) {
        json_array_foreach(dra_jget(n, "allocator.claims"), c, cl) {
            json_array_foreach(json_object_get(cl, "requests"), r, rq) {
                column_key(dra_jfield_str(cl, "claim"), dra_jfield_str(rq, "request"), &k);
                json_object_set_new(cols, dra_buf_str(&k), json_true());
            }
            json_array_foreach(json_object_get(cl, "allocated"), r, rq) {
                column_key(dra_jfield_str(cl, "claim"), dra_jfield_str(rq, "request"), &k);
                json_object_set_new(cols, dra_buf_str(&k), json_true());
            }
        }
    }
    dra_buf_free(&k);
    return cols;
}

/* The cell of one node's allocator trace for the column `key`. */
static void cell(const json_t *alloc, const char *node, const char *key, dra_buf *b)
{
    dra_buf k = DRA_BUF_INIT, items = DRA_BUF_INIT;
    size_t c, r, d, refused = 0;
    bool seen = false; /* the allocator reached this request on this node */
    json_t *cl, *rq, *rej;
    json_array_foreach(json_object_get(alloc, "claims"), c, cl) {
        json_array_foreach(json_object_get(cl, "requests"), r, rq) {
            column_key(dra_jfield_str(cl, "claim"), dra_jfield_str(rq, "request"), &k);
            if (strcmp(dra_buf_str(&k), key) != 0)
                continue;
            seen = true;
            json_array_foreach(json_object_get(rq, "rejected"), d, rej) {
                refused++;
                dra_buf_puts(&items, "<li class=\"refused\"><code>");
                dra_html_text(&items, dra_jfield_str(rej, "device"));
                dra_buf_puts(&items, "</code> ");
                dra_html_elem(&items, "b", dra_jfield_str(rej, "reason"));
                dra_buf_puts(&items, ": ");
                dra_html_text(&items, dra_jfield_str(rej, "detail"));
                dra_buf_puts(&items, "</li>");
            }
        }
        json_array_foreach(json_object_get(cl, "allocated"), r, rq) {
            column_key(dra_jfield_str(cl, "claim"), dra_jfield_str(rq, "request"), &k);
            if (strcmp(dra_buf_str(&k), key) != 0)
                continue;
            dra_buf_puts(&items, "<li class=\"fits\">allocated <code>");
            dra_html_text(&items, dra_jfield_str(rq, "device"));
            dra_buf_puts(&items, "</code></li>");
        }
        const json_t *cut = json_object_get(cl, "cut");
        column_key(dra_jfield_str(cl, "claim"), dra_jfield_str(cut, "request"), &k);
        if (cut && strcmp(dra_buf_str(&k), key) == 0)
            dra_buf_printf(&items, "<li class=\"refused\">the search ran short here: needs %lld, found %lld</li>",
                           (long long)json_integer_value(json_object_get(cut, "need")),
                           (long long)json_integer_value(json_object_get(cut, "available")));
    }
    dra_buf_printf(b, "<td class=\"cell\" data-refused=\"%zu\"", refused);
    dra_html_attr(b, "data-node", node);
    dra_html_attr(b, "data-request", key);
    if (items.len)
        dra_buf_printf(b, "><ul>%s</ul></td>", dra_buf_str(&items));
    else
        dra_buf_printf(b, "><span class=\"note\">%s</span></td>",
                       seen ? "no device refused" : "not reached: the search stopped at an earlier request");
    dra_buf_free(&k);
    dra_buf_free(&items);
}

static void node_row(const json_t *n, const json_t *cols, dra_buf *b)
{
    const char *skipped = dra_jfield_str(n, "skipped"), *pre = dra_jfield_str(n, "prefiltered"),
               *reason = dra_jfield_str(n, "reason");
    bool fits = dra_jfield_true(n, "fits");
    const json_t *alloc = json_object_get(n, "allocator");
    size_t ncols = json_object_size(cols);
    dra_buf_puts(b, "<tr");
    dra_html_attr(b, "data-node", dra_jfield_str(n, "node"));
    dra_buf_printf(b, " data-verdict=\"%s\"><th>", fits ? "fits" : skipped ? "skipped" : "refused");
    dra_html_text(b, dra_jfield_str(n, "node"));
    dra_buf_puts(b, "</th>");
    if (fits || skipped || !alloc || !ncols) {
        dra_buf_printf(b, "<td class=\"%s\" colspan=\"%zu\">",
                       fits      ? "fits"
                       : skipped ? "note"
                                 : "refused",
                       ncols ? ncols : 1);
        if (fits)
            dra_buf_printf(b, "fits, score %lld", (long long)json_integer_value(json_object_get(n, "score")));
        else if (skipped) {
            dra_buf_puts(b, "not tried: ");
            dra_html_text(b, skipped);
        } else {
            dra_html_text(b, reason ? reason : "refused");
            if (pre) {
                dra_buf_puts(b, " &mdash; ");
                dra_html_text(b, pre);
            }
        }
        dra_buf_puts(b, "</td></tr>\n");
        return;
    }
    const char *key;
    json_t *unused;
    json_object_foreach((json_t *)cols, key, unused)
        cell(alloc, dra_jfield_str(n, "node"), key, b);
    dra_buf_puts(b, "</tr>\n");
}

void dra_explain_page(const json_t *pod, dra_buf *b)
{
    dra_buf title = DRA_BUF_INIT;
    dra_buf_printf(&title, "dra-alloc schedule: pod %s", dra_jfield_str(pod, "pod") ? dra_jfield_str(pod, "pod") : "");
    dra_html_begin(b, dra_buf_str(&title));
    dra_buf_free(&title);
    const char *outcome = dra_jfield_str(pod, "outcome"), *node = dra_jfield_str(pod, "node");
    dra_buf_puts(b, "<p class=\"outcome\"");
    dra_html_attr(b, "data-outcome", outcome);
    dra_buf_puts(b, "><b>");
    dra_html_text(b, outcome);
    dra_buf_puts(b, "</b>");
    if (node) {
        dra_buf_puts(b, " on node ");
        dra_html_text(b, node);
        dra_buf_printf(b, " (score %lld)", (long long)json_integer_value(json_object_get(pod, "score")));
    }
    if (dra_jfield_str(pod, "message")) {
        dra_buf_puts(b, ": ");
        dra_html_text(b, dra_jfield_str(pod, "message"));
    }
    dra_buf_puts(b, "</p>\n");
    const json_t *q = json_object_get(pod, "queue");
    if (q) {
        dra_buf_printf(b, "<p class=\"note\">queue: #%lld, ",
                       (long long)json_integer_value(json_object_get(q, "position")));
        dra_html_text(b, dra_jfield_str(q, "why"));
        dra_buf_puts(b, "</p>\n");
    }
    if (dra_jfield_str(pod, "summary")) {
        dra_buf_puts(b, "<p class=\"summary\">In short: ");
        dra_html_text(b, dra_jfield_str(pod, "summary"));
        dra_buf_puts(b, "</p>\n");
    }
    const json_t *nodes = json_object_get(pod, "nodes");
    json_t *cols = columns(nodes);
    dra_buf_puts(b, "<h2>Why each node refused each request</h2>\n<table class=\"explain\">\n<tr><th>node</th>");
    const char *key;
    json_t *unused;
    json_object_foreach(cols, key, unused)
        dra_html_elem(b, "th", key);
    if (!json_object_size(cols))
        dra_buf_puts(b, "<th>verdict</th>");
    dra_buf_puts(b, "</tr>\n");
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n)
        node_row(n, cols, b);
    dra_buf_puts(b, "</table>\n");
    json_decref(cols);
    dra_html_end(b);
}
