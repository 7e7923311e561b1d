#include "cli.h"
#include "progress.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/buf.h"
#include "args.h"
#include "../base/suggest.h"
#include "../model/features.h"

/* clang-format off */
static const dra_opt builtin_opts[] = {
    DRA_OPT_HELP_ENTRY,
    DRA_OPT_VERSION_ENTRY,
    {DRA_OPT_COMPLETION, "completion", 0, DRA_ARG_REQUIRED, "SHELL", "print a completion script (bash, zsh, fish)", "bash zsh fish"},
    DRA_OPT_END,
};
/* clang-format on */

/* A tool may list a shared option (say --help) in its own table; help and
 * completions show it once. */
static bool listed(const dra_opt *opts, int id)
{
    for (const dra_opt *o = opts; o && o->name; o++)
        if (o->id == id)
            return true;
    return false;
}

static bool is_cmd_end(const dra_cmd *c)
{
    return c->name == NULL && c->opts == NULL;
}

static bool has_subcommands(const dra_tool *t)
{
    return t->cmds && !is_cmd_end(&t->cmds[0]) && t->cmds[0].name != NULL;
}

static const dra_cmd *find_cmd(const dra_tool *t, const char *name)
{
    for (const dra_cmd *c = t->cmds; c && !is_cmd_end(c); c++)
        if (c->name && name && strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static const dra_opt *find_long(const dra_opt *opts, const char *name, size_t len)
{
    for (const dra_opt *o = opts; o && o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    for (const dra_opt *o = builtin_opts; o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

static const dra_opt *find_short(const dra_opt *opts, char c)
{
    for (const dra_opt *o = opts; o && o->name; o++)
        if (o->short_name == c)
            return o;
    for (const dra_opt *o = builtin_opts; o->name; o++)
        if (o->short_name == c)
            return o;
    return NULL;
}

static void push_opt(dra_args *a, int id, const char *value)
{
    a->opts = dra_xgrow(a->opts, a->nopts, sizeof *a->opts);
    a->opts[a->nopts++] = (dra_parsed_opt){id, value};
}

static void push_pos(dra_args *a, char *arg)
{
    a->pos = dra_xgrow(a->pos, a->npos, sizeof *a->pos);
    a->pos[a->npos++] = arg;
}

static dra_err *usage_err(const dra_tool *t, const dra_cmd *c, const char *fmt, const char *what)
{
    dra_err *e = dra_err_new(DRA_EXIT_INPUT, fmt, what);
    char *m = dra_xasprintf("%s (see '%s%s%s --help')", e->msg, t->prog, c && c->name ? " " : "",
                            c && c->name ? c->name : "");
    dra_err_set_msg(e, m);
    return e;
}

/* msg (an error of usage_err's) with the nearest of the words, if any. */
static dra_err *suggest(dra_err *e, const char *typed, const char **words, size_t n)
{
    char *near = dra_suggest(typed, words, n);
    free(words);
    if (!near)
        return e;
    /* before usage_err's "(see '... --help')" */
    char *see = strstr(e->msg, " (see '");
    char *m = dra_xasprintf("%.*s; did you mean %s?%s", see ? (int)(see - e->msg) : (int)strlen(e->msg), e->msg, near,
                            see ? see : "");
    free(near);
    dra_err_set_msg(e, m);
    return e;
}

/* "unknown command" with the subcommands nearest the word typed */
static dra_err *unknown_cmd(const dra_tool *t, const char *typed)
{
    size_t n = 0;
    for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++)
        n++;
    const char **w = dra_xcalloc(n + 1, sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i] = t->cmds[i].name;
    return suggest(usage_err(t, NULL, "unknown command '%s'", typed), typed, w, n);
}

/* A word where a tool with a default command expects a file, which is no
 * file but near a subcommand: the subcommand mistyped (`dra-alloc schedul`). */
static dra_err *mistyped_cmd(const dra_tool *t, const char *word)
{
    if (!*word || access(word, F_OK) == 0 || errno != ENOENT)
        return NULL;
    dra_err *e = unknown_cmd(t, word);
    if (strstr(e->msg, "did you mean"))
        return e;
    dra_err_free(e);
    return NULL;
}

/* "unknown option" with the long options nearest the name typed */
static dra_err *unknown_long(const dra_tool *t, const dra_cmd *c, const dra_opt *opts, const char *arg, size_t len)
{
    char *n = dra_xstrndup(arg, len); /* the option without its value */
    dra_err *e = usage_err(t, c, "unknown option '%s'", n);
    size_t k = 0;
    for (const dra_opt *o = opts; o && o->name; o++)
        k++;
    const char **w = dra_xcalloc(k + 4, sizeof *w);
    char **dashed = dra_xcalloc(k + 4, sizeof *dashed);
    size_t m = 0;
    for (const dra_opt *o = opts; o && o->name; o++)
        w[m] = dashed[m] = dra_xasprintf("--%s", o->name), m++;
    for (const dra_opt *o = builtin_opts; o->name; o++)
        if (o->id != DRA_OPT_COMPLETION)
            w[m] = dashed[m] = dra_xasprintf("--%s", o->name), m++;
    e = suggest(e, n, w, m);
    for (size_t i = 0; i < m; i++)
        free(dashed[i]);
    free(dashed);
    free(n);
    return e;
}

dra_err *dra_cli_parse(const dra_tool *tool, int argc, char **argv, dra_args *out)
{
    memset(out, 0, sizeof *out);
    int i = 1;
    const dra_cmd *cmd = NULL;
    if (has_subcommands(tool)) {
        if (i < argc && (cmd = find_cmd(tool, argv[i])) != NULL) {
            i++;
            out->cmd_given = true;
        } else if (i < argc && argv[i][0] != '-' && !tool->default_cmd)
            return unknown_cmd(tool, argv[i]);
        else if (tool->default_cmd) {
            dra_err *e = i < argc && argv[i][0] != '-' ? mistyped_cmd(tool, argv[i]) : NULL;
            if (e)
                return e;
            cmd = find_cmd(tool, tool->default_cmd);
        }
    } else {
        cmd = &tool->cmds[0];
    }
    out->cmd = cmd;
    const dra_opt *opts = cmd ? cmd->opts : NULL;
    bool only_pos = false;
    for (; i < argc; i++) {
        char *arg = argv[i];
        if (only_pos || arg[0] != '-' || strcmp(arg, "-") == 0) {
            push_pos(out, arg);
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_pos = true;
            continue;
        }
        if (arg[1] == '-') {
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const dra_opt *o = find_long(opts, name, len);
            if (!o) {
                dra_err *e = unknown_long(tool, cmd, opts, arg, eq ? (size_t)(eq - arg) : strlen(arg));
                dra_args_free(out);
                return e;
            }
            const char *value = NULL;
            if (o->arg == DRA_ARG_NONE && eq) {
                dra_args_free(out);
                return usage_err(tool, cmd, "option '--%s' takes no value", o->name);
            }
            if (o->arg == DRA_ARG_REQUIRED) {
                if (eq)
                    value = eq + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else {
                    dra_args_free(out);
                    return usage_err(tool, cmd, "option '--%s' needs a value", o->name);
                }
            } else if (o->arg == DRA_ARG_OPTIONAL && eq) {
                value = eq + 1;
            }
            push_opt(out, o->id, value);
            continue;
        }
        /* a cluster of short options: -o yaml, -oyaml, -h */
        for (const char *p = arg + 1; *p; p++) {
            const dra_opt *o = find_short(opts, *p);
            if (!o) {
                char s[3] = {'-', *p, 0};
                dra_args_free(out);
                return usage_err(tool, cmd, "unknown option '%s'", s);
            }
            if (o->arg == DRA_ARG_REQUIRED) {
                const char *value;
                if (p[1])
                    value = p + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else {
                    dra_args_free(out);
                    return usage_err(tool, cmd, "option '--%s' needs a value", o->name);
                }
                push_opt(out, o->id, value);
                break;
            }
            push_opt(out, o->id, NULL);
        }
    }
    for (size_t k = 0; k < out->nopts; k++)
        if (out->opts[k].id == DRA_OPT_FILENAME) /* a value is a part of an argv string */
            push_pos(out, (char *)out->opts[k].value);
    if (!cmd && !dra_args_has(out, DRA_OPT_HELP) && !dra_args_has(out, DRA_OPT_VERSION) &&
        !dra_args_has(out, DRA_OPT_COMPLETION)) {
        dra_args_free(out);
        return usage_err(tool, NULL, "%s", "a command is required");
    }
    return NULL;
}

void dra_args_free(dra_args *a)
{
    free(a->opts);
    free(a->pos);
    free(a->strv);
    dra_progress_free(a->progress);
    memset(a, 0, sizeof *a);
}

const char *dra_args_get(const dra_args *a, int id)
{
    const char *v = NULL;
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i].id == id)
            v = a->opts[i].value;
    return v;
}

size_t dra_args_count(const dra_args *a, int id)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nopts; i++)
        if (a->opts[i].id == id)
            n++;
    return n;
}

