/* Helpers shared by the files of networks/ (no other module includes this). */
#ifndef AT_NETWORKS_INTERNAL_H
#define AT_NETWORKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/status.h"
#include "ir/ir.h"
#include "networks/net.h"

/* Marks a network fused (fuse.c sets it on the graph it builds). */
void at_net_set_fused(at_net *net, bool fused);

/* Appends a copy of node (name, inputs, shape, attrs, epilogue) taking its parameter arrays (the
 * node's pointers are moved: the caller must not free them; on failure they are freed). For
 * fuse.c, which builds node kinds at_net_append refuses. *out = index. AT_ENOMEM. */
at_status at_net_push_node(at_net *net, const at_net_node *node, size_t *out);

/* A conv2d node with 1 < groups that is not depthwise (groups == input == output channels):
 * topi's group_conv2d_nchw. */
bool at_net_conv_is_grouped(const at_net *net, const at_net_node *n);

/* A per-channel element-wise node (batch norm, scale-shift, bias add, relu, add, dropout) or a
 * pooling of a 4-D tensor: it keeps its first input's layout, NCHW or NCHW[x]c (exec.c's
 * alter_op_layout). */
bool at_net_keeps_layout(const at_net_node *n);
/* A channel concatenation of 4-D inputs that all come in NCHW[b]c (blk[input] == b > 1) with
 * channels divisible by b runs in that layout: b; else 1 (NCHW). */
int64_t at_net_concat_block(const at_net *net, const at_net_node *n, const int64_t *blk);
/* A global average pooling of a 4-D tensor: it reads its input in whatever channel blocking that
 * comes in and writes [N, C, 1, 1], which NCHW and NCHW[x]c lay out alike (TVM's NCHWc
 * global_avg_pool2d, whose layout_transform back to NCHW moves nothing). */
bool at_net_reads_any_block(const at_net_node *n);

/* The packed anchors (packed[i]) whose output blocks a reader of node j sees: j itself, or those
 * upstream of it through layout-keeping nodes (first inputs) and channel concatenations (every
 * input), appended to out[n..cap); returns the new count. */
size_t at_net_packed_producers(const at_net *net, const bool *packed, size_t j, size_t *out, size_t cap, size_t n);

/* Length of a node's per-channel parameters: attrs.channels for anchors, else shape[1]. */
int64_t at_net_channels(const at_net_node *n);
/* Elements of an anchor's weight (0 for other ops). */
int64_t at_net_weight_numel(const at_net *net, const at_net_node *n);

/* A float array of n elements, at_malloc'ed; NULL when out of memory (n may be 0 -> 1 element). */
float *at_net_floats(int64_t n);
/* A copy of p[0..n); NULL when p is NULL or out of memory. */
float *at_net_floats_dup(const float *p, int64_t n);

/* ---- generated programs (kernels.c); each verified, living in arena; AT_ENOMEM, AT_EINVAL ---- */

/* y[i] = relu?(x[i] * scale[c] + shift[c] + residual[i]) with c the channel of flat index i, each
 * part optional: (i / inner) % channels in NCHW (block 0 or 1), and in NCHW[block]c
 * ((i / (inner block)) % (channels / block)) block + i % block. Signature: x, [scale], [shift],
 * [residual], y (float32). */
typedef struct at_net_affine {
    int64_t total, channels, inner, block;
    bool    scale, shift, residual, relu;
} at_net_affine;
at_status at_net_prog_affine(at_arena *arena, const char *name, const at_net_affine *a, const at_ir_program **out);
/* The channel of flat index i under a's layout. */
const at_ir_expr *at_net_affine_channel(at_ir_sched *s, const at_net_affine *a, const at_ir_expr *i);

/* An anchor's epilogue (shift = bias, residual, relu of a; no scale) fused into its template's
 * output stage as at_net_prog_affine computes it: y = relu?(v + shift[c] + residual[i]). Its
 * parameters follow the template's: [shift], [residual]. Lives as long as the program built
 * with it is being built. */
typedef struct at_net_fused_epilogue {
    at_net_affine       a;
    const at_ir_buffer *shift, *residual;
    at_ir_epilogue      epi;
} at_net_fused_epilogue;

void at_net_fused_epilogue_init(at_net_fused_epilogue *e, const at_net_affine *a);

/* n's op (max_pool2d, avg_pool2d) on input node in, both in NCHW (block <= 1) or NCHW[block]c.
 * Signature: x, y. */
