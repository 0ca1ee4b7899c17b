/* Creation-site counting while the model is built (sites.h). */
#include "sites.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_BITS 16
#define CHUNK (1u << CHUNK_BITS)

void fja_sites_init(fja_sites *s)
{
    *s = (fja_sites){0};
}

void fja_sites_free(fja_sites *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        fja_hist_free(&s->v[i].self);
    free(s->v);
    free(s->index);
    for (uint32_t i = 0; i < s->nchunks; i++)
        free(s->of_task[i]);
    free(s->of_task);
    *s = (fja_sites){0};
}

static uint32_t hash_slot(uint64_t site, uint32_t mask)
{
    return (uint32_t)((site * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static int index_grow(fja_sites *s)
{
    uint32_t cap = s->index_cap ? 2 * s->index_cap : 64;
    uint32_t *ix = calloc(cap, sizeof *ix);
    if (!ix) return -1;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t h = hash_slot(s->v[i].site, cap - 1);
        while (ix[h])
            h = (h + 1) & (cap - 1);
        ix[h] = i + 1;
    }
    free(s->index);
    s->index = ix;
    s->index_cap = cap;
    return 0;
}

/* The index of site, added when new; FJA_SITE_OTHER past 65535 sites;
 * -1 when out of memory. */
static int32_t site_index(fja_sites *s, uint64_t site)
{
    if (2 * (s->n + 1) > s->index_cap && index_grow(s) != 0) return -1;
    uint32_t mask = s->index_cap - 1, h = hash_slot(site, mask);
    for (; s->index[h]; h = (h + 1) & mask)
        if (s->v[s->index[h] - 1].site == site) return (int32_t)(s->index[h] - 1);
    if (s->n >= FJA_SITE_OTHER) return FJA_SITE_OTHER - 1; /* the last one gathers the rest */
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 16;
        fja_site_stats *v = realloc(s->v, cap * sizeof *v);
        if (!v) return -1;
        s->v = v;
        s->cap = cap;
    }
    fja_site_stats *st = &s->v[s->n];
    *st = (fja_site_stats){.site = site, .depth_min = UINT32_MAX};
    fja_hist_init(&st->self);
    s->index[h] = s->n + 1;
    return (int32_t)s->n++;
}

static uint16_t *slot_of_task(fja_sites *s, uint32_t rec, bool create)
{
    uint32_t c = rec >> CHUNK_BITS;
    if (c >= s->nchunks) {
        if (!create) return NULL;
        uint16_t **a = realloc(s->of_task, (c + 1) * sizeof *a);
        if (!a) return NULL;
        for (uint32_t i = s->nchunks; i <= c; i++)
            a[i] = NULL;
        s->of_task = a;
        s->nchunks = c + 1;
    }
    if (!s->of_task[c]) {
        if (!create) return NULL;
        s->of_task[c] = malloc(CHUNK * sizeof(uint16_t));
        if (!s->of_task[c]) return NULL;
        memset(s->of_task[c], 0xff, CHUNK * sizeof(uint16_t)); /* FJA_SITE_OTHER: none */
    }
    return &s->of_task[c][rec & (CHUNK - 1)];
}

int fja_sites_on_task(fja_sites *s, uint32_t rec, uint64_t site, bool forked)
{
    int32_t i = site_index(s, site);
    uint16_t *slot = i >= 0 ? slot_of_task(s, rec, true) : NULL;
    if (!slot) return -1;
    *slot = (uint16_t)i;
    if (forked)
        s->v[i].forks++;
    else
        s->v[i].submits++;
    if (site) s->any_site = true;
    return 0;
}

/* The stats of record rec's site, NULL if it has none. */
static fja_site_stats *stats_of(fja_sites *s, uint32_t rec)
{
    uint16_t *slot = slot_of_task(s, rec, false);
    return slot && *slot < s->n ? &s->v[*slot] : NULL;
}

void fja_sites_on_executed(fja_sites *s, uint32_t rec, uint64_t self_ns, uint32_t depth)
{
    fja_site_stats *st = stats_of(s, rec);
    if (!st) return;
    st->executed++;
    st->self_ns += self_ns;
    fja_hist_add(&st->self, self_ns);
    if (depth < st->depth_min) st->depth_min = depth;
    if (depth > st->depth_max) st->depth_max = depth;
}

void fja_sites_on_steal(fja_sites *s, uint32_t rec)
{
    fja_site_stats *st = stats_of(s, rec);
    if (st) st->steals++;
}

uint64_t fja_sites_address(const fja_sites *s, uint32_t rec)
{
    uint32_t c = rec >> CHUNK_BITS;
    if (c >= s->nchunks || !s->of_task[c]) return 0;
    uint16_t i = s->of_task[c][rec & (CHUNK - 1)];
    return i < s->n ? s->v[i].site : 0;
}

size_t fja_sites_bytes(const fja_sites *s)
{
    size_t b = s->cap * sizeof *s->v + s->index_cap * sizeof *s->index;
    for (uint32_t i = 0; i < s->nchunks; i++)
        if (s->of_task[i]) b += CHUNK * sizeof(uint16_t);
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i].self.bins) b += FJA_HIST_BUCKETS * sizeof(uint64_t);
    return b;
}
