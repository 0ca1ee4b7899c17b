#include <inttypes.h>

#include "report.h"

#define TEXT_TREES 10      /* trees listed one by one; the rest are summarised */
#define TEXT_UNFINISHED 10 /* unfinished tasks listed; all of them in --json */
#define TEXT_TRACES 8      /* traces whose durations the header lists */

const char *fja_report_duration(char *buf, size_t n, double ns)
{
    if (ns < 1e3)
        snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, n, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, n, "%.3f s", ns / 1e9);
    return buf;
}

static const char *ms(char *buf, size_t n, int64_t ns)
{
    return ns == FJA_NULL_NS ? "never" : fja_report_duration(buf, n, (double)ns);
}

/* The events' time: one trace's duration; with several, each trace's
 * (first to last pool event) and the span of the recordings, labelled as
 * such (traces recorded apart are not one run of that length). */
static void t_events(FILE *o, const fja_report *r)
{
    const fja_trace_summary *m = &r->trace;
    char b[32];
    if (r->ntraces < 2) {
        fprintf(o, "  events %" PRIu64 " over %s, %u pool(s)\n", m->events,
                fja_report_duration(b, sizeof b, (double)m->duration_ns), r->npools);
        return;
    }
    fprintf(o, "  events %" PRIu64 " in %u traces lasting", m->events, r->ntraces);
    for (uint32_t k = 0; k < r->ntraces && k < TEXT_TRACES; k++)
        fprintf(o, "%s %s", k ? "," : "",
                fja_report_duration(b, sizeof b,
                                    (double)(r->traces[k].last_ts - r->traces[k].first_ts)));
    if (r->ntraces > TEXT_TRACES) fprintf(o, ", ...");
    fprintf(o, " (recorded within %s, first event to last), %u pool(s)\n",
            fja_report_duration(b, sizeof b, (double)m->duration_ns), r->npools);
}

static void t_summary(FILE *o, const fja_report *r)
{
    const fja_trace_summary *m = &r->trace;
    fprintf(o, "fjtrace-analyze report\n");
    t_events(o, r);
    if (m->recording_set)
        fprintf(o,
                "  recording %" PRIu64 ": left out %" PRIu64 " pool(s) of other programs (%" PRIu64
                " events)\n",
                m->recording, m->left_out_pools, m->left_out_events);
    if (m->discarded_events)
        fprintf(o,
                "  WARNING: %" PRIu64 " events were DISCARDED while recording: affected "
                "trees are marked incomplete\n",
                m->discarded_events);
    if (*m->decode_error)
        fprintf(o,
                "  WARNING: part of the trace could NOT BE READ (%s): its events are "
                "missing from this report\n",
                m->decode_error);
    if (m->window_clipped)
        fprintf(o,
                "  note: the trace begins MID-RUN (a snapshot: each CPU's buffer reaches back to "
                "a different time); it is read from where every CPU's events begin, %" PRIu64
                " earlier event(s) left out; trees begun before are PARTIAL\n",
                m->window_events);
    if (r->anomalies)
        fprintf(o, "  WARNING: %" PRIu64 " inconsistent event(s) (anomalies below)\n",
                r->anomalies);
    if (m->unknown_events)
        fprintf(o, "  note: %" PRIu64 " fjtrace event(s) of unknown kinds were ignored\n",
                m->unknown_events);
    fprintf(o, "  trace %s\n", r->complete ? "complete" : "INCOMPLETE");
}

/* An OpenMP pool (the OMPT tool): its counts in OpenMP terms, and which
 * figures are exact, inferred or missing (docs/openmp.md). */
static void t_openmp(FILE *o, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fprintf(o, "  runtime: OpenMP (%s) through OMPT\n", p->runtime_version);
    fprintf(o,
            "  tasks %" PRIu64 " (implicit %" PRIu64 ", explicit %" PRIu64 ")  steals %" PRIu64
            " (inferred)  waits: barrier %" PRIu64 ", taskwait/taskgroup %" PRIu64
            "  dependences %" PRIu64 "  untied suspensions %" PRIu64 "  parks n/a\n",
            pr->tasks, p->submits, p->forks, p->steals, p->barrier_waits, p->taskwait_waits,
            p->dependences, p->suspends);
    fprintf(o, "  exact: task creations, parents, creation sites, start/end, waits, contended "
               "locks; inferred: steals (run by another thread than its creator, victim = "
               "creator), barrier time as idle, span (the child a taskwait waits for is not "
               "told; depend edges followed, not taskwait depend or mutexinoutset); missing: "
               "parking, failed steals\n");
}

