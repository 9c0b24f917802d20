/* Helpers shared by the files of templates/ (not for other modules): float element access for
 * the references, workload JSON pieces, the schedule vocabulary TVM's GPU templates use (split
 * sizes from a config, annotations with their validity checks, loop nests, zero-padded loads)
 * expressed on the IR, and the computes TVM shares between templates of two targets (spatial-pack
 * conv2d, testing/matmul), written once here as TVM writes them once. */
#ifndef AT_TEMPLATES_INTERNAL_H
#define AT_TEMPLATES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"
#include "knobs/config.h"
#include "knobs/space.h"
#include "templates/ops.h"
#include "templates/template.h"

/* ---- element access (references) ------------------------------------------------------------ */

/* p[i] of type t (float16, float32, float64, int8, uint8 or int32; AT_ASSERT) as a double. */
double at_tmpl_load_f(at_ir_type t, const void *p, int64_t i);
/* p[i] = v rounded to type t (float16, float32, float64: float16 rounds to nearest even; int32:
 * v truncated, exact for the integer sums of int8 references). */
void at_tmpl_store_f(at_ir_type t, void *p, int64_t i, double v);

/* ---- op-kind rows (templates/ops_<kind>.c) -------------------------------------------------- */

/* The fields of an at_op_def row whose callbacks are the file's static functions named as the
 * fields are (check_args, tensors, ... tolerance); the row adds .tiny and .typical. */
#define AT_OP_ROW_(kind_name, form)                                                                   \
    .name = kind_name, .check_args = check_args, .tensors = tensors, .write_json = write_json,       \
    .read_json = read_json, .parse_list = parse_list, .comma_form = form, .flop = flop,              \
    .compute = compute, .reference = reference, .tolerance = tolerance

/* The callbacks check_args, tensors, write_json, read_json and flop of a kind whose own functions
 * at_op_<kind>_check_args ... at_op_<kind>_flop take its argument struct, a->u.<kind>. */
#define AT_OP_FORWARD_(kind)                                                                          \
    static at_status check_args(const at_args *a)                                                     \
    {                                                                                                 \
        return at_op_##kind##_check_args(&a->u.kind);                                                \
    }                                                                                                 \
    static size_t tensors(const at_args *a, at_tensor_desc *out)                                      \
    {                                                                                                 \
        return at_op_##kind##_tensors(&a->u.kind, out);                                              \
    }                                                                                                 \
    static void write_json(const at_args *a, at_strbuf *sb)                                           \
    {                                                                                                 \
        at_op_##kind##_args_write_json(&a->u.kind, sb);                                              \
    }                                                                                                 \
    static at_status read_json(const cJSON *array, at_args *a)                                        \
    {                                                                                                 \
        return at_op_##kind##_args_from_json(array, &a->u.kind);                                     \
    }                                                                                                 \
    static double flop(const at_args *a)                                                              \
    {                                                                                                 \
        return at_op_##kind##_flop(&a->u.kind);                                                      \
    }

/* ---- workload JSON and the comma form (templates/op_util.c) --------------------------------- */

/* Appends v[0..n) as a JSON list: [1, 2, 3] ([] when n is 0). */
void at_tmpl_write_ints(at_strbuf *sb, const int64_t *v, size_t n);
/* Appends a workload tensor as TVM logs it: ["TENSOR", [shape[0], ...], "dtype"]. */
void at_tmpl_write_tensor(at_strbuf *sb, const int64_t *shape, size_t n, at_ir_type t);
/* Appends "dtype" of t, or null. */
void at_tmpl_write_dtype_or_null(at_strbuf *sb, at_ir_type t, bool null);

