/* SimulatedAnnealingOptimizer (TVM v0.18, spec §4.7): parallel chains of random walks over the
 * space scored by the cost model, Metropolis acceptance under linear cooling, a bounded
 * min-heap of the best points never in `exclusive`, early stop once the heap has not changed
 * for early_stop iterations, chains kept for the next call (persistent).
 *
 * A space no larger than parallel_size x (early_stop + 1) indexes is scored whole instead: the
 * annealing scores at least that many points before its early stop can end it, so the exact
 * maximums cost no more than an approximation of them (resnet-18's x86 conv spaces hold 308-1024
 * configs; the default chains would score 6,528 or more). */
#include <math.h>
#include <string.h>

#include "core/alloc.h"
#include "tuners/internal.h"

struct at_tuner_sa {
    const at_space  *space;
    at_tuner_sa_opts o;
    int64_t         *points; /* persistent chains (n_points of them), NULL before the first call */
    size_t           n_points;
};

typedef struct heap_item {
    double  score;
    int64_t index; /* < 0: placeholder */
} heap_item;

at_status at_tuner_sa_new(const at_space *space, const at_tuner_sa_opts *o, at_tuner_sa **out)
{
    *out = NULL;
    at_tuner_sa *sa = at_calloc(1, sizeof *sa);
    if (!sa) return AT_OOM();
    sa->space = space;
    sa->o = *o;
    int64_t len = at_space_len(space);
    if ((int64_t)sa->o.parallel_size > len) sa->o.parallel_size = (size_t)len;
    if (sa->o.early_stop == 0) sa->o.early_stop = (size_t)1e9;
    *out = sa;
    return AT_OK;
}

void at_tuner_sa_free(at_tuner_sa *sa)
{
    if (!sa) return;
    at_free(sa->points);
    at_free(sa);
}

/* Min-heap on score (the root is the worst kept item). */
static void sift_down(heap_item *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && h[l].score < h[m].score) m = l;
        if (r < n && h[r].score < h[m].score) m = r;
        if (m == i) return;
        heap_item t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

typedef struct offer_state {
    heap_item             *heap;
    size_t                 num;
    at_tuner_idxset        in_heap;
    const at_tuner_idxset *exclusive;
} offer_state;

/* heapreplace when the point beats the worst kept one and is neither excluded nor kept. */
static at_status offer(offer_state *s, int64_t p, double score, bool *changed)
{
    if (!(score > s->heap[0].score)) return AT_OK;
    if ((s->exclusive && at_tuner_idxset_has(s->exclusive, p)) || at_tuner_idxset_has(&s->in_heap, p)) return AT_OK;
    AT_TRY(at_tuner_idxset_add(&s->in_heap, p, NULL));
    if (s->heap[0].index >= 0) at_tuner_idxset_remove(&s->in_heap, s->heap[0].index);
    s->heap[0] = (heap_item){score, p};
    sift_down(s->heap, s->num, 0);
    *changed = true;
    return AT_OK;
}

/* find_maximums over every valid index not in exclusive: best first (ties: by index), scores
 * >= 0 only, as the annealing's result. */
static at_status exhaustive(const at_tuner_sa *sa, at_tuner_score_fn score, void *ctx, size_t num,
                            const at_tuner_idxset *exclusive, int64_t *out, size_t *n_out)
{
    int64_t len = at_space_range_len(sa->space);
    int64_t *xs = at_malloc((size_t)len * sizeof *xs);
    double *scores = at_malloc((size_t)len * sizeof *scores);
    heap_item *heap = at_malloc(num * sizeof *heap);
    at_status st = xs && scores && heap ? AT_OK : AT_OOM();
    size_t n = 0;
    for (int64_t i = 0; st == AT_OK && i < len; i++)
        if (at_space_is_index_valid(sa->space, i) && !(exclusive && at_tuner_idxset_has(exclusive, i))) xs[n++] = i;
    if (st == AT_OK && n) st = score(ctx, xs, n, scores);
    size_t kept = 0;
    for (size_t i = 0; st == AT_OK && i < n; i++) { /* insertion into the best num, best first */
        if (!(scores[i] >= 0)) continue;
        if (kept == num && !(scores[i] > heap[kept - 1].score)) continue;
        size_t j = kept < num ? kept++ : kept - 1;
        while (j > 0 && heap[j - 1].score < scores[i]) {
            heap[j] = heap[j - 1];
            j--;
        }
        heap[j] = (heap_item){scores[i], xs[i]};
    }
    for (size_t i = 0; st == AT_OK && i < kept; i++) out[i] = heap[i].index;
    *n_out = st == AT_OK ? kept : 0;
    at_free(xs);
    at_free(scores);
    at_free(heap);
    return st;
}

