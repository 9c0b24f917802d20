/* Configuration spaces (TVM v0.18 autotvm ConfigSpace): knobs defined in order, each an
 * ordered list of entities enumerated exactly as TVM enumerates them; a flat index is the
 * mixed-radix number over the knobs with the FIRST knob as the fastest digit.
 *
 * A template defines its knobs with explicit ids equal to their position (an enum), so schedule
 * code never looks a knob up by name:
 *
 *     enum { TILE_Y, TILE_X, N_KNOBS };
 *     AT_TRY(at_space_split(s, TILE_Y, "tile_y", 512, 2));
 *     AT_TRY(at_space_split_ex(s, TILE_X, "tile_x", 512,
 *                              &(at_split_opts){ .num_outputs = 3, .max_factor = 64 }));
 *
 * Definition functions return AT_EINVAL for a definition TVM rejects (bad policy string, no
 * entity left, a space too large for int64 indices) and AT_ENOMEM when memory runs out; in both
 * cases the space is unchanged. A wrong knob id or a NULL argument is a bug (AT_ASSERT).
 * Query functions never allocate and are safe to call from several threads at once. */
#ifndef AT_KNOBS_SPACE_H
#define AT_KNOBS_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "knobs/config.h"

typedef struct at_space at_space;

/* ---- lifecycle ---------------------------------------------------------------------------- */

/* Empty space (range length 1, no knobs, code hash null). *out owned by the caller
 * (at_space_free). AT_ENOMEM. */
at_status at_space_new(at_space **out);

/* Frees the space and every entity view it handed out; NULL does nothing. */
void at_space_free(at_space *s);

/* Copies the code hash configs of this space carry (NULL = null, TVM's default).
 * AT_ENOMEM (the old hash is kept). */
at_status at_space_set_code_hash(at_space *s, const char *code_hash);

/* The code hash, NULL when null; borrowed until the next set or at_space_free. */
const char *at_space_code_hash(const at_space *s);

/* ---- define_split --------------------------------------------------------------------------- */

typedef enum at_split_policy {
    AT_SPLIT_FACTORS = 0, /* divisors of the extent (default) */
    AT_SPLIT_POWER2,      /* powers of two <= extent; tails allowed */
    AT_SPLIT_VERBOSE,     /* divisors and powers of two, in CPython 3.11 set order; tails */
    AT_SPLIT_CANDIDATE,   /* the given candidate sizes, verbatim */
    AT_SPLIT_POLICY_COUNT
} at_split_policy;

/* TVM's no_tail kwarg, whose default depends on the policy. */
typedef enum at_split_tail {
    AT_SPLIT_TAIL_DEFAULT = 0, /* no_tail = (policy == factors) */
    AT_SPLIT_TAIL_FORBID,      /* no_tail = True: the product of sizes must divide the extent */
    AT_SPLIT_TAIL_ALLOW,       /* no_tail = False: a smaller product leaves a tail */
} at_split_tail;

/* Per-knob predicate on one split entity (sizes[0] is -1 for generated entities); entities it
 * rejects are dropped after enumeration, order kept. */
typedef bool (*at_split_filter)(const int64_t *sizes, size_t n, void *ctx);

/* Options of at_space_split_ex; zero means the default. */
typedef struct at_split_opts {
    at_split_policy policy;
    size_t          num_outputs;  /* required, >= 1 (>= 2 except for AT_SPLIT_CANDIDATE) */
    int64_t         max_factor;   /* 0 = 1 << 31; candidate factors above it are dropped */
    at_split_tail   no_tail;
    at_split_filter filter;       /* NULL = keep all */
    void           *filter_ctx;
    const int64_t  *candidates;   /* AT_SPLIT_CANDIDATE: n_candidates rows of num_outputs */
    size_t          n_candidates;
} at_split_opts;

/* define_split(name, extent, policy="factors", num_outputs=num_outputs): entities
 * [-1, s1, ..., s(n-1)] whose product divides extent, in TVM's DFS order.
 * AT_EINVAL (extent < 1, no entity), AT_ENOMEM. */