/* The readers name the element as `what` ("argument 2 (strides)") in their AT_EPARSE. */
/* An integer (item may be NULL: a missing element). */
at_status at_tmpl_json_int(const cJSON *item, const char *what, int64_t *out);
/* A list of exactly n integers (or, when n_alt > 0, of n_alt); *got = its length. */
at_status at_tmpl_json_ints(const cJSON *item, const char *what, size_t n, size_t n_alt, int64_t *out, size_t *got);
/* ["TENSOR", shape of rank integers, dtype]. */
at_status at_tmpl_json_tensor(const cJSON *item, const char *what, size_t rank, int64_t *shape, at_ir_type *dtype);
/* A dtype string, or null (*is_null set, *dtype untouched). */
at_status at_tmpl_json_dtype_or_null(const cJSON *item, const char *what, at_ir_type *dtype, bool *is_null);
/* The string want exactly (an argument the kind's name fixes: pool2d's "max", "NCHW"). */
at_status at_tmpl_json_string(const cJSON *item, const char *what, const char *want);
/* true or false. */
at_status at_tmpl_json_bool(const cJSON *item, const char *what, bool *out);

/* Splits the command-line comma form "1,64,56,56[,float32]": integers into ints[0..*n_ints) (at
 * most max_ints), then an optional last item that is not an integer, *dtype (pointing into text;
 * NULL when absent). AT_EPARSE for an empty or overlong item, too many integers, or a name before
 * the last item. The caller checks the count against its form. */
at_status at_tmpl_parse_list(const char *text, size_t max_ints, int64_t *ints, size_t *n_ints, const char **dtype);

/* ---- IR helpers ----------------------------------------------------------------------------- */

/* An int32 constant. */
const at_ir_expr *at_tmpl_i(at_ir_sched *s, int64_t v);
/* A constant of scalar type t: a float, or for an integer type v as an integer (the zero of an
 * int8 convolution's padding and int32 accumulator). */
const at_ir_expr *at_tmpl_f(at_ir_sched *s, at_ir_type t, double v);
/* e cast to t unless it already has that type (TVM's astype). */
const at_ir_expr *at_tmpl_cast(at_ir_sched *s, at_ir_type t, const at_ir_expr *e);
/* Row-major flat index of idx[0..n) in a tensor of shape dims[0..n) (dims[0] is not used). */
const at_ir_expr *at_tmpl_index(at_ir_sched *s, const at_ir_expr *const *idx, const int64_t *dims, size_t n);
/* a && b where either may be NULL (no condition). */
const at_ir_expr *at_tmpl_and(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);

/* One loop of a nest: the variable, its extent and its kind (serial, unrolled, vectorized or a
 * binding). */
typedef struct at_tmpl_loop {
    const at_ir_var *var;
    int64_t          extent;
    at_ir_for_kind   kind;
} at_tmpl_loop;

/* A new int32 loop variable with its extent and kind. */
at_tmpl_loop at_tmpl_loop_new(at_ir_sched *s, const char *name, int64_t extent, at_ir_for_kind kind);

/* body wrapped in loops[0] (outermost) .. loops[n-1] (innermost), as TVM lowers a leaf order:
 * a vectorized loop with loops inside it moves innermost (TVM vectorizes such a body loop by
 * loop, which is the same code), a vectorized loop of extent 1 and a serial loop of extent 1
 * become unrolled (their variable is the constant 0, as TVM drops such loops). */
const at_ir_stmt *at_tmpl_nest(at_ir_sched *s, const at_tmpl_loop *loops, size_t n, const at_ir_stmt *body);

/* Sizes of split knob `knob` (n parts) applied to extent: parts[0] = extent / prod(sizes[1:]),
 * parts[i] = sizes[i] (at_tmpl_split_inner, then the first size checked). AT_EINVAL naming the
 * knob when a size is < 1, the product does not divide the extent, or sizes[0] is neither -1 nor
 * that outer extent (parts is then unspecified). */
at_status at_tmpl_split_parts(const at_config *c, size_t knob, int64_t extent, size_t n, int64_t *parts);

/* AnnotateEntity.apply with axis_lens, max_unroll and vec_size: kinds[i] = SERIAL ("none"),
 * UNROLLED or VECTORIZED for the n axes of annotate knob `knob`. AT_EINVAL (TVM's raise_error:
 * "Too large factor for unrolling" when an unrolled axis is longer than max_unroll (0: no
 * limit), "Wrong size of lanes in vectorization" when a vectorized length is not in vec_size
 * (NULL: no check), or an annotation this helper does not know). */
at_status at_tmpl_annotate(const at_config *c, size_t knob, size_t n, const int64_t *axis_lens, int64_t max_unroll,
                           const int64_t *vec_size, size_t n_vec, at_ir_for_kind *kinds);