/* A pool of java.util.concurrent.ForkJoinPool (the JVM agent): which
 * figures are exact, inferred or missing (docs/java.md). */
static void t_java(FILE *o, const fja_pool_report *pr)
{
    const fja_pool_totals *p = &pr->totals;
    fprintf(o,
            "  runtime: ForkJoinPool on %s, through the fjtrace agent; parallelism %u, %u "
            "worker slot(s) (beyond the parallelism: callers running tasks, compensation "
            "threads)\n",
            p->runtime_version, p->nworkers_declared, p->nworkers);
    fprintf(o, "  exact: forks, parents, creation sites (class.method, file:line), start/end, "
               "completions, joins that wait, submissions/results, parks; steals: the victim "
               "(the forking worker) exact, the time inferred (the thief's exec); missing: the "
               "parent's run-ahead before a join, failed steals, task sizes (off-CPU time: the "
               "next line)\n");
}

/* What the threads' CPU clocks count of the interrupts taken on them, as
 * far as the recording host said (docs/analyses.md, "Limit"). */
static const char *clock_interrupts(const fja_host_facts *host)
{
    if (host->irq_time_accounting == FJA_HOST_NO)
        return "interrupts on them included, as this kernel does not account them apart";
    if (host->irq_time_accounting == FJA_HOST_YES)
        return "interrupt time left out, accounted apart";
    return "interrupts on them included unless it accounts them apart";
}

/* ... and of a hypervisor's steal time, said only when it counts. */
static const char *clock_steal(const fja_host_facts *host)
{
    if (host->steal_time_accounting == FJA_HOST_NO) return "; on a virtual machine, steal time too";
    return "";
}

/* The tracer's own time inside the tasks, where its clock readings tell
 * it: only the OMPT tool's and the JVM agent's do (libfj's events carry no
 * such field). */
static void t_tool_time(FILE *o, const fja_pool_report *pr)
{
    char a[32], b[32];
    const char *tracer = pr->totals.jvm ? "the JVM agent" : "the OMPT tool";
    const char *timed = pr->totals.jvm ? "drains" : "callbacks"; /* what times itself */
    char share[32] = "n/a";
    if (pr->tool_in_tasks_pct >= 0) snprintf(share, sizeof share, "%.1f%%", pr->tool_in_tasks_pct);
    if (pr->tool_in_tasks_ns != FJA_NULL_NS)
        fprintf(o,
                "  tracing overhead inside tasks %s (%s of the work): %s's own time in its "
                "%s, measured by the tool, taken out of the work and span (its whole time %s)\n",
                fja_report_duration(a, sizeof a, (double)pr->tool_in_tasks_ns), share, tracer,
                timed, fja_report_duration(b, sizeof b, (double)pr->tool_ns));
    else if (pr->oncpu_clock == FJA_ONCPU_THREAD_CLOCK)
        fprintf(o,
                "  tracing overhead inside tasks n/a (%s did not time itself): it is in the "
                "work\n",
                tracer);
    if (pr->tool_beyond_clock_ns > 0)
        fprintf(o,
                "  %s told %s of its own time beyond its threads' CPU clocks between two "
                "readings, in %" PRId64 " of their intervals: not CPU time (a stall inside one "
                "of its %s, or a tool that timed itself wrong), taken out of no task\n",
                tracer, fja_report_duration(a, sizeof a, (double)pr->tool_beyond_clock_ns),
                pr->tool_beyond_readings, timed);
}

