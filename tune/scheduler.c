/* The gradient task scheduler's arithmetic (TVM's TaskScheduler, task_scheduler.py v0.18). State
 * per task is what TVM keeps (rounds, the round of the best, the best-cost history, the similarity
 * group); the objective is a min over each node's implementations, so a task that is no node's
 * best gets only the share of the finite difference its latency is within delta of. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "tune/scheduler.h"

/* TVM's finite-difference step of the chain-rule term, in seconds */
#define CHAIN_DELTA 1e-4
/* TVM's derive_similarity_tag log base */
#define SIMILARITY_LOG_BASE 1.618
/* A latency at or above this counts as unknown in the table (TVM's 1e9 tests) */
#define SHOWN_BELOW 1e9

typedef struct task_state {
    double  flop;
    char   *kind;        /* similarity kind (owned); NULL: similar to none */
    long    flop_class;  /* int(log_1.618(flop + 1)): with kind, TVM's similarity tag */
    bool    apart;       /* taken out of its similarity group */
    size_t  trials;
    size_t  rounds;      /* TVM's task_cts */
    size_t  best_rounds; /* TVM's task_best_cts */
    double  best;        /* seconds; AT_TUNE_SCHED_NO_COST until a success */
    double *hist;        /* best after each round (TVM's task_costs_history) */
    size_t  n_hist, cap_hist;
    bool    dead;
    size_t  weight;      /* nodes it implements */
} task_state;

typedef struct node_set {
    size_t *tasks; /* sorted */
    size_t  n;
    size_t  weight;
} node_set;

struct at_tune_sched {
    size_t      n, round, total_trials;
    double      alpha, beta, epsilon;
    size_t      window, early;
    at_rng      rng;
    task_state *t;
    node_set   *sets;
    size_t      n_sets, cap_sets;
    size_t      ct; /* trials so far */
    double     *grad; /* n scratch */
};

at_status at_tune_sched_new(const at_tune_sched_opts *o, size_t n_tasks, at_tune_sched **out)
{
    AT_ASSERT(o && out);
    *out = NULL;
    if (n_tasks == 0) return AT_FAIL(AT_EINVAL, "the task scheduler needs at least one task");
    size_t k = o->trials_per_round ? o->trials_per_round : 64;
    if (o->total_trials / n_tasks == 0)
        return AT_FAIL(AT_EINVAL, "%zu total trials are too few for %zu tasks: at least %zu (one warm-up trial each)",
                       o->total_trials, n_tasks, n_tasks);
    if (!(o->epsilon >= 0 && o->epsilon <= 1)) return AT_FAIL(AT_EINVAL, "epsilon must be in [0, 1], got %g", o->epsilon);
    if (!(o->alpha >= 0 && o->alpha <= 1)) return AT_FAIL(AT_EINVAL, "alpha must be in [0, 1], got %g", o->alpha);
    if (!(o->beta >= 0)) return AT_FAIL(AT_EINVAL, "beta must be positive, got %g", o->beta);
    at_tune_sched *s = at_calloc(1, sizeof *s);
    if (!s) return AT_OOM();
    s->t = at_calloc(n_tasks, sizeof *s->t);
    s->grad = at_calloc(n_tasks, sizeof *s->grad);
    if (!s->t || !s->grad) {
        at_tune_sched_free(s);
        return AT_OOM();
    }
    s->n = n_tasks;
    s->total_trials = o->total_trials;
    s->round = k < o->total_trials / n_tasks ? k : o->total_trials / n_tasks;
    s->alpha = o->alpha ? o->alpha : 0.2;
    s->beta = o->beta ? o->beta : 2;
    s->window = o->backward_window ? o->backward_window : 3;
    s->early = o->early_stopping;
    s->epsilon = o->epsilon;
    at_rng_seed(&s->rng, o->seed);
    for (size_t i = 0; i < n_tasks; i++) s->t[i] = (task_state){.best = AT_TUNE_SCHED_NO_COST};
    *out = s;
    return AT_OK;
}

void at_tune_sched_free(at_tune_sched *s)
{
    if (!s) return;
    for (size_t i = 0; s->t && i < s->n; i++) {
        at_free(s->t[i].kind);
        at_free(s->t[i].hist);
    }
    for (size_t i = 0; i < s->n_sets; i++) at_free(s->sets[i].tasks);
    at_free(s->sets);
    at_free(s->t);
    at_free(s->grad);
    at_free(s);
}

