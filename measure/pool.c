/* The worker-pool measurer's parent side, for OpenCL and CPU workers alike (internal.h): worker
 * processes forked up front (and again after a loss), one poll() loop that reads their frames
 * without blocking and enforces per-worker deadlines. Each worker builds an input and then runs
 * it; the runs go one at a time with every build paused meanwhile, so a run has the machine to
 * itself as in TVM's build-then-run batches, and the builds of later inputs fill the time between
 * runs. Every frame carries its job number and a worker runs one job at a time, so a result can
 * only land in the slot of the input it was sent for. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "core/alloc.h"
#include "core/clock.h"
#include "core/log.h"
#include "measure/cpu.h"
#include "measure/internal.h"

#define STARTUP_TIMEOUT_S 120.0
#define PREPARE_TIMEOUT_S 600.0

typedef enum wstate { W_DEAD = 0, W_STARTING, W_IDLE, W_BUILDING, W_BUILT, W_RUNNING } wstate;

typedef struct slot slot;

typedef struct wk {
    long           pid;
    int            fd;
    wstate         state;
    uint64_t       job;
    slot          *slot;    /* the input it works for */
    int            stage;   /* building: 0 preparing, 1 compiling, 2 first launch */
    double         deadline;
    bool           paused;  /* SIGSTOPped while another worker runs (its deadline stands still) */
    double         paused_at;
    unsigned char *rx;
    size_t         rx_len, rx_cap;
    char          *hello_error; /* a failed start's message */
    at_status      hello_status;
} wk;

struct slot {
    at_result     *res;
    at_meas_times *times;
    double         t_dispatch;
    double         t_built; /* when its build reported success */
    bool           sent;    /* dispatched to a worker */
    bool           done;
};

struct at_meas_ocl {
    at_meas_worker_cfg cfg;
    char              *device, *cache_dir, *build_options, *cpu;
    const at_template **extra;
    wk                *w;
    size_t             n;
    at_ocl_device_info dev;
    bool               have_dev;
    uint64_t           next_job;
    at_meas_times     *times;
    size_t             n_times, cap_times;
    at_meas_ocl_stats  stats;
    double             quiet_until; /* the last run's cooldown ends then (monotonic s) */
    at_strbuf          tx;
    struct pollfd     *pfd; /* per worker: pump_round's poll set */
    size_t            *pwho;
};

/* ---- results -------------------------------------------------------------------------------- */

static void finish(slot *s, at_meas_err err, const char *msg, double all_cost_s, bool cost_is_int)
{
    at_result *r = s->res;
    at_result_fini(r);
    r->err = err;
    if (err != AT_MEAS_OK) r->msg = at_strdup(msg && *msg ? msg : at_meas_err_name(err));
    r->all_cost_s = all_cost_s;
    r->all_cost_is_int = cost_is_int;
    r->timestamp = at_clock_wall_s();
    s->times->total_s = s->t_dispatch > 0 ? at_clock_mono_s() - s->t_dispatch : 0; /* 0: never dispatched */
    s->done = true;
}

/* A timeout's all_cost: the timeout in seconds, an int when whole (TVM logs "10", not "10.0"). */
static void finish_timeout(slot *s, at_meas_err err, const char *msg, int timeout_ms)
{
    finish(s, err, msg, timeout_ms / 1e3, timeout_ms % 1000 == 0);
}

/* ---- worker processes ----------------------------------------------------------------------- */

static void describe_exit(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, cap, "ended");
}

/* Kills (when kill_it) and reaps a worker; its state becomes W_DEAD. */
static void bury(at_meas_ocl *m, wk *w, bool kill_it, char *why, size_t why_cap)
{
    int status = 0;
    if (w->pid > 0) {
        if (kill_it) {
            kill(-(pid_t)w->pid, SIGKILL); /* its group: the linker a build may be running too */
            kill((pid_t)w->pid, SIGKILL);
        }
        while (waitpid((pid_t)w->pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (why) describe_exit(status, why, why_cap);
    } else if (why) {
        snprintf(why, why_cap, "not running");
    }
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    w->pid = -1;
    w->state = W_DEAD;
    w->rx_len = 0;
    w->slot = NULL;
    if (m && w->hello_status == AT_OK) m->stats.n_worker_losses++; /* NULL m: shutting down */
}

static at_status spawn(at_meas_ocl *m, wk *w)
{
    if (m->cfg.backend == AT_MEAS_BACKEND_OPENCL && at_ocl_touched())
        return AT_FAIL(AT_EINVAL, "cannot start OpenCL workers: this process already used OpenCL (PoCL does not survive fork)");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return AT_FAIL(AT_EIO, "socketpair: %s", strerror(errno));
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return AT_FAIL(AT_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0); /* a group of its own, with the compiler's child processes (pause_builders) */
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != parent) _exit(0);
        /* a crashing kernel must kill the worker, not run the parent's crash handlers (a test
         * framework's, which would go on running the parent's program in the child) */
        static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
        for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++) signal(crash_signals[i], SIG_DFL);
        close(sv[0]);
        for (size_t i = 0; i < m->n; i++)
            if (m->w[i].fd >= 0) close(m->w[i].fd);
        if (m->cfg.backend == AT_MEAS_BACKEND_CPU)
            at_meas_cpu_worker_main(sv[1], &m->cfg);
        else
            at_meas_worker_main(sv[1], &m->cfg);
        _exit(0); /* no atexit handlers, no stdio flush: the parent owns those */
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    close(sv[1]);
    fcntl(sv[0], F_SETFD, FD_CLOEXEC);
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    w->pid = pid;
    w->fd = sv[0];
    w->state = W_STARTING;
    w->deadline = at_clock_mono_s() + STARTUP_TIMEOUT_S;
    w->rx_len = 0;
    w->hello_status = AT_EDEVICE;
    at_free(w->hello_error);
    w->hello_error = NULL;
    m->stats.n_worker_starts++;
    return AT_OK;
}

