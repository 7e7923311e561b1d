/* HTML pages: escaping, frame, writing.  See html.h. */
#include "html.h"

#include <errno.h>
#include <string.h>

void dra_html_text(dra_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '&': dra_buf_puts(b, "&amp;"); break;
        case '<': dra_buf_puts(b, "&lt;"); break;
        case '>': dra_buf_puts(b, "&gt;"); break;
        case '"': dra_buf_puts(b, "&quot;"); break;
        case '\'': dra_buf_puts(b, "&#39;"); break;
        default:
            if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
                dra_buf_puts(b, "\xef\xbf\xbd");
            else
                dra_buf_putc(b, (char)*p);
        }
    }
}

void dra_html_attr(dra_buf *b, const char *name, const char *value)
{
    dra_buf_printf(b, " %s=\"", name);
    dra_html_text(b, value);
    dra_buf_putc(b, '"');
}

void dra_html_elem(dra_buf *b, const char *tag, const char *text)
{
    dra_buf_printf(b, "<%s>", tag);
    dra_html_text(b, text);
    dra_buf_printf(b, "</%s>", tag);
}

/* One style sheet for every page: the colours of the device states are
 * named once here (free, used, tainted, other). */
static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "th{background:#f3f3f3;white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".legend span{display:inline-block;margin-right:1.2em}"
    ".sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle}"
    ".free{fill:#2e9d4a;background:#2e9d4a}.used{fill:#3b6fd1;background:#3b6fd1}"
    ".tainted{fill:#e08a1e;background:#e08a1e}.other{fill:#999;background:#999}"
    ".track{fill:#e6e6e6;background:#e6e6e6}.cap{fill:#3b6fd1}.blk{fill:#2e9d4a;background:#2e9d4a}"
    ".note{color:#555}.fits{color:#1d7a34}.refused{color:#a32020}"
    "td.cell ul{margin:0;padding-left:1.1em}code{font-size:.95em}";

void dra_html_begin(dra_buf *b, const char *title)
{
    dra_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                    "style-src 'unsafe-inline'; img-src data:\">\n<title>");
    dra_html_text(b, title);
    dra_buf_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
    dra_html_text(b, title);
    dra_buf_puts(b, "</h1>\n");
}

void dra_html_end(dra_buf *b)
{
    dra_buf_puts(b, "</body>\n</html>\n");
}

dra_err *dra_html_write(FILE *f, const dra_buf *b)
{
    errno = 0;
    if (fwrite(dra_buf_str(b), 1, b->len, f) == b->len && fflush(f) == 0 && !ferror(f))
        return NULL;
    return dra_err_new(DRA_EXIT_RUNTIME, "error writing output: %s", errno ? strerror(errno) : "write failed");
}
