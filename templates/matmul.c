/* What testing/matmul's two templates share (TVM's tutorial template autotvm_matmul_x86): the
 * knobs tile_y and tile_x (2-way "factors" splits of C's rows N and columns M), the tiles a config
 * names and the parameters A, B, C; matmul_llvm.c and matmul_opencl.c map the tiles onto loops. */
#include "templates/internal.h"

at_status at_tmpl_matmul_define_space(const at_args *a, at_space *s)
{
    AT_TRY(at_space_split(s, AT_TMPL_MATMUL_TILE_Y, "tile_y", a->u.matmul.n, 2));
    return at_space_split(s, AT_TMPL_MATMUL_TILE_X, "tile_x", a->u.matmul.m, 2);
}

/* Inner and outer extents of a 2-way split of extent: sizes[0] is -1 or the outer extent. */
static at_status split2(const char *name, const int64_t *sizes, int64_t extent, int64_t *outer, int64_t *inner)
{
    if (sizes[1] < 1 || extent % sizes[1] != 0)
        return AT_FAIL(AT_EINVAL, "%s = [%lld, %lld] does not divide %lld", name, (long long)sizes[0],
                       (long long)sizes[1], (long long)extent);
    if (sizes[0] != -1 && sizes[0] * sizes[1] != extent)
        return AT_FAIL(AT_EINVAL, "%s = [%lld, %lld] does not cover %lld", name, (long long)sizes[0],
                       (long long)sizes[1], (long long)extent);
    *inner = sizes[1];
    *outer = extent / sizes[1];
    return AT_OK;
}

at_status at_tmpl_matmul_init(const at_args *a, const at_config *c, at_ir_sched *s, at_tmpl_matmul *mm)
{
    const at_matmul_args *m = &a->u.matmul;
    int64_t ty_sizes[2], tx_sizes[2];
    mm->yo = mm->yi = mm->xo = mm->xi = 0;
    at_config_split(c, AT_TMPL_MATMUL_TILE_Y, ty_sizes, 2);
    at_config_split(c, AT_TMPL_MATMUL_TILE_X, tx_sizes, 2);
    AT_TRY(split2("tile_y", ty_sizes, m->n, &mm->yo, &mm->yi));
    AT_TRY(split2("tile_x", tx_sizes, m->m, &mm->xo, &mm->xi));

    mm->A = at_ir_param(s, "A", m->dtype, m->n * m->l, AT_IR_INPUT);
    mm->B = at_ir_param(s, "B", m->dtype, m->l * m->m, AT_IR_INPUT);
    mm->C = at_ir_param(s, "C", m->dtype, m->n * m->m, AT_IR_OUTPUT);
    return AT_OK;
}
