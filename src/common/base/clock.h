/* The monotonic clock, for timeouts, backoff and durations (never for
 * timestamps people read: those are model/time.h). */
#ifndef DRA_BASE_CLOCK_H
#define DRA_BASE_CLOCK_H

#include <stdint.h>

int64_t dra_mono_ns(void);
int64_t dra_mono_ms(void);

#endif
