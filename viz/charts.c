/* Charts (cairo): task granularity histogram, queue depth over time per
 * worker, and the speedup bounds with measured speedups. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#define CW 820.0
#define CH 460.0
#define ML 80.0 /* plot margins */
#define MR 30.0
#define MT 50.0
#define MB 70.0

typedef struct {
    cairo_t *cr;
    double x0, y0, w, h; /* plot area, y0 = top */
} plot;

static void frame(plot *p, const char *title, const char *xl, const char *yl,
                  const fja_trace_summary *m)
{
    char t[320], note[128];
    cairo_t *cr = p->cr;
    p->x0 = ML;
    p->y0 = MT;
    p->w = CW - ML - MR;
    p->h = CH - MT - MB;
    snprintf(t, sizeof t, "%s%s", title, fjv_discard_note(m, note, sizeof note));
    cairo_set_source_rgb(cr, 0, 0, 0);
    canvas_text(cr, ML, 28, t, 14, AL_LEFT, true);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x0 + 0.5, p->y0 + 0.5, p->w, p->h);
    cairo_stroke(cr);
    canvas_text(cr, p->x0 + p->w / 2, CH - 18, xl, 11, AL_CENTER, false);
    cairo_save(cr);
    cairo_translate(cr, 18, p->y0 + p->h / 2);
    cairo_rotate(cr, -M_PI / 2);
    canvas_text(cr, 0, 0, yl, 11, AL_CENTER, false);
    cairo_restore(cr);
}

static void ytick(plot *p, double frac, const char *label)
{
    double y = p->y0 + p->h * (1 - frac);
    cairo_set_source_rgb(p->cr, 0.85, 0.85, 0.85);
    cairo_move_to(p->cr, p->x0, y + 0.5);
    cairo_line_to(p->cr, p->x0 + p->w, y + 0.5);
    cairo_stroke(p->cr);
    cairo_set_source_rgb(p->cr, 0, 0, 0);
    canvas_text(p->cr, p->x0 - 6, y + 4, label, 10, AL_RIGHT, false);
}

static void xtick(plot *p, double frac, const char *label)
{
    double x = p->x0 + p->w * frac;
    cairo_set_source_rgb(p->cr, 0, 0, 0);
    cairo_move_to(p->cr, x + 0.5, p->y0 + p->h);
    cairo_line_to(p->cr, x + 0.5, p->y0 + p->h + 5);
    cairo_stroke(p->cr);
    canvas_text(p->cr, x, p->y0 + p->h + 18, label, 10, AL_CENTER, false);
}

static void legend_item(plot *p, int i, fjv_rgb c, const char *label, bool dot)
{
    double x = p->x0 + 12, y = p->y0 + 14 + 16 * i;
    canvas_rgb(p->cr, c);
    if (dot) {
        cairo_arc(p->cr, x + 6, y - 4, 4, 0, 2 * M_PI);
        cairo_fill(p->cr);
    } else {
        cairo_rectangle(p->cr, x, y - 8, 12, 8);
        cairo_fill(p->cr);
    }
    cairo_set_source_rgb(p->cr, 0, 0, 0);
    canvas_text(p->cr, x + 18, y, label, 10, AL_LEFT, false);
}

/* ------------------------------------------------------------ granularity */

/* Tasks per power-of-two bucket of self time; both axes logarithmic. */
static void granularity(plot *p, const fja_pool_report *pr)
{
    const uint64_t *bins = pr->totals.self_log2;
    int lo = 64, hi = -1;
    uint64_t maxc = 1;
    for (int k = 0; k < 64; k++)
        if (bins[k]) {
            if (k < lo) lo = k;
            hi = k;
            if (bins[k] > maxc) maxc = bins[k];
        }
    if (hi < 0) return;
    int nb = hi - lo + 1;
    double ymax = ceil(log10((double)maxc + 1));
    char b[32];
    for (int e = 0; e <= (int)ymax; e++) {
        snprintf(b, sizeof b, "%.0f", pow(10, e));
        ytick(p, e / ymax, b);
    }
    double bw = p->w / nb;
    for (int k = lo; k <= hi; k++) {
        double f = bins[k] ? log10((double)bins[k] + 1) / ymax : 0;
        canvas_rgb(p->cr, fjv_state_rgb(LS_RUN, 0));
        cairo_rectangle(p->cr, p->x0 + (k - lo) * bw + 1, p->y0 + p->h * (1 - f), bw - 2, p->h * f);
        cairo_fill(p->cr);
        if ((k - lo) % (nb > 16 ? 2 : 1) == 0)
            xtick(p, (k - lo + 0.5) / nb, fja_report_duration(b, sizeof b, pow(2, k)));
    }
}

