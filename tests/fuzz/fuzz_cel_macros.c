/* Fuzz CEL's macros: nested map(), filter(), all(), exists() and
 * exists_one() over generated lists of ints, evaluated under a cost limit
 * (a fifth of Kubernetes', to keep runs short), against a naive evaluator
 * written here.
 *
 * The input bytes choose the expression (lists.range, list literals,
 * concatenation, the macros, arithmetic, comparisons, `in`, && || !).
 * Checks:
 *   - the value (or an error) equals the naive evaluator's, whenever the
 *     evaluation was not cancelled at the cost limit;
 *   - memory stays linear: the evaluation's scratch memory is at most
 *     1 MiB + 128 bytes per unit of cost + 48 bytes per list item the
 *     naive evaluator made (ranges, literals, concatenations), so copying
 *     an accumulator at each step, or keeping every step's garbage, fails;
 *   - time is bounded by the cost limit (libFuzzer's -timeout).
 * FUZZ_SHOW=1 in the environment prints each expression. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cel/cel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_NODES = 160, MAX_DEPTH = 4, WORK_LIMIT = 1000000, COST_LIMIT = 200000 };

/* clang-format off */
typedef enum { N_RANGE, N_LIT, N_MAP, N_FILTER, N_MAP3, N_CONCAT, N_CONST, N_VAR, N_ADD, N_MUL, N_MOD, N_SIZE,
               N_GT, N_EQ, N_ALL, N_EXISTS, N_ONE, N_IN, N_NOT, N_AND, N_OR, N_BOOL } kind;
/* clang-format on */

typedef struct node {
    kind k;
    int64_t n;         /* constant, range size, variable number */
    int var;           /* the variable a macro binds */
    struct node *a[3]; /* operands */
    size_t na;
} node;

typedef struct gen {
    const uint8_t *p;
    size_t n, at;
    node pool[MAX_NODES];
    size_t used;
} gen;

static unsigned next(gen *g)
{
    return g->at < g->n ? g->p[g->at++] : 0;
}

static node *make(gen *g, kind k)
{
    if (g->used == MAX_NODES)
        return NULL;
    node *x = &g->pool[g->used++];
    memset(x, 0, sizeof *x);
    x->k = k;
    return x;
}

static node *gen_list(gen *g, int depth, int vars);
static node *gen_bool(gen *g, int depth, int vars);

static node *gen_int(gen *g, int depth, int vars)
{
    unsigned c = next(g) % 6;
    if (g->used > MAX_NODES - 16 || depth > MAX_DEPTH)
        c = vars ? 1 : 0;
    node *x;
    switch (c) {
    case 1:
        if (vars) {
            x = make(g, N_VAR);
            x->n = next(g) % (unsigned)vars;
            return x;
        }
        /* fallthrough */
    case 0:
        x = make(g, N_CONST);
        x->n = (int64_t)(next(g) % 10);
        return x;
    case 2:
        x = make(g, N_ADD);
        x->a[0] = gen_int(g, depth + 1, vars);
        x->a[1] = gen_int(g, depth + 1, vars);
        return x;
    case 3:
    case 4:
        x = make(g, c == 3 ? N_MUL : N_MOD);
        x->a[0] = gen_int(g, depth + 1, vars);
        x->n = 1 + (int64_t)(next(g) % 9);
        return x;
    default:
        x = make(g, N_SIZE);
        x->a[0] = gen_list(g, depth + 1, vars);
        return x;
    }
}

static node *gen_macro(gen *g, kind k, int depth, int vars)
{
    node *x = make(g, k);
    x->a[0] = gen_list(g, depth + 1, vars);
    x->var = vars;
    if (k == N_MAP)
        x->a[1] = gen_int(g, depth + 1, vars + 1);
    else
        x->a[1] = gen_bool(g, depth + 1, vars + 1);
    if (k == N_MAP3)
        x->a[2] = gen_int(g, depth + 1, vars + 1);
    return x;
}

