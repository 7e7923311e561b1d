/* Private to src/common/io/: the YAML reader (read_yaml.c). */
#ifndef DRA_IO_READ_YAML_H
#define DRA_IO_READ_YAML_H

#include "docs.h"

/* The documents of YAML text data[0..len) to r: scalars resolved as
 * sigs.k8s.io/yaml does, anchors and merge keys expanded (bounded by
 * DRA_MAX_ALIAS_NODES), nesting bounded by DRA_MAX_DEPTH. */
DRA_MUST_USE dra_err *dra_read_yaml_stream(reader *r, const char *data, size_t len);
/* How a plain scalar resolves (go-yaml v2 rules, which sigs.k8s.io/yaml
 * uses): a new JSON value, or NULL with *special set for .inf/.nan (the
 * writer quotes a string that would not read back as itself). */
json_t *dra_yaml_resolve_plain(const char *s, bool *special);
/* The decimal digits of a plain scalar that resolves to an unsigned integer
 * past int64 (kept as a uint64 by go-yaml, so as a JSON number with all its
 * digits: "0x8000000000000000" is "9223372036854775808"); the reader holds
 * it as a real.  NULL for any other scalar.  Caller frees. */
char *dra_yaml_plain_big_uint(const char *s);

#endif
