/* The loop-nest IR that templates build directly: typed expressions, statements, buffers, kernels
 * and programs of several kernels, all allocated in one at_arena (STYLE 2.5: one at_arena_free
 * releases an instantiation). No bounds inference: a template computes every extent itself.
 *
 * Execution model (TVM's lowered IR, OpenCL's SPMD): every work-item runs its kernel's whole body.
 * A loop bound to blockIdx.* / threadIdx.* is not a loop but a binding: its variable takes the
 * work-item's group / local id in that dimension and its body runs once. All bindings of one tag
 * in a kernel share one extent, which is that dimension's launch size. Private buffers belong to
 * one work-item, local buffers to one work-group, global buffers to the program. A program runs
 * its kernels in order; temporary global buffers carry data from one kernel to the next.
 *
 * Nodes are plain data, readable by every backend; they are created only through the builder
 * functions below, which never fail loudly: on allocation failure they return NULL and make the
 * builder's sticky status AT_ENOMEM (like at_strbuf), so template code checks once at the end.
 * A node given a NULL child returns NULL. Type errors in what a template builds are bugs and
 * AT_ASSERT. */
#ifndef AT_IR_IR_H
#define AT_IR_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/status.h"
#include "core/strbuf.h"

/* ---- types ---------------------------------------------------------------------------------- */

typedef enum at_ir_tcode { AT_IR_TINT = 0, AT_IR_TUINT, AT_IR_TFLOAT, AT_IR_TBOOL } at_ir_tcode;

/* A scalar or vector type: code, bits per lane (bool: 1) and lanes (1..16). */
typedef struct at_ir_type {
    uint8_t  code;  /* at_ir_tcode */
    uint8_t  bits;
    uint16_t lanes;
} at_ir_type;

#define AT_IR_MAX_LANES 16

#define AT_IR_BOOL ((at_ir_type){AT_IR_TBOOL, 1, 1})
#define AT_IR_I8 ((at_ir_type){AT_IR_TINT, 8, 1})
#define AT_IR_I16 ((at_ir_type){AT_IR_TINT, 16, 1})
#define AT_IR_I32 ((at_ir_type){AT_IR_TINT, 32, 1})
#define AT_IR_I64 ((at_ir_type){AT_IR_TINT, 64, 1})
#define AT_IR_U8 ((at_ir_type){AT_IR_TUINT, 8, 1})
#define AT_IR_U32 ((at_ir_type){AT_IR_TUINT, 32, 1})
#define AT_IR_F16 ((at_ir_type){AT_IR_TFLOAT, 16, 1})
#define AT_IR_F32 ((at_ir_type){AT_IR_TFLOAT, 32, 1})
#define AT_IR_F64 ((at_ir_type){AT_IR_TFLOAT, 64, 1})

/* t with `lanes` lanes (AT_ASSERT 1 <= lanes <= 16). */
at_ir_type at_ir_type_with_lanes(at_ir_type t, int lanes);
bool       at_ir_type_eq(at_ir_type a, at_ir_type b);
bool       at_ir_type_is_int(at_ir_type t);   /* int or uint, any lanes */
bool       at_ir_type_is_float(at_ir_type t);
/* Bytes of one lane (bool: 1). */
size_t at_ir_type_bytes(at_ir_type t);
/* TVM's dtype text: "float32", "int8", "bool", "float32x4"; buf must hold 16 bytes; returns buf. */
const char *at_ir_type_str(at_ir_type t, char buf[16]);
/* Parses TVM's dtype text ("float32", "int32", "uint8", "bool", "float16x4"). AT_EPARSE. */
at_status at_ir_type_parse(const char *text, at_ir_type *out);

/* ---- nodes ---------------------------------------------------------------------------------- */

/* A variable: a loop index, a thread binding or a let. Bound by exactly one node per scope. */
typedef struct at_ir_var {
    const char *name;
    at_ir_type  type;
    uint32_t    id; /* dense, < at_ir_program.n_vars */
} at_ir_var;

/* Memory scopes in OpenCL terms (TVM: "global", "shared", "local"). */
typedef enum at_ir_scope { AT_IR_GLOBAL = 0, AT_IR_LOCAL, AT_IR_PRIVATE } at_ir_scope;

/* Role of a global buffer in the program's signature; local/private buffers are AT_IR_SCRATCH. */
typedef enum at_ir_role { AT_IR_INPUT = 0, AT_IR_OUTPUT, AT_IR_TEMP, AT_IR_SCRATCH } at_ir_role;

