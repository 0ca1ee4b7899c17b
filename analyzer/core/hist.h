/* Log-linear histograms of nanosecond durations, for percentiles over
 * millions of samples in constant memory. Values below 2*FJA_HIST_SUB are kept
 * exactly; above, each power of two is split into FJA_HIST_SUB buckets, so a
 * reported percentile is the lower bound of its bucket, within 1/FJA_HIST_SUB
 * (1.6%) of the true value. */
#ifndef FJA_HIST_H
#define FJA_HIST_H

#include <stdint.h>

#define FJA_HIST_SUB_BITS 6
#define FJA_HIST_SUB (1u << FJA_HIST_SUB_BITS)
#define FJA_HIST_BUCKETS ((64 - FJA_HIST_SUB_BITS + 1) * FJA_HIST_SUB)

typedef struct {
    uint64_t count;
    uint64_t sum;
    uint64_t min, max;
    uint64_t *bins; /* FJA_HIST_BUCKETS counters, allocated on first add */
} fja_hist;

void fja_hist_init(fja_hist *h);
void fja_hist_free(fja_hist *h);
/* Returns 0, or -1 when out of memory (the sample is then only counted in
 * count/sum/min/max). */
int fja_hist_add(fja_hist *h, uint64_t v);
/* Adds every sample of from to into. Returns 0, -1 when out of memory
 * (into then keeps only the counts, sum, min and max). */
int fja_hist_merge(fja_hist *into, const fja_hist *from);
/* Nearest-rank percentile, p in [0,100]. 0 for an empty histogram. */
uint64_t fja_hist_percentile(const fja_hist *h, double p);
/* Power-of-two bucket counts, for text histograms: out[k] counts values v
 * with 2^k <= v < 2^(k+1) (out[0] also holds 0). */
void fja_hist_log2(const fja_hist *h, uint64_t out[64]);

/* Exact nearest-rank percentile of n values; sorts v in place. */
uint64_t fja_percentile_exact(uint64_t *v, uint64_t n, double p);

#endif
