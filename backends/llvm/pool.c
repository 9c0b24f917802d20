/* The thread pool generated code shares parallel loops over. Each thread has a share, one
 * contiguous chunk of the loop (the caller's is chunk 0), cut in PIECES pieces it claims one at a
 * time; a thread done with its share claims the pieces left in the others'. So in the common case
 * the schedule is static (a layer reads what the same thread wrote in the last one), and a thread
 * that is preempted or slowed (another process on the cores, a busy host) costs at most the
 * piece it holds: the others finish its share. The caller waits for every piece, not for every
 * worker, so a worker that is not running does not hold the loop up (with one busy process on
 * this 2-vCPU VM, mobilenet took 24-25 ms with one fixed chunk per thread, 13.8-14.1 ms so,
 * onnxruntime 14.2-14.5 ms; issue 16). Between loops a worker spins for a while before it sleeps
 * on a condition variable, and the caller spins before it sleeps waiting for the pieces: a
 * network runs one parallel loop per stage, many of them 0.05-0.3 ms long, and waking a sleeping
 * thread costs ~10 us on this VM (an IPI and the scheduler) each way, while a spinning one sees
 * the next loop within a few hundred nanoseconds (TVM's and onnxruntime's pools spin the same
 * way). A pool runs one loop at a time; a loop started while another runs on the same pool (two
 * callers sharing it), or in a child forked after the pool was made, runs serially on its caller
 * instead of waiting for workers that are busy or absent.
 *
 * Bands. A loop over fused axes whose innermost axis has `band` iterations (the rows of a
 * (channel block, row) loop: the x86 templates fuse (n, oc_chunk, oh)) is shared out by rows
 * instead: a thread's share is the same part of every band (rows [band*w/T, band*(w+1)/T) of
 * each channel block), its pieces runs of whole bands. Channel blocks cut in halves make a 1x1
 * layer read its whole input on both cores, and a layer that next writes there pays for taking
 * the lines back from the other core: on this 2-vCPU VM mobilenet's depthwise layers ran no
 * faster on 2 threads than on 1. With rows, a layer reads the rows the same thread wrote in the
 * last (and one row either side), whatever the block sizes. Mobilenet's depthwise layers took
 * 0.37-0.38 ms in all instead of 0.46-0.52, the network 1.5 % less run for run (issue 16). A
 * band that does not divide among the threads (7 rows on 2), or gives each fewer than
 * MIN_BAND_ROWS, is shared out as a plain loop: its rows would not balance. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "backends/llvm/internal.h"
#include "core/alloc.h"

/* Workers run kernels whose scratch buffers are stack arrays: give them a main thread's stack. */
#define WORKER_STACK_BYTES ((size_t)16 << 20)
/* How long a thread spins for the next event before it sleeps: longer than the gap between two
 * layers' loops (host-side work of the executor), short enough that an idle pool costs nothing. */
#define SPIN_NS 200000
/* Pieces per thread's share of a loop: a share runs in this many claims, so a thread that ends
 * its share early takes the pieces another has not claimed (that one preempted or slower). */
#define PIECES 4
/* Rows of a band each thread must get for the loop to go by bands: a template's last row chunk
 * may be partial (7 rows in chunks of 2: 4 chunks), and with few rows per thread that tail
 * would unbalance the threads (rows 0-3 against 4-6) where channel blocks split evenly. */
#define MIN_BAND_ROWS 4

typedef void (*body_fn)(void *closure, int64_t begin, int64_t end);

/* A share's next unclaimed piece, tagged with the loop's generation (high 32 bits): a thread
 * that read an older generation cannot claim a piece of a newer loop. One cache line each. */
typedef struct share {
    _Atomic uint64_t next;
    char             pad[64 - sizeof(uint64_t)];
} share;

