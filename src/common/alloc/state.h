/* Device IDs and their state: interning (of strings and IDs), a device's rare
 * parts, allocated and shared devices from in-use claims (state.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_STATE_H
#define DRA_ALLOC_STATE_H

#include "internal.h"

/* s copied into the world's arena, once per distinct string (NULL: NULL). */
const char *dra_al_intern_str(dra_alloc_world *w, const char *s);

/* d's rare parts, made (in the world's arena) on first use. */
al_devx *dra_al_devx(dra_alloc_world *w, al_device *d);

int dra_al_intern_id(dra_alloc_world *w, const char *driver, const char *pool, const char *device);
/* -1 when unknown. */
int dra_al_lookup_id(const dra_alloc_world *w, const char *driver, const char *pool, const char *device);
/* 1.38 with DRAConsumableCapacity: the error that stops scheduling when an
 * allocated claim has a negative consumedCapacity (caller frees), or NULL. */
dra_err *dra_al_state_negative_capacity(const dra_alloc_world *w, const json_t *claim);
void dra_al_state_add_claim(dra_alloc_world *w, const json_t *claim);
bool dra_al_device_allocated(const dra_alloc_world *w, int gid);
/* ID gid's aggregated consumed capacity (an empty one when none). */
const al_capuse *dra_al_agg(const dra_alloc_world *w, int gid);
/* ID gid's extra state, made on first use. */
al_idextra *dra_al_idextra(dra_alloc_world *w, int gid);
/* The world's compiled expression for expr (w->progs, compiled on first
 * use; a compile error is kept in ->error), so every user of the world shares
 * the per-device results.  expr is borrowed for the call only: the world
 * keeps a copy of its own. */
al_prog *dra_al_prog(dra_alloc_world *w, const char *expr);
/* The same for len bytes of expr (a JSON string's, NUL bytes too). */
al_prog *dra_al_prog_n(dra_alloc_world *w, const char *expr, size_t len);
/* The same for a derived attribute's expression (KEP-6080), compiled to
 * yield a value (w->value_progs). */
al_prog *dra_al_value_prog(dra_alloc_world *w, const char *expr);

#endif