at_status at_tuner_sa_find_maximums(at_tuner_sa *sa, at_tuner_score_fn score, void *ctx, size_t num,
                                    const at_tuner_idxset *exclusive, at_rng *rng, int64_t *out, size_t *n_out)
{
    *n_out = 0;
    if (num == 0) return AT_OK;
    if (at_space_range_len(sa->space) <= (int64_t)(sa->o.parallel_size * (sa->o.early_stop + 1)))
        return exhaustive(sa, score, ctx, num, exclusive, out, n_out);
    size_t np = sa->o.parallel_size;
    if (num == 0 || np == 0) return AT_OK;
    offer_state s = {.num = num, .exclusive = exclusive};
    at_tuner_idxset_init(&s.in_heap);
    s.heap = at_malloc(num * sizeof *s.heap);
    int64_t *points = at_malloc(np * sizeof *points), *next = at_malloc(np * sizeof *next);
    double *scores = at_malloc(np * sizeof *scores), *next_scores = at_malloc(np * sizeof *next_scores);
    at_status st = s.heap && points && next && scores && next_scores ? AT_OK : AT_OOM();
    if (st != AT_OK) goto done;
    for (size_t i = 0; i < num; i++) s.heap[i] = (heap_item){-INFINITY, -1 - (int64_t)i};

    if (sa->o.persistent && sa->points && sa->n_points == np)
        memcpy(points, sa->points, np * sizeof *points);
    else
        st = at_space_sample_ints(sa->space, rng, np, points);
    if (st == AT_OK) st = score(ctx, points, np, scores);
    bool changed = false;
    for (size_t i = 0; st == AT_OK && i < np; i++) st = offer(&s, points[i], scores[i], &changed);

    double t = sa->o.temp_hi, cool = (sa->o.temp_hi - sa->o.temp_lo) / (double)(sa->o.n_iter + 1);
    size_t k = 0, k_last_modify = 0;
    while (st == AT_OK && k < sa->o.n_iter && k < k_last_modify + sa->o.early_stop) {
        for (size_t i = 0; st == AT_OK && i < np; i++) {
            st = at_space_random_walk(sa->space, rng, points[i], &next[i]);
            if (st == AT_ENOTFOUND) { /* a one-point space: nowhere to walk */
                next[i] = points[i];
                st = AT_OK;
            }
        }
        if (st == AT_OK) st = score(ctx, next, np, next_scores);
        for (size_t i = 0; st == AT_OK && i < np; i++) {
            double d = (next_scores[i] - scores[i]) / (t + 1e-5);
            double prob = exp(d < 1 ? d : 1);
            if (at_rng_uniform(rng) < prob) {
                points[i] = next[i];
                scores[i] = next_scores[i];
            }
        }
        for (size_t i = 0; st == AT_OK && i < np; i++) {
            changed = false;
            st = offer(&s, next[i], next_scores[i], &changed);
            if (changed) k_last_modify = k;
        }
        k++;
        t -= cool;
    }
    if (st != AT_OK) goto done;

    /* best first (ties: by index, for determinism); placeholders and negative scores dropped */
    for (size_t i = 1; i < num; i++) {
        heap_item x = s.heap[i];
        size_t j = i;
        while (j > 0 && (s.heap[j - 1].score < x.score ||
                         (s.heap[j - 1].score == x.score && s.heap[j - 1].index > x.index))) {
            s.heap[j] = s.heap[j - 1];
            j--;
        }
        s.heap[j] = x;
    }
    size_t n = 0;
    for (size_t i = 0; i < num; i++)
        if (s.heap[i].index >= 0 && s.heap[i].score >= 0) out[n++] = s.heap[i].index;
    if (sa->o.persistent) {
        if (!sa->points) {
            sa->points = at_malloc(np * sizeof *sa->points);
            if (!sa->points) {
                st = AT_OOM();
                goto done;
            }
        }
        memcpy(sa->points, points, np * sizeof *points);
        sa->n_points = np;
    }
    *n_out = n;
done:
    at_tuner_idxset_fini(&s.in_heap);
    at_free(s.heap);
    at_free(points);
    at_free(next);
    at_free(scores);
    at_free(next_scores);
    return st;
}
