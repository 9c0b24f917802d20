/* Shared internals of knobs/: the knob record a space stores and the generators each
 * define_* file contributes. No other module includes this header. */
#ifndef AT_KNOBS_INTERNAL_H
#define AT_KNOBS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobs/config.h"
#include "knobs/space.h"

/* Number of annotation names TVM's knob feature one-hot knows (_ann_to_number). */
#define AT_KNOBS_N_ANN 11

/* Annotation names indexed by their one-hot code (none=0, vec=1, unroll=2, blockIdx.x=3 ...
 * fuse=10): the order of TVM's _ann_to_number. */
extern const char *const at_knobs_ann_names[AT_KNOBS_N_ANN];

/* Most ints one knob may hold (entities x width): guards n! and 3^n style blow-ups. */
#define AT_KNOBS_MAX_INTS ((int64_t)1 << 26)

/* Code of an annotation name, -1 when unknown. */
int at_knobs_ann_code(const char *ann);

/* Internal policy of an annotate knob (the public API takes TVM's policy strings). */
enum { AT_KNOBS_ANN_TRY = 0, AT_KNOBS_ANN_BIND_GPU, AT_KNOBS_ANN_BIND_GPU_VIRTUAL, AT_KNOBS_ANN_LOCATE_CACHE };

/* One knob: its definition and every entity, stored flat with a fixed width per entity.
 * Annotation names point at the static strings of at_knobs_ann_names. */
typedef struct at_knob {
    char         *name;
    at_knob_kind  kind;
    int           policy;      /* at_split_policy, at_reorder_policy or AT_KNOBS_ANN_* */
    char         *policy_text; /* annotate: the policy as the template wrote it (repr) */
    int64_t       product;     /* split: the axis extent */
    size_t        n_axes;      /* split: num_outputs; reorder/annotate: number of axes */
    size_t        width;       /* ints or anns per entity (split/reorder/an); 0 for other */
    int64_t       len;         /* number of entities (>= 1 once committed) */
    int64_t       stride;      /* product of the lengths of all earlier knobs */
    int64_t      *ints;        /* len * width: split sizes, reorder perms, cache anchors */
    const char  **anns;        /* len * width: annotation names (string annotations) */
    at_val       *vals;        /* other: len values; AT_VAL_STR texts are owned */
    at_entity    *ents;        /* len views into the arrays above, named by name */
} at_knob;

struct at_space {
    at_knob        *knobs;
    size_t          n_knobs, cap;
    int64_t         range_len;  /* product of knob lengths, 1 with no knobs */
    char           *code_hash;  /* NULL = null */
    at_multi_filter filter;
    void           *filter_ctx;
    uint8_t        *valid;      /* filter set: bit i = index i passes, over [0, range_len) */
    int64_t         n_valid;    /* number of valid indices (range_len without filter) */
};

/* A growable int64 array (generation scratch). */
typedef struct at_knobs_vec {
    int64_t *v;
    size_t   n, cap;
} at_knobs_vec;

at_status at_knobs_vec_push(at_knobs_vec *vec, int64_t x);
at_status at_knobs_vec_append(at_knobs_vec *vec, const int64_t *x, size_t n);
void      at_knobs_vec_fini(at_knobs_vec *vec);

/* All divisors of n > 0 in ascending order (TVM's get_factors); *out owned (at_free). */
at_status at_knobs_factors(int64_t n, int64_t **out, size_t *n_out);

/* The elements of set(a) | set(b) in CPython 3.11's iteration order, for positive ints
 * (hash(x) == x); *out owned (at_free). */
at_status at_knobs_pyset_union(const int64_t *a, size_t na, const int64_t *b, size_t nb,
                               int64_t **out, size_t *n_out);

/* Checks the knob id and name of a new definition: AT_ASSERT(knob == n_knobs), AT_EINVAL for a
 * name already defined or empty. */
at_status at_knobs_check_new(const at_space *s, size_t knob, const char *name);

/* Takes ownership of k (its name and arrays, already filled; ents built here) and appends it:
 * checks that the knob has entities and that the range length fits int64, then refreshes the
 * multi_filter cache. On failure k's memory is released. AT_EINVAL or AT_ENOMEM. */
at_status at_knobs_commit(at_space *s, at_knob *k);

/* Releases a knob's memory (not the struct itself). */
void at_knobs_knob_fini(at_knob *k);

/* Entity i of knob k (borrowed from the space). */
static inline const at_entity *at_knobs_entity(const at_knob *k, int64_t i)
{
    return &k->ents[i];
}

/* Digit of knob k in a flat index. */
static inline int64_t at_knobs_digit(const at_knob *k, int64_t index)
{
    return (index / k->stride) % k->len;
}

/* "[a, b, c]" of n ints into buf (truncated with "..." when it does not fit). */
void at_knobs_fmt_ints(char *buf, size_t cap, const int64_t *v, size_t n);

/* Policy names as TVM's reprs print them ("factors", "interleave_cuda", ...). */
const char *at_knobs_split_policy_name(int policy);
const char *at_knobs_reorder_policy_name(int policy);

#endif