/* Which clock the figures are in, and why (docs/analyses.md "Off-CPU time"). */
static void t_offcpu(FILE *o, const fja_pool_report *pr, const fja_host_facts *host)
{
    char a[32], b[32];
    if (pr->offcpu == FJA_OFFCPU_RECORDED) {
        fprintf(o,
                "  off-CPU time recorded: preempted %s (%.1f%% of worker time), blocked %s "
                "(%.1f%%), parks apart; the figures below are on-CPU time\n",
                fja_report_duration(a, sizeof a, (double)pr->offcpu_ns[FJA_OFFCPU_PREEMPTED]),
                pr->offcpu_pct[FJA_OFFCPU_PREEMPTED],
                fja_report_duration(b, sizeof b, (double)pr->offcpu_ns[FJA_OFFCPU_BLOCKED]),
                pr->offcpu_pct[FJA_OFFCPU_BLOCKED]);
        if (pr->offcpu_lost)
            fprintf(o,
                    "  WARNING: %" PRIu64 " context-switch record(s) lost: some off-CPU time "
                    "is missing\n",
                    pr->offcpu_lost);
        if (pr->oncpu_clock == FJA_ONCPU_THREAD_CLOCK)
            fprintf(o,
                    "  on-CPU time of each task: the threads' own CPU clocks (the kernel's "
                    "count: %s%s), read after each switch, at pieces of 20 us or more and every "
                    "200 us\n",
                    clock_interrupts(host), clock_steal(host));
        else
            fprintf(o, "  on-CPU time of each task: perf's switch records (an upper bound: "
                       "some microseconds of each switch count as on the CPU)\n");
        if (pr->unattributed_ns == FJA_NULL_NS)
            fprintf(o, "  unattributed n/a (the threads' CPU clocks are not in the trace, or "
                       "records were lost)\n");
        else
            fprintf(o,
                    "  unattributed %s%s: the on-CPU time below less the threads' own CPU clocks "
                    "(%s either way between their readings), in no known task\n",
                    pr->unattributed_ns < 0 ? "-" : "+",
                    fja_report_duration(a, sizeof a,
                                        (double)(pr->unattributed_ns < 0 ? -pr->unattributed_ns
                                                                         : pr->unattributed_ns)),
                    fja_report_duration(b, sizeof b, (double)pr->clock_disagree_ns));
        t_tool_time(o, pr);
    } else if (pr->offcpu == FJA_OFFCPU_LOST) {
        fprintf(o,
                "  WARNING: off-CPU time lost (%s): the figures are wall-clock time, stretched "
                "by any time a worker was off the CPU\n",
                pr->offcpu_reason);
    } else if (pr->offcpu == FJA_OFFCPU_UNKNOWN) {
        fprintf(o,
                "  off-CPU time unknown (%s): the figures are wall-clock time, stretched "
                "by any time a worker was off the CPU\n",
                pr->offcpu_reason);
    } else {
        fprintf(o, "  off-CPU time not recorded: the figures are wall-clock time, stretched by "
                   "any time a worker was off the CPU\n");
    }
}