/* at_template.fallback of the templates whose cfg.is_fallback branch is TVM's reference-log
 * fallback: at_space_fallback_with_reference_log(s, c, refs, n_refs), args unused. AT_EINVAL,
 * AT_ENOMEM as that function. */
at_status at_tmpl_fallback_reference_log(const at_args *args, const at_space *s, const at_config *const *refs,
                                         size_t n_refs, at_config **c);

/* A cfg.is_fallback branch's assignments on fallback config *c: split knob `knob` set to
 * sizes[0..n) (cfg["tile_k"] = SplitEntity([-1, 64])), other-option knob `knob` set to integer v.
 * Statuses as at_space_fallback_set. */
at_status at_tmpl_fallback_split(const at_space *s, at_config **c, size_t knob, const int64_t *sizes, size_t n);
at_status at_tmpl_fallback_other(const at_space *s, at_config **c, size_t knob, int64_t v);

/* The vector sizes TVM's Mali schedules accept: 1, 2, 4, 8, 16. */
extern const int64_t at_tmpl_mali_vec_size[5];

/* A padded NCHW tensor as topi's nn.pad defines it: the unpadded extents, the padding, the value
 * outside, and whether to clamp the read. */
typedef struct at_tmpl_pad {
    int64_t           n, c, h, w;     /* the unpadded tensor */
    int64_t           pt, pl, pb, pr; /* top, left, bottom, right */
    const at_ir_expr *value;          /* outside the tensor; NULL: zero of the data's type */
    /* Clamp the row and column read into the tensor, so the load stays in bounds where the guard
     * fails: a select whose condition varies across vector lanes evaluates both arms (OpenCL's
     * select(), LLVM's vector select after a gather), so an unclamped load under a vectorized
     * loop reads outside the buffer. */
    bool              clamp;
} at_tmpl_pad;

/* Sets g's stride (h, w), dilation (h, w) and padding (top, left, bottom, right) (op_util.c). */
void at_tmpl_geom_window(at_conv2d_geom *g, const int64_t stride[2], const int64_t dilation[2], const int64_t pad[4]);
/* Fills g's derived sizes (khd, kwd, ihp, iwp, oh, ow: TVM's output-size rule, 0 when the
 * dilated window does not fit) from its data, kernel, stride, dilation and padding (op_util.c). */
void at_tmpl_geom_derive(at_conv2d_geom *g);

/* The padding of a convolution (or pooling) geometry: zero value, no clamp. */
at_tmpl_pad at_tmpl_pad_of(const at_conv2d_geom *g);

/* Load of data[n][c][h - pt][w - pl] from an NCHW tensor as topi's nn.pad reads it (p->value
 * outside): h and w are coordinates in the padded tensor. The guard holds h >= pt && h < H + pt
 * for an axis with padding (TVM's condition), and for an axis without padding only when h can
 * reach h_max >= H (a read TVM would make past the end and never use). */
const at_ir_expr *at_tmpl_pad_load_ex(at_ir_sched *s, const at_ir_buffer *data, const at_tmpl_pad *p,
                                      const at_ir_expr *n, const at_ir_expr *c, const at_ir_expr *h,
                                      const at_ir_expr *w, int64_t h_max, int64_t w_max);

/* at_tmpl_pad_load_ex with at_tmpl_pad_of(g): the zero padding of a convolution. */
const at_ir_expr *at_tmpl_pad_load(at_ir_sched *s, const at_ir_buffer *data, const at_conv2d_geom *g,
                                   const at_ir_expr *n, const at_ir_expr *c, const at_ir_expr *h,
                                   const at_ir_expr *w, int64_t h_max, int64_t w_max);

/* The inner size of 2-way split knob `knob` of c, which must divide extent (VTA's templates apply
 * a split by its inner size alone). AT_EINVAL naming the knob as `name` when it does not. */
at_status at_tmpl_split_inner_size(const at_config *c, size_t knob, const char *name, int64_t extent, int64_t *inner);

/* ---- CPU schedules (templates/arm_cpu_util.c) ----------------------------------------------- */