struct at_llvm_pool {
    int             n_threads;
    int             n_started; /* workers created (n_threads - 1 once constructed) */
    pthread_t      *threads;
    share          *shares;    /* one per thread */
    pthread_mutex_t mu;
    pthread_cond_t  work_cv, done_cv;
    /* Sleeping is announced (sleepers, caller_asleep) before the condition is checked again
     * under mu, and events are published before those flags are read: with seq_cst on both
     * sides, a waker either sees the sleeper or the sleeper sees the event. */
    atomic_uint_fast64_t generation; /* bumped per loop, after its fields and shares are set */
    atomic_int      done;           /* pieces of the current loop finished */
    atomic_int      sleepers;       /* workers asleep on work_cv, or about to be */
    atomic_bool     caller_asleep;  /* the caller asleep on done_cv, or about to be */
    atomic_bool     stop;
    atomic_bool     busy;
    /* The current loop. Read only by a thread holding a claimed piece: the caller rewrites them
     * only once every piece is done. */
    body_fn         fn;
    void           *closure;
    int64_t         n;
    int64_t         band;  /* > 0: shared out by rows of this many-iteration bands */
    int             chunks;
    pid_t           owner; /* the process whose threads these are (a forked child has none) */
};

typedef struct worker_arg {
    at_llvm_pool *pool;
    int           index;
} worker_arg;

static int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins until done(p, arg) holds or SPIN_NS pass; true when it holds. */
static bool spin_until(const at_llvm_pool *p, bool (*done)(const at_llvm_pool *, uint64_t), uint64_t arg)
{
    int64_t t_end = 0;
    for (unsigned i = 0;; i++) {
        if (done(p, arg)) return true;
        if ((i & 255) == 0) {
            int64_t t = mono_ns();
            if (t_end == 0)
                t_end = t + SPIN_NS;
            else if (t > t_end)
                return false;
        }
        cpu_relax();
    }
}

static bool new_loop(const at_llvm_pool *p, uint64_t seen)
{
    return atomic_load(&p->stop) || atomic_load(&p->generation) != seen;
}

static bool loop_done(const at_llvm_pool *p, uint64_t total)
{
    return (uint64_t)atomic_load(&p->done) == total;
}

/* Pieces of every loop: PIECES per thread's share, empty shares (n < threads) included, so a
 * thread counts them without reading the loop's fields. */
static int n_pieces(const at_llvm_pool *p)
{
    return p->n_threads * PIECES;
}

/* Claims the next piece of share w in loop gen; false when none is left or gen has passed. */
static bool claim(at_llvm_pool *p, int w, uint64_t gen, int *piece)
{
    uint64_t cur = atomic_load(&p->shares[w].next);
    for (;;) {
        if (cur >> 32 != (gen & 0xffffffffu) || (uint32_t)cur >= PIECES) return false;
        if (atomic_compare_exchange_weak(&p->shares[w].next, &cur, cur + 1)) {
            *piece = (int)(uint32_t)cur;
            return true;
        }
    }
}

/* Runs piece j of share w: the static chunk w (one per thread) cut in PIECES; with bands, rows
 * [band*w/T, band*(w+1)/T) of the bands of piece j (the bands cut in PIECES). */
static void run_piece(at_llvm_pool *p, int w, int j)
{
    if (p->band > 0) {
        int64_t k = p->band, bands = p->n / k;
        int64_t rb = k * w / p->n_threads, re = k * (w + 1) / p->n_threads;
        for (int64_t o = bands * j / PIECES; o < bands * (j + 1) / PIECES; o++)
            p->fn(p->closure, o * k + rb, o * k + re);
        return;
    }
    int64_t b = p->n * w / p->chunks, e = p->n * (w + 1) / p->chunks;
    int64_t pb = b + (e - b) * j / PIECES, pe = b + (e - b) * (j + 1) / PIECES;
    if (pb < pe) p->fn(p->closure, pb, pe);
}

/* Thread self's part of loop gen: its own share first (the static schedule, so a layer reads
 * what the same thread wrote in the last), then what is left of the others'. */