static void t_totals(FILE *o, const fja_pool_report *pr, bool several_traces,
                     const fja_host_facts *host)
{
    const fja_pool_totals *p = &pr->totals;
    char a[32], b[32], c[32], label[96];
    fprintf(o, "\npool %s: %u workers, %s\n",
            fja_pool_label(p, several_traces, label, sizeof label), pr->workers,
            fja_report_duration(a, sizeof a, (double)pr->duration_ns));
    if (p->openmp)
        t_openmp(o, pr);
    else
        fprintf(o,
                "  tasks %" PRIu64 "  forks %" PRIu64 "  steals %" PRIu64 "  joins waited %" PRIu64
                "  parks %" PRIu64 "  submissions %" PRIu64 "\n",
                pr->tasks, p->forks, p->steals, p->joins_waited, p->parks, p->submits);
    if (p->jvm) t_java(o, pr);
    t_offcpu(o, pr, host);
    if (pr->span_state == FJA_SPAN_NO_TASK_RAN) {
        fprintf(o,
                "  work %s  span n/a  parallelism n/a (no task ran)\n"
                "  speedup bound (burdened): n/a",
                fja_report_duration(a, sizeof a, (double)pr->work_ns));
    } else if (pr->span_state == FJA_SPAN_ALL_PARTIAL) {
        fprintf(o, "  work n/a  span n/a  parallelism n/a (every tree began before the trace)\n"
                   "  speedup bound (burdened): n/a");
    } else {
        fprintf(o, "  %swork %s  span %s  parallelism %.2f", pr->oncpu ? "on-CPU " : "",
                fja_report_duration(a, sizeof a, (double)pr->work_ns),
                fja_report_duration(b, sizeof b, (double)pr->span_ns), pr->parallelism);
        if (pr->partial_trees)
            fprintf(o, " (whole trees only: %u partial left out)", pr->partial_trees);
        if (pr->oncpu)
            fprintf(o, "\n  wall-clock work %s  span %s  parallelism %.2f",
                    fja_report_duration(a, sizeof a, (double)pr->work_wall_ns),
                    fja_report_duration(b, sizeof b, (double)pr->span_wall_ns),
                    pr->parallelism_wall);
        fprintf(o, "\n  speedup bound (burdened):");
        for (int k = 0; k < FJA_SPEEDUP_PS; k++)
            fprintf(o, " P=%u %.1f (%.1f)", 1u << k, pr->speedup_bound[k], pr->speedup_burdened[k]);
    }
    fprintf(o,
            "\n  time in task bodies %s (EXEC->EXECUTED summed with nesting: %s)  "
            "COMPLETING->COMPLETED %s  queue depth max %" PRId64 " mean %.2f\n",
            fja_report_duration(c, sizeof c, (double)p->outermost_bodies_ns),
            fja_report_duration(a, sizeof a, (double)p->exec_to_executed_ns),
            fja_report_duration(b, sizeof b, (double)p->completing_to_completed_ns),
            pr->max_queue_depth, pr->mean_queue_depth);
    fprintf(o, "  costs: steal->exec %s  join latency %s  fork interval %s\n",
            fja_report_duration(a, sizeof a, (double)pr->steal_cost_ns),
            fja_report_duration(b, sizeof b, (double)pr->join_cost_ns),
            fja_report_duration(c, sizeof c, (double)pr->fork_cost_ns));
    if (p->unfinished)
        fprintf(o, "  WARNING: %" PRIu64 " task(s) never finished (trace cut short?)\n",
                p->unfinished);
}

static void t_workers(FILE *o, const fja_pool_report *pr)
{
    fprintf(o, "\n  %6s %9s %9s %7s %6s %7s %7s %7s %7s %7s %7s %7s %6s %6s\n", "worker", "tasks",
            "forks", "steals", "joins", "busy%", "join%", "search%", "park%", "lock%", "prmpt%",
            "block%", "maxq", "meanq");
    for (uint32_t i = 0; i < pr->nper_worker; i++) {
        const fja_worker_report *w = &pr->per_worker[i];
        char off[FJA_OFFCPU_KINDS][16];
        for (int k = 0; k < FJA_OFFCPU_KINDS; k++)
            if (w->offcpu_known)
                snprintf(off[k], sizeof off[k], "%6.1f%%", w->offcpu_pct[k]);
            else
                snprintf(off[k], sizeof off[k], "%7s", "n/a");
        fprintf(o,
                "  %6d %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %6" PRIu64
                " %6.1f%% %6.1f%% %6.1f%% %6.1f%% %6.1f%% %s %s %6" PRId64 " %6.2f\n",
                w->worker, w->tasks, w->forks, w->steals, w->joins_waited, w->state_pct[FJA_WS_RUN],
                w->state_pct[FJA_WS_JOIN], w->state_pct[FJA_WS_SEARCH], w->state_pct[FJA_WS_PARK],
                w->state_pct[FJA_WS_LOCK], off[FJA_OFFCPU_PREEMPTED], off[FJA_OFFCPU_BLOCKED],
                w->max_queue_depth, w->mean_queue_depth);
    }
}

