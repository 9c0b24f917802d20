/* Wall and monotonic clocks in seconds. */
#ifndef AT_CORE_CLOCK_H
#define AT_CORE_CLOCK_H

/* Seconds since the Unix epoch (Python's time.time(), for log timestamps). */
double at_clock_wall_s(void);

/* Monotonic seconds from an arbitrary origin (durations and timeouts). */
double at_clock_mono_s(void);

#endif