at_status at_space_split(at_space *s, size_t knob, const char *name, int64_t extent, size_t num_outputs);

/* define_split with every option. The extent is the axis length (for AT_SPLIT_CANDIDATE it may
 * be anything; it only shows in the repr and drives fallbacks). AT_EINVAL (extent < 1 for a
 * generating policy, num_outputs < 2 for one, no candidates, no entity left after max_factor,
 * tails or the filter), AT_ENOMEM. */
at_status at_space_split_ex(at_space *s, size_t knob, const char *name, int64_t extent,
                            const at_split_opts *o);

/* ---- define_reorder ------------------------------------------------------------------------- */

typedef enum at_reorder_policy {
    AT_REORDER_ALL = 0,         /* every permutation, lexicographic (itertools.permutations) */
    AT_REORDER_IDENTITY,        /* [0, 1, ..., n-1] only */
    AT_REORDER_INTERVAL_ALL,    /* permutations of positions [begin, end), rest fixed */
    AT_REORDER_CANDIDATE,       /* the given permutations */
    AT_REORDER_INTERLEAVE,      /* merge(spatial minus last) + merge(spatial last + reduce) */
    AT_REORDER_INTERLEAVE_CUDA, /* merge(spatial minus last) + merge(reduce) + spatial lasts */
    AT_REORDER_POLICY_COUNT
} at_reorder_policy;

/* Options of at_space_reorder_ex. Axes are given by position in the knob's axis list, as the
 * perms the log stores (TVM's axes.index(x)); positions must be < n_axes (AT_ASSERT). */
typedef struct at_reorder_opts {
    at_reorder_policy policy;
    size_t            interval_begin, interval_end; /* INTERVAL_ALL: begin <= end <= n_axes */
    const int64_t    *candidates;   /* CANDIDATE: n_candidates rows of n_axes positions */
    size_t            n_candidates;
    const int64_t    *spatial;      /* INTERLEAVE*: chains concatenated ... */
    const size_t     *spatial_lens; /* ... with their lengths */
    size_t            n_spatial;
    const int64_t    *reduce;
    const size_t     *reduce_lens;
    size_t            n_reduce;
} at_reorder_opts;

/* define_reorder(name, axes, policy) for the policies without arguments (ALL, IDENTITY;
 * AT_ASSERT). AT_EINVAL (n_axes == 0; too many permutations: a knob stores at most 2^26
 * positions, so ALL takes up to 10 axes), AT_ENOMEM. */
at_status at_space_reorder(at_space *s, size_t knob, const char *name, size_t n_axes,
                           at_reorder_policy policy);

/* define_reorder with the policy's arguments. AT_EINVAL (bad interval, no candidates, an
 * empty spatial chain for INTERLEAVE_CUDA, too many permutations), AT_ENOMEM. */
at_status at_space_reorder_ex(at_space *s, size_t knob, const char *name, size_t n_axes,
                              const at_reorder_opts *o);

/* ---- define_annotate ------------------------------------------------------------------------ */

/* define_annotate(name, axes, policy) with policy "bind_gpu", "bind_gpu_virtual" or a try_*
 * policy ("try_unroll", "try_unroll_vec", "try_vec", "unroll", "none", ...: per-axis choices
 * policy.replace("try", "none").split("_"), DFS with axis 0 slowest, at most one "vec").
 * AT_EINVAL (unknown policy or choice token, "locate_cache" (use the function below), too few
 * axes for bind_gpu (2) / bind_gpu_virtual (3), too many entities), AT_ENOMEM. */
at_status at_space_annotate(at_space *s, size_t knob, const char *name, size_t n_axes,
                            const char *policy);

/* define_annotate(name, axes, policy="locate_cache", num_anchor=k): entities are the
 * k-combinations of range(n_axes) in lexicographic order (integer anchors).
 * AT_EINVAL (k > n_axes: no entity; too many combinations), AT_ENOMEM. */
at_status at_space_annotate_locate_cache(at_space *s, size_t knob, const char *name,
                                         size_t n_axes, size_t num_anchor);

