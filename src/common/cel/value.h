/* CEL runtime values.
 *
 * A cel_value is a small tagged union passed by value (24 bytes).  Scalars are
 * inline; strings, bytes, lists, maps, optionals, errors and Kubernetes objects
 * point at memory owned by someone else:
 *   - values produced during an evaluation live in the evaluation's scratch
 *     memory (cel_scratch below), valid until the next evaluation or reset;
 *   - values built by a caller (activation bindings, the DRA device, test
 *     fixtures) live wherever the caller allocated them, typically a dra_arena
 *     or a cel_scratch the caller owns.  The evaluator never frees or mutates
 *     them, so they can be shared by any number of evaluations.
 * Nothing in a cel_value is ever freed individually.
 *
 * Strings are UTF-8 and not necessarily NUL-terminated: use (s.ptr, s.len).
 * Functions that need code points decode on the fly (size(), charAt(), ...).
 */
#ifndef DRA_CEL_VALUE_H
#define DRA_CEL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/utf8.h"
#include "../model/quantity.h"
#include "../model/semver.h"
#include "../model/time.h"
#include "types.h"

typedef enum cel_kind {
    CEL_NULL = 1,
    CEL_BOOL,
    CEL_INT,
    CEL_UINT,
    CEL_DOUBLE,
    CEL_STRING,
    CEL_BYTES,
    CEL_LIST,
    CEL_MAP,
    CEL_TYPE,      /* a type value: int, list, map, type, ... */
    CEL_OPTIONAL,  /* optional.of(v) or optional.none() */
    CEL_TIMESTAMP, /* seconds since the Unix epoch + nanos, UTC */
    CEL_DURATION,  /* seconds + nanos, same sign */
    CEL_ERROR,     /* an evaluation error travelling as a value */
    CEL_OBJECT,    /* a Kubernetes opaque object: Quantity, Semver, IP, CIDR, URL, Format */
} cel_kind;

typedef struct cel_value cel_value;
typedef struct cel_list cel_list;
typedef struct cel_map cel_map;
typedef struct cel_object cel_object;

struct cel_value {
    cel_kind kind;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *ptr; /* not necessarily NUL-terminated; may be NULL when len == 0 */
            size_t len;
        } s; /* STRING, BYTES */
        const cel_list *list;
        const cel_map *map;
        const cel_type *type; /* TYPE */
        const cel_value *opt; /* OPTIONAL: NULL = none */
        struct {
            int64_t sec;
            int32_t nsec;      /* 0..999999999 for timestamps; same sign as sec for durations */
        } t;                   /* TIMESTAMP, DURATION */
        const char *err;       /* ERROR: message, NUL-terminated */
        const cel_object *obj; /* OBJECT */
    } v;
};

/* A list.  Read its items through cel_list_items (never `items_`): a
 * concatenation (cel-go's concatList, an O(1) view) has none until they
 * are first read, when they are made in the scratch memory it names. */
struct cel_list {
    size_t n;
    const cel_value *items_;   /* the n items, or NULL for a concatenation not read yet */
    const cel_list *lhs, *rhs; /* a concatenation: lhs's items then rhs's */
    dra_arena *mem;            /* where a concatenation's items are made (a cel_scratch) */
};

/* Map flags. */
enum {
    /* DRA device.attributes / device.capacity: indexing or selecting a
     * missing key yields an empty map instead of "no such key" (and has() is
     * true for every key); `in`, size(), iteration and equality see only the
     * real keys.  (dynamic-resource-allocation cel/compile.go
     * newStringInterfaceMapWithDefault) */
    CEL_MAP_DEFAULT_EMPTY = 1,
};

/* Keys are int, uint, bool or string; kept in insertion order (cel-go
 * iterates map literals in insertion order).  Lookup is linear below a small
 * size and hashed above it; the index is built lazily by nobody: maps are
 * immutable once built, so cel_map_build() prepares everything. */
struct cel_map {
    size_t n;
    const cel_value *keys;
    const cel_value *vals;
    unsigned flags;
    const uint32_t *index; /* open-addressing table of n*2 rounded up to a power of two, or NULL */
    size_t index_mask;
};

typedef enum cel_object_kind {
    CEL_OBJ_QUANTITY = 1,
    CEL_OBJ_SEMVER,
    CEL_OBJ_IP,
    CEL_OBJ_CIDR,
    CEL_OBJ_URL,
    CEL_OBJ_FORMAT,
} cel_object_kind;

typedef struct cel_ip {
    uint8_t addr[16]; /* IPv4 in the first 4 bytes */
    uint8_t family;   /* 4 or 6 */
} cel_ip;