/* A flat array of `size` scalars of type `elem`. */
typedef struct at_ir_buffer {
    const char *name;
    at_ir_type  elem; /* scalar */
    int64_t     size; /* elements, >= 1 */
    at_ir_scope scope;
    at_ir_role  role;
    uint32_t    id;   /* index in at_ir_program.bufs for global buffers; unique per program */
} at_ir_buffer;

typedef enum at_ir_expr_kind {
    AT_IR_INT_IMM = 0,
    AT_IR_FLOAT_IMM,
    AT_IR_VAR,
    AT_IR_BINARY,
    AT_IR_UNARY,
    AT_IR_SELECT,
    AT_IR_CAST,
    AT_IR_LOAD,      /* type.lanes consecutive elements buf[index .. index+lanes-1] */
    AT_IR_BROADCAST, /* a scalar repeated over type.lanes */
    AT_IR_LANE,      /* one lane of a vector */
    AT_IR_VECTOR,    /* a vector made of scalars */
    AT_IR_CALL,      /* an intrinsic: pure math function by OpenCL name */
    AT_IR_EXPR_KIND_COUNT
} at_ir_expr_kind;

/* Integer DIV and MOD truncate toward zero (C); AND/OR are logical on bools. Comparisons give bool
 * (with the operands' lanes). */
typedef enum at_ir_binop {
    AT_IR_ADD = 0, AT_IR_SUB, AT_IR_MUL, AT_IR_DIV, AT_IR_MOD, AT_IR_MIN, AT_IR_MAX,
    AT_IR_EQ, AT_IR_NE, AT_IR_LT, AT_IR_LE, AT_IR_GT, AT_IR_GE,
    AT_IR_AND, AT_IR_OR, AT_IR_BIT_AND, AT_IR_BIT_OR, AT_IR_BIT_XOR, AT_IR_SHL, AT_IR_SHR,
    AT_IR_BINOP_COUNT
} at_ir_binop;

typedef enum at_ir_unop { AT_IR_NEG = 0, AT_IR_NOT, AT_IR_BIT_NOT, AT_IR_UNOP_COUNT } at_ir_unop;

typedef struct at_ir_expr at_ir_expr;
struct at_ir_expr {
    at_ir_expr_kind kind;
    at_ir_type      type;
    union {
        int64_t          int_val;
        double           float_val;
        const at_ir_var *var;
        struct { at_ir_binop op; const at_ir_expr *a, *b; } bin;
        struct { at_ir_unop op; const at_ir_expr *a; } un;
        /* a scalar condition evaluates only the chosen arm (C's ?:, TVM's if_then_else); a
         * vector condition evaluates both and picks lane by lane */
        struct { const at_ir_expr *cond, *t, *f; } select;
        struct { const at_ir_expr *a; } cast;
        struct { const at_ir_buffer *buf; const at_ir_expr *index; } load;
        struct { const at_ir_expr *a; } broadcast;
        struct { const at_ir_expr *a; int lane; } lane;
        struct { const at_ir_expr *const *elems; size_t n; } vector;
        struct { const char *name; const at_ir_expr *const *args; size_t n_args; } call;
    } u;
};

/* Loop kinds: TVM's ForKind plus its thread tags (one enum, so a loop carries one annotation). */
typedef enum at_ir_for_kind {
    AT_IR_SERIAL = 0,
    AT_IR_UNROLLED,   /* unrolled by the backend (or #pragma unroll with AT_IR_LOOP_PRAGMA_UNROLL) */
    AT_IR_VECTORIZED, /* iterations become vector lanes (must not depend on each other); innermost,
                         extent 2..16 */
    AT_IR_VTHREAD,    /* TVM's virtual thread: iterations interleaved, unrolled */
    AT_IR_BLOCK_X, AT_IR_BLOCK_Y, AT_IR_BLOCK_Z,
    AT_IR_THREAD_X, AT_IR_THREAD_Y, AT_IR_THREAD_Z,
    AT_IR_PARALLEL,   /* CPU backends: iterations shared out over a thread pool (TVM's kParallel); an
                         OpenCL kernel runs it as a serial loop. Not nested in another parallel loop */
    AT_IR_FOR_KIND_COUNT
} at_ir_for_kind;

/* "serial", "unrolled", "vectorized", "vthread", "blockIdx.x" ... "threadIdx.z". */
const char *at_ir_for_kind_str(at_ir_for_kind k);
/* True for blockIdx.* and threadIdx.* bindings. */
bool at_ir_for_kind_is_binding(at_ir_for_kind k);

