/* Counting allocator: atomics keep the counts right when builders allocate from several threads. */
#include "core/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

static atomic_long live_blocks;
static atomic_long total_blocks;
static atomic_long fail_countdown = -1;

static int should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    while (c >= 0) {
        if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1)) return c == 0;
    }
    return 0;
}

void *at_malloc(size_t n)
{
    if (should_fail()) return NULL;
    void *p = malloc(n ? n : 1);
    if (p) {
        atomic_fetch_add(&live_blocks, 1);
        atomic_fetch_add(&total_blocks, 1);
    }
    return p;
}

void *at_calloc(size_t count, size_t size)
{
    if (should_fail()) return NULL;
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p) {
        atomic_fetch_add(&live_blocks, 1);
        atomic_fetch_add(&total_blocks, 1);
    }
    return p;
}

void *at_realloc(void *p, size_t n)
{
    AT_ASSERT(n > 0);
    if (!p) return at_malloc(n);
    if (should_fail()) return NULL;
    return realloc(p, n);
}

void at_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub(&live_blocks, 1);
    free(p);
}

char *at_strndup(const char *s, size_t n)
{
    char *d = at_malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *at_strdup(const char *s)
{
    return at_strndup(s, strlen(s));
}

long at_alloc_live(void)
{
    return atomic_load(&live_blocks);
}

long at_alloc_total(void)
{
    return atomic_load(&total_blocks);
}

void at_alloc_fail_after(long n)
{
    atomic_store(&fail_countdown, n < 0 ? -1 : n);
}
