/* GATuner (TVM v0.18, spec §4.3): generations of pop_size knob vectors, elites kept across
 * generations, fitness-proportional parents, one-point crossover, per-knob mutation. Unlike
 * TVM no config is measured twice: a child whose index was measured (or is already in the
 * generation) is rejected like an invalid one, a batch never wraps around the generation, and
 * when children keep being rejected the generation is topped up with random unvisited
 * indexes, so the search always ends. */
#include <string.h>

#include "core/alloc.h"
#include "tuners/internal.h"

/* Rejected children allowed per member of a generation before random top-up. */
#define TRIES_PER_CHILD 64

typedef struct ga_tuner {
    const at_task  *task;
    const at_space *space;
    size_t          n_knobs;
    size_t          pop_size, elite_num;
    double          mutation_prob;
    int64_t         space_len;
    at_rng          rng;
    int64_t        *genes; /* this generation's indexes */
    size_t          n_genes, trial_pt;
    double         *scores; /* scores[i] of genes[i], for i < n_scores */
    size_t          n_scores;
    int64_t        *elites;
    double         *elite_scores;
    size_t          n_elites;
    at_tuner_idxset visited; /* measured or in the current generation */
    /* scratch for building a generation */
    int64_t        *pool;
    double         *pool_w;
    int64_t        *k1, *k2, *child;
    int64_t        *next;
    size_t         *order;
} ga_tuner;

static bool has_next(void *ctx)
{
    ga_tuner *g = ctx;
    return (int64_t)(g->visited.n - (g->n_genes - g->trial_pt)) < g->space_len;
}

static at_status next_batch(void *ctx, size_t n, int64_t *out, size_t *n_out)
{
    ga_tuner *g = ctx;
    size_t k = 0;
    while (k < n && g->trial_pt < g->n_genes) out[k++] = g->genes[g->trial_pt++];
    *n_out = k;
    return AT_OK;
}

/* Index of a weighted draw among w[0..n) (skipping `skip`, may be SIZE_MAX); total = their sum. */
static size_t draw(at_rng *rng, const double *w, size_t n, size_t skip, double total)
{
    double u = at_rng_uniform(rng) * total, acc = 0;
    size_t last = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (i == skip) continue;
        acc += w[i];
        last = i;
        if (u < acc) return i;
    }
    return last; /* rounding: the last eligible one */
}

