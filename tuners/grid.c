/* GridSearchTuner: the valid indexes of [begin, end) in increasing order, so the first knob
 * changes fastest (TVM's get_next_index walk); indexes already reported are skipped. */
#include "core/alloc.h"
#include "tuners/internal.h"

typedef struct grid_tuner {
    const at_space *space;
    int64_t         begin, end, total;
    int64_t         next; /* next index to consider; end when done */
    at_tuner_idxset visited;
} grid_tuner;

static bool has_next(void *ctx)
{
    grid_tuner *g = ctx;
    return (int64_t)g->visited.n < g->total;
}

/* The first valid index >= i inside the range, or end. */
static int64_t valid_from(const grid_tuner *g, int64_t i)
{
    if (i >= g->end) return g->end;
    if (at_space_is_index_valid(g->space, i)) return i;
    int64_t nx;
    return at_space_next_index(g->space, i, 1, g->begin, g->end, &nx) ? nx : g->end;
}

static at_status next_batch(void *ctx, size_t n, int64_t *out, size_t *n_out)
{
    grid_tuner *g = ctx;
    size_t k = 0;
    while (k < n && has_next(g)) {
        int64_t idx = valid_from(g, g->next);
        AT_ASSERT(idx < g->end); /* has_next says a valid unvisited index is left */
        g->next = idx + 1;
        bool added;
        AT_TRY(at_tuner_idxset_add(&g->visited, idx, &added));
        if (added) out[k++] = idx;
    }
    *n_out = k;
    return AT_OK;
}

static at_status update(void *ctx, const int64_t *indices, const at_result *results, size_t n)
{
    grid_tuner *g = ctx;
    (void)results;
    for (size_t i = 0; i < n; i++) {
        int64_t idx = indices[i];
        if (idx >= g->begin && idx < g->end && at_space_is_index_valid(g->space, idx))
            AT_TRY(at_tuner_idxset_add(&g->visited, idx, NULL));
    }
    return AT_OK;
}

static void free_ctx(void *ctx)
{
    grid_tuner *g = ctx;
    if (!g) return;
    at_tuner_idxset_fini(&g->visited);
    at_free(g);
}

static const at_tuner_i grid_i = {
    .next_batch = next_batch, .update = update, .has_next = has_next, .free = free_ctx, .ahead = at_tuner_ahead_all};

at_status at_tuner_grid_new(const at_task *task, const at_tuner_opts *o, void **ctx, const at_tuner_i **vt)
{
    int64_t b, e;
    AT_TRY(at_tuner_range(task, o, &b, &e));
    grid_tuner *g = at_calloc(1, sizeof *g);
    if (!g) return AT_OOM();
    g->space = at_task_space(task);
    g->begin = b;
    g->end = e;
    g->next = b;
    g->total = at_space_subrange_len(g->space, b, e);
    at_tuner_idxset_init(&g->visited);
    *ctx = g;
    *vt = &grid_i;
    return AT_OK;
}
