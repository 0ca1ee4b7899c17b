#include "viz_int.h"
int fjv_charts(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err)
{
    (void)o, (void)c, (void)r;
    fprintf(err, "charts: not yet\n");
    return -1;
}
