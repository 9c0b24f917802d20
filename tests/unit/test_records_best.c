/* Best tables and pick-best against the TopHub summary files (TVM's rules computed independently
 * in Python), plus the tie, error, lookup-order, stacking, merge and split rules. */
#include "tests/support/test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/json.h"
#include "core/log.h"
#include "records/best.h"
#include "records/log.h"
#include "records/pick.h"

static cJSON *load_summary(const char *rel)
{
    size_t len;
    char *text = at_test_read_file(at_test_shared_path(rel), &len);
    assert_non_null(text);
    cJSON *root;
    assert_ok(at_json_parse(text, len, &root));
    at_free(text);
    return root;
}

static at_rec_log *load_pack(const char *rel)
{
    at_rec_log *log;
    assert_ok(at_rec_log_load_file(at_test_shared_path(rel), &log));
    return log;
}

static const cJSON *item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        print_error("summary has no '%s'\n", key);
        fail();
    }
    return v;
}

static char *canonical(const cJSON *v)
{
    at_strbuf sb;
    at_strbuf_init(&sb);
    at_json_write_value(&sb, v);
    return at_strbuf_take(&sb);
}

/* Every entry of a summary list (best_by_workload or best_by_model_workload) is what the table
 * answers for (that target, template, args). */
static void check_entries(const at_rec_best *b, const cJSON *summary, const char *list, size_t want_n)
{
    const cJSON *entries = item(summary, list);
    const cJSON *by_wl = item(summary, "best_by_workload");
    assert_int_equal((size_t)cJSON_GetArraySize(entries), want_n);
    for (const cJSON *e = entries->child; e; e = e->next) {
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (!args) { /* best_by_model_workload points at its workload by position */
            const cJSON *wl = cJSON_GetArrayItem(by_wl, item(e, "workload")->valueint);
            args = item(wl, "args");
        }
        at_target t;
        assert_ok(at_target_parse(item(e, "best_target")->valuestring, &t));
        if (cJSON_GetObjectItemCaseSensitive(e, "model"))
            assert_string_equal(t.model, item(e, "model")->valuestring);
        char *args_json = canonical(args);
        const at_rec *r = at_rec_best_query(b, &t, item(e, "template")->valuestring, args_json);
        assert_non_null(r);
        assert_int_equal(r->line, item(e, "best_line")->valueint);
        assert_int_equal(at_config_index(r->config), item(e, "best_index")->valueint);
        assert_true(at_rec_cost(r) == item(e, "best_mean_cost")->valuedouble);
        assert_true(at_rec_best_is_winner(b, r));
        at_free(args_json);
        at_target_fini(&t);
    }
}

static void check_pack(const char *log_rel, const char *summary_rel, size_t n_records, size_t n_workloads,
                       size_t n_written)
{
    cJSON *s = load_summary(summary_rel);
    at_rec_log *log = load_pack(log_rel);
    assert_int_equal(log->n, n_records);
    at_rec_best *b;
    assert_ok(at_rec_best_new(&b));
    assert_ok(at_rec_best_add_log(b, log));
    const cJSON *tvm = item(s, "tvm_v0_18_pick_best");
    assert_int_equal(at_rec_best_n_model_keys(b), item(tvm, "num_best_by_model_keys")->valueint);
    assert_int_equal(at_rec_best_n_target_keys(b), item(tvm, "num_best_by_targetkey_keys")->valueint);
    check_entries(b, s, "best_by_workload", n_workloads);
    check_entries(b, s, "best_by_model_workload", n_workloads);

    /* pick-best keeps exactly the winners, in file order: here the same lines TVM writes */
    const at_rec_log *srcs[1] = {log};
    char *text;
    size_t n, nm, nk;
    assert_ok(at_rec_pick_best_logs(srcs, 1, &text, &n, &nm, &nk));
    assert_int_equal(n, n_written);
    const cJSON *lines = item(tvm, "lines");
    const cJSON *indexes = item(tvm, "config_indexes");
    assert_int_equal((size_t)cJSON_GetArraySize(lines), n_written);
    at_strbuf want;
    at_strbuf_init(&want);
    size_t k = 0;
    const cJSON *idx = indexes->child;
    for (const cJSON *l = lines->child; l; l = l->next, idx = idx->next) {
        while (k < log->n && log->recs[k].line != (size_t)l->valueint) k++;
        assert_true(k < log->n);
        assert_int_equal(at_config_index(log->recs[k].config), idx->valueint);
        at_strbuf_printf(&want, "%s\n", log->recs[k].text);
    }
    assert_ok(at_strbuf_status(&want));
    assert_string_equal(text, want.data);
    at_strbuf_fini(&want);
    at_free(text);
    at_rec_best_free(b);
    at_rec_log_free(log);
    at_json_free(s);
}