/* ---- define_knob ---------------------------------------------------------------------------- */

/* define_knob(name, candidates) with integer candidates, in order. AT_EINVAL (n == 0),
 * AT_ENOMEM. */
at_status at_space_other(at_space *s, size_t knob, const char *name, const int64_t *candidates,
                         size_t n);

/* define_knob with any JSON scalar values (texts are copied). AT_EINVAL (n == 0), AT_ENOMEM. */
at_status at_space_other_vals(at_space *s, size_t knob, const char *name, const at_val *candidates,
                              size_t n);

/* ---- multi_filter --------------------------------------------------------------------------- */

/* Cross-knob predicate: entities[k] is knob k's entity for one candidate index (borrowed for
 * the call), n_knobs the number of knobs defined so far. */
typedef bool (*at_multi_filter)(const at_entity *const *entities, size_t n_knobs, void *ctx);

/* cfg.multi_filter(filter): from now on an index is valid iff fn accepts it. The predicate is
 * evaluated once for every index of the range now (as TVM's cache does), and again after each
 * knob defined later, so define it last. fn NULL removes the filter. AT_ENOMEM (filter unchanged). */
at_status at_space_multi_filter(at_space *s, at_multi_filter fn, void *ctx);

/* ---- shape queries -------------------------------------------------------------------------- */

size_t       at_space_n_knobs(const at_space *s);
/* Knob name, borrowed until at_space_free; AT_ASSERT knob < n_knobs (as for every knob arg). */
const char  *at_space_knob_name(const at_space *s, size_t knob);
at_knob_kind at_space_knob_kind(const at_space *s, size_t knob);
/* Position of the knob called name; false when there is none. */
bool         at_space_find_knob(const at_space *s, const char *name, size_t *knob);
/* Number of entities of a knob (TVM's dims[knob]). */
int64_t      at_space_dim(const at_space *s, size_t knob);
/* Entity i (< dim) of a knob; borrowed until at_space_free. */
const at_entity *at_space_entity(const at_space *s, size_t knob, int64_t i);
/* Split knob: the axis extent (TVM's SplitSpace.product); AT_ASSERTs the kind. */
int64_t      at_space_split_product(const at_space *s, size_t knob);

/* Product of all knob lengths (1 without knobs): indices live in [0, range_len). */
int64_t at_space_range_len(const at_space *s);
/* Number of valid indices: range_len without multi_filter, else how many pass it. */
int64_t at_space_len(const at_space *s);
/* True when index passes the multi_filter (always without one); AT_ASSERT 0 <= index < range. */
bool    at_space_is_index_valid(const at_space *s, int64_t index);
/* Number of valid indices in [start, end); AT_ASSERT 0 <= start <= end <= range_len. */
int64_t at_space_subrange_len(const at_space *s, int64_t start, int64_t end);

/* point2knob: knobs[k] = entity position of knob k in index (n_knobs values written). */
void    at_space_point_to_knobs(const at_space *s, int64_t index, int64_t *knobs);
/* knob2point: sum knobs[k] * prod(dims[:k]); AT_ASSERT every knobs[k] < dim. */
int64_t at_space_knobs_to_point(const at_space *s, const int64_t *knobs);

/* get_next_index(index, n, start, end): the n-th valid index after index (n < 0: before it)
 * within [start, end) (end 0 = range_len, as TVM's `end or range_length`). Without
 * multi_filter simply index + n. Returns false (TVM's None) when that leaves the range.
 * AT_ASSERT n != 0. */
bool at_space_next_index(const at_space *s, int64_t index, int64_t n, int64_t start, int64_t end,
                         int64_t *out);

/* ---- configs -------------------------------------------------------------------------------- */

/* get(index): the config at index, entities in knob order, carrying index and the code hash.
 * *out owned by the caller (at_config_free). AT_EINVAL (index out of range or rejected by the
 * multi_filter), AT_ENOMEM. */
at_status at_space_get(const at_space *s, int64_t index, at_config **out);

