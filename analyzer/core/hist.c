#include "hist.h"

#include <math.h>
#include <stdlib.h>

void fja_hist_init(fja_hist *h)
{
    *h = (fja_hist){.min = UINT64_MAX};
}

void fja_hist_free(fja_hist *h)
{
    free(h->bins);
    h->bins = NULL;
}

static unsigned bucket_of(uint64_t v)
{
    if (v < 2 * FJA_HIST_SUB) return (unsigned)v;
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);
    unsigned shift = msb - FJA_HIST_SUB_BITS;
    /* Bucket index: exponent group, then the FJA_HIST_SUB_BITS bits below the
     * leading one. Group 1 starts right after the exact range. */
    return (shift + 1) * FJA_HIST_SUB + (unsigned)((v >> shift) & (FJA_HIST_SUB - 1));
}

static uint64_t bucket_low(unsigned b)
{
    if (b < 2 * FJA_HIST_SUB) return b;
    unsigned shift = b / FJA_HIST_SUB - 1;
    return ((uint64_t)(FJA_HIST_SUB + b % FJA_HIST_SUB)) << shift;
}

int fja_hist_add(fja_hist *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    if (!h->bins) {
        h->bins = calloc(FJA_HIST_BUCKETS, sizeof *h->bins);
        if (!h->bins) return -1;
    }
    h->bins[bucket_of(v)]++;
    return 0;
}

static uint64_t rank_of(uint64_t n, double p)
{
    /* Nearest rank: the smallest value with at least p% of samples <= it. */
    double r = ceil(p / 100.0 * (double)n);
    if (r < 1) r = 1;
    if (r > (double)n) r = (double)n;
    return (uint64_t)r;
}

int fja_hist_merge(fja_hist *into, const fja_hist *from)
{
    if (!from->count) return 0;
    if (!into->bins && from->bins) {
        into->bins = calloc(FJA_HIST_BUCKETS, sizeof *into->bins);
        if (!into->bins) return -1;
    }
    into->count += from->count;
    into->sum += from->sum;
    if (from->min < into->min) into->min = from->min;
    if (from->max > into->max) into->max = from->max;
    if (from->bins)
        for (unsigned b = 0; b < FJA_HIST_BUCKETS; b++)
            into->bins[b] += from->bins[b];
    return 0;
}

uint64_t fja_hist_percentile(const fja_hist *h, double p)
{
    if (h->count == 0 || !h->bins) return 0;
    if (p >= 100.0) return h->max;
    uint64_t rank = rank_of(h->count, p), seen = 0;
    for (unsigned b = 0; b < FJA_HIST_BUCKETS; b++) {
        seen += h->bins[b];
        if (seen >= rank) {
            uint64_t low = bucket_low(b);
            return low < h->min ? h->min : low;
        }
    }
    return h->max;
}

void fja_hist_log2(const fja_hist *h, uint64_t out[64])
{
    for (int k = 0; k < 64; k++)
        out[k] = 0;
    if (!h->bins) return;
    for (unsigned b = 0; b < FJA_HIST_BUCKETS; b++) {
        if (!h->bins[b]) continue;
        uint64_t low = bucket_low(b);
        int k = low ? 63 - __builtin_clzll(low) : 0;
        out[k] += h->bins[b];
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

uint64_t fja_percentile_exact(uint64_t *v, uint64_t n, double p)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    return v[rank_of(n, p) - 1];
}
