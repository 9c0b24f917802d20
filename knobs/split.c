/* define_split: TVM's SplitSpace enumeration. The DFS fills stack positions 0..n-2 (position 0
 * outermost) from the factor list in list order and stores [-1] + reversed(stack), so the
 * order (and thus every index) is TVM's; subtrees whose partial product already exceeds the
 * extent are pruned, which drops only leaves TVM rejects too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "knobs/internal.h"
#include "knobs/space.h"

#define DEFAULT_MAX_FACTOR ((int64_t)1 << 31)

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

at_status at_knobs_factors(int64_t n, int64_t **out, size_t *n_out)
{
    AT_ASSERT(n > 0);
    at_knobs_vec v = {0};
    /* Python steps by 2 for odd n: odd numbers have odd divisors only. */
    int64_t step = n % 2 ? 2 : 1;
    for (int64_t i = 1; i <= n / i; i += step) {
        if (n % i) continue;
        if (at_knobs_vec_push(&v, i) != AT_OK || (n / i != i && at_knobs_vec_push(&v, n / i) != AT_OK)) {
            at_knobs_vec_fini(&v);
            return AT_OOM();
        }
    }
    qsort(v.v, v.n, sizeof *v.v, cmp_i64);
    *out = v.v;
    *n_out = v.n;
    return AT_OK;
}

/* get_pow2s(n): 2**x for x in range(floor(log2(n)) + 1). Python computes log2 in double
 * precision (math.log2 of an int that fits a double converts it first), so do the same. */
static at_status pow2s(int64_t n, int64_t **out, size_t *n_out)
{
    int top = (int)floor(log2((double)n));
    AT_ASSERT(top >= 0 && top < 63);
    int64_t *v = at_malloc((size_t)(top + 1) * sizeof *v);
    if (!v) return AT_OOM();
    for (int x = 0; x <= top; x++) v[x] = (int64_t)1 << x;
    *out = v;
    *n_out = (size_t)top + 1;
    return AT_OK;
}

static const char *const policy_names[AT_SPLIT_POLICY_COUNT] = {
    [AT_SPLIT_FACTORS] = "factors",
    [AT_SPLIT_POWER2] = "power2",
    [AT_SPLIT_VERBOSE] = "verbose",
    [AT_SPLIT_CANDIDATE] = "candidate",
};

const char *at_knobs_split_policy_name(int policy)
{
    AT_ASSERT(policy >= 0 && policy < AT_SPLIT_POLICY_COUNT);
    return policy_names[policy];
}

/* The candidate factor list of a generating policy, max_factor applied. */
static at_status factor_list(at_split_policy policy, int64_t product, int64_t max_factor, int64_t **out,
                             size_t *n_out)
{
    int64_t *f = NULL, *a = NULL, *b = NULL;
    size_t nf = 0, na = 0, nb = 0;
    at_status st = AT_OK;
    switch (policy) {
    case AT_SPLIT_FACTORS: st = at_knobs_factors(product, &f, &nf); break;
    case AT_SPLIT_POWER2: st = pow2s(product, &f, &nf); break;
    case AT_SPLIT_VERBOSE:
        if ((st = at_knobs_factors(product, &a, &na)) == AT_OK && (st = pow2s(product, &b, &nb)) == AT_OK)
            st = at_knobs_pyset_union(a, na, b, nb, &f, &nf);
        at_free(a);
        at_free(b);
        break;
    case AT_SPLIT_CANDIDATE:
    case AT_SPLIT_POLICY_COUNT: AT_ASSERT(0);
    }
    if (st != AT_OK) return st;
    size_t kept = 0;
    for (size_t i = 0; i < nf; i++)
        if (f[i] <= max_factor) f[kept++] = f[i];
    *out = f;
    *n_out = kept;
    return AT_OK;
}

typedef struct gen {
    const int64_t *factors;
    size_t         n_factors;
    int64_t        product;
    bool           no_tail;
    size_t         depth;  /* num_outputs - 1 */
    int64_t       *stack;  /* depth slots */
    int64_t       *entity; /* num_outputs slots */
    at_knobs_vec  *out;
} gen;

