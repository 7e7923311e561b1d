/* Private to src/common/io/: go-yaml v2's resolution of plain scalars
 * (yaml_resolve.c). */
#ifndef DRA_IO_YAML_RESOLVE_H
#define DRA_IO_YAML_RESOLVE_H

#include <jansson.h>
#include <stdbool.h>

/* What a plain scalar resolves to (go-yaml v2 rules), allocating nothing:
 * the writer's test of whether a string must be quoted. */
typedef enum {
    DRA_YAML_PLAIN_STRING,
    DRA_YAML_PLAIN_NULL,
    DRA_YAML_PLAIN_TRUE,
    DRA_YAML_PLAIN_FALSE,
    DRA_YAML_PLAIN_INT,      /* fits int64 */
    DRA_YAML_PLAIN_BIG_UINT, /* an unsigned integer past int64 */
    DRA_YAML_PLAIN_FLOAT,    /* finite */
    DRA_YAML_PLAIN_SPECIAL,  /* .inf, .nan and their spellings */
} dra_yaml_plain;
dra_yaml_plain dra_yaml_plain_kind(const char *s);

/* How a plain scalar resolves (go-yaml v2 rules, which sigs.k8s.io/yaml
 * uses): a new JSON value, or NULL with *special set for .inf/.nan (the
 * writer quotes a string that would not read back as itself). */
json_t *dra_yaml_resolve_plain(const char *s, bool *special);
/* The JSON number sigs.k8s.io/yaml makes of a plain scalar the reader
 * holds as a real, which the API server then decodes: an unsigned integer
 * past int64 keeps all its digits (go-yaml keeps it as a uint64:
 * "0x8000000000000000" is "9223372036854775808"); a float, an integer past
 * uint64 included, is encoding/json's text of its float64
 * ("18446744073709551616" is "18446744073709552000", "1e30" is "1e+30").
 * NULL for any other scalar.  Caller frees. */
char *dra_yaml_plain_number_text(const char *s);

#endif
