/* Heap allocation wrappers: every heap block of the project goes through these, so tests can
 * count live blocks and make the Nth allocation fail (curl's torture mode). */
#ifndef AT_CORE_ALLOC_H
#define AT_CORE_ALLOC_H

#include <stddef.h>

/* malloc/calloc/realloc/free with counting; NULL on failure (nothing is recorded as an error:
 * the caller decides whether that is AT_ENOMEM). at_realloc(p, 0) is a bug (AT_ASSERT).
 * at_free(NULL) does nothing. */
void *at_malloc(size_t n);
void *at_calloc(size_t count, size_t size);
void *at_realloc(void *p, size_t n);
void  at_free(void *p);

/* Copies of a string (of its first n bytes, NUL-terminated); NULL on allocation failure. */
char *at_strdup(const char *s);
char *at_strndup(const char *s, size_t n);

/* Number of blocks allocated and not yet freed, process-wide. */
long at_alloc_live(void);

/* Number of successful allocations since start (to size a fail-at-every-N loop). */
long at_alloc_total(void);

/* Makes the allocation n calls from now fail (0 = the next one) and every later one succeed;
 * n < 0 turns failure injection off. For tests. */
void at_alloc_fail_after(long n);

#endif