bool dra_args_has(const dra_args *a, int id)
{
    return dra_args_count(a, id) > 0;
}

/* The i-th space-separated word of s into buf; false when there is none. */
static bool nth_word(const char *s, int i, char *buf, size_t size)
{
    for (int k = 0; s && *s; k++) {
        while (*s == ' ')
            s++;
        size_t n = strcspn(s, " ");
        if (!n)
            break;
        if (k == i) {
            snprintf(buf, size, "%.*s", (int)n, s);
            return true;
        }
        s += n;
    }
    return false;
}

static dra_err *apply_one(const dra_opt *o, const dra_optval *t, const char *v, char *field)
{
    switch (t->type) {
    case DRA_T_BOOL: *(bool *)field = true; break;
    case DRA_T_STRING: *(const char **)field = v; break;
    case DRA_T_STRINGS: break; /* gathered by the caller */
    case DRA_T_COUNT: (*(int *)field)++; break;
    case DRA_T_INT: {
        char *end;
        errno = 0;
        long long n = v ? strtoll(v, &end, 10) : 0;
        if (!v || !*v || *end || errno || n < t->min || n > t->max)
            return dra_err_new(DRA_EXIT_INPUT, "must be an integer between %lld and %lld, not '%s'", t->min, t->max,
                               v ? v : "");
        *(long long *)field = n;
        break;
    }
    case DRA_T_ENUM: {
        *(int *)field = 0;
        if (!v)
            break;
        char w[64];
        int i;
        for (i = 0; nth_word(o->complete, i, w, sizeof w); i++) {
            if (strcmp(w, v) == 0) {
                *(int *)field = i;
                return NULL;
            }
        }
        dra_buf b = DRA_BUF_INIT;
        for (int k = 0; k < i && nth_word(o->complete, k, w, sizeof w); k++)
            dra_buf_printf(&b, "%s%s", k == 0 ? "" : k + 1 == i ? " or " : ", ", w);
        dra_err *e =
            dra_err_new(DRA_EXIT_INPUT, "unknown %s %s (want %s)", t->noun ? t->noun : "value", v, dra_buf_str(&b));
        dra_buf_free(&b);
        return e;
    }
    }
    return NULL;
}

