/* Device IDs and their state: interning, allocated and shared devices from in-use claims (state.c).
 * Internal to src/common/alloc; types in internal.h. */
#ifndef DRA_ALLOC_STATE_H
#define DRA_ALLOC_STATE_H

#include "internal.h"

int al_intern_id(dra_alloc_world *w, const char *driver, const char *pool, const char *device);
/* -1 when unknown. */
int al_lookup_id(const dra_alloc_world *w, const char *driver, const char *pool, const char *device);
void al_state_add_claim(dra_alloc_world *w, const json_t *claim);
bool al_device_allocated(const dra_alloc_world *w, int gid);

#endif
