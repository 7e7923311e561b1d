/* cel-go v0.33's "did you mean" for an undeclared reference: the symbols
 * of the environment nearest a name (cel.dev/cel-go v0.33.2
 * common/env/catalog.go Find and EditDistance, checker/errors.go
 * formatSuggestionSuffix).
 *
 * Ownership: cel_catalog_suggest returns a heap string the caller frees,
 * or NULL; it keeps nothing of its arguments. */
#ifndef DRA_CEL_CATALOG_H
#define DRA_CEL_CATALOG_H

#include <stddef.h>

/* cel-go's Damerau-Levenshtein distance over runes, with its shortcuts:
 * the length difference for a long string half again as long as the
 * other, INT32_MAX when the table would pass 64*64 cells or a row's
 * least entry passes a third of the longer length. */
int cel_catalog_distance(const char *a, const char *b);

/* The suffix cel-go adds to "undeclared reference to 'name'" given the
 * catalog's n symbol names (duplicates allowed): " (did you mean 'a'?)"
 * or " (did you mean 'a' or 'b'?)" for the nearest symbols within the
 * distance allowed by name's length (1 up to 3 bytes, 2 up to 8, a third
 * beyond), among the dotted names when name is dotted and the others
 * otherwise, else for the two shortest that name begins (2 bytes or
 * more); "" when name is itself a symbol; NULL when the catalog has
 * nothing for name. */
char *cel_catalog_suggest(const char *name, const char *const *syms, size_t n);

#endif
