/* The worker timeline: a band per pool, each on its own time axis from the
 * pool's first event (pools of programs recorded seconds apart, or of
 * different traces, each use the whole width); in a band a lane per worker
 * (and one for the client threads), time across, one colour per pixel: the
 * state that took most of that pixel's time in the collector's buckets.
 * Lock waits are a state of their own; in SVG each carries the lock's name
 * on hover. Drawing cost is pixels x lanes, whatever the number of events. */
#include <math.h>
#include <string.h>

#include "draw.h"

#define TL_WIDTH 1600.0
#define TL_LEFT 120.0
#define TL_RIGHT 20.0
#define LANE_H 16.0
#define LANE_GAP 3.0
#define POOL_GAP 20.0
#define TOP 50.0
#define BOTTOM 50.0
#define AXIS_H 40.0
#define MAX_ARROWS 400 /* more steals than this per pool would hide the lanes */

typedef struct {
    const fjv_collector *c;
    fjv_canvas *cv;
    cairo_t *cr;
    const fjv_pool *p; /* the band being drawn: its axis */
    uint64_t t0, dur, res;
    double pw; /* plot width in pixels */
} tl;

static bool lane_used(const fjv_lane *l)
{
    if (!l->b) return false;
    for (uint32_t i = 0; i < NBUCKETS; i++)
        for (int s = 0; s < LS_COUNT; s++)
            if (l->b[i].ns[s]) return true;
    return false;
}

/* Dominant state of pixel x (-1: off), the tree running there and the lock
 * waited for there. */
static int pixel_state(const tl *t, const fjv_lane *l, int x, uint32_t *tree, uint32_t *lock)
{
    double px_ns = (double)t->dur / t->pw;
    uint64_t from = (uint64_t)(x * px_ns), to = (uint64_t)((x + 1) * px_ns);
    uint64_t b0 = from / t->res, b1 = to / t->res;
    if (b1 <= b0) b1 = b0 + 1;
    if (b1 > NBUCKETS) b1 = NBUCKETS;
    uint64_t ns[LS_COUNT] = {0}, best_tree_ns = 0, best_lock_ns = 0, span = (b1 - b0) * t->res;
    *tree = FJA_TASK_NONE;
    *lock = UINT32_MAX;
    for (uint64_t b = b0; b < b1; b++) {
        for (int s = 0; s < LS_COUNT; s++)
            ns[s] += l->b[b].ns[s];
        if (l->b[b].run_tree_ns > best_tree_ns) {
            best_tree_ns = l->b[b].run_tree_ns;
            *tree = l->b[b].run_tree;
        }
        if (l->b[b].lock_ns > best_lock_ns) {
            best_lock_ns = l->b[b].lock_ns;
            *lock = l->b[b].lock;
        }
    }
    int best = -1;
    uint64_t bv = 0, sum = 0;
    for (int s = 0; s < LS_COUNT; s++) {
        sum += ns[s];
        if (ns[s] > bv) {
            bv = ns[s];
            best = s;
        }
    }
    /* Mostly before the worker began or after it ended: leave it blank. */
    return span > 2 * sum ? -1 : best;
}

/* The name of lock id of the pool's trace, for the hover text. */
static const char *lock_name(const tl *t, uint32_t id)
{
    return fjv_lock_name_of(t->c, t->p->source, id);
}

/* A lock wait's rectangle in an SVG gets an invisible twin carrying the
 * lock's name as its title: hovering shows it, and a test can find it. */
static void lock_wait_mark(const tl *t, double x, double y, double w, uint32_t lock)
{
    const char *name = lock_name(t, lock);
    fjv_str title = {0};
    if (name)
        fjv_str_xml(&title, name);
    else
        fjv_str_printf(&title, "lock %u", lock);
    canvas_overlay(t->cv,
                   "<rect class=\"fjv-lock-wait\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\" fill=\"none\" pointer-events=\"all\"><title>waiting for "
                   "%s</title></rect>\n",
                   x, y, w, LANE_H, title.s ? title.s : "a lock");
    fjv_str_free(&title);
}

/* A stay off the CPU in an SVG gets an invisible twin saying so on hover
 * (and to a test: its lane and length). */
static void offcpu_mark(const tl *t, double x, double y, double w, int s)
{
    canvas_overlay(
        t->cv,
        "<rect class=\"fjv-offcpu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
        "height=\"%.1f\" fill=\"none\" pointer-events=\"all\"><title>%s</title></rect>\n",
        x, y, w, LANE_H, fjv_state_name((fjv_lstate)s));
}

