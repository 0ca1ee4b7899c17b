/* The HTML report: one self-contained file (inline CSS and SVG, no
 * scripts, no network) with the summary, workers, trees and their
 * diagrams, the timeline, the charts and the advice. Everything that comes
 * from the trace or the command line is escaped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz_int.h"

#define HTML_TREES 50   /* rows in the trees table */
#define HTML_DIAGRAMS 4 /* trees drawn per pool */

static const char css[] =
    "body{font-family:'DejaVu Sans',Arial,sans-serif;margin:24px;color:#222;max-width:1700px}"
    "h1{font-size:26px}h2{font-size:20px;border-bottom:2px solid #ddd;padding-bottom:4px;"
    "margin-top:32px}table{border-collapse:collapse;margin:8px 0}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}"
    "th{background:#f0f0f0}td.l,th.l{text-align:left}.warn{background:#fde2e1;border:1px solid "
    "#d62728;padding:8px;font-weight:bold}.fig{overflow:auto;border:1px solid #eee;margin:8px 0;"
    "max-height:1200px}.fig svg{max-width:100%;height:auto}.advice{background:#eef6ee;"
    "padding:6px 10px;margin:6px 0;border-left:4px solid #2ca02c}";

static void esc(fjv_str *s, const char *t)
{
    fjv_str_xml(s, t);
}

/* Inlines an SVG document. SVGs from cairo and Graphviz reuse ids
 * (glyph0-1, clip1, node1...): prefixing every id and reference keeps
 * several of them apart in one page. */
static void svg_inline(fjv_str *s, const char *svg, int n)
{
    if (!svg) {
        fjv_str_printf(s, "<p>(picture not available)</p>");
        return;
    }
    const char *p = strstr(svg, "<svg");
    if (!p) return;
    char pre[16];
    snprintf(pre, sizeof pre, "v%d-", n);
    fjv_str_add(s, "<div class=\"fig\">", 17);
    static const char *const pats[] = {"id=\"", "href=\"#", "url(#"};
    while (*p) {
        size_t best = SIZE_MAX;
        int which = -1;
        for (int k = 0; k < 3; k++) {
            const char *q = strstr(p, pats[k]);
            if (q && (size_t)(q - p) < best) {
                best = (size_t)(q - p);
                which = k;
            }
        }
        if (which < 0) {
            fjv_str_add(s, p, strlen(p));
            break;
        }
        size_t pl = strlen(pats[which]);
        fjv_str_add(s, p, best + pl);
        fjv_str_add(s, pre, strlen(pre));
        p += best + pl;
    }
    fjv_str_add(s, "</div>\n", 7);
}

/* One row per pool that knows its process: the program the trace is of. */
static void processes(fjv_str *s, const fja_report *r)
{
    bool several = fja_report_several_traces(r);
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_pool_totals *p = &r->pools[i].totals;
        if (!*p->procname && p->pid < 0) continue;
        fjv_str_printf(s, "<tr><th class=\"l\">pool %u", p->id);
        if (several) fjv_str_printf(s, " (trace %u)", p->source);
        fjv_str_printf(s, "</th><td class=\"l\">");
        esc(s, p->procname);
        if (p->pid >= 0) fjv_str_printf(s, " (pid %lld)", (long long)p->pid);
        fjv_str_printf(s, "</td></tr>");
    }
}

/* A pool's heading, "pool 1 of process NAME pid N" (NAME escaped). */
static void pool_heading(fjv_str *s, const fja_report *r, const fja_pool_totals *p)
{
    char label[96];
    fjv_str_printf(s, "<h3>pool ");
    esc(s, fja_pool_label(p, fja_report_several_traces(r), label, sizeof label));
}

static void summary(fjv_str *s, const fjv_options *o, const fja_report *r)
{
    const fja_trace_summary *m = &r->trace;
    char a[32], b[32];
    fjv_str_printf(s, "<h2 id=\"summary\">Summary</h2>\n<table>");
    fjv_str_printf(s, "<tr><th class=\"l\">traces</th><td class=\"l\">");
    for (int i = 0; i < o->npaths; i++) {
        if (i) fjv_str_printf(s, "<br>");
        esc(s, o->paths[i]);
    }
    fjv_str_printf(s, "</td></tr><tr><th class=\"l\">events</th><td>%s</td></tr>",
                   fjv_count(a, sizeof a, m->events));
    /* several traces: the span of the recordings, labelled (analyses.md) */
    fjv_str_printf(s, "<tr><th class=\"l\">%s</th><td>%s</td></tr>",
                   r->ntraces > 1 ? "recorded within (first event to last)" : "duration",
                   fja_report_duration(b, sizeof b, (double)m->duration_ns));
    fjv_str_printf(s, "<tr><th class=\"l\">pools</th><td>%u</td></tr>", r->npools);
    processes(s, r);
    fjv_str_printf(s, "<tr><th class=\"l\">anomalies</th><td>%s</td></tr></table>\n",
                   fjv_count(a, sizeof a, r->anomalies));
    if (m->discarded_events || m->discard_messages)
        fjv_str_printf(s,
                       "<p class=\"warn\">WARNING: %s events were discarded while recording: "
                       "affected trees are incomplete. Record with larger buffers or "
                       "--blocking.</p>\n",
                       fjv_count(a, sizeof a, m->discarded_events));
    else if (!r->complete)
        fjv_str_printf(s, "<p class=\"warn\">The trace is incomplete (unfinished tasks or "
                          "anomalies): see the text report.</p>\n");
    else
        fjv_str_printf(s, "<p>The trace is complete.</p>\n");
}

