/* The fake tuning loop of the tuner tests: proposals are checked (valid, never proposed
 * before), measured with the fake cost and reported back, batch by batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>

#include "core/alloc.h"
#include "tests/fakes/drive.h"
#include "tests/support/test_support.h"

void at_fake_drive(at_tuner *t, const at_task *task, size_t n_trial, size_t batch, const at_fake_failure *fails,
                   size_t n_fails, int64_t target, bool stop_at_target, at_fake_run *run)
{
    const at_space *s = at_task_space(task);
    int64_t range = at_space_range_len(s);
    *run = (at_fake_run){0};
    unsigned char *seen = at_calloc((size_t)range, 1);
    run->order = at_malloc((n_trial + 1) * sizeof *run->order);
    int64_t *idx = at_malloc(batch * sizeof *idx);
    at_result *res = at_calloc(batch, sizeof *res);
    assert_non_null(seen);
    assert_non_null(run->order);
    assert_non_null(idx);
    assert_non_null(res);
    for (size_t i = 0; i < batch; i++) at_result_init(&res[i]);
    while (run->n < n_trial && at_tuner_has_next(t)) {
        size_t want = n_trial - run->n < batch ? n_trial - run->n : batch, got = 0;
        assert_ok(at_tuner_next_batch(t, want, idx, &got));
        if (got == 0) fail_msg("%s: next_batch proposed nothing while has_next", at_tuner_name(t));
        assert_true(got <= want);
        for (size_t i = 0; i < got; i++) {
            if (idx[i] < 0 || idx[i] >= range) fail_msg("%s proposed %lld", at_tuner_name(t), (long long)idx[i]);
            if (!at_space_is_index_valid(s, idx[i]))
                fail_msg("%s proposed invalid index %lld", at_tuner_name(t), (long long)idx[i]);
            if (seen[idx[i]])
                fail_msg("%s proposed %lld twice (trial %zu)", at_tuner_name(t), (long long)idx[i], run->n + i + 1);
            seen[idx[i]] = 1;
            run->order[run->n + i] = idx[i];
            if (idx[i] == target && !run->first_hit) run->first_hit = run->n + i + 1;
            assert_ok(at_fake_measure(task, idx[i], fails, n_fails, NULL, &res[i]));
        }
        assert_ok(at_tuner_update(t, idx, res, got));
        run->n += got;
        run->n_batches++;
        if (stop_at_target && run->first_hit) break;
    }
    for (size_t i = 0; i < batch; i++) at_result_fini(&res[i]);
    at_free(res);
    at_free(idx);
    at_free(seen);
}

void at_fake_run_fini(at_fake_run *run)
{
    at_free(run->order);
    *run = (at_fake_run){0};
}
