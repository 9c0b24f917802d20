/* unit: the trial scheduler's arithmetic (tune/scheduler.h) on fake task latencies: the round
 * size, the gradient's terms worked out by hand, the warm-up and the exact round-by-round
 * allocation, dropped tasks, epsilon-greedy and ties against a replay of the seeded rng, resume,
 * the network objective (min over a node's implementations, node weights), and the table text
 * against the auto-scheduler tutorial's (seed 002). */
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/rng.h"
#include "tune/scheduler.h"

#define MAX_TASKS 16
#define MAX_ROUNDS 32

/* Fake rounds: task i's best latency after its r-th round is ms[i][min(r, n_ms[i]) - 1]
 * (0: no success); every round measures all the trials it is given, unless the task is
 * exhausted at its round `exhaust_at[i]` (1-based; 0 never). */
typedef struct fake {
    double ms[MAX_TASKS][8];
    size_t n_ms[MAX_TASKS];
    size_t exhaust_at[MAX_TASKS];
    size_t rounds[MAX_TASKS];
    size_t order[MAX_ROUNDS], trials[MAX_ROUNDS], n;
    size_t tables, last_next;
} fake;

static at_status fake_round(void *user, size_t task, size_t n_trials, at_tune_sched_round *out)
{
    fake *f = user;
    size_t r = ++f->rounds[task];
    assert_true(f->n < MAX_ROUNDS);
    f->order[f->n] = task;
    f->trials[f->n++] = n_trials;
    size_t k = r < f->n_ms[task] ? r : f->n_ms[task];
    double ms = f->ms[task][k - 1];
    out->n_trials = n_trials;
    out->best_cost_s = ms > 0 ? ms * 1e-3 : AT_TUNE_SCHED_NO_COST;
    out->exhausted = f->exhaust_at[task] == r;
    return AT_OK;
}

static void fake_table(void *user, const at_tune_sched *s, size_t next)
{
    fake *f = user;
    (void)s;
    f->tables++;
    f->last_next = next;
}

static at_tune_sched *new_sched(at_tune_sched_opts o, size_t n)
{
    at_tune_sched *s = NULL;
    assert_ok(at_tune_sched_new(&o, n, &s));
    for (size_t i = 0; i < n; i++) assert_ok(at_tune_sched_set_task(s, i, 1e6, NULL));
    return s;
}

static void run(at_tune_sched *s, fake *f)
{
    at_tune_sched_hooks h = {.round = fake_round, .on_table = fake_table, .user = f};
    assert_ok(at_tune_sched_run(s, &h));
}

static void assert_order(const fake *f, const size_t *want, size_t n)
{
    if (f->n != n) print_error("rounds: %zu, expected %zu\n", f->n, n);
    assert_int_equal(f->n, n);
    for (size_t i = 0; i < n; i++) {
        if (f->order[i] != want[i]) print_error("round %zu went to task %zu, expected %zu\n", i, f->order[i], want[i]);
        assert_int_equal(f->order[i], want[i]);
    }
}

static void round_size_should_be_k_capped_at_n_over_tasks(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 100}, 3);
    assert_int_equal(at_tune_sched_round_size(s), 33); /* min(64, 100 / 3) */
    at_tune_sched_free(s);
    s = new_sched((at_tune_sched_opts){.total_trials = 1000, .trials_per_round = 16}, 3);
    assert_int_equal(at_tune_sched_round_size(s), 16);
    at_tune_sched_free(s);
}

