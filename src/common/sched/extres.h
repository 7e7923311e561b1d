/* Extended resources backed by DRA (KEP-5004; extres.c). */
#ifndef DRA_SCHED_EXTRES_H
#define DRA_SCHED_EXTRES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../model/features.h"

typedef struct dra_extres_map dra_extres_map;

/* Resource name -> DeviceClass: explicit spec.extendedResourceName (newer
 * creationTimestamp wins, equal times: smaller class name) and the implicit
 * deviceclass.resource.kubernetes.io/<class>.  Classes are borrowed; f
 * (NULL: the defaults) is read now: the map reads the containers' requests
 * as f's release does. */
dra_extres_map *dra_extres_map_new(json_t *const *classes, size_t n, const dra_features *f);
void dra_extres_map_free(dra_extres_map *m);
/* The class name for a resource, or NULL. */
const char *dra_extres_class(const dra_extres_map *m, const char *resource);
/* schedutil.IsDRAExtendedResourceName. */
bool dra_is_dra_extended_resource_name(const char *name);

/* createRequestsAndMappings for the resources in `served` (sorted, n):
 * device requests container-<i>-request-<j> (i over initContainers then
 * containers, j the index of the resource among the container's sorted
 * request keys; non-sidecar init containers reuse later long-lived requests
 * and collapse into the largest), sorted by name, and the mappings
 * [{containerName, resourceName, requestName}].  New references. */
void dra_extres_requests(const json_t *pod, const dra_extres_map *m, const char *const *served, size_t n,
                         json_t **requests, json_t **mappings);

/* A quantity (a JSON integer or a quantity string read by f's release) as
 * Value(), rounded up; 0 when v is not one. */
long long dra_extres_quantity_value(const json_t *v, const dra_features *f);
/* The pod's request of one resource, as resourcehelper.PodRequests adds it
 * up (Value(), rounded up; 0 where not a quantity): the containers and
 * sidecars, or the largest init container with the sidecars started before
 * it when that is more, plus the overhead. */
long long dra_extres_pod_request(const json_t *pod, const char *resource, const dra_features *f);

#endif