at_status at_net_prog_pool(at_arena *arena, const at_net_node *n, const at_net_node *in, int64_t block,
                           const at_ir_program **out);
/* Global average pooling of input node in, laid out NCHW (in_block <= 1) or NCHW[in_block]c, into
 * [N, C, 1, 1]. Signature: x, y. */
at_status at_net_prog_global_avg_pool(at_arena *arena, const at_net_node *n, const at_net_node *in, int64_t in_block,
                                      const at_ir_program **out);
/* Concatenation along attrs.axis. Signature: every input in order, then y; one kernel per input. */
at_status at_net_prog_concat(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out);
/* Softmax over the last axis, one work-item per row. Signature: x, y. */
/* An (n, c, hw) tensor from NCHW[from_bn]c to NCHW[to_bn]c, where a block of 1 is plain NCHW: a CPU
 * loop nest (parallel over the output's (n, block) rows). Signature: x, y. AT_ENOMEM. */
at_status at_net_prog_layout(at_arena *arena, const char *name, int64_t n, int64_t c, int64_t hw, int64_t from_bn,
                             int64_t to_bn, const at_ir_program **out);
at_status at_net_prog_softmax(at_arena *arena, const at_net_node *n, const at_ir_program **out);

/* A grouped convolution node (at_net_conv_is_grouped) as a direct program with its epilogue
 * (group_conv.c), for targets with no template for it. Signature: x, w, y, then the epilogue's
 * [bias], [residual], as an anchor's fused program takes them. */
at_status at_net_prog_group_conv(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out);

/* A data-parallel launch: for bx, tx: let i = bx * 64 + tx in (if i < total) body. */
const at_ir_stmt *at_net_grid(at_ir_sched *s, const at_ir_var *i, int64_t total, const at_ir_stmt *body);

/* ---- activations (activation.c) ---- */

/* y = f(x) for an AT_NET_ACTIVATION node, in double precision. */
void at_net_act_ref(const at_net_node *n, const float *x, float *y);
/* The same as an IR program. Signature: x, y. */
at_status at_net_prog_activation(at_arena *arena, const at_net_node *n, const at_ir_program **out);

/* ---- layout and broadcasting ops: binary, pad, transpose, reduce_mean, resize2d (tensor_ops.c) ---- */

/* n's output y from its inputs' values in[], in double precision. */
void at_net_tensor_ref(const at_net *net, const at_net_node *n, const float *const *in, float *y);
/* The same as an IR program. Signature: x, [b (binary's second operand)], y. */
at_status at_net_prog_tensor(at_arena *arena, const at_net *net, const at_net_node *n, const at_ir_program **out);

/* ---- conv2d_transpose (conv_transpose.c) ---- */

/* y from x and n->weight [C_in, channels, KH, KW], in double precision (bias: a bias_add after). */
void at_net_conv_transpose_ref(const at_net *net, const at_net_node *n, const float *x, float *y);
/* The same as an IR program, one work-item per output element. Signature: x, w, y. */
at_status at_net_prog_conv_transpose(at_arena *arena, const at_net *net, const at_net_node *n,
                                     const at_ir_program **out);
/* True for the ops whose node holds a weight tensor (anchors, constant, conv2d_transpose). */
bool at_net_op_has_weight(at_net_op op);

/* ---- ONNX shapes of imported networks (graph.c; fuse.c carries them to the fused form) ---- */

typedef struct at_net_io_shape {
    size_t  rank;
    int64_t dims[4];
} at_net_io_shape;
void at_net_set_io_shapes(at_net *net, const at_net_io_shape *in, const at_net_io_shape *out);
void at_net_copy_io_shapes(at_net *dst, const at_net *src);

/* ---- storage planning (storage_plan.c) ---- */

/* A buffer's life: bytes, and the first and last step (first <= last) that touch it. */
typedef struct at_net_live {
    size_t bytes, first, last;
} at_net_live;
/* Assigns each of v[n] a slot so that buffers sharing a slot never live at one step; a slot freed
 * goes to the next buffer that starts, the most recently freed (hottest) first. slot[n] gets the
 * assignment, *slot_bytes (owned by the caller) each slot's size, the largest of its buffers.
 * AT_ENOMEM. */
at_status at_net_plan_storage(const at_net_live *v, size_t n, size_t *slot, size_t **slot_bytes, size_t *n_slots);

#endif
