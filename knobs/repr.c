/* repr(ConfigSpace) for debugging and the CLI: TVM's exact text, values printed as Python's
 * str() prints them (True, None, repr(float), texts without quotes). */
#include <inttypes.h>

#include "core/numfmt.h"
#include "knobs/internal.h"
#include "knobs/space.h"

static void put_val(at_strbuf *sb, const at_val *v)
{
    char num[AT_FMT_DOUBLE_MAX];
    switch (v->kind) {
    case AT_VAL_NULL: at_strbuf_puts(sb, "None"); return;
    case AT_VAL_BOOL: at_strbuf_puts(sb, v->b ? "True" : "False"); return;
    case AT_VAL_INT: at_strbuf_printf(sb, "%" PRId64, v->i); return;
    case AT_VAL_FLOAT:
        at_fmt_double(v->f, num);
        at_strbuf_puts(sb, num);
        return;
    case AT_VAL_STR: at_strbuf_puts(sb, v->s ? v->s : ""); return;
    }
    AT_ASSERT(0);
}

static void put_knob(at_strbuf *sb, const at_knob *k)
{
    switch (k->kind) {
    case AT_KNOB_SPLIT:
        at_strbuf_printf(sb, "Split(policy=%s, product=%" PRId64 ", num_outputs=%zu)",
                         at_knobs_split_policy_name(k->policy), k->product, k->n_axes);
        break;
    case AT_KNOB_REORDER: at_strbuf_printf(sb, "Reorder(policy=%s)", at_knobs_reorder_policy_name(k->policy)); break;
    case AT_KNOB_ANNOTATE: at_strbuf_printf(sb, "Annotate(policy=%s)", k->policy_text); break;
    case AT_KNOB_OTHER:
        at_strbuf_puts(sb, "OtherOption([");
        for (int64_t i = 0; i < k->len; i++) {
            if (i) at_strbuf_puts(sb, ", ");
            put_val(sb, &k->vals[i]);
        }
        at_strbuf_puts(sb, "])");
        break;
    case AT_KNOB_COUNT: AT_ASSERT(0);
    }
    at_strbuf_printf(sb, " len=%" PRId64, k->len);
}

void at_space_write_repr(const at_space *s, at_strbuf *sb)
{
    AT_ASSERT(s && sb);
    at_strbuf_printf(sb, "ConfigSpace (len=%" PRId64 ", range_length=%" PRId64 ", space_map=\n", s->n_valid,
                     s->range_len);
    for (size_t i = 0; i < s->n_knobs; i++) {
        at_strbuf_printf(sb, "  %2zu %s: ", i, s->knobs[i].name);
        put_knob(sb, &s->knobs[i]);
        at_strbuf_putc(sb, '\n');
    }
    at_strbuf_putc(sb, ')');
}
