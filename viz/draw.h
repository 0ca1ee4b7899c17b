/* cairo canvases for the timeline and charts: a PNG file, an SVG file, or
 * SVG text in memory (for the HTML report), plus text and axis helpers. */
#ifndef FJV_DRAW_H
#define FJV_DRAW_H

#include <cairo-svg.h>
#include <cairo.h>

#include "viz_int.h"

typedef struct {
    cairo_surface_t *s;
    cairo_t *cr;
    fjv_str svg; /* in-memory SVG */
    const char *path;
    bool png, mem;
} fjv_canvas;

/* path NULL: SVG into memory. Returns 0 or -1. */
int canvas_open(fjv_canvas *cv, const char *path, double w, double h);
/* Finishes the picture: writes the PNG, or hands the SVG text to *out
 * (caller frees). Returns 0 or -1. */
int canvas_close(fjv_canvas *cv, char **out);

typedef enum { AL_LEFT, AL_CENTER, AL_RIGHT } fjv_align;
void canvas_text(cairo_t *cr, double x, double y, const char *s, double size, fjv_align al,
                 bool bold);
void canvas_rgb(cairo_t *cr, fjv_rgb c);
/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
double nice_step(double range, int n);

#endif
