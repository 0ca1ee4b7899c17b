/* Advice: the tuning table of the experiments (docs/experiments.md) (fib-like: tasks pile up -> cut
 * off forks; quicksort-like: queues run dry -> lower parallelism), plus the other patterns the
 * experiments look for, each with its evidence. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"

void fja_advise(fja_pool_report *pr, const char *kind, const char *fmt, ...)
{
    if (pr->nadvice == FJA_MAX_ADVICE) return;
    fja_advice *a = &pr->advice[pr->nadvice++];
    snprintf(a->kind, sizeof a->kind, "%s", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
}

static double frac(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0;
}

/* OpenMP tasks carry no size: the cutoff is by depth, said in OpenMP terms. */
static void advise_pile_up_openmp(fja_pool_report *pr, uint64_t med, uint64_t fork)
{
    if (pr->cutoff_depth != UINT32_MAX)
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "task creation; stop creating tasks from depth %u on (their subtrees carry less "
                   "than 50x that): add if(depth < %u) or final(depth >= %u) to the task "
                   "construct, or a cutoff that recurses serially below it - %.0f%% fewer tasks",
                   pr->mean_queue_depth, (unsigned long long)med, (unsigned long long)fork,
                   pr->cutoff_depth, pr->cutoff_depth, pr->cutoff_depth,
                   100 * pr->cutoff_depth_saving);
    else if (pr->flat)
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "task creation; every task is made by one loop (a flat graph%s): give each "
                   "task more to do (bigger blocks or chunks, taskloop grainsize); a depth "
                   "cutoff (if, final) would serialise it",
                   pr->mean_queue_depth, (unsigned long long)med, (unsigned long long)fork,
                   pr->totals.dependences ? " of dependences" : "");
    else
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "task creation; make fewer, bigger tasks: an if() or final() clause on the "
                   "task construct, or a cutoff that recurses serially below some size",
                   pr->mean_queue_depth, (unsigned long long)med, (unsigned long long)fork);
}

static void advise_pile_up(fja_pool_report *pr)
{
    uint64_t med = pr->granularity.p50, fork = pr->fork_cost_ns;
    if (pr->mean_queue_depth < 1.0 || !fork || med >= 10 * fork) return;
    if (pr->totals.openmp) {
        advise_pile_up_openmp(pr, med, fork);
        return;
    }
    if (pr->totals.jvm) {
        fja_advise_pile_up_java(pr, med, fork);
        return;
    }
    if (pr->cutoff_size != UINT32_MAX && pr->cutoff_size > 0)
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "fork; stop forking below size %u (subtree work >= 50x the fork cost) - "
                   "expected saving %.0f%% of scheduling time",
                   pr->mean_queue_depth, (unsigned long long)med, (unsigned long long)fork,
                   pr->cutoff_size, 100 * pr->cutoff_saving);
    else
        fja_advise(pr, "tasks_pile_up",
                   "tasks pile up (mean queue depth %.1f): median task %llu ns vs ~%llu ns per "
                   "fork; raise parallelism, and with few cores throttle forks (a cutoff)",
                   pr->mean_queue_depth, (unsigned long long)med, (unsigned long long)fork);
}

/* An OpenMP pool of implicit tasks only (parallel regions of worksharing
 * loops, sections, single): its parallelism is the threads' own work (the
 * trees are the implicit tasks), so parallelism below the threads means
 * work split unequally among them, which fewer threads would not mend.
 * Judged on the work alone (10% of the threads lost to it), not on the
 * barrier waits, which a thread preempted while it waits does not show.
 * Says the least and most CPU time a thread ran. */