at_status at_tune_sched_set_task(at_tune_sched *s, size_t i, double flop, const char *kind)
{
    AT_ASSERT(s && i < s->n);
    char *k = NULL;
    if (kind && !(k = at_strdup(kind))) return AT_OOM();
    at_free(s->t[i].kind);
    s->t[i].kind = k;
    s->t[i].flop = flop;
    s->t[i].flop_class = (long)(log(flop + 1) / log(SIMILARITY_LOG_BASE));
    return AT_OK;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

at_status at_tune_sched_add_node(at_tune_sched *s, const size_t *tasks, size_t n)
{
    AT_ASSERT(s);
    if (n == 0) return AT_FAIL(AT_EINVAL, "a node needs at least one implementation");
    size_t *v = at_malloc(n * sizeof *v);
    if (!v) return AT_OOM();
    memcpy(v, tasks, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_size);
    for (size_t j = 0; j < n; j++) {
        if (v[j] >= s->n || (j && v[j] == v[j - 1])) {
            at_free(v);
            return AT_FAIL(AT_EINVAL, "a node's implementations must be distinct task ids below %zu", s->n);
        }
    }
    for (size_t g = 0; g < s->n_sets; g++) {
        if (s->sets[g].n == n && !memcmp(s->sets[g].tasks, v, n * sizeof *v)) {
            s->sets[g].weight++;
            for (size_t j = 0; j < n; j++) s->t[v[j]].weight++;
            at_free(v);
            return AT_OK;
        }
    }
    if (s->n_sets == s->cap_sets) {
        size_t c = s->cap_sets ? 2 * s->cap_sets : 16;
        node_set *p = at_realloc(s->sets, c * sizeof *p);
        if (!p) {
            at_free(v);
            return AT_OOM();
        }
        s->sets = p;
        s->cap_sets = c;
    }
    s->sets[s->n_sets++] = (node_set){v, n, 1};
    for (size_t j = 0; j < n; j++) s->t[v[j]].weight++;
    return AT_OK;
}

static at_status push_hist(task_state *t)
{
    if (t->n_hist == t->cap_hist) {
        size_t c = t->cap_hist ? 2 * t->cap_hist : 8;
        double *p = at_realloc(t->hist, c * sizeof *p);
        if (!p) return AT_OOM();
        t->hist = p;
        t->cap_hist = c;
    }
    t->hist[t->n_hist++] = t->best;
    return AT_OK;
}

void at_tune_sched_restore(at_tune_sched *s, size_t i, size_t n_trials, size_t n_at_best, double best_cost_s)
{
    AT_ASSERT(s && i < s->n && n_at_best <= n_trials);
    task_state *t = &s->t[i];
    t->trials = n_trials;
    s->ct += n_trials;
    t->best = best_cost_s;
    if (s->early && n_trials - n_at_best > s->early) t->dead = true;
    /* TVM's estimate of the rounds behind the records: round half up */
    t->rounds = (size_t)((double)n_trials / (double)s->round + 0.5);
    t->best_rounds = (size_t)((double)n_at_best / (double)s->round + 0.5);
    if (push_hist(t) != AT_OK) t->n_hist = 0; /* no history: the backward slope stays 0 */
}

/* The objective with task `i`'s latency replaced by v (i = SIZE_MAX: none replaced). */
static double score_with(const at_tune_sched *s, size_t i, double v)
{
    double sum = 0;
    if (s->n_sets == 0) {
        for (size_t j = 0; j < s->n; j++) sum += j == i ? v : s->t[j].best;
        return sum;
    }
    for (size_t g = 0; g < s->n_sets; g++) {
        const node_set *ns = &s->sets[g];
        double m = INFINITY;
        for (size_t j = 0; j < ns->n; j++) {
            double c = ns->tasks[j] == i ? v : s->t[ns->tasks[j]].best;
            if (c < m) m = c;
        }
        sum += (double)ns->weight * m;
    }
    return sum;
}

double at_tune_sched_score(const at_tune_sched *s)
{
    return score_with(s, SIZE_MAX, 0);
}

/* Are tasks i and j (i != j allowed) in one similarity group (TVM's equal tags)? */
static bool similar(const at_tune_sched *s, size_t i, size_t j)
{
    const task_state *a = &s->t[i], *b = &s->t[j];
    return a->kind && b->kind && !a->apart && !b->apart && a->flop_class == b->flop_class && !strcmp(a->kind, b->kind);
}

/* Members of task i's similarity group (0 when it has none). */
static size_t group_size(const at_tune_sched *s, size_t i)
{
    size_t n = 0;
    for (size_t j = 0; j < s->n; j++) n += similar(s, i, j);
    return n;
}

static double group_best_flops(const at_tune_sched *s, size_t i)
{
    double best = 0;
    for (size_t j = 0; j < s->n; j++)
        if (similar(s, i, j) && s->t[j].flop / s->t[j].best > best) best = s->t[j].flop / s->t[j].best;
    return best;
}

static double gradient(const at_tune_sched *s, size_t i)
{
    const task_state *t = &s->t[i];
    if (t->dead || t->rounds == 0) return 0;
    double chain = (score_with(s, SIZE_MAX, 0) - score_with(s, i, t->best - CHAIN_DELTA)) / CHAIN_DELTA;
    /* the slope over the last window rounds, when the history reaches back that far */
    double backward = 0;
    if (t->rounds - 1 < t->n_hist && t->rounds - 1 >= s->window)
        backward = (t->hist[t->rounds - 1] - t->hist[t->rounds - 1 - s->window]) / (double)s->window;
    double next1 = t->best - t->best / (double)t->rounds;
    double next2 = s->beta * 1e30;
    if (group_size(s, i) > 1) next2 = s->beta * t->flop / group_best_flops(s, i);
    double forward = (next1 < next2 ? next1 : next2) - t->best;
    return chain * (s->alpha * backward + (1 - s->alpha) * forward);
}

void at_tune_sched_gradients(const at_tune_sched *s, double *g)
{
    for (size_t i = 0; i < s->n; i++) g[i] = gradient(s, i);
}

static size_t random_live(at_tune_sched *s, size_t n_live)
{
    size_t k = (size_t)at_rng_below(&s->rng, n_live);
    for (size_t i = 0; i < s->n; i++)
        if (!s->t[i].dead && k-- == 0) return i;
    AT_ASSERT(0);
    return 0;
}

/* The next task (TVM's gradient strategy); SIZE_MAX when every task is dropped. */
static size_t choose(at_tune_sched *s)
{
    size_t n_live = 0;
    for (size_t i = 0; i < s->n; i++) n_live += !s->t[i].dead;
    if (n_live == 0) return SIZE_MAX;
    if (s->epsilon > 0 && at_rng_uniform(&s->rng) < s->epsilon) return random_live(s, n_live);
    at_tune_sched_gradients(s, s->grad);
    size_t arg = 0;
    double lo = s->grad[0], hi = s->grad[0];
    for (size_t i = 1; i < s->n; i++) {
        if (s->grad[i] < lo) {
            lo = s->grad[i];
            arg = i;
        }
        if (s->grad[i] > hi) hi = s->grad[i];
    }
    /* no information to tell tasks apart: TVM draws (from every task; we only from live ones) */
    if (lo == hi) return random_live(s, n_live);
    return arg;
}

/* TVM's _adjust_similarity_group: a task tuned far more often than the rest of its group that
 * still runs far slower is not similar to them after all. */
static void adjust_similarity(at_tune_sched *s, size_t i)
{
    if (group_size(s, i) <= 1) return;
    double cur = s->t[i].flop / s->t[i].best;
    size_t most = 0;
    for (size_t j = 0; j < s->n; j++)
        if (j != i && similar(s, i, j) && s->t[j].rounds > most) most = s->t[j].rounds;
    if (cur < group_best_flops(s, i) / s->beta && s->t[i].rounds > 5 + most) s->t[i].apart = true;
}

static at_status tune_round(at_tune_sched *s, const at_tune_sched_hooks *h, size_t i)
{
    if (h->on_table) h->on_table(h->user, s, i);
    size_t left = s->total_trials - s->ct;
    at_tune_sched_round r = {.best_cost_s = AT_TUNE_SCHED_NO_COST};
    AT_TRY(h->round(h->user, i, s->round < left ? s->round : left, &r));
    task_state *t = &s->t[i];
    t->rounds++;
    if (r.best_cost_s < t->best) {
        t->best_rounds = t->rounds;
        t->best = r.best_cost_s;
    }
    size_t no_change = (t->rounds - t->best_rounds) * s->round;
    if (r.n_trials == 0 || r.exhausted || (s->early && no_change > s->early)) t->dead = true;
    AT_TRY(push_hist(t));
    t->trials += r.n_trials;
    s->ct += r.n_trials;
    return AT_OK;
}

at_status at_tune_sched_run(at_tune_sched *s, const at_tune_sched_hooks *h)
{
    AT_ASSERT(s && h && h->round);
    at_status st = AT_OK;
    for (size_t i = 0; i < s->n && st == AT_OK && s->ct < s->total_trials; i++)
        if (s->t[i].rounds == 0) st = tune_round(s, h, i);
    for (size_t i = 0; i < s->n; i++)
        if (s->t[i].best >= AT_TUNE_SCHED_NO_COST) s->t[i].dead = true;
    while (st == AT_OK && s->ct < s->total_trials) {
        size_t i = choose(s);
        if (i == SIZE_MAX) break;
        st = tune_round(s, h, i);
        if (st == AT_OK) adjust_similarity(s, i);
    }
    if (st == AT_OK && h->on_table) h->on_table(h->user, s, SIZE_MAX);
    return st;
}

size_t at_tune_sched_n_tasks(const at_tune_sched *s)
{
    return s->n;
}

size_t at_tune_sched_round_size(const at_tune_sched *s)
{
    return s->round;
}

size_t at_tune_sched_total(const at_tune_sched *s)
{
    return s->ct;
}

size_t at_tune_sched_trials(const at_tune_sched *s, size_t i)
{
    AT_ASSERT(i < s->n);
    return s->t[i].trials;
}

size_t at_tune_sched_rounds(const at_tune_sched *s, size_t i)
{
    AT_ASSERT(i < s->n);
    return s->t[i].rounds;
}

double at_tune_sched_best_cost(const at_tune_sched *s, size_t i)
{
    AT_ASSERT(i < s->n);
    return s->t[i].best;
}

double at_tune_sched_flop(const at_tune_sched *s, size_t i)
{
    AT_ASSERT(i < s->n);
    return s->t[i].flop;
}

size_t at_tune_sched_weight(const at_tune_sched *s, size_t i)
{
    AT_ASSERT(i < s->n);
    return s->n_sets ? s->t[i].weight : 1;
}

bool at_tune_sched_is_dead(const at_tune_sched *s, size_t i)
{
    AT_ASSERT(i < s->n);
    return s->t[i].dead;
}

#define RULE "-------------------------------------------------\n"

void at_tune_sched_format_table(const at_tune_sched *s, size_t next, double elapsed_s, at_strbuf *sb)
{
    at_strbuf_puts(sb, "----------------------------------------------------------------------\n"
                       "------------------------------  [ Task Scheduler ]\n"
                       "----------------------------------------------------------------------\n"
                       "|  ID  | Latency (ms) | Speed (GFLOPS) | Trials |\n" RULE);
    for (size_t i = 0; i < s->n; i++) {
        const task_state *t = &s->t[i];
        char lat[32] = "-", speed[32] = "-";
        if (t->best < SHOWN_BELOW) {
            snprintf(lat, sizeof lat, "%.3f", 1e3 * t->best);
            snprintf(speed, sizeof speed, "%.2f", t->flop / t->best / 1e9);
        }
        at_strbuf_printf(sb, "| %4zu | %12s | %14s | %6zu |\n", i, lat, speed, t->trials);
    }
    at_strbuf_puts(sb, RULE);
    double score = at_tune_sched_score(s);
    char total[32] = "-";
    if (score < SHOWN_BELOW) snprintf(total, sizeof total, "%.3f", score * 1e3);
    at_strbuf_printf(sb, "Estimated total latency: %s ms\tTrials: %zu\tUsed time : %.0f s\t", total, s->ct, elapsed_s);
    if (next != SIZE_MAX) at_strbuf_printf(sb, "Next ID: %zu\t", next);
    at_strbuf_putc(sb, '\n');
}
