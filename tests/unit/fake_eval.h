/* A tiny selector evaluator for the allocator's unit tests (test-only, not
 * in libdra.a): `true`, `false`, `device.driver == "X"`,
 * `device.attributes["D"].N == V` (V an int, a "string" or true/false),
 * `has(device.attributes["D"].N)`, and `fail:MSG` (runtime error MSG);
 * anything else is a compile error "unsupported expression". */
#ifndef DRA_TESTS_FAKE_EVAL_H
#define DRA_TESTS_FAKE_EVAL_H

#include "alloc/alloc.h"

extern const dra_selector_eval dra_fake_selector_eval;

#endif
