/* Private to src/common/io/: the YAML reader (read_yaml.c). */
#ifndef DRA_IO_READ_YAML_H
#define DRA_IO_READ_YAML_H

#include "docs.h"
#include "yaml_resolve.h"

/* The documents of YAML text data[0..len) to r: scalars resolved as
 * sigs.k8s.io/yaml does, anchors and merge keys expanded (bounded by
 * DRA_MAX_ALIAS_NODES), nesting bounded by DRA_MAX_DEPTH.  Its documents
 * are numbered after r->doc_base and its lines after r->line_base (both 0
 * but for the text after a first JSON document). */
DRA_MUST_USE dra_err *dra_read_yaml_stream(reader *r, const char *data, size_t len);

#endif