static void t_unfinished_task(FILE *o, const fja_pool_report *pr, const fja_unfinished *u)
{
    char a[32], b[32];
    fprintf(o, "    %-10s task %" PRIu64, fja_ustate_name(u->state), u->task);
    if (u->worker >= 0)
        fprintf(o, " on worker %d", u->worker);
    else
        fputs(u->state == FJA_UT_COMPLETING ? " on a client thread" : " on no worker", o);
    fprintf(o, ", depth %u", u->depth);
    if (u->parent) fprintf(o, ", parent %" PRIu64, u->parent);
    uint32_t root = u->root ? fja_root_number(pr, u->root) : 0;
    if (root)
        fprintf(o, ", tree of root #%u", root);
    else if (u->root)
        fprintf(o, ", root task %" PRIu64, u->root);
    if (u->since_ns != FJA_NULL_NS)
        fprintf(o, ": since +%s (%s before the end)",
                fja_report_duration(a, sizeof a, (double)u->since_ns),
                fja_report_duration(b, sizeof b, (double)u->for_ns));
    else
        fputs(": since an unknown time", o);
    if (u->state == FJA_UT_WAITING && u->awaited)
        fprintf(o, ", at a join on task %" PRIu64, u->awaited);
    fputc('\n', o);
}

/* Where a killed or crashed program left its tasks: the running and
 * waiting ones first (where each worker was), then those still queued. */
static void t_unfinished(FILE *o, const fja_pool_report *pr)
{
    if (!pr->nunfinished) return;
    fprintf(o, "\n  unfinished tasks: %u (", pr->nunfinished);
    const char *sep = "";
    for (int s = 0; s < FJA_UT_COUNT; s++) {
        if (!pr->unfinished_by_state[s]) continue;
        fprintf(o, "%s%u %s", sep, pr->unfinished_by_state[s], fja_ustate_name((fja_ustate)s));
        sep = ", ";
    }
    fputs("), as the trace left them:\n", o);
    for (uint32_t i = 0; i < pr->nunfinished && i < TEXT_UNFINISHED; i++)
        t_unfinished_task(o, pr, &pr->unfinished[i]);
    if (pr->nunfinished > TEXT_UNFINISHED)
        fprintf(o, "    ... and %u more (all in --json)\n", pr->nunfinished - TEXT_UNFINISHED);
}

static void t_trees(FILE *o, const fja_pool_report *pr)
{
    char a[32], b[32], c[32], d[32], e[32], f[32];
    fprintf(o, "\n  trees: %u (%u incomplete", pr->ntrees, pr->incomplete_trees);
    if (pr->partial_trees) fprintf(o, ", %u partial", pr->partial_trees);
    fputs(")\n", o);
    for (uint32_t i = 0; i < pr->ntrees && i < TEXT_TREES; i++) {
        const fja_tree_report *t = &pr->trees[i];
        const fja_tree_report *tr = t;
        if (t->partial) {
            fprintf(o,
                    "  root #%u (PARTIAL: began before the trace): %" PRIu64
                    " tasks seen, %u workers, work in the trace %s, span n/a, parallelism "
                    "n/a\n",
                    i + 1, tr->tasks, tr->workers_used,
                    fja_report_duration(a, sizeof a, (double)tr->work_ns));
            continue;
        }
        char span[32] = "n/a", par[32] = "n/a"; /* no task of it ran: no span */
        if (t->span_known) {
            fja_report_duration(span, sizeof span, (double)tr->span_ns);
            snprintf(par, sizeof par, "%.2f", t->parallelism);
        }
        fprintf(o,
                "  root #%u%s: %" PRIu64 " tasks, depth %u, %u workers, work %s, span %s, "
                "parallelism %s\n    first task %s, full parallelism %s, hand-off %s, "
                "latency %s\n",
                i + 1, t->complete ? "" : " (INCOMPLETE)", tr->tasks, tr->max_depth,
                tr->workers_used, fja_report_duration(a, sizeof a, (double)tr->work_ns), span, par,
                ms(c, sizeof c, t->first_task_ns), ms(d, sizeof d, t->full_parallelism_ns),
                ms(e, sizeof e, t->final_handoff_ns), ms(f, sizeof f, t->latency_ns));
        if (t->final_handoff_offcpu_ns != FJA_NULL_NS)
            fprintf(o, "    client off the CPU: preempted %s, blocked %s; in the hand-off %s\n",
                    ms(c, sizeof c, t->client_offcpu_ns[FJA_OFFCPU_PREEMPTED]),
                    ms(d, sizeof d, t->client_offcpu_ns[FJA_OFFCPU_BLOCKED]),
                    ms(e, sizeof e, t->final_handoff_offcpu_ns));
    }
    if (pr->ntrees > TEXT_TREES)
        fprintf(o, "  ... %u more (see --json)\n", pr->ntrees - TEXT_TREES);
    if (pr->latency.n > 1)
        fprintf(o, "  latency over %" PRIu64 " submissions: min %s p50 %s p90 %s p99 %s max %s\n",
                pr->latency.n, fja_report_duration(a, sizeof a, (double)pr->latency.min),
                fja_report_duration(b, sizeof b, (double)pr->latency.p50),
                fja_report_duration(c, sizeof c, (double)pr->latency.p90),
                fja_report_duration(d, sizeof d, (double)pr->latency.p99),
                fja_report_duration(e, sizeof e, (double)pr->latency.max));
}