static void bad_options_should_be_refused(void **state)
{
    (void)state;
    at_tune_sched *s = NULL;
    assert_int_equal(at_tune_sched_new(&(at_tune_sched_opts){.total_trials = 2}, 3, &s), AT_EINVAL);
    assert_null(s);
    assert_string_equal(at_last_error(), "2 total trials are too few for 3 tasks: at least 3 (one warm-up trial each)");
    assert_int_equal(at_tune_sched_new(&(at_tune_sched_opts){.total_trials = 2}, 0, &s), AT_EINVAL);
    assert_int_equal(at_tune_sched_new(&(at_tune_sched_opts){.total_trials = 9, .epsilon = 1.5}, 3, &s), AT_EINVAL);
    assert_string_equal(at_last_error(), "epsilon must be in [0, 1], got 1.5");
    assert_int_equal(at_tune_sched_new(&(at_tune_sched_opts){.total_trials = 9, .alpha = -1}, 3, &s), AT_EINVAL);
    assert_int_equal(at_tune_sched_new(&(at_tune_sched_opts){.total_trials = 9, .beta = -1}, 3, &s), AT_EINVAL);
    s = new_sched((at_tune_sched_opts){.total_trials = 9}, 3);
    assert_int_equal(at_tune_sched_add_node(s, (size_t[]){0}, 0), AT_EINVAL);
    assert_int_equal(at_tune_sched_add_node(s, (size_t[]){3}, 1), AT_EINVAL);
    assert_int_equal(at_tune_sched_add_node(s, (size_t[]){1, 1}, 2), AT_EINVAL);
    assert_string_equal(at_last_error(), "a node's implementations must be distinct task ids below 3");
    at_tune_sched_free(s);
}

/* After one round each: rounds 1 makes the forward estimate 0, so the gradient is
 * -(1 - alpha) * latency (chain 1 for a plain sum). */
static void gradient_after_warm_up_should_be_minus_the_latency_times_one_minus_alpha(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 100, .trials_per_round = 10}, 2);
    at_tune_sched_restore(s, 0, 10, 3, 2e-3);
    at_tune_sched_restore(s, 1, 10, 3, 1e-3);
    double g[2];
    at_tune_sched_gradients(s, g);
    assert_float_equal(g[0], -0.8 * 2e-3, 1e-12);
    assert_float_equal(g[1], -0.8 * 1e-3, 1e-12);
    at_tune_sched_free(s);
}

/* One task, rounds of 8, 4, 2, 1 ms: backward (1 - 8) / 3 ms, forward (1 - 1/4) - 1 ms. */
static void gradient_should_combine_the_backward_window_and_the_forward_estimate(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 40, .trials_per_round = 10}, 1);
    fake f = {.ms = {{8, 4, 2, 1}}, .n_ms = {4}};
    run(s, &f);
    assert_int_equal(at_tune_sched_rounds(s, 0), 4);
    double g;
    at_tune_sched_gradients(s, &g);
    assert_float_equal(g, (0.2 * (-7.0 / 3) + 0.8 * -0.25) * 1e-3, 1e-12);
    /* alpha 0.5, window 2: backward (1 - 4) / 2 */
    at_tune_sched_free(s);
    s = new_sched((at_tune_sched_opts){.total_trials = 40, .trials_per_round = 10, .alpha = 0.5, .backward_window = 2},
                  1);
    memset(f.rounds, 0, sizeof f.rounds);
    f.n = 0;
    run(s, &f);
    at_tune_sched_gradients(s, &g);
    assert_float_equal(g, (0.5 * -1.5 + 0.5 * -0.25) * 1e-3, 1e-12);
    at_tune_sched_free(s);
}

/* Two tasks of one template and FLOP class: the slow one's forward estimate is bounded by
 * beta x the latency it would have at its fast sibling's speed. */
static void gradient_should_use_the_fastest_similar_task(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 100, .trials_per_round = 10}, 3);
    assert_ok(at_tune_sched_set_task(s, 0, 1e6, "conv2d_nchw.cuda"));
    assert_ok(at_tune_sched_set_task(s, 1, 1e6, "conv2d_nchw.cuda"));
    assert_ok(at_tune_sched_set_task(s, 2, 1e6, "dense_small_batch.gpu"));
    at_tune_sched_restore(s, 0, 40, 10, 4e-3); /* 4 rounds: 1/rounds better is 3 ms */
    at_tune_sched_restore(s, 1, 10, 1, 1e-3);  /* 1 GFLOPS: beta x 1 ms = 2 ms */
    at_tune_sched_restore(s, 2, 40, 10, 4e-3); /* same numbers, no sibling: 3 ms */
    double g[3];
    at_tune_sched_gradients(s, g);
    assert_float_equal(g[0], 0.8 * (2e-3 - 4e-3), 1e-12);
    assert_float_equal(g[1], 0.8 * -1e-3, 1e-12);
    assert_float_equal(g[2], 0.8 * (3e-3 - 4e-3), 1e-12);
    at_tune_sched_free(s);
}

