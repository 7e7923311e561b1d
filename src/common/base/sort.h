/* qsort for arrays that may be empty: qsort(NULL, 0, ...) is undefined
 * behaviour (the pointer must be valid even for zero elements), and empty
 * inputs are everyday here. */
#ifndef DRA_BASE_SORT_H
#define DRA_BASE_SORT_H

#include <stdlib.h>

static inline void dra_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

#endif
