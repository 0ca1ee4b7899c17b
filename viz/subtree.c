/* Subtree diagrams: one Graphviz graph per decomposition tree, laid out by
 * libgvc's dot in-process. dot's layout grows about as N^2.8, so a tree is
 * folded to at most max_nodes drawn nodes first: the root, the critical
 * path and the top levels stay expanded (breadth first, within the
 * budget), every other subtree becomes one summary node, and the children
 * of a wide node beyond the widest few become one "siblings" node. */
#include <errno.h>
#include <gvc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "viz_int.h"

#define SHOWN_CHILDREN 12 /* children drawn one by one under an expanded node */

enum { MK_CRIT = 1, MK_EXPANDED = 2, MK_SHOWN = 4 };

/* Per-pool arrays over task records, built once per pool; the records
 * themselves are read through the report (fja_report_task), one row at a
 * time: no copy of them is kept. */
typedef struct {
    const fja_pool_report *pr;
    const fjv_pool *cp;     /* the collector's pool, NULL without a collector */
    uint32_t nrows;         /* record numbers 0..nrows-1 */
    uint32_t *first, *kids; /* children of n: kids[first[n] .. first[n+1]) */
    uint32_t *cnt;          /* tasks in the subtree */
    uint64_t *wm;           /* workers 0..63 that ran a task of the subtree */
    uint8_t *mark;
} tree_prep;

/* Record n's row; a number that holds no task (a recycled record, none
 * in a model that keeps every task) is a row of no parent. */
static fja_task_row task(const tree_prep *tp, uint32_t n)
{
    fja_task_row row;
    if (!fja_report_task(tp->pr, n, &row))
        row = (fja_task_row){.record = n, .parent_record = FJA_TASK_NONE};
    return row;
}

static void prep_free(tree_prep *tp)
{
    free(tp->first);
    free(tp->kids);
    free(tp->cnt);
    free(tp->wm);
    free(tp->mark);
    *tp = (tree_prep){0};
}

/* Records are numbered in creation order and a parent is always created
 * before its children, so one backward sweep sums subtrees bottom-up. */
static int prep_init(tree_prep *tp, const fja_pool_report *pr, const fjv_collector *c)
{
    *tp = (tree_prep){.pr = pr,
                      .cp = c ? fjv_pool_find(c, pr->totals.source, pr->totals.id) : NULL,
                      .nrows = fja_report_task_records(pr)};
    uint32_t n = tp->nrows;
    tp->first = calloc((size_t)n + 1, sizeof *tp->first);
    tp->kids = malloc(((size_t)n + 1) * sizeof *tp->kids);
    tp->cnt = calloc((size_t)n + 1, sizeof *tp->cnt);
    tp->wm = calloc((size_t)n + 1, sizeof *tp->wm);
    tp->mark = calloc((size_t)n + 1, 1);
    if (!tp->first || !tp->kids || !tp->cnt || !tp->wm || !tp->mark) {
        prep_free(tp);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t par = task(tp, i).parent_record;
        if (par != FJA_TASK_NONE) tp->first[par + 1]++;
    }
    for (uint32_t i = 0; i < n; i++)
        tp->first[i + 1] += tp->first[i];
    uint32_t *fill = tp->cnt; /* borrowed as a cursor, reset below */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t par = task(tp, i).parent_record;
        if (par != FJA_TASK_NONE) tp->kids[tp->first[par] + fill[par]++] = i;
    }
    memset(tp->cnt, 0, ((size_t)n + 1) * sizeof *tp->cnt);
    for (uint32_t i = n; i-- > 0;) {
        const fja_task_row t = task(tp, i);
        tp->cnt[i]++;
        if (t.ran && t.worker >= 0 && t.worker < 64) tp->wm[i] |= 1ull << t.worker;
        if (t.parent_record != FJA_TASK_NONE) {
            tp->cnt[t.parent_record] += tp->cnt[i];
            tp->wm[t.parent_record] |= tp->wm[i];
        }
    }
    return 0;
}

