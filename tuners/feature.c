/* Feature vectors of a task's configs: knob (the space's flattened entities), itervar and
 * curve (the touch grids of the instantiated IR followed by the define_knob values, as TVM's
 * cost model appends config.get_other_option()). The length depends only on the space's knob
 * structure, never on the config, so it is computed without instantiating anything. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "core/clock.h"
#include "tuners/feature.h"

static size_t n_other_knobs(const at_space *s)
{
    size_t n = 0;
    for (size_t k = 0; k < at_space_n_knobs(s); k++) n += at_space_knob_kind(s, k) == AT_KNOB_OTHER;
    return n;
}

size_t at_tuner_feat_len(at_feature f, const at_task *task)
{
    const at_space *s = at_task_space(task);
    switch (f) {
    case AT_FEAT_KNOB: return at_space_knob_feature_len(s);
    case AT_FEAT_ITERVAR: return AT_FEAT_ITERVAR_IR_LEN + n_other_knobs(s);
    case AT_FEAT_CURVE: return AT_FEAT_CURVE_IR_LEN + n_other_knobs(s);
    case AT_FEAT_COUNT: break;
    }
    AT_ASSERT(!"unknown feature");
    return 0;
}

/* A define_knob value as a float: numbers as they are, bools 0/1, anything else NaN (missing). */
static float other_value(const at_val *v)
{
    switch (v->kind) {
    case AT_VAL_INT: return (float)v->i;
    case AT_VAL_FLOAT: return (float)v->f;
    case AT_VAL_BOOL: return v->b ? 1.0f : 0.0f;
    case AT_VAL_STR: {
        char *end;
        double d = strtod(v->s, &end);
        return end != v->s && *end == '\0' ? (float)d : NAN;
    }
    case AT_VAL_NULL: break;
    }
    return NAN;
}

static void write_other_values(const at_space *s, const at_config *c, float *out)
{
    for (size_t k = 0; k < at_space_n_knobs(s); k++) {
        if (at_space_knob_kind(s, k) != AT_KNOB_OTHER) continue;
        *out++ = other_value(&at_config_at(c, k)->val);
    }
}

at_status at_tuner_feat_extract(at_feature f, const at_task *task, int64_t index, float *out)
{
    const at_space *s = at_task_space(task);
    if (f == AT_FEAT_KNOB) return at_space_knob_feature(s, index, out);
    AT_ASSERT(f == AT_FEAT_ITERVAR || f == AT_FEAT_CURVE);
    at_config *c = NULL;
    at_arena *arena = NULL;
    at_tuner_touch *touch = NULL;
    const at_ir_program *p;
    at_status st = at_task_config(task, index, &c);
    if (st == AT_OK) st = at_arena_new(0, &arena);
    if (st == AT_OK) st = at_task_instantiate(task, c, arena, &p);
    if (st == AT_OK) st = at_tuner_touch_analyze(p, &touch);
    if (st == AT_OK) {
        if (f == AT_FEAT_ITERVAR) {
            at_tuner_touch_itervar(touch, out);
            write_other_values(s, c, out + AT_FEAT_ITERVAR_IR_LEN);
        } else {
            at_tuner_touch_curve(touch, out);
            write_other_values(s, c, out + AT_FEAT_CURVE_IR_LEN);
        }
    }
    at_tuner_touch_free(touch);
    at_arena_free(arena);
    at_config_free(c);
    return st;
}

/* Seconds of predicted work per extra thread: a thread that cannot be kept busy longer than
 * this costs more than it saves, at worst a scheduler time slice when the cores are shared
 * (a spatial-pack itervar row takes ~40 us, a winograd one ~3 ms). At most MAX_THREADS. */
#define THREAD_WORK_S 0.01
#define MAX_THREADS 32

typedef struct extract_job {
    at_feature            f;
    const at_task *const *tasks;
    const int64_t        *idx;
    size_t                n, width;
    float                *out;
    at_status            *st;
    atomic_size_t         next;
    pthread_mutex_t       mu;
    size_t                first_fail; /* lowest row whose status is neither OK nor EINVAL */
    char                  msg[512];   /* its message (error details are per thread) */
} extract_job;

static void *extract_worker(void *arg)
{
    extract_job *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) {
        float *row = j->out + i * j->width;
        AT_ASSERT(at_tuner_feat_len(j->f, j->tasks[i]) == j->width);
        at_status st = at_tuner_feat_extract(j->f, j->tasks[i], j->idx[i], row);
        if (st == AT_EINVAL) memset(row, 0, j->width * sizeof *row);
        j->st[i] = st;
        if (st == AT_OK || st == AT_EINVAL) continue;
        pthread_mutex_lock(&j->mu);
        if (i < j->first_fail) {
            j->first_fail = i;
            snprintf(j->msg, sizeof j->msg, "%s", at_last_error());
        }
        pthread_mutex_unlock(&j->mu);
    }
    return NULL;
}

at_status at_tuner_feat_extract_many(at_feature f, const at_task *const *tasks, const int64_t *idx, size_t n,
                                     size_t width, float *out, at_status *st)
{
    if (n == 0) return AT_OK;
    extract_job j = {.f = f, .tasks = tasks, .idx = idx, .n = n, .width = width, .out = out, .st = st,
                     .first_fail = SIZE_MAX};
    atomic_init(&j.next, 1);
    /* the caller extracts row 0 alone, timed: threads start only for the work it predicts */
    AT_ASSERT(at_tuner_feat_len(f, tasks[0]) == width);
    double t0 = at_clock_mono_s();
    st[0] = at_tuner_feat_extract(f, tasks[0], idx[0], out);
    double per_row = at_clock_mono_s() - t0;
    if (st[0] == AT_EINVAL) memset(out, 0, width * sizeof *out);
    else if (st[0] != AT_OK) return st[0];
    size_t n_threads = 1;
    if (f != AT_FEAT_KNOB) { /* knob features are arithmetic on the index: no thread pays */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        double want = (double)(n - 1) * per_row / THREAD_WORK_S;
        n_threads = cores > 1 ? (size_t)cores : 1;
        if (n_threads > MAX_THREADS) n_threads = MAX_THREADS;
        if ((double)n_threads > want) n_threads = want >= 1 ? (size_t)want : 1;
    }
    pthread_t th[MAX_THREADS];
    size_t started = 0;
    bool mu_ok = n_threads > 1 && pthread_mutex_init(&j.mu, NULL) == 0;
    /* the caller is one of the workers; a thread that cannot start leaves its share to the rest */
    while (mu_ok && started + 1 < n_threads && pthread_create(&th[started], NULL, extract_worker, &j) == 0) started++;
    if (!mu_ok) {
        for (size_t i = 1; i < n; i++) {
            float *row = out + i * width;
            AT_ASSERT(at_tuner_feat_len(f, tasks[i]) == width);
            st[i] = at_tuner_feat_extract(f, tasks[i], idx[i], row);
            if (st[i] == AT_EINVAL) memset(row, 0, width * sizeof *row);
            else if (st[i] != AT_OK) return st[i]; /* its message is this thread's */
        }
        return AT_OK;
    }
    extract_worker(&j);
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.mu);
    if (j.first_fail != SIZE_MAX) return AT_FAIL(st[j.first_fail], "%s", j.msg);
    return AT_OK;
}