/* Latencies 8 / 6,3 / 1 ms, rounds of 10, N 95. Warm-up 0 1 2; gradients then (x -0.8 ms):
 * r4: 8 6 1 -> 0;  r5: 0 has rounds 2: (8 - 4) = 4, 6, 1 -> 1 (now 3 ms);  r6: 4, 1.5, 1 -> 0;
 * r7: 8 - 8/3 = 5.33 -> 2.67, 1.5 -> 0;  r8: 0 has rounds 4, the window reaches back: backward 0,
 * forward 2 -> 0;  r9: 1.6 vs 1.5 -> 0;  r10: 1.33 vs 1.5 -> 1, the last 5 trials of N. */
static void allocation_should_follow_the_gradient_round_by_round(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 95, .trials_per_round = 10}, 3);
    fake f = {.ms = {{8}, {6, 3}, {1}}, .n_ms = {1, 2, 1}};
    run(s, &f);
    size_t want[] = {0, 1, 2, 0, 1, 0, 0, 0, 0, 1};
    assert_order(&f, want, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < 9; i++) assert_int_equal(f.trials[i], 10);
    assert_int_equal(f.trials[9], 5);
    assert_int_equal(at_tune_sched_total(s), 95);
    assert_int_equal(at_tune_sched_trials(s, 0), 60);
    assert_int_equal(at_tune_sched_trials(s, 1), 25);
    assert_int_equal(at_tune_sched_trials(s, 2), 10);
    assert_int_equal(f.tables, 11); /* before each round, and once at the end */
    assert_int_equal(f.last_next, SIZE_MAX);
    assert_float_equal(at_tune_sched_score(s), 12e-3, 1e-15);
    at_tune_sched_free(s);
}

/* A task without a success in its warm-up is dropped, and so is one whose space runs out: the
 * rest of the trials go to the others. */
static void dead_tasks_should_get_no_more_rounds(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 60, .trials_per_round = 10}, 3);
    fake f = {.ms = {{0}, {5}, {9}}, .n_ms = {1, 1, 1}, .exhaust_at = {0, 0, 2}};
    run(s, &f);
    /* task 2 (9 ms) leads the gradient and runs out in its second round; then task 1 alone */
    size_t want[] = {0, 1, 2, 2, 1, 1};
    assert_order(&f, want, sizeof want / sizeof want[0]);
    assert_true(at_tune_sched_is_dead(s, 0));
    assert_true(at_tune_sched_is_dead(s, 2));
    assert_false(at_tune_sched_is_dead(s, 1));
    at_tune_sched_free(s);
    /* every task dropped: the run ends before N */
    s = new_sched((at_tune_sched_opts){.total_trials = 60, .trials_per_round = 10}, 2);
    fake g = {.ms = {{0}, {5}}, .n_ms = {1, 1}, .exhaust_at = {0, 2}};
    run(s, &g);
    size_t want2[] = {0, 1, 1};
    assert_order(&g, want2, 3);
    assert_int_equal(at_tune_sched_total(s), 30);
    at_tune_sched_free(s);
}