static uint32_t nkids(const tree_prep *tp, uint32_t n)
{
    return tp->first[n + 1] - tp->first[n];
}

/* The child whose path reached the parent last: the critical path goes
 * through it (exact when children are joined at the end of the body, as in
 * fib and quicksort; otherwise the longest child path). */
static uint32_t crit_child(const tree_prep *tp, uint32_t n)
{
    uint32_t best = FJA_TASK_NONE;
    uint64_t bv = 0;
    for (uint32_t k = tp->first[n]; k < tp->first[n + 1]; k++) {
        uint64_t v = task(tp, tp->kids[k]).done_span_ns;
        if (best == FJA_TASK_NONE || v > bv) {
            best = tp->kids[k];
            bv = v;
        }
    }
    return best;
}

/* ------------------------------------------------------------ folding */

typedef struct {
    const tree_prep *tp;
    uint32_t root, max_nodes, max_depth;
    uint32_t total; /* nodes that will be drawn */
    uint32_t max_rank;
    uint32_t *rank; /* nodes drawn per level below the root */
    uint32_t *queue, qhead, qtail, qcap;
    uint32_t *touched; /* marked records, to clear the marks afterwards */
    uint32_t ntouched, cap_touched;
} fold;

static int push(uint32_t **v, uint32_t *len, uint32_t *cap, uint32_t x)
{
    if (*len == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 256;
        uint32_t *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) return -1;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*len)++] = x;
    return 0;
}

static void mark(fold *f, uint32_t n, uint8_t bits)
{
    uint8_t *m = &f->tp->mark[n];
    if (!*m) push(&f->touched, &f->ntouched, &f->cap_touched, n);
    *m |= bits;
}

/* How much a child deserves its own node: the critical child, stolen
 * children, then inner nodes; plain leaves go into the "more children"
 * node (most tasks of a fine-grained tree are leaves and say little). */
static int child_score(const tree_prep *tp, uint32_t c, bool few)
{
    if (tp->mark[c] & MK_CRIT) return 4;
    if (task(tp, c).stolen) return 3;
    if (nkids(tp, c)) return 2;
    return few ? 1 : 0;
}

static uint32_t eligible(const tree_prep *tp, uint32_t n, bool few)
{
    uint32_t e = 0;
    for (uint32_t i = tp->first[n]; i < tp->first[n + 1]; i++)
        e += child_score(tp, tp->kids[i], few) > 0;
    return e;
}

/* Marks the k best children of n as shown: by score, then subtree work. */
static void choose_shown(fold *f, uint32_t n, uint32_t k, bool few)
{
    const tree_prep *tp = f->tp;
    for (uint32_t shown = 0; shown < k; shown++) {
        uint32_t best = FJA_TASK_NONE;
        int bs = 0;
        for (uint32_t i = tp->first[n]; i < tp->first[n + 1]; i++) {
            uint32_t c = tp->kids[i];
            int sc = child_score(tp, c, few);
            if ((tp->mark[c] & MK_SHOWN) || sc <= 0) continue;
            if (best == FJA_TASK_NONE || sc > bs ||
                (sc == bs && task(tp, c).subtree_ns > task(tp, best).subtree_ns)) {
                best = c;
                bs = sc;
            }
        }
        if (best == FJA_TASK_NONE) return;
        mark(f, best, MK_SHOWN);
    }
}

/* Expands n if its children fit in the budget. */
static bool expand(fold *f, uint32_t n)
{
    const tree_prep *tp = f->tp;
    uint32_t kn = nkids(tp, n);
    uint32_t depth = task(tp, n).depth - task(tp, f->root).depth;
    if (!kn || (f->max_depth && depth >= f->max_depth) || f->total >= f->max_nodes) return false;
    bool few = kn <= 3;
    uint32_t room = f->max_nodes - f->total;
    /* A rank wider than max_rank is unreadable at any scale: stop there. */
    uint32_t rank_room = f->rank[depth + 1] < f->max_rank ? f->max_rank - f->rank[depth + 1] : 0;
    if (!(tp->mark[n] & MK_CRIT) && rank_room < room) room = rank_room;
    if (!room) return false;
    uint32_t k = eligible(tp, n, few);
    if (k > SHOWN_CHILDREN) k = SHOWN_CHILDREN;
    if (k > room) k = room;
    if (k < kn) { /* the rest becomes one "more children" node */
        if (k == room) k--;
        if (!k && kn > 1 && room < 2) return false;
    }
    choose_shown(f, n, k, few);
    mark(f, n, MK_EXPANDED);
    f->total += k + (k < kn ? 1 : 0);
    f->rank[depth + 1] += k + (k < kn ? 1 : 0);
    push(&f->queue, &f->qtail, &f->qcap, n);
    return true;
}