dra_err *dra_args_apply(dra_args *a, const dra_optval *vals, void *opts)
{
    const dra_opt *table = a->cmd ? a->cmd->opts : NULL;
    if (!table || !vals)
        return NULL;
    free(a->strv);
    a->strv = dra_xcalloc(a->nopts + 1, sizeof *a->strv);
    size_t used = 0;
    for (const dra_optval *t = vals; t->id; t++) {
        const dra_opt *o = NULL;
        for (const dra_opt *x = table; x->id; x++)
            if (x->id == t->id)
                o = x;
        if (!o)
            continue; /* not an option of this subcommand */
        char *field = (char *)opts + t->off;
        if (t->type == DRA_T_STRINGS) {
            dra_strv *sv = (dra_strv *)field;
            sv->v = a->strv + used;
            sv->n = 0;
            for (size_t i = 0; i < a->nopts; i++)
                if (a->opts[i].id == t->id)
                    a->strv[used + sv->n++] = a->opts[i].value;
            used += sv->n;
            continue;
        }
        for (size_t i = 0; i < a->nopts; i++) {
            if (a->opts[i].id != t->id)
                continue;
            dra_err *e = apply_one(o, t, a->opts[i].value, field);
            if (e) {
                char *flag = dra_xasprintf("--%s", o->name);
                e = dra_err_field(e, flag);
                free(flag);
                return e;
            }
        }
    }
    return NULL;
}

