/* Clocks: CLOCK_REALTIME for log timestamps, CLOCK_MONOTONIC for everything measured. */
#include "core/clock.h"

#include <time.h>

static double read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double at_clock_wall_s(void)
{
    return read_clock(CLOCK_REALTIME);
}

double at_clock_mono_s(void)
{
    return read_clock(CLOCK_MONOTONIC);
}