static void fold_run(fold *f)
{
    const tree_prep *tp = f->tp;
    /* The critical path, marked end to end, then expanded as far as a
     * third of the budget allows, so it stays visible in any tree. */
    for (uint32_t n = f->root; n != FJA_TASK_NONE; n = crit_child(tp, n))
        mark(f, n, MK_CRIT);
    mark(f, f->root, MK_SHOWN);
    f->total = 1;
    uint32_t limit = f->max_nodes;
    f->max_nodes = limit / 3 > 1 ? limit / 3 : limit;
    for (uint32_t n = f->root; n != FJA_TASK_NONE && expand(f, n);)
        n = crit_child(tp, n);
    f->max_nodes = limit;
    /* Then the top levels, breadth first. */
    while (f->qhead < f->qtail) {
        uint32_t n = f->queue[f->qhead++];
        for (uint32_t i = tp->first[n]; i < tp->first[n + 1]; i++) {
            uint32_t c = tp->kids[i];
            if ((tp->mark[c] & (MK_SHOWN | MK_EXPANDED)) == MK_SHOWN) expand(f, c);
        }
    }
}

static void fold_free(fold *f)
{
    for (uint32_t i = 0; i < f->ntouched; i++)
        f->tp->mark[f->touched[i]] = 0;
    free(f->touched);
    free(f->queue);
    free(f->rank);
}

/* ------------------------------------------------------------ graph */

typedef struct {
    Agraph_t *g;
    const fjv_options *o;
    const fjv_collector *c;
    const fja_report *r;
    const fja_tree_report *tr;
    fold *f;
    uint32_t drawn;
} builder;

static void set(void *obj, const char *k, const char *v)
{
    agsafeset(obj, (char *)k, (char *)v, "");
}

static int popcount64(uint64_t v)
{
    return __builtin_popcountll(v);
}

/* Fill colour: the worker that ran it; a summary of several workers is
 * left white with the count in its label. */
static void node_colour(Agnode_t *nd, uint64_t wm, int32_t worker)
{
    char hex[8], w[16];
    if (worker < 0 && popcount64(wm) == 1) worker = __builtin_ctzll(wm);
    set(nd, "fillcolor", worker >= 0 ? fjv_hex(fjv_worker_rgb(worker), hex) : "#ffffff");
    snprintf(w, sizeof w, "%d", worker);
    set(nd, "fjworker", w);
}

static void milestones(fjv_str *s, const fja_tree_report *tr)
{
    char b[32];
    const struct {
        const char *name;
        int64_t v;
    } ms[] = {{"first task", tr->first_task_ns},
              {"full parallelism", tr->full_parallelism_ns},
              {"final hand-off", tr->final_handoff_ns},
              {"latency", tr->latency_ns}};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        fjv_str_printf(s, "\\n%s %s", ms[i].name,
                       ms[i].v == FJA_NULL_NS ? "never"
                                              : fja_report_duration(b, sizeof b, (double)ms[i].v));
}

