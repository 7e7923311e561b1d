/* Errors as values.
 *
 * Every library function that can fail returns `dra_err *`: NULL means success,
 * otherwise a heap-allocated error (possibly the head of a chain, for validators
 * that report several problems).  The caller owns the returned error and frees
 * it with dra_err_free(), which frees the whole chain.  Only a tool's main()
 * prints an error (dra_err_print) and exits.
 *
 * An error carries: an exit class (DRA_EXIT_*), the message, and as much of
 * its location as is known: file, document index, line, column, the object
 * ("ResourceSlice/name", "ResourceClaim/ns/name") and the field path in
 * upstream's notation (`spec.devices[3].attributes["x/y"]`).
 *
 * Ownership, library-wide (every header says which applies to what it
 * hands out).  A returned value is owned by the caller unless its header
 * says it is borrowed: the caller frees it with the function the header
 * names (errors with dra_err_free, JSON with json_decref).  A borrowed
 * pointer (`const`, "borrowed" in the comment) stays valid only as long as
 * its owner, which is named, and may not be freed or written through; an
 * object that keeps a borrowed pointer documents what must outlive it (a
 * dra_alloc_world borrows the model's JSON, so the model is freed after
 * the world).  Per-document and per-run data live in an arena (base/arena.h)
 * freed at once, never piece by piece.  A map or cache owns its keys (a
 * copy in its owner's arena) unless every key comes from input that the
 * header says outlives the map: a cache that outlives the call that filled
 * it, like the allocator's compiled selectors, never keys by a string of a
 * claim, a request or a document that may be gone before it.  Shared JSON
 * (io/jparse.h: leaves read once and referenced from many devices) is never
 * written; copy it first.  DRA_ASSERT (base/assert.h) checks these where a
 * check is cheap: in sanitized and DRA_DEBUG builds a map whose keys were
 * freed or changed (dra_strmap_keys_intact), a written shared leaf, or an
 * undo out of order aborts with file, line and condition; the -O2 tools
 * compile the checks out.
 */
#ifndef DRA_BASE_ERROR_H
#define DRA_BASE_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes shared by every tool. */
enum {
    DRA_EXIT_OK = 0,
    DRA_EXIT_NEGATIVE = 1, /* a negative answer: nothing matched, cannot allocate, problems found */
    DRA_EXIT_INPUT = 2,    /* usage or input error */
    DRA_EXIT_RUNTIME = 3,  /* runtime or remote failure */
};

typedef struct dra_err {
    int code;             /* DRA_EXIT_* */
    char *msg;            /* never NULL; NUL-terminated at msg[len] */
    size_t len;           /* bytes of msg: a message may hold NUL bytes (upstream echoes a
                             CEL expression's bytes raw), so readers take dra_err_msg_len,
                             not strlen; code that replaces msg uses dra_err_set_msg */
    char *file;           /* NULL when unknown; "-" is printed as "<stdin>" */
    int doc;              /* 1-based document index in file, 0 = unknown */
    int line, col;        /* 1-based, 0 = unknown */
    char *object;         /* "Kind/name" or "Kind/namespace/name", NULL when none */
    char *field;          /* field path, NULL when none */
    int param;            /* 1: field names a parameter of the call (an option), not an object field */
    const char *hint;     /* a parameter that would change the answer ("no-pods-ok"), or NULL; a
                             string literal, not owned (a tool names it as its option) */
    size_t more;          /* errors like this one left out after it, counted (a gatherer of a flood
                             keeps a few of a kind); 0 when new */
    unsigned mark;        /* private to the code that made the error, for its own sorting (the CEL
                             parser marks what it reports while parsing, not visiting); 0 when
                             new, never printed */
    struct dra_err *next; /* further errors (validators report all they find) */
    /* private to error.c: on the first error of a chain, an error further
     * down the same chain (NULL: none known) from which its end is found,
     * so that an append costs the length of what is appended, not of the
     * chain.  Code outside error.c never sets it, and takes errors out of
     * a chain only with dra_err_pop (a chain cut by hand could leave it
     * pointing past the cut). */
    struct dra_err *last;
    /* private to error.c: the msg whose bytes len counts (a msg set by hand
     * is read as a C string) */
    const char *len_of;
} dra_err;

