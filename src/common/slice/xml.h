/* A tiny XML reader, enough for nvidia-smi's `-q -x` output (xml.c):
 * elements, text and the `id` attribute; entities nvidia-smi writes.
 *
 * Ownership: a tree's nodes live in the arena given to dra_xml_parse, their
 * text buffers are malloc'd: dra_xml_free releases those, the arena the
 * rest.  Every other call borrows. */
#ifndef DRA_SLICE_XML_H
#define DRA_SLICE_XML_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/arena.h"
#include "../base/buf.h"

typedef struct dra_xnode {
    char *name;
    char *id; /* the `id` attribute, if any */
    dra_buf text;
    struct dra_xnode *child, *last, *next;
} dra_xnode;

/* The root element of data, or NULL with *err set (static text). */
dra_xnode *dra_xml_parse(const char *data, size_t len, dra_arena *arena, const char **err);
void dra_xml_free(dra_xnode *n);
/* The descendant at a "/"-separated path of element names, or NULL. */
dra_xnode *dra_xml_child(dra_xnode *n, const char *path);
/* Trimmed text of a child; NULL when absent, empty or "N/A". Borrowed from scratch. */
const char *dra_xml_text(dra_xnode *n, const char *path, char *scratch, size_t size);
/* A child's text as a whole number (dra_parse_long). */
bool dra_xml_long(dra_xnode *n, const char *path, long long *out);
/* "40960 MiB" -> bytes. */
bool dra_xml_mib(dra_xnode *n, const char *path, unsigned long long *bytes);

/* The whole of s as a number (strtoll base 0: decimal, 0x hex, 0 octal);
 * false for NULL, empty, trailing text or overflow.  Also reads sysfs. */
bool dra_parse_long(const char *s, long long *out);

#endif
