/* The "knob" feature vector (ConfigEntity.get_flatten_feature): entity values flattened in
 * knob order as float32. The space variant reads entities straight from the index digits, so
 * the cost model's feature pass allocates nothing; the config variant serves log records. */
#include <math.h>
#include <string.h>

#include "core/numfmt.h"
#include "knobs/internal.h"
#include "knobs/space.h"

static size_t entity_width(const at_entity *e)
{
    switch (e->kind) {
    case AT_KNOB_SPLIT:
    case AT_KNOB_REORDER: return e->n;
    case AT_KNOB_ANNOTATE: return e->anns ? AT_KNOBS_N_ANN * e->n : e->n;
    case AT_KNOB_OTHER: return 1;
    case AT_KNOB_COUNT: break;
    }
    AT_ASSERT(0);
    return 0;
}

/* np.float32 of a define_knob value (a text must read as a number, as numpy requires). */
static at_status val_to_float(const at_val *v, const char *knob, float *out)
{
    double d;
    switch (v->kind) {
    case AT_VAL_NULL: *out = NAN; return AT_OK;
    case AT_VAL_BOOL: *out = v->b ? 1.0f : 0.0f; return AT_OK;
    case AT_VAL_INT: *out = (float)v->i; return AT_OK;
    case AT_VAL_FLOAT: *out = (float)v->f; return AT_OK;
    case AT_VAL_STR:
        if (v->s && at_parse_double(v->s, &d) == 0) {
            *out = (float)d;
            return AT_OK;
        }
        return AT_FAIL(AT_EINVAL, "knob '%s': value '%s' is not a number (knob feature)", knob, v->s ? v->s : "");
    }
    AT_ASSERT(0);
    return AT_EINVAL;
}

/* Writes one entity's features at out; returns how many were written via *n. */
static at_status write_entity(const at_entity *e, float *out, size_t *n)
{
    switch (e->kind) {
    case AT_KNOB_SPLIT:
    case AT_KNOB_REORDER:
        for (size_t i = 0; i < e->n; i++) out[i] = (float)e->ints[i];
        *n = e->n;
        return AT_OK;
    case AT_KNOB_ANNOTATE:
        if (!e->anns) { /* locate_cache anchors: written as numbers */
            for (size_t i = 0; i < e->n; i++) out[i] = (float)e->ints[i];
            *n = e->n;
            return AT_OK;
        }
        memset(out, 0, AT_KNOBS_N_ANN * e->n * sizeof *out);
        for (size_t i = 0; i < e->n; i++) {
            int code = at_knobs_ann_code(e->anns[i]);
            if (code < 0)
                return AT_FAIL(AT_EINVAL, "knob '%s': annotation '%s' has no knob feature code", e->name, e->anns[i]);
            out[AT_KNOBS_N_ANN * i + (size_t)code] = 1.0f;
        }
        *n = AT_KNOBS_N_ANN * e->n;
        return AT_OK;
    case AT_KNOB_OTHER: *n = 1; return val_to_float(&e->val, e->name, out);
    case AT_KNOB_COUNT: break;
    }
    AT_ASSERT(0);
    return AT_EINVAL;
}

size_t at_space_knob_feature_len(const at_space *s)
{
    AT_ASSERT(s);
    size_t n = 0;
    for (size_t k = 0; k < s->n_knobs; k++) n += entity_width(at_knobs_entity(&s->knobs[k], 0));
    return n;
}

at_status at_space_knob_feature(const at_space *s, int64_t index, float *out)
{
    AT_ASSERT(s && out);
    if (index < 0 || index >= s->range_len)
        return AT_FAIL(AT_EINVAL, "knob feature: index out of range: size %lld, got index %lld",
                       (long long)s->range_len, (long long)index);
    if (!at_space_is_index_valid(s, index))
        return AT_FAIL(AT_EINVAL, "knob feature: index %lld does not pass the space's multi_filter", (long long)index);
    for (size_t k = 0; k < s->n_knobs; k++) {
        const at_knob *kb = &s->knobs[k];
        size_t n;
        AT_TRY(write_entity(at_knobs_entity(kb, at_knobs_digit(kb, index)), out, &n));
        out += n;
    }
    return AT_OK;
}

size_t at_config_knob_feature_len(const at_config *c)
{
    AT_ASSERT(c);
    size_t n = 0;
    for (size_t i = 0; i < at_config_len(c); i++) n += entity_width(at_config_at(c, i));
    return n;
}

at_status at_config_knob_feature(const at_config *c, float *out)
{
    AT_ASSERT(c && out);
    for (size_t i = 0; i < at_config_len(c); i++) {
        size_t n;
        AT_TRY(write_entity(at_config_at(c, i), out, &n));
        out += n;
    }
    return AT_OK;
}