/* Per-task early stopping: no better latency for more than `early_stopping` trials. */
static void early_stopping_should_drop_a_task_that_stopped_improving(void **state)
{
    (void)state;
    at_tune_sched *s =
        new_sched((at_tune_sched_opts){.total_trials = 80, .trials_per_round = 10, .early_stopping = 15}, 2);
    fake f = {.ms = {{8}, {1, 0.9, 0.8, 0.7, 0.6}}, .n_ms = {1, 5}};
    run(s, &f);
    /* task 0 leads; after its 3rd round it has gone 20 trials without a better latency, while
     * task 1 keeps improving */
    size_t want[] = {0, 1, 0, 0, 1, 1, 1, 1};
    assert_order(&f, want, sizeof want / sizeof want[0]);
    assert_true(at_tune_sched_is_dead(s, 0));
    at_tune_sched_free(s);
}

/* Equal gradients tie: the round goes to a live task drawn with the seeded rng (at_rng_below). */
static void ties_should_draw_a_live_task_with_the_seeded_rng(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 120, .trials_per_round = 10, .seed = 7}, 2);
    fake f = {.ms = {{1}, {1}}, .n_ms = {1, 1}};
    run(s, &f);
    assert_int_equal(f.n, 12);
    at_rng r;
    at_rng_seed(&r, 7);
    /* after the warm-up the two tasks tie whenever their round counts agree: a draw; otherwise
     * 1 ms after n rounds has forward -1/n ms, and the task with fewer rounds leads */
    size_t rounds[2] = {1, 1}, draws = 0;
    for (size_t k = 2; k < 12; k++) {
        if (rounds[0] == rounds[1]) {
            assert_int_equal(f.order[k], at_rng_below(&r, 2));
            draws++;
        } else {
            assert_int_equal(f.order[k], rounds[0] < rounds[1] ? 0 : 1);
        }
        rounds[f.order[k]]++;
    }
    assert_int_equal(draws, 5);
    at_tune_sched_free(s);
}

/* epsilon 1: every round after the warm-up is random (one uniform draw, then the pick). */
static void epsilon_greedy_should_pick_random_live_tasks(void **state)
{
    (void)state;
    at_tune_sched *s =
        new_sched((at_tune_sched_opts){.total_trials = 200, .trials_per_round = 10, .epsilon = 1, .seed = 42}, 4);
    fake f = {.ms = {{8}, {1}, {0}, {2}}, .n_ms = {1, 1, 1, 1}};
    run(s, &f);
    assert_int_equal(f.n, 20);
    at_rng r;
    at_rng_seed(&r, 42);
    const size_t live[3] = {0, 1, 3}; /* task 2 never succeeded: dropped after the warm-up */
    size_t picks[4] = {0};
    for (size_t k = 4; k < 20; k++) {
        (void)at_rng_uniform(&r);
        assert_int_equal(f.order[k], live[at_rng_below(&r, 3)]);
        picks[f.order[k]]++;
    }
    assert_int_equal(picks[2], 0);
    assert_true(picks[0] && picks[1] && picks[3]); /* not the gradient's all-to-task-0 */
    at_tune_sched_free(s);
    /* the same seed repeats itself */
    at_tune_sched *s2 =
        new_sched((at_tune_sched_opts){.total_trials = 200, .trials_per_round = 10, .epsilon = 1, .seed = 42}, 4);
    fake f2 = {.ms = {{8}, {1}, {0}, {2}}, .n_ms = {1, 1, 1, 1}};
    run(s2, &f2);
    assert_order(&f2, f.order, f.n);
    at_tune_sched_free(s2);
}

/* Resume: restored tasks skip the warm-up; their trials count towards N; rounds are the trials
 * over the round size, rounded half up. */
