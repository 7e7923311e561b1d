/* dra-select repl: readline glue around the REPL engine. */
#include "base/error.h"
#include "model/features.h"

dra_err *dra_select_repl(char *const *paths, size_t npaths, const dra_features *f);
dra_err *dra_select_repl(char *const *paths, size_t npaths, const dra_features *f)
{
    (void)paths; (void)npaths; (void)f;
    return dra_err_new(DRA_EXIT_RUNTIME, "repl: not yet");
}