static Agnode_t *task_node(builder *b, uint32_t n)
{
    const tree_prep *tp = b->f->tp;
    const fja_task_row row = task(tp, n);
    const fja_task_row *t = &row;
    char name[32], d[32], e[32];
    snprintf(name, sizeof name, "t%u", n);
    Agnode_t *nd = agnode(b->g, name, 1);
    b->drawn++;
    fjv_str s = {0};
    /* Leaves are most of a drawing: one line keeps the picture compact. */
    const char *sep = nkids(tp, n) ? "\\n" : " · ";
    char site[512];
    /* where it was forked: the label is Graphviz escString, so "\\" is escaped */
    if (fjv_site_label(b->o, tp->pr->totals.pid, t->site, site, sizeof site)) {
        fjv_str_label(&s, site);
        fjv_str_printf(&s, "%s", sep);
    }
    if (t->size_hint) fjv_str_printf(&s, "n=%u%s", t->size_hint, sep);
    fjv_str_printf(&s, "self %s", fja_report_duration(d, sizeof d, (double)t->self_ns));
    if (nkids(tp, n))
        fjv_str_printf(&s, "\\nsubtree %s",
                       fja_report_duration(e, sizeof e, (double)t->subtree_ns));
    if (t->ran) fjv_str_printf(&s, "%sw%d", sep, t->worker);
    if (n == b->f->root && b->tr) milestones(&s, b->tr);
    set(nd, "label", s.s ? s.s : "");
    fjv_str_free(&s);
    node_colour(nd, 0, t->ran ? t->worker : -1);
    if (t->stolen) {
        set(nd, "color", "#d62728");
        set(nd, "peripheries", "2");
    }
    if (tp->mark[n] & MK_CRIT) set(nd, "penwidth", "3");
    return nd;
}

static void summary_label(fjv_str *s, uint64_t tasks, uint64_t work, uint64_t wm)
{
    char a[32], d[32];
    int nw = popcount64(wm);
    fjv_str_printf(s, "%s tasks · %s work · %d worker%s", fjv_count(a, sizeof a, tasks),
                   fja_report_duration(d, sizeof d, (double)work), nw, nw == 1 ? "" : "s");
}

/* A folded subtree (n not expanded, with children). */
static Agnode_t *fold_node(builder *b, uint32_t n)
{
    const tree_prep *tp = b->f->tp;
    const fja_task_row row = task(tp, n);
    const fja_task_row *t = &row;
    char name[32];
    snprintf(name, sizeof name, "f%u", n);
    Agnode_t *nd = agnode(b->g, name, 1);
    b->drawn++;
    fjv_str s = {0};
    if (t->size_hint) fjv_str_printf(&s, "n=%u: ", t->size_hint);
    summary_label(&s, tp->cnt[n], t->subtree_ns, tp->wm[n]);
    set(nd, "label", s.s);
    fjv_str_free(&s);
    set(nd, "shape", "box3d");
    node_colour(nd, tp->wm[n], -1);
    if (t->stolen) {
        set(nd, "color", "#d62728");
        set(nd, "peripheries", "2");
    }
    if (tp->mark[n] & MK_CRIT) set(nd, "penwidth", "3");
    return nd;
}

/* The children of n not drawn one by one, as one node. */
static Agnode_t *siblings_node(builder *b, uint32_t n)
{
    const tree_prep *tp = b->f->tp;
    uint64_t tasks = 0, work = 0, wm = 0, subtrees = 0;
    for (uint32_t i = tp->first[n]; i < tp->first[n + 1]; i++) {
        uint32_t c = tp->kids[i];
        if (tp->mark[c] & MK_SHOWN) continue;
        subtrees++;
        tasks += tp->cnt[c];
        work += task(tp, c).subtree_ns;
        wm |= tp->wm[c];
    }
    if (!subtrees) return NULL;
    char name[32], a[32];
    snprintf(name, sizeof name, "s%u", n);
    Agnode_t *nd = agnode(b->g, name, 1);
    b->drawn++;
    fjv_str s = {0};
    fjv_str_printf(&s, "+%s more children: ", fjv_count(a, sizeof a, subtrees));
    summary_label(&s, tasks, work, wm);
    set(nd, "label", s.s);
    fjv_str_free(&s);
    set(nd, "shape", "folder");
    node_colour(nd, wm, -1);
    return nd;
}

