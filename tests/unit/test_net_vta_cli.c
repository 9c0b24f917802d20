/* autotvm tasks | evaluate | tune resnet-18 --target vta: the tutorial's 10 tasks with their
 * workload args, the evaluation on the VTA simulator (bit-exact, per-layer breakdown, the seed's
 * "Mean inference time" line), and a short tuning run (tmp log, pick-best, the tutorial's progress
 * lines, then the evaluation with the tuned records). */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "records/log.h"

static int run(const char *work, const char *const *args, char **out, char **err)
{
    pid_t pid = at_test_cli_start(work, args);
    return at_test_cli_finish(work, pid, out, err);
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

static void tasks_should_list_the_tutorials_ten(void **state)
{
    (void)state;
    const char *work = at_test_tmpdir("net_vta_cli_tasks");
    char *out = NULL, *err = NULL;
    const char *args[] = {"tasks", "resnet-18", "--target", "vta", NULL};
    assert_int_equal(run(work, args, &out, &err), 0);
    assert_non_null(strstr(out, "Extracted 10 conv2d tasks:\n(1, 14, 14, 256, 512, 1, 1, 0, 0, 2, 2)\n"
                                "(1, 28, 28, 128, 256, 1, 1, 0, 0, 2, 2)\n(1, 56, 56, 64, 128, 1, 1, 0, 0, 2, 2)\n"
                                "(1, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1)\n(1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 1)\n"
                                "(1, 56, 56, 64, 128, 3, 3, 1, 1, 2, 2)\n(1, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1)\n"
                                "(1, 28, 28, 128, 256, 3, 3, 1, 1, 2, 2)\n(1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1)\n"
                                "(1, 14, 14, 256, 512, 3, 3, 1, 1, 2, 2)\n"));
    assert_int_equal(count(out, "conv2d_packed.vta"), 10);

    const char *jargs[] = {"tasks", "resnet-18", "--target", "ext_dev -device=vta -keys=cpu", "--json", NULL};
    assert_int_equal(run(work, jargs, &out, &err), 0);
    assert_int_equal(count(out, "\n"), 10);
    assert_non_null(strstr(out, "{\"index\": 1, \"template\": \"conv2d_packed.vta\", \"args\": [[\"TENSOR\", [1, 16, 14, 14, 1, "
                                "16], \"int8\"], [\"TENSOR\", [32, 16, 1, 1, 16, 16], \"int8\"], [2, 2], [0, 0, 0, 0], [1, 1], "
                                "\"NCHW1n16c\", \"int32\"], \"flop\": 12845056, \"space\": 480}\n"));
    assert_non_null(strstr(out, "{\"index\": 10, \"template\": \"conv2d_packed.vta\", \"args\": [[\"TENSOR\", [1, 16, 14, 14, 1, "
                                "16], \"int8\"], [\"TENSOR\", [32, 16, 3, 3, 16, 16], \"int8\"], [2, 2], [1, 1, 1, 1], [1, 1], "
                                "\"NCHW1n16c\", \"int32\"], \"flop\": 115605504, \"space\": 480}\n"));
    const char *bad[] = {"tasks", "resnet-50", "--target", "vta", NULL};
    assert_int_equal(run(work, bad, &out, &err), 2);
    at_free(out);
    at_free(err);
}

/* On a 64x64 image (TopHub loads but has no record of its shapes; the full-size TopHub run is
 * test_net_vta_exec's). */
static void evaluate_should_be_bit_exact_and_print_layers(void **state)
{
    (void)state;
    char work[4096], hub[4096]; /* the support paths share one static buffer */
    snprintf(work, sizeof work, "%s", at_test_tmpdir("net_vta_cli_eval"));
    const char *rel = at_test_shared_path("data/tophub");
    char cwd[2048];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(hub, sizeof hub, "%s%s%s", rel[0] == '/' ? "" : cwd, rel[0] == '/' ? "" : "/", rel); /* the CLI runs in work */
    char *out = NULL, *err = NULL;
    const char *args[] = {"evaluate", "resnet-18", "--target", "vta", "--check", "--repeat", "2", "--tophub-dir", hub,
                          "--image-shape", "3,64,64", NULL};
    assert_int_equal(run(work, args, &out, &err), 0);
    assert_non_null(strstr(out, "tophub: vta_v0.10 ("));
    assert_non_null(strstr(out, "Mean inference time (std dev): "));
    assert_non_null(strstr(out, "Output check: bit-exact with the reference executor"));
    assert_int_equal(count(out, " fallback #0 "), 19 + 8); /* convs and residual adds on VTA, untuned */
    assert_non_null(strstr(out, "stage1_unit1_conv1          vta     fallback #0 "));
    assert_non_null(strstr(out, "stage1_unit1_add            vta     fallback #0 "));
    assert_non_null(strstr(out, "conv0+max_pool2d            cpu "));
    assert_non_null(strstr(err, "0 VTA layers tuned by the log, 0 by TopHub, 27 run the fallback"));
    at_free(out);
    at_free(err);
}

/* Two trials per task on a 64x64 image (no TopHub record fits it): 10 tasks, 20 records in the
 * tmp log, pick-best keeps the best successful one per task (a task whose two random configs both
 * failed keeps none), and the evaluation runs the layers of the tuned tasks with them. */
static void short_tune_should_log_pick_and_evaluate(void **state)
{
    (void)state;
    const char *work = at_test_tmpdir("net_vta_cli_tune");
    char log[512], tmp[520];
    snprintf(log, sizeof log, "%s/vta.log", work);
    snprintf(tmp, sizeof tmp, "%s.tmp", log);
    char *out = NULL, *err = NULL;
    const char *args[] = {"tune", "resnet-18", "--target", "vta", "--tuner", "xgb_rank", "--n-trial", "2",
                          "--image-shape", "3,64,64", "--log", log, "--keep-tmp", "--eval-repeat", "1", "--no-tophub",
                          NULL};
    assert_int_equal(run(work, args, &out, &err), 0);
    assert_non_null(strstr(out, "Extract tasks...\nTuning...\n"));
    for (int i = 1; i <= 10; i++) {
        char pre[40];
        snprintf(pre, sizeof pre, "[Task %2d/10]  Current/Best: ", i);
        assert_non_null(strstr(out, pre));
    }
    assert_int_equal(count(out, "Progress: (2/2)"), 10);
    assert_int_equal(count(out, " Done.\n"), 10);
    assert_non_null(strstr(out, "Output check: bit-exact with the reference executor"));
    const char *d = strstr(err, "autotvm: dispatch: ");
    assert_non_null(d);
    size_t n_log = 0, n_hub = 0, n_fb = 0;
    assert_int_equal(sscanf(d, "autotvm: dispatch: %zu VTA layers tuned by the log, %zu by TopHub, %zu run", &n_log,
                            &n_hub, &n_fb), 3);
    assert_int_equal(n_log + n_fb, 19 + 8); /* the adds (add.vta, not tuned here) run the fallback */
    assert_int_equal(n_hub, 0);
    at_rec_log *t = NULL, *best = NULL;
    assert_ok(at_rec_log_load_file(tmp, &t));
    assert_ok(at_rec_log_load_file(log, &best));
    assert_int_equal(t->n, 20);
    size_t ok = 0, tasks_ok = 0;
    for (size_t i = 0; i < t->n; i++) {
        assert_string_equal(t->recs[i].task_name, "conv2d_packed.vta");
        assert_string_equal(t->recs[i].target.model, "sim_1x16_i8w8a32_15_15_18_17");
        ok += t->recs[i].result.err == 0;
        /* records come in task order, two per task */
        if (i % 2 == 1) tasks_ok += t->recs[i].result.err == 0 || t->recs[i - 1].result.err == 0;
    }
    assert_true(ok >= 10);
    assert_int_equal(best->n, tasks_ok);
    assert_true(n_log >= tasks_ok); /* a tuned task serves each of its layers */
    at_rec_log_free(t);
    at_rec_log_free(best);
    /* the VTA simulator is local: RPC is refused (--resume is supported since issue 19) */
    const char *bad[] = {"tune", "resnet-18", "--target", "vta", "--tuner", "xgb_rank", "--rpc-key", "k", "--tracker",
                         "127.0.0.1:9", NULL};
    assert_int_equal(run(work, bad, &out, &err), 2);
    at_free(out);
    at_free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tasks_should_list_the_tutorials_ten),
        cmocka_unit_test(evaluate_should_be_bit_exact_and_print_layers),
        cmocka_unit_test(short_tune_should_log_pick_and_evaluate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