static at_status send_frame(at_meas_ocl *m, wk *w)
{
    at_meas_frame_end(&m->tx);
    AT_TRY(at_strbuf_status(&m->tx));
    int flags = fcntl(w->fd, F_GETFL);
    fcntl(w->fd, F_SETFL, flags & ~O_NONBLOCK);
    at_status st = at_meas_send_all(w->fd, m->tx.data, m->tx.len);
    fcntl(w->fd, F_SETFL, flags);
    return st;
}

/* ---- the event loop ------------------------------------------------------------------------- */

static void lost(at_meas_ocl *m, wk *w, bool killed_by_us, const char *what)
{
    char why[128];
    slot *s = w->slot;
    wstate state = w->state;
    bury(m, w, killed_by_us, why, sizeof why);
    if (!s || s->done) return;
    char msg[512];
    snprintf(msg, sizeof msg, "worker process %s %s", why, what);
    if (state == W_RUNNING)
        finish(s, AT_MEAS_RUNTIME_DEVICE, msg, at_clock_mono_s() - s->t_dispatch, false);
    else
        finish_timeout(s, AT_MEAS_RUNTIME_DEVICE, msg, m->cfg.opts.build_timeout_ms);
}

static void on_frame(at_meas_ocl *m, wk *w, uint32_t type, at_meas_reader *r)
{
    const at_measure_opts *o = &m->cfg.opts;
    double now = at_clock_mono_s();
    if (type == AT_MSG_HELLO && w->state == W_STARTING) {
        bool ok = at_meas_get_u32(r) != 0;
        at_status st = (at_status)at_meas_get_u32(r);
        if (ok) {
            at_ocl_device_info info;
            at_meas_get_bytes(r, &info, sizeof info);
            if (!r->bad) {
                if (!m->have_dev) m->dev = info;
                m->have_dev = true;
                w->state = W_IDLE;
                w->hello_status = AT_OK;
                return;
            }
        } else {
            w->hello_error = at_meas_get_str(r);
            w->hello_status = st == AT_OK ? AT_EDEVICE : st;
        }
        bury(m, w, true, NULL, 0);
        return;
    }
    uint64_t job = at_meas_get_u64(r);
    slot *s = w->slot;
    bool mine = s && !s->done && job == w->job;
    if (type == AT_MSG_STAGE && mine && w->state == W_BUILDING) {
        uint32_t stage = at_meas_get_u32(r);
        if (stage == AT_STAGE_PREPARED) {
            w->stage = 1;
            w->deadline = now + o->build_timeout_ms / 1e3;
        } else if (stage == AT_STAGE_COMPILED) {
            w->stage = 2;
            w->deadline = now + o->timeout_ms / 1e3;
            s->times->compiled = true; /* counted here: a first launch may never report back */
            m->stats.n_compiles++;
        }
        return;
    }
    if (type == AT_MSG_BUILT && mine && w->state == W_BUILDING) {
        at_meas_err err = (at_meas_err)at_meas_get_u32(r);
        char *msg = at_meas_get_str(r);
        s->times->prepare_s = at_meas_get_f64(r);
        s->times->instantiate_s = at_meas_get_f64(r);
        s->times->codegen_s = at_meas_get_f64(r);
        s->times->compile_s = at_meas_get_f64(r);
        s->times->first_launch_s = at_meas_get_f64(r);
        bool compiled = at_meas_get_u32(r) != 0;
        if (compiled && !s->times->compiled) m->stats.n_compiles++; /* a failed compile */
        s->times->compiled = compiled;
        s->times->kernels_built = at_meas_get_u32(r);
        if (!r->bad) {
            if (err != AT_MEAS_OK) {
                finish(s, err, msg, now - s->t_dispatch, false);
                w->state = W_IDLE;
                w->slot = NULL;
            } else {
                w->state = W_BUILT;
                s->t_built = now;
            }
        }
        at_free(msg);
        if (!r->bad) return;
    }
    if (type == AT_MSG_RAN && mine && w->state == W_RUNNING) {
        at_meas_err err = (at_meas_err)at_meas_get_u32(r);
        char *msg = at_meas_get_str(r);
        uint32_t n = at_meas_get_u32(r);
        double costs[64];
        if (n > 64) r->bad = true;
        for (uint32_t i = 0; i < n && !r->bad; i++) costs[i] = at_meas_get_f64(r);
        s->times->run_s = at_meas_get_f64(r);
        s->times->check_s = at_meas_get_f64(r);
        if (!r->bad) {
            finish(s, err, msg, now - s->t_dispatch, false);
            if (err == AT_MEAS_OK && at_result_set_costs(s->res, costs, n) != AT_OK) {
                s->res->err = AT_MEAS_UNKNOWN_ERROR;
                s->res->msg = at_strdup("out of memory");
            }
            w->state = W_IDLE;
            w->slot = NULL;
        }
        at_free(msg);
        if (!r->bad) return;
    }
    /* a frame that is not the answer to this worker's job: never guess, drop the worker */
    lost(m, w, true, "sent an unexpected message");
}

