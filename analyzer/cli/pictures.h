/* The pictures as the command line sees them: pictures.c drives viz/ when
 * meson found Graphviz and cairo, pictures_none.c stands in otherwise (no
 * picture options, nothing to do). The one place the CLI knows of viz/. */
#ifndef FJA_CLI_PICTURES_H
#define FJA_CLI_PICTURES_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "fja.h"

/* Writes the help lines of the picture options (none without pictures),
 * made from viz/'s table of outputs (viz.h, fjv_outputs). */
void pictures_usage(FILE *o);
/* Their getopt_long entries, from the same table, ending with a zeroed
 * one; entry i has val i. */
const struct option *pictures_long_options(void);

/* Option i of pictures_long_options with its argument; -1 if it is bad. */
int pictures_option(int i, const char *arg);
/* After every option is parsed: warns about settings the pictures adjust
 * (a too large --max-nodes for a laid-out format). */
void pictures_options_check(void);
/* Names creation sites in the pictures with resolve (before pictures_start). */
void pictures_sites(fja_site_resolver resolve, void *ctx);
/* Called once the options are parsed: when a picture is asked for, starts
 * collecting as a listener of t. -1 when that cannot start (message on
 * stderr). */
int pictures_start(const fja_filter *f, char *const *paths, int npaths, fja_tracker *t);
/* After fja_tracker_finish (closes the Chrome trace). -1 if it failed. */
int pictures_finish(void);
/* Whether a picture asked for draws the decomposition trees (subtree
 * diagrams, alone or in the HTML report): those need every task's record. */
bool pictures_need_tasks(void);
/* Draws every picture asked for from r, the report made from m (whose
 * task records the subtree diagrams walk); -1 if one could not be written. */
int pictures_render(const fja_model *m, const fja_report *r);
void pictures_free(void);

#endif
