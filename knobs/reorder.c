/* define_reorder: TVM's ReorderSpace. "all" and "interval_all" walk permutations in
 * itertools.permutations (lexicographic) order; the interleave policies use TVM's chain merge,
 * which at each step may only take from the chain with the most remaining elements (first on
 * ties), so it has exactly one result and these policies one entity. */
#include <string.h>

#include "core/alloc.h"
#include "knobs/internal.h"
#include "knobs/space.h"

static const char *const policy_names[AT_REORDER_POLICY_COUNT] = {
    [AT_REORDER_ALL] = "all",
    [AT_REORDER_IDENTITY] = "identity",
    [AT_REORDER_INTERVAL_ALL] = "interval_all",
    [AT_REORDER_CANDIDATE] = "candidate",
    [AT_REORDER_INTERLEAVE] = "interleave",
    [AT_REORDER_INTERLEAVE_CUDA] = "interleave_cuda",
};

const char *at_knobs_reorder_policy_name(int policy)
{
    AT_ASSERT(policy >= 0 && policy < AT_REORDER_POLICY_COUNT);
    return policy_names[policy];
}

/* Next lexicographic permutation of v[0..n); false after the last one. */
static bool next_permutation(int64_t *v, size_t n)
{
    if (n < 2) return false;
    size_t i = n - 1;
    while (i > 0 && v[i - 1] >= v[i]) i--;
    if (i == 0) return false;
    size_t j = n - 1;
    while (v[j] <= v[i - 1]) j--;
    int64_t t = v[i - 1];
    v[i - 1] = v[j];
    v[j] = t;
    for (size_t a = i, b = n - 1; a < b; a++, b--) {
        t = v[a];
        v[a] = v[b];
        v[b] = t;
    }
    return true;
}

/* All permutations of positions [begin, end) with the rest fixed, into ents (rows of n). */
static at_status permutations(const char *name, size_t n, size_t begin, size_t end, at_knobs_vec *ents)
{
    /* (end - begin)! rows of n ints must stay a sane allocation */
    int64_t count = 1;
    for (size_t m = 2; m <= end - begin; m++) {
        if (count > AT_KNOBS_MAX_INTS / (int64_t)m / (int64_t)n)
            return AT_FAIL(AT_EINVAL, "reorder '%s': %zu! permutations are too many", name, end - begin);
        count *= (int64_t)m;
    }
    int64_t *row = at_malloc(n * sizeof *row);
    if (!row) return AT_OOM();
    for (size_t i = 0; i < n; i++) row[i] = (int64_t)i;
    at_status st;
    do {
        if ((st = at_knobs_vec_append(ents, row, n)) != AT_OK) break;
    } while (next_permutation(row + begin, end - begin));
    at_free(row);
    return st;
}

/* TVM's _merge_chain: the single merge order of the chains, appended to out. */
static at_status merge_chains(const int64_t *const *chains, const size_t *lens, size_t n_chains,
                              at_knobs_vec *out)
{
    size_t *pt = at_calloc(n_chains + 1, sizeof *pt);
    if (!pt) return AT_OOM();
    at_status st = AT_OK;
    for (;;) {
        size_t best = 0, best_left = 0;
        for (size_t i = 0; i < n_chains; i++) { /* np.argmax: first maximum */
            size_t left = lens[i] - pt[i];
            if (i == 0 || left > best_left) {
                best = i;
                best_left = left;
            }
        }
        if (best_left == 0) break; /* every chain consumed */
        if ((st = at_knobs_vec_push(out, chains[best][pt[best]])) != AT_OK) break;
        pt[best]++;
    }
    at_free(pt);
    return st;
}