/* Sizes of split knob `knob` (n parts) as TVM's SplitEntity.apply uses them: by the sizes after
 * the first, whatever the first says (a record's [8, 8] on an extent of 16 splits 2 x 8):
 * parts[0] = extent / prod(sizes[1:]), parts[i] = sizes[i]. AT_EINVAL naming the knob when a size
 * is < 1 or the product does not divide the extent. */
at_status at_tmpl_split_inner(const at_config *c, size_t knob, int64_t extent, size_t n, int64_t *parts);

/* One schedule axis of a CPU loop nest: one loop, or two when a vectorized axis is longer than
 * the IR's 16 lanes (TVM's LLVM codegen makes one wide vector, which LLVM legalizes into
 * native-width pieces): an unrolled outer loop over pieces of the largest lane count <= 16
 * dividing the extent, and the vectorized inner loop (at_tmpl_nest moves it innermost). An axis
 * with no such divisor (a prime extent) is unrolled. index = the axis value (outer * lanes +
 * inner). */
typedef struct at_tmpl_axis {
    at_tmpl_loop      loops[2];
    size_t            n;
    const at_ir_expr *index;
} at_tmpl_axis;

at_tmpl_axis at_tmpl_cpu_axis(at_ir_sched *s, const char *name, int64_t extent, at_ir_for_kind kind);

/* Appends the loops of axes[0..n) to out in order; returns how many (at most 2 n). */
size_t at_tmpl_axes_loops(const at_tmpl_axis *axes, size_t n, at_tmpl_loop *out);

/* ---- spatial-pack conv2d (templates/spatial_pack.c) ----------------------------------------- */

/* TVM's conv2d_spatial_pack_nchw compute, shared by the Mali (num_tile 3: blocks, threads,
 * per-thread tile) and arm_cpu (num_tile 2: blocks, per-block tile) templates. Its knobs, in the
 * order the compute defines them: */
enum {
    AT_TMPL_SP_TILE_CO,
    AT_TMPL_SP_TILE_OH,
    AT_TMPL_SP_TILE_OW,
    AT_TMPL_SP_REORDER_0,   /* [n, co, oh, ow, ci, kh, kw, vh, vw, vc]: vh,vw,vc or vc,vh,vw innermost */
    AT_TMPL_SP_ANN_REDUCE,  /* (kh, kw) try_unroll */
    AT_TMPL_SP_ANN_SPATIAL, /* (vh, vw, vc) try_unroll_vec */
    AT_TMPL_SP_N_KNOBS
};

/* A config's tiles of the compute, with the buffers every spatial-pack schedule has. */
typedef struct at_tmpl_sp {
    at_conv2d_geom      g;
    at_ir_type          dt, kt, ot;
    int64_t             bc, tc, vc, bh, th, vh, bw, tw, vw; /* blocks, threads (1 when num_tile 2), tile */
    int64_t             dvh, dvw; /* data_vec window (undilated); dilated: KH x KW x VH x VW per tile */
    bool                dilated;
    const at_ir_buffer *data, *kernel, *out; /* parameters */
    const at_ir_buffer *kvec, *dvec;         /* kernel_vec; data_vec (or data_vec_undilated) */
} at_tmpl_sp;

/* Defines the compute's knobs on an empty space, the tile splits num_tile-way (2 or 3; AT_ASSERT).
 * AT_EINVAL / AT_ENOMEM from knobs/. */
at_status at_tmpl_sp_define_space(const at_args *args, at_space *s, size_t num_tile);

/* *p from config c: the tile splits (by at_tmpl_split_inner when as_given, else
 * at_tmpl_split_parts), the geometry, and the parameters data, kernel, output and temporaries
 * kernel_vec, data_vec created in s in that order. AT_EINVAL (a split that does not fit, or a
 * data_vec over 2^31 - 1 elements). */
at_status at_tmpl_sp_init(const at_args *args, const at_config *c, size_t num_tile, bool as_given, at_ir_sched *s,
                          at_tmpl_sp *p);

/* Adds data_vec_kernel: l[0..n_outer) are the caller's loops (n_outer >= 4; l[0..3] iterate n,
 * the oh/VH and ow/VW tile rows and columns, ci); the window loops are appended to l (room for
 * n_outer + 4), unrolled when shorter than max_unroll (0: serial). */