static bool busy(const wk *w)
{
    return w->state == W_STARTING || w->state == W_BUILDING || w->state == W_RUNNING;
}

/* Reads what a worker has sent; false when its stream ended. */
static bool drain(at_meas_ocl *m, wk *w)
{
    /* a worker that reports an error and exits leaves its last frames and the EOF in one read
     * burst: the frames are handled before the EOF counts */
    bool eof = false;
    for (;;) {
        if (w->rx_cap - w->rx_len < 4096) {
            size_t cap = w->rx_cap ? 2 * w->rx_cap : 16384;
            unsigned char *b = at_realloc(w->rx, cap);
            if (!b) return false;
            w->rx = b;
            w->rx_cap = cap;
        }
        ssize_t k = recv(w->fd, w->rx + w->rx_len, w->rx_cap - w->rx_len, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (k <= 0) {
            eof = true;
            break;
        }
        w->rx_len += (size_t)k;
    }
    size_t pos = 0;
    while (w->rx_len - pos >= 8 && w->fd >= 0) {
        uint32_t len, type;
        memcpy(&len, w->rx + pos, 4);
        memcpy(&type, w->rx + pos + 4, 4);
        if (len < 4 || len > AT_MEAS_MAX_FRAME) return false;
        if (w->rx_len - pos - 4 < len) break;
        at_meas_reader r = {.p = w->rx + pos + 8, .len = len - 4};
        pos += 4 + (size_t)len;
        on_frame(m, w, type, &r);
    }
    if (w->fd < 0) return true; /* buried while handling a frame */
    memmove(w->rx, w->rx + pos, w->rx_len - pos);
    w->rx_len -= pos;
    return !eof;
}

/* One round of the event loop: deadlines, then one poll of the busy workers' streams (until a
 * frame, a death or `until`). A paused worker's deadline stands still. False when no worker is
 * busy (nothing to wait for). */
static bool pump_round(at_meas_ocl *m, double until)
{
    struct pollfd *fds = m->pfd;
    size_t *who = m->pwho, nf = 0;
    double now = at_clock_mono_s(), next = until;
    bool any = false, expired = false;
    for (size_t i = 0; i < m->n; i++) {
        wk *w = &m->w[i];
        if (!busy(w)) continue;
        if (!w->paused && now >= w->deadline) {
            expired = true; /* an event: the caller looks again before anything waits */
            slot *s = w->slot;
            const at_measure_opts *o = &m->cfg.opts;
            char msg[256];
            if (w->state == W_STARTING) {
                bury(m, w, true, NULL, 0);
                w->hello_status = AT_ETIMEOUT;
                continue;
            }
            wstate state = w->state;
            int stage = w->stage;
            bury(m, w, true, NULL, 0);
            if (!s || s->done) continue;
            if (state == W_RUNNING) {
                snprintf(msg, sizeof msg, "run exceeded the %g s timeout; worker killed", o->timeout_ms / 1e3);
                finish_timeout(s, AT_MEAS_RUN_TIMEOUT, msg, o->timeout_ms);
            } else if (stage == 2) {
                snprintf(msg, sizeof msg, "first launch (code generation and one run) exceeded the %g s timeout; worker killed",
                         o->timeout_ms / 1e3);
                finish_timeout(s, AT_MEAS_RUN_TIMEOUT, msg, o->timeout_ms);
            } else {
                snprintf(msg, sizeof msg, "%s exceeded the %g s timeout; worker killed",
                         stage == 0 ? "preparing the task's data" : "build", (stage == 0 ? PREPARE_TIMEOUT_S : o->build_timeout_ms / 1e3));
                finish_timeout(s, AT_MEAS_BUILD_TIMEOUT, msg, o->build_timeout_ms);
            }
            continue;
        }
        any = true;
        if (!w->paused && w->deadline < next) next = w->deadline;
        fds[nf].fd = w->fd;
        fds[nf].events = POLLIN;
        fds[nf].revents = 0;
        who[nf++] = i;
    }
    if (expired) return true;
    if (!any) return false;
    int timeout_ms = next > now + 3600 ? 3600 * 1000 : (int)((next - now) * 1e3) + 1;
    int rc = poll(fds, (nfds_t)nf, timeout_ms);
    if (rc < 0 && errno != EINTR) return false;
    for (size_t j = 0; rc > 0 && j < nf; j++) {
        if (!fds[j].revents) continue;
        wk *w = &m->w[who[j]];
        if (w->fd != fds[j].fd) continue;
        if (!drain(m, w)) {
            if (w->state == W_STARTING) {
                char why[128];
                bury(m, w, true, why, sizeof why);
                if (!w->hello_error) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "worker process %s while starting", why);
                    w->hello_error = at_strdup(msg);
                }
            } else {
                lost(m, w, true, w->state == W_RUNNING ? "while running" : "while building");
            }
        }
    }
    return true;
}