static void restore_should_skip_warm_up_and_count_towards_n(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 60, .trials_per_round = 10}, 3);
    at_tune_sched_restore(s, 0, 15, 4, 8e-3);
    at_tune_sched_restore(s, 1, 4, 1, 6e-3); /* 0.4 rounds: warmed up again */
    assert_int_equal(at_tune_sched_rounds(s, 0), 2);
    assert_int_equal(at_tune_sched_rounds(s, 1), 0);
    assert_int_equal(at_tune_sched_total(s), 19);
    fake f = {.ms = {{8}, {6}, {1}}, .n_ms = {1, 1, 1}};
    run(s, &f);
    /* warm-up 1 2 (39 trials); then (x -0.8 ms) task 0 (8 ms, 2 rounds: forward 4) vs task 1 (6 ms,
     * 1 round: 6) vs task 2 (1): 1; then 4 vs 3 (1 has 2 rounds): 0; then 2.67 vs 3: 1, with the 1
     * trial left of N */
    size_t want[] = {1, 2, 1, 0, 1};
    assert_order(&f, want, 5);
    assert_int_equal(f.trials[3], 10);
    assert_int_equal(f.trials[4], 1);
    assert_int_equal(at_tune_sched_total(s), 60);
    assert_int_equal(at_tune_sched_trials(s, 0), 25);
    assert_int_equal(at_tune_sched_trials(s, 1), 25);
    at_tune_sched_free(s);
}

/* The network objective: node {0, 1} twice (direct and winograd of one conv), node {2} once. */
static void objective_should_take_each_nodes_best_implementation_times_its_weight(void **state)
{
    (void)state;
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 60, .trials_per_round = 10}, 3);
    assert_ok(at_tune_sched_add_node(s, (size_t[]){1, 0}, 2));
    assert_ok(at_tune_sched_add_node(s, (size_t[]){2}, 1));
    assert_ok(at_tune_sched_add_node(s, (size_t[]){0, 1}, 2));
    assert_int_equal(at_tune_sched_weight(s, 0), 2);
    assert_int_equal(at_tune_sched_weight(s, 2), 1);
    assert_true(at_tune_sched_score(s) >= 1e9); /* nothing measured */
    at_tune_sched_restore(s, 0, 10, 1, 3e-3);
    assert_true(at_tune_sched_score(s) >= 1e9); /* node {2} has no latency yet */
    at_tune_sched_restore(s, 1, 10, 1, 1e-3);
    at_tune_sched_restore(s, 2, 10, 1, 0.5e-3);
    assert_float_equal(at_tune_sched_score(s), 2 * 1e-3 + 0.5e-3, 1e-15);
    double g[3];
    at_tune_sched_gradients(s, g);
    /* task 0 is 2 ms behind task 1: lowering it by delta changes nothing (chain 0) */
    assert_true(g[0] == 0);
    assert_float_equal(g[1], 2 * 0.8 * -1e-3, 1e-12);
    assert_float_equal(g[2], 0.8 * -0.5e-3, 1e-12);
    /* within delta (0.1 ms) of the best implementation, the chain term is the overlap */
    at_tune_sched_restore(s, 0, 10, 1, 1.05e-3);
    at_tune_sched_gradients(s, g);
    assert_float_equal(g[0], 2 * 0.5 * 0.8 * -1.05e-3, 1e-10);
    at_tune_sched_free(s);
}

/* Expands tabs to 8-column stops, as the tutorial page shows the printed line. */
static void expand_tabs(const char *in, char *out, size_t cap)
{
    size_t col = 0, o = 0;
    for (; *in && o + 9 < cap; in++) {
        if (*in == '\t') {
            do out[o++] = ' ';
            while (++col % 8);
        } else {
            out[o++] = *in;
            col = *in == '\n' ? 0 : col + 1;
        }
    }
    out[o] = 0;
}

/* The seed's table lines, from its title to its last line, with our state giving the same numbers
 * in rows 0, 1 and the summary line (16 tasks, 3992 trials, 10.016 ms, 1131 s, next 15). */