/* New elites: the elite_num best of the pool (ties: earlier first), best first. */
static void pick_elites(ga_tuner *g, size_t n_pool)
{
    size_t *order = g->order;
    for (size_t i = 0; i < n_pool; i++) {
        size_t j = i;
        while (j > 0 && g->pool_w[order[j - 1]] < g->pool_w[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    g->n_elites = g->elite_num < n_pool ? g->elite_num : n_pool;
    for (size_t e = 0; e < g->n_elites; e++) { /* the pool holds copies, so overwriting is safe */
        g->elites[e] = g->pool[order[e]];
        g->elite_scores[e] = g->pool_w[order[e]];
    }
}

static at_status next_generation(ga_tuner *g)
{
    size_t n_next = 0;
    int64_t left = g->space_len - (int64_t)g->visited.n;
    if (left <= (int64_t)g->pop_size) {
        /* no reason to cross over: take every valid unvisited index, in increasing order */
        int64_t range = at_space_range_len(g->space);
        for (int64_t i = 0; i < range && n_next < g->pop_size; i++) {
            if (!at_space_is_index_valid(g->space, i) || at_tuner_idxset_has(&g->visited, i)) continue;
            AT_TRY(at_tuner_idxset_add(&g->visited, i, NULL));
            g->next[n_next++] = i;
        }
    } else {
        size_t n_pool = 0;
        for (size_t i = 0; i < g->n_genes; i++) {
            g->pool[n_pool] = g->genes[i];
            g->pool_w[n_pool++] = g->scores[i];
        }
        for (size_t i = 0; i < g->n_elites; i++) {
            g->pool[n_pool] = g->elites[i];
            g->pool_w[n_pool++] = g->elite_scores[i];
        }
        pick_elites(g, n_pool);
        double max = 0, total = 0;
        for (size_t i = 0; i < n_pool; i++) {
            g->pool_w[i] += 1e-8;
            if (g->pool_w[i] > max) max = g->pool_w[i];
        }
        for (size_t i = 0; i < n_pool; i++) total += (g->pool_w[i] /= max);
        size_t tries = 0;
        while (n_next < g->pop_size && tries < TRIES_PER_CHILD * g->pop_size) {
            tries++;
            size_t p1 = draw(&g->rng, g->pool_w, n_pool, SIZE_MAX, total);
            size_t p2 = n_pool > 1 ? draw(&g->rng, g->pool_w, n_pool, p1, total - g->pool_w[p1]) : p1;
            at_space_point_to_knobs(g->space, g->pool[p1], g->k1);
            at_space_point_to_knobs(g->space, g->pool[p2], g->k2);
            size_t point = (size_t)at_rng_below(&g->rng, g->n_knobs);
            for (size_t j = 0; j < g->n_knobs; j++) g->child[j] = j < point ? g->k1[j] : g->k2[j];
            for (size_t j = 0; j < g->n_knobs; j++)
                if (at_rng_uniform(&g->rng) < g->mutation_prob)
                    g->child[j] = (int64_t)at_rng_below(&g->rng, (uint64_t)at_space_dim(g->space, j));
            int64_t idx = at_space_knobs_to_point(g->space, g->child);
            if (!at_space_is_index_valid(g->space, idx) || at_tuner_idxset_has(&g->visited, idx)) continue;
            AT_TRY(at_tuner_idxset_add(&g->visited, idx, NULL));
            g->next[n_next++] = idx;
        }
        while (n_next < g->pop_size) { /* the population has converged: explore instead */
            int64_t idx;
            AT_TRY(at_space_rand_index(g->space, &g->rng, 0, 0, at_tuner_idxset_pred, &g->visited, &idx));
            AT_TRY(at_tuner_idxset_add(&g->visited, idx, NULL));
            g->next[n_next++] = idx;
        }
    }
    memcpy(g->genes, g->next, n_next * sizeof *g->genes);
    g->n_genes = n_next;
    g->trial_pt = 0;
    g->n_scores = 0;
    return AT_OK;
}

static at_status update(void *ctx, const int64_t *indices, const at_result *results, size_t n)
{
    ga_tuner *g = ctx;
    for (size_t i = 0; i < n; i++) {
        if (g->n_scores < g->trial_pt && indices[i] == g->genes[g->n_scores]) {
            g->scores[g->n_scores++] = at_tuner_result_flops(g->task, &results[i]);
        } else if (indices[i] >= 0 && indices[i] < at_space_range_len(g->space) &&
                   at_space_is_index_valid(g->space, indices[i])) {
            /* a result this tuner did not propose (a resumed log): never propose it again */
            AT_TRY(at_tuner_idxset_add(&g->visited, indices[i], NULL));
        }
    }
    if (g->n_scores >= g->n_genes && (int64_t)g->visited.n < g->space_len) return next_generation(g);
    return AT_OK;
}

size_t at_tuner_ga_elites(void *ctx, int64_t *out, double *scores)
{
    ga_tuner *g = ctx;
    memcpy(out, g->elites, g->n_elites * sizeof *out);
    memcpy(scores, g->elite_scores, g->n_elites * sizeof *scores);
    return g->n_elites;
}

static void free_ctx(void *ctx)
{
    ga_tuner *g = ctx;
    if (!g) return;
    at_free(g->genes);
    at_free(g->scores);
    at_free(g->elites);
    at_free(g->elite_scores);
    at_free(g->pool);
    at_free(g->pool_w);
    at_free(g->k1);
    at_free(g->k2);
    at_free(g->child);
    at_free(g->next);
    at_free(g->order);
    at_tuner_idxset_fini(&g->visited);
    at_free(g);
}

static const at_tuner_i ga_i = {.next_batch = next_batch, .update = update, .has_next = has_next, .free = free_ctx};

at_status at_tuner_ga_new(const at_task *task, const at_tuner_opts *o, void **ctx, const at_tuner_i **vt)
{
    ga_tuner *g = at_calloc(1, sizeof *g);
    if (!g) return AT_OOM();
    g->task = task;
    g->space = at_task_space(task);
    g->n_knobs = at_space_n_knobs(g->space);
    g->space_len = at_space_len(g->space);
    g->pop_size = o->pop_size ? o->pop_size : 100;
    if ((int64_t)g->pop_size > g->space_len) g->pop_size = (size_t)g->space_len;
    g->elite_num = o->elite_num ? o->elite_num : 3;
    if (g->elite_num > g->pop_size) g->elite_num = g->pop_size;
    g->mutation_prob = o->mutation_prob == 0 ? 0.1 : o->mutation_prob < 0 ? 0 : o->mutation_prob;
    at_rng_seed(&g->rng, o->seed);
    at_tuner_idxset_init(&g->visited);
    size_t pool = g->pop_size + g->elite_num, nk = g->n_knobs ? g->n_knobs : 1;
    g->genes = at_malloc(g->pop_size * sizeof *g->genes);
    g->scores = at_malloc(g->pop_size * sizeof *g->scores);
    g->elites = at_malloc((g->elite_num ? g->elite_num : 1) * sizeof *g->elites);
    g->elite_scores = at_malloc((g->elite_num ? g->elite_num : 1) * sizeof *g->elite_scores);
    g->pool = at_malloc(pool * sizeof *g->pool);
    g->pool_w = at_malloc(pool * sizeof *g->pool_w);
    g->k1 = at_malloc(nk * sizeof *g->k1);
    g->k2 = at_malloc(nk * sizeof *g->k2);
    g->child = at_malloc(nk * sizeof *g->child);
    g->next = at_malloc(pool * sizeof *g->next);
    g->order = at_malloc(pool * sizeof *g->order);
    at_status st = AT_OK;
    if (!g->genes || !g->scores || !g->elites || !g->elite_scores || !g->pool || !g->pool_w || !g->k1 || !g->k2 ||
        !g->child || !g->next || !g->order)
        st = AT_OOM();
    if (st == AT_OK) st = at_space_sample_ints(g->space, &g->rng, g->pop_size, g->genes);
    for (size_t i = 0; st == AT_OK && i < g->pop_size; i++) st = at_tuner_idxset_add(&g->visited, g->genes[i], NULL);
    if (st != AT_OK) {
        free_ctx(g);
        return st;
    }
    g->n_genes = g->pop_size;
    *ctx = g;
    *vt = &ga_i;
    return AT_OK;
}
