/* Seed replay: a fuzz target's inputs run once each, without libFuzzer.
 *
 *   fuzz-replay/fuzz_NAME FILE...
 *
 * Calls LLVMFuzzerInitialize (when the target defines it), then
 * LLVMFuzzerTestOneInput on the bytes of each FILE in order, each in a heap
 * block of exactly its size (as libFuzzer does, so a sanitizer sees a read
 * past the end).  Before each input its name goes to stderr, so a crash or
 * sanitizer report that follows names it.  Prints "N inputs" on stdout;
 * exits 0, or 2 when a FILE cannot be read or none is given.  Built by
 * make check with the project's compiler and flags, sanitizers included;
 * tests/run-tests.sh runs it on tests/fuzz/seeds/NAME/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "fuzz.h"

#pragma weak LLVMFuzzerInitialize

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int n = 0;
    for (int i = 1; i < argc; i++) {
        dra_buf b = DRA_BUF_INIT;
        dra_err *e = dra_buf_read_path(&b, argv[i], 64u << 20);
        if (e) {
            dra_err_print(stderr, "replay", e);
            dra_err_free(e);
            dra_buf_free(&b);
            return 2;
        }
        uint8_t *data = dra_xmalloc(b.len ? b.len : 1);
        if (b.len)
            memcpy(data, b.data, b.len);
        fprintf(stderr, "input %s (%zu bytes)\n", argv[i], b.len);
        LLVMFuzzerTestOneInput(data, b.len);
        free(data);
        dra_buf_free(&b);
        n++;
    }
    printf("%d input%s\n", n, n == 1 ? "" : "s");
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 2;
}
