/* bench_tuners: the XGBoost cost model's costs on a real template (resnet-18's 3x3 64->64 conv
 * on conv2d_nchw_spatial_pack.mali, a 4-million-config space): feature extraction, one refit on
 * 2,000 records (TVM's parameters and early stopping) and one simulated-annealing proposal of
 * 64 candidates (500 iterations, 128 chains, early stop 50), medians of repeated runs, per
 * feature type and loss. Labels come from a fixed synthetic function of the knobs, so the
 * numbers measure the machinery, not a device. White-box: uses tuners/internal.h.
 *
 *   bench_tuners [records (2000)] [repeats (5)] [xgb threads (1)] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/rng.h"
#include "templates/template.h"
#include "tuners/internal.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A smooth synthetic throughput over the knob vector with one peak. */
static double synthetic_flops(const at_space *s, int64_t idx)
{
    size_t nk = at_space_n_knobs(s);
    int64_t k[32];
    at_space_point_to_knobs(s, idx, k);
    double pen = 1;
    for (size_t j = 0; j < nk && j < 32; j++) {
        double d = (double)k[j] / (double)at_space_dim(s, j) - 0.3;
        pen += 2 * d * d;
    }
    return 1e11 / pen;
}

typedef struct scorer {
    at_tuner_featcache *fc;
    at_tuner_cm        *cm;
    float              *rows;
    size_t              cap;
} scorer;

static at_status score(void *ctx, const int64_t *xs, size_t n, double *out)
{
    scorer *s = ctx;
    size_t w = at_tuner_featcache_width(s->fc);
    if (n > s->cap) {
        float *p = at_realloc(s->rows, n * w * sizeof *p);
        if (!p) return AT_OOM();
        s->rows = p;
        s->cap = n;
    }
    AT_TRY(at_tuner_featcache_rows(s->fc, xs, n, s->rows));
    return at_tuner_cm_predict(s->cm, s->rows, n, out);
}

#define CHECK(expr)                                                                                     \
    do {                                                                                                \
        at_status st_ = (expr);                                                                         \
        if (st_ != AT_OK) {                                                                             \
            fprintf(stderr, "bench_tuners: %s: %s (%s)\n", #expr, at_status_str(st_), at_last_error()); \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    size_t n_rec = argc > 1 ? (size_t)atol(argv[1]) : 2000, reps = argc > 2 ? (size_t)atol(argv[2]) : 5;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    if (n_rec < 64 || reps < 1 || threads < 1) {
        fprintf(stderr, "usage: bench_tuners [records >= 64] [repeats >= 1] [xgb threads >= 1]\n");
        return 2;
    }
    at_task *task;
    CHECK(at_task_create("conv2d_nchw_spatial_pack.mali", AT_TARGET_OPENCL, "1,64,56,56,64,3,3,1,1", &task));
    const at_space *s = at_task_space(task);
    at_rng rng;
    at_rng_seed(&rng, 1);
    int64_t *xs = malloc(n_rec * sizeof *xs);
    double *ys = malloc(n_rec * sizeof *ys);
    CHECK(at_space_sample_ints(s, &rng, n_rec, xs));
    for (size_t i = 0; i < n_rec; i++) ys[i] = synthetic_flops(s, xs[i]);
    printf("task conv2d_nchw_spatial_pack.mali 1,64,56,56,64,3,3,1,1: %lld configs; %zu records; %zu repeats; "
           "%d XGBoost thread%s\n",
           (long long)at_space_len(s), n_rec, reps, threads, threads == 1 ? "" : "s");
    printf("%-8s %-12s %7s %12s %12s %12s %14s\n", "feature", "loss", "width", "extract ms", "refit ms", "rounds",
           "SA-64 ms");

    const at_feature feats[] = {AT_FEAT_KNOB, AT_FEAT_ITERVAR, AT_FEAT_CURVE};
    const at_loss losses[] = {AT_LOSS_REG, AT_LOSS_RANK};
    for (size_t f = 0; f < 3; f++) {
        at_tuner_featcache *fc;
        CHECK(at_tuner_featcache_new(task, feats[f], (size_t)512 << 20, &fc));
        size_t w = at_tuner_featcache_width(fc);
        float *rows = malloc(n_rec * w * sizeof *rows);
        double t0 = at_clock_mono_s();
        CHECK(at_tuner_featcache_rows(fc, xs, n_rec, rows)); /* cold: every row extracted */
        double extract_ms = (at_clock_mono_s() - t0) * 1e3;
        for (size_t l = 0; l < 2; l++) {
            double *fit_ms = malloc(reps * sizeof *fit_ms), *sa_ms = malloc(reps * sizeof *sa_ms);
            double rounds = 0;
            for (size_t r = 0; r < reps; r++) {
                at_tuner_cm_opts co = {.loss = losses[l], .n_threads = threads};
                at_tuner_cm *cm;
                CHECK(at_tuner_cm_new(w, &co, &cm));
                at_tuner_cm_data d = {.rows = rows, .ys = ys, .n = n_rec};
                at_rng fit_rng;
                at_rng_seed(&fit_rng, r);
                t0 = at_clock_mono_s();
                CHECK(at_tuner_cm_fit(cm, &d, 64, 20, 8000, &fit_rng));
                fit_ms[r] = (at_clock_mono_s() - t0) * 1e3;
                rounds += (double)at_tuner_cm_rounds(cm);
                /* one proposal of 64 with a fresh optimizer and a fresh feature cache */
                at_tuner_sa_opts so = {.n_iter = 500, .parallel_size = 128, .early_stop = 50, .temp_hi = 1,
                                       .persistent = true};
                at_tuner_sa *sa;
                CHECK(at_tuner_sa_new(s, &so, &sa));
                at_tuner_idxset visited;
                at_tuner_idxset_init(&visited);
                for (size_t i = 0; i < n_rec; i++) CHECK(at_tuner_idxset_add(&visited, xs[i], NULL));
                scorer sc = {.cm = cm};
                CHECK(at_tuner_featcache_new(task, feats[f], (size_t)512 << 20, &sc.fc));
                int64_t out[64];
                size_t n_out = 0;
                t0 = at_clock_mono_s();
                CHECK(at_tuner_sa_find_maximums(sa, score, &sc, 64, &visited, &fit_rng, out, &n_out));
                sa_ms[r] = (at_clock_mono_s() - t0) * 1e3;
                at_tuner_featcache_free(sc.fc);
                at_free(sc.rows);
                at_tuner_idxset_fini(&visited);
                at_tuner_sa_free(sa);
                at_tuner_cm_free(cm);
            }
            printf("%-8s %-12s %7zu %12.1f %12.1f %12.0f %14.1f\n", at_feature_name(feats[f]), at_loss_name(losses[l]),
                   w, extract_ms, median(fit_ms, reps), rounds / (double)reps, median(sa_ms, reps));
            fflush(stdout);
            free(fit_ms);
            free(sa_ms);
        }
        free(rows);
        at_tuner_featcache_free(fc);
    }
    free(xs);
    free(ys);
    at_task_free(task);
    return 0;
}