static bool has_opt_id(const dra_opt *opts, int id)
{
    for (const dra_opt *o = opts; o && o->name; o++)
        if (o->id == id)
            return true;
    return false;
}

/* Options in table order; those also in `shown` (a command's own table that
 * repeats a built-in such as --help) are listed once. */
static void help_opts(FILE *f, const dra_opt *opts, const dra_opt *shown)
{
    for (const dra_opt *o = opts; o && o->name; o++) {
        if (has_opt_id(shown, o->id) || !o->help)
            continue;
        char left[80];
        int n = 0;
        if (o->short_name)
            n = snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->name);
        else
            n = snprintf(left, sizeof left, "    --%s", o->name);
        if (o->arg == DRA_ARG_REQUIRED && n >= 0 && (size_t)n < sizeof left)
            snprintf(left + n, sizeof left - (size_t)n, " %s", o->arg_name ? o->arg_name : "VALUE");
        else if (o->arg == DRA_ARG_OPTIONAL && n >= 0 && (size_t)n < sizeof left)
            snprintf(left + n, sizeof left - (size_t)n, "[=%s]", o->arg_name ? o->arg_name : "VALUE");
        if (strlen(left) > 28)
            fprintf(f, "  %s\n  %-28s  %s\n", left, "", o->help ? o->help : "");
        else
            fprintf(f, "  %-28s  %s\n", left, o->help ? o->help : "");
    }
}

void dra_cli_help(FILE *f, const dra_tool *tool, const dra_cmd *cmd)
{
    if (!cmd && has_subcommands(tool)) {
        fprintf(f, "%s - %s\n\nUsage:\n", tool->prog, tool->summary);
        for (const dra_cmd *c = tool->cmds; !is_cmd_end(c); c++)
            fprintf(f, "  %s %s\n", tool->prog, c->usage ? c->usage : c->name);
        fprintf(f, "\nCommands:\n");
        for (const dra_cmd *c = tool->cmds; !is_cmd_end(c); c++)
            fprintf(f, "  %-12s  %s\n", c->name, c->summary ? c->summary : "");
        fprintf(f, "\nRun '%s COMMAND --help' for a command's options.\n", tool->prog);
        fprintf(f, "\nExit status: 0 success, 1 a negative answer, 2 usage or input error, 3 runtime failure.\n");
        return;
    }
    if (!cmd)
        cmd = &tool->cmds[0];
    fprintf(f, "Usage: %s %s\n", tool->prog, cmd->usage ? cmd->usage : "");
    if (cmd->summary)
        fprintf(f, "\n%s\n", cmd->summary);
    fprintf(f, "\nOptions:\n");
    help_opts(f, cmd->opts, NULL);
    help_opts(f, builtin_opts, cmd->opts);
    if (cmd->details)
        fprintf(f, "\n%s\n", cmd->details);
    fprintf(f, "\nExit status: 0 success, 1 a negative answer, 2 usage or input error, 3 runtime failure.\n");
}

/* ---- completion scripts ------------------------------------------------ */

static void opt_words(FILE *f, const dra_opt *opts)
{
    for (const dra_opt *o = opts; o && o->name; o++)
        if (o->help)
            fprintf(f, " --%s", o->name);
    for (const dra_opt *o = builtin_opts; o->name; o++)
        if (o->id != DRA_OPT_COMPLETION && !listed(opts, o->id))
            fprintf(f, " --%s", o->name);
}

static char *ident(const char *prog)
{
    char *s = dra_xstrdup(prog);
    for (char *p = s; *p; p++)
        if (*p == '-')
            *p = '_';
    return s;
}

