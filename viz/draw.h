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
    fjv_str data;    /* the picture in memory: SVG text or PNG bytes */
    fjv_str overlay; /* SVG only: markup laid over the drawing (canvas_overlay) */
    const char *path;
    bool png;
} fjv_canvas;

/* A PNG (path not ending in .svg) or an SVG (path NULL: SVG text handed
 * back by canvas_close), drawn in memory. Returns 0 or -1. */
int canvas_open(fjv_canvas *cv, const char *path, double w, double h);
/* Finishes the picture: writes it whole to its path (no partial file on
 * failure, reported on stderr), or hands the SVG text to *out (caller
 * frees). Returns 0 or -1. */
int canvas_close(fjv_canvas *cv, char **out);

/* SVG only (nothing for a PNG): markup added on top of the drawing, such as
 * invisible shapes with a <title> that shows on hover. */
void canvas_overlay(fjv_canvas *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef enum { AL_LEFT, AL_CENTER, AL_RIGHT } fjv_align;
void canvas_text(cairo_t *cr, double x, double y, const char *s, double size, fjv_align al,
                 bool bold);
void canvas_rgb(cairo_t *cr, fjv_rgb c);
/* A "nice" tick step (1, 2 or 5 times a power of ten) for about n ticks. */
double nice_step(double range, int n);

#endif