/* Builds the one interleave entity. */
static at_status interleave(const char *name, size_t n_axes, const at_reorder_opts *o, at_knobs_vec *ents)
{
    size_t ns = o->n_spatial, nr = o->n_reduce;
    AT_ASSERT((o->spatial && o->spatial_lens) || ns == 0);
    AT_ASSERT((o->reduce && o->reduce_lens) || nr == 0);
    const int64_t **chains = at_calloc(ns + nr + 1, sizeof *chains);
    size_t *lens = at_calloc(ns + nr + 1, sizeof *lens);
    at_status st = AT_OK;
    if (!chains || !lens) {
        st = AT_OOM();
        goto done;
    }
    size_t off = 0;
    for (size_t i = 0; i < ns; i++) {
        if (o->spatial_lens[i] == 0 && o->policy == AT_REORDER_INTERLEAVE_CUDA) {
            st = AT_FAIL(AT_EINVAL, "reorder '%s': spatial chain %zu is empty (interleave_cuda needs its last axis)",
                         name, i);
            goto done;
        }
        chains[i] = o->spatial + off;
        lens[i] = o->spatial_lens[i];
        off += lens[i];
    }
    for (size_t i = 0; i < off; i++) AT_ASSERT(o->spatial[i] >= 0 && (size_t)o->spatial[i] < n_axes);
    off = 0;
    for (size_t i = 0; i < nr; i++) {
        chains[ns + i] = o->reduce + off;
        lens[ns + i] = o->reduce_lens[i];
        off += lens[ns + i];
    }
    for (size_t i = 0; i < off; i++) AT_ASSERT(o->reduce[i] >= 0 && (size_t)o->reduce[i] < n_axes);

    /* outer: every spatial chain without its last axis */
    size_t *tmp_lens = at_calloc(ns + nr + 1, sizeof *tmp_lens);
    const int64_t **tmp_chains = at_calloc(ns + nr + 1, sizeof *tmp_chains);
    if (!tmp_lens || !tmp_chains) {
        at_free(tmp_lens);
        at_free(tmp_chains);
        st = AT_OOM();
        goto done;
    }
    for (size_t i = 0; i < ns; i++) {
        tmp_chains[i] = chains[i];
        tmp_lens[i] = lens[i] ? lens[i] - 1 : 0;
    }
    st = merge_chains(tmp_chains, tmp_lens, ns, ents);
    if (st == AT_OK && o->policy == AT_REORDER_INTERLEAVE) {
        /* inner: the last axis of each spatial chain as a chain of its own, then reduce chains */
        for (size_t i = 0; i < ns; i++) {
            tmp_chains[i] = lens[i] ? chains[i] + lens[i] - 1 : chains[i];
            tmp_lens[i] = lens[i] ? 1 : 0;
        }
        for (size_t i = 0; i < nr; i++) {
            tmp_chains[ns + i] = chains[ns + i];
            tmp_lens[ns + i] = lens[ns + i];
        }
        st = merge_chains(tmp_chains, tmp_lens, ns + nr, ents);
    } else if (st == AT_OK) {
        st = merge_chains(chains + ns, lens + ns, nr, ents);
        for (size_t i = 0; i < ns && st == AT_OK; i++) st = at_knobs_vec_push(ents, chains[i][lens[i] - 1]);
    }
    at_free(tmp_lens);
    at_free(tmp_chains);
done:
    at_free(chains);
    at_free(lens);
    return st;
}

at_status at_space_reorder(at_space *s, size_t knob, const char *name, size_t n_axes, at_reorder_policy policy)
{
    AT_ASSERT(policy == AT_REORDER_ALL || policy == AT_REORDER_IDENTITY);
    return at_space_reorder_ex(s, knob, name, n_axes, &(at_reorder_opts){.policy = policy});
}

at_status at_space_reorder_ex(at_space *s, size_t knob, const char *name, size_t n_axes, const at_reorder_opts *o)
{
    AT_TRY(at_knobs_check_new(s, knob, name));
    AT_ASSERT(o && o->policy >= AT_REORDER_ALL && o->policy < AT_REORDER_POLICY_COUNT);
    if (n_axes == 0) return AT_FAIL(AT_EINVAL, "reorder '%s': no axes", name);
    at_knobs_vec ents = {0};
    at_status st = AT_OK;
    switch (o->policy) {
    case AT_REORDER_IDENTITY: st = permutations(name, n_axes, 0, 0, &ents); break;
    case AT_REORDER_ALL: st = permutations(name, n_axes, 0, n_axes, &ents); break;
    case AT_REORDER_INTERVAL_ALL:
        if (o->interval_begin > o->interval_end || o->interval_end > n_axes)
            return AT_FAIL(AT_EINVAL, "reorder '%s': interval [%zu, %zu) is not within %zu axes", name,
                           o->interval_begin, o->interval_end, n_axes);
        st = permutations(name, n_axes, o->interval_begin, o->interval_end, &ents);
        break;
    case AT_REORDER_CANDIDATE:
        if (o->n_candidates == 0) return AT_FAIL(AT_EINVAL, "reorder '%s': policy candidate needs candidates", name);
        AT_ASSERT(o->candidates);
        for (size_t i = 0; i < o->n_candidates * n_axes; i++)
            AT_ASSERT(o->candidates[i] >= 0 && (size_t)o->candidates[i] < n_axes);
        st = at_knobs_vec_append(&ents, o->candidates, o->n_candidates * n_axes);
        break;
    case AT_REORDER_INTERLEAVE:
    case AT_REORDER_INTERLEAVE_CUDA: st = interleave(name, n_axes, o, &ents); break;
    case AT_REORDER_POLICY_COUNT: AT_ASSERT(0);
    }
    if (st != AT_OK) {
        at_knobs_vec_fini(&ents);
        return st;
    }
    /* interleave entities hold as many positions as the chains do */
    size_t width = (o->policy == AT_REORDER_INTERLEAVE || o->policy == AT_REORDER_INTERLEAVE_CUDA) ? ents.n : n_axes;
    at_knob k = {.kind = AT_KNOB_REORDER,
                 .policy = o->policy,
                 .n_axes = n_axes,
                 .width = width,
                 .len = width ? (int64_t)(ents.n / width) : 1,
                 .ints = ents.v};
    if (!(k.name = at_strdup(name))) {
        at_knobs_knob_fini(&k);
        return AT_OOM();
    }
    return at_knobs_commit(s, &k);
}
