/* The pictures of fjtrace-analyze through viz/ (fjviz). */
#include "pictures.h"

#include <stdio.h>

#include "viz.h"

size_t pictures_outputs(cli_output *rows, size_t max)
{
    static const cli_output_kind kinds[] = {
        [FJV_OUT_PICTURE] = CLI_OUT_PICTURE,
        [FJV_OUT_TRACE] = CLI_OUT_TRACE,
        [FJV_OUT_SETTING] = CLI_OUT_SETTING,
    };
    size_t n = 0;
    for (size_t i = 0; i < FJV_NOUTPUTS && n < max; i++)
        rows[n++] = (cli_output){.name = fjv_outputs[i].option,
                                 .option = fjv_outputs[i].option,
                                 .has_arg = true,
                                 .kind = kinds[fjv_outputs[i].kind],
                                 .help = fjv_outputs[i].help,
                                 .picture = (int)i};
    return n;
}

static fjv_options options;
static fjv_collector *collector;                   /* only when a picture is drawn */
static fjv_exporter *exporters[FJV_TRACE_FORMATS]; /* the traces asked for */

int pictures_option(int i, const char *arg)
{
    return i >= 0 && i < FJV_NOUTPUTS ? fjv_outputs[i].set(&options, arg) : -1;
}

void pictures_options_check(void)
{
    fjv_options_check(&options, stderr);
}

void pictures_sites(fja_site_resolver resolve, void *ctx)
{
    options.site_resolve = resolve;
    options.site_ctx = ctx;
}

int pictures_start(const fja_filter *f, char *const *paths, int npaths, fja_tracker *t, bool oncpu)
{
    char err[4200];
    options.root_set = f->root_set;
    options.root = f->root;
    options.window_set = f->window_set;
    options.window_from = f->window_from;
    options.window_to = f->window_to;
    options.paths = (const char *const *)paths;
    options.npaths = npaths;
    if (!fjv_wanted(&options)) return 0;
    if (fjv_drawn(&options)) {
        if (!(collector = fjv_collector_new(&options, err, sizeof err))) {
            fprintf(stderr, "fjtrace-analyze: %s\n", err);
            return -1;
        }
        if (fja_tracker_listen(t, fjv_collector_listener(collector))) return -1;
        if (oncpu) fjv_collector_offcpu_shown(collector);
    }
    for (int k = 0; k < FJV_TRACE_FORMATS; k++) {
        if (!(exporters[k] = fjv_exporter_new(&options, k, err, sizeof err)) && *err) {
            fprintf(stderr, "fjtrace-analyze: %s\n", err);
            return -1;
        }
        if (exporters[k] && fja_tracker_listen(t, fjv_exporter_listener(exporters[k]))) return -1;
    }
    return 0;
}

int pictures_finish(void)
{
    int rc = fjv_collect_finish(collector);
    for (int k = 0; k < FJV_TRACE_FORMATS; k++)
        if (fjv_exporter_finish(exporters[k])) rc = -1;
    return rc;
}

bool pictures_need_tasks(void)
{
    return options.subtrees_dir || options.html;
}

int pictures_render(const fja_report *r)
{
    return fjv_drawn(&options) ? fjv_render(&options, collector, r, stderr) : 0;
}

void pictures_free(void)
{
    fjv_collector_free(collector);
    collector = NULL;
    for (int k = 0; k < FJV_TRACE_FORMATS; k++) {
        fjv_exporter_free(exporters[k]);
        exporters[k] = NULL;
    }
}