static at_status dfs(gen *g, size_t now, int64_t prod)
{
    if (now == g->depth) {
        /* prod <= product holds (pruned below); accept divisors, or tails when allowed */
        if (g->product % prod == 0 || (!g->no_tail && prod < g->product)) {
            g->entity[0] = -1;
            for (size_t i = 0; i < g->depth; i++) g->entity[1 + i] = g->stack[g->depth - 1 - i];
            return at_knobs_vec_append(g->out, g->entity, g->depth + 1);
        }
        return AT_OK;
    }
    for (size_t i = 0; i < g->n_factors; i++) {
        int64_t f = g->factors[i];
        if (f > g->product / prod) continue; /* prod * f > product: TVM skips every leaf below */
        g->stack[now] = f;
        AT_TRY(dfs(g, now + 1, prod * f));
    }
    return AT_OK;
}

at_status at_space_split(at_space *s, size_t knob, const char *name, int64_t extent, size_t num_outputs)
{
    return at_space_split_ex(s, knob, name, extent, &(at_split_opts){.num_outputs = num_outputs});
}

at_status at_space_split_ex(at_space *s, size_t knob, const char *name, int64_t extent, const at_split_opts *o)
{
    AT_TRY(at_knobs_check_new(s, knob, name));
    AT_ASSERT(o);
    AT_ASSERT(o->policy >= AT_SPLIT_FACTORS && o->policy < AT_SPLIT_POLICY_COUNT);
    AT_ASSERT(o->no_tail >= AT_SPLIT_TAIL_DEFAULT && o->no_tail <= AT_SPLIT_TAIL_ALLOW);
    size_t n = o->num_outputs;
    if (n == 0) return AT_FAIL(AT_EINVAL, "split '%s': num_outputs must be > 0", name);

    at_knobs_vec ents = {0};
    int64_t *factors = NULL, *stack = NULL;
    size_t n_factors = 0;
    at_status st = AT_OK;
    if (o->policy == AT_SPLIT_CANDIDATE) {
        if (o->n_candidates == 0)
            return AT_FAIL(AT_EINVAL, "split '%s': policy candidate needs candidates", name);
        AT_ASSERT(o->candidates);
        st = at_knobs_vec_append(&ents, o->candidates, o->n_candidates * n);
    } else {
        if (extent < 1)
            return AT_FAIL(AT_EINVAL, "split '%s': axis extent must be >= 1 for policy %s, got %lld", name,
                           policy_names[o->policy], (long long)extent);
        if (n < 2) /* TVM's reduce() over an empty stack raises here */
            return AT_FAIL(AT_EINVAL, "split '%s': policy %s needs num_outputs >= 2, got %zu", name,
                           policy_names[o->policy], n);
        bool no_tail = o->no_tail == AT_SPLIT_TAIL_DEFAULT ? o->policy == AT_SPLIT_FACTORS
                                                           : o->no_tail == AT_SPLIT_TAIL_FORBID;
        int64_t max_factor = o->max_factor ? o->max_factor : DEFAULT_MAX_FACTOR;
        st = factor_list(o->policy, extent, max_factor, &factors, &n_factors);
        if (st == AT_OK && !(stack = at_malloc(2 * n * sizeof *stack))) st = AT_OOM();
        if (st == AT_OK) {
            gen g = {factors, n_factors, extent, no_tail, n - 1, stack, stack + n, &ents};
            st = dfs(&g, 0, 1);
        }
    }
    at_free(factors);
    at_free(stack);
    if (st != AT_OK) goto fail;

    if (o->filter) { /* filter after enumeration, order kept */
        size_t kept = 0;
        for (size_t i = 0; i < ents.n / n; i++) {
            if (!o->filter(ents.v + i * n, n, o->filter_ctx)) continue;
            memmove(ents.v + kept * n, ents.v + i * n, n * sizeof *ents.v);
            kept++;
        }
        ents.n = kept * n;
    }
    if (ents.n == 0) {
        st = AT_FAIL(AT_EINVAL, "split '%s': no entity for extent %lld, num_outputs %zu, policy %s", name,
                     (long long)extent, n, policy_names[o->policy]);
        goto fail;
    }
    at_knob k = {.kind = AT_KNOB_SPLIT,
                 .policy = o->policy,
                 .product = extent,
                 .n_axes = n,
                 .width = n,
                 .len = (int64_t)(ents.n / n),
                 .ints = ents.v};
    ents.v = NULL;
    if (!(k.name = at_strdup(name))) {
        at_knobs_knob_fini(&k);
        return AT_OOM();
    }
    return at_knobs_commit(s, &k);
fail:
    at_knobs_vec_fini(&ents);
    return st;
}
