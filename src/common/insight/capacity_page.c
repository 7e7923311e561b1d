/* The capacity report as a page.  See capacity_page.h. */
#include "capacity_page.h"

#include <string.h>

#include "../io/json.h"
#include "../model/quantity.h"
#include "html.h"

static long long num(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* clang-format off */
static const char *const counts[] = {"total", "allocated", "shared", "tainted", "unhealthy", "blocked", "unusable", "free"};
/* clang-format on */
#define NCOUNTS (sizeof counts / sizeof *counts)

static void summary(const json_t *classes, dra_buf *b)
{
    dra_buf_puts(
        b, "<h2 id=\"classes\">Devices per DeviceClass</h2>\n<table class=\"classes\">\n<tr><th>DeviceClass</th>");
    for (size_t k = 0; k < NCOUNTS; k++)
        dra_buf_printf(b, "<th>%s</th>", counts[k]);
    dra_buf_puts(b, "<th>largest fit</th></tr>\n");
    size_t i;
    json_t *c;
    json_array_foreach(classes, i, c) {
        dra_buf_puts(b, "<tr");
        dra_html_attr(b, "data-class", dra_jfield_str(c, "name"));
        dra_buf_puts(b, ">");
        dra_html_elem(b, "td", dra_jfield_str(c, "name"));
        for (size_t k = 0; k < NCOUNTS; k++)
            dra_buf_printf(b, "<td class=\"n\" data-k=\"%s\">%lld</td>", counts[k], num(c, counts[k]));
        const json_t *lf = json_object_get(c, "largestFit");
        const char *node = dra_jfield_str(lf, "node");
        dra_buf_printf(b, "<td data-k=\"largestFit\" data-devices=\"%lld\">%lld", num(lf, "devices"),
                       num(lf, "devices"));
        if (node) {
            dra_buf_puts(b, " on ");
            dra_html_text(b, node);
        }
        dra_buf_puts(b, "</td></tr>\n");
    }
    dra_buf_puts(b, "</table>\n");
    json_array_foreach(classes, i, c) {
        size_t k;
        json_t *p;
        json_array_foreach(json_object_get(c, "unusablePools"), k, p) {
            dra_buf_puts(b, "<p class=\"note unusable\">");
            dra_html_text(b, dra_jfield_str(c, "name"));
            dra_buf_puts(b, ": pool ");
            dra_html_text(b, dra_jfield_str(p, "driver"));
            dra_buf_putc(b, '/');
            dra_html_text(b, dra_jfield_str(p, "pool"));
            dra_buf_printf(b, " unusable (%lld devices): ", num(p, "devices"));
            dra_html_text(b, dra_jfield_str(p, "reason"));
            dra_buf_puts(b, "</p>\n");
        }
    }
}

/* The four parts of a device cell: free, used, tainted, other (their sum is total). */
typedef struct parts {
    long long v[4];
} parts;
static const char *const part_names[] = {"free", "used", "tainted", "other"};

static parts split(const json_t *row)
{
    long long total = num(row, "total"), free_ = num(row, "free");
    long long rest = total > free_ ? total - free_ : 0;
    long long t = num(row, "tainted") < rest ? num(row, "tainted") : rest;
    long long u = num(row, "allocated") + num(row, "shared");
    if (u > rest - t)
        u = rest - t;
    return (parts){{free_, u, t, rest - t - u}};
}

static void device_picture(const parts *p, long long total, dra_buf *b)
{
    if (total <= DRA_CAPACITY_PAGE_SQUARES) {
        const int per_row = 16, side = 12;
        long long rows = (total + per_row - 1) / per_row;
        dra_buf_printf(b, "<svg width=\"%d\" height=\"%lld\" role=\"img\">",
                       (total < per_row ? (int)total : per_row) * side, rows * side);
        long long i = 0;
        for (int k = 0; k < 4; k++)
            for (long long j = 0; j < p->v[k]; j++, i++)
                dra_buf_printf(b, "<rect class=\"%s\" x=\"%lld\" y=\"%lld\" width=\"%d\" height=\"%d\"/>",
                               part_names[k], (i % per_row) * side + 1, (i / per_row) * side + 1, side - 2, side - 2);
        dra_buf_puts(b, "</svg>");
        return;
    }
    const double width = 192;
    double x = 0;
    dra_buf_printf(b, "<svg width=\"%.0f\" height=\"12\" role=\"img\">", width);
    for (int k = 0; k < 4; k++) {
        double w = width * (double)p->v[k] / (double)total;
        if (w > 0)
            dra_buf_printf(b, "<rect class=\"%s\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"12\"/>", part_names[k], x,
                           w);
        x += w;
    }
    dra_buf_puts(b, "</svg>");
}

static const json_t *row_named(const json_t *rows, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const char *n = dra_jfield_str(r, "name");
        if (n && strcmp(n, name) == 0)
            return r;
    }
    return NULL;
}