/* Loop flags. */
enum { AT_IR_LOOP_PRAGMA_UNROLL = 1 }; /* AT_IR_UNROLLED: leave the loop, ask the compiler */

typedef enum at_ir_stmt_kind {
    AT_IR_FOR = 0, AT_IR_STORE, AT_IR_SEQ, AT_IR_IF, AT_IR_LET, AT_IR_BARRIER, AT_IR_PREFETCH, AT_IR_STMT_KIND_COUNT
} at_ir_stmt_kind;

typedef struct at_ir_stmt at_ir_stmt;
struct at_ir_stmt {
    at_ir_stmt_kind kind;
    union {
        struct {
            const at_ir_var  *var;
            int64_t           extent; /* iterations 0 .. extent-1 */
            at_ir_for_kind    kind;
            unsigned          flags;
            const at_ir_stmt *body;
        } loop;
        /* buf[index .. index+lanes-1] = value (lanes of value) */
        struct { const at_ir_buffer *buf; const at_ir_expr *index, *value; } store;
        struct { const at_ir_stmt *const *items; size_t n; } seq;
        struct { const at_ir_expr *cond; const at_ir_stmt *then_s, *else_s; } if_; /* else may be NULL */
        struct { const at_ir_var *var; const at_ir_expr *value; const at_ir_stmt *body; } let;
        struct { at_ir_scope scope; } barrier; /* work-group barrier fencing local or global memory */
        /* a hint: bring buf[index]'s cache line closer (no effect on any value; CPU backends) */
        struct { const at_ir_buffer *buf; const at_ir_expr *index; } prefetch;
    } u;
};

typedef struct at_ir_kernel {
    const char               *name;
    const at_ir_stmt         *body;
    const at_ir_buffer *const *allocs; /* local and private buffers of this kernel */
    size_t                    n_allocs;
    /* A preparation kernel: it computes a temporary that depends on inputs TVM treats as
     * constants (a packed or transformed weight layout: the spatial pack's kernel_vec, Winograd's
     * U). TVM's tuning feeds such a tensor as a placeholder input, so its cost is not measured:
     * a runner runs preparation kernels before the timed launches and leaves them out of the
     * timing. Interpreting or running the whole program in order is always correct. */
    bool                      prepare;
    /* A finishing kernel: it turns what the timed kernels computed into the op's signature where
     * TVM's tuned program ends earlier (the x86 NCHWc templates: TVM times the NCHW[oc_bn]c tensor
     * itself; its unpacking to NCHW is the network's layout transform). Runners run it with the
     * untimed first run and leave it out of the timed launches, as preparation kernels. */
    bool                      finish;
} at_ir_kernel;

/* Is kernel k one of the timed launches (neither preparing nor finishing)? */
static inline bool at_ir_kernel_timed(const at_ir_kernel *k)
{
    return !k->prepare && !k->finish;
}

/* A program: global buffers (inputs and outputs in signature order, then temporaries) and
 * kernels run in order. */
typedef struct at_ir_program {
    const char                *name;
    const at_ir_buffer *const *bufs;
    size_t                     n_bufs;
    const at_ir_kernel        *kernels;
    size_t                     n_kernels;
    uint32_t                   n_vars;
} at_ir_program;

/* Number of program buffers that are inputs or outputs (the signature), in order. */
size_t at_ir_program_n_params(const at_ir_program *p);

/* Does statement s (NULL: no) store into buffer b anywhere? */
bool at_ir_stmt_stores_to(const at_ir_stmt *s, const at_ir_buffer *b);

/* Does statement s (NULL: no) load from buffer b anywhere? */
bool at_ir_stmt_loads_from(const at_ir_stmt *s, const at_ir_buffer *b);

/* Calls fn on every expression in statement s (NULL: none), each node before its operands, the
 * statements in order (a prefetch's index too); stops at the first call that returns true and
 * returns true, else false. */
bool at_ir_stmt_any_expr(const at_ir_stmt *s, bool (*fn)(const at_ir_expr *e, void *ctx), void *ctx);

/* Does a preparation kernel of p write b? Such a temporary holds packed weights from the first
 * run on (the role of TVM's pre-packed kernel argument). */
bool at_ir_program_prepares(const at_ir_program *p, const at_ir_buffer *b);

/* ---- builder -------------------------------------------------------------------------------- */

/* The builder a template schedules through: a program under construction in an arena. */
typedef struct at_ir_sched at_ir_sched;

