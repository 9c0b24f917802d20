/* What a template is (STYLE 2.7), the registry of templates, and tasks: a template plus its
 * arguments, with the config space its define_space built. A template author writes one file
 * with define_space and schedule (templates/CMakeLists.txt compiles every file of the folder)
 * and adds an extern and one row to the sorted table in templates/registry.c. */
#ifndef AT_TEMPLATES_TEMPLATE_H
#define AT_TEMPLATES_TEMPLATE_H

#include <stddef.h>

#include "core/arena.h"
#include "core/status.h"
#include "core/strbuf.h"
#include "ir/ir.h"
#include "knobs/config.h"
#include "knobs/space.h"
#include "templates/ops.h"

/* The backend family a template schedules for. */
typedef enum at_target_family { AT_TARGET_OPENCL = 0, AT_TARGET_LLVM, AT_TARGET_VTA, AT_TARGET_FAMILY_COUNT } at_target_family;

/* "opencl", "llvm", "vta"; AT_ASSERT a valid family. */
const char *at_target_family_name(at_target_family t);

typedef struct at_template {
    const char      *name;   /* wire name, as TVM's (TopHub logs store it) */
    at_op_kind       op;
    at_target_family target;
    size_t           n_knobs;
    /* Defines knobs 0..n_knobs-1 in order on an empty space. AT_EINVAL when the arguments
     * admit no space, AT_ENOMEM. */
    at_status (*define_space)(const at_args *a, at_space *s);
    /* Builds the scheduled program for config c through sch. AT_EINVAL (with a message) when
     * the config cannot be instantiated: it becomes INSTANTIATION_ERROR. */
    at_status (*schedule)(const at_args *a, const at_config *c, at_ir_sched *sch);
    /* (optional) TVM's fallback config for a workload no record covers: *c arrives as entity 0 of
     * every knob (at_space_fallback_config) and is changed in place as the template's
     * cfg.is_fallback branch does, using refs[0..n_refs) when the template reads reference records
     * (ref_backend). AT_EINVAL (a reference that does not fit), AT_ENOMEM. (defaults to entity 0) */
    at_status (*fallback)(const at_args *a, const at_space *s, const at_config *const *refs, size_t n_refs,
                          at_config **c);
    /* (optional) the TopHub pack and target model whose records of this template the fallback
     * reads (TVM's load_reference_log(backend, model, name)): "mali", "rk3399". (defaults to NULL:
     * the fallback reads none) */
    const char *ref_backend, *ref_model;
    /* (optional) records of this template are applied as given: a split entity's sizes after the
     * first decide the config, so a record whose first size disagrees with the extent (TopHub's
     * VTA pack) still names a config (at_space_index_of_as_given). (defaults to false) */
    bool entities_as_given;
    /* (optional) define_space may define no knob at all when the arguments rule the schedule out
     * (TVM's schedule returned before defining its knobs): the space then has one empty config.
     * (defaults to false: exactly n_knobs knobs) */
    bool knobs_conditional;
    /* (optional) FLOPs of one run when the template's compute has stages its op kind's does not
     * (TVM's compute_flop walks the template's own compute: dense_nopack.x86 sums its lanes).
     * (defaults to at_op_flop) */
    double (*flop)(const at_args *a);
    /* (optional) the program TVM runs after its alter_op_layout pass (the x86 NCHWc templates):
     * the same signature sizes, but data in NCHW[ic_bn]c and output in NCHW[oc_bn]c with the
     * config's block sizes (at_tmpl_packed_blocks), the kernel still OIHW (packed by a
     * preparation kernel). AT_EINVAL as schedule. (defaults to NULL: the network runs schedule) */
    at_status (*schedule_packed)(const at_args *a, const at_config *c, at_ir_sched *sch);
} at_template;

/* The channel blocks of config c of a template with schedule_packed: its data is NCHW[ic_bn]c,
 * its output NCHW[oc_bn]c. AT_EINVAL for a template without that form. */