/* One run of equal pixels from x0 to x1 in state s. */
static void run_draw(const tl *t, double y, int x0, int x1, int s, uint32_t tree, uint32_t lock)
{
    if (s < 0) return;
    canvas_rgb(t->cr, fjv_state_rgb((fjv_lstate)s, tree));
    cairo_rectangle(t->cr, TL_LEFT + x0, y, x1 - x0, LANE_H);
    cairo_fill(t->cr);
    if (s == LS_LOCK) lock_wait_mark(t, TL_LEFT + x0, y, x1 - x0, lock);
    if (s == LS_PREEMPTED || s == LS_BLOCKED) offcpu_mark(t, TL_LEFT + x0, y, x1 - x0, s);
}

static void lane_draw(const tl *t, const fjv_lane *l, double y)
{
    cairo_t *cr = t->cr;
    cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
    cairo_rectangle(cr, TL_LEFT, y, t->pw, LANE_H);
    cairo_fill(cr);
    int run_x = 0, run_s = -2;
    uint32_t run_tree = FJA_TASK_NONE, run_lock = UINT32_MAX;
    /* Runs of equal pixels become one rectangle: small SVGs. */
    for (int x = 0; x <= (int)t->pw; x++) {
        uint32_t tree = FJA_TASK_NONE, lock = UINT32_MAX;
        int s = x < (int)t->pw ? pixel_state(t, l, x, &tree, &lock) : -3;
        if (s != LS_RUN) tree = FJA_TASK_NONE;
        if (s != LS_LOCK) lock = UINT32_MAX;
        if (s == run_s && tree == run_tree && lock == run_lock) continue;
        run_draw(t, y, run_x, x, run_s, run_tree, run_lock);
        run_x = x;
        run_s = s;
        run_tree = tree;
        run_lock = lock;
    }
}

static double x_of(const tl *t, uint64_t ts)
{
    return TL_LEFT + (double)(ts - t->t0) / (double)t->dur * t->pw;
}

static void arrows_draw(const tl *t, uint32_t pi, const double *lane_y)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->c->nsteals; i++)
        n += t->c->steals[i].pool == pi;
    if (!n || n > MAX_ARROWS) return;
    const fjv_pool *p = t->p;
    cairo_t *cr = t->cr;
    cairo_set_source_rgba(cr, 0.84, 0.15, 0.16, 0.8);
    cairo_set_line_width(cr, 1);
    for (uint32_t i = 0; i < t->c->nsteals; i++) {
        const fjv_steal *s = &t->c->steals[i];
        if (s->pool != pi || s->victim < 0 || (uint32_t)s->victim + 1 >= p->nlanes ||
            s->thief < 0 || (uint32_t)s->thief + 1 >= p->nlanes)
            continue;
        double y0 = lane_y[s->victim + 1], y1 = lane_y[s->thief + 1];
        if (y0 < 0 || y1 < 0) continue;
        double x = x_of(t, s->ts);
        y0 += LANE_H / 2;
        y1 += LANE_H / 2;
        cairo_move_to(cr, x, y0);
        cairo_line_to(cr, x, y1);
        cairo_stroke(cr);
        double d = y1 > y0 ? -4 : 4;
        cairo_move_to(cr, x, y1);
        cairo_line_to(cr, x - 3, y1 + d);
        cairo_line_to(cr, x + 3, y1 + d);
        cairo_close_path(cr);
        cairo_fill(cr);
    }
}

static void axis_draw(const tl *t, double y)
{
    cairo_t *cr = t->cr;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, TL_LEFT, y + 0.5);
    cairo_line_to(cr, TL_LEFT + t->pw, y + 0.5);
    cairo_stroke(cr);
    double step = nice_step((double)t->dur, 10);
    char b[32];
    for (double v = 0; v <= (double)t->dur * 1.0001; v += step) {
        double x = TL_LEFT + v / (double)t->dur * t->pw;
        cairo_move_to(cr, x + 0.5, y);
        cairo_line_to(cr, x + 0.5, y + 5);
        cairo_stroke(cr);
        canvas_text(cr, x, y + 17, fja_report_duration(b, sizeof b, v), 10, AL_CENTER, false);
    }
    canvas_text(cr, TL_LEFT + t->pw, y + 32, "time since the pool's first event", 10, AL_RIGHT,
                false);
}