static void workers(fjv_str *s, const fja_report *r)
{
    char a[32], b[32], c[32];
    fjv_str_printf(s, "<h2 id=\"workers\">Workers</h2>\n");
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_pool_report *pr = &r->pools[i];
        pool_heading(s, r, &pr->totals);
        fjv_str_printf(s, ": %u workers, %s, ", pr->workers,
                       fja_report_duration(a, sizeof a, (double)pr->duration_ns));
        if (pr->span_state != FJA_SPAN_KNOWN)
            fjv_str_printf(s, "span n/a, parallelism n/a</h3>\n");
        else
            fjv_str_printf(s, "work %s, span %s, parallelism %.2f</h3>\n",
                           fja_report_duration(b, sizeof b, (double)pr->work_ns),
                           fja_report_duration(c, sizeof c, (double)pr->span_ns), pr->parallelism);
        fjv_str_printf(s, "<table><tr><th>worker</th><th>tasks</th><th>forks</th><th>steals</th>"
                          "<th>joins waited</th><th>parks</th><th>busy</th><th>join wait</th>"
                          "<th>searching</th><th>parked</th><th>lock wait</th>"
                          "<th>preempted</th><th>blocked</th>"
                          "<th>max queue</th><th>mean queue</th></tr>\n");
        for (uint32_t w = 0; w < pr->nper_worker; w++) {
            const fja_worker_report *k = &pr->per_worker[w];
            char hex[8], off[FJA_OFFCPU_KINDS][16];
            for (int o = 0; o < FJA_OFFCPU_KINDS; o++)
                if (k->offcpu_known)
                    snprintf(off[o], sizeof off[o], "%.1f%%", k->offcpu_pct[o]);
                else
                    snprintf(off[o], sizeof off[o], "n/a");
            fjv_str_printf(
                s,
                "<tr><td style=\"background:%s\">%d</td><td>%llu</td><td>%llu</td>"
                "<td>%llu</td><td>%llu</td><td>%llu</td><td>%.1f%%</td><td>%.1f%%</td>"
                "<td>%.1f%%</td><td>%.1f%%</td><td>%.1f%%</td><td>%s</td><td>%s</td>"
                "<td>%lld</td><td>%.2f</td></tr>\n",
                fjv_hex(fjv_worker_rgb(k->worker), hex), k->worker, (unsigned long long)k->tasks,
                (unsigned long long)k->forks, (unsigned long long)k->steals,
                (unsigned long long)k->joins_waited, (unsigned long long)k->parks,
                k->state_pct[FJA_WS_RUN], k->state_pct[FJA_WS_JOIN], k->state_pct[FJA_WS_SEARCH],
                k->state_pct[FJA_WS_PARK], k->state_pct[FJA_WS_LOCK], off[FJA_OFFCPU_PREEMPTED],
                off[FJA_OFFCPU_BLOCKED], (long long)k->max_queue_depth, k->mean_queue_depth);
        }
        fjv_str_printf(s, "</table>\n");
    }
}

static const char *ms(char *b, size_t n, int64_t v)
{
    return v == FJA_NULL_NS ? "never" : fja_report_duration(b, n, (double)v);
}

static void trees_table(fjv_str *s, const fja_pool_report *pr)
{
    char a[32], c[32], d[32], e[32], f[32];
    fjv_str_printf(s, "<table><tr><th>root</th><th>tasks</th><th>steals</th><th>work</th>"
                      "<th>span</th><th>parallelism</th><th>first task</th>"
                      "<th>full parallelism</th><th>final hand-off</th><th>latency</th>"
                      "<th>complete</th></tr>\n");
    for (uint32_t k = 0; k < pr->ntrees && k < HTML_TREES; k++) {
        const fja_tree_report *tr = &pr->trees[k];
        char span[32] = "n/a", par[32] = "n/a";
        if (tr->span_known) {
            fja_report_duration(span, sizeof span, (double)tr->span_ns);
            snprintf(par, sizeof par, "%.2f", tr->parallelism);
        }
        fjv_str_printf(s,
                       "<tr><td>#%u</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td>"
                       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                       k + 1, (unsigned long long)tr->tasks, (unsigned long long)tr->steals,
                       fja_report_duration(a, sizeof a, (double)tr->work_ns), span, par,
                       ms(c, sizeof c, tr->first_task_ns), ms(d, sizeof d, tr->full_parallelism_ns),
                       ms(e, sizeof e, tr->final_handoff_ns), ms(f, sizeof f, tr->latency_ns),
                       tr->complete ? "yes" : "<b>no</b>");
    }
    fjv_str_printf(s, "</table>\n");
    if (pr->ntrees > HTML_TREES)
        fjv_str_printf(s, "<p>(%u more trees: see report.json)</p>\n", pr->ntrees - HTML_TREES);
}