static void edge(builder *b, Agnode_t *from, Agnode_t *to, uint32_t child, bool crit)
{
    const tree_prep *tp = b->f->tp;
    Agedge_t *e = agedge(b->g, from, to, NULL, 1);
    fja_task_row row = {0};
    if (child != FJA_TASK_NONE) row = task(tp, child);
    const fja_task_row *t = child != FJA_TASK_NONE ? &row : NULL;
    size_t ndeps = 0;
    if (t && tp->cp) (void)fjv_deps_of(b->c, tp->cp, child, &ndeps);
    if (t && t->stolen) {
        char d[32], lbl[48];
        uint64_t ns;
        set(e, "style", "dashed");
        set(e, "color", "#d62728");
        /* its fork -> exec delay holds the wait for its predecessors: not
         * a steal delay (the depend edges show what it waited for) */
        if (ndeps)
            snprintf(lbl, sizeof lbl, "run elsewhere");
        else if (tp->cp && fjv_steal_delay(b->c, tp->cp, t->id, &ns))
            snprintf(lbl, sizeof lbl, "steal %s", fja_report_duration(d, sizeof d, (double)ns));
        else
            snprintf(lbl, sizeof lbl, "stolen");
        set(e, "label", lbl);
    }
    if (crit) set(e, "penwidth", "3");
}

/* Dependence edges between the tasks drawn: predecessor -> successor,
 * dotted blue, not shaping the layout (the tree does). */
static void dep_edges(builder *b)
{
    const tree_prep *tp = b->f->tp;
    if (!tp->cp) return;
    for (uint32_t n = 0; n < tp->nrows; n++) {
        size_t ndeps;
        const fjv_dep *d = fjv_deps_of(b->c, tp->cp, n, &ndeps);
        char name[32];
        snprintf(name, sizeof name, "t%u", n);
        Agnode_t *sink = ndeps ? agnode(b->g, name, 0) : NULL;
        for (size_t i = 0; sink && i < ndeps; i++) {
            snprintf(name, sizeof name, "t%u", d[i].pred);
            Agnode_t *pred = agnode(b->g, name, 0);
            if (!pred) continue;
            Agedge_t *e = agedge(b->g, pred, sink, NULL, 1);
            set(e, "style", "dotted");
            set(e, "color", "#1f77b4");
            set(e, "constraint", "false");
            /* an external label: Graphviz 2.42's dot frees memory twice in
             * gvFreeLayout after laying out labelled edges of no rank
             * between siblings (an 8 x 8 OpenMP depend grid's diagram,
             * every time: the analysis aborted); xlabel is placed after
             * the layout and takes no part in it */
            set(e, "xlabel", "depend");
        }
    }
}

static void build_nodes(builder *b)
{
    const tree_prep *tp = b->f->tp;
    fold *f = b->f;
    /* Depth-first over the expanded nodes; an explicit stack because the
     * critical path may be long. The nodes map record -> graph node. */
    uint32_t *stack = NULL, sn = 0, scap = 0;
    Agnode_t *root = task_node(b, f->root);
    (void)root;
    push(&stack, &sn, &scap, f->root);
    while (sn) {
        uint32_t n = stack[--sn];
        char name[32];
        snprintf(name, sizeof name, "t%u", n);
        Agnode_t *pn = agnode(b->g, name, 0);
        if (!(tp->mark[n] & MK_EXPANDED)) continue;
        for (uint32_t i = tp->first[n]; i < tp->first[n + 1]; i++) {
            uint32_t c = tp->kids[i];
            if (!(tp->mark[c] & MK_SHOWN)) continue;
            bool folded = nkids(tp, c) && !(tp->mark[c] & MK_EXPANDED);
            Agnode_t *cn = folded ? fold_node(b, c) : task_node(b, c);
            edge(b, pn, cn, c, (tp->mark[c] & MK_CRIT) && (tp->mark[n] & MK_CRIT));
            if (!folded) push(&stack, &sn, &scap, c);
        }
        Agnode_t *sib = siblings_node(b, n);
        if (sib) edge(b, pn, sib, FJA_TASK_NONE, false);
    }
    free(stack);
}

