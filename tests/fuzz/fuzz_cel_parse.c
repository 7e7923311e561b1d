/* libFuzzer target: CEL parser (+ checker and cost on what parses). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/checker.h"
#include "cel/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cel_registry *reg;
    if (!reg)
        reg = cel_registry_new(CEL_LIBS_KUBERNETES);
    dra_arena a = DRA_ARENA_INIT;
    cel_ast *ast = NULL;
    dra_err *e = cel_parse((const char *)data, size, NULL, &a, &ast);
    if (e) {
        char *d = cel_errors_display(e, (const char *)data, size);
        free(d);
        dra_err_free(e);
    } else {
        char *dbg = cel_ast_debug(ast->root);
        free(dbg);
        cel_decl vars[] = {{"x", &cel_t_dyn},
                           {"i", &cel_t_int},
                           {"s", &cel_t_string},
                           {"l", &cel_t_list_dyn},
                           {"m", &cel_t_map_string_dyn}};
        cel_check_env env = {
            .vars = vars, .nvars = 5, .registry = reg, .cross_type_numeric = true, .homogeneous_literals = true};
        const cel_type *t;
        e = cel_check(ast, &env, &a, &t);
        if (e) {
            char *d = cel_errors_display(e, (const char *)data, size);
            free(d);
            dra_err_free(e);
        } else {
            uint64_t mn, mx;
            cel_cost_options co = {0};
            cel_estimate_cost(ast, &co, &mn, &mx);
        }
    }
    dra_arena_free(&a);
    return 0;
}
