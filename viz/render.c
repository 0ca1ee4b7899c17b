/* fjv_render: draws every picture asked for on the command line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viz_int.h"

bool fjv_wanted(const fjv_options *o)
{
    return o->subtrees_dir || o->timeline || o->charts_dir || o->html || o->chrome_trace ||
           o->perfetto;
}

int fjv_parse_format(const char *s, unsigned *formats)
{
    static const struct {
        const char *name;
        unsigned bits;
    } fmts[] = {
        {"png", FJV_PNG}, {"svg", FJV_SVG}, {"dot", FJV_DOT}, {"all", FJV_PNG | FJV_SVG | FJV_DOT}};
    for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++)
        if (strcmp(s, fmts[i].name) == 0) {
            *formats = fmts[i].bits;
            return 0;
        }
    return -1;
}

/* Digits only: strtoul would skip leading blanks and negate " -1". */
static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* A file name that asks for Perfetto's protobuf trace. */
static bool is_protobuf_name(const char *s)
{
    return ends_with(s, ".pftrace") || ends_with(s, ".perfetto-trace") || ends_with(s, ".pb");
}

int fjv_option(fjv_options *o, int i, const char *arg)
{
    switch (i) {
    case 0:
        o->subtrees_dir = arg;
        return 0;
    case 1:
        return fjv_parse_format(arg, &o->formats);
    case 2:
        return parse_u32(arg, &o->max_nodes) || !o->max_nodes ? -1 : 0;
    case 3:
        return parse_u32(arg, &o->depth) || !o->depth ? -1 : 0;
    case 4: /* drawn as PNG or SVG by its extension: no other format */
        o->timeline = arg;
        return ends_with(arg, ".png") || ends_with(arg, ".svg") ? 0 : -1;
    case 5:
        o->charts_dir = arg;
        return 0;
    case 6:
        o->html = arg;
        return 0;
    case 7: /* --chrome-trace, --perfetto: the extension, else the option, decides */
    case 8:
        if (i == 8 ? !ends_with(arg, ".json") : is_protobuf_name(arg))
            o->perfetto = arg;
        else
            o->chrome_trace = arg;
        return 0;
    default:
        return -1;
    }
}

void fjv_options_check(fjv_options *o, FILE *err)
{
    unsigned formats = o->formats ? o->formats : FJV_PNG;
    if (!o->subtrees_dir || !(formats & (FJV_PNG | FJV_SVG)) ||
        o->max_nodes <= FJV_LAYOUT_MAX_NODES)
        return;
    fprintf(err,
            "fjtrace-analyze: warning: --max-nodes %u capped to %u for the PNG/SVG diagrams: "
            "Graphviz layout time grows with the square of the node count (--format dot "
            "writes the diagram unfolded up to --max-nodes without laying it out)\n",
            o->max_nodes, FJV_LAYOUT_MAX_NODES);
    o->max_nodes = FJV_LAYOUT_MAX_NODES;
}

int fjv_render(const fjv_options *o, fjv_collector *c, const fja_model *m, const fja_report *r,
               FILE *err)
{
    int rc = 0;
    if (o->subtrees_dir && fjv_subtrees(o, c, m, r, err)) rc = -1;
    if (o->timeline && fjv_timeline(o, c, m, r, o->timeline, NULL)) rc = -1; /* it said why */
    if (o->charts_dir && fjv_charts(o, c, r, err)) rc = -1;
    if (o->html && fjv_html(o, c, m, r, err)) rc = -1;
    fjv_graphviz_release();
    return rc;
}
