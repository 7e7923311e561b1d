/* A flat tape of a JSON document: one pass over the text into an array of
 * tokens, no tree.
 *
 * Each value is one token, in text order; a container's token is followed
 * by its contents (an object's as key, value, key, value...) and says where
 * they end, so a value is skipped in one step and any value's jansson tree
 * can be built later from its tokens alone, without reading the text again.
 * Strings point into the text when they have no escapes and are valid
 * UTF-8, else into the tape's arena, decoded.
 *
 * It accepts what the fast path (io/jparse.h, dra_json_parse) accepts, and
 * reads strings and numbers as it does (the same scanners), with one
 * difference: duplicate keys are not looked for while parsing, but when a
 * tree is built (dra_tape_tree returns NULL for an object that has one,
 * where dra_json_parse returns NULL for the document).  Text it does not
 * take returns false; the caller then asks jansson, for its error or its
 * tree, as after dra_json_parse.
 *
 * Ownership: the caller owns the tape (a struct, DRA_TAPE_INIT, released
 * with dra_tape_free; parsing again reuses its memory).  The tape borrows
 * the text: it must outlive the tape's use.  Trees built are the caller's.
 */
#ifndef DRA_IO_TAPE_H
#define DRA_IO_TAPE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"

typedef enum dra_tape_type {
    DRA_TAPE_NULL,
    DRA_TAPE_FALSE,
    DRA_TAPE_TRUE,
    DRA_TAPE_INT,
    DRA_TAPE_REAL,
    DRA_TAPE_STRING,
    DRA_TAPE_ARRAY,
    DRA_TAPE_OBJECT,
} dra_tape_type;

typedef struct dra_tape_tok {
    uint8_t type; /* dra_tape_type */
    /* a string or container whose text is the one dra_json_write_line
     * writes of its tree: no white space, escape, real, "-0" or key twice
     * in it (dra_json_write_line_tape copies it); an object of two members
     * or more is plain only when read as_jansson (keys are compared then) */
    bool plain;
    uint32_t n;    /* an object's members, an array's elements, a string's bytes */
    uint32_t off;  /* the value's first byte in the text */
    uint32_t next; /* containers: the index of the token after the last one inside */
    union {
        json_int_t i;  /* DRA_TAPE_INT */
        double d;      /* DRA_TAPE_REAL */
        const char *s; /* DRA_TAPE_STRING: n bytes, no NUL after them */
        uint64_t end;  /* containers: just past the closing bracket in the text */
    } v;
} dra_tape_tok;

typedef struct dra_tape {
    dra_tape_tok *tok;
    size_t n, cap;
    dra_arena arena; /* decoded strings */
    dra_buf scratch;
    const char *text; /* the text parsed (borrowed) */
    /* set before parsing: refuse what dra_json_loadb leaves to jansson
     * (a string not valid UTF-8 or with half a surrogate pair, an integer
     * past json_int_t), so that a tree built is dra_json_loadb's */
    bool as_jansson;
} dra_tape;

#define DRA_TAPE_INIT                                                                                                  \
    {                                                                                                                  \
        NULL, 0, 0, DRA_ARENA_INIT, DRA_BUF_INIT, NULL, false                                                          \
    }

/* Parse the object or array at the start of p[0..n) (no white space
 * before it, n below 4 GiB) into t, replacing what it held; *used is the
 * bytes it took (through the closing bracket).  Token 0 is the document.
 * false: not taken (see above); t is then empty. */
bool dra_tape_parse(dra_tape *t, const char *p, size_t n, int max_depth, size_t *used);

/* The index of the token after the value at token i (and its contents). */
size_t dra_tape_skip(const dra_tape *t, size_t i);

/* The value of member key in the object at token i: its index, or
 * SIZE_MAX when the object has no such key (the first when it has two). */
size_t dra_tape_member(const dra_tape *t, size_t i, const char *key, size_t keylen);

/* false when the value at token i is an object with a key twice (not
 * looking inside its members' values). */
bool dra_tape_keys_unique(const dra_tape *t, size_t i);

/* The jansson tree of the value at token i, as dra_json_parse builds it;
 * NULL when an object in it has a key twice. */
json_t *dra_tape_tree(const dra_tape *t, size_t i);

void dra_tape_free(dra_tape *t);

#endif
