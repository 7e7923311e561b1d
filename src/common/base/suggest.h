/* "Did you mean": the words nearest a mistyped one, weighed as git weighs
 * a mistyped command (help.c: levenshtein with swap 0, substitution 2,
 * insertion 1, deletion 3; a word the typed one begins is nearest of all;
 * nothing further than 5 is suggested). */
#ifndef DRA_BASE_SUGGEST_H
#define DRA_BASE_SUGGEST_H

#include <stddef.h>

/* The cost of turning typed into word (the weights above). */
size_t dra_suggest_distance(const char *typed, const char *word);

/* The candidates (n of them; NULL entries are skipped) nearest typed, in
 * their order, joined as `"a"`, `"a" or "b"`, `"a", "b" or "c"`; NULL when
 * none is near enough, or typed is one of them.  Caller frees. */
char *dra_suggest(const char *typed, const char *const *cands, size_t n);

#endif
