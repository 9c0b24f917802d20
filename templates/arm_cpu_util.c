/* Schedule helpers of the CPU templates (arm_cpu and the x86 dense ones TVM's arm_cpu strategy
 * uses): splits applied by their inner sizes as TVM's SplitEntity.apply does, and axes whose
 * vectorization is longer than the IR's 16 lanes expressed as unrolled pieces of vectors, the
 * code LLVM makes of TVM's wide vector types. */
#include <stdio.h>

#include "templates/internal.h"

at_status at_tmpl_split_inner(const at_config *c, size_t knob, int64_t extent, size_t n, int64_t *parts)
{
    AT_ASSERT(n >= 2 && n <= 8);
    int64_t sizes[8];
    at_config_split(c, knob, sizes, n);
    const char *name = at_config_at(c, knob)->name;
    int64_t prod = 1;
    for (size_t i = 1; i < n; i++) {
        if (sizes[i] < 1 || sizes[i] > extent)
            return AT_FAIL(AT_EINVAL, "%s: size %lld of %lld does not fit axis of extent %lld", name,
                           (long long)sizes[i], (long long)i, (long long)extent);
        prod *= sizes[i];
        if (prod > extent) break;
    }
    if (prod > extent || extent % prod != 0)
        return AT_FAIL(AT_EINVAL, "%s: inner sizes do not divide axis of extent %lld", name, (long long)extent);
    parts[0] = extent / prod;
    for (size_t i = 1; i < n; i++) parts[i] = sizes[i];
    return AT_OK;
}

at_tmpl_axis at_tmpl_cpu_axis(at_ir_sched *s, const char *name, int64_t extent, at_ir_for_kind kind)
{
    at_tmpl_axis ax = {.n = 1};
    if (kind != AT_IR_VECTORIZED || extent <= AT_IR_MAX_LANES) {
        ax.loops[0] = at_tmpl_loop_new(s, name, extent, kind);
        ax.index = at_ir_v(s, ax.loops[0].var);
        return ax;
    }
    int64_t lanes = 1;
    for (int64_t d = AT_IR_MAX_LANES; d >= 2 && lanes == 1; d--)
        if (extent % d == 0) lanes = d;
    if (lanes == 1) {
        ax.loops[0] = at_tmpl_loop_new(s, name, extent, AT_IR_UNROLLED);
        ax.index = at_ir_v(s, ax.loops[0].var);
        return ax;
    }
    char outer[64], inner[64];
    snprintf(outer, sizeof outer, "%s.vo", name);
    snprintf(inner, sizeof inner, "%s.vi", name);
    ax.n = 2;
    ax.loops[0] = at_tmpl_loop_new(s, outer, extent / lanes, AT_IR_UNROLLED);
    ax.loops[1] = at_tmpl_loop_new(s, inner, lanes, AT_IR_VECTORIZED);
    ax.index = at_ir_add(s, at_ir_mul(s, at_ir_v(s, ax.loops[0].var), at_tmpl_i(s, lanes)), at_ir_v(s, ax.loops[1].var));
    return ax;
}

size_t at_tmpl_axes_loops(const at_tmpl_axis *axes, size_t n, at_tmpl_loop *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < axes[i].n; j++) out[k++] = axes[i].loops[j];
    return k;
}
