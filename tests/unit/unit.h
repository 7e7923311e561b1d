/* Minimal unit-test harness: one binary per test file.
 *
 *   UNIT_TEST(name) { CHECK(expr); CHECK_STR(a, b); CHECK_INT(a, b); }
 *   int main(void) { return unit_run(); }   -- or UNIT_MAIN()
 *
 * Prints TAP-like "ok N - name" / "not ok N - name" lines and a closing
 * "N passed, N failed" line, exits 1 when anything failed.
 */
#ifndef DRA_UNIT_H
#define DRA_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*unit_fn)(int *failed);
struct unit_case {
    const char *name;
    unit_fn fn;
};

#define UNIT_MAX 1024
static struct unit_case unit_cases[UNIT_MAX];
static int unit_ncases;

/* clang-format off */
#define UNIT_TEST(name)                                                        \
    static void unit_##name(int *unit_failed);                                 \
    __attribute__((constructor)) static void unit_reg_##name(void)             \
    {                                                                          \
        if (unit_ncases < UNIT_MAX)                                            \
            unit_cases[unit_ncases++] = (struct unit_case){#name, unit_##name}; \
    }                                                                          \
    static void unit_##name(int *unit_failed)

#define CHECK(expr)                                                            \
    do {                                                                       \
        if (!(expr)) {                                                         \
            fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #expr); \
            *unit_failed = 1;                                                  \
        }                                                                      \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *unit_a = (a), *unit_b = (b);                               \
        if (!unit_a || !unit_b || strcmp(unit_a, unit_b) != 0) {               \
            fprintf(stderr, "  %s:%d: %s == %s: got \"%s\", want \"%s\"\n",    \
                    __FILE__, __LINE__, #a, #b, unit_a ? unit_a : "(null)",    \
                    unit_b ? unit_b : "(null)");                               \
            *unit_failed = 1;                                                  \
        }                                                                      \
    } while (0)

#define CHECK_INT(a, b)                                                        \
    do {                                                                       \
        long long unit_a = (long long)(a), unit_b = (long long)(b);            \
        if (unit_a != unit_b) {                                                \
            fprintf(stderr, "  %s:%d: %s == %s: got %lld, want %lld\n",        \
                    __FILE__, __LINE__, #a, #b, unit_a, unit_b);               \
            *unit_failed = 1;                                                  \
        }                                                                      \
    } while (0)
/* clang-format on */

static inline int unit_run(void)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < unit_ncases; i++) {
        int f = 0;
        unit_cases[i].fn(&f);
        printf("%s %d - %s\n", f ? "not ok" : "ok", i + 1, unit_cases[i].name);
        if (f)
            failed++;
        else
            passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#define UNIT_MAIN()                                                                                                    \
    int main(void)                                                                                                     \
    {                                                                                                                  \
        return unit_run();                                                                                             \
    }

#endif