/* Runs the loop until no worker is busy: frames, deaths and deadlines. */
static void pump(at_meas_ocl *m)
{
    while (pump_round(m, INFINITY)) {
    }
}

/* Starts every dead worker and waits for their hello. Returns how many are ready. */
static size_t revive(at_meas_ocl *m, at_status *first_error)
{
    *first_error = AT_OK;
    for (size_t i = 0; i < m->n; i++) {
        /* a worker that died while idle (killed from outside) is noticed here, not by a trial */
        int status;
        wk *w = &m->w[i];
        if (w->state == W_IDLE && waitpid((pid_t)w->pid, &status, WNOHANG) == (pid_t)w->pid) {
            w->pid = -1;
            bury(m, w, false, NULL, 0);
        }
    }
    for (size_t i = 0; i < m->n; i++) {
        if (m->w[i].state != W_DEAD) continue;
        at_status st = spawn(m, &m->w[i]);
        if (st != AT_OK && *first_error == AT_OK) *first_error = st;
    }
    pump(m);
    size_t ready = 0;
    for (size_t i = 0; i < m->n; i++) {
        wk *w = &m->w[i];
        if (w->state == W_IDLE) {
            ready++;
        } else if (*first_error == AT_OK) {
            *first_error = w->hello_status == AT_OK ? AT_EDEVICE : w->hello_status;
            if (w->hello_error)
                AT_FAIL(*first_error, "%s", w->hello_error);
            else if (w->hello_status == AT_ETIMEOUT)
                AT_FAIL(*first_error, "measurement worker did not start within %g s", STARTUP_TIMEOUT_S);
        }
    }
    return ready;
}

/* ---- public API ----------------------------------------------------------------------------- */

/* Worker processes per online core at most (n_parallel above it is cut down, with a warning). */
#define AT_MEAS_MAX_WORKERS_PER_CORE 4L

static char *dup_opt(const char *s, bool *oom)
{
    if (!s) return NULL;
    char *d = at_strdup(s);
    if (!d) *oom = true;
    return d;
}

static at_status pool_new(const at_measure_opts *opts, at_meas_backend backend, at_meas_ocl **out)
{
    *out = NULL;
    if (opts->number < 0 || opts->repeat < 0 || opts->repeat > 64 || opts->min_repeat_ms < 0 || opts->timeout_ms < 0 ||
        opts->build_timeout_ms < 0 || opts->n_parallel < 0 || opts->n_threads < 0)
        return AT_FAIL(AT_EINVAL, "bad measure options (negative value, or repeat > 64)");
    at_meas_ocl *m = at_calloc(1, sizeof *m);
    if (!m) return AT_OOM();
    at_strbuf_init(&m->tx);
    m->cfg.backend = backend;
    at_measure_opts *o = &m->cfg.opts;
    *o = *opts;
    if (!o->number) o->number = 4;
    if (!o->repeat) o->repeat = 3;
    if (!o->timeout_ms) o->timeout_ms = 10000;
    if (!o->cooldown_ms) o->cooldown_ms = 100;
    if (!o->seed) o->seed = 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    if (!o->n_parallel) o->n_parallel = (int)cores;
    /* builders beyond a few per core only queue for the CPU, and each is a process with a device
     * context: --n-parallel 100000 used to fork workers until the machine gave out */
    if ((long)o->n_parallel > AT_MEAS_MAX_WORKERS_PER_CORE * cores) {
        at_log(AT_LOG_WARN, "n_parallel %d is more than %ld builder processes per core: using %ld (%ld cores)",
               o->n_parallel, AT_MEAS_MAX_WORKERS_PER_CORE, AT_MEAS_MAX_WORKERS_PER_CORE * cores, cores);
        o->n_parallel = (int)(AT_MEAS_MAX_WORKERS_PER_CORE * cores);
    }
    /* TVM's 10 s assumes a builder per core; more builders than cores share them */
    if (!o->build_timeout_ms) o->build_timeout_ms = 10000 * (int)((o->n_parallel + cores - 1) / cores);
    bool oom = false;
    o->device = m->device = dup_opt(opts->device, &oom);
    o->cache_dir = m->cache_dir = dup_opt(opts->cache_dir, &oom);
    o->build_options = m->build_options = dup_opt(opts->build_options, &oom);
    o->cpu = m->cpu = dup_opt(opts->cpu, &oom);
    if (opts->n_extra_templates) {
        m->extra = at_calloc(opts->n_extra_templates, sizeof *m->extra);
        if (m->extra)
            memcpy(m->extra, opts->extra_templates, opts->n_extra_templates * sizeof *m->extra);
        else
            oom = true;
    }
    o->extra_templates = m->extra;
    m->n = (size_t)o->n_parallel;
    m->w = at_calloc(m->n, sizeof *m->w);
    m->pfd = at_calloc(m->n, sizeof *m->pfd);
    m->pwho = at_calloc(m->n, sizeof *m->pwho);
    if (oom || !m->w || !m->pfd || !m->pwho) {
        at_meas_ocl_free(m);
        return AT_OOM();
    }
    for (size_t i = 0; i < m->n; i++) {
        m->w[i].fd = -1;
        m->w[i].pid = -1;
    }
    at_status st;
    size_t ready = revive(m, &st);
    if (ready < m->n) {
        if (st == AT_OK) st = AT_FAIL(AT_EDEVICE, "measurement workers failed to start");
        at_meas_ocl_free(m);
        return st;
    }
    *out = m;
    return AT_OK;
}