static node *gen_list(gen *g, int depth, int vars)
{
    unsigned c = next(g) % 6;
    if (g->used > MAX_NODES - 24 || depth > MAX_DEPTH || vars >= 4)
        c = 0;
    node *x;
    switch (c) {
    case 0: {
        x = make(g, N_RANGE);
        unsigned r = next(g);
        x->n = r >= 250 ? 2000 : r % 21;
        return x;
    }
    case 1:
        x = make(g, N_LIT);
        x->na = 1 + next(g) % 3; /* [] would be list(dyn), and its element type inferred */
        for (size_t i = 0; i < x->na; i++)
            x->a[i] = gen_int(g, depth + 1, vars);
        return x;
    case 2: return gen_macro(g, N_MAP, depth, vars);
    case 3: return gen_macro(g, N_FILTER, depth, vars);
    case 4: return gen_macro(g, N_MAP3, depth, vars);
    default:
        x = make(g, N_CONCAT);
        x->a[0] = gen_list(g, depth + 1, vars);
        x->a[1] = gen_list(g, depth + 1, vars);
        return x;
    }
}

static node *gen_bool(gen *g, int depth, int vars)
{
    unsigned c = next(g) % 10;
    if (g->used > MAX_NODES - 24 || depth > MAX_DEPTH)
        c = 0;
    node *x;
    switch (c) {
    case 0:
    case 1:
        x = make(g, c ? N_EQ : N_GT);
        x->a[0] = gen_int(g, depth + 1, vars);
        x->a[1] = gen_int(g, depth + 1, vars);
        return x;
    case 2: return gen_macro(g, N_ALL, depth, vars);
    case 3: return gen_macro(g, N_EXISTS, depth, vars);
    case 4: return gen_macro(g, N_ONE, depth, vars);
    case 5:
        x = make(g, N_IN);
        x->a[0] = gen_int(g, depth + 1, vars);
        x->a[1] = gen_list(g, depth + 1, vars);
        return x;
    case 6:
        x = make(g, N_NOT);
        x->a[0] = gen_bool(g, depth + 1, vars);
        return x;
    case 7:
    case 8:
        x = make(g, c == 7 ? N_AND : N_OR);
        x->a[0] = gen_bool(g, depth + 1, vars);
        x->a[1] = gen_bool(g, depth + 1, vars);
        return x;
    default:
        x = make(g, N_BOOL);
        x->n = next(g) & 1;
        return x;
    }
}

/* ---- the expression as CEL text ---- */

static void print(dra_buf *b, const node *x)
{
    static const char *const macro[] = {[N_MAP] = "map", [N_FILTER] = "filter", [N_MAP3] = "map",
                                        [N_ALL] = "all", [N_EXISTS] = "exists", [N_ONE] = "exists_one"};
    switch (x->k) {
    case N_RANGE: dra_buf_printf(b, "lists.range(%lld)", (long long)x->n); break;
    case N_LIT:
        dra_buf_putc(b, '[');
        for (size_t i = 0; i < x->na; i++) {
            if (i)
                dra_buf_puts(b, ", ");
            print(b, x->a[i]);
        }
        dra_buf_putc(b, ']');
        break;
    case N_MAP:
    case N_FILTER:
    case N_MAP3:
    case N_ALL:
    case N_EXISTS:
    case N_ONE:
        print(b, x->a[0]);
        dra_buf_printf(b, ".%s(v%d, ", macro[x->k], x->var);
        print(b, x->a[1]);
        if (x->k == N_MAP3) {
            dra_buf_puts(b, ", ");
            print(b, x->a[2]);
        }
        dra_buf_putc(b, ')');
        break;
    case N_CONCAT:
    case N_ADD:
    case N_GT:
    case N_EQ:
    case N_AND:
    case N_OR:
    case N_IN: {
        const char *op = x->k == N_CONCAT || x->k == N_ADD ? " + "
                         : x->k == N_GT                    ? " > "
                         : x->k == N_EQ                    ? " == "
                         : x->k == N_AND                   ? " && "
                         : x->k == N_OR                    ? " || "
                                                           : " in ";
        dra_buf_putc(b, '(');
        print(b, x->a[0]);
        dra_buf_puts(b, op);
        print(b, x->a[1]);
        dra_buf_putc(b, ')');
        break;
    }
    case N_CONST: dra_buf_printf(b, "%lld", (long long)x->n); break;
    case N_VAR: dra_buf_printf(b, "v%lld", (long long)x->n); break;
    case N_MUL:
    case N_MOD:
        dra_buf_putc(b, '(');
        print(b, x->a[0]);
        dra_buf_printf(b, " %c %lld)", x->k == N_MUL ? '*' : '%', (long long)x->n);
        break;
    case N_SIZE:
        print(b, x->a[0]);
        dra_buf_puts(b, ".size()");
        break;
    case N_NOT:
        dra_buf_puts(b, "!(");
        print(b, x->a[0]);
        dra_buf_putc(b, ')');
        break;
    case N_BOOL: dra_buf_puts(b, x->n ? "true" : "false"); break;
    }
}

