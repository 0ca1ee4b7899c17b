/* fjv_render: draws every picture asked for on the command line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viz_int.h"

bool fjv_drawn(const fjv_options *o)
{
    return o->subtrees_dir || o->timeline || o->charts_dir || o->html;
}

bool fjv_wanted(const fjv_options *o)
{
    return fjv_drawn(o) || o->chrome_trace || o->perfetto;
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

static int set_subtrees(fjv_options *o, const char *arg)
{
    o->subtrees_dir = arg;
    return 0;
}

static int set_format(fjv_options *o, const char *arg)
{
    return fjv_parse_format(arg, &o->formats);
}

static int set_max_nodes(fjv_options *o, const char *arg)
{
    return parse_u32(arg, &o->max_nodes) || !o->max_nodes ? -1 : 0;
}

static int set_depth(fjv_options *o, const char *arg)
{
    return parse_u32(arg, &o->depth) || !o->depth ? -1 : 0;
}

/* drawn as PNG or SVG by its extension: no other format */
static int set_timeline(fjv_options *o, const char *arg)
{
    o->timeline = arg;
    return ends_with(arg, ".png") || ends_with(arg, ".svg") ? 0 : -1;
}

static int set_charts(fjv_options *o, const char *arg)
{
    o->charts_dir = arg;
    return 0;
}

static int set_html(fjv_options *o, const char *arg)
{
    o->html = arg;
    return 0;
}

/* --chrome-trace, --perfetto: the extension, else the option, decides */
static int set_chrome(fjv_options *o, const char *arg)
{
    if (is_protobuf_name(arg))
        o->perfetto = arg;
    else
        o->chrome_trace = arg;
    return 0;
}

static int set_perfetto(fjv_options *o, const char *arg)
{
    if (ends_with(arg, ".json"))
        o->chrome_trace = arg;
    else
        o->perfetto = arg;
    return 0;
}

const fjv_output fjv_outputs[FJV_NOUTPUTS] = {
    {"subtrees", FJV_OUT_PICTURE,
     "  --subtrees DIR     a Graphviz diagram per tree: DIR/tree-POOL-ROOT.EXT (with --root ID:\n"
     "                     that tree, or the subtree of task ID)\n",
     set_subtrees},
    {"format", FJV_OUT_SETTING, "  --format F         png (default), svg, dot or all\n",
     set_format},
    {"max-nodes", FJV_OUT_SETTING,
     "  --max-nodes N      fold subtrees into summary nodes above N nodes (default 400;\n"
     "                     at most 3000 for png/svg: layout time grows ~N^2)\n",
     set_max_nodes},
    {"depth", FJV_OUT_SETTING, "  --depth D          expand at most D levels below the root\n",
     set_depth},
    {"timeline", FJV_OUT_PICTURE,
     "  --timeline FILE    worker timeline, FILE.png or FILE.svg (by the extension)\n",
     set_timeline},
    {"charts", FJV_OUT_PICTURE,
     "  --charts DIR       granularity, queue depth and speedup charts (PNG and SVG)\n",
     set_charts},
    {"html", FJV_OUT_PICTURE,
     "  --html FILE        one self-contained HTML report with every picture\n", set_html},
    {"chrome-trace", FJV_OUT_TRACE,
     "  --chrome-trace F   Chrome/Perfetto Trace Event Format JSON (ui.perfetto.dev), ~160\n"
     "                     bytes per event: for large traces use --perfetto or --window\n",
     set_chrome},
    {"perfetto", FJV_OUT_TRACE,
     "  --perfetto F       Perfetto's protobuf trace (TrackEvent, ui.perfetto.dev), ~6x\n"
     "                     smaller; F.json writes the JSON instead (either option: the\n"
     "                     extension .json, .pftrace, .perfetto-trace or .pb decides)\n",
     set_perfetto},
};

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

int fjv_render(const fjv_options *o, fjv_collector *c, const fja_report *r, FILE *err)
{
    int rc = 0;
    if (o->subtrees_dir && fjv_subtrees(o, c, r, err)) rc = -1;
    if (o->timeline && fjv_timeline(o, c, r, o->timeline, NULL)) rc = -1; /* it said why */
    if (o->charts_dir && fjv_charts(o, c, r, err)) rc = -1;
    if (o->html && fjv_html(o, c, r, err)) rc = -1;
    fjv_graphviz_release();
    return rc;
}
