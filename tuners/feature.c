/* Feature vectors of a task's configs: knob (the space's flattened entities), itervar and
 * curve (the touch grids of the instantiated IR followed by the define_knob values, as TVM's
 * cost model appends config.get_other_option()). The length depends only on the space's knob
 * structure, never on the config, so it is computed without instantiating anything. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "tuners/feature.h"

static size_t n_other_knobs(const at_space *s)
{
    size_t n = 0;
    for (size_t k = 0; k < at_space_n_knobs(s); k++) n += at_space_knob_kind(s, k) == AT_KNOB_OTHER;
    return n;
}

size_t at_tuner_feat_len(at_feature f, const at_task *task)
{
    const at_space *s = at_task_space(task);
    switch (f) {
    case AT_FEAT_KNOB: return at_space_knob_feature_len(s);
    case AT_FEAT_ITERVAR: return AT_FEAT_ITERVAR_IR_LEN + n_other_knobs(s);
    case AT_FEAT_CURVE: return AT_FEAT_CURVE_IR_LEN + n_other_knobs(s);
    case AT_FEAT_COUNT: break;
    }
    AT_ASSERT(!"unknown feature");
    return 0;
}

/* A define_knob value as a float: numbers as they are, bools 0/1, anything else NaN (missing). */
static float other_value(const at_val *v)
{
    switch (v->kind) {
    case AT_VAL_INT: return (float)v->i;
    case AT_VAL_FLOAT: return (float)v->f;
    case AT_VAL_BOOL: return v->b ? 1.0f : 0.0f;
    case AT_VAL_STR: {
        char *end;
        double d = strtod(v->s, &end);
        return end != v->s && *end == '\0' ? (float)d : NAN;
    }
    case AT_VAL_NULL: break;
    }
    return NAN;
}

static void write_other_values(const at_space *s, const at_config *c, float *out)
{
    for (size_t k = 0; k < at_space_n_knobs(s); k++) {
        if (at_space_knob_kind(s, k) != AT_KNOB_OTHER) continue;
        *out++ = other_value(&at_config_at(c, k)->val);
    }
}

at_status at_tuner_feat_extract(at_feature f, const at_task *task, int64_t index, float *out)
{
    const at_space *s = at_task_space(task);
    if (f == AT_FEAT_KNOB) return at_space_knob_feature(s, index, out);
    AT_ASSERT(f == AT_FEAT_ITERVAR || f == AT_FEAT_CURVE);
    at_config *c = NULL;
    at_arena *arena = NULL;
    at_tuner_touch *touch = NULL;
    const at_ir_program *p;
    at_status st = at_task_config(task, index, &c);
    if (st == AT_OK) st = at_arena_new(0, &arena);
    if (st == AT_OK) st = at_task_instantiate(task, c, arena, &p);
    if (st == AT_OK) st = at_tuner_touch_analyze(p, &touch);
    if (st == AT_OK) {
        if (f == AT_FEAT_ITERVAR) {
            at_tuner_touch_itervar(touch, out);
            write_other_values(s, c, out + AT_FEAT_ITERVAR_IR_LEN);
        } else {
            at_tuner_touch_curve(touch, out);
            write_other_values(s, c, out + AT_FEAT_CURVE_IR_LEN);
        }
    }
    at_tuner_touch_free(touch);
    at_arena_free(arena);
    at_config_free(c);
    return st;
}