/* Diagrams of the largest few trees of each pool. */
static void trees(fjv_str *s, const fjv_options *o, const fjv_collector *c, const fja_report *r,
                  int *fig)
{
    fjv_str_printf(s, "<h2 id=\"trees\">Trees</h2>\n");
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_pool_report *pr = &r->pools[i];
        pool_heading(s, r, &pr->totals);
        fjv_str_printf(s, ": %u trees</h3>\n", pr->ntrees);
        trees_table(s, pr);
        uint32_t pick[HTML_DIAGRAMS], np = 0;
        for (; np < HTML_DIAGRAMS && np < pr->ntrees; np++) {
            uint32_t best = UINT32_MAX;
            for (uint32_t k = 0; k < pr->ntrees; k++) {
                bool used = false;
                for (uint32_t j = 0; j < np; j++)
                    used |= pick[j] == k;
                if (!used && (best == UINT32_MAX || pr->trees[k].tasks > pr->trees[best].tasks))
                    best = k;
            }
            pick[np] = best;
        }
        for (uint32_t j = 0; j < np; j++) {
            const fja_tree_report *tr = &pr->trees[pick[j]];
            fjv_str_printf(s, "<h4>tree of root #%u (task id %llu)</h4>\n", pick[j] + 1,
                           (unsigned long long)tr->root_id);
            char *svg = fjv_subtree_svg(o, c, r, pr, tr);
            svg_inline(s, svg, (*fig)++);
            free(svg);
        }
    }
}

static void pictures(fjv_str *s, const fjv_options *o, const fjv_collector *c, const fja_report *r,
                     int *fig)
{
    char *svg = NULL;
    fjv_str_printf(s, "<h2 id=\"timeline\">Timeline</h2>\n");
    if (c && !fjv_timeline(o, c, r, NULL, &svg)) svg_inline(s, svg, (*fig)++);
    free(svg);
    fjv_str_printf(s, "<h2 id=\"charts\">Charts</h2>\n");
    for (uint32_t i = 0; i < r->npools; i++) {
        for (int k = CH_GRANULARITY; k <= CH_QUEUE; k++) {
            svg = NULL;
            if (!fjv_chart_draw((fjv_chart)k, c, r, &r->pools[i], NULL, &svg))
                svg_inline(s, svg, (*fig)++);
            free(svg);
        }
    }
    svg = NULL;
    if (r->npools && !fjv_chart_draw(CH_SPEEDUP, c, r, NULL, NULL, &svg))
        svg_inline(s, svg, (*fig)++);
    free(svg);
}

static void advice(fjv_str *s, const fja_report *r)
{
    fjv_str_printf(s, "<h2 id=\"advice\">Advice</h2>\n");
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->npools; i++)
        for (uint32_t k = 0; k < r->pools[i].nadvice; k++, n++) {
            fjv_str_printf(s, "<div class=\"advice\"><b>");
            esc(s, r->pools[i].advice[k].kind);
            fjv_str_printf(s, "</b>: ");
            esc(s, r->pools[i].advice[k].message);
            fjv_str_printf(s, "</div>\n");
        }
    if (!n) fjv_str_printf(s, "<p>No advice: nothing stood out.</p>\n");
}

int fjv_html(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err)
{
    fjv_str s = {0};
    int fig = 0;
    char note[128];
    fjv_str_printf(&s,
                   "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<title>fjtrace report</title><style>%s</style></head><body>\n",
                   css);
    fjv_str_printf(&s, "<h1>fjtrace report");
    esc(&s, fjv_discard_note(&r->trace, note, sizeof note));
    fjv_str_printf(&s, "</h1>\n<p><a href=\"#summary\">summary</a> · <a href=\"#workers\">"
                       "workers</a> · <a href=\"#sites\">sites</a> · <a href=\"#trees\">trees</a> "
                       "· <a href=\"#timeline\">"
                       "timeline</a> · <a href=\"#charts\">charts</a> · <a href=\"#advice\">"
                       "advice</a></p>\n");
    summary(&s, o, r);
    workers(&s, r);
    fjv_html_sites(&s, r);
    trees(&s, o, c, r, &fig);
    pictures(&s, o, c, r, &fig);
    advice(&s, r);
    fjv_str_printf(&s, "</body></html>\n");
    int rc = s.oom ? -1 : fjv_write_file(o->html, s.s, s.len, err);
    if (s.oom) fprintf(err, "fjtrace-analyze: out of memory writing %s\n", o->html);
    fjv_str_free(&s);
    return rc;
}