at_status at_meas_ocl_new(const at_measure_opts *opts, at_meas_ocl **out)
{
    return pool_new(opts, AT_MEAS_BACKEND_OPENCL, out);
}

void at_meas_ocl_free(at_meas_ocl *m)
{
    if (!m) return;
    /* ask every idle worker politely first, so they wind down side by side, then make sure: a
     * worker stuck in a kernel never reads */
    for (size_t i = 0; m->w && i < m->n; i++) {
        at_meas_frame_begin(&m->tx, AT_MSG_QUIT);
        if (m->w[i].state == W_IDLE) (void)send_frame(m, &m->w[i]);
    }
    for (size_t i = 0; m->w && i < m->n; i++) {
        wk *w = &m->w[i];
        if (w->state != W_DEAD) bury(NULL, w, w->state != W_IDLE, NULL, 0);
        at_free(w->rx);
        at_free(w->hello_error);
    }
    at_free(m->w);
    at_free(m->pfd);
    at_free(m->pwho);
    at_free(m->extra);
    at_free(m->device);
    at_free(m->cache_dir);
    at_free(m->build_options);
    at_free(m->cpu);
    at_free(m->times);
    at_strbuf_fini(&m->tx);
    at_free(m);
}

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Waits out the previous run's cooldown before the next run. */
static void quiet_before_run(at_meas_ocl *m)
{
    double left = m->quiet_until - at_clock_mono_s();
    if (left <= 0) return;
    sleep_s(left);
    m->stats.cooldown_s += left;
}

/* The template family a pool's workers build. */
static at_target_family family_of(const at_meas_ocl *m)
{
    return m->cfg.backend == AT_MEAS_BACKEND_CPU ? AT_TARGET_LLVM : AT_TARGET_OPENCL;
}

static at_status dispatch_build(at_meas_ocl *m, wk *w, slot *s, const at_meas_input *in)
{
    const at_template *t = at_task_template(in->task);
    AT_ASSERT(t->target == family_of(m)); /* checked by at_meas_ocl_measure */
    at_strbuf args, config;
    at_strbuf_init(&args);
    at_strbuf_init(&config);
    at_strbuf_putc(&args, '[');
    at_op_args_write_json(at_task_args(in->task), &args);
    at_strbuf_putc(&args, ']');
    at_config_write_json(in->config, &config);
    at_status st = at_strbuf_status(&args);
    if (st == AT_OK) st = at_strbuf_status(&config);
    if (st == AT_OK) {
        at_meas_frame_begin(&m->tx, AT_MSG_BUILD);
        at_meas_put_u64(&m->tx, ++m->next_job);
        at_meas_put_str(&m->tx, t->name);
        at_meas_put_u32(&m->tx, (uint32_t)t->target);
        at_meas_put_str(&m->tx, at_strbuf_cstr(&args));
        at_meas_put_str(&m->tx, at_strbuf_cstr(&config));
        st = send_frame(m, w);
    }
    at_strbuf_fini(&args);
    at_strbuf_fini(&config);
    s->t_dispatch = at_clock_mono_s();
    if (st != AT_OK) return st;
    w->job = m->next_job;
    w->slot = s;
    w->state = W_BUILDING;
    w->stage = 0;
    w->deadline = s->t_dispatch + PREPARE_TIMEOUT_S;
    return AT_OK;
}

