/* Private to src/common/io/: when the YAML writer must quote a string
 * (yaml_quote.c), as sigs.k8s.io/yaml's encoder (go-yaml v2) decides. */
#ifndef DRA_IO_YAML_QUOTE_H
#define DRA_IO_YAML_QUOTE_H

#include <stdbool.h>

/* True when the plain form of s would not read back as the string s in
 * YAML 1.1 as go-yaml v2 resolves it: a null, a boolean (y, on, off, ...),
 * a number, .inf/.nan, "<<", a timestamp ("2026-01-02", "2026-1-2T3:04:05Z",
 * "2026-01-02 03:04:05.5") or a base-60 float ("1:20").  kubectl prints
 * such strings double-quoted. */
bool dra_yaml_plain_would_change(const char *s);

#endif
