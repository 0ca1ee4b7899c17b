/* fjtrace-analyze built without Graphviz or cairo: no picture options. */
#include "pictures.h"

size_t pictures_outputs(cli_output *rows, size_t max)
{
    (void)rows;
    (void)max;
    return 0;
}

int pictures_option(int i, const char *arg)
{
    (void)i;
    (void)arg;
    return -1;
}

void pictures_options_check(void) {}

void pictures_sites(fja_site_resolver resolve, void *ctx)
{
    (void)resolve;
    (void)ctx;
}

int pictures_start(const fja_filter *f, char *const *paths, int npaths, fja_tracker *t, bool oncpu)
{
    (void)f;
    (void)paths;
    (void)npaths;
    (void)t;
    (void)oncpu;
    return 0;
}

int pictures_finish(void)
{
    return 0;
}

bool pictures_need_tasks(void)
{
    return false;
}

int pictures_render(const fja_model *m, const fja_report *r)
{
    (void)m;
    (void)r;
    return 0;
}

void pictures_free(void) {}
