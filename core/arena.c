/* Arena: a list of blocks; large requests get a block of their own so waste stays bounded. */
#include "core/arena.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "core/alloc.h"

typedef struct block {
    struct block *next;
    size_t        cap, used;
    alignas(max_align_t) unsigned char data[];
} block;

struct at_arena {
    block *head;
    size_t block_size;
    size_t used_total;
};

at_status at_arena_new(size_t block_size, at_arena **out)
{
    *out = NULL;
    at_arena *a = at_calloc(1, sizeof *a);
    if (!a) return AT_OOM();
    a->block_size = block_size ? block_size : 64 * 1024;
    *out = a;
    return AT_OK;
}

void at_arena_free(at_arena *a)
{
    if (!a) return;
    for (block *b = a->head; b;) {
        block *next = b->next;
        at_free(b);
        b = next;
    }
    at_free(a);
}

void *at_arena_alloc(at_arena *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (n == 0) n = align;
    block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > a->block_size ? n : a->block_size;
        block *nb = at_malloc(sizeof *nb + cap);
        if (!nb) return NULL;
        nb->cap = cap;
        nb->used = 0;
        if (b && n > a->block_size) {
            /* keep the partly used head block current for small requests */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
        }
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->used_total += n;
    memset(p, 0, n);
    return p;
}

char *at_arena_strdup(at_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = at_arena_alloc(a, n);
    if (d) memcpy(d, s, n);
    return d;
}

size_t at_arena_used(const at_arena *a)
{
    return a->used_total;
}