static void t_idle(FILE *o, const fja_pool_report *pr)
{
    const double *sp = pr->state_pct, *gp = pr->gap_pct;
    fprintf(o,
            "\n  worker time: busy %.1f%%, join wait %.1f%%, searching %.1f%%, parked %.1f%%, "
            "lock wait %.1f%%",
            sp[FJA_WS_RUN], sp[FJA_WS_JOIN], sp[FJA_WS_SEARCH], sp[FJA_WS_PARK], sp[FJA_WS_LOCK]);
    /* Off the CPU is booked apart from the five states (analyses.md): the
     * line covers the whole lifetime only with it. */
    if (pr->offcpu == FJA_OFFCPU_RECORDED)
        fprintf(o, ", preempted %.1f%%, blocked %.1f%%", pr->offcpu_pct[FJA_OFFCPU_PREEMPTED],
                pr->offcpu_pct[FJA_OFFCPU_BLOCKED]);
    fputc('\n', o);
    /* every class (FJA_GAP_CLASSES) on one line; those known only with
     * off-CPU time each on a line of their own, when it was recorded */
    const char *sep = " ";
    fputs("  idle gaps:", o);
    for (int c = 0; c < FJA_GAP_COUNT; c++) {
        if (fja_gap_classes[c].offcpu_only) continue;
        fprintf(o, "%s%s %" PRIu64 " (%.1f%%)", sep, fja_gap_classes[c].text, pr->gaps[c], gp[c]);
        sep = ", ";
    }
    fputc('\n', o);
    for (int c = 0; c < FJA_GAP_COUNT; c++)
        if (fja_gap_classes[c].offcpu_only && pr->offcpu == FJA_OFFCPU_RECORDED)
            fprintf(o, "  %s %" PRIu64 " (%.1f%%)\n", fja_gap_classes[c].text, pr->gaps[c], gp[c]);
    const uint64_t *lg = pr->gap_log2;
    fprintf(o, "  gap lengths:");
    for (int k = 0; k < 64; k++)
        if (lg[k]) fprintf(o, " [%llu ns..) %" PRIu64, 1ull << k, lg[k]);
    fputc('\n', o);
}

static void t_granularity(FILE *o, const fja_pool_report *pr)
{
    char a[32], b[32], c[32], d[32];
    const fja_pcts *g = &pr->granularity;
    fprintf(o, "\n  task self time: p50 %s p90 %s p99 %s max %s\n",
            fja_report_duration(a, sizeof a, (double)g->p50),
            fja_report_duration(b, sizeof b, (double)g->p90),
            fja_report_duration(c, sizeof c, (double)g->p99),
            fja_report_duration(d, sizeof d, (double)g->max));
    fprintf(o, "  steals by depth:");
    for (int k = 0; k < FJA_DEPTH_SLOTS; k++)
        if (pr->totals.steal_depth[k]) fprintf(o, " %d:%" PRIu64, k, pr->totals.steal_depth[k]);
    fputc('\n', o);
}

#define TOP_SITES 10

/* The creation sites that carry the most work. */
static const char *clock_name(bool oncpu)
{
    return oncpu ? "on-CPU time" : "wall-clock time";
}

