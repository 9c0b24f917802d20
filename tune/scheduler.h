/* The whole-network trial scheduler (TVM's auto_scheduler TaskScheduler, "gradient" strategy, as
 * in python/tvm/auto_scheduler/task_scheduler.py of v0.18): trials are spent in rounds of K on the
 * task whose next round is expected to lower the network's estimated latency the most. One warm-up
 * round per task, then per round the gradient of the objective with respect to each live task's
 * latency: the chain rule term by a finite difference (delta 1e-4 s) of the objective, times
 * alpha * the backward-window slope + (1 - alpha) * the forward estimate, the smaller of "1/rounds
 * better" and beta times the latency the fastest similar task (same template, FLOPs within a
 * factor 1.618) would give. Ties (all gradients equal) and, with probability epsilon, any round go
 * to a uniformly random live task (TVM v0.18 draws only on ties: epsilon 0).
 *
 * The objective is the estimated network latency: for every node of the network, the best latency
 * among the tasks implementing it (direct, winograd...), nodes of identical implementation sets
 * merged with weight = how many there are. With one single-implementation node per task it is
 * TVM's weighted sum of task latencies. The rounds themselves are the caller's (a callback): this
 * file is pure arithmetic, so tests drive it with fake latencies. Nothing here prints. */
#ifndef AT_TUNE_SCHEDULER_H
#define AT_TUNE_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/strbuf.h"

/* A task's latency before it has a successful measurement (TVM's 1e10). */
#define AT_TUNE_SCHED_NO_COST 1e10

/* Options; zero means TVM's default. */
typedef struct at_tune_sched_opts {
    size_t   total_trials;     /* N: trials of the whole run (required, >= the number of tasks) */
    size_t   trials_per_round; /* K; 0 -> 64. The round is min(K, N / n_tasks) so that every task
                                  gets its warm-up round (TVM's rule) */
    double   alpha;            /* weight of the backward slope; 0 -> 0.2 */
    double   beta;             /* similarity bound; 0 -> 2 */
    size_t   backward_window;  /* rounds of the backward slope; 0 -> 3 */
    size_t   early_stopping;   /* a task whose best has not improved for more than this many trials
                                  (rounds x round size) is dropped; 0 = never */
    double   epsilon;          /* probability that a round goes to a random live task; 0 = never */
    uint64_t seed;             /* the random choices */
} at_tune_sched_opts;

typedef struct at_tune_sched at_tune_sched;

/* A scheduler for n_tasks tasks (ids 0..n_tasks-1). *out owned by the caller. Returns AT_OK,
 * AT_EINVAL (no tasks; N smaller than the number of tasks: "at least n"; epsilon outside
 * [0, 1]; alpha outside [0, 1]) or AT_ENOMEM. */
at_status at_tune_sched_new(const at_tune_sched_opts *o, size_t n_tasks, at_tune_sched **out);

/* Frees it; NULL does nothing. */
void at_tune_sched_free(at_tune_sched *s);

/* Describes task i: FLOPs of one run and its similarity kind (the template name; NULL: similar to
 * none). Tasks of the same kind whose int(log_1.618(flop + 1)) agree form a similarity group
 * (TVM's derive_similarity_tag). Call before at_tune_sched_run. AT_OK or AT_ENOMEM. */
at_status at_tune_sched_set_task(at_tune_sched *s, size_t i, double flop, const char *kind);

/* Adds a node of the network implemented by tasks[0..n) (n >= 1, ids < n_tasks, no repeats); a
 * node with the same set as an earlier one raises that set's weight by 1. Without any node every
 * task counts once on its own. AT_OK, AT_EINVAL (empty or bad set) or AT_ENOMEM. */
at_status at_tune_sched_add_node(at_tune_sched *s, const size_t *tasks, size_t n);

/* Resuming (TVM's _restore_status): task i already has n_trials trials, the best of which
 * (best_cost_s, AT_TUNE_SCHED_NO_COST if none succeeded) came at trial n_at_best (1-based; 0 if
 * none). Its rounds become round(n_trials / round size); a task restored with rounds skips its
 * warm-up. Unlike TVM (whose budget starts again), the trials count towards N: a resumed run
 * finishes the interrupted one. Call before at_tune_sched_run, once per task. */
void at_tune_sched_restore(at_tune_sched *s, size_t i, size_t n_trials, size_t n_at_best, double best_cost_s);

/* What a round did. */
typedef struct at_tune_sched_round {
    size_t n_trials;    /* trials measured (0: nothing left to try: the task is dropped) */
    double best_cost_s; /* the best mean cost of a successful trial of the round;
                           AT_TUNE_SCHED_NO_COST when none */
    bool   exhausted;   /* the task's space has no untried config left (the task is dropped) */
} at_tune_sched_round;

/* The caller's side of a run. */
typedef struct at_tune_sched_hooks {
    /* tunes task for one round of at most n_trials trials (required) */
    at_status (*round)(void *user, size_t task, size_t n_trials, at_tune_sched_round *out);
    /* (optional) called before every round with the task it goes to (TVM prints its table
     * there), and once at the end with next = SIZE_MAX */
    void (*on_table)(void *user, const at_tune_sched *s, size_t next);
    void *user;
} at_tune_sched_hooks;

/* Runs the schedule: warm-up rounds for the tasks without rounds, then gradient rounds until N
 * trials (the last round is cut to what is left of N) or every task is dropped. Returns AT_OK or
 * the first failure of h->round. */
at_status at_tune_sched_run(at_tune_sched *s, const at_tune_sched_hooks *h);

/* ---- state (for the table, the CLI and tests) ------------------------------------------------ */

size_t at_tune_sched_n_tasks(const at_tune_sched *s);
/* Trials per round: min(K, N / n_tasks). */
size_t at_tune_sched_round_size(const at_tune_sched *s);
/* Trials of the run so far (restored ones included). */
size_t at_tune_sched_total(const at_tune_sched *s);
/* Task i's trials, rounds, best latency (AT_TUNE_SCHED_NO_COST: none yet), node weight (nodes it
 * implements), and whether it is dropped. */
size_t at_tune_sched_trials(const at_tune_sched *s, size_t i);
size_t at_tune_sched_rounds(const at_tune_sched *s, size_t i);
double at_tune_sched_best_cost(const at_tune_sched *s, size_t i);
double at_tune_sched_flop(const at_tune_sched *s, size_t i);
size_t at_tune_sched_weight(const at_tune_sched *s, size_t i);
bool   at_tune_sched_is_dead(const at_tune_sched *s, size_t i);
/* The estimated network latency in seconds for the current bests, or a value >= 1e9 while a node
 * has no measured implementation. */
double at_tune_sched_score(const at_tune_sched *s);

/* The gradient of every task (g[n_tasks]; 0 for dropped tasks), as the next choice sees it. */
void at_tune_sched_gradients(const at_tune_sched *s, double *g);

/* TVM's PrintTableInfo table without the task-description column, as the auto-scheduler
 * tutorial shows it: the "[ Task Scheduler ]" title, one "|  ID  | Latency (ms) | Speed
 * (GFLOPS) | Trials |" row per task ("-" for a task without a success; Trials counts the task's
 * trials, where TVM prints rounds x round size, the same number unless a round was cut), then
 * "Estimated total latency: %s ms\tTrials: %d\tUsed time : %.0f s\tNext ID: %d\t" ("-" until
 * every node has a latency; the "Next ID" field left out when next is SIZE_MAX). Appends to sb;
 * failure shows in sb->failed. */
void at_tune_sched_format_table(const at_tune_sched *s, size_t next, double elapsed_s, at_strbuf *sb);

#endif