/* An HTML-like table: one cell per worker colour, then the conventions. */
static void legend(builder *b, uint64_t wm)
{
    fjv_str s = {0};
    char hex[8];
    fjv_str_add(
        &s, "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">",
        strlen("<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">"));
    fjv_str_printf(&s, "<tr><td colspan=\"2\"><b>legend</b></td></tr>");
    for (int w = 0; w < 64; w++)
        if (wm >> w & 1)
            fjv_str_printf(&s,
                           "<tr><td bgcolor=\"%s\">  </td><td align=\"left\">worker %d</td></tr>",
                           fjv_hex(fjv_worker_rgb(w), hex), w);
    fjv_str_printf(&s, "<tr><td><font color=\"#d62728\">||</font></td><td align=\"left\">stolen "
                       "(red double border; dashed edge: fork→exec delay)</td></tr>"
                       "<tr><td><font color=\"#1f77b4\">┈</font></td><td align=\"left\">"
                       "dependence (depend clause): predecessor → successor</td></tr>"
                       "<tr><td><b>━</b></td><td align=\"left\">critical path (span)</td></tr>"
                       "<tr><td>▣</td><td align=\"left\">folded subtree / more children</td></tr>"
                       "</table>");
    Agnode_t *nd = agnode(b->g, "legend", 1);
    char *html = s.s ? agstrdup_html(b->g, s.s) : NULL;
    if (html) {
        agsafeset(nd, "label", html, "");
        agstrfree(b->g, html);
    }
    set(nd, "shape", "plaintext");
    set(nd, "fillcolor", "#ffffff");
    fjv_str_free(&s);
}

/* The tree's number in its pool's listing: "root #N" as the reports say. */
static uint32_t tree_number(const fja_report *r, const fja_tree_report *tr)
{
    for (uint32_t i = 0; i < r->npools; i++)
        for (uint32_t k = 0; k < r->pools[i].ntrees; k++)
            if (&r->pools[i].trees[k] == tr) return k + 1;
    return 0;
}

static void title(builder *b, const fja_pool_report *pr, uint32_t root, bool subtree)
{
    const fja_task_row row = task(b->f->tp, root);
    const fja_task_row *t = &row;
    char w[32], sp[32], cnt[32], note[128];
    fjv_str s = {0};
    char label[96];
    fjv_str_printf(&s, "pool ");
    fjv_str_label(&s, fja_pool_label(&pr->totals, false, label, sizeof label));
    uint32_t number = subtree || !b->tr ? 0 : tree_number(b->r, b->tr);
    if (number)
        fjv_str_printf(&s, " · root #%u (task 0x%llx)", number, (unsigned long long)t->id);
    else
        fjv_str_printf(&s, " · %s 0x%llx", subtree ? "subtree of task" : "tree of root",
                       (unsigned long long)t->id);
    bool partial = !subtree && b->tr && b->tr->partial;
    fjv_str_printf(&s, " · %s tasks · work %s%s", fjv_count(cnt, sizeof cnt, b->f->tp->cnt[root]),
                   partial ? "in the trace " : "",
                   fja_report_duration(w, sizeof w, (double)t->subtree_ns));
    /* A tree begun before the trace has no known span (the report says
     * n/a for it too); a number here would be a made-up one. */
    if (partial)
        fjv_str_printf(&s, " · span n/a · parallelism n/a · PARTIAL (began before the trace)");
    else if (!subtree && b->tr && !b->tr->span_known)
        fjv_str_printf(&s, " · span n/a · parallelism n/a (no task ran)");
    else if (!subtree && b->tr)
        fjv_str_printf(&s, " · span %s · parallelism %.1f",
                       fja_report_duration(sp, sizeof sp, (double)b->tr->span_ns),
                       b->tr->parallelism);
    if (!subtree && b->tr && !b->tr->complete) fjv_str_printf(&s, " · INCOMPLETE");
    if (b->f->total < b->f->tp->cnt[root])
        fjv_str_printf(&s, "\\n(folded to %u nodes; --max-nodes to change)", b->f->total);
    fjv_str_printf(&s, "%s", fjv_discard_note(&b->r->trace, note, sizeof note));
    set(b->g, "label", s.s);
    fjv_str_free(&s);
}

static Agraph_t *graph_build(const fjv_options *o, const fjv_collector *c, const fja_report *r,
                             const tree_prep *tp, uint32_t root, const fja_tree_report *tr,
                             uint32_t *drawn)
{
    fold f = {.tp = tp,
              .root = root,
              .max_nodes = o->max_nodes ? o->max_nodes : FJV_MAX_NODES_DEFAULT,
              .max_depth = o->depth};
    f.max_rank = f.max_nodes / 8 > 48 ? f.max_nodes / 8 : 48;
    f.rank = calloc(UINT16_MAX + 2, sizeof *f.rank);
    if (!f.rank) return NULL;
    fold_run(&f);
    Agraph_t *g = agopen("fjtrace", Agdirected, NULL);
    if (!g) {
        fold_free(&f);
        return NULL;
    }
    builder b = {.g = g, .o = o, .c = c, .r = r, .tr = tr, .f = &f};
    set(g, "labelloc", "t");
    set(g, "fontname", "DejaVu Sans");
    set(g, "fontsize", "16");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "style", "filled,rounded");
    agattr(g, AGNODE, "fontname", "DejaVu Sans");
    agattr(g, AGNODE, "fontsize", "10");
    agattr(g, AGEDGE, "fontname", "DejaVu Sans");
    agattr(g, AGEDGE, "fontsize", "9");
    agattr(g, AGEDGE, "arrowsize", "0.6");
    /* Wide folded trees read better left to right; cap the bitmap size
     * well under cairo's 32767 px. */
    uint32_t widest = 1;
    for (uint32_t d = 0; d <= UINT16_MAX; d++)
        if (f.rank[d] > widest) widest = f.rank[d];
    set(g, "rankdir", widest > 12 ? "LR" : "TB");
    set(g, "size", "60,60");
    set(g, "nodesep", "0.15");
    set(g, "ranksep", "0.3");
    title(&b, tp->pr, root, tr == NULL);
    build_nodes(&b);
    dep_edges(&b);
    legend(&b, tp->wm[root]);
    *drawn = b.drawn;
    fold_free(&f);
    return g;
}

/* ------------------------------------------------------------ output */

/* Rendered in memory and written whole: gvRenderFilename would leave a
 * partial file on a full disk (and Graphviz exits on some write errors). */
static int render_file(GVC_t *gvc, Agraph_t *g, const char *fmt, const char *path, FILE *err)
{
    char *data;
    unsigned int len;
    if (gvRenderData(gvc, g, fmt, &data, &len)) {
        fprintf(err, "fjtrace-analyze: Graphviz could not render %s\n", path);
        return -1;
    }
    int rc = fjv_write_file(path, data, len, err);
    gvFreeRenderData(data);
    return rc;
}

static int render_files(GVC_t *gvc, Agraph_t *g, unsigned formats, const char *base, FILE *err)
{
    static const struct {
        unsigned bit;
        const char *fmt, *ext;
    } outs[] = {{FJV_PNG, "png", "png"}, {FJV_SVG, "svg", "svg"}, {FJV_DOT, "dot", "dot"}};
    int rc = 0;
    if (gvLayout(gvc, g, "dot")) {
        fprintf(err, "fjtrace-analyze: Graphviz could not lay out %s\n", base);
        return -1;
    }
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
        if (!(formats & outs[i].bit)) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s.%s", base, outs[i].ext) >= (int)sizeof path) {
            fprintf(err, "fjtrace-analyze: output path too long: %s.%s\n", base, outs[i].ext);
            rc = -1;
            continue;
        }
        if (render_file(gvc, g, outs[i].fmt, path, err)) rc = -1;
    }
    gvFreeLayout(gvc, g);
    return rc;
}