void at_tmpl_sp_data_vec(at_ir_sched *s, const at_tmpl_sp *p, at_tmpl_loop *l, size_t n_outer, int64_t max_unroll);

/* conv's loop kinds from c: order[i] = which of vh, vw, vc (0, 1, 2) is the i-th spatial loop
 * (reorder_0), red_kind for kh, kw (ann_reduce), sp_kind for vh, vw, vc (ann_spatial), annotated
 * as at_tmpl_annotate with max_unroll and vec_size[0..n_vec). AT_EINVAL (a reorder_0 that moves
 * other axes, or an annotation at_tmpl_annotate refuses). */
at_status at_tmpl_sp_conv_kinds(const at_config *c, const at_tmpl_sp *p, int64_t max_unroll, const int64_t *vec_size,
                                size_t n_vec, int order[3], at_ir_for_kind red_kind[2], at_ir_for_kind sp_kind[3]);

/* conv's update term cast(ot, data_vec[...]) * cast(ot, kernel_vec[...]) at batch nn, tile row h,
 * tile column w, output-channel block co, reduction ci, kh, kw and spatial spv = (vh, vw, vc). */
const at_ir_expr *at_tmpl_sp_conv_term(at_ir_sched *s, const at_tmpl_sp *p, const at_ir_expr *nn, const at_ir_expr *h,
                                       const at_ir_expr *w, const at_ir_expr *co, const at_ir_expr *ci,
                                       const at_ir_expr *kh, const at_ir_expr *kw, const at_ir_expr *const spv[3]);

/* An update term of conv at (nn, tile row h, tile column w, block co, ci, kh, kw, spv); ctx the
 * caller's. */
typedef const at_ir_expr *(*at_tmpl_sp_term)(at_ir_sched *s, const at_tmpl_sp *p, const at_ir_expr *nn,
                                             const at_ir_expr *h, const at_ir_expr *w, const at_ir_expr *co,
                                             const at_ir_expr *ci, const at_ir_expr *kh, const at_ir_expr *kw,
                                             const at_ir_expr *const spv[3], void *ctx);

/* The arm_cpu schedule's conv and output_unpack kernel (conv2d_spatial_pack_arm_cpu.c): n, co
 * (parallel), oh, ow over the tiles, conv computed there in a private VH x VW x VC block
 * (initialised, accumulated with term over ci, kh, kw and the spatial loops in reorder_0's order
 * with the annotations of c), then written out NCHW. AT_EINVAL as at_tmpl_sp_conv_kinds. */
at_status at_tmpl_sp_arm_cpu_conv(at_ir_sched *s, const at_tmpl_sp *p, const at_config *c, at_tmpl_sp_term term, void *ctx);

/* at_tmpl_sp_define_space for a geometry the caller derived (the transposed convolution's). */
at_status at_tmpl_sp_define_space_geom(const at_conv2d_geom *g, at_space *s, size_t num_tile);

/* ---- Winograd F(m x m, 3 x 3) (templates/winograd.c) ---------------------------------------- */

/* The tile geometry TVM's Winograd computes (Mali's and CUDA's) derive from the workload. */
typedef struct at_tmpl_wino {
    at_conv2d_geom g;
    int            m, al;          /* output tile, alpha = m + 2 */
    const double  *A, *B, *G;      /* at_op_winograd_matrices(m) */
    int64_t        H, W, nH, nW, P; /* output extents, tiles per column and row, tiles N nH nW */
} at_tmpl_wino;

/* *w for conv2d_nchw_winograd args and tile size m (2 or 4: each template picks its own). */
void at_tmpl_wino_init(const at_args *args, int m, at_tmpl_wino *w);

/* Element (eps, nu) of input tile p (n nH nW + th nW + tw) of channel ci, read from data through
 * topi's inlined zero padding and cast to ot: data_pad[n][ci][th m + eps][tw m + nu]. */
const at_ir_expr *at_tmpl_wino_tile_load(at_ir_sched *s, const at_tmpl_wino *w, const at_ir_buffer *data,
                                         at_ir_type ot, const at_ir_expr *p, const at_ir_expr *ci,
                                         const at_ir_expr *eps, const at_ir_expr *nu);

