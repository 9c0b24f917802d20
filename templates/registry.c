/* The template registry: one explicit table sorted by (name, target), as Lua's linit.c lists
 * its libraries; no constructors, so static linking can never drop a template. Templates plugins
 * register (registry_ext.c) come after the table's and are searched only when it has no match. */
#include <string.h>

#include "templates/internal.h"
#include "templates/template.h"

extern const at_template at_tmpl_add_vta;
extern const at_template at_tmpl_conv2d_NCHWc_x86;
extern const at_template at_tmpl_conv2d_nchw_cuda;
extern const at_template at_tmpl_conv2d_nchw_spatial_pack_arm_cpu;
extern const at_template at_tmpl_conv2d_nchw_spatial_pack_mali;
extern const at_template at_tmpl_conv2d_nchw_winograd_arm_cpu;
extern const at_template at_tmpl_conv2d_nchw_winograd_cuda;
extern const at_template at_tmpl_conv2d_nchw_winograd_mali;
extern const at_template at_tmpl_conv2d_packed_vta;
extern const at_template at_tmpl_conv2d_transpose_nchw_arm_cpu;
extern const at_template at_tmpl_dense_large_batch_gpu;
extern const at_template at_tmpl_dense_mali;
extern const at_template at_tmpl_dense_nopack_x86;
extern const at_template at_tmpl_dense_pack_x86;
extern const at_template at_tmpl_dense_small_batch_gpu;
extern const at_template at_tmpl_depthwise_conv2d_NCHWc_x86;
extern const at_template at_tmpl_depthwise_conv2d_nchw_arm_cpu;
extern const at_template at_tmpl_depthwise_conv2d_nchw_cuda;
extern const at_template at_tmpl_depthwise_conv2d_nchw_mali;
extern const at_template at_tmpl_group_conv2d_nchw_arm_cpu;
extern const at_template at_tmpl_group_conv2d_nchw_x86;
extern const at_template at_tmpl_matmul_llvm;
extern const at_template at_tmpl_matmul_opencl;
extern const at_template at_tmpl_multiply_vta;
extern const at_template at_tmpl_pool2d_max_nchw_mali;

static const at_template *const table[] = {
    &at_tmpl_add_vta,                       /* add.vta, vta */
    &at_tmpl_conv2d_NCHWc_x86,              /* conv2d_NCHWc.x86, llvm ('N' < 'n') */
    &at_tmpl_conv2d_nchw_cuda,              /* conv2d_nchw.cuda, opencl */
    &at_tmpl_conv2d_nchw_spatial_pack_arm_cpu, /* conv2d_nchw_spatial_pack.arm_cpu, llvm */
    &at_tmpl_conv2d_nchw_spatial_pack_mali, /* conv2d_nchw_spatial_pack.mali, opencl */
    &at_tmpl_conv2d_nchw_winograd_arm_cpu,  /* conv2d_nchw_winograd.arm_cpu, llvm */
    &at_tmpl_conv2d_nchw_winograd_cuda,     /* conv2d_nchw_winograd.cuda, opencl */
    &at_tmpl_conv2d_nchw_winograd_mali,     /* conv2d_nchw_winograd.mali, opencl */
    &at_tmpl_conv2d_packed_vta,             /* conv2d_packed.vta, vta */
    &at_tmpl_conv2d_transpose_nchw_arm_cpu, /* conv2d_transpose_nchw.arm_cpu, llvm */
    &at_tmpl_dense_mali,                    /* dense.mali, opencl */
    &at_tmpl_dense_large_batch_gpu,         /* dense_large_batch.gpu, opencl */
    &at_tmpl_dense_nopack_x86,              /* dense_nopack.x86, llvm */
    &at_tmpl_dense_pack_x86,                /* dense_pack.x86, llvm */
    &at_tmpl_dense_small_batch_gpu,         /* dense_small_batch.gpu, opencl */
    &at_tmpl_depthwise_conv2d_NCHWc_x86,    /* depthwise_conv2d_NCHWc.x86, llvm */
    &at_tmpl_depthwise_conv2d_nchw_arm_cpu, /* depthwise_conv2d_nchw.arm_cpu, llvm */
    &at_tmpl_depthwise_conv2d_nchw_cuda,    /* depthwise_conv2d_nchw.cuda, opencl */
    &at_tmpl_depthwise_conv2d_nchw_mali,    /* depthwise_conv2d_nchw.mali, opencl */
    &at_tmpl_group_conv2d_nchw_arm_cpu,     /* group_conv2d_nchw.arm_cpu, llvm */
    &at_tmpl_group_conv2d_nchw_x86,         /* group_conv2d_nchw.x86, llvm */
    &at_tmpl_multiply_vta,                  /* multiply.vta, vta */
    &at_tmpl_pool2d_max_nchw_mali,          /* pool2d_max_nchw.mali, opencl */
    &at_tmpl_matmul_opencl,                 /* testing/matmul, opencl */
    &at_tmpl_matmul_llvm,                   /* testing/matmul, llvm */
};

enum { N_STATIC = sizeof table / sizeof table[0] };

size_t at_tmpl_count(void)
{
    return N_STATIC + at_tmpl_ext_count();
}

const at_template *at_tmpl_at(size_t i)
{
    if (i < N_STATIC) return table[i];
    return at_tmpl_ext_at(i - N_STATIC);
}

const at_template *at_tmpl_find(const char *name, at_target_family target)
{
    size_t lo = 0, hi = N_STATIC;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(table[mid]->name, name);
        if (c == 0) c = (int)table[mid]->target - (int)target;
        if (c == 0) return table[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return at_tmpl_ext_count() ? at_tmpl_ext_find(name, target) : NULL;
}
