#include "viz_int.h"
int fjv_html(const fjv_options *o, const fjv_collector *c, const fja_report *r, FILE *err)
{
    (void)o, (void)c, (void)r;
    fprintf(err, "html: not yet\n");
    return -1;
}
