/* define_annotate: TVM's AnnotateSpace. try_* policies parse exactly as
 * policy.replace("try", "none").split("_") and enumerate by DFS with axis 0 slowest, keeping
 * assignments with at most one "vec"; annotation names are stored as pointers to the static
 * names of at_knobs_ann_names, so entities compare by pointer and by text alike. */
#include <string.h>

#include "core/alloc.h"
#include "knobs/internal.h"
#include "knobs/space.h"

enum { ANN_NONE = 0, ANN_VEC = 1, ANN_UNROLL = 2 };

/* Parses a try_* policy into its per-axis choice codes (at most len(policy) of them). */
static at_status parse_choices(const char *policy, int *choices, size_t *n_out)
{
    /* policy.replace("try", "none") */
    size_t cap = 2 * strlen(policy) + 1;
    char *text = at_malloc(cap);
    if (!text) return AT_OOM();
    size_t len = 0;
    for (const char *p = policy; *p;) {
        if (strncmp(p, "try", 3) == 0) {
            memcpy(text + len, "none", 4);
            len += 4;
            p += 3;
        } else {
            text[len++] = *p++;
        }
    }
    text[len] = '\0';
    /* .split("_"): every token, empty ones included, must be none/unroll/vec */
    size_t n = 0;
    at_status st = AT_OK;
    for (char *tok = text;;) {
        char *end = strchr(tok, '_');
        if (end) *end = '\0';
        int code = at_knobs_ann_code(tok);
        if (code != ANN_NONE && code != ANN_VEC && code != ANN_UNROLL) {
            st = AT_FAIL(AT_EINVAL, "Invalid policy: %s", policy);
            break;
        }
        choices[n++] = code;
        if (!end) break;
        tok = end + 1;
    }
    at_free(text);
    if (st == AT_OK) *n_out = n;
    return st;
}

/* DFS over axes (axis 0 outermost) with at most one vec, codes appended to ents. */
static at_status enumerate_try(const char *name, size_t n_axes, const int *choices, size_t n_choices,
                               at_knobs_vec *ents)
{
    int64_t bound = 1; /* n_choices^n_axes rows of n_axes, before the vec filter */
    for (size_t i = 0; i < n_axes; i++) {
        if (bound > AT_KNOBS_MAX_INTS / (int64_t)n_choices / (int64_t)n_axes)
            return AT_FAIL(AT_EINVAL, "annotate '%s': %zu^%zu annotations are too many", name, n_choices, n_axes);
        bound *= (int64_t)n_choices;
    }
    size_t *pos = at_calloc(n_axes, sizeof *pos);
    int64_t *row = at_malloc(n_axes * sizeof *row);
    at_status st = AT_OK;
    if (!pos || !row) {
        st = AT_OOM();
        goto done;
    }
    for (;;) {
        size_t vec = 0;
        for (size_t i = 0; i < n_axes; i++) {
            row[i] = choices[pos[i]];
            vec += row[i] == ANN_VEC;
        }
        if (vec <= 1 && (st = at_knobs_vec_append(ents, row, n_axes)) != AT_OK) break;
        size_t i = n_axes; /* the last axis is the innermost DFS loop */
        while (i > 0 && ++pos[i - 1] == n_choices) pos[--i] = 0;
        if (i == 0) break;
    }
done:
    at_free(pos);
    at_free(row);
    return st;
}

/* One bind_gpu / bind_gpu_virtual entity: "fuse" for the leading axes, then the tail names. */
static at_status bind_entity(const char *name, const char *policy, size_t n_axes, bool virt, at_knobs_vec *ents)
{
    static const int gpu6[] = {5, 4, 3, 8, 7, 6}, gpu4[] = {4, 3, 7, 6}, gpu2[] = {3, 6};
    static const int virt9[] = {5, 4, 3, 9, 9, 9, 8, 7, 6}, virt6[] = {4, 3, 9, 9, 7, 6}, virt3[] = {3, 9, 6};
    const int *tail;
    size_t n_tail;
    if (!virt) {
        if (n_axes >= 6) tail = gpu6, n_tail = 6;
        else if (n_axes >= 4) tail = gpu4, n_tail = 4;
        else if (n_axes >= 2) tail = gpu2, n_tail = 2;
        else return AT_FAIL(AT_EINVAL, "annotate '%s': Unhandled case in %s (%zu axes, needs >= 2)", name, policy, n_axes);
    } else {
        if (n_axes >= 9) tail = virt9, n_tail = 9;
        else if (n_axes >= 6) tail = virt6, n_tail = 6;
        else if (n_axes >= 3) tail = virt3, n_tail = 3;
        else return AT_FAIL(AT_EINVAL, "annotate '%s': Unhandled case in %s (%zu axes, needs >= 3)", name, policy, n_axes);
    }
    for (size_t i = 0; i < n_axes; i++) {
        int code = i < n_axes - n_tail ? 10 /* fuse */ : tail[i - (n_axes - n_tail)];
        AT_TRY(at_knobs_vec_push(ents, code));
    }
    return AT_OK;
}

