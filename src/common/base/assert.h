/* DRA_ASSERT: invariants the code relies on, checked where checking is free.
 *
 * A comment that says "must", "never" or "always" about memory or order
 * states an invariant; DRA_ASSERT(cond) states it as code.  It is active in
 * AddressSanitizer builds (`make SANITIZE=address,...`, the fuzz targets:
 * GCC's __SANITIZE_ADDRESS__, clang's __has_feature(address_sanitizer))
 * and wherever DRA_DEBUG is defined; elsewhere cond is not evaluated (only
 * type-checked), so the -O2 tools pay nothing and a condition may call
 * something costly.  A failed assertion is a bug in the library, never bad
 * input: it prints "file:line: assertion failed: cond" to stderr and
 * aborts (the one place besides out-of-memory where the library stops the
 * process).  Bad input is reported as a dra_err, never asserted.
 *
 * DRA_ASSERT_ON is 1 when assertions are active (for checks that need a
 * loop or a helper of their own), DRA_HAVE_ASAN when AddressSanitizer is
 * built in.
 */
#ifndef DRA_BASE_ASSERT_H
#define DRA_BASE_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define DRA_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DRA_HAVE_ASAN 1
#endif
#endif

#if defined(DRA_HAVE_ASAN) || defined(DRA_DEBUG)
#define DRA_ASSERT_ON 1
#else
#define DRA_ASSERT_ON 0
#endif

static inline _Noreturn void dra_assert_fail(const char *file, int line, const char *cond)
{
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, cond);
    fflush(stderr);
    abort();
}

#if DRA_ASSERT_ON
#define DRA_ASSERT(cond) ((cond) ? (void)0 : dra_assert_fail(__FILE__, __LINE__, #cond))
#else
#define DRA_ASSERT(cond) ((void)sizeof(!(cond)))
#endif

#endif
