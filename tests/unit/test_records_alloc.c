/* Allocation failure at every allocation of the record parser, writer, loader and best tables
 * (curl's torture mode): each failing run returns AT_ENOMEM and leaks nothing. */
#include "tests/support/test_support.h"

#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"
#include "records/best.h"
#include "records/log.h"
#include "records/pick.h"
#include "records/record.h"

/* mali_v0.06.log line 4: split, reorder and annotate knobs */
static const char mali_line4[] =
    "{\"input\": [\"opencl -model=rk3399 -device=mali\", \"conv2d_nchw_spatial_pack.mali\", [[\"TENSOR\", [1, 992, "
    "7, 7], \"float32\"], [\"TENSOR\", [128, 992, 1, 1], \"float32\"], [1, 1], [0, 0, 0, 0], [1, 1], \"float32\"], "
    "{}], \"config\": {\"index\": 36225, \"code_hash\": null, \"entity\": [[\"tile_co\", \"sp\", [32, 2, 2]], "
    "[\"tile_oh\", \"sp\", [1, 7, 1]], [\"tile_ow\", \"sp\", [1, 1, 7]], [\"reorder_0\", \"re\", [0, 1, 2, 3, 4, 5, "
    "6, 9, 7, 8]], [\"ann_reduce\", \"an\", [\"unroll\", \"unroll\"]], [\"ann_spatial\", \"an\", [\"unroll\", "
    "\"unroll\", \"vec\"]]]}, \"result\": [[0.0012345162650602409], 0, 1.783360242843628, 1538220265.3881273], "
    "\"version\": 0.2, \"tvm_version\": \"0.7.dev0\"}";

/* a failed record with a "-target" to rewrite and an "ot" knob */
static const char failed_line[] =
    "{\"input\": [\"llvm -device=arm_cpu -target=armv7a-linux-eabi\", \"dense_nopack.x86\", [[\"TENSOR\", [1, 512], "
    "\"float32\"], null, \"float32\"], {}], \"config\": {\"index\": 5, \"code_hash\": \"ab12\", \"entity\": "
    "[[\"tile_y\", \"sp\", [-1, 1]], [\"auto_unroll_max_step\", \"ot\", 512]]}, \"result\": [[1000000000.0], 6, 10, "
    "1712345678.1234567], \"version\": 0.2, \"tvm_version\": \"0.18.0\"}";

typedef at_status (*op_fn)(void *ctx);

/* Runs op with allocation n failing for n = 0, 1, ... until it succeeds; returns the number of
 * failing runs. Each failure must be AT_ENOMEM and leave the live-block count unchanged. */
static long torture(op_fn op, void *ctx, at_status (*undo)(void *ctx))
{
    long start = at_alloc_live();
    for (long n = 0;; n++) {
        at_alloc_fail_after(n);
        at_status st = op(ctx);
        at_alloc_fail_after(-1);
        if (st == AT_OK) {
            if (undo) assert_ok(undo(ctx));
            assert_int_equal(at_alloc_live(), start);
            return n;
        }
        if (st != AT_ENOMEM) {
            print_error("run %ld: %s (%s)\n", n, at_status_str(st), at_last_error());
            fail();
        }
        if (at_alloc_live() != start) {
            print_error("run %ld leaked %ld blocks\n", n, at_alloc_live() - start);
            fail();
        }
    }
}

typedef struct parse_ctx {
    const char *line;
    at_rec      rec;
} parse_ctx;

static at_status do_parse(void *ctx)
{
    parse_ctx *c = ctx;
    return at_rec_parse_line(c->line, strlen(c->line), &c->rec);
}

static at_status undo_rec(void *ctx)
{
    parse_ctx *c = ctx;
    at_rec_fini(&c->rec);
    return AT_OK;
}

static void parser_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    static const char *const lines[] = {mali_line4, failed_line};
    for (size_t i = 0; i < 2; i++) {
        parse_ctx c = {.line = lines[i]};
        long fails = torture(do_parse, &c, undo_rec);
        assert_true(fails > 20); /* the loop really reached the parser's allocations */
    }
}

typedef struct write_ctx {
    const at_rec *rec;
    char         *line;
    at_rec        copy;
} write_ctx;

static at_status do_write(void *ctx)
{
    write_ctx *c = ctx;
    c->line = at_rec_to_line(c->rec);
    return c->line ? AT_OK : AT_ENOMEM;
}

