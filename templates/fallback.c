/* Fallback configs of tasks (TVM's FallbackConfigEntity): entity 0 of every knob, then whatever
 * the template's cfg.is_fallback branch does. The reference records come from the caller, so this
 * layer never reads TopHub itself (templates sit below tophub/). */
#include "templates/template.h"

at_status at_task_fallback_config(const at_task *t, const at_config *const *refs, size_t n_refs, at_config **out)
{
    *out = NULL;
    const at_template *tm = at_task_template(t);
    at_config *c;
    AT_TRY(at_space_fallback_config(at_task_space(t), &c));
    if (tm->fallback) {
        at_status st = tm->fallback(at_task_args(t), at_task_space(t), refs, n_refs, &c);
        if (st != AT_OK) {
            at_config_free(c);
            return AT_FAIL_WRAP(st, "template %s: fallback config", tm->name);
        }
    }
    *out = c;
    return AT_OK;
}