static void t_sites(FILE *o, const fja_pool_report *pr)
{
    if (!pr->sites_known) {
        fprintf(o, "\n  creation sites: n/a (the trace records no site)\n");
        return;
    }
    uint32_t n = pr->nsites < TOP_SITES ? pr->nsites : TOP_SITES;
    fprintf(o, "\n  creation sites (%u of %u, most work first; self time p50/p90/max):\n", n,
            pr->nsites);
    for (uint32_t i = 0; i < n; i++) {
        const fja_site_report *s = &pr->sites[i];
        char where[512], a[32], b[32], c[32], ov[32] = "n/a";
        if (s->overhead_share >= 0) snprintf(ov, sizeof ov, "%.1f%%", 100 * s->overhead_share);
        fprintf(o,
                "    %s\n      tasks %" PRIu64 " (forks %" PRIu64 ", submits %" PRIu64
                "), steals %" PRIu64 ", self %s / %s / %s, work %.1f%%, overhead %s "
                "(estimated), depth %u..%u\n",
                fja_site_label(where, sizeof where, s), s->tasks, s->forks, s->submits, s->steals,
                fja_report_duration(a, sizeof a, (double)s->self.p50),
                fja_report_duration(b, sizeof b, (double)s->self.p90),
                fja_report_duration(c, sizeof c, (double)s->self.max), 100 * s->work_share, ov,
                s->depth_min, s->depth_max);
        if (!pr->has_baseline) continue;
        if (s->inflation < 0 && pr->oncpu != pr->baseline_oncpu)
            fprintf(o, "      work inflation: n/a (the baseline's self times are %s, these %s)\n",
                    clock_name(pr->baseline_oncpu), clock_name(pr->oncpu));
        else if (s->inflation < 0)
            fprintf(o, "      work inflation: n/a (no such site in the baseline)\n");
        else
            fprintf(o,
                    "      work inflation: x%.2f (median self time %s here, %s with %u "
                    "workers)%s\n",
                    s->inflation, fja_report_duration(a, sizeof a, (double)s->mean_ns),
                    fja_report_duration(b, sizeof b, (double)s->base_mean_ns), pr->baseline_workers,
                    s->inflated ? " FLAGGED" : "");
    }
}

/* The fj_mutexes of the pool's trace that workers waited for. */
static void t_locks(FILE *o, const fja_pool_report *pr)
{
    for (uint32_t i = 0; i < pr->nlocks; i++) {
        const fja_lock_report *l = &pr->locks[i];
        if (!l->waits) continue;
        char b[32];
        fprintf(o, "  lock \"%s\": %" PRIu64 " waits, %s waiting (%.1f%% of worker time)\n",
                l->name, l->waits, fja_report_duration(b, sizeof b, (double)l->wait_ns),
                l->wait_pct);
    }
}

static void t_anomalies(FILE *o, const fja_report *r)
{
    const fja_trace_summary *m = &r->trace;
    if (!r->anomalies) return;
    fprintf(o, "\nanomalies:");
    for (int k = 0; k < FJA_AN_COUNT; k++)
        if (m->anomalies[k])
            fprintf(o, " %s %" PRIu64, fja_anomaly_kind_name((fja_anomaly_kind)k), m->anomalies[k]);
    fputc('\n', o);
    if (*m->invalid_first) fprintf(o, "  first invalid event: %s\n", m->invalid_first);
    for (uint32_t i = 0; i < m->nexamples; i++) {
        const fja_anomaly *a = &m->examples[i];
        fprintf(o, "  at +%" PRIu64 " ns pool %u worker %d task %" PRIu64 ": %s\n",
                a->ts - m->first_ts, a->pool, a->worker, a->task, fja_anomaly_kind_name(a->kind));
    }
}

int fja_report_text(FILE *o, const fja_report *r, const fja_run_info *info)
{
    t_summary(o, r);
    bool several_traces = fja_report_several_traces(r);
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_pool_report *pr = &r->pools[i];
        t_totals(o, pr, several_traces, &info->host);
        t_workers(o, pr);
        t_unfinished(o, pr);
        t_trees(o, pr);
        t_idle(o, pr);
        t_locks(o, pr);
        t_granularity(o, pr);
        t_sites(o, pr);
        fprintf(o, "\n  advice:\n");
        if (!pr->nadvice) fprintf(o, "    none: no known inefficiency pattern found\n");
        for (uint32_t k = 0; k < pr->nadvice; k++)
            fprintf(o, "    [%s] %s\n", pr->advice[k].kind, pr->advice[k].message);
    }
    t_anomalies(o, r);
    return ferror(o) ? -1 : 0;
}
