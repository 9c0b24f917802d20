/* The thread pool generated code shares parallel loops over: a static schedule of one contiguous
 * chunk per thread (the caller runs chunk 0), workers sleeping on a condition variable between
 * loops. A pool runs one loop at a time; a loop started while another runs on the same pool (two
 * callers sharing it), or in a child forked after the pool was made, runs serially on its caller
 * instead of waiting for workers that are busy or absent. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "backends/llvm/internal.h"
#include "core/alloc.h"

/* Workers run kernels whose scratch buffers are stack arrays: give them a main thread's stack. */
#define WORKER_STACK_BYTES ((size_t)16 << 20)

typedef void (*body_fn)(void *closure, int64_t begin, int64_t end);

struct at_llvm_pool {
    int             n_threads;
    int             n_started; /* workers created (n_threads - 1 once constructed) */
    pthread_t      *threads;
    pthread_mutex_t mu;
    pthread_cond_t  work_cv, done_cv;
    uint64_t        generation; /* bumped per loop */
    int             pending;    /* workers still running the current loop */
    bool            stop;
    atomic_bool     busy;
    body_fn         fn;
    void           *closure;
    int64_t         n;
    int             chunks;
    pid_t           owner; /* the process whose threads these are (a forked child has none) */
};

typedef struct worker_arg {
    at_llvm_pool *pool;
    int           index;
} worker_arg;

static void chunk(const at_llvm_pool *p, int w, int64_t *begin, int64_t *end)
{
    *begin = p->n * w / p->chunks;
    *end = p->n * (w + 1) / p->chunks;
}

static void *worker(void *arg)
{
    worker_arg wa = *(worker_arg *)arg;
    at_free(arg);
    at_llvm_pool *p = wa.pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->generation == seen) pthread_cond_wait(&p->work_cv, &p->mu);
        if (p->stop) break;
        seen = p->generation;
        if (wa.index >= p->chunks) continue;
        body_fn fn = p->fn;
        void *closure = p->closure;
        int64_t b, e;
        chunk(p, wa.index, &b, &e);
        pthread_mutex_unlock(&p->mu);
        fn(closure, b, e);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

at_status at_llvm_pool_new(int n_threads, at_llvm_pool **out)
{
    *out = NULL;
    if (n_threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = n > 0 ? (int)n : 1;
    }
    at_llvm_pool *p = at_calloc(1, sizeof *p);
    if (!p) return AT_OOM();
    p->n_threads = n_threads;
    p->owner = getpid();
    atomic_init(&p->busy, false);
    p->threads = at_calloc((size_t)n_threads, sizeof *p->threads);
    if (!p->threads) {
        at_free(p);
        return AT_OOM();
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, WORKER_STACK_BYTES);
    at_status st = AT_OK;
    for (int i = 1; i < n_threads; i++) {
        worker_arg *wa = at_malloc(sizeof *wa);
        if (!wa) {
            st = AT_OOM();
            break;
        }
        wa->pool = p;
        wa->index = i;
        if (pthread_create(&p->threads[i], &attr, worker, wa) != 0) {
            at_free(wa);
            st = AT_FAIL(AT_EIO, "thread pool: cannot create thread %d of %d", i, n_threads);
            break;
        }
        p->n_started++;
    }
    pthread_attr_destroy(&attr);
    if (st != AT_OK) {
        at_llvm_pool_free(p);
        return st;
    }
    *out = p;
    return AT_OK;
}

void at_llvm_pool_free(at_llvm_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i <= p->n_started; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    at_free(p->threads);
    at_free(p);
}

int at_llvm_pool_threads(const at_llvm_pool *p)
{
    return p ? p->n_threads : 1;
}

void at_llvm_parallel_for(at_llvm_pool *p, void (*fn)(void *closure, int64_t begin, int64_t end), void *closure,
                          int64_t n)
{
    if (n <= 0) return;
    bool expected = false;
    if (!p || p->n_threads <= 1 || n == 1 || p->owner != getpid() ||
        !atomic_compare_exchange_strong(&p->busy, &expected, true)) {
        fn(closure, 0, n);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->closure = closure;
    p->n = n;
    p->chunks = n < p->n_threads ? (int)n : p->n_threads;
    p->pending = p->chunks - 1;
    p->generation++;
    pthread_cond_broadcast(&p->work_cv);
    int64_t b, e;
    chunk(p, 0, &b, &e);
    pthread_mutex_unlock(&p->mu);
    fn(closure, b, e);
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    atomic_store(&p->busy, false);
}

at_llvm_parallel_for_fn at_llvm_runtime_parallel_for(void)
{
    return at_llvm_parallel_for;
}