typedef struct cel_url {
    /* Components as Go's url.URL splits them; each NUL-terminated. */
    const char *text, *scheme, *host, *hostname, *port, *path, *query;
    const char *userinfo, *fragment, *opaque;
} cel_url;

struct cel_object {
    cel_object_kind kind;
    /* a *Quantity, as add() and sub() make it (apiserver pkg/cel/library
     * quantity.go quantityAdd ...): Quantity.Equal (pkg/cel/quantity.go,
     * other.(Quantity)) refuses it as its argument, the == of
     * cel_value_equal_op fails with "no such overload" */
    bool by_pointer;
    union {
        dra_quantity quantity;
        dra_semver semver;
        cel_ip ip;
        struct {
            cel_ip ip;
            int prefix;
        } cidr;
        cel_url url;
        struct {
            int index;        /* into lib_format.c's table of named formats */
            const char *name; /* "dns1123Label", for printing */
        } format;
    } u;
};

/* ---- scratch memory ------------------------------------------------------
 * Evaluation memory: the project's arena (base/arena.h) under the names the
 * engine uses.  cel_scratch_reset() keeps the memory (the arena coalesces it
 * into one block sized to the last round), so a program evaluated again and
 * again stops calling malloc after its first evaluations.  Owned by whoever
 * declares it; cel_scratch_free() releases everything.  Never fails. */
typedef dra_arena cel_scratch;
#define CEL_SCRATCH_INIT DRA_ARENA_INIT
static inline void *cel_scratch_alloc(cel_scratch *s, size_t n)
{
    return dra_arena_alloc(s, n);
}
static inline void *cel_scratch_zalloc(cel_scratch *s, size_t n)
{
    return dra_arena_zalloc(s, n);
}
static inline char *cel_scratch_strndup(cel_scratch *s, const char *p, size_t n)
{
    return dra_arena_strndup(s, p, n);
}
char *cel_scratch_printf(cel_scratch *s, const char *fmt, ...) DRA_PRINTF(2, 3);
static inline void cel_scratch_reset(cel_scratch *s)
{
    dra_arena_reset(s);
}
static inline void cel_scratch_free(cel_scratch *s)
{
    dra_arena_free(s);
}
/* Bytes of heap memory held: tests use it to show repeated evaluations stopped growing. */
static inline size_t cel_scratch_capacity(const cel_scratch *s)
{
    return dra_arena_capacity(s);
}

/* ---- lists --------------------------------------------------------------- */

/* The items of a list built by cel_list_concat, made on first read. */
const cel_value *cel_list_flatten(const cel_list *l);
static inline const cel_value *cel_list_items(const cel_list *l)
{
    return l->items_ || !l->lhs ? l->items_ : cel_list_flatten(l);
}
/* a + b: a view of both (no copy) when they hold `CEL_LIST_VIEW_MIN` items
 * or more together, so that a list added to itself many times costs
 * memory in proportion to the additions, as in cel-go; else a copy.  The
 * view and, later, its items live in s. */
#define CEL_LIST_VIEW_MIN 32
cel_value cel_list_concat(cel_scratch *s, const cel_list *a, const cel_list *b);

/* ---- constructors (no allocation) --------------------------------------- */
static inline cel_value cel_null(void)
{
    cel_value v = {.kind = CEL_NULL};
    return v;
}
static inline cel_value cel_bool(bool b)
{
    cel_value v = {.kind = CEL_BOOL, .v.b = b};
    return v;
}
static inline cel_value cel_int(int64_t i)
{
    cel_value v = {.kind = CEL_INT, .v.i = i};
    return v;
}
static inline cel_value cel_uint(uint64_t u)
{
    cel_value v = {.kind = CEL_UINT, .v.u = u};
    return v;
}
static inline cel_value cel_double(double d)
{
    cel_value v = {.kind = CEL_DOUBLE, .v.d = d};
    return v;
}
/* Borrow p (not copied). */
static inline cel_value cel_string(const char *p, size_t n)
{
    cel_value v = {.kind = CEL_STRING};
    v.v.s.ptr = p;
    v.v.s.len = n;
    return v;
}
static inline cel_value cel_bytes(const void *p, size_t n)
{
    cel_value v = {.kind = CEL_BYTES};
    v.v.s.ptr = (const char *)p;
    v.v.s.len = n;
    return v;
}
static inline cel_value cel_typeval(const cel_type *t)
{
    cel_value v = {.kind = CEL_TYPE, .v.type = t};
    return v;
}
static inline cel_value cel_listval(const cel_list *l)
{
    cel_value v = {.kind = CEL_LIST, .v.list = l};
    return v;
}
static inline cel_value cel_mapval(const cel_map *m)
{
    cel_value v = {.kind = CEL_MAP, .v.map = m};
    return v;
}
static inline cel_value cel_objval(const cel_object *o)
{
    cel_value v = {.kind = CEL_OBJECT, .v.obj = o};
    return v;
}
/* Error value with a message that must outlive the value (a literal or scratch/arena text). */
static inline cel_value cel_error(const char *msg)
{
    cel_value v = {.kind = CEL_ERROR, .v.err = msg};
    return v;
}
/* The errors every library returns: "no such overload", and cel-go's
 * errIntOverflow and errUintOverflow. */
