#include "draw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cairo_status_t to_str(void *closure, const unsigned char *data, unsigned int len)
{
    fjv_str *s = closure;
    fjv_str_add(s, (const char *)data, len);
    return s->oom ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Pictures are drawn in memory and written whole by fja_outfile_write, so a
 * full disk never leaves half a PNG or SVG behind. */
int canvas_open(fjv_canvas *cv, const char *path, double w, double h)
{
    *cv = (fjv_canvas){.path = path};
    if (path && !ends_with(path, ".svg")) {
        cv->png = true;
        cv->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w), (int)ceil(h));
    } else {
        cv->s = cairo_svg_surface_create_for_stream(to_str, &cv->data, w, h);
    }
    if (cairo_surface_status(cv->s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(cv->s);
        return -1;
    }
    cv->cr = cairo_create(cv->s);
    cairo_set_source_rgb(cv->cr, 1, 1, 1);
    cairo_paint(cv->cr);
    return 0;
}

void canvas_overlay(fjv_canvas *cv, const char *fmt, ...)
{
    if (cv->png) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof buf) fjv_str_add(&cv->overlay, buf, (size_t)n);
}

/* Puts the overlay in front of the SVG's closing tag. */
static void overlay_insert(fjv_canvas *cv)
{
    if (!cv->overlay.len || cv->data.oom || !cv->data.s) return;
    const char *end = NULL;
    for (const char *q = cv->data.s; (q = strstr(q, "</svg>")); q++)
        end = q;
    if (!end) return;
    size_t head = (size_t)(end - cv->data.s);
    if (head >= cv->data.len) return;
    fjv_str svg = {0};
    fjv_str_add(&svg, cv->data.s, head);
    fjv_str_printf(&svg, "<g id=\"fjv-hover\">\n%s</g>\n%s", cv->overlay.s, end);
    fjv_str_free(&cv->data);
    cv->data = svg; /* out of memory: svg.oom makes canvas_close fail */
}

int canvas_close(fjv_canvas *cv, char **out)
{
    cairo_status_t st = cairo_status(cv->cr);
    cairo_destroy(cv->cr);
    cairo_surface_flush(cv->s);
    if (cv->png && st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_write_to_png_stream(cv->s, to_str, &cv->data);
    cairo_surface_finish(cv->s);
    if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(cv->s);
    cairo_surface_destroy(cv->s);
    overlay_insert(cv);
    fjv_str_free(&cv->overlay);
    int rc = st == CAIRO_STATUS_SUCCESS && !cv->data.oom ? 0 : -1;
    if (rc && cv->path)
        fprintf(stderr, "fjtrace-analyze: cannot draw %s: %s\n", cv->path,
                cairo_status_to_string(st));
    if (!rc && cv->path) rc = fjv_write_file(cv->path, cv->data.s, cv->data.len, stderr);
    if (cv->path || rc || !out) {
        fjv_str_free(&cv->data);
        return cv->path ? rc : -1;
    }
    *out = cv->data.s;
    return 0;
}

void canvas_text(cairo_t *cr, double x, double y, const char *s, double size, fjv_align al,
                 bool bold)
{
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    double dx = al == AL_LEFT ? 0 : al == AL_CENTER ? -e.x_advance / 2 : -e.x_advance;
    cairo_move_to(cr, x + dx, y);
    cairo_show_text(cr, s);
}

void canvas_rgb(cairo_t *cr, fjv_rgb c)
{
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

double nice_step(double range, int n)
{
    if (range <= 0) return 1;
    double raw = range / n;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}