/* ---- the naive evaluator ---- */

typedef enum { V_INT, V_BOOL, V_LIST, V_ERR } vkind;
typedef struct list {
    size_t n;
    int64_t *v;
} list;
typedef struct val {
    vkind k;
    int64_t i;
    list *l;
} val;

typedef struct ref {
    int64_t vars[8];
    size_t made; /* list items made: ranges, literals, concatenations */
    size_t work; /* steps, to give up on what would take too long */
    bool gave_up;
    list **lists; /* everything allocated, freed at the end */
    size_t nlists, cap;
} ref;

static list *new_list(ref *r, size_t cap)
{
    list *l = calloc(1, sizeof *l);
    l->v = cap ? malloc(cap * sizeof *l->v) : NULL;
    if (r->nlists == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->lists = realloc(r->lists, r->cap * sizeof *r->lists);
    }
    r->lists[r->nlists++] = l;
    return l;
}

static val err(void)
{
    return (val){.k = V_ERR};
}

static val run(ref *r, const node *x);

/* The macros as the parser expands them (accumulator, condition, step). */
static val run_macro(ref *r, const node *x)
{
    val range = run(r, x->a[0]);
    if (range.k == V_ERR || r->gave_up)
        return err();
    list *out = x->k <= N_MAP3 ? new_list(r, range.l->n) : NULL;
    val acc = x->k == N_ALL      ? (val){.k = V_BOOL, .i = 1}
              : x->k == N_EXISTS ? (val){.k = V_BOOL, .i = 0}
              : x->k == N_ONE    ? (val){.k = V_INT, .i = 0}
                                 : (val){.k = V_LIST, .l = out};
    if (out)
        out->n = 0;
    for (size_t i = 0; i < range.l->n && !r->gave_up; i++) {
        if (++r->work > WORK_LIMIT) {
            r->gave_up = true;
            break;
        }
        r->vars[x->var] = range.l->v[i];
        if (x->k == N_ALL && acc.k == V_BOOL && !acc.i)
            break;
        if (x->k == N_EXISTS && acc.k == V_BOOL && acc.i)
            break;
        val p = run(r, x->a[1]);
        switch (x->k) {
        case N_ALL: /* @result && p */
            if ((acc.k == V_BOOL && !acc.i) || (p.k == V_BOOL && !p.i))
                acc = (val){.k = V_BOOL, .i = 0};
            else if (acc.k == V_ERR || p.k == V_ERR)
                acc = err();
            break;
        case N_EXISTS: /* @result || p */
            if ((acc.k == V_BOOL && acc.i) || (p.k == V_BOOL && p.i))
                acc = (val){.k = V_BOOL, .i = 1};
            else if (acc.k == V_ERR || p.k == V_ERR)
                acc = err();
            break;
        case N_ONE: /* p ? @result + 1 : @result */
            if (p.k == V_ERR)
                acc = err();
            else if (p.i && acc.k != V_ERR)
                acc.i++;
            break;
        case N_MAP: /* @result + [f] */
            if (p.k == V_ERR || acc.k == V_ERR)
                acc = err();
            else
                out->v[out->n++] = p.i;
            break;
        default: { /* filter: p ? @result + [v] : @result; map(v, p, f): p ? @result + [f] : @result */
            if (p.k == V_ERR) {
                acc = err();
                break;
            }
            if (!p.i || acc.k == V_ERR)
                break;
            val f = x->k == N_MAP3 ? run(r, x->a[2]) : (val){.k = V_INT, .i = range.l->v[i]};
            if (f.k == V_ERR)
                acc = err();
            else
                out->v[out->n++] = f.i;
        }
        }
    }
    if (x->k == N_ONE && acc.k == V_INT)
        acc = (val){.k = V_BOOL, .i = acc.i == 1};
    return acc;
}