static void heat_cell(const json_t *row, const char *cls, const char *node, dra_buf *b)
{
    dra_buf_puts(b, "<td class=\"cell\"");
    dra_html_attr(b, "data-class", cls);
    dra_html_attr(b, "data-node", node);
    if (!row || num(row, "total") == 0) {
        dra_buf_puts(b, " data-total=\"0\">&ndash;</td>");
        return;
    }
    long long total = num(row, "total");
    parts p = split(row);
    /* the shade: red (nothing free) to green (all free) */
    dra_buf_printf(b, " style=\"background:hsl(%lld,65%%,90%%)\" data-total=\"%lld\"", 130 * p.v[0] / total, total);
    for (int k = 0; k < 4; k++)
        dra_buf_printf(b, " data-%s=\"%lld\"", part_names[k], p.v[k]);
    dra_buf_puts(b, "><div>");
    device_picture(&p, total, b);
    dra_buf_printf(b, "</div><span class=\"note\">%lld/%lld free", p.v[0], total);
    if (p.v[2])
        dra_buf_printf(b, ", %lld tainted", p.v[2]);
    dra_buf_puts(b, "</span></td>");
}

static void heat_map(const json_t *classes, dra_buf *b)
{
    json_t *nodes = json_object(); /* every node of any class, in first-seen order */
    size_t i, k;
    json_t *c, *n;
    json_array_foreach(classes, i, c)
        json_array_foreach(json_object_get(c, "nodes"), k, n)
            if (dra_jfield_str(n, "name"))
                json_object_set_new(nodes, dra_jfield_str(n, "name"), json_true());
    dra_buf_puts(b, "<h2 id=\"heatmap\">Devices per node</h2>\n<p class=\"legend\">");
    for (int p = 0; p < 4; p++)
        dra_buf_printf(b, "<span><i class=\"sw %s\"></i>%s</span>", part_names[p], part_names[p]);
    dra_buf_puts(b, "</p>\n<table class=\"heatmap\">\n<tr><th>node</th>");
    json_array_foreach(classes, i, c)
        dra_html_elem(b, "th", dra_jfield_str(c, "name"));
    dra_buf_puts(b, "</tr>\n");
    const char *name;
    json_t *unused;
    json_object_foreach(nodes, name, unused) {
        dra_buf_puts(b, "<tr");
        dra_html_attr(b, "data-node", name);
        dra_buf_puts(b, "><th>");
        dra_html_text(b, name);
        dra_buf_puts(b, "</th>");
        json_array_foreach(classes, i, c)
            heat_cell(row_named(json_object_get(c, "nodes"), name), dra_jfield_str(c, "name"), name, b);
        dra_buf_puts(b, "</tr>\n");
    }
    dra_buf_puts(b, "</table>\n");
    json_decref(nodes);
}