/* Starts a program named name; everything lives in arena (borrowed; it must outlive the program).
 * Returns NULL when out of memory. Nothing to free besides the arena. */
at_ir_sched *at_ir_sched_begin(at_arena *arena, const char *name);

/* AT_OK, or AT_ENOMEM once any builder call ran out of memory (sticky). */
at_status at_ir_sched_status(const at_ir_sched *s);

/* The arena the builder allocates in (for a template's own scratch data). */
at_arena *at_ir_sched_arena(at_ir_sched *s);

/* Ends the program: AT_ENOMEM (sticky failure), AT_EINVAL when it has no kernel, else *out is the
 * program (owned by the arena). */
at_status at_ir_sched_finish(at_ir_sched *s, const at_ir_program **out);

/* Buffers. Global parameters are appended to the signature in call order; temporaries follow
 * the parameters in the program's buffer list; local and private buffers belong to the next
 * kernel added. elem is a scalar type, size >= 1 (AT_ASSERT). */
const at_ir_buffer *at_ir_param(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size, at_ir_role role);
const at_ir_buffer *at_ir_temp(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size);
const at_ir_buffer *at_ir_alloc(at_ir_sched *s, const char *name, at_ir_type elem, int64_t size, at_ir_scope scope);

/* Appends a kernel whose body is body, owning the local/private buffers allocated since the
 * previous kernel. Failure shows in the sticky status. */
void at_ir_add_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body);
/* Same, for a preparation kernel (at_ir_kernel.prepare). */
void at_ir_add_prepare_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body);
/* Same, for a finishing kernel (at_ir_kernel.finish). */
void at_ir_add_finish_kernel(at_ir_sched *s, const char *name, const at_ir_stmt *body);

/* An output epilogue: TVM fusing the injective ops after an anchor (bias, residual add, ReLU) into
 * its output stage. Installed before a template schedules: right after the template creates its
 * first output parameter, params() adds the epilogue's own input parameters (so the signature is
 * the op's, then the epilogue's), and every value the program stores into that output goes
 * through apply() (the store's index, the value of value->type.lanes lanes). A program that loads
 * from that output does not store final values: at_ir_sched_finish then fails with AT_EINVAL. */
typedef struct at_ir_epilogue {
    void (*params)(at_ir_sched *s, void *ctx);
    const at_ir_expr *(*apply)(at_ir_sched *s, void *ctx, const at_ir_expr *index, const at_ir_expr *value);
    void *ctx;
} at_ir_epilogue;

/* Installs epi (borrowed until the program is finished) on a builder with no parameter yet. */
void at_ir_sched_set_epilogue(at_ir_sched *s, const at_ir_epilogue *epi);

/* A new variable (int32 for loops unless told otherwise). */
const at_ir_var *at_ir_var_new(at_ir_sched *s, const char *name, at_ir_type type);