/* An option's completion words: its own, or for DRA_COMPLETE_GATES the
 * gates of every release the tools know, as GATE=true and GATE=false
 * (written to b, which the caller frees). */
static const char *completion_of(const dra_opt *o, dra_buf *b)
{
    if (!o->complete || strcmp(o->complete, DRA_COMPLETE_GATES) != 0)
        return o->complete;
    dra_buf_reset(b);
    dra_buf_puts(b, "");
    for (int id = 0; id < DRA_FEATURE_COUNT; id++) {
        bool known = false;
        for (int r = DRA_RELEASE_OLDEST; r <= DRA_RELEASE_NEWEST; r++)
            known = known || dra_gate_spec_at((dra_release)r, (dra_feature)id)->known;
        if (known)
            dra_buf_printf(b, "%s%s=true %s=false", b->len ? " " : "", dra_feature_name((dra_feature)id),
                           dra_feature_name((dra_feature)id));
    }
    return dra_buf_str(b);
}

static void bash_value_cases(FILE *f, const dra_opt *opts)
{
    dra_buf words = DRA_BUF_INIT;
    for (const dra_opt *o = opts; o && o->name; o++) {
        if (o->arg != DRA_ARG_REQUIRED || !o->help)
            continue;
        const char *cw = completion_of(o, &words);
        fprintf(f, "        --%s", o->name);
        if (o->short_name)
            fprintf(f, "|-%c", o->short_name);
        if (cw && strcmp(cw, "file") == 0)
            fprintf(f, ") COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n");
        else if (cw && strcmp(cw, "dir") == 0)
            fprintf(f, ") COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n");
        else if (cw && cw[0] == '!')
            fprintf(f, ") COMPREPLY=($(compgen -W \"$(%s)\" -- \"$cur\")); return;;\n", cw + 1);
        else if (cw)
            fprintf(f, ") COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n", cw);
        else
            fprintf(f, ") return;;\n");
    }
    dra_buf_free(&words);
}

static void completion_bash(FILE *f, const dra_tool *t)
{
    char *fn = ident(t->prog);
    fprintf(f, "# bash completion for %s (generated by '%s --completion bash')\n", t->prog, t->prog);
    fprintf(f, "_%s() {\n    local cur prev cmd i\n    COMPREPLY=()\n", fn);
    fprintf(f, "    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n");
    if (has_subcommands(t)) {
        fprintf(f, "    cmd=\"\"\n    for ((i = 1; i < COMP_CWORD; i++)); do\n        case \"${COMP_WORDS[i]}\" in\n   "
                   "        ");
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++)
            fprintf(f, "%s%s", c == t->cmds ? " " : "|", c->name);
        fprintf(f, ") cmd=\"${COMP_WORDS[i]}\"; break;;\n        esac\n    done\n");
        fprintf(f, "    if [[ -z \"$cmd\" && \"$cur\" != -* ]]; then\n        COMPREPLY=($(compgen -W \"");
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++)
            fprintf(f, "%s%s", c == t->cmds ? "" : " ", c->name);
        fprintf(f, "\" -- \"$cur\"))\n        return\n    fi\n");
        fprintf(f, "    case \"$cmd\" in\n");
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++) {
            fprintf(f, "    %s)\n        case \"$prev\" in\n", c->name);
            bash_value_cases(f, c->opts);
            fprintf(f, "        esac\n        if [[ \"$cur\" == -* ]]; then\n            COMPREPLY=($(compgen -W \"");
            opt_words(f, c->opts);
            fprintf(f, "\" -- \"$cur\"))\n        else\n");
            if (c->args_complete && strcmp(c->args_complete, "file") != 0)
                fprintf(f, "            COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n", c->args_complete);
            else
                fprintf(f, "            COMPREPLY=($(compgen -f -- \"$cur\"))\n");
            fprintf(f, "        fi;;\n");
        }
        fprintf(f, "    esac\n");
    } else {
        const dra_cmd *c = &t->cmds[0];
        fprintf(f, "    case \"$prev\" in\n");
        bash_value_cases(f, c->opts);
        fprintf(f, "    esac\n    if [[ \"$cur\" == -* ]]; then\n        COMPREPLY=($(compgen -W \"");
        opt_words(f, c->opts);
        fprintf(f, "\" -- \"$cur\"))\n    else\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n    fi\n");
    }
    fprintf(f, "}\ncomplete -o filenames -F _%s %s\n", fn, t->prog);
    free(fn);
}

