/* The libFuzzer entry points a fuzz target (tests/fuzz/fuzz_*.c) defines:
 * LLVMFuzzerTestOneInput always, LLVMFuzzerInitialize when it needs set-up
 * before the first input.  libFuzzer calls them in `make fuzz` (clang); the
 * seed replay (tests/fuzz/replay.c) calls them in `make check` (the
 * project's compiler, where every external function needs a prototype: the
 * Makefile includes this header ahead of each target).
 *
 * LLVMFuzzerTestOneInput gets size bytes at data (not NUL-terminated; the
 * caller owns them and they are valid for the call only) and returns 0.
 * LLVMFuzzerInitialize gets main's argc/argv and returns 0. */
#ifndef DRA_FUZZ_H
#define DRA_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