/* Turns the code rows into annotation-name pointers and commits the knob. */
static at_status commit_anns(at_space *s, const char *name, const char *policy, int kind_policy, size_t n_axes,
                             at_knobs_vec *ents)
{
    at_knob k = {.kind = AT_KNOB_ANNOTATE, .policy = kind_policy, .n_axes = n_axes, .width = n_axes};
    k.len = (int64_t)(ents->n / n_axes);
    k.anns = at_malloc((ents->n ? ents->n : 1) * sizeof *k.anns);
    k.name = at_strdup(name);
    k.policy_text = at_strdup(policy);
    if (!k.anns || !k.name || !k.policy_text) {
        at_knobs_vec_fini(ents);
        at_knobs_knob_fini(&k);
        return AT_OOM();
    }
    for (size_t i = 0; i < ents->n; i++) k.anns[i] = at_knobs_ann_names[ents->v[i]];
    at_knobs_vec_fini(ents);
    return at_knobs_commit(s, &k);
}

at_status at_space_annotate(at_space *s, size_t knob, const char *name, size_t n_axes, const char *policy)
{
    AT_TRY(at_knobs_check_new(s, knob, name));
    AT_ASSERT(policy);
    if (n_axes == 0) return AT_FAIL(AT_EINVAL, "annotate '%s': no axes", name);
    at_knobs_vec ents = {0};
    at_status st;
    int kind_policy;
    if (strcmp(policy, "locate_cache") == 0)
        return AT_FAIL(AT_EINVAL, "annotate '%s': locate_cache needs num_anchor (at_space_annotate_locate_cache)", name);
    if (strcmp(policy, "bind_gpu") == 0 || strcmp(policy, "bind_gpu_virtual") == 0) {
        bool virt = policy[8] != '\0';
        kind_policy = virt ? AT_KNOBS_ANN_BIND_GPU_VIRTUAL : AT_KNOBS_ANN_BIND_GPU;
        st = bind_entity(name, policy, n_axes, virt, &ents);
    } else {
        kind_policy = AT_KNOBS_ANN_TRY;
        size_t n_choices = 0;
        int *choices = at_malloc((strlen(policy) + 1) * sizeof *choices);
        if (!choices) return AT_OOM();
        st = parse_choices(policy, choices, &n_choices);
        if (st == AT_OK) st = enumerate_try(name, n_axes, choices, n_choices, &ents);
        at_free(choices);
    }
    if (st != AT_OK) {
        at_knobs_vec_fini(&ents);
        return st;
    }
    return commit_anns(s, name, policy, kind_policy, n_axes, &ents);
}

at_status at_space_annotate_locate_cache(at_space *s, size_t knob, const char *name, size_t n_axes, size_t num_anchor)
{
    AT_TRY(at_knobs_check_new(s, knob, name));
    if (num_anchor > n_axes)
        return AT_FAIL(AT_EINVAL, "annotate '%s': locate_cache with %zu anchors over %zu axes has no entity", name,
                       num_anchor, n_axes);
    int64_t count = 1; /* C(n_axes, num_anchor), computed incrementally (exact at each step) */
    for (size_t i = 0; i < num_anchor; i++) {
        if (count > AT_KNOBS_MAX_INTS / (int64_t)(n_axes - i))
            return AT_FAIL(AT_EINVAL, "annotate '%s': too many anchor combinations", name);
        count = count * (int64_t)(n_axes - i) / (int64_t)(i + 1);
    }
    at_knobs_vec ents = {0};
    int64_t *comb = at_malloc((num_anchor + 1) * sizeof *comb);
    at_status st = AT_OK;
    if (!comb) return AT_OOM();
    for (size_t i = 0; i < num_anchor; i++) comb[i] = (int64_t)i;
    for (;;) { /* itertools.combinations(range(n_axes), num_anchor) */
        if ((st = at_knobs_vec_append(&ents, comb, num_anchor)) != AT_OK) break;
        size_t i = num_anchor;
        while (i > 0 && comb[i - 1] == (int64_t)(n_axes - num_anchor + i - 1)) i--;
        if (i == 0) break;
        comb[i - 1]++;
        for (size_t j = i; j < num_anchor; j++) comb[j] = comb[j - 1] + 1;
    }
    at_free(comb);
    if (st != AT_OK) {
        at_knobs_vec_fini(&ents);
        return st;
    }
    at_knob k = {.kind = AT_KNOB_ANNOTATE,
                 .policy = AT_KNOBS_ANN_LOCATE_CACHE,
                 .n_axes = n_axes,
                 .width = num_anchor,
                 .len = count,
                 .ints = ents.v};
    k.name = at_strdup(name);
    k.policy_text = at_strdup("locate_cache");
    if (!k.name || !k.policy_text) {
        at_knobs_knob_fini(&k);
        return AT_OOM();
    }
    return at_knobs_commit(s, &k);
}
