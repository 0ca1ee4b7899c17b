/* viz-check: reads pictures back with the real libraries, for the tests.
 *   viz-check png FILE   -> "W H COLOURS" (cairo_image_surface_create_from_png)
 *   viz-check dot FILE...  -> "NODES WORKER_COLOURS LABEL" a line per FILE
 *                           (libcgraph agmemread); one process for many
 *                           files (an ASan build's start costs ~0.1 s)
 * Exit 1 when a file does not parse (no line for it or those after it). */
#include <cairo.h>
#include <cgraph.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int png(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) return 1;
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    /* Distinct colours, capped: a small open-addressing set. */
    enum { CAP = 4096 };
    static uint32_t set[CAP];
    int n = 0;
    for (int y = 0; y < h && n < CAP / 2; y++)
        for (int x = 0; x < w && n < CAP / 2; x++) {
            uint32_t v = (*(const uint32_t *)(d + y * stride + 4 * x) & 0xffffff) + 1;
            uint32_t i = (v * 2654435761u) % CAP;
            while (set[i] && set[i] != v)
                i = (i + 1) % CAP;
            if (!set[i]) {
                set[i] = v;
                n++;
            }
        }
    printf("%d %d %d\n", w, h, n);
    cairo_surface_destroy(s);
    return 0;
}

static int dot(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    static char buf[64 << 20];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    Agraph_t *g = agmemread(buf);
    if (!g) return 1;
    int nodes = 0, colours = 0;
    char seen[64][16];
    for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
        if (strcmp(agnameof(n), "legend") == 0) continue;
        nodes++;
        char *w = agget(n, "fjworker");
        if (!w || atoi(w) < 0) continue;
        int k = 0;
        while (k < colours && strcmp(seen[k], w) != 0)
            k++;
        if (k == colours && colours < 64) snprintf(seen[colours++], 16, "%s", w);
    }
    char *label = agget(g, "label");
    printf("%d %d %s\n", nodes, colours, label ? label : "");
    agclose(g);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "png") == 0) return png(argv[2]);
    if (argc < 3 || strcmp(argv[1], "dot") != 0) return 2;
    for (int i = 2; i < argc; i++)
        if (dot(argv[i]) != 0) return 1;
    return 0;
}