/* Maps a config read from a log onto this space: every knob of the space must be present by
 * name, with its kind and a value that is one of its entities, and the config may hold no knob
 * the space lacks (its entity order does not matter). Split values match an entity e when they
 * are equal, or when e[0] is -1, e[1:] == v[1:] and v[0] is -1 or the real outer extent
 * ceil(extent / prod(v[1:])) that logs before TVM 0.6 store ([40, 25, 1] for extent 1000).
 * Other values compare as Python does (1 == 1.0 == True). *index = the index those entities
 * give (compare it with at_config_index to check a record). AT_EPARSE naming the knob and the
 * bad value, or the index the multi_filter rejects. */
at_status at_space_index_of(const at_space *s, const at_config *c, int64_t *index);

/* at_space_index_of for records whose split entities are applied as given (TVM's SplitEntity.apply
 * splits by the sizes after the first; TopHub's VTA pack has [1, 16] for an extent of 208): a split
 * value also matches an entity e with e[0] == -1 when v[1:] == e[1:], whatever v[0] is. Same
 * statuses. */
at_status at_space_index_of_as_given(const at_space *s, const at_config *c, int64_t *index);

/* A config whose entities name exactly the space's knobs but in another order (logs of older TVM
 * versions that defined the knobs in another order: TopHub's vta pack holds dense_nopack.x86
 * records with tile_x before tile_y), rebuilt in the space's knob order -- TVM's ConfigEntity
 * looks knobs up by name, so such a record applies. *out is NULL when c is already in order or
 * does not name the space's knobs (nothing to do); else it is owned by the caller
 * (at_config_free), with its index recomputed when it maps onto the space (else c's). Returns
 * AT_OK or AT_ENOMEM. */
at_status at_space_config_in_space_order(const at_space *s, const at_config *c, at_config **out);

/* The other reading of such a config: its values in the space's definition order with the names
 * taken from the space. Logs written by TVM < 0.6 on Python < 3.6 paired the knob names (from an
 * unordered dict) with the values (in definition order), so TopHub's cuda pack has tile_rx [1, 7]
 * then tile_ry [1, 1] for a 7x1 kernel: the values of ry then rx, which its stored index confirms.
 * *out is NULL when c's names are not a reordering of the space's or a value's kind differs from
 * its position's; else owned by the caller, with c's index. Returns AT_OK or AT_ENOMEM. The caller
 * trusts it only when its index (at_space_index_of[_as_given]) is the one the record stored. */
at_status at_space_config_by_position(const at_space *s, const at_config *c, at_config **out);

/* That reading checked: *out is c by position only when its index (at_space_index_of, or
 * at_space_index_of_as_given when as_given) is the one c stored, *index then set; else *out is
 * NULL. Returns AT_OK or AT_ENOMEM. */
at_status at_space_config_by_position_checked(const at_space *s, const at_config *c, bool as_given, at_config **out,
                                              int64_t *index);

/* ---- randomness (explicit rng, no global state) --------------------------------------------- */

/* Says whether an index is excluded (e.g. already visited by a tuner). */
typedef bool (*at_index_pred)(int64_t index, void *ctx);

/* get_rand_index(start, end, to_exclude): a uniform random valid index in [start, end) (end 0
 * = range_len) for which exclude (may be NULL) is false. After 1024 rejected draws it scans
 * from a random point instead, so it ends even when nearly everything is excluded.
 * AT_ENOTFOUND when no valid index in the range is left (TVM loops forever). */
at_status at_space_rand_index(const at_space *s, at_rng *rng, int64_t start, int64_t end,
                              at_index_pred exclude, void *ctx, int64_t *out);

/* sample_ints(m): m distinct valid indices drawn uniformly, in draw order, into out[m].
 * AT_EINVAL (m > at_space_len), AT_ENOMEM. */
at_status at_space_sample_ints(const at_space *s, at_rng *rng, size_t m, int64_t *out);

/* random_walk(point): repeatedly sets a random knob to a random entity until the index differs
 * from point and is valid. AT_ENOTFOUND when no other valid index exists (TVM never ends). */
at_status at_space_random_walk(const at_space *s, at_rng *rng, int64_t point, int64_t *out);