static void zsh_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else if (*s == '[' || *s == ']' || *s == ':')
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
}

static void zsh_opts(FILE *f, const dra_opt *opts)
{
    dra_buf words = DRA_BUF_INIT;
    const dra_opt *lists[2] = {opts, builtin_opts};
    for (int l = 0; l < 2; l++) {
        for (const dra_opt *o = lists[l]; o && o->name; o++) {
            if (o->id == DRA_OPT_COMPLETION || !o->help || (l == 1 && listed(opts, o->id)))
                continue;
            const char *cw = completion_of(o, &words);
            fprintf(f, "    '");
            if (o->short_name)
                fprintf(f, "(-%c --%s)'{-%c,--%s}'", o->short_name, o->name, o->short_name, o->name);
            else
                fprintf(f, "--%s", o->name);
            if (o->arg == DRA_ARG_OPTIONAL)
                fputc('=', f);
            fputc('[', f);
            zsh_escape(f, o->help);
            fputc(']', f);
            if (o->arg != DRA_ARG_NONE) {
                fprintf(f, ":%s:", o->arg_name ? o->arg_name : "value");
                if (cw && strcmp(cw, "file") == 0)
                    fprintf(f, "_files");
                else if (cw && strcmp(cw, "dir") == 0)
                    fprintf(f, "_files -/");
                else if (cw && cw[0] == '!')
                    fprintf(f, "{compadd -- ${(f)\"$(%s)\"}}", cw + 1);
                else if (cw)
                    fprintf(f, "(%s)", cw);
            }
            fprintf(f, "' \\\n");
        }
    }
    dra_buf_free(&words);
}

static void completion_zsh(FILE *f, const dra_tool *t)
{
    char *fn = ident(t->prog);
    fprintf(f, "#compdef %s\n# zsh completion for %s (generated by '%s --completion zsh')\n\n", t->prog, t->prog,
            t->prog);
    if (has_subcommands(t)) {
        fprintf(f, "_%s() {\n  local -a commands\n  commands=(\n", fn);
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++) {
            fprintf(f, "    '%s:", c->name);
            zsh_escape(f, c->summary);
            fprintf(f, "'\n");
        }
        fprintf(f, "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n");
        fprintf(f, "  local cmd=$words[2]\n  shift words\n  (( CURRENT-- ))\n  case $cmd in\n");
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++) {
            fprintf(f, "  %s)\n    _arguments -s \\\n", c->name);
            zsh_opts(f, c->opts);
            if (c->args_complete && strcmp(c->args_complete, "file") != 0)
                fprintf(f, "    '*:argument:(%s)'\n    ;;\n", c->args_complete);
            else
                fprintf(f, "    '*:file:_files'\n    ;;\n");
        }
        fprintf(f, "  esac\n}\n\n_%s \"$@\"\n", fn);
    } else {
        fprintf(f, "_%s() {\n  _arguments -s \\\n", fn);
        zsh_opts(f, t->cmds[0].opts);
        fprintf(f, "    '*:file:_files'\n}\n\n_%s \"$@\"\n", fn);
    }
    free(fn);
}