static void mali_pack_should_keep_all_528_records_in_order(void **state)
{
    (void)state;
    check_pack("data/tophub/mali_v0.06.log", "data/tophub/mali_v0.06.summary.json", 528, 528, 528);
}

static void vta_pack_should_keep_the_102_winners(void **state)
{
    (void)state;
    check_pack("data/tophub/vta_v0.10.log", "data/tophub/vta_v0.10.summary.json", 106, 102, 102);
    /* the README's named cases */
    at_rec_log *log = load_pack("data/tophub/vta_v0.10.log");
    at_rec_best *b;
    assert_ok(at_rec_best_new(&b));
    assert_ok(at_rec_best_add_log(b, log));
    static const size_t kept[] = {17, 19, 21, 22}, dropped[] = {47, 42, 37, 32};
    for (size_t i = 0; i < 4; i++) {
        const at_rec *win = NULL, *lose = NULL;
        for (size_t k = 0; k < log->n; k++) {
            if (log->recs[k].line == kept[i]) win = &log->recs[k];
            if (log->recs[k].line == dropped[i]) lose = &log->recs[k];
        }
        assert_non_null(win);
        assert_non_null(lose);
        assert_true(at_rec_same_workload(win, lose));
        assert_true(at_rec_best_is_winner(b, win));
        assert_false(at_rec_best_is_winner(b, lose));
        assert_true(at_rec_cost(win) < at_rec_cost(lose));
        if (i == 0) assert_int_equal(at_config_index(win->config), at_config_index(lose->config)); /* 243 */
    }
    /* the same log listed twice counts once */
    const at_rec_log *twice[2] = {log, log};
    char *text;
    size_t n;
    assert_ok(at_rec_pick_best_logs(twice, 2, &text, &n, NULL, NULL));
    assert_int_equal(n, 102);
    at_free(text);
    at_rec_best_free(b);
    at_rec_log_free(log);
}

/* A small log built from one TopHub line with the target, cost and error swapped in. */
static const char tmpl[] =
    "{\"input\": [\"%s\", \"dense.mali\", [[\"TENSOR\", [1, %d], \"float32\"], null], {}], \"config\": {\"index\": "
    "%d, \"code_hash\": null, \"entity\": [[\"tile_y\", \"sp\", [1, 1, 1]]]}, \"result\": [[%s], %d, 0.5, "
    "1538219132.0322816], \"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}\n";

static void add_line(at_strbuf *sb, const char *target, int wl, int index, const char *cost, int err)
{
    at_strbuf_printf(sb, tmpl, target, wl, index, cost, err);
}

static at_rec_log *build(const at_strbuf *sb)
{
    at_rec_log *log;
    assert_ok(at_strbuf_status(sb));
    assert_ok(at_rec_log_load_buffer("built.log", sb->data, sb->len, &log));
    assert_int_equal(log->stats.malformed, 0);
    return log;
}

static const char *wl_args(int wl)
{
    static char buf[128];
    snprintf(buf, sizeof buf, "[[\"TENSOR\", [1, %d], \"float32\"], null]", wl);
    return buf;
}