/* ---- knob feature vector ("knob" features of the XGB cost model) ---------------------------- */

/* Length of the vector below, fixed per space: split num_outputs, reorder perm length,
 * annotate 11 per axis (locate_cache: num_anchor), other 1, summed over knobs. */
size_t at_space_knob_feature_len(const at_space *s);

/* ConfigEntity.get_flatten_feature() of get(index) into out[at_space_knob_feature_len]:
 * split sizes (the leading -1 included), reorder perm, annotations one-hot over none vec unroll
 * blockIdx.x/y/z threadIdx.x/y/z vthread fuse, other values as floats (bool 0/1, null NaN).
 * locate_cache anchors are written as numbers (TVM raises there). AT_EINVAL (index out of range
 * or rejected by the multi_filter, a text value that is not a number). */
at_status at_space_knob_feature(const at_space *s, int64_t index, float *out);

/* Length of get_flatten_feature() of a config as a log stores it (its own entities, in its
 * order, e.g. explicit split sizes of old logs). */
size_t at_config_knob_feature_len(const at_config *c);

/* get_flatten_feature() of a config into out[at_config_knob_feature_len(c)]. AT_EINVAL (an
 * annotation name outside the 11, a text value that is not a number). */
at_status at_config_knob_feature(const at_config *c, float *out);

/* ---- fallback ------------------------------------------------------------------------------- */

/* FallbackConfigEntity: entity 0 of every knob, in knob order, index -1 (not a point of the
 * space), the space's code hash. *out owned by the caller. AT_ENOMEM. */
at_status at_space_fallback_config(const at_space *s, at_config **out);

/* cfg.fallback_split(name, constraints) on a config made by at_space_fallback_config (its
 * entity `knob` is that split knob, AT_ASSERT; n == num_outputs, AT_ASSERT): from the last
 * size to the first, the largest divisor of what is left that is <= constraints[i] (-1 = no
 * limit); the config gets the explicit sizes. *c is replaced by a new config (the old one
 * freed) on success and untouched on failure. AT_EINVAL ("Cannot find feasible fallback split
 * entity for node: name" when some constraint is below every divisor left; an extent < 1),
 * AT_ENOMEM. */
at_status at_space_fallback_split(const at_space *s, at_config **c, size_t knob,
                                  const int64_t *constraints, size_t n);

/* cfg[name] = entity on a fallback config (templates set e.g. "tile_bna" or a SplitEntity
 * directly): entity `knob` of *c becomes a copy of e under the knob's name; e's kind must be
 * the knob's (AT_ASSERT), its value need not be one of the knob's entities. *c as for
 * at_space_fallback_split. AT_ENOMEM. */
at_status at_space_fallback_set(const at_space *s, at_config **c, size_t knob, const at_entity *e);

/* cfg.fallback_with_reference_log(refs): scores each reference config by the divisors its split
 * products share with the space's split extents, takes the first best (score > 0), applies
 * fallback_split with its sizes (first replaced by -1) to every split knob and copies every
 * other knob from it. Nothing changes when no reference scores > 0 (or n_refs == 0). *c as for
 * at_space_fallback_split. AT_EINVAL (a reference lacking a knob, a split with the wrong kind,
 * length or a product < 1 (logs with -1 sizes), infeasible split), AT_ENOMEM. */
at_status at_space_fallback_with_reference_log(const at_space *s, at_config **c,
                                               const at_config *const *refs, size_t n_refs);

/* ---- debugging ------------------------------------------------------------------------------ */

/* Appends repr(ConfigSpace):
 *   ConfigSpace (len=100, range_length=100, space_map=
 *      0 tile_y: Split(policy=factors, product=512, num_outputs=2) len=10
 *      1 tile_x: Split(policy=factors, product=512, num_outputs=2) len=10
 *   )
 * (Reorder(policy=all) len=6, Annotate(policy=try_unroll) len=4, OtherOption([0, 512]) len=2).
 * Failure shows in sb->failed. */
void at_space_write_repr(const at_space *s, at_strbuf *sb);

#endif