static void advise_uneven_threads(fja_pool_report *pr)
{
    if (pr->parallelism > 0.9 * pr->workers) return;
    uint64_t least = UINT64_MAX, most = 0;
    for (uint32_t i = 0; i < pr->nper_worker; i++) {
        const fja_worker_report *w = &pr->per_worker[i];
        if (!w->lifetime_ns) continue;
        uint64_t busy = w->state_ns[FJA_WS_RUN];
        if (busy < least) least = busy;
        if (busy > most) most = busy;
    }
    if (least == UINT64_MAX) return;
    fja_advise(pr, "uneven_threads",
               "no explicit tasks, and the threads' own work was uneven: from %.2f ms to %.2f ms "
               "of CPU per thread (parallelism %.1f < %u threads), the others waiting for the "
               "busiest at the regions' barriers: balance the work among the threads - "
               "schedule(dynamic) or schedule(guided) for a loop whose iterations differ, "
               "smaller chunks, or tasks (taskloop) - rather than fewer threads",
               (double)least / 1e6, (double)most / 1e6, pr->parallelism, pr->workers);
}

/* Quicksort-like: too little parallelism for the workers, so they idle with
 * nothing to steal — either searching, or blocked in joins on stolen
 * children while the (empty) queues offer nothing to help with. */
static void advise_dry(fja_pool_report *pr)
{
    double idle = frac(pr->gap_ns[FJA_GAP_NO_WORK], pr->lifetime_ns);
    double join = frac(pr->gap_ns[FJA_GAP_JOIN], pr->lifetime_ns);
    if (pr->span_state != FJA_SPAN_KNOWN || pr->parallelism >= pr->workers) return;
    if (pr->totals.openmp && !pr->totals.forks) {
        advise_uneven_threads(pr);
        return;
    }
    bool dry = pr->mean_queue_depth < 0.5 && idle + join >= 0.15;
    if (idle < 0.2 && !dry) return;
    if (pr->totals.jvm)
        fja_advise_dry_java(pr, idle, join);
    else if (pr->totals.openmp)
        fja_advise(pr, "queues_run_dry",
                   "too few tasks for the threads: threads idle %.0f%% with no task anywhere and "
                   "%.0f%% waiting at barriers and taskwaits (mean queue depth %.2f); parallelism "
                   "%.1f < %u threads - more than about %.0f threads only wait: lower "
                   "OMP_NUM_THREADS / num_threads, or create more tasks (a lower cutoff)",
                   100 * idle, 100 * join, pr->mean_queue_depth, pr->parallelism, pr->workers,
                   ceil(pr->parallelism));
    else
        fja_advise(
            pr, "queues_run_dry",
            "queues run dry: workers idle %.0f%% with no work anywhere and %.0f%% waiting at "
            "joins (mean queue depth %.2f); parallelism %.1f < %u workers - lower "
            "parallelism: more than about %.0f workers only wait",
            100 * idle, 100 * join, pr->mean_queue_depth, pr->parallelism, pr->workers,
            ceil(pr->parallelism));
}

static void advise_late(fja_pool_report *pr)
{
    double late = frac(pr->gap_ns[FJA_GAP_WORK_QUEUED], pr->lifetime_ns);
    if (late < 0.1) return;
    fja_advise(pr, "steals_late",
               "stealing is late: workers idle %.0f%% of their time while work was queued on "
               "another worker (mean steal-to-exec %llu ns)",
               100 * late, (unsigned long long)pr->steal_cost_ns);
}

/* The lock of the pool's trace workers waited for longest, NULL if none. */
static const fja_lock_report *top_lock(const fja_pool_report *pr)
{
    const fja_lock_report *top = NULL;
    for (uint32_t i = 0; i < pr->nlocks; i++) {
        const fja_lock_report *l = &pr->locks[i];
        if (l->waits && (!top || l->wait_ns > top->wait_ns)) top = l;
    }
    return top;
}