/* The element x(a, b) of the transformed block, for the constant-indexed (unrolled) a, b. */
typedef const at_ir_expr *(*at_tmpl_wino_elem)(at_ir_sched *s, int a, int b, void *ctx);

/* sum over a, b in [0, n) of x(a, b) * T[a sa + i si] * T[b sa + j si] in type t, a outer, terms
 * with a zero coefficient left out and unit coefficients not multiplied (what TVM's constant
 * folding leaves of its unrolled reduction); 0 when no term is left. B^T d B: T = B, sa = alpha,
 * si = 1; A^T M A: T = A, sa = m, si = 1; G g G^T: T = G, n = 3, sa = 1, si = 3. */
const at_ir_expr *at_tmpl_wino_transform(at_ir_sched *s, at_ir_type t, const double *T, int n, int sa, int si, int i,
                                         int j, at_tmpl_wino_elem x, void *ctx);

/* at_tmpl_wino_elem of the kernel transform: kernel[co][ci][a][b] (a 3 x 3 OIHW kernel) cast to ot. */
typedef struct at_tmpl_wino_kernel_ctx {
    const at_tmpl_wino *w;
    const at_ir_buffer *kernel;
    at_ir_type          ot;
    const at_ir_expr   *co, *ci;
} at_tmpl_wino_kernel_ctx;
const at_ir_expr *at_tmpl_wino_kernel_elem(at_ir_sched *s, int a, int b, void *ctx);

/* at_tmpl_wino_elem of the inverse transform: M[a][b][co][p] of the batched GEMM's alpha x alpha x
 * CO x n_p output. */
typedef struct at_tmpl_wino_gemm_ctx {
    const at_tmpl_wino *w;
    const at_ir_buffer *M;
    int64_t             n_p;
    const at_ir_expr   *co, *p;
} at_tmpl_wino_gemm_ctx;
const at_ir_expr *at_tmpl_wino_gemm_elem(at_ir_sched *s, int a, int b, void *ctx);

/* The output stage's store of one m x m tile: out[n][co][ho m + hi][wo m + wi] = tile[hi m + wi]
 * over loops hi, wi of the given kind, guarded where H or W is not a multiple of m (the ragged
 * last row and column of tiles). */
const at_ir_stmt *at_tmpl_wino_store_tile(at_ir_sched *s, const at_tmpl_wino *w, const at_ir_buffer *out,
                                          const at_ir_buffer *tile, const at_ir_expr *n, const at_ir_expr *co,
                                          const at_ir_expr *ho, const at_ir_expr *wo, at_ir_for_kind kind);

/* ---- testing/matmul (templates/matmul.c) ---------------------------------------------------- */

enum { AT_TMPL_MATMUL_TILE_Y, AT_TMPL_MATMUL_TILE_X, AT_TMPL_MATMUL_N_KNOBS };

/* A config's tiles of C (rows yo x yi, columns xo x xi) and the parameters A, B, C. */
typedef struct at_tmpl_matmul {
    int64_t             yo, yi, xo, xi;
    const at_ir_buffer *A, *B, *C;
} at_tmpl_matmul;

/* Defines tile_y (rows N) and tile_x (columns M), 2-way splits, on an empty space. AT_EINVAL /
 * AT_ENOMEM from knobs/. */
at_status at_tmpl_matmul_define_space(const at_args *a, at_space *s);

/* *mm from config c, creating parameters A, B, C in s in that order. AT_EINVAL naming the knob
 * when a split's inner size does not divide its extent or its outer size is neither -1 nor the
 * quotient. */
at_status at_tmpl_matmul_init(const at_args *a, const at_config *c, at_ir_sched *s, at_tmpl_matmul *mm);

/* ---- the registries' run-time extension (templates/registry_ext.c, templates/plugin.h) ----- */