/* The built program to run next: the earliest input's. */
static wk *first_built(at_meas_ocl *m)
{
    wk *best = NULL;
    for (size_t i = 0; i < m->n; i++) {
        wk *w = &m->w[i];
        if (w->state == W_BUILT && w->slot && (!best || w->slot < best->slot)) best = w;
    }
    return best;
}

/* Pauses (SIGSTOP) or resumes every worker that is building or starting: a run has the machine
 * to itself, as in TVM's build-then-run batches, while the builds of the next inputs fill the
 * time between runs (issue 18: 2 builders waiting on the slower build of a pair cost 6 s of 44). */
static void pause_builders(at_meas_ocl *m, bool pause)
{
    double now = at_clock_mono_s();
    for (size_t i = 0; i < m->n; i++) {
        wk *w = &m->w[i];
        if (pause && busy(w) && w->state != W_RUNNING && !w->paused && w->pid > 0) {
            /* the whole group: PoCL links each kernel with an ld process of the worker's */
            if (kill(-(pid_t)w->pid, SIGSTOP) == 0 || kill((pid_t)w->pid, SIGSTOP) == 0) {
                w->paused = true;
                w->paused_at = now;
                m->stats.n_pauses++;
            }
        } else if (!pause && w->paused) {
            w->paused = false;
            if (w->pid > 0 && kill(-(pid_t)w->pid, SIGCONT) != 0) kill((pid_t)w->pid, SIGCONT);
            w->deadline += now - w->paused_at; /* time stopped is no time spent building */
        }
    }
}

/* Runs w's built program: RUN, then the loop until its RAN (or its loss). */
static void run_built(at_meas_ocl *m, wk *w)
{
    const at_measure_opts *o = &m->cfg.opts;
    slot *s = w->slot;
    pause_builders(m, true);
    double t_run = at_clock_mono_s();
    m->stats.barrier_s += t_run - s->t_built;
    at_meas_frame_begin(&m->tx, AT_MSG_RUN);
    at_meas_put_u64(&m->tx, w->job);
    if (send_frame(m, w) != AT_OK) {
        lost(m, w, true, "before running");
        pause_builders(m, false);
        return;
    }
    w->state = W_RUNNING;
    w->deadline = at_clock_mono_s() + o->timeout_ms / 1e3;
    while (w->slot == s && w->state == W_RUNNING && pump_round(m, INFINITY)) {
    }
    if (!s->done) finish(s, AT_MEAS_UNKNOWN_ERROR, "the run ended without a result", 0, false);
    double t_ran = at_clock_mono_s();
    pause_builders(m, false);
    m->stats.run_phase_s += t_ran - t_run;
    /* TVM sleeps right after each run; here the next run waits until it is due, and builds fill
     * the time */
    if (o->cooldown_ms > 0) m->quiet_until = t_ran + o->cooldown_ms / 1e3;
}

