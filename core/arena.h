/* Bump allocator for data that dies together (one (task, config) instantiation's IR). */
#ifndef AT_CORE_ARENA_H
#define AT_CORE_ARENA_H

#include <stddef.h>

#include "core/status.h"

typedef struct at_arena at_arena;

/* New empty arena; block_size 0 means 64 KiB. Returns AT_OK or AT_ENOMEM; *out owned by the
 * caller (at_arena_free). */
at_status at_arena_new(size_t block_size, at_arena **out);

/* Frees every block of the arena; NULL does nothing. */
void at_arena_free(at_arena *a);

/* n bytes aligned for any object, zeroed, valid until at_arena_free; NULL when out of memory. */
void *at_arena_alloc(at_arena *a, size_t n);

/* Copy of s in the arena; NULL when out of memory. */
char *at_arena_strdup(at_arena *a, const char *s);

/* Bytes handed out so far (for statistics). */
size_t at_arena_used(const at_arena *a);

#endif