static void advise_serial(fja_pool_report *pr)
{
    double lock = frac(pr->lock_ns, pr->lifetime_ns);
    const fja_lock_report *top = top_lock(pr);
    if (lock >= 0.1 && top) {
        fja_advise(pr, "hidden_serialization",
                   "workers waited for locks %.0f%% of their time (%llu waits), most for lock "
                   "\"%s\" (%.2f ms in %llu waits): the tasks serialise on it, so more workers "
                   "will not help; shorten or split that critical section%s",
                   100 * lock, (unsigned long long)pr->totals.lock_waits, top->name,
                   (double)top->wait_ns / 1e6, (unsigned long long)top->waits,
                   pr->totals.openmp ? " (a named critical, an omp_lock per datum, atomic or a "
                                       "reduction instead of one lock)"
                                     : "");
        return;
    }
    double awake = frac(pr->search_ns + pr->join_ns, pr->lifetime_ns);
    /* Under a millisecond, waking the workers (tens of us each) is most of
     * the run: idleness then says nothing about serialisation. */
    if (awake < 0.3 || pr->parallelism < 2.0 * pr->workers || pr->duration_ns < 1000000) return;
    if (pr->totals.openmp)
        fja_advise(pr, "hidden_serialization",
                   "threads wait in taskwaits and barriers without running tasks %.0f%% of the "
                   "time although the trees have parallelism %.1f for %u threads: the runtime's "
                   "task queues are the bottleneck (too many small tasks) or the tasks serialise "
                   "(locks, one shared resource)",
                   100 * awake, pr->parallelism, pr->workers);
    else
        fja_advise(
            pr, "hidden_serialization",
            "workers are awake but not running tasks %.0f%% of the time although the trees "
            "have parallelism %.1f for %u workers: look for serialisation (locks, one shared "
            "resource)",
            100 * awake, pr->parallelism, pr->workers);
}

static void advise_completion(fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    if (!p->completions || p->completing_to_completed_ns * 5 < p->exec_to_executed_ns) return;
    fja_advise(pr, "completion_overhead",
               "completion costs %.0f%% of task execution (COMPLETING->COMPLETED %llu ns vs "
               "EXEC->EXECUTED %llu ns): tasks are too small for counted completion",
               100 * frac(p->completing_to_completed_ns, p->exec_to_executed_ns),
               (unsigned long long)p->completing_to_completed_ns,
               (unsigned long long)p->exec_to_executed_ns);
}

/* Other programs (or more threads than cores) took the CPU from the
 * workers: the wall-clock figures are stretched by it. */
static void advise_preempted(fja_pool_report *pr)
{
    double off = frac(pr->offcpu_ns[FJA_OFFCPU_PREEMPTED], pr->lifetime_ns);
    /* No span: nothing stretched, nothing to compare. */
    if (pr->offcpu != FJA_OFFCPU_RECORDED || off < 0.1 || pr->span_state != FJA_SPAN_KNOWN) return;
    fja_advise(pr, "preempted",
               "workers were preempted %.0f%% of their time (other threads took the cores): "
               "wall-clock span %.2f ms vs %.2f ms on the CPU, parallelism %.1f vs %.1f; the "
               "figures shown are on-CPU time. Time the program with fewer workers than free "
               "cores, or on a quieter machine",
               100 * off, (double)pr->span_wall_ns / 1e6, (double)pr->span_ns / 1e6,
               pr->parallelism_wall, pr->parallelism);
}

void fja_advice_make(const fja_report *r, fja_pool_report *pr)
{
    const fja_trace_summary *m = &r->trace;
    if (m->discarded_events)
        fja_advise(pr, "incomplete_trace",
                   "%llu events were discarded while recording: %u tree(s) are incomplete and "
                   "their figures are lower bounds; record with larger buffers (--subbuf-size) or "
                   "--blocking",
                   (unsigned long long)m->discarded_events, pr->incomplete_trees);
    advise_pile_up(pr);
    /* Tasks that pile up in the queues are the opposite of queues running
     * dry: the one measure (queue depth) cannot say both. */
    if (!pr->nadvice || strcmp(pr->advice[pr->nadvice - 1].kind, "tasks_pile_up") != 0)
        advise_dry(pr);
    advise_late(pr);
    advise_serial(pr);
    advise_completion(pr);
    advise_preempted(pr);
}