static void best_should_ignore_errors_and_keep_the_first_of_ties(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    const char *tgt = "opencl -model=rk3399 -device=mali";
    add_line(&sb, tgt, 1, 10, "0.5", 0);        /* line 1 */
    add_line(&sb, tgt, 1, 11, "0.1", 4);        /* line 2: cheaper but failed */
    add_line(&sb, tgt, 1, 12, "0.25, 0.75", 0); /* line 3: mean 0.5, a tie: loses */
    add_line(&sb, tgt, 2, 20, "0.3", 0);        /* line 4 */
    add_line(&sb, tgt, 2, 21, "0.2", 0);        /* line 5: strictly lower: wins */
    at_rec_log *log = build(&sb);
    at_strbuf_fini(&sb);
    at_rec_best *b;
    assert_ok(at_rec_best_new(&b));
    assert_ok(at_rec_best_add_log(b, log));
    assert_int_equal(at_rec_best_n_model_keys(b), 2);
    assert_int_equal(at_rec_best_n_target_keys(b), 6);
    at_target t;
    assert_ok(at_target_parse(tgt, &t));
    const at_rec *r = at_rec_best_query(b, &t, "dense.mali", wl_args(1));
    assert_non_null(r);
    assert_int_equal(r->line, 1);
    r = at_rec_best_query(b, &t, "dense.mali", wl_args(2));
    assert_int_equal(r->line, 5);
    assert_null(at_rec_best_query(b, &t, "dense.mali", wl_args(3)));
    assert_null(at_rec_best_query(b, &t, "conv2d.mali", wl_args(1)));
    at_target_fini(&t);
    assert_false(at_rec_best_is_winner(b, &log->recs[1]));
    assert_false(at_rec_best_is_winner(b, &log->recs[2]));
    assert_false(at_rec_best_is_winner(b, &log->recs[3]));
    at_rec_best_free(b);
    at_rec_log_free(log);
}

