/* The fake measurement: a cost that is a pure function of a config's knobs (penalties in log2
 * space around one target per knob, so the optimum is unique and a model can learn it), a
 * clock that only moves when asked, and failures injected by index. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "tests/fakes/fakes.h"
#include "tests/support/test_support.h"

static double hash01(int64_t i)
{
    uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static double sq_off(int64_t v, double target_log2)
{
    double d = log2((double)v) - target_log2;
    return d * d;
}

double at_fake_cost_s(const at_task *task, int64_t index)
{
    AT_ASSERT(at_task_template(task) == &at_fake_tmpl_tile || at_task_template(task) == &at_fake_tmpl_filtered);
    at_config *c = NULL;
    assert_ok(at_task_config(task, index, &c));
    int64_t ty[3], tx[3], tk[2];
    at_config_split(c, 0, ty, 3);
    at_config_split(c, 1, tx, 3);
    at_config_split(c, 2, tk, 2);
    const at_entity *ann = at_config_at(c, 3);
    bool unroll = ann->anns && !strcmp(ann->anns[0], "unroll");
    int64_t au = at_config_other_int(c, 4);
    at_config_free(c);
    double pen = 1 + 0.08 * sq_off(ty[1], 3) + 0.08 * sq_off(tx[1], 4) + 0.06 * sq_off(ty[2], 1) +
                 0.06 * sq_off(tx[2], 2) + 0.05 * sq_off(tk[1], 2);
    if (ty[1] * tx[1] * ty[2] * tx[2] > 1024) pen *= 1.3; /* register pressure */
    if (!unroll) pen *= 1.1;
    if (au != 512) pen *= 1.05;
    double ideal_s = at_task_flop(task) / 100e9; /* 100 GFLOPS at the optimum */
    return ideal_s * pen * (1 + 0.005 * hash01(index));
}

int64_t at_fake_best_index(const at_task *task)
{
    const at_space *s = at_task_space(task);
    int64_t best = -1;
    double best_cost = INFINITY;
    for (int64_t i = 0; i < at_space_range_len(s); i++) {
        if (!at_space_is_index_valid(s, i)) continue;
        double c = at_fake_cost_s(task, i);
        if (c < best_cost) {
            best_cost = c;
            best = i;
        }
    }
    return best;
}

double at_fake_clock_now(void *clock)
{
    at_fake_clock *c = clock;
    double t = c->now_s;
    c->now_s += c->step_s;
    return t;
}

at_status at_fake_measure(const at_task *task, int64_t index, const at_fake_failure *fails, size_t n_fails,
                          at_fake_clock *clock, at_result *r)
{
    at_result_fini(r);
    r->all_cost_s = 0.5;
    r->timestamp = clock ? at_fake_clock_now(clock) : 0;
    for (size_t i = 0; i < n_fails; i++) {
        if (fails[i].index != index) continue;
        r->err = fails[i].err;
        char msg[96];
        snprintf(msg, sizeof msg, "fake failure %s of config %lld", at_meas_err_name(fails[i].err), (long long)index);
        r->msg = at_strdup(msg);
        return r->msg ? AT_OK : AT_OOM();
    }
    double cost = at_fake_cost_s(task, index);
    r->err = AT_MEAS_OK;
    return at_result_set_costs(r, &cost, 1);
}