/* ------------------------------------------------------------ queue depth */

static void queue_depth(plot *p, const fjv_collector *c, const fjv_pool *cp)
{
    /* This pool's own time range, in bucket indices. */
    (void)c;
    uint64_t b0 = 0, b1 = (cp->last_ts - cp->t0) / cp->res + 1;
    if (b1 > NBUCKETS) b1 = NBUCKETS;
    uint32_t qmax = 1;
    for (uint32_t li = 1; li < cp->nlanes; li++)
        for (uint64_t i = b0; cp->lanes[li].b && i < b1; i++)
            if (cp->lanes[li].b[i].qmax > qmax) qmax = cp->lanes[li].b[i].qmax;
    char b[32];
    double step = nice_step(qmax, 5);
    if (step < 1) step = 1;
    for (double v = 0; v <= qmax; v += step) {
        snprintf(b, sizeof b, "%.0f", v);
        ytick(p, v / qmax, b);
    }
    double dur = (double)(b1 - b0) * (double)cp->res;
    double tstep = nice_step(dur, 6);
    for (double v = 0; v <= dur; v += tstep)
        xtick(p, dur > 0 ? v / dur : 0, fja_report_duration(b, sizeof b, v));
    for (uint32_t li = 1; li < cp->nlanes; li++) {
        const fjv_lane *l = &cp->lanes[li];
        if (!l->b) continue;
        fjv_rgb col = fjv_worker_rgb((int32_t)li - 1);
        /* The palette is light, for fills: darken it for lines. */
        canvas_rgb(p->cr, (fjv_rgb){col.r * 0.7, col.g * 0.7, col.b * 0.7});
        cairo_set_line_width(p->cr, 1.5);
        for (uint64_t i = b0; i < b1; i++) {
            double x = p->x0 + p->w * ((double)(i - b0) * cp->res) / (dur > 0 ? dur : 1);
            double y = p->y0 + p->h * (1 - (double)l->b[i].qmax / qmax);
            if (x > p->x0 + p->w) x = p->x0 + p->w;
            if (i > b0)
                cairo_line_to(p->cr, x, y);
            else
                cairo_move_to(p->cr, x, y);
        }
        cairo_stroke(p->cr);
        if (li <= 12) {
            char lbl[32];
            snprintf(lbl, sizeof lbl, "worker %u", li - 1);
            legend_item(p, (int)li - 1, col, lbl, false);
        }
    }
}

/* ------------------------------------------------------------ speedup */

static void speedup(plot *p, const fja_report *r)
{
    const fja_pool_report *base = &r->pools[0];
    for (uint32_t i = 1; i < r->npools; i++)
        if (r->pools[i].work_ns > base->work_ns) base = &r->pools[i];
    double ymax = 1;
    for (int k = 0; k < FJA_SPEEDUP_PS; k++)
        if (base->speedup_bound[k] > ymax) ymax = base->speedup_bound[k];
    for (uint32_t i = 0; i < r->npools; i++)
        if (r->pools[i].measured_speedup > ymax) ymax = r->pools[i].measured_speedup;
    ymax *= 1.1;
    char b[32];
    double step = nice_step(ymax, 6);
    for (double v = 0; v <= ymax; v += step) {
        snprintf(b, sizeof b, "%g", v);
        ytick(p, v / ymax, b);
    }
    for (int k = 0; k < FJA_SPEEDUP_PS; k++) {
        snprintf(b, sizeof b, "%d", 1 << k);
        xtick(p, (double)k / (FJA_SPEEDUP_PS - 1), b);
    }
    const struct {
        const double *v;
        fjv_rgb c;
    } curves[] = {{base->speedup_bound, {0.12, 0.47, 0.71}},
                  {base->speedup_burdened, {1.0, 0.5, 0.05}}};
    for (size_t ci = 0; ci < 2; ci++) {
        canvas_rgb(p->cr, curves[ci].c);
        cairo_set_line_width(p->cr, 2);
        for (int k = 0; k < FJA_SPEEDUP_PS; k++) {
            double x = p->x0 + p->w * k / (FJA_SPEEDUP_PS - 1);
            double y = p->y0 + p->h * (1 - curves[ci].v[k] / ymax);
            if (k)
                cairo_line_to(p->cr, x, y);
            else
                cairo_move_to(p->cr, x, y);
        }
        cairo_stroke(p->cr);
    }
    for (uint32_t i = 0; i < r->npools; i++) {
        double s = r->pools[i].measured_speedup;
        uint32_t w = r->pools[i].workers;
        if (!w || !s) continue;
        double x = p->x0 + p->w * log2(w) / (FJA_SPEEDUP_PS - 1);
        if (x > p->x0 + p->w) continue;
        cairo_set_source_rgb(p->cr, 0.84, 0.15, 0.16);
        cairo_arc(p->cr, x, p->y0 + p->h * (1 - s / ymax), 5, 0, 2 * M_PI);
        cairo_fill(p->cr);
    }
    legend_item(p, 0, curves[0].c, "bound: min(P, work/span)", false);
    legend_item(p, 1, curves[1].c, "burdened bound (steal/join costs on the span)", false);
    bool inferred = false; /* no P=1 run to compare with: work / duration */
    for (uint32_t i = 0; i < r->npools; i++)
        inferred |= r->pools[i].measured_speedup > 0 && !r->pools[i].measured_relative;
    legend_item(p, 2, (fjv_rgb){0.84, 0.15, 0.16},
                inferred ? "measured (one point per pool; inferred: work / duration, no P=1 run)"
                         : "measured T(1)/T(P) (one point per pool/trace)",
                true);
}