#if defined(__GNUC__) || defined(__clang__)
#define DRA_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DRA_PRINTF(a, b)
#endif

/* New error with a printf-style message.  Never returns NULL (aborts on OOM). */
/* Fallible functions (those returning dra_err *) are declared DRA_MUST_USE:
 * dropping the error is a compile error (with -Werror), and a cast to void
 * does not silence it. */
#if defined(__GNUC__) || defined(__clang__)
#define DRA_MUST_USE __attribute__((warn_unused_result))
#else
#define DRA_MUST_USE
#endif

DRA_MUST_USE dra_err *dra_err_new(int code, const char *fmt, ...) DRA_PRINTF(2, 3);
DRA_MUST_USE dra_err *dra_err_newv(int code, const char *fmt, va_list ap);
/* New error whose message is the len bytes at msg (copied; NUL bytes kept). */
DRA_MUST_USE dra_err *dra_err_newn(int code, const char *msg, size_t len);
/* Replace e's message by msg (taken: heap, NUL-terminated, no NUL bytes
 * inside); the old one is freed.  Returns e. */
dra_err *dra_err_set_msg(dra_err *e, char *msg);
/* The bytes of e's message, NUL bytes counted. */
size_t dra_err_msg_len(const dra_err *e);

/* Setters return the error so they chain: return dra_err_at(dra_err_new(...), f, 0, 3, 1); */
DRA_MUST_USE dra_err *dra_err_at(dra_err *e, const char *file, int doc, int line, int col);
DRA_MUST_USE dra_err *dra_err_object(dra_err *e, const char *object);
DRA_MUST_USE dra_err *dra_err_field(dra_err *e, const char *field);
/* Name the parameter of the call the error is about ("device", "node"):
 * library errors name parameters, never command-line flags; a tool prints
 * the parameter as its option (tool/: "--device"). */
DRA_MUST_USE dra_err *dra_err_param(dra_err *e, const char *name);
/* Name the parameter that would change the answer (a string literal): the
 * library never spells command-line flags; a tool adds "(see --NAME: ...)". */
DRA_MUST_USE dra_err *dra_err_hint(dra_err *e, const char *name);
/* Prefix the field path: "spec" + "devices[0]" -> "spec.devices[0]"; "x" + "[3]" -> "x[3]". */
DRA_MUST_USE dra_err *dra_err_field_prefix(dra_err *e, const char *prefix);
/* Set location/object on every error of the chain where it is not yet set. */
DRA_MUST_USE dra_err *dra_err_locate_all(dra_err *e, const char *file, int doc, int line, const char *object);

/* Append b's chain to a's; either may be NULL.  Returns the head.  The
 * head remembers where its chain ends, so n appends of single errors to one
 * chain take time linear in n (a chain built by hand, with `next`, is
 * walked once, from where the head last saw its end). */
DRA_MUST_USE dra_err *dra_err_append(dra_err *a, dra_err *b);
/* Take the first error off *chain: it is returned alone (next NULL) and
 * *chain is the rest.  NULL when *chain is empty.  The one way to take
 * errors out of a chain: setting `next` by hand to cut one may leave its
 * head remembering an end that is no longer its own. */
DRA_MUST_USE dra_err *dra_err_pop(dra_err **chain);

/* A chain grown at its end and counted as it grows (dra_err_append keeps
 * no count).  The chain is the list's until taken; nothing else may change
 * it meanwhile.
 *
 * A list that gathers the errors of a stream of objects can fold floods:
 * with `fold` set, it keeps at most that many errors of a kind
 * (dra_err_kind) and counts the rest on the last one kept (its `more`), so
 * its memory follows the kinds of errors, not the objects.  A tool prints
 * fewer of a kind than DRA_ERRS_FOLD (tool/flood.h), so nothing it would
 * print is lost. */
struct dra_errs_kinds;
typedef struct dra_errs {
    dra_err *head, *tail;
    size_t n;    /* errors in the chain (the ones folded away not counted) */
    size_t fold; /* 0: keep every error; else at most this many of a kind */
    size_t cap;  /* with fold: at most this many in all (0: no limit); errors of a kind
                    first seen after are counted in dropped */
    size_t dropped;
    struct dra_errs_kinds *kinds; /* private: the kinds seen when folding */
} dra_errs;

