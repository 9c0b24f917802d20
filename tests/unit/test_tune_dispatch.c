/* Records dispatch (tune/dispatch.h): a user log beats TopHub, TopHub beats fallback, fallbacks
 * read TopHub's reference records, and without TopHub every task falls back. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "networks/exec.h"
#include "networks/extract.h"
#include "records/record.h"
#include "tune/dispatch.h"

static at_tophub_opts hub_opts(void)
{
    /* the shared pack as the cache; a mirror that is never reached */
    return (at_tophub_opts){.cache_dir = at_test_shared_path("data/tophub"), .location = "file:///nonexistent"};
}

static void user_log_should_beat_tophub_and_tophub_fallback(void **state)
{
    (void)state;
    at_net *net;
    at_net_tasks *ts;
    assert_ok(at_net_load("resnet-18", NULL, &net));
    assert_ok(at_net_extract(net, AT_NET_TARGET_MALI, AT_NET_OPS_ALL, &ts));
    /* a user record makes task 1 (spatial pack of the 64-channel 3x3 conv) the fastest */
    at_config *cfg;
    assert_ok(at_task_config(at_net_tasks_at(ts, 1), 12345, &cfg));
    at_result res;
    at_result_init(&res);
    assert_ok(at_result_set_costs(&res, (double[]){1e-4}, 1));
    res.timestamp = 1.5e9;
    at_rec rec;
    assert_ok(at_rec_make("opencl -device=mali", "conv2d_nchw_spatial_pack.mali", at_net_tasks_args_json(ts, 1), cfg,
                          &res, &rec));
    char *line = at_rec_to_line(&rec);
    char path[4200];
    snprintf(path, sizeof path, "%s/user.log", at_test_tmpdir("tune_dispatch"));
    at_test_write_file(path, line);

    at_tune_dispatch *d;
    assert_ok(at_tune_dispatch_new("opencl -device=mali", &d));
    size_t n_user = 0, n_hub = 0;
    assert_ok(at_tune_dispatch_add_log(d, path, &n_user));
    assert_int_equal(n_user, 1);
    at_tophub_opts ho = hub_opts();
    const at_tophub_package *pack = NULL;
    assert_ok(at_tune_dispatch_use_tophub(d, &ho, &pack, &n_hub));
    assert_non_null(pack);
    assert_string_equal(pack->pack, "mali_v0.06");
    assert_int_equal(n_hub, 528);

    at_net_plan *plan;
    assert_ok(at_net_plan_new(net, ts, at_tune_dispatch_fn, d, &plan));
    at_net_pick p;
    assert_true(at_net_plan_pick(plan, at_net_find(net, "stage1_unit1_conv1"), &p));
    assert_int_equal(p.task, 1);
    assert_true(p.tuned && p.cost_s == 1e-4);
    assert_int_equal(at_config_index(p.config), 12345);
    /* TopHub answers the others it has; the dense falls back on its reference records */
    assert_true(at_net_plan_pick(plan, at_net_find(net, "stage2_unit1_conv2"), &p));
    assert_true(p.tuned);
    assert_true(at_net_plan_pick(plan, at_net_find(net, "fc1"), &p));
    assert_false(p.tuned);
    const at_entity *tx = at_config_find(p.config, "tile_x");
    assert_non_null(tx);
    assert_int_equal(tx->ints[1], 25); /* TopHub's reference tile_x [40, 25, 1] */
    at_tune_dispatch_stats s = at_tune_dispatch_get_stats(d);
    assert_int_equal(s.n_user, 1);
    assert_true(s.n_tophub >= 10);
    assert_int_equal(s.n_user + s.n_tophub + s.n_fallback, at_net_tasks_count(ts));
    assert_int_equal(at_net_plan_n_fallback(plan), 1);
    at_net_plan_free(plan);
    at_tune_dispatch_free(d);

    /* no TopHub: only the user's record is tuned, every other task falls back */
    assert_ok(at_tune_dispatch_new("opencl -device=mali", &d));
    assert_ok(at_tune_dispatch_add_log(d, path, NULL));
    assert_ok(at_net_plan_new(net, ts, at_tune_dispatch_fn, d, &plan));
    s = at_tune_dispatch_get_stats(d);
    assert_int_equal(s.n_user, 1);
    assert_int_equal(s.n_tophub, 0);
    assert_int_equal(s.n_fallback, at_net_tasks_count(ts) - 1);
    assert_true(at_net_plan_pick(plan, at_net_find(net, "stage1_unit1_conv1"), &p));
    assert_true(p.tuned);
    at_net_plan_free(plan);
    at_tune_dispatch_free(d);

    at_free(line);
    at_rec_fini(&rec);
    at_result_fini(&res);
    at_config_free(cfg);
    at_net_tasks_free(ts);
    at_net_free(net);
}

static void a_missing_log_should_be_not_found(void **state)
{
    (void)state;
    at_tune_dispatch *d;
    assert_ok(at_tune_dispatch_new("opencl -device=mali", &d));
    assert_int_equal(at_tune_dispatch_add_log(d, "/nonexistent/x.log", NULL), AT_ENOTFOUND);
    at_tune_dispatch_free(d);
    assert_int_equal(at_tune_dispatch_new("opencl -device=", &d), AT_EPARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(user_log_should_beat_tophub_and_tophub_fallback),
        cmocka_unit_test(a_missing_log_should_be_not_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