/* ------------------------------------------------------------ entry points */

int fjv_chart_draw(fjv_chart k, const fjv_collector *c, const fja_report *r,
                   const fja_pool_report *pr, const char *path, char **out)
{
    const fjv_pool *cp = c && pr ? fjv_pool_find(c, pr->totals.source, pr->totals.id) : NULL;
    if ((k == CH_QUEUE && !cp) || !r->npools) return -1;
    fjv_canvas cv;
    if (canvas_open(&cv, path, CW, CH)) return -1;
    plot p = {.cr = cv.cr};
    char t[128], pn[32] = "";
    if (pr) fjv_pool_name(pr->totals.source, pr->totals.id, pn, sizeof pn);
    switch (k) {
    case CH_GRANULARITY:
        snprintf(t, sizeof t, "pool %s: task granularity (self time per task)", pn);
        frame(&p, t, "self time (log2 buckets)", "tasks (log scale)", &r->trace);
        granularity(&p, pr);
        break;
    case CH_QUEUE:
        snprintf(t, sizeof t, "pool %s: queue depth over time (max per interval)", pn);
        frame(&p, t, "time since the pool's first event", "tasks queued in the worker's deque",
              &r->trace);
        queue_depth(&p, c, cp);
        break;
    case CH_SPEEDUP:
        frame(&p, "speedup bounds and measured speedups", "workers P (log scale)", "speedup",
              &r->trace);
        speedup(&p, r);
        break;
    }
    return canvas_close(&cv, out);
}

int fjv_charts(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err)
{
    if (fjv_mkdir(o->charts_dir, err)) return -1;
    int rc = 0;
    char path[4096];
    static const char *const exts[] = {"png", "svg"};
    for (int e = 0; e < 2; e++) {
        for (uint32_t i = 0; i < r->npools; i++) {
            const fja_pool_report *pr = &r->pools[i];
            char pn[32];
            fjv_pool_name(pr->totals.source, pr->totals.id, pn, sizeof pn);
            snprintf(path, sizeof path, "%s/granularity-%s.%s", o->charts_dir, pn, exts[e]);
            if (fjv_chart_draw(CH_GRANULARITY, c, r, pr, path, NULL)) rc = -1;
            snprintf(path, sizeof path, "%s/queue-%s.%s", o->charts_dir, pn, exts[e]);
            if (c && fjv_chart_draw(CH_QUEUE, c, r, pr, path, NULL)) rc = -1;
        }
        snprintf(path, sizeof path, "%s/speedup.%s", o->charts_dir, exts[e]);
        if (r->npools && fjv_chart_draw(CH_SPEEDUP, c, r, NULL, path, NULL)) rc = -1;
    }
    if (rc)
        fprintf(err, "fjtrace-analyze: some charts could not be written in %s\n", o->charts_dir);
    return rc;
}
