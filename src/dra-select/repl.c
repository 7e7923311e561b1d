/* dra-select repl: readline glue around the session engine
 * (src/common/select/session.h): prompt, history file, completion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "base/buf.h"
#include "select/session.h"
#include "repl.h"

/* readline's completion callbacks take no context pointer. */
static dra_session *active;

static char *no_matches(const char *text, int state)
{
    return NULL;
}

static char **complete(const char *text, int start, int end)
{
    rl_attempted_completion_over = 1; /* never fall back to file names unasked */
    dra_session_completion c;
    dra_session_complete(active, rl_line_buffer, (size_t)start, (size_t)end, &c);
    if (c.files) {
        rl_attempted_completion_over = 0;
        return rl_completion_matches(text, rl_filename_completion_function);
    }
    if (!c.n) {
        dra_session_completion_free(&c);
        return NULL;
    }
    /* readline wants: [0] = common prefix, then the matches, then NULL. */
    char **m = malloc((c.n + 2) * sizeof *m);
    if (!m) {
        dra_session_completion_free(&c);
        return NULL;
    }
    size_t common = strlen(c.v[0]);
    for (size_t i = 1; i < c.n; i++) {
        size_t k = 0;
        while (k < common && c.v[i][k] == c.v[0][k])
            k++;
        common = k;
    }
    m[0] = strndup(c.v[0], common);
    for (size_t i = 0; i < c.n; i++)
        m[i + 1] = c.v[i]; /* ownership moves to readline */
    m[c.n + 1] = NULL;
    free(c.v);
    rl_completion_suppress_append = 1;
    return m;
}

/* Without a terminal, lines are read plainly (readline would echo them). */
static char *read_plain(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    if (n && line[n - 1] == '\n')
        line[n - 1] = '\0';
    return line;
}

static char *history_path(void)
{
    const char *h = getenv("DRA_SELECT_HISTORY");
    if (h && *h)
        return dra_xstrdup(h);
    const char *home = getenv("HOME");
    return home && *home ? dra_xasprintf("%s/.dra_select_history", home) : NULL;
}

dra_err *dra_select_repl(char *const *paths, size_t npaths, const dra_features *f, const dra_objset *reading,
                         bool verbose)
{
    /* The session reads its lines from standard input: it cannot be a file too. */
    for (size_t i = 0; i < npaths; i++)
        if (strcmp(paths[i], "-") == 0)
            return dra_err_new(DRA_EXIT_INPUT,
                               "repl reads its commands from standard input; it cannot also read objects "
                               "from '-' (use :load FILE, or a file)");
    dra_session *s = dra_session_new(f);
    dra_session_set_reading(s, reading->field_validation, reading->recursive);
    dra_err *warnings = NULL;
    size_t skipped = 0;
    for (size_t i = 0; i < npaths; i++) {
        dra_err_free(warnings); /* each load reads every file again: its warnings are all of them */
        warnings = NULL;
        dra_err *e = dra_session_load_report(s, paths[i], &warnings, &skipped);
        if (e) {
            dra_err_free(warnings);
            dra_session_free(s);
            return e;
        }
    }
    for (const dra_err *w = warnings; w; w = w->next) {
        char *t = dra_err_format(w);
        fprintf(stderr, "dra-select: warning: %s\n", t);
        free(t);
    }
    dra_err_free(warnings);
    if (verbose && skipped)
        fprintf(stderr, "dra-select: skipped %zu object%s of kinds dra-select does not use\n", skipped,
                skipped == 1 ? "" : "s");
    bool tty = isatty(STDIN_FILENO);
    active = s;
    rl_readline_name = "dra-select";
    rl_attempted_completion_function = complete;
    rl_completion_entry_function = no_matches;
    /* Break words where CEL tokens end; '.' and '"' stay inside words so the
     * session sees `device.` and `"domain` whole. */
    rl_basic_word_break_characters = " \t\n()[],!&|=<>+-*/%?:{}";
    /* History is for people at a terminal: a script's lines are not kept. */
    char *hist = tty ? history_path() : NULL;
    using_history();
    if (hist && read_history(hist) != 0)
        write_history(hist); /* create it: append_history needs an existing file */
    if (tty)
        printf("dra-select repl: %zu devices loaded; :help for commands\n", dra_session_device_count(s));
    dra_buf out = DRA_BUF_INIT;
    char *line;
    while ((line = tty ? readline("cel> ") : read_plain()) != NULL) {
        if (*line && tty) {
            add_history(line);
            if (hist)
                append_history(1, hist);
        }
        dra_buf_reset(&out);
        bool more = dra_session_line(s, line, &out);
        fputs(dra_buf_str(&out), stdout);
        fflush(stdout);
        free(line);
        if (!more)
            break;
    }
    if (hist) {
        history_truncate_file(hist, 1000);
        free(hist);
    }
    dra_buf_free(&out);
    dra_session_free(s);
    active = NULL;
    return NULL;
}
