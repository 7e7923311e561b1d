/* Reading and writing JSON objects: the one getter set of the library.
 *
 * All getters are NULL-safe (a NULL or non-object parent gives NULL) and
 * return borrowed references into the parent.  Two kinds of lookup:
 *   - paths (dra_jget and friends): dot-separated object keys,
 *     "status.allocation.devices"; a JSON null is returned as it is;
 *   - single keys (dra_jfield and friends): the key is taken whole (it may
 *     hold dots, as attribute names do); a JSON null reads as absent.
 */
#ifndef DRA_IO_JSON_H
#define DRA_IO_JSON_H

#include <jansson.h>

#include "base/buf.h"
#include <stdbool.h>

json_t *dra_jget(const json_t *o, const char *path);
const char *dra_jstr(const json_t *o, const char *path); /* NULL unless a string */
const char *dra_jstr_or(const json_t *o, const char *path, const char *dflt);
bool dra_jtrue(const json_t *o, const char *path); /* JSON true */
/* Array at path; NULL when absent or not an array. */
json_t *dra_jarr(const json_t *o, const char *path);
/* Set o[path] creating intermediate objects; steals value. */
void dra_jset_new(json_t *o, const char *path, json_t *value);
/* A new object of n string members, in order: dra_jstrings(2, "name", a,
 * "uid", b).  Keys are taken as they are (literals: ASCII); NULL when a
 * value is NULL or not UTF-8, as json_pack "{s:s,...}" answers, at a third
 * of its cost. */
json_t *dra_jstrings(size_t n, ...);

/* o[key]; NULL when o is not an object, the key is absent or null. */
const json_t *dra_jfield(const json_t *o, const char *key);
const char *dra_jfield_str(const json_t *o, const char *key); /* NULL unless a string */
bool dra_jfield_true(const json_t *o, const char *key);       /* JSON true */

/* Append v to b as compact JSON (object members in their order), for text
 * read back by this project's parsers: strings escaped only where JSON must
 * (", \\ and control characters), reals with 17 digits and a ".0" when
 * they would read back as integers.  Several times faster than json_dumps. */
void dra_json_write_compact(dra_buf *b, const json_t *v);

/* The JSON type of v as a schema names it: object, array, string, integer,
 * number, boolean or null. */
const char *dra_json_type_name(const json_t *v);

#endif
