/* RandomTuner: uniform draws without replacement over the valid indexes of [begin, end)
 * (TVM's get_rand_index with to_exclude=visited), from the tuner's own seeded rng. */
#include "core/alloc.h"
#include "tuners/internal.h"

typedef struct random_tuner {
    const at_space *space;
    int64_t         begin, end, total; /* total = valid indexes in [begin, end) */
    at_tuner_idxset visited;
    at_rng          rng;
} random_tuner;

static bool has_next(void *ctx)
{
    random_tuner *r = ctx;
    return (int64_t)r->visited.n < r->total;
}

static at_status next_batch(void *ctx, size_t n, int64_t *out, size_t *n_out)
{
    random_tuner *r = ctx;
    size_t k = 0;
    while (k < n && has_next(r)) {
        int64_t idx;
        at_status st =
            at_space_rand_index(r->space, &r->rng, r->begin, r->end, at_tuner_idxset_pred, &r->visited, &idx);
        AT_ASSERT(st != AT_ENOTFOUND); /* has_next says an unvisited valid index exists */
        if (st != AT_OK) return st;
        AT_TRY(at_tuner_idxset_add(&r->visited, idx, NULL));
        out[k++] = idx;
    }
    *n_out = k;
    return AT_OK;
}

/* Indexes reported but not proposed here (a resumed log) count as visited too. */
static at_status update(void *ctx, const int64_t *indices, const at_result *results, size_t n)
{
    random_tuner *r = ctx;
    (void)results;
    for (size_t i = 0; i < n; i++) {
        int64_t idx = indices[i];
        if (idx >= r->begin && idx < r->end && at_space_is_index_valid(r->space, idx))
            AT_TRY(at_tuner_idxset_add(&r->visited, idx, NULL));
    }
    return AT_OK;
}

static void free_ctx(void *ctx)
{
    random_tuner *r = ctx;
    if (!r) return;
    at_tuner_idxset_fini(&r->visited);
    at_free(r);
}

static const at_tuner_i random_i = {
    .next_batch = next_batch, .update = update, .has_next = has_next, .free = free_ctx, .ahead = at_tuner_ahead_all};

at_status at_tuner_random_new(const at_task *task, const at_tuner_opts *o, void **ctx, const at_tuner_i **vt)
{
    int64_t b, e;
    AT_TRY(at_tuner_range(task, o, &b, &e));
    random_tuner *r = at_calloc(1, sizeof *r);
    if (!r) return AT_OOM();
    r->space = at_task_space(task);
    r->begin = b;
    r->end = e;
    r->total = at_space_subrange_len(r->space, b, e);
    at_tuner_idxset_init(&r->visited);
    at_rng_seed(&r->rng, o->seed);
    *ctx = r;
    *vt = &random_i;
    return AT_OK;
}