static inline cel_value cel_no_such_overload(void)
{
    return cel_error("no such overload");
}
static inline cel_value cel_int_overflow(void)
{
    return cel_error("integer overflow");
}
static inline cel_value cel_uint_overflow(void)
{
    return cel_error("unsigned integer overflow");
}
static inline cel_value cel_timestamp(int64_t sec, int32_t nsec)
{
    cel_value v = {.kind = CEL_TIMESTAMP};
    v.v.t.sec = sec;
    v.v.t.nsec = nsec;
    return v;
}
static inline cel_value cel_duration(int64_t sec, int32_t nsec)
{
    cel_value v = {.kind = CEL_DURATION};
    v.v.t.sec = sec;
    v.v.t.nsec = nsec;
    return v;
}
static inline cel_value cel_optional_none(void)
{
    cel_value v = {.kind = CEL_OPTIONAL, .v.opt = NULL};
    return v;
}
static inline bool cel_is_error(cel_value v)
{
    return v.kind == CEL_ERROR;
}

/* Empty list / map constants (static, shareable). */
extern const cel_list cel_empty_list;
extern const cel_map cel_empty_map;

/* ---- constructors that allocate (in a scratch or an arena) -------------- */
/* The *_s variants allocate in a cel_scratch, the *_a variants in a dra_arena. */
cel_value cel_string_copy_s(cel_scratch *s, const char *p, size_t n);
cel_value cel_string_copy_a(dra_arena *a, const char *p, size_t n);
cel_value cel_optional_of_s(cel_scratch *s, cel_value v);
cel_value cel_optional_of_a(dra_arena *a, cel_value v);
cel_value cel_errorf_s(cel_scratch *s, const char *fmt, ...) DRA_PRINTF(2, 3);
/* Lists: copy `n` items. */
cel_value cel_list_copy_s(cel_scratch *s, const cel_value *items, size_t n);
cel_value cel_list_copy_a(dra_arena *a, const cel_value *items, size_t n);
/* Maps: keys/vals copied; a later duplicate key replaces the earlier value
 * only if `replace_dups`, else the first one wins.  Builds the lookup index.
 * Keys must be int, uint, double, bool, string or null, or an IP or CIDR
 * (cel_map_key_object; not checked here); duplicates are cel_map_key_same. */
cel_value cel_map_build_s(cel_scratch *s, const cel_value *keys, const cel_value *vals, size_t n, unsigned flags);
cel_value cel_map_build_a(dra_arena *a, const cel_value *keys, const cel_value *vals, size_t n, unsigned flags);

/* Growing a list or map in place, for an accumulator the evaluator owns
 * (eval.c: cel-go's mutable comprehension results); nobody else may hold
 * the list or map while it grows.  `*cap` is the capacity the caller keeps
 * (0 for a new, empty {0} list or map); memory doubles in `s`, so building
 * n items costs O(n).  cel_map_insert_s returns false, changing nothing,
 * when the key is present (cel_map_find's key semantics). */
void cel_list_append_s(cel_scratch *s, cel_list *l, size_t *cap, const cel_value *items, size_t n);
bool cel_map_insert_s(cel_scratch *s, cel_map *m, size_t *cap, const cel_value *key, const cel_value *val);
/* Room for `extra` more items or entries without growing (memory taken now). */
void cel_list_reserve_s(cel_scratch *s, cel_list *l, size_t *cap, size_t extra);
void cel_map_reserve_s(cel_scratch *s, cel_map *m, size_t *cap, size_t extra);

/* ---- semantics ------------------------------------------------------------ */
/* CEL equality (cel-go types Equal): heterogeneous numeric equality (1 == 1u == 1.0),
 * NaN != NaN, lists/maps element-wise, different kinds are unequal. */