static void run_loop(at_llvm_pool *p, int self, uint64_t gen)
{
    int total = n_pieces(p);
    for (int k = 0; k < p->n_threads; k++) {
        int w = (self + k) % p->n_threads, j;
        while (claim(p, w, gen, &j)) {
            if (w < p->chunks) run_piece(p, w, j);
            if (atomic_fetch_add(&p->done, 1) + 1 == total && self != 0 && atomic_load(&p->caller_asleep)) {
                pthread_mutex_lock(&p->mu);
                pthread_cond_signal(&p->done_cv);
                pthread_mutex_unlock(&p->mu);
            }
        }
    }
}

static void *worker(void *arg)
{
    worker_arg wa = *(worker_arg *)arg;
    at_free(arg);
    at_llvm_pool *p = wa.pool;
    uint64_t seen = 0;
    for (;;) {
        if (!spin_until(p, new_loop, seen)) {
            pthread_mutex_lock(&p->mu);
            atomic_fetch_add(&p->sleepers, 1);
            while (!new_loop(p, seen)) pthread_cond_wait(&p->work_cv, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) break;
        seen = atomic_load(&p->generation);
        run_loop(p, wa.index, seen);
    }
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
    atomic_init(&p->generation, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->caller_asleep, false);
    atomic_init(&p->stop, false);
    atomic_init(&p->busy, false);
    p->threads = at_calloc((size_t)n_threads, sizeof *p->threads);
    p->shares = at_calloc((size_t)n_threads, sizeof *p->shares);
    if (!p->threads || !p->shares) {
        at_free(p->threads);
        at_free(p->shares);
        at_free(p);
        return AT_OOM();
    }
    for (int i = 0; i < n_threads; i++) atomic_init(&p->shares[i].next, PIECES); /* none to claim */
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
    atomic_store(&p->stop, true);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i <= p->n_started; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    at_free(p->threads);
    at_free(p->shares);
    at_free(p);
}

int at_llvm_pool_threads(const at_llvm_pool *p)
{
    return p ? p->n_threads : 1;
}

void at_llvm_parallel_for(at_llvm_pool *p, void (*fn)(void *closure, int64_t begin, int64_t end), void *closure,
                          int64_t n, int64_t band)
{
    if (n <= 0) return;
    bool expected = false;
    if (!p || p->n_threads <= 1 || n == 1 || p->owner != getpid() ||
        !atomic_compare_exchange_strong(&p->busy, &expected, true)) {
        fn(closure, 0, n);
        return;
    }
    p->fn = fn;
    p->closure = closure;
    p->n = n;
    p->chunks = n < p->n_threads ? (int)n : p->n_threads;
    bool by_rows = band > 0 && band < n && n % band == 0 && band % p->n_threads == 0 &&
                   band / p->n_threads >= MIN_BAND_ROWS;
    p->band = by_rows ? band : 0;
    atomic_store(&p->done, 0);
    uint64_t gen = atomic_load(&p->generation) + 1;
    for (int w = 0; w < p->n_threads; w++) atomic_store(&p->shares[w].next, (gen & 0xffffffffu) << 32);
    atomic_store(&p->generation, gen);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->work_cv);
        pthread_mutex_unlock(&p->mu);
    }
    run_loop(p, 0, gen);
    uint64_t total = (uint64_t)n_pieces(p);
    if (!spin_until(p, loop_done, total)) {
        pthread_mutex_lock(&p->mu);
        atomic_store(&p->caller_asleep, true);
        while (!loop_done(p, total)) pthread_cond_wait(&p->done_cv, &p->mu);
        atomic_store(&p->caller_asleep, false);
        pthread_mutex_unlock(&p->mu);
    }
    atomic_store(&p->busy, false);
}

at_llvm_parallel_for_fn at_llvm_runtime_parallel_for(void)
{
    return at_llvm_parallel_for;
}