static at_status undo_write(void *ctx)
{
    write_ctx *c = ctx;
    size_t n = strlen(c->line);
    assert_int_equal(c->line[n - 1], '\n');
    assert_int_equal(strncmp(c->line, mali_line4, n - 1), 0);
    at_free(c->line);
    return AT_OK;
}

static at_status do_copy(void *ctx)
{
    write_ctx *c = ctx;
    return at_rec_copy(&c->copy, c->rec);
}

static at_status undo_copy(void *ctx)
{
    write_ctx *c = ctx;
    assert_int_equal(at_config_index(c->copy.config), 36225);
    at_rec_fini(&c->copy);
    return AT_OK;
}

static void writer_and_copy_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    at_rec r;
    assert_ok(at_rec_parse_line(mali_line4, strlen(mali_line4), &r));
    write_ctx c = {.rec = &r};
    assert_true(torture(do_write, &c, undo_write) >= 1);
    assert_true(torture(do_copy, &c, undo_copy) > 10);
    at_rec_fini(&r);
}

typedef struct make_ctx {
    const at_rec *from;
    at_rec        made;
} make_ctx;

static at_status do_make(void *ctx)
{
    make_ctx *c = ctx;
    return at_rec_make(c->from->target_str, c->from->task_name, c->from->args_json, c->from->config, &c->from->result,
                       &c->made);
}

static at_status undo_make(void *ctx)
{
    make_ctx *c = ctx;
    at_rec_fini(&c->made);
    return AT_OK;
}

static void make_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    at_rec r;
    assert_ok(at_rec_parse_line(failed_line, strlen(failed_line), &r));
    make_ctx c = {.from = &r};
    assert_true(torture(do_make, &c, undo_make) > 10);
    at_rec_fini(&r);
}

typedef struct load_ctx {
    const char *text;
    at_rec_log *log;
} load_ctx;

static at_status do_load(void *ctx)
{
    load_ctx *c = ctx;
    return at_rec_log_load_buffer("torture.log", c->text, strlen(c->text), &c->log);
}

static at_status undo_load(void *ctx)
{
    load_ctx *c = ctx;
    assert_int_equal(c->log->n, 3);
    assert_int_equal(c->log->stats.malformed, 1);
    at_rec_log_free(c->log);
    return AT_OK;
}

/* Loads, then builds best tables and the pick-best output over the log. */
static at_status do_pick(void *ctx)
{
    load_ctx *c = ctx;
    at_rec_log *log;
    AT_TRY(at_rec_log_load_buffer("torture.log", c->text, strlen(c->text), &log));
    const at_rec_log *srcs[1] = {log};
    char *text;
    size_t n, nm, nk;
    at_status st = at_rec_pick_best_logs(srcs, 1, &text, &n, &nm, &nk);
    if (st == AT_OK) {
        assert_int_equal(n, 1); /* line 2; its later duplicate loses the tie, the failure counts not */
        assert_int_equal(nm, 1);
        assert_int_equal(nk, 3); /* mali, opencl, gpu */
        at_free(text);
    }
    if (st == AT_OK) {
        at_rec_best *b;
        st = at_rec_best_new(&b);
        if (st == AT_OK) st = at_rec_best_take_log(b, log);
        else at_rec_log_free(log);
        if (st == AT_OK) assert_ptr_equal(at_rec_best_query(b, &log->recs[0].target, log->recs[0].task_name,
                                                            log->recs[0].args_json),
                                          &log->recs[0]);
        at_rec_best_free(b);
        return st;
    }
    at_rec_log_free(log);
    return st;
}

static void loader_and_best_tables_should_survive_every_allocation_failure(void **state)
{
    (void)state;
    at_log_set_level(AT_LOG_ERROR); /* the malformed line's warning is expected */
    char text[8192];
    snprintf(text, sizeof text, "# comment\n%s\n{\"input\": bad}\n%s\n%s", mali_line4, failed_line, mali_line4);
    load_ctx c = {.text = text};
    assert_true(torture(do_load, &c, undo_load) > 50);
    assert_true(torture(do_pick, &c, NULL) > 50);
    at_log_set_level(AT_LOG_INFO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parser_should_survive_every_allocation_failure),
        cmocka_unit_test(writer_and_copy_should_survive_every_allocation_failure),
        cmocka_unit_test(make_should_survive_every_allocation_failure),
        cmocka_unit_test(loader_and_best_tables_should_survive_every_allocation_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
