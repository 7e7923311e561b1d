/* What the CEL front end accepts beyond the core grammar: the macro families
 * (cel_parse_limits.macros in parser.h is a bit set of these).  Shared by the
 * parser and macro expansion; no state, no ownership. */
#ifndef DRA_CEL_SYNTAX_H
#define DRA_CEL_SYNTAX_H

/* Macro families; cel_parse_limits.macros is a bit set of these. */
enum {
    CEL_MACROS_STANDARD = 1u << 0, /* has, all, exists, exists_one, map, filter */
    CEL_MACROS_TWO_VAR = 1u << 1,  /* all/exists/existsOne/transformList/transformMap/transformMapEntry with two vars */
    CEL_MACROS_BINDINGS = 1u << 2, /* cel.bind */
    CEL_MACROS_OPTIONAL = 1u << 3, /* optMap, optFlatMap */
    CEL_MACROS_SORT_BY = 1u << 4,  /* l.sortBy(e, key) (ext.Lists v2+) */
    CEL_MACROS_ALL = 0x1fu,        /* everything Kubernetes enables */
    CEL_MACROS_MATH = 1u << 5,     /* math.greatest, math.least (ext.Math; not in CEL_MACROS_ALL) */
};

#endif