static val run(ref *r, const node *x)
{
    if (r->gave_up)
        return err();
    val a, b;
    switch (x->k) {
    case N_RANGE: {
        r->work += (size_t)x->n;
        if (r->work > WORK_LIMIT) {
            r->gave_up = true;
            return err();
        }
        list *l = new_list(r, (size_t)x->n);
        for (int64_t i = 0; i < x->n; i++)
            l->v[l->n++] = i;
        r->made += l->n;
        return (val){.k = V_LIST, .l = l};
    }
    case N_LIT: {
        list *l = new_list(r, x->na);
        for (size_t i = 0; i < x->na; i++) {
            a = run(r, x->a[i]);
            if (a.k == V_ERR)
                return err();
            l->v[l->n++] = a.i;
        }
        r->made += l->n;
        return (val){.k = V_LIST, .l = l};
    }
    case N_MAP:
    case N_FILTER:
    case N_MAP3:
    case N_ALL:
    case N_EXISTS:
    case N_ONE: return run_macro(r, x);
    case N_CONCAT: {
        a = run(r, x->a[0]);
        b = run(r, x->a[1]);
        if (a.k == V_ERR || b.k == V_ERR)
            return err();
        r->work += a.l->n + b.l->n;
        if (r->work > WORK_LIMIT) {
            r->gave_up = true;
            return err();
        }
        list *l = new_list(r, a.l->n + b.l->n);
        for (size_t i = 0; i < a.l->n; i++)
            l->v[l->n++] = a.l->v[i];
        for (size_t i = 0; i < b.l->n; i++)
            l->v[l->n++] = b.l->v[i];
        r->made += l->n;
        return (val){.k = V_LIST, .l = l};
    }
    case N_CONST: return (val){.k = V_INT, .i = x->n};
    case N_VAR: return (val){.k = V_INT, .i = r->vars[x->n]};
    case N_ADD:
    case N_MUL:
    case N_MOD: {
        a = run(r, x->a[0]);
        if (x->k == N_ADD)
            b = run(r, x->a[1]);
        else
            b = (val){.k = V_INT, .i = x->n};
        if (a.k == V_ERR || b.k == V_ERR)
            return err();
        int64_t v;
        if (x->k == N_MOD)
            return (val){.k = V_INT, .i = a.i % b.i};
        if (x->k == N_ADD ? __builtin_add_overflow(a.i, b.i, &v) : __builtin_mul_overflow(a.i, b.i, &v))
            return err();
        return (val){.k = V_INT, .i = v};
    }
    case N_SIZE: a = run(r, x->a[0]); return a.k == V_ERR ? err() : (val){.k = V_INT, .i = (int64_t)a.l->n};
    case N_GT:
    case N_EQ:
        a = run(r, x->a[0]);
        b = run(r, x->a[1]);
        if (a.k == V_ERR || b.k == V_ERR)
            return err();
        return (val){.k = V_BOOL, .i = x->k == N_GT ? a.i > b.i : a.i == b.i};
    case N_IN:
        a = run(r, x->a[0]);
        b = run(r, x->a[1]);
        if (a.k == V_ERR || b.k == V_ERR)
            return err();
        for (size_t i = 0; i < b.l->n; i++)
            if (b.l->v[i] == a.i)
                return (val){.k = V_BOOL, .i = 1};
        return (val){.k = V_BOOL, .i = 0};
    case N_NOT: a = run(r, x->a[0]); return a.k == V_ERR ? a : (val){.k = V_BOOL, .i = !a.i};
    case N_AND:
    case N_OR: {
        bool absorb = x->k == N_OR; /* false && _, true || _ */
        a = run(r, x->a[0]);
        b = run(r, x->a[1]);
        if ((a.k == V_BOOL && a.i == absorb) || (b.k == V_BOOL && b.i == absorb))
            return (val){.k = V_BOOL, .i = absorb};
        if (a.k == V_ERR || b.k == V_ERR)
            return err();
        return (val){.k = V_BOOL, .i = !absorb};
    }
    case N_BOOL: return (val){.k = V_BOOL, .i = x->n};
    }
    return err();
}