static void fish_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\'' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void fish_opts(FILE *f, const dra_tool *t, const dra_cmd *c)
{
    dra_buf words = DRA_BUF_INIT;
    const dra_opt *lists[2] = {c->opts, builtin_opts};
    for (int l = 0; l < 2; l++) {
        for (const dra_opt *o = lists[l]; o && o->name; o++) {
            if (o->id == DRA_OPT_COMPLETION || !o->help || (l == 1 && listed(c->opts, o->id)))
                continue;
            const char *cw = completion_of(o, &words);
            fprintf(f, "complete -c %s", t->prog);
            if (c->name)
                fprintf(f, " -n '__fish_seen_subcommand_from %s'", c->name);
            fprintf(f, " -l %s", o->name);
            if (o->short_name)
                fprintf(f, " -s %c", o->short_name);
            if (o->arg == DRA_ARG_REQUIRED) {
                if (cw && strcmp(cw, "file") == 0)
                    fprintf(f, " -r -F");
                else if (cw && strcmp(cw, "dir") == 0)
                    fprintf(f, " -r -a '(__fish_complete_directories)'");
                else if (cw && cw[0] == '!')
                    fprintf(f, " -x -a '(%s)'", cw + 1);
                else if (cw)
                    fprintf(f, " -x -a '%s'", cw);
                else
                    fprintf(f, " -x");
            }
            fprintf(f, " -d '");
            fish_escape(f, o->help);
            fprintf(f, "'\n");
        }
    }
    dra_buf_free(&words);
}

static void completion_fish(FILE *f, const dra_tool *t)
{
    fprintf(f, "# fish completion for %s (generated by '%s --completion fish')\n", t->prog, t->prog);
    char *var = ident(t->prog);
    if (has_subcommands(t)) {
        fprintf(f, "set -l __%s_cmds", var);
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++)
            fprintf(f, " %s", c->name);
        fprintf(f, "\n");
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++) {
            fprintf(f, "complete -c %s -f -n 'not __fish_seen_subcommand_from $__%s_cmds' -a %s -d '", t->prog, var,
                    c->name);
            fish_escape(f, c->summary);
            fprintf(f, "'\n");
        }
        for (const dra_cmd *c = t->cmds; !is_cmd_end(c); c++)
            fish_opts(f, t, c);
    } else {
        fish_opts(f, t, &t->cmds[0]);
    }
    free(var);
}

dra_err *dra_cli_completion(FILE *f, const dra_tool *tool, const char *shell)
{
    if (strcmp(shell, "bash") == 0)
        completion_bash(f, tool);
    else if (strcmp(shell, "zsh") == 0)
        completion_zsh(f, tool);
    else if (strcmp(shell, "fish") == 0)
        completion_fish(f, tool);
    else
        return dra_err_new(DRA_EXIT_INPUT, "unknown shell '%s' for --completion (bash, zsh, fish)", shell);
    return NULL;
}

bool dra_cli_standard(const dra_tool *tool, const dra_args *a, int *exit_code)
{
    if (dra_args_has(a, DRA_OPT_HELP)) {
        const dra_cmd *c = !has_subcommands(tool) ? &tool->cmds[0] : (a->cmd_given ? a->cmd : NULL);
        dra_cli_help(stdout, tool, c);
        dra_err *e = dra_stdout_close();
        *exit_code = e ? DRA_EXIT_RUNTIME : DRA_EXIT_OK;
        if (e) {
            dra_err_print(stderr, tool->prog, e);
            dra_err_free(e);
        }
        return true;
    }
    if (dra_args_has(a, DRA_OPT_VERSION)) {
        printf("%s %s\n", tool->prog, DRA_VERSION);
        dra_err *e = dra_stdout_close();
        *exit_code = e ? DRA_EXIT_RUNTIME : DRA_EXIT_OK;
        if (e)
            dra_err_print(stderr, tool->prog, e);
        dra_err_free(e);
        return true;
    }
    const char *shell = dra_args_get(a, DRA_OPT_COMPLETION);
    if (shell) {
        dra_err *e = dra_cli_completion(stdout, tool, shell);
        if (!e)
            e = dra_stdout_close();
        *exit_code = e ? e->code : DRA_EXIT_OK;
        if (e) {
            dra_err_print(stderr, tool->prog, e);
            dra_err_free(e);
        }
        return true;
    }
    return false;
}

dra_err *dra_stdout_close(void)
{
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && !dra_stdout_gone())
        return dra_err_new(DRA_EXIT_RUNTIME, "error writing to standard output: %s",
                           errno ? strerror(errno) : "write failed");
    return NULL;
}

bool dra_stdout_gone(void)
{
    /* the write end of a pipe without readers polls as an error (POLLERR),
     * a socket whose peer shut down as a hang-up */
    struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) && !(p.revents & POLLNVAL);
}