at_status at_tmpl_packed_blocks(const at_template *t, const at_config *c, int64_t *ic_bn, int64_t *oc_bn);

/* ---- registry (templates/registry.c) -------------------------------------------------------- */

/* Number of registered templates, and the i-th: the built-in ones in (name, target) order, then
 * those plugins registered (templates/plugin.h) in registration order (AT_ASSERT i < count). */
size_t             at_tmpl_count(void);
const at_template *at_tmpl_at(size_t i);

/* The template registered under name for target, NULL when none. */
const at_template *at_tmpl_find(const char *name, at_target_family target);

/* ---- tasks ---------------------------------------------------------------------------------- */

typedef struct at_task at_task;

/* Task of template t (borrowed: it must outlive the task, as static templates do) with args
 * (copied): checks the args and defines the space. *out owned by the caller (at_task_free).
 * AT_EINVAL (args of another op, bad args, define_space failed), AT_ENOMEM. */
at_status at_task_new(const at_template *t, const at_args *args, at_task **out);

/* at_tmpl_find + at_op_args_parse + at_task_new. AT_ENOTFOUND (no such template), AT_EPARSE /
 * AT_EINVAL (args), AT_ENOMEM. */
at_status at_task_create(const char *name, at_target_family target, const char *args_text, at_task **out);

void at_task_free(at_task *t);

const at_template *at_task_template(const at_task *t);
const at_args     *at_task_args(const at_task *t);
/* The space (borrowed until at_task_free). */
const at_space *at_task_space(const at_task *t);
/* FLOPs of one run (TVM's task.flop). */
double at_task_flop(const at_task *t);

/* Appends the workload as TVM logs it: ["testing/matmul", 512, 512, 512, "float32"]. */
void at_task_write_workload(const at_task *t, at_strbuf *sb);

/* Config at index of the task's space. *out owned by the caller. AT_EINVAL (index out of range
 * or filtered out), AT_ENOMEM. */
at_status at_task_config(const at_task *t, int64_t index, at_config **out);

/* TVM's fallback config of the task (index -1): the template's fallback when it has one, fed with
 * refs[0..n_refs) (reference configs the caller loaded from the template's ref_backend/ref_model
 * pack for this template name; none when offline or when the template reads none), else entity
 * 0 of every knob. *out owned by the caller. AT_EINVAL (a reference that does not fit the
 * space), AT_ENOMEM. */
at_status at_task_fallback_config(const at_task *t, const at_config *const *refs, size_t n_refs, at_config **out);

/* Schedules config c into arena and verifies the program (at_ir_verify). The program lives
 * until at_arena_free. AT_EINVAL: the config cannot be instantiated (the detail says why; this
 * is INSTANTIATION_ERROR), AT_ENOMEM. A program whose parameters differ from the op's
 * signature is a template bug (AT_ASSERT). */
at_status at_task_instantiate(const at_task *t, const at_config *c, at_arena *arena, const at_ir_program **out);

/* The same with an output epilogue fused into the template's output stage (at_ir_epilogue,
 * borrowed): the signature is the op's then the epilogue's parameters. AT_EINVAL also when the
 * template reads its output (nothing fused: run the epilogue as its own program). */
at_status at_task_instantiate_fused(const at_task *t, const at_config *c, const at_ir_epilogue *epi, at_arena *arena,
                                    const at_ir_program **out);

/* The template's schedule_packed program of config c (TVM's program after alter_op_layout: data
 * NCHW[ic_bn]c, output NCHW[oc_bn]c, at_tmpl_packed_blocks), with epilogue epi when not NULL
 * (its apply() then sees NCHW[oc_bn]c output indices). AT_EINVAL (no such form, or as
 * at_task_instantiate), AT_ENOMEM. */
at_status at_task_instantiate_packed(const at_task *t, const at_config *c, const at_ir_epilogue *epi, at_arena *arena,
                                     const at_ir_program **out);

#endif