static void show(dra_buf *b, val v)
{
    switch (v.k) {
    case V_INT: dra_buf_printf(b, "%lld", (long long)v.i); break;
    case V_BOOL: dra_buf_puts(b, v.i ? "true" : "false"); break;
    case V_ERR: dra_buf_puts(b, "ERROR"); break;
    case V_LIST:
        dra_buf_putc(b, '[');
        for (size_t i = 0; i < v.l->n; i++)
            dra_buf_printf(b, "%s%lld", i ? ", " : "", (long long)v.l->v[i]);
        dra_buf_putc(b, ']');
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 512)
        return 0;
    static cel_env *env;
    if (!env)
        env = cel_env_new(CEL_LIBS_KUBERNETES);
    gen g = {.p = data, .n = size};
    unsigned top = next(&g) % 3;
    node *root = top == 0 ? gen_list(&g, 0, 0) : top == 1 ? gen_bool(&g, 0, 0) : gen_int(&g, 0, 0);
    dra_buf text = DRA_BUF_INIT;
    print(&text, root);
    if (getenv("FUZZ_SHOW"))
        fprintf(stderr, "%s\n", dra_buf_str(&text));

    cel_program *p = NULL;
    dra_err *e = cel_compile(env, text.data, text.len, NULL, &p);
    if (e) {
        fprintf(stderr, "does not compile: %s\n%s\n", dra_buf_str(&text), e->msg);
        abort();
    }
    uint64_t cost = 0;
    cel_eval_options eo = {.cost_limit = COST_LIMIT, .actual_cost = &cost};
    cel_value v = cel_eval(p, NULL, &eo);
    bool cancelled = v.kind == CEL_ERROR && strcmp(v.v.err, CEL_COST_LIMIT_ERROR) == 0;
    dra_buf got = DRA_BUF_INIT;
    if (v.kind == CEL_ERROR) {
        dra_buf_puts(&got, "ERROR");
    } else {
        char *s = cel_value_to_string(&v);
        dra_buf_puts(&got, s);
        free(s);
    }

    ref r = {0};
    val want = run(&r, root);
    if (!cancelled && !r.gave_up) {
        dra_buf w = DRA_BUF_INIT;
        show(&w, want);
        if (strcmp(dra_buf_str(&w), dra_buf_str(&got)) != 0) {
            fprintf(stderr, "%s\n  got  %s\n  want %s\n", dra_buf_str(&text), dra_buf_str(&got), dra_buf_str(&w));
            abort();
        }
        dra_buf_free(&w);
    }
    size_t made = r.gave_up ? (size_t)WORK_LIMIT * 4 : r.made;
    size_t bound = ((size_t)1 << 20) + 128 * (size_t)cost + 48 * made;
    if (cel_program_scratch_bytes(p) > bound) {
        fprintf(stderr, "%s\n  %zu bytes for cost %llu and %zu items made\n", dra_buf_str(&text),
                cel_program_scratch_bytes(p), (unsigned long long)cost, r.made);
        abort();
    }
    for (size_t i = 0; i < r.nlists; i++) {
        free(r.lists[i]->v);
        free(r.lists[i]);
    }
    free(r.lists);
    dra_buf_free(&got);
    dra_buf_free(&text);
    cel_program_free(p);
    return 0;
}