/* One bar: consumed (= total - left) of total, both quantities as the report prints them. */
static void counter_row(const char *set, const char *name, const json_t *v, const dra_features *f, dra_buf *b)
{
    const char *total_s = dra_jfield_str(v, "total"), *left_s = dra_jfield_str(v, "left");
    dra_quantity total, left, used;
    char text[DRA_QUANTITY_STRMAX];
    const char *used_s = "?";
    double share = 0;
    dra_err *e = dra_quantity_parse_as(f, total_s ? total_s : "", &total);
    if (!e)
        e = dra_quantity_parse_as(f, left_s ? left_s : "", &left);
    if (!e && dra_quantity_sub_rules(&used, &total, &left, dra_features_quantity_rules(f))) {
        used_s = dra_quantity_format_canonical(&used, text);
        double t = dra_quantity_as_float(&total);
        share = t > 0 ? dra_quantity_as_float(&used) / t : 0;
        share = share < 0 ? 0 : share > 1 ? 1 : share;
    }
    dra_err_free(e);
    dra_buf_puts(b, "<tr");
    dra_html_attr(b, "data-counter-set", set);
    dra_html_attr(b, "data-counter", name);
    dra_html_attr(b, "data-consumed", used_s);
    dra_html_attr(b, "data-capacity", total_s);
    dra_buf_puts(b, ">");
    dra_html_elem(b, "td", set);
    dra_html_elem(b, "td", name);
    dra_buf_printf(
        b,
        "<td><svg width=\"200\" height=\"12\" role=\"img\"><rect class=\"track\" width=\"200\" height=\"12\"/>"
        "<rect class=\"cap\" width=\"%.1f\" height=\"12\"/></svg></td><td class=\"n\">",
        200 * share);
    dra_html_text(b, used_s);
    dra_buf_puts(b, " of ");
    dra_html_text(b, total_s);
    dra_buf_puts(b, "</td></tr>\n");
}

static void pool_bars(const json_t *pool, const dra_features *f, dra_buf *b)
{
    dra_buf_puts(b, "<h3");
    dra_html_attr(b, "data-pool", dra_jfield_str(pool, "pool"));
    dra_html_attr(b, "data-driver", dra_jfield_str(pool, "driver"));
    dra_buf_puts(b, ">");
    dra_html_text(b, dra_jfield_str(pool, "driver"));
    dra_buf_putc(b, '/');
    dra_html_text(b, dra_jfield_str(pool, "pool"));
    if (dra_jfield_str(pool, "node")) {
        dra_buf_puts(b, " <span class=\"note\">on ");
        dra_html_text(b, dra_jfield_str(pool, "node"));
        dra_buf_puts(b, "</span>");
    }
    dra_buf_puts(b, "</h3>\n<table class=\"counters\">\n<tr><th>counter set / device</th><th>counter / capacity</th>"
                    "<th>consumed</th><th>consumed of capacity</th></tr>\n");
    size_t i;
    json_t *s, *v;
    const char *name;
    json_array_foreach(json_object_get(pool, "counterSets"), i, s)
        json_object_foreach(json_object_get(s, "counters"), name, v)
            counter_row(dra_jfield_str(s, "name"), name, v, f, b);
    json_array_foreach(json_object_get(pool, "consumable"), i, s)
        json_object_foreach(json_object_get(s, "capacity"), name, v)
            counter_row(dra_jfield_str(s, "device"), name, v, f, b);
    dra_buf_puts(b, "</table>\n");
}

static void counters(const json_t *classes, const dra_features *f, dra_buf *b)
{
    json_t *seen = json_object(); /* driver/pool: a pool serves several classes */
    size_t i, k;
    json_t *c, *p;
    bool any = false;
    json_array_foreach(classes, i, c)
        json_array_foreach(json_object_get(c, "pools"), k, p) {
            if (!json_array_size(json_object_get(p, "counterSets")) &&
                !json_array_size(json_object_get(p, "consumable")))
                continue;
            dra_buf key = DRA_BUF_INIT;
            dra_buf_printf(&key, "%s/%s", dra_jfield_str(p, "driver") ? dra_jfield_str(p, "driver") : "",
                           dra_jfield_str(p, "pool") ? dra_jfield_str(p, "pool") : "");
            if (!json_object_get(seen, dra_buf_str(&key))) {
                json_object_set_new(seen, dra_buf_str(&key), json_true());
                if (!any)
                    dra_buf_puts(b, "<h2 id=\"counters\">Shared counters and consumable capacity per pool</h2>\n");
                any = true;
                pool_bars(p, f, b);
            }
            dra_buf_free(&key);
        }
    json_decref(seen);
}

