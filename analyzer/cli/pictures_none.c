/* fjtrace-analyze built without Graphviz or cairo: no picture options. */
#include "pictures.h"

const char pictures_usage[] = "";
const struct option pictures_long_options[] = {{0, 0, 0, 0}};

int pictures_option(int i, const char *arg)
{
    (void)i;
    (void)arg;
    return -1;
}

void pictures_options_check(void) {}

int pictures_start(const fja_filter *f, char *const *paths, int npaths)
{
    (void)f;
    (void)paths;
    (void)npaths;
    return 0;
}

void pictures_event(const fja_model *m, const fja_event *ev)
{
    (void)m;
    (void)ev;
}

int pictures_finish(const fja_model *m)
{
    (void)m;
    return 0;
}

int pictures_render(const fja_report *r)
{
    (void)r;
    return 0;
}

void pictures_free(void) {}