bool cel_value_equal(const cel_value *a, const cel_value *b);
/* The == operator (cel-go types.Equal, and the Kubernetes types' Equal in
 * apiserver pkg/cel): 1 equal, 0 not equal, -1 "no such overload" when a
 * Quantity, Semver, IP, CIDR, URL or format is compared with a value of
 * another type (null aside).  Lists and maps are equal unless some pair of
 * elements is plainly unequal: a pair whose comparison fails does not make
 * them unequal (list.go and map.go Equal test for False).  Not symmetric:
 * a is the receiver of Equal, so a Quantity made by add() or sub() fails
 * as b only (quantity("2") == quantity("1").add(1) fails, the reverse is
 * true).  `in`, indexOf and includes take the value that is true. */
int cel_value_equal_op(const cel_value *a, const cel_value *b);
/* Ordering: *out = -1/0/1.  Returns false when a and b are not comparable
 * (different non-numeric kinds, NaN, lists, ...). */
bool cel_value_compare(const cel_value *a, const cel_value *b, int *out);
/* Map lookup with cel-go's key semantics (map.go Find: the key itself, then
 * a double as a lossless int or uint, an int as a uint, a uint as an int).
 * Returns NULL when missing or when the key kind can never be a key. */
const cel_value *cel_map_find(const cel_map *m, const cel_value *key);
/* Map keys the way Go map keys of ref.Val are the same (cel-go builds map
 * literals as Go maps): same kind and ==, so 1, 1u and 1.0 are three keys. */
bool cel_map_key_same(const cel_value *a, const cel_value *b);
/* The Kubernetes objects that are map keys: an IP or a CIDR, which Go
 * compares by value (apiserver pkg/cel ip.go, cidr.go: structs of a
 * netip.Addr, a netip.Prefix; a prefix's address is not masked, so
 * cidr('10.0.0.1/8') and cidr('10.0.0.0/8') are two keys).  Indexing a map
 * by one fails as cel-go's does ("invalid qualifier type: cel.IP"); `in`,
 * equality and iteration take them. */
bool cel_map_key_object(const cel_value *k);
/* Convenience: lookup by a C string key. */
const cel_value *cel_map_find_str(const cel_map *m, const char *key, size_t len);

/* Runtime type of a value as a type value (int, uint, list, map, kubernetes.Quantity, ...). */
const cel_type *cel_value_type(const cel_value *v);
/* Type name for error texts ("int", "list", "map", "string", ...). */
const char *cel_value_type_name(const cel_value *v);

/* Code points, offsets, validity: dra_utf8_len/offset/valid in base/utf8.h. */

/* Print in CEL literal syntax, as the conformance suite and tests expect:
 * 1, 1u, 1.0, 1e+100, "s", b"\x00", [1, 2], {"k": 1}, null, true, int,
 * optional.of(1), optional.none(), timestamp("2023-01-01T00:00:00Z"),
 * duration("1.5s"), quantity("1Ki") ... ; errors print as error("msg"). */
void cel_value_format(const cel_value *v, dra_buf *b);
/* Timestamp / duration text as cel-go's String() prints them (RFC 3339 with
 * nanos trimmed; duration as seconds "1.5s"). */
void cel_timestamp_format(int64_t sec, int32_t nsec, dra_buf *b);
void cel_duration_format(int64_t sec, int32_t nsec, dra_buf *b);
/* cel-go's timestamp range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z,
 * in seconds since the epoch (types/timestamp.go minUnixTime, maxUnixTime). */
#define CEL_TS_MIN_SEC DRA_TIME_GO_ZERO_SEC
#define CEL_TS_MAX_SEC INT64_C(253402300799)
/* The timestamp parser of the literal validators: Go's
 * time.Parse(time.RFC3339) (model/time.h), then the range; false on a
 * malformed or out-of-range text. */
bool cel_timestamp_parse(const char *p, size_t n, int64_t *sec, int32_t *nsec);
/* timestamp(string) as cel-go converts: the timestamp, or the error
 * "timestamp overflow" past the range, a conversion error when malformed. */
cel_value cel_timestamp_of_string(const char *p, size_t n);

/* A scalar as Go's %v prints the ref.Val in cel-go's messages ("no such
 * key: %v", "insert failed: key %v already exists"): a string's text, a
 * number, true/false, 0 for null (types.Null is an integer), an IP or CIDR
 * as Go's netip prints it ("10.0.0.0/8"); other kinds as cel_value_format. */
void cel_value_go_v(const cel_value *v, dra_buf *b);

/* Double to text as cel-go's string(double) does (strconv 'g'-like shortest). */
void cel_double_format(double d, dra_buf *b);

#endif
