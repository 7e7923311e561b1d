/* CDI (Container Device Interface): resolve fully-qualified device names
 * ("vendor/class=name") against the spec files a container runtime reads,
 * and compute the container edits the runtime would apply.
 *
 * Facts from cncf-tags/container-device-interface: pkg/parser/parser.go
 * (name syntax and messages), pkg/cdi/cache.go (directories in priority
 * order, the later the higher; a device defined twice at the same priority
 * is a conflict and resolves to nothing: "conflicting device ..."; one
 * defined at a higher priority wins), pkg/cdi/spec-dirs.go (only *.json and
 * *.yaml files directly in a directory), pkg/cdi/spec.go and
 * producer/validator/validator-default.go (strict decoding, known
 * cdiVersion, vendor/class from `kind`, device names, non-empty device
 * edits, env/deviceNodes/hooks/mounts checks with their messages),
 * pkg/cdi/container-edits.go (Append and Apply: spec-level edits once per
 * spec that contributes a device, then each device's; env entries replace
 * the same variable, device nodes the same path, mounts the same container
 * path; mounts are sorted by depth then path; additional GIDs are unique
 * and never 0; hooks keep their order).
 *
 * Spec files are read with the project's reader (JSON or YAML, one document
 * per file).  A broken spec file does not stop the others from loading; its
 * errors (file, line, field path, DRA_EXIT_INPUT) are handed back so a tool
 * can report them, and its devices are unknown.
 *
 * Ownership: a dra_cdi owns its specs; returned JSON is new (caller decrefs).
 */
#ifndef DRA_KUBELET_CDI_H
#define DRA_KUBELET_CDI_H

#include <jansson.h>
#include <stddef.h>

#include "base/error.h"

#define DRA_CDI_DEFAULT_DIRS                                                                                           \
    {                                                                                                                  \
        "/etc/cdi", "/var/run/cdi"                                                                                     \
    }

typedef struct dra_cdi dra_cdi;

/* Check a device name's syntax (upstream's messages; DRA_EXIT_INPUT). */
DRA_MUST_USE dra_err *dra_cdi_check_name(const char *id);

/* Check one decoded spec document; errors carry the field path. */
DRA_MUST_USE dra_err *dra_cdi_check_spec(const json_t *spec);

/* Load every spec of `dirs` (missing directories are skipped).  Errors of
 * individual files are returned in *spec_errs (may be NULL to ignore). */
dra_cdi *dra_cdi_load(const char *const *dirs, size_t ndirs, dra_err **spec_errs);
void dra_cdi_free(dra_cdi *c);
size_t dra_cdi_device_count(const dra_cdi *c);

/* The merged edits for `ids`, in CDI's containerEdits shape plus the list of
 * devices: {"devices":[..],"env":[..],"deviceNodes":[..],"mounts":[..],
 * "hooks":[..]} (+ "additionalGids", "intelRdt", "netDevices" when set).
 * Unknown or conflicting names are one error listing each of them with its
 * reason ("unresolvable CDI devices ..."). */
DRA_MUST_USE dra_err *dra_cdi_resolve(const dra_cdi *c, char *const *ids, size_t n, json_t **edits);

/* The same for records printed by `dra-prepare prepare` or `sync` (objects
 * with "cdiDevices", or "containers" of such): one result per container,
 * with namespace, pod and container copied.  Other records are skipped. */
DRA_MUST_USE dra_err *dra_cdi_resolve_records(const dra_cdi *c, const json_t *const *records, size_t n, json_t *out);

#endif
