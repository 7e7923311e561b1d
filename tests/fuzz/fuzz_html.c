/* Fuzz the HTML pages (insight/capacity_page.h, explain_page.h): any JSON
 * document as a capacity report and as a pod's explanation (the pages read
 * what they find and pass over what they do not).  Neither may crash, and
 * every '<' of a page must open one of the elements the pages write: a '<'
 * from the input that escaping missed aborts.  Input: any bytes, parsed
 * as JSON. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "insight/capacity_page.h"
#include "insight/explain_page.h"

/* clang-format off */
static const char *const tags[] = {"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3",
                                   "table", "tr", "th", "td", "svg", "rect", "p", "span", "i", "div", "ul", "li",
                                   "code", "b", NULL};
/* clang-format on */

static void check(const dra_buf *b)
{
    const char *s = dra_buf_str(b);
    for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        const char *name = p + 1 + (p[1] == '/');
        size_t n = strcspn(name, " >/");
        bool known = false;
        for (size_t k = 0; tags[k] && !known; k++)
            known = strlen(tags[k]) == n && strncmp(name, tags[k], n) == 0;
        if (!known)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    if (!doc)
        return 0;
    dra_buf b = DRA_BUF_INIT;
    dra_capacity_page(doc, NULL, &b);
    check(&b);
    dra_buf_reset(&b);
    dra_explain_page(doc, &b);
    check(&b);
    dra_buf_free(&b);
    json_decref(doc);
    return 0;
}
