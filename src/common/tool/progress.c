/* Progress on a terminal and the -v summary; see progress.h. */
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/clock.h"

#define REDRAW_MS 200

struct dra_progress {
    const char *prog;
    FILE *err;
    bool tty, verbose, on;
    bool reading; /* the input is being read (or was): the summary has something to say */
    int64_t start_ms, delay_ms, drawn_ms;
    size_t read;      /* objects read */
    const char *what; /* the engine's step, or NULL */
    size_t done, total;
    size_t width; /* of the line on screen; 0 = none */
};

dra_progress *dra_progress_new(const char *prog, FILE *err, bool verbose)
{
    dra_progress *p = dra_xcalloc(1, sizeof *p);
    p->prog = prog;
    p->err = err;
    p->verbose = verbose;
    p->tty = err && isatty(fileno(err));
    const char *d = getenv("DRA_PROGRESS_DELAY_MS");
    char *end;
    long v = d && *d ? strtol(d, &end, 10) : -1;
    p->delay_ms = v >= 0 && !*end ? v : 1000;
    p->start_ms = dra_mono_ms();
    return p;
}

void dra_progress_begin(dra_progress *p)
{
    if (p)
        p->on = true;
}

void dra_progress_clear(dra_progress *p)
{
    if (!p || !p->width)
        return;
    fprintf(p->err, "\r%*s\r", (int)p->width, "");
    fflush(p->err);
    p->width = 0;
}

static void draw(dra_progress *p, bool force)
{
    if (!p->on || !p->tty)
        return;
    int64_t now = dra_mono_ms();
    if (now - p->start_ms < p->delay_ms || (!force && p->width && now - p->drawn_ms < REDRAW_MS))
        return;
    p->drawn_ms = now;
    char line[256];
    double s = (double)(now - p->start_ms) / 1000.0;
    int n = snprintf(line, sizeof line, "%s: %zu object%s read", p->prog, p->read, p->read == 1 ? "" : "s");
    if (p->what && n > 0 && (size_t)n < sizeof line)
        n += p->total ? snprintf(line + n, sizeof line - (size_t)n, ", %s %zu/%zu", p->what, p->done, p->total)
                      : snprintf(line + n, sizeof line - (size_t)n, ", %s %zu", p->what, p->done);
    else if (s > 0 && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, " (%.0f/s)", (double)p->read / s);
    if (n < 0)
        return;
    size_t len = strlen(line);
    fprintf(p->err, "\r%s%*s", line, len < p->width ? (int)(p->width - len) : 0, "");
    fflush(p->err);
    p->width = len > p->width ? len : p->width;
}

void dra_progress_read(dra_progress *p, size_t n)
{
    if (!p)
        return;
    p->reading = true;
    p->read += n;
    if (n)
        draw(p, false);
}

void dra_progress_step(void *ud, const char *what, size_t done, size_t total)
{
    dra_progress *p = ud;
    if (!p)
        return;
    bool fresh = p->what != what; /* a new step shows at once */
    p->what = what;
    p->done = done;
    p->total = total;
    if (total && done >= total) {
        p->what = NULL;
        dra_progress_clear(p);
        return;
    }
    draw(p, fresh);
}

void dra_progress_end(dra_progress *p, size_t n)
{
    if (!p)
        return;
    dra_progress_clear(p);
    if (p->on && p->verbose && p->reading) {
        fprintf(p->err, "%s: %zu object%s read, %zu error%s, %.2f s\n", p->prog, p->read, p->read == 1 ? "" : "s", n,
                n == 1 ? "" : "s", (double)(dra_mono_ms() - p->start_ms) / 1000.0);
    }
    free(p);
}

void dra_progress_free(dra_progress *p)
{
    dra_progress_clear(p);
    free(p);
}