at_status at_meas_ocl_measure(at_meas_ocl *m, const at_meas_input *inputs, size_t n, at_result *results)
{
    double t_enter = at_clock_mono_s();
    if (n > m->cap_times) {
        at_meas_times *t = at_realloc(m->times, n * sizeof *t);
        if (!t) return AT_OOM();
        m->times = t;
        m->cap_times = n;
    }
    m->n_times = n;
    if (n) memset(m->times, 0, n * sizeof *m->times);
    slot *slots = at_calloc(n + 1, sizeof *slots);
    if (!slots) return AT_OOM();
    for (size_t i = 0; i < n; i++) {
        slots[i].res = &results[i];
        slots[i].times = &m->times[i];
    }
    /* inputs for another backend are answered here, without bothering a worker */
    for (size_t i = 0; i < n; i++) {
        const at_template *t = at_task_template(inputs[i].task);
        if (t->target == family_of(m)) continue;
        char msg[300];
        snprintf(msg, sizeof msg, "the %s runner cannot measure %s templates (%s)",
                 m->cfg.backend == AT_MEAS_BACKEND_CPU ? "CPU" : "OpenCL", at_target_family_name(t->target), t->name);
        finish(&slots[i], AT_MEAS_COMPILE_HOST, msg, 0, false);
    }
    at_status status = AT_OK;
    int stalled = 0;
    for (;;) {
        bool left = false, active = false;
        for (size_t i = 0; i < n; i++) left |= !slots[i].done;
        if (!left) break;
        for (size_t i = 0; i < m->n; i++) active |= busy(&m->w[i]) || m->w[i].state == W_BUILT;
        if (!active) {
            /* between builds: restart the workers that are gone (killed while idle, say) */
            at_status st;
            if (revive(m, &st) == 0) {
                status = st != AT_OK ? st : AT_FAIL(AT_EDEVICE, "no measurement worker is running");
                char msg[600];
                snprintf(msg, sizeof msg, "no measurement worker could be started: %s", at_last_error());
                for (size_t i = 0; i < n; i++)
                    if (!slots[i].done) finish(&slots[i], AT_MEAS_UNKNOWN_ERROR, msg, 0, false);
                break;
            }
        }
        /* every idle worker builds the next input; a build goes on while other inputs' programs
         * run (paused during each run: pause_builders) */
        size_t next = 0, sent = 0;
        for (size_t i = 0; i < m->n; i++) {
            while (next < n && (slots[next].done || slots[next].sent)) next++;
            if (next >= n) break;
            wk *w = &m->w[i];
            if (w->state != W_IDLE) continue;
            if (dispatch_build(m, w, &slots[next], &inputs[next]) == AT_OK) {
                slots[next].sent = true;
                sent++;
            } else {
                w->slot = NULL;
                bury(m, w, true, NULL, 0); /* the input waits for the next round */
            }
        }
        wk *built = first_built(m);
        if (built && at_clock_mono_s() >= m->quiet_until) {
            run_built(m, built);
            continue;
        }
        bool building = false;
        for (size_t i = 0; i < m->n; i++) building |= busy(&m->w[i]);
        if (building) {
            /* wait for the next event, or for the cooldown's end when a program is ready */
            stalled = 0;
            double t_build = at_clock_mono_s();
            pump_round(m, built ? m->quiet_until : INFINITY);
            m->stats.build_phase_s += at_clock_mono_s() - t_build;
            continue;
        }
        if (built) {
            quiet_before_run(m); /* nothing else to do meanwhile */
            continue;
        }
        if (sent == 0) {
            while (next < n && (slots[next].done || slots[next].sent)) next++;
            if (next < n) {
                if (++stalled < 3) continue;
                status = AT_FAIL(AT_EIO, "no measurement worker accepts work");
                for (size_t i = 0; i < n; i++)
                    if (!slots[i].done) finish(&slots[i], AT_MEAS_UNKNOWN_ERROR, "no measurement worker accepts work", 0, false);
                break;
            }
        }
        /* a sent input that no worker holds any more, without an answer */
        for (size_t i = 0; i < n; i++)
            if (!slots[i].done && slots[i].sent) {
                bool held = false;
                for (size_t k = 0; k < m->n; k++) held |= m->w[k].slot == &slots[i];
                if (!held) finish(&slots[i], AT_MEAS_UNKNOWN_ERROR, "lost track of the built program", 0, false);
            }
    }
    m->stats.n_trials += n;
    m->stats.measure_s += at_clock_mono_s() - t_enter;
    at_free(slots);
    /* restart lost workers now: their start-up overlaps whatever the caller does next */
    for (size_t i = 0; i < m->n; i++)
        if (m->w[i].state == W_DEAD) (void)spawn(m, &m->w[i]);
    return status;
}

const at_ocl_device_info *at_meas_ocl_device(const at_meas_ocl *m)
{
    return &m->dev;
}

int at_meas_ocl_build_timeout_ms(const at_meas_ocl *m)
{
    return m->cfg.opts.build_timeout_ms;
}

size_t at_meas_ocl_n_workers(const at_meas_ocl *m)
{
    return m->n;
}

long at_meas_ocl_worker_pid(const at_meas_ocl *m, size_t i)
{
    AT_ASSERT(i < m->n);
    return m->w[i].state == W_DEAD ? -1 : m->w[i].pid;
}

const at_meas_times *at_meas_ocl_last_times(const at_meas_ocl *m, size_t *n)
{
    *n = m->n_times;
    return m->times;
}

void at_meas_ocl_stats_get(const at_meas_ocl *m, at_meas_ocl_stats *out)
{
    *out = m->stats;
}

/* ---- limits --------------------------------------------------------------------------------- */

at_status at_meas_ocl_check_limits(const at_ir_program *p, const at_ocl_code *code, const at_ocl_device_info *dev)
{
    for (size_t k = 0; k < code->n_kernels; k++) {
        const at_ocl_kernel_info *ki = &code->kernels[k];
        size_t wg = ki->lws[0] * ki->lws[1] * ki->lws[2];
        if (ki->work_dim > dev->max_work_item_dims)
            return AT_FAIL(AT_EINVAL, "kernel %s uses %u dimensions, the device has %u", ki->name, ki->work_dim,
                           dev->max_work_item_dims);
        if (wg > dev->max_work_group_size)
            return AT_FAIL(AT_EINVAL, "kernel %s: work-group of %zu work-items (%zu x %zu x %zu) exceeds the device's %zu",
                           ki->name, wg, ki->lws[0], ki->lws[1], ki->lws[2], dev->max_work_group_size);
        for (unsigned d = 0; d < 3; d++)
            if (ki->lws[d] > 1 && ki->lws[d] > dev->max_work_item_sizes[d])
                return AT_FAIL(AT_EINVAL, "kernel %s: local size %zu in dimension %u exceeds the device's %zu", ki->name,
                               ki->lws[d], d, dev->max_work_item_sizes[d]);
        if (ki->local_bytes > dev->local_mem_bytes)
            return AT_FAIL(AT_EINVAL, "kernel %s: %zu bytes of local memory exceed the device's %llu", ki->name,
                           ki->local_bytes, (unsigned long long)dev->local_mem_bytes);
    }
    for (size_t i = 0; i < p->n_bufs; i++) {
        size_t bytes = (size_t)p->bufs[i]->size * at_ir_type_bytes(p->bufs[i]->elem);
        if (dev->max_alloc_bytes && bytes > dev->max_alloc_bytes)
            return AT_FAIL(AT_EINVAL, "buffer %s of %zu bytes exceeds the device's largest allocation (%llu)",
                           p->bufs[i]->name, bytes, (unsigned long long)dev->max_alloc_bytes);
    }
    if (strstr(code->source, "cl_khr_fp64") && !dev->fp64) return AT_FAIL(AT_EINVAL, "the device has no fp64");
    if (strstr(code->source, "cl_khr_fp16") && !dev->fp16) return AT_FAIL(AT_EINVAL, "the device has no fp16");
    return AT_OK;
}