#define DRA_ERRS_INIT                                                                                                  \
    {                                                                                                                  \
        0, 0, 0, 0, 0, 0, 0                                                                                            \
    }
#define DRA_ERRS_FOLD 100

/* Append an error chain (NULL is ignored). */
void dra_errs_add(dra_errs *l, dra_err *e);
/* Hand the collected chain to the caller (NULL when empty); the list is
 * empty after (its fold and cap kept, dropped zero). */
DRA_MUST_USE dra_err *dra_errs_take(dra_errs *l);
void dra_errs_free(dra_errs *l);
/* The kind of an error, as a 64-bit hash: its exit class, field path and
 * message with the parts that name one particular thing left out (quoted
 * text, numbers, what stands in brackets), so `unknown field "spec.x1"`
 * and `unknown field "spec.x2"` are one kind, and so is one problem in
 * many objects. */
uint64_t dra_err_kind(const dra_err *e);
/* A set of kinds, each numbered in the order first seen (0, 1, ...), for
 * the per-kind counts a caller keeps in arrays of its own.  Zero-initialise;
 * dra_err_kinds_free() releases it (reusable after). */
typedef struct dra_err_kinds {
    uint64_t *keys; /* keys[i]: kind number i */
    size_t n;
    uint32_t *slot; /* open addressing: 0 = free, else number + 1 */
    size_t nslot;   /* 0 or a power of two, at most half full */
} dra_err_kinds;
/* The number of key, new (then n - 1) or old. */
size_t dra_err_kinds_index(dra_err_kinds *t, uint64_t key);
void dra_err_kinds_free(dra_err_kinds *t);
size_t dra_err_count(const dra_err *e);
void dra_err_free(dra_err *e);

/* One error as a line: "file:line: Kind/name: field: message" (no newline).
 * The file, object and field are cut at 300 bytes and the message at
 * DRA_MSG_MAX, each saying how many bytes were left out.  Caller frees.
 * A message may hold NUL bytes: dra_err_formatn gives the line's length
 * in *len (NULL: not wanted), and a printer writes that many bytes
 * (dra_err_print, dra_err_put_line); as a C string the line ends at the
 * first of them. */
char *dra_err_format(const dra_err *e);
char *dra_err_formatn(const dra_err *e, size_t *len);
/* Write "prefix: line\n" for one error to f (each byte of the message,
 * NUL bytes too); prefix NULL: the line alone.  False when the write failed. */
bool dra_err_put_line(FILE *f, const char *prefix, const dra_err *e);
#define DRA_MSG_MAX ((size_t)64 << 10)

/* Input an error echoes (a value, a key) is cut past DRA_ECHO_MAX bytes:
 * more than any value upstream's checks echo within its own limits (a CEL
 * expression, 10 KiB), so no message upstream gives for a value of a
 * size the API server takes is changed. */
#define DRA_ECHO_MAX ((size_t)16 << 10)
/* Upstream's rule for cutting a long text it echoes (truncateIfTooLong,
 * k8s.io/kubernetes pkg/apis/resource/validation/validation.go): a text of
 * n bytes over max (a max under 16 counts as 16) keeps its first *head and
 * its last *tail bytes around "...", max bytes in all.  False when n fits. */
bool dra_echo_cut(size_t n, size_t max, size_t *head, size_t *tail);
/* Print every error of the chain to f, each prefixed "prog: ". */
void dra_err_print(FILE *f, const char *prog, const dra_err *e);

/* Allocation that never returns NULL: abort with a message on OOM. */
void *dra_xmalloc(size_t n);
void *dra_xcalloc(size_t n, size_t size);
void *dra_xrealloc(void *p, size_t n);
/* Room for element number n (0-based) of an array that only this function
 * grows, starting from NULL: `v = dra_xgrow(v, n, sizeof *v); v[n++] = x;`.
 * The capacity is implied by n (4, 8, 16, ...), so n pushes cost O(log n)
 * reallocations; an array allocated any other way must not be passed. */
void *dra_xgrow(void *p, size_t n, size_t elem);
char *dra_xstrdup(const char *s);
char *dra_xstrndup(const char *s, size_t n);
char *dra_xasprintf(const char *fmt, ...) DRA_PRINTF(1, 2);
char *dra_xvasprintf(const char *fmt, va_list ap);

#endif
