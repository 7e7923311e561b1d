/* The compact records' container: arena, interned strings.  See compact.h. */
#include "compact.h"

#include <stdlib.h>
#include <string.h>

#include "../base/error.h"

const char *dra_compact_str(dra_compact *cp, const char *s)
{
    return dra_strmap_intern(&cp->strings, &cp->arena, s);
}

size_t dra_compact_bytes(const dra_compact *cp)
{
    return dra_arena_capacity(&cp->arena) + cp->strings.cap * sizeof *cp->strings.e +
           (cp->capclaims + cp->cappods) * sizeof(void *);
}

void dra_compact_free(dra_compact *cp)
{
    for (size_t i = 0; i < cp->nowned; i++)
        json_decref(cp->owned[i]);
    free(cp->owned);
    free(cp->claims);
    free(cp->pods);
    dra_strmap_free(&cp->strings);
    dra_arena_free(&cp->arena);
    memset(cp, 0, sizeof *cp);
}