/* Expressions. Binary operands must have equal types (AT_ASSERT); comparisons give bool. */
const at_ir_expr *at_ir_int(at_ir_sched *s, at_ir_type t, int64_t v);
const at_ir_expr *at_ir_i32(at_ir_sched *s, int64_t v);
const at_ir_expr *at_ir_float(at_ir_sched *s, at_ir_type t, double v);
const at_ir_expr *at_ir_f32(at_ir_sched *s, double v);
const at_ir_expr *at_ir_v(at_ir_sched *s, const at_ir_var *var);
const at_ir_expr *at_ir_bin(at_ir_sched *s, at_ir_binop op, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_add(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_sub(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_mul(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_div(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_mod(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_min(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_max(at_ir_sched *s, const at_ir_expr *a, const at_ir_expr *b);
const at_ir_expr *at_ir_un(at_ir_sched *s, at_ir_unop op, const at_ir_expr *a);
const at_ir_expr *at_ir_select(at_ir_sched *s, const at_ir_expr *cond, const at_ir_expr *t, const at_ir_expr *f);
const at_ir_expr *at_ir_cast(at_ir_sched *s, at_ir_type t, const at_ir_expr *a);
/* Load of `lanes` consecutive elements of buf starting at index (an int32/int64 scalar). */
const at_ir_expr *at_ir_load(at_ir_sched *s, const at_ir_buffer *buf, const at_ir_expr *index, int lanes);
const at_ir_expr *at_ir_broadcast(at_ir_sched *s, const at_ir_expr *a, int lanes);
const at_ir_expr *at_ir_lane(at_ir_sched *s, const at_ir_expr *v, int lane);
const at_ir_expr *at_ir_vector(at_ir_sched *s, const at_ir_expr *const *elems, size_t n);
/* Intrinsic call (OpenCL builtin name: "exp", "sqrt", "fma", "floor", "tanh", ...) of type t. */
const at_ir_expr *at_ir_call(at_ir_sched *s, const char *name, at_ir_type t, const at_ir_expr *const *args,
                             size_t n_args);

/* sum_i vars[i] * prod_{j>i} extents[j]: the flat index of nested split parts, outer first. */
const at_ir_expr *at_ir_fuse(at_ir_sched *s, const at_ir_var *const *vars, const int64_t *extents, size_t n);

/* Statements. */
const at_ir_stmt *at_ir_for(at_ir_sched *s, const at_ir_var *var, int64_t extent, at_ir_for_kind kind,
                            const at_ir_stmt *body);
const at_ir_stmt *at_ir_for_flags(at_ir_sched *s, const at_ir_var *var, int64_t extent, at_ir_for_kind kind,
                                  unsigned flags, const at_ir_stmt *body);
const at_ir_stmt *at_ir_store(at_ir_sched *s, const at_ir_buffer *buf, const at_ir_expr *index,
                              const at_ir_expr *value);
const at_ir_stmt *at_ir_seq(at_ir_sched *s, const at_ir_stmt *const *items, size_t n);
const at_ir_stmt *at_ir_seq2(at_ir_sched *s, const at_ir_stmt *a, const at_ir_stmt *b);
const at_ir_stmt *at_ir_if(at_ir_sched *s, const at_ir_expr *cond, const at_ir_stmt *then_s,
                           const at_ir_stmt *else_s);
const at_ir_stmt *at_ir_let(at_ir_sched *s, const at_ir_var *var, const at_ir_expr *value, const at_ir_stmt *body);
const at_ir_stmt *at_ir_barrier(at_ir_sched *s, at_ir_scope scope);
/* prefetch buf[index] (index in bounds, as for a load) */
const at_ir_stmt *at_ir_prefetch(at_ir_sched *s, const at_ir_buffer *buf, const at_ir_expr *index);

/* ---- analysis ------------------------------------------------------------------------------- */

/* Launch geometry of one kernel: extents of its blockIdx/threadIdx bindings (1 when unbound). */
typedef struct at_ir_launch {
    int64_t  groups[3]; /* blockIdx.x/y/z extents */
    int64_t  local[3];  /* threadIdx.x/y/z extents */
    unsigned work_dim;  /* 1 + highest bound dimension (1 when none) */
} at_ir_launch;

/* Checks a program: loop extents >= 1; every variable bound before use and bound once per scope;
 * each thread tag has one extent per kernel and no binding nests inside another of its tag;
 * blockIdx bindings are not inside threadIdx bindings; barriers are not under a vectorized loop;
 * at most one vectorized loop per nest, extent 2..16, with no loop or barrier inside it; vector
 * loads/stores fit their buffer; parallel loops are neither nested nor under a thread binding;
 * and every load/store whose index range is static (loop and
 * binding variables over their extents, not under an if or select) stays inside its buffer.
 * Returns AT_OK or AT_EINVAL with the kernel and the first violation in the detail. */
at_status at_ir_verify(const at_ir_program *p);

/* Launch geometry of kernel k (run at_ir_verify first; AT_ASSERT k < n_kernels). */
void at_ir_kernel_launch(const at_ir_program *p, size_t k, at_ir_launch *out);

/* Bytes of local memory kernel k allocates. */
size_t at_ir_kernel_local_bytes(const at_ir_program *p, size_t k);

/* Appends the program as deterministic text (golden files). Failure shows in sb->failed. */
void at_ir_print(const at_ir_program *p, at_strbuf *sb);
/* Appends one expression in the printer's syntax. */
void at_ir_print_expr(const at_ir_expr *e, at_strbuf *sb);

/* Runs the program on the host, work-item by work-item, with barriers honoured (work-items of a
 * group run in lock step between barriers). bufs[i] points to the data of the i-th signature
 * parameter (at_ir_program_n_params of them) laid out as its elem type; temporaries, local and
 * private buffers are allocated here (private and local ones start as NaN / 0xA5 bytes so reads
 * before writes show). Returns AT_OK, AT_EINVAL (an access out of bounds, division by zero,
 * divergent barrier, unknown intrinsic; detail says where) or AT_ENOMEM. */
at_status at_ir_interp(const at_ir_program *p, void *const *bufs);

#endif