static void table_should_print_as_the_auto_scheduler_tutorial(void **state)
{
    (void)state;
    char *seed = at_test_read_file(at_test_shared_path("seeds/002_b08bb1e0568eac98.txt"), NULL);
    assert_non_null(seed);
    at_tune_sched *s = new_sched((at_tune_sched_opts){.total_trials = 10000}, 16);
    assert_ok(at_tune_sched_set_task(s, 0, 4000, NULL));
    assert_ok(at_tune_sched_set_task(s, 1, 4105530, NULL));
    at_tune_sched_restore(s, 0, 64, 1, 1e-5);
    at_tune_sched_restore(s, 1, 64, 1, 0.087e-3);
    for (size_t i = 2; i < 16; i++) at_tune_sched_restore(s, i, 276, 1, (10.016e-3 - 1e-5 - 0.087e-3) / 14);
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_tune_sched_format_table(s, 15, 1131.3, &sb);
    assert_ok(at_strbuf_status(&sb));
    const char *t = at_strbuf_cstr(&sb);
    /* the first six lines (title, header, rule, row 0) and row 1 as the seed prints them */
    const char *head = strstr(seed, "----------------------------------------------------------------------\n------");
    assert_non_null(head);
    const char *row2 = strstr(seed, "|    2 |");
    assert_non_null(row2);
    size_t n_head = (size_t)(row2 - head);
    assert_true(sb.len > n_head);
    if (strncmp(t, head, n_head)) print_error("ours:\n%.*s\nseed:\n%.*s\n", (int)n_head, t, (int)n_head, head);
    assert_memory_equal(t, head, n_head);
    /* the summary line: TVM prints tabs; the page shows them expanded */
    const char *last = strstr(t, "Estimated total latency:");
    assert_non_null(last);
    assert_string_equal(last, "Estimated total latency: 10.016 ms\tTrials: 3992\tUsed time : 1131 s\tNext ID: 15\t\n");
    char shown[256];
    expand_tabs(last, shown, sizeof shown);
    const char *want = strstr(seed, "Estimated total latency: 10.016 ms");
    assert_non_null(want);
    const char *eol = strchr(want, '\n');
    /* the page's line ends where the last field's text does (its trailing tab shows nothing) */
    assert_memory_equal(shown, want, (size_t)(eol - want));
    /* the rule above the summary line */
    assert_non_null(strstr(t, "|   15 |        0.709 |           1.41 |    276 |\n"
                              "-------------------------------------------------\n"
                              "Estimated total latency:"));
    at_strbuf_clear(&sb);
    /* a task without a success shows "-", so does the total; the last table has no Next ID */
    at_tune_sched *s2 = new_sched((at_tune_sched_opts){.total_trials = 100}, 2);
    at_tune_sched_restore(s2, 0, 33, 1, 2e-3);
    at_tune_sched_format_table(s2, SIZE_MAX, 4.5, &sb);
    assert_non_null(strstr(at_strbuf_cstr(&sb), "|    0 |        2.000 |           0.50 |     33 |\n"
                                                "|    1 |            - |              - |      0 |\n"));
    assert_non_null(strstr(at_strbuf_cstr(&sb), "\nEstimated total latency: - ms\tTrials: 33\tUsed time : 4 s\t\n"));
    at_strbuf_fini(&sb);
    at_tune_sched_free(s2);
    at_tune_sched_free(s);
    at_free(seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_size_should_be_k_capped_at_n_over_tasks),
        cmocka_unit_test(bad_options_should_be_refused),
        cmocka_unit_test(gradient_after_warm_up_should_be_minus_the_latency_times_one_minus_alpha),
        cmocka_unit_test(gradient_should_combine_the_backward_window_and_the_forward_estimate),
        cmocka_unit_test(gradient_should_use_the_fastest_similar_task),
        cmocka_unit_test(allocation_should_follow_the_gradient_round_by_round),
        cmocka_unit_test(dead_tasks_should_get_no_more_rounds),
        cmocka_unit_test(early_stopping_should_drop_a_task_that_stopped_improving),
        cmocka_unit_test(ties_should_draw_a_live_task_with_the_seeded_rng),
        cmocka_unit_test(epsilon_greedy_should_pick_random_live_tasks),
        cmocka_unit_test(restore_should_skip_warm_up_and_count_towards_n),
        cmocka_unit_test(objective_should_take_each_nodes_best_implementation_times_its_weight),
        cmocka_unit_test(table_should_print_as_the_auto_scheduler_tutorial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
