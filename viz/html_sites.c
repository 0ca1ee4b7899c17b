/* The creation-sites table of the HTML report, sortable without a script
 * (the page has none): the table is written once per sort order, and hidden
 * radio buttons, checked by clicking a column heading (its label), show one
 * of them through CSS (:checked ~). */
#include <stdlib.h>
#include <string.h>

#include "viz_int.h"

#define HTML_SITES 30 /* rows per table (the sites carrying the most work) */

typedef enum {
    BY_WORK,
    BY_TASKS,
    BY_STEALS,
    BY_P50,
    BY_P90,
    BY_MAX,
    BY_OVERHEAD,
    BY_INFLATION,
    BY_COUNT
} sort_key;

static const char *const key_names[BY_COUNT] = {"work",     "tasks",    "steals",   "self p50",
                                                "self p90", "self max", "overhead", "inflation"};

static double key_value(const fja_site_report *s, sort_key k)
{
    switch (k) {
    case BY_WORK:
        return (double)s->work_ns;
    case BY_TASKS:
        return (double)s->tasks;
    case BY_STEALS:
        return (double)s->steals;
    case BY_P50:
        return (double)s->self.p50;
    case BY_P90:
        return (double)s->self.p90;
    case BY_MAX:
        return (double)s->self.max;
    case BY_OVERHEAD:
        return s->overhead_share;
    default:
        return s->inflation;
    }
}

static sort_key cmp_key;
static int by_key_desc(const void *a, const void *b)
{
    double x = key_value(*(const fja_site_report *const *)a, cmp_key);
    double y = key_value(*(const fja_site_report *const *)b, cmp_key);
    return (x < y) - (x > y);
}

/* The CSS that shows table k of group g when its radio button is checked. */
static void sites_css(fjv_str *s, uint32_t g)
{
    fjv_str_printf(s, "<style>.sites input{display:none}.sites table{display:none}"
                      ".sites label{cursor:pointer;text-decoration:underline}");
    for (int k = 0; k < BY_COUNT; k++)
        fjv_str_printf(s, "#s%u-%d:checked~.t%d{display:table}", g, k, k);
    fjv_str_printf(s, "</style>\n");
}

static void head(fjv_str *s, uint32_t g, bool baseline)
{
    fjv_str_printf(s, "<tr><th class=\"l\">site</th><th class=\"l\">binary</th>");
    for (int k = 0; k < BY_COUNT; k++) {
        if (k == BY_INFLATION && !baseline) continue;
        fjv_str_printf(s, "<th><label for=\"s%u-%d\">%s</label></th>", g, k, key_names[k]);
        if (k == BY_OVERHEAD) fjv_str_printf(s, "<th>depth</th>");
    }
    fjv_str_printf(s, "</tr>\n");
}

static void row(fjv_str *s, const fja_site_report *x, bool baseline)
{
    char where[512], a[32], b[32], c[32], d[32];
    const char *bin = x->where.binary ? strrchr(x->where.binary, '/') : NULL;
    fjv_str_printf(s, "<tr><td class=\"l\">");
    fjv_str_xml(s, fja_site_label(where, sizeof where, x));
    fjv_str_printf(s, "</td><td class=\"l\">");
    fjv_str_xml(s, bin ? bin + 1 : x->where.binary ? x->where.binary : "?");
    fjv_str_printf(s, "</td><td>%s</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td>",
                   fja_report_duration(a, sizeof a, (double)x->work_ns),
                   (unsigned long long)x->tasks, (unsigned long long)x->steals,
                   fja_report_duration(b, sizeof b, (double)x->self.p50),
                   fja_report_duration(c, sizeof c, (double)x->self.p90),
                   fja_report_duration(d, sizeof d, (double)x->self.max));
    if (x->overhead_share >= 0)
        fjv_str_printf(s, "<td>%.1f%%</td>", 100 * x->overhead_share);
    else
        fjv_str_printf(s, "<td>n/a</td>");
    fjv_str_printf(s, "<td>%u..%u</td>", x->depth_min, x->depth_max);
    if (baseline) {
        if (x->inflation >= 0)
            fjv_str_printf(s, "<td%s>x%.2f</td>", x->inflated ? " class=\"warn\"" : "",
                           x->inflation);
        else
            fjv_str_printf(s, "<td>n/a</td>");
    }
    fjv_str_printf(s, "</tr>\n");
}

static void pool_sites(fjv_str *s, const fja_pool_report *pr, uint32_t g)
{
    // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
    const fja_site_report **v = malloc(pr->nsites * sizeof *v);
    if (!v) {
        s->oom = true;
        return;
    }
    for (uint32_t i = 0; i < pr->nsites; i++)
        v[i] = &pr->sites[i];
    uint32_t n = pr->nsites < HTML_SITES ? pr->nsites : HTML_SITES;
    sites_css(s, g);
    fjv_str_printf(s, "<div class=\"sites\">");
    for (int k = 0; k < BY_COUNT; k++)
        fjv_str_printf(s, "<input type=\"radio\" name=\"s%u\" id=\"s%u-%d\"%s>", g, g, k,
                       k == BY_WORK ? " checked" : "");
    for (int k = 0; k < BY_COUNT; k++) {
        if (k == BY_INFLATION && !pr->has_baseline) continue;
        cmp_key = (sort_key)k;
        // NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers, as meant
        qsort(v, pr->nsites, sizeof *v, by_key_desc);
        fjv_str_printf(s, "<table class=\"t%d\">", k);
        head(s, g, pr->has_baseline);
        for (uint32_t i = 0; i < n; i++)
            row(s, v[i], pr->has_baseline);
        fjv_str_printf(s, "</table>");
    }
    fjv_str_printf(s, "</div>\n<p>%u of %u sites, by the column clicked (most first).</p>\n", n,
                   pr->nsites);
    free(v);
}

void fjv_html_sites(fjv_str *s, const fja_report *r)
{
    char label[96];
    bool several = fja_report_several_traces(r);
    fjv_str_printf(s, "<h2 id=\"sites\">Creation sites</h2>\n");
    for (uint32_t i = 0; i < r->npools; i++) {
        const fja_pool_report *pr = &r->pools[i];
        fjv_str_printf(s, "<h3>pool ");
        fjv_str_xml(s, fja_pool_label(&pr->totals, several, label, sizeof label));
        fjv_str_printf(s, "</h3>\n");
        if (!pr->sites_known)
            fjv_str_printf(s, "<p>n/a: the trace records no creation site.</p>\n");
        else
            pool_sites(s, pr, i);
    }
}
