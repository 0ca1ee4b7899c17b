/*
 * What the OpenMP samples share: their command-line helpers. They are built
 * by clang and by gcc outside the project's libraries (samples/omp/
 * meson.build), so they cannot use samples/common.c, which needs libfj.
 */
#ifndef OMP_SAMPLE_H
#define OMP_SAMPLE_H

/* The name it was run as (omp-fib, or its gcc twin omp-fib-gcc). */
const char *omp_sample_name(const char *argv0);

/* A whole decimal number within [min, max] into *out: 0, else -1. */
int omp_sample_parse_long(const char *s, long min, long max, long *out);

#endif