static void legend_draw(cairo_t *cr, double y, bool offcpu_shown)
{
    double x = TL_LEFT;
    for (int s = 0; s < LS_COUNT; s++) {
        for (int k = 0; k < (s == LS_RUN ? 4 : 1); k++) {
            canvas_rgb(cr, fjv_state_rgb((fjv_lstate)s, (uint32_t)k));
            cairo_rectangle(cr, x, y, 12, 12);
            cairo_fill(cr);
            x += 13;
        }
        cairo_set_source_rgb(cr, 0, 0, 0);
        const char *name = s == LS_RUN ? "running (shade = tree)" : fjv_state_name((fjv_lstate)s);
        canvas_text(cr, x + 4, y + 10, name, 11, AL_LEFT, false);
        x += 4 + 8.0 * (double)strlen(name) + 20;
    }
    cairo_set_source_rgb(cr, 0.84, 0.15, 0.16);
    cairo_move_to(cr, x, y + 12);
    cairo_line_to(cr, x, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    canvas_text(cr, x + 6, y + 10, "steal (victim → thief)", 11, AL_LEFT, false);
    /* Without the on-CPU replay a worker's lane shows what its thread was
     * doing whether or not it had the CPU: said, never implied. */
    const char *offcpu = offcpu_shown
                             ? "preempted, blocked: the worker's thread off the CPU (its context "
                               "switches, recorded)"
                             : "off-CPU time not shown (not recorded, or not read ahead: several "
                               "traces): a lane shows its worker's state, on the CPU or not";
    char note[256];
    snprintf(note, sizeof note,
             "client lane: some request submitted and waiting for its result; %s", offcpu);
    canvas_text(cr, TL_LEFT, y + 28, note, 10, AL_LEFT, false);
}

static double height_of(const fjv_collector *c)
{
    double h = TOP + BOTTOM;
    for (uint32_t pi = 0; pi < c->npools; pi++) {
        if (!c->pools[pi].started) continue;
        h += POOL_GAP + AXIS_H;
        for (uint32_t li = 0; li < c->pools[pi].nlanes; li++)
            if (lane_used(&c->pools[pi].lanes[li])) h += LANE_H + LANE_GAP;
    }
    return h;
}

static void title_draw(cairo_t *cr, const fja_report *r)
{
    char b[64], e[32], note[128], t[512];
    snprintf(t, sizeof t,
             "fjtrace timeline: %s events %s %s, %u pool(s), each on its own time axis%s",
             fjv_count(e, sizeof e, r->trace.events),
             r->ntraces > 1 ? "in traces recorded within" : "over",
             fja_report_duration(b, sizeof b, (double)r->trace.duration_ns), r->npools,
             fjv_discard_note(&r->trace, note, sizeof note));
    cairo_set_source_rgb(cr, 0, 0, 0);
    canvas_text(cr, TL_LEFT, 24, t, 15, AL_LEFT, true);
}

/* The band of pool p: its title, its lanes on its own time axis, and the
 * axis under them. Returns the y below it. */
static double band_draw(tl *t, uint32_t pi, double y)
{
    const fjv_pool *p = &t->c->pools[pi];
    cairo_t *cr = t->cr;
    t->p = p;
    t->t0 = p->t0;
    t->dur = p->last_ts > p->t0 ? p->last_ts - p->t0 : 1;
    t->res = p->res;
    double lane_y[1024];
    char lbl[200], pn[96], d[32];
    y += POOL_GAP;
    cairo_set_source_rgb(cr, 0, 0, 0);
    fjv_pool_label(p, pn, sizeof pn);
    snprintf(lbl, sizeof lbl, "pool %s: %s from its first event", pn,
             fja_report_duration(d, sizeof d, (double)t->dur));
    canvas_text(cr, 8, y - 5, lbl, 11, AL_LEFT, true);
    for (uint32_t li = 0; li < p->nlanes; li++) {
        if (li < 1024) lane_y[li] = -1;
        if (!lane_used(&p->lanes[li])) continue;
        if (li < 1024) lane_y[li] = y;
        lane_draw(t, &p->lanes[li], y);
        cairo_set_source_rgb(cr, 0, 0, 0);
        if (li)
            snprintf(lbl, sizeof lbl, "worker %u", li - 1);
        else
            snprintf(lbl, sizeof lbl, "clients");
        canvas_text(cr, TL_LEFT - 6, y + LANE_H - 4, lbl, 10, AL_RIGHT, false);
        y += LANE_H + LANE_GAP;
    }
    if (p->nlanes <= 1024) arrows_draw(t, pi, lane_y);
    axis_draw(t, y + 2);
    return y + AXIS_H;
}

int fjv_timeline(const fjv_options *o, const fjv_collector *c, const fja_report *r,
                 const char *path, char **out)
{
    (void)o;
    /* One line on failure, naming the file (canvas_close says why it
     * could not write it); the inline SVG of --html (no path) says
     * nothing: the page goes without it. */
    fjv_canvas cv;
    if (!c || !c->started || canvas_open(&cv, path, TL_WIDTH, height_of(c))) {
        if (path) fprintf(stderr, "fjtrace-analyze: cannot draw the timeline %s\n", path);
        return -1;
    }
    double h = height_of(c);
    tl t = {.c = c, .cv = &cv, .cr = cv.cr, .pw = TL_WIDTH - TL_LEFT - TL_RIGHT};
    title_draw(cv.cr, r);
    double y = TOP;
    for (uint32_t pi = 0; pi < c->npools; pi++)
        if (c->pools[pi].started) y = band_draw(&t, pi, y);
    legend_draw(cv.cr, h - BOTTOM + 8, c->offcpu_shown);
    return canvas_close(&cv, out);
}
