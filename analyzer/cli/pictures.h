/* The pictures as the command line sees them: pictures.c drives viz/ when
 * meson found Graphviz and cairo, pictures_none.c stands in otherwise (no
 * picture options, nothing to do). The one place the CLI knows of viz/. */
#ifndef FJA_CLI_PICTURES_H
#define FJA_CLI_PICTURES_H

#include <stdbool.h>
#include <stdio.h>

#include "fja.h"
#include "outputs.h"

/* The rows of the pictures and traces for the outputs' table (outputs.h),
 * made from viz/'s (viz.h, fjv_outputs), at most max into rows; how many
 * (none without pictures). */
size_t pictures_outputs(cli_output *rows, size_t max);

/* The option of picture row i (cli_output.picture) with its argument; -1
 * if it is bad. */
int pictures_option(int i, const char *arg);
/* After every option is parsed: warns about settings the pictures adjust
 * (a too large --max-nodes for a laid-out format). */
void pictures_options_check(void);
/* Names creation sites in the pictures with resolve (before pictures_start). */
void pictures_sites(fja_site_resolver resolve, void *ctx);
/* Before the reading: when a picture is asked for, starts collecting as a
 * listener of t, the on-CPU tracker (oncpu: the off-CPU intervals were read
 * ahead, and the workers' stays off the CPU go on their lanes) or else the
 * one tracker. -1 when that cannot start (message on stderr). */
int pictures_start(const fja_filter *f, char *const *paths, int npaths, fja_tracker *t, bool oncpu);
/* After fja_tracker_finish (closes the Chrome trace). -1 if it failed. */
int pictures_finish(void);
/* Whether a picture asked for draws the decomposition trees (subtree
 * diagrams, alone or in the HTML report): those need every task's record. */
bool pictures_need_tasks(void);
/* Draws every picture asked for from r (its task records taken:
 * fja_report_take_tasks) and the collector; -1 if one could not be
 * written. */
int pictures_render(const fja_report *r);
void pictures_free(void);

#endif