static int draw_one(GVC_t *gvc, const fjv_options *o, const fjv_collector *c, const fja_report *r,
                    const tree_prep *tp, uint32_t root, const fja_tree_report *tr, FILE *err)
{
    uint32_t drawn;
    Agraph_t *g = graph_build(o, c, r, tp, root, tr, &drawn);
    if (!g) return -1;
    char base[4096];
    char pn[32];
    snprintf(base, sizeof base, "%s/tree-%s-%llu", o->subtrees_dir,
             fjv_pool_name(tp->pr->totals.source, tp->pr->totals.id, pn, sizeof pn),
             (unsigned long long)task(tp, root).id);
    int rc = render_files(gvc, g, o->formats ? o->formats : FJV_PNG, base, err);
    agclose(g);
    return rc;
}

static int mkdir_p(const char *dir, FILE *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(buf, 0777);
            *s = '/';
        }
    if (mkdir(buf, 0777) && errno != EEXIST) {
        fprintf(err, "fjtrace-analyze: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int fjv_mkdir(const char *dir, FILE *err)
{
    return mkdir_p(dir, err);
}

/* --root ID that names a task inside a tree: its subtree alone. */
static int draw_subtree_root(GVC_t *gvc, const fjv_options *o, const fjv_collector *c,
                             const fja_report *r, uint64_t id, FILE *err)
{
    uint32_t rec;
    const fja_pool_report *pr = fja_report_find_task(r, id, &rec);
    if (!pr) return 0;
    tree_prep tp;
    if (prep_init(&tp, pr, c)) return -1;
    int rc = draw_one(gvc, o, c, r, &tp, rec, NULL, err);
    prep_free(&tp);
    return rc;
}

/* One Graphviz context for the whole run. Graphviz 2.42's pango plugin
 * remembers a pointer to the last font name it measured, which
 * gvFreeContext frees: the first label laid out in a second context then
 * reads freed memory (caught by ASan on the HTML report's diagrams). */
static GVC_t *graphviz;

static GVC_t *graphviz_context(void)
{
    if (!graphviz) graphviz = gvContext();
    return graphviz;
}

void fjv_graphviz_release(void)
{
    if (graphviz) gvFreeContext(graphviz);
    graphviz = NULL;
}

int fjv_subtrees(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err)
{
    if (mkdir_p(o->subtrees_dir, err)) return -1;
    GVC_t *gvc = graphviz_context();
    if (!gvc) return -1;
    int rc = 0;
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < r->npools && !rc; i++) {
        const fja_pool_report *pr = &r->pools[i];
        if (!pr->ntrees) continue;
        tree_prep tp;
        if (prep_init(&tp, pr, c)) {
            rc = -1;
            break;
        }
        for (uint32_t k = 0; k < pr->ntrees && !rc; k++, drawn++)
            rc = draw_one(gvc, o, c, r, &tp, pr->trees[k].root_rec, &pr->trees[k], err);
        prep_free(&tp);
    }
    if (!drawn && !rc && o->root_set) rc = draw_subtree_root(gvc, o, c, r, o->root, err);
    return rc;
}

char *fjv_subtree_svg(const fjv_options *o, const fjv_collector *c, const fja_report *r,
                      const fja_pool_report *pr, const fja_tree_report *tr)
{
    tree_prep tp;
    if (prep_init(&tp, pr, c)) return NULL;
    GVC_t *gvc = graphviz_context();
    uint32_t drawn;
    Agraph_t *g = gvc ? graph_build(o, c, r, &tp, tr->root_rec, tr, &drawn) : NULL;
    char *out = NULL;
    if (g && !gvLayout(gvc, g, "dot")) {
        char *data;
        unsigned int len;
        if (!gvRenderData(gvc, g, "svg", &data, &len)) {
            out = malloc(len + 1);
            if (out) {
                memcpy(out, data, len);
                out[len] = '\0';
            }
            gvFreeRenderData(data);
        }
        gvFreeLayout(gvc, g);
    }
    if (g) agclose(g);
    prep_free(&tp);
    return out;
}
