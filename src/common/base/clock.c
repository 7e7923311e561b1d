/* The monotonic clock; see clock.h. */
#include "clock.h"

#include <time.h>

int64_t dra_mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int64_t dra_mono_ms(void)
{
    return dra_mono_ns() / 1000000;
}