/* The row of run-time kind op (op >= AT_OP_COUNT), NULL when no such kind. */
const at_op_def *at_op_ext_def(at_op_kind op);
/* The run-time kind named name; false when none. */
bool at_op_ext_find(const char *name, at_op_kind *out);
/* Appends ", name" for every run-time kind (the "kinds:" list of at_op_find's error). */
void at_op_ext_list(at_strbuf *sb);
/* Run-time templates: how many, the i-th in registration order, the one of (name, target). */
size_t             at_tmpl_ext_count(void);
const at_template *at_tmpl_ext_at(size_t i);
const at_template *at_tmpl_ext_find(const char *name, at_target_family target);

/* ---- x86 NCHW[x]c convolutions (templates/nchwc_x86.c) ------------------------------------ */

/* Axis of fused variable f whose axes inside it have `inner` iterations: f / inner % extent
 * (no modulo for the outermost axis). */
const at_ir_expr *at_tmpl_unfuse(at_ir_sched *s, const at_ir_expr *f, int64_t inner, int64_t extent, bool outermost);
/* Adds the preparation kernel data_vec[n][c / bn][h][w][c % bn] = data[n][c][h][w] (TVM feeds the
 * packed data as a placeholder while tuning), parallel over the channel blocks. */
void at_tmpl_nchwc_data_vec(at_ir_sched *s, const at_ir_buffer *data, const at_ir_buffer *dvec, int64_t n, int64_t c,
                            int64_t h, int64_t w, int64_t bn);
/* Adds the finishing kernel out[n][c][h][w] = packed[n][c / bn][h][w][c % bn]: TVM times the
 * convolution into its NCHW[bn]c tensor, and unpack_NCHWc_to_nchw belongs to the network. */
void at_tmpl_nchwc_unpack(at_ir_sched *s, const at_ir_buffer *packed, const at_ir_buffer *out, int64_t n, int64_t c,
                          int64_t h, int64_t w, int64_t bn);
/* The input row oh sh + kh dh - pt and column ow sw + kw dw - pl an output tap reads (unpadded
 * coordinates: outside the input means the zero padding). */
const at_ir_expr *at_tmpl_nchwc_in_row(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *oh, const at_ir_expr *kh);
const at_ir_expr *at_tmpl_nchwc_in_col(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *ow, const at_ir_expr *kw);
/* The guard "row h (column w) is inside the input", testing only the sides that are padded; NULL
 * when neither is. */
const at_ir_expr *at_tmpl_nchwc_row_inside(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *h);
const at_ir_expr *at_tmpl_nchwc_col_inside(at_ir_sched *s, const at_conv2d_geom *g, const at_ir_expr *w);
/* Output-width chunks [begin, end) of tw columns; border: some tap of a chunk reads a padded column. */
typedef struct at_tmpl_chunk_range {
    int64_t begin, end;
    bool    border;
} at_tmpl_chunk_range;
/* Splits chunks 0 .. n_chunks - 1 into the border chunks before, the interior chunks, and the border
 * chunks after (empty ranges left out); returns how many ranges. */
size_t at_tmpl_nchwc_chunk_ranges(const at_conv2d_geom *g, int64_t tw, int64_t n_chunks, at_tmpl_chunk_range out[3]);
/* The loop over range r's chunks ("ow.outer": unrolled for a border range of up to 4 chunks, else
 * serial); *ow0 is the first output column of its chunk (tw columns a chunk). */
at_tmpl_loop at_tmpl_nchwc_chunk_loop(at_ir_sched *s, const at_tmpl_chunk_range *r, int64_t tw, const at_ir_expr **ow0);
/* tile_ow's filter in TVM's x86 templates: the last size at most 64. */
bool at_tmpl_x86_ow_filter(const int64_t *sizes, size_t n, void *ctx);
/* The space TVM's x86 depthwise and group conv templates define alike, knobs 0 to 3: tile_ic,
 * tile_oc (2-way factor splits), tile_ow (2-way factor split, last size <= 64), unroll_kw. */
at_status at_tmpl_x86_space_ic_oc_ow_kw(at_space *s, int64_t ci, int64_t co, int64_t ow);
/* The largest bn <= below dividing extent (TVM's fallback block-size loops). */
int64_t at_tmpl_x86_block(int64_t extent, int64_t below);
/* get_simd_32bit_lanes() for `llvm` without -mcpu (no avx2/avx512 features): 4. */
enum { AT_TMPL_X86_SIMD_LANES = 4 };

#endif