static void fragmentation(const json_t *classes, dra_buf *b)
{
    dra_buf_puts(b, "<h2 id=\"fragmentation\">Fragmentation per DeviceClass</h2>\n<p class=\"legend\"><span><i "
                    "class=\"sw blk\"></i>the largest block one claim gets on the node</span><span><i class=\"sw "
                    "track\"></i>its other free devices</span></p>\n");
    size_t i, k;
    json_t *c, *n;
    json_array_foreach(classes, i, c) {
        const json_t *nodes = json_object_get(c, "nodes");
        long long spread = 0, most = 1;
        json_array_foreach(nodes, k, n)
            if (num(n, "free") > 0) {
                spread++;
                most = num(n, "free") > most ? num(n, "free") : most;
            }
        const json_t *lf = json_object_get(c, "largestFit");
        dra_buf_puts(b, "<div class=\"frag\"");
        dra_html_attr(b, "data-class", dra_jfield_str(c, "name"));
        dra_buf_printf(b, " data-free=\"%lld\" data-nodes=\"%lld\" data-largest=\"%lld\"><h3>", num(c, "free"), spread,
                       num(lf, "devices"));
        dra_html_text(b, dra_jfield_str(c, "name"));
        dra_buf_printf(b,
                       "</h3>\n<p>%lld free device%s on %lld node%s; the largest block one claim gets on one node: "
                       "%lld",
                       num(c, "free"), num(c, "free") == 1 ? "" : "s", spread, spread == 1 ? "" : "s",
                       num(lf, "devices"));
        if (dra_jfield_str(lf, "node")) {
            dra_buf_puts(b, " (");
            dra_html_text(b, dra_jfield_str(lf, "node"));
            dra_buf_putc(b, ')');
        }
        dra_buf_puts(b, ".</p>\n");
        if (!spread) {
            dra_buf_puts(b, "</div>\n");
            continue;
        }
        dra_buf_puts(b, "<table class=\"frag\"><tr><th>node</th><th>free, and the largest block</th><th>free</th>"
                        "<th>largest block</th></tr>\n");
        json_array_foreach(nodes, k, n) {
            long long free_ = num(n, "free"), fit = num(n, "largestFit");
            if (free_ <= 0)
                continue;
            dra_buf_puts(b, "<tr");
            dra_html_attr(b, "data-node", dra_jfield_str(n, "name"));
            dra_buf_printf(b, " data-free=\"%lld\" data-largest=\"%lld\">", free_, fit);
            dra_html_elem(b, "td", dra_jfield_str(n, "name"));
            dra_buf_printf(b,
                           "<td><svg width=\"200\" height=\"12\" role=\"img\"><rect class=\"track\" width=\"%.1f\" "
                           "height=\"12\"/><rect class=\"blk\" width=\"%.1f\" height=\"12\"/></svg></td>"
                           "<td class=\"n\">%lld</td><td class=\"n\">%lld</td></tr>\n",
                           200.0 * (double)free_ / (double)most,
                           200.0 * (double)(fit < free_ ? fit : free_) / (double)most, free_, fit);
        }
        dra_buf_puts(b, "</table></div>\n");
    }
}

void dra_capacity_page(const json_t *report, const dra_features *f, dra_buf *b)
{
    const json_t *classes = json_object_get(report, "classes");
    dra_html_begin(b, "dra-alloc capacity");
    summary(classes, b);
    bool nodes = false, pools = false;
    size_t i;
    json_t *c;
    json_array_foreach(classes, i, c) {
        nodes |= json_object_get(c, "nodes") != NULL;
        pools |= json_object_get(c, "pools") != NULL;
    }
    if (nodes)
        heat_map(classes, b);
    if (pools)
        counters(classes, f, b);
    if (nodes)
        fragmentation(classes, b);
    dra_html_end(b);
}