/* ---- runner --------------------------------------------------------------------------------- */

static at_status runner_measure(void *ctx, const at_meas_input *inputs, size_t n, at_result *results)
{
    return at_meas_ocl_measure(ctx, inputs, n, results);
}

static size_t runner_batch(void *ctx)
{
    return at_meas_ocl_n_workers(ctx);
}

/* Inputs known ahead: enough that builds always have work while programs run (issue 18, T1: 64
 * random trials took 43.0 s in calls of 2 inputs, 36.9 s in one call of 64). */
static size_t runner_batch_ahead(void *ctx)
{
    size_t n = at_meas_ocl_n_workers(ctx);
    return n > 64 ? n : 64;
}

static void runner_free(void *ctx)
{
    at_meas_ocl_free(ctx);
}

/* The workers' limit check (worker.c's codegen step) in the tuner's process, on the device the
 * pool probed: a config past the device's limits is known before it costs a worker's trial. */
static at_status runner_check(void *ctx, const at_ir_program *p)
{
    const at_ocl_device_info *dev = at_meas_ocl_device(ctx);
    at_ocl_code code;
    if (!dev || at_ocl_emit(p, &code) != AT_OK) return AT_OK; /* the builder will say */
    at_status st = at_meas_ocl_check_limits(p, &code, dev);
    at_ocl_code_fini(&code);
    if (st == AT_OK) return AT_OK;
    char why[512];
    snprintf(why, sizeof why, "%s", at_last_error());
    return AT_FAIL(AT_EINVAL, "Skipped because of invalid gpu kernel: %s", why);
}

static const at_meas_runner_i ocl_runner_i = {
    .name = "opencl",
    .measure = runner_measure,
    .batch_size = runner_batch,
    .batch_ahead = runner_batch_ahead,
    .free = runner_free,
    .check = runner_check,
};

static const at_meas_runner_i cpu_runner_i = {
    .name = "llvm",
    .measure = runner_measure,
    .batch_size = runner_batch,
    .batch_ahead = runner_batch_ahead,
    .free = runner_free,
};

/* A runner of interface iface over a new pool of backend's workers; the runner owns the pool. */
static at_status pool_runner_new(const at_meas_runner_i *iface, at_meas_backend backend, const at_measure_opts *opts,
                                 at_meas_runner **out)
{
    *out = NULL;
    at_meas_ocl *m;
    AT_TRY(pool_new(opts, backend, &m));
    return at_meas_runner_new(iface, m, out);
}

/* The pool behind r when r is a runner of interface iface, else NULL. */
static at_meas_ocl *pool_of(const at_meas_runner *r, const at_meas_runner_i *iface)
{
    return at_meas_runner_iface(r) == iface ? at_meas_runner_ctx(r) : NULL;
}

at_status at_meas_ocl_runner_new(const at_measure_opts *opts, at_meas_runner **out)
{
    return pool_runner_new(&ocl_runner_i, AT_MEAS_BACKEND_OPENCL, opts, out);
}

at_meas_ocl *at_meas_ocl_of(const at_meas_runner *r)
{
    return pool_of(r, &ocl_runner_i);
}

at_status at_meas_cpu_new(const at_measure_opts *opts, at_meas_ocl **out)
{
    return pool_new(opts, AT_MEAS_BACKEND_CPU, out);
}

at_status at_meas_cpu_runner_new(const at_measure_opts *opts, at_meas_runner **out)
{
    return pool_runner_new(&cpu_runner_i, AT_MEAS_BACKEND_CPU, opts, out);
}

at_meas_ocl *at_meas_cpu_of(const at_meas_runner *r)
{
    return pool_of(r, &cpu_runner_i);
}

at_status at_meas_local_runner_new(at_target_family family, const at_measure_opts *opts, at_meas_runner **out)
{
    *out = NULL;
    if (family == AT_TARGET_OPENCL) return at_meas_ocl_runner_new(opts, out);
    if (family == AT_TARGET_LLVM) return at_meas_cpu_runner_new(opts, out);
    return AT_FAIL(AT_EUNSUPPORTED, "no local worker-pool runner for %s templates", at_target_family_name(family));
}