static void query_should_ask_the_model_first_then_keys_in_order(void **state)
{
    (void)state;
    at_strbuf sb;
    at_strbuf_init(&sb);
    add_line(&sb, "opencl -device=mali", 1, 1, "2.0", 0);               /* A: model unknown */
    add_line(&sb, "opencl -model=rk3399 -device=mali", 1, 2, "5.0", 0); /* B: model rk3399, costlier */
    add_line(&sb, "opencl -device=bifrost", 1, 3, "1.0", 0);            /* C: keys bifrost, opencl, gpu */
    add_line(&sb, "llvm -device=arm_cpu", 1, 4, "0.5", 0);              /* D: keys arm_cpu, cpu */
    at_rec_log *log = build(&sb);
    at_strbuf_fini(&sb);
    at_rec_best *b;
    assert_ok(at_rec_best_new(&b));
    assert_ok(at_rec_best_add_log(b, log));
    assert_int_equal(at_rec_best_n_model_keys(b), 1); /* "unknown" is never a model key */

    static const struct {
        const char *target;
        size_t      want_index; /* 0 = nothing */
    } cases[] = {
        {"opencl -model=rk3399 -device=mali", 2}, /* model table first, though A is cheaper */
        {"opencl -device=mali", 1},               /* key mali: A beats B */
        {"opencl -model=other -device=mali", 1},  /* no such model: keys */
        {"opencl", 3},                            /* key opencl: C is the cheapest opencl record */
        {"opencl -device=bifrost", 3},
        {"cuda -keys=mali,gpu", 1},               /* keys in order: mali (A) before gpu (C) */
        {"cuda -keys=gpu,mali", 3},
        {"llvm", 4},
        {"cuda", 3},                              /* its key gpu */
        {"ext_dev", 0},                           /* no keys at all */
        {"ext_dev -device=vta -keys=cpu", 4},
        {"ext_dev -device=vta", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        at_target t;
        assert_ok(at_target_parse(cases[i].target, &t));
        const at_rec *r = at_rec_best_query(b, &t, "dense.mali", wl_args(1));
        if (!cases[i].want_index) {
            assert_null(r);
        } else {
            if (!r || at_config_index(r->config) != (int64_t)cases[i].want_index) {
                print_error("%s: got index %lld, want %zu\n", cases[i].target,
                            r ? (long long)at_config_index(r->config) : -1LL, cases[i].want_index);
                fail();
            }
        }
        at_target_fini(&t);
    }
    /* winners: B (model key), A (key mali), C (opencl, gpu, bifrost), D (arm_cpu, cpu) */
    for (size_t i = 0; i < 4; i++) assert_true(at_rec_best_is_winner(b, &log->recs[i]));
    at_rec_best_free(b);
    at_rec_log_free(log);
}

static void stacked_tables_should_answer_from_the_highest_that_knows(void **state)
{
    (void)state;
    at_strbuf user_text, hub_text;
    at_strbuf_init(&user_text);
    at_strbuf_init(&hub_text);
    add_line(&user_text, "opencl -device=mali", 1, 100, "9.0", 0);           /* worse than TopHub's: still used */
    add_line(&hub_text, "opencl -model=rk3399 -device=mali", 1, 200, "1.0", 0);
    add_line(&hub_text, "opencl -model=rk3399 -device=mali", 2, 201, "1.0", 0);
    at_rec_log *user = build(&user_text), *hub = build(&hub_text);
    at_strbuf_fini(&user_text);
    at_strbuf_fini(&hub_text);
    at_rec_best *bu, *bh;
    assert_ok(at_rec_best_new(&bu));
    assert_ok(at_rec_best_new(&bh));
    assert_ok(at_rec_best_take_log(bu, user)); /* the tables own the logs from here */
    assert_ok(at_rec_best_take_log(bh, hub));
    const at_rec_best *stack[3] = {bu, NULL, bh};
    at_target t;
    assert_ok(at_target_parse("opencl -model=rk3399 -device=mali", &t));
    size_t which = 99;
    const at_rec *r = at_rec_best_query_stack(stack, 3, &t, "dense.mali", wl_args(1), &which);
    assert_int_equal(at_config_index(r->config), 100);
    assert_int_equal(which, 0);
    r = at_rec_best_query_stack(stack, 3, &t, "dense.mali", wl_args(2), &which);
    assert_int_equal(at_config_index(r->config), 201);
    assert_int_equal(which, 2);
    assert_null(at_rec_best_query_stack(stack, 3, &t, "dense.mali", wl_args(3), &which));
    assert_int_equal(which, 3);
    assert_null(at_rec_best_query_stack(stack, 3, &t, "dense.mali", wl_args(3), NULL));
    at_target_fini(&t);
    at_rec_best_free(bu);
    at_rec_best_free(bh);
}

static char *path_in(const char *dir, const char *name)
{
    static char buf[2][4096];
    static int k;
    k ^= 1;
    int n = snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    assert_true(n > 0 && (size_t)n < sizeof buf[k]);
    return buf[k];
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static void pick_best_should_merge_an_existing_output_and_be_idempotent(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", at_test_tmpdir("rec_pick"));
    at_strbuf in, out;
    at_strbuf_init(&in);
    at_strbuf_init(&out);
    const char *tgt = "opencl -model=rk3399 -device=mali";
    add_line(&in, tgt, 1, 1, "0.5", 0);  /* beaten by the old output's record */
    add_line(&in, tgt, 2, 2, "0.5", 0);  /* wins */
    add_line(&out, tgt, 1, 3, "0.4", 0); /* wins */
    add_line(&out, tgt, 2, 4, "0.5", 0); /* a tie: in's record was first */
    char *in_path = at_strdup(path_in(dir, "in.log"));
    char *out_path = at_strdup(path_in(dir, "out.log"));
    at_test_write_file(in_path, in.data);
    at_test_write_file(out_path, out.data);
    at_rec_pick_stats st;
    assert_ok(at_rec_pick_best(in_path, out_path, &st));
    assert_int_equal(st.in.records, 2);
    assert_int_equal(st.old_out.records, 2);
    assert_int_equal(st.written, 2);
    at_rec_log *in_log = build(&in), *out_log = build(&out);
    at_strbuf want;
    at_strbuf_init(&want);
    at_strbuf_printf(&want, "%s\n%s\n", in_log->recs[1].text, out_log->recs[0].text); /* input order */
    size_t len;
    char *got = at_test_read_file(out_path, &len);
    assert_string_equal(got, want.data);
    at_free(got);

    /* again, with the output just written: nothing changes */
    assert_ok(at_rec_pick_best(in_path, out_path, &st));
    assert_int_equal(st.written, 2);
    got = at_test_read_file(out_path, &len);
    assert_string_equal(got, want.data);
    at_free(got);
    assert_int_equal(count_entries(dir), 2); /* no temp file left behind */

    /* a missing input names the file */
    char *missing = path_in(dir, "missing.log");
    assert_int_equal(at_rec_pick_best(missing, out_path, NULL), AT_ENOTFOUND);
    assert_non_null(strstr(at_last_error(), missing));

    at_strbuf_fini(&want);
    at_strbuf_fini(&in);
    at_strbuf_fini(&out);
    at_rec_log_free(in_log);
    at_rec_log_free(out_log);
    unlink(in_path);
    unlink(out_path);
    at_free(in_path);
    at_free(out_path);
    rmdir(dir);
}

static void split_should_write_one_file_per_workload_without_duplicates(void **state)
{
    (void)state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", at_test_tmpdir("rec_split")); /* the helper's buffer is shared */
    size_t len;
    char *pack = at_test_read_file(at_test_shared_path("data/tophub/vta_v0.10.log"), &len);
    char *in_path = at_strdup(path_in(dir, "vta.log"));
    at_test_write_file(in_path, pack);
    at_free(pack);
    at_rec_split_stats st;
    assert_ok(at_rec_split(in_path, &st));
    assert_int_equal(st.in.records, 106);
    assert_int_equal(st.files, 102);     /* one per (target, template, args) */
    assert_int_equal(st.duplicates, 1);  /* line 47 repeats line 17's config 243 */
    assert_int_equal(st.written, 105);
    assert_int_equal(count_entries(dir), 103);

    at_rec_log *all;
    assert_ok(at_rec_log_load_file(in_path, &all));
    size_t seen = 0;
    bool line47_seen = false, line17_seen = false;
    size_t prev_first = 0;
    for (size_t f = 0; f < st.files; f++) {
        char name[64];
        snprintf(name, sizeof name, "vta.log.%03zu.wkl", f);
        char *p = path_in(dir, name);
        at_rec_log *part;
        assert_ok(at_rec_log_load_file(p, &part));
        assert_true(part->n >= 1);
        /* files follow the first appearance of their workload */
        size_t first = 0;
        while (first < all->n && strcmp(all->recs[first].text, part->recs[0].text)) first++;
        assert_true(first < all->n);
        if (f > 0) assert_true(first > prev_first);
        prev_first = first;
        for (size_t i = 0; i < part->n; i++) {
            assert_true(at_rec_same_workload(&part->recs[i], &part->recs[0]));
            assert_string_equal(part->recs[i].target_str, part->recs[0].target_str);
            /* lines are copied verbatim */
            bool found = false;
            for (size_t k = 0; k < all->n && !found; k++) {
                if (strcmp(all->recs[k].text, part->recs[i].text)) continue;
                found = true;
                line47_seen |= all->recs[k].line == 47;
                line17_seen |= all->recs[k].line == 17;
            }
            assert_true(found);
        }
        seen += part->n;
        at_rec_log_free(part);
        unlink(p);
    }
    assert_int_equal(seen, 105);
    assert_true(line17_seen);
    assert_false(line47_seen);
    at_rec_log_free(all);
    unlink(in_path);
    at_free(in_path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mali_pack_should_keep_all_528_records_in_order),
        cmocka_unit_test(vta_pack_should_keep_the_102_winners),
        cmocka_unit_test(best_should_ignore_errors_and_keep_the_first_of_ties),
        cmocka_unit_test(query_should_ask_the_model_first_then_keys_in_order),
        cmocka_unit_test(stacked_tables_should_answer_from_the_highest_that_knows),
        cmocka_unit_test(pick_best_should_merge_an_existing_output_and_be_idempotent),
        cmocka_unit_test(split_should_write_one_file_per_workload_without_duplicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
