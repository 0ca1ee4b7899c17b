/* Creation sites: where each task was forked or submitted (the `site` of
 * its fork/submit event, a return address in the program), counted per
 * pool while the model is built, then summed up per site for the report.
 * The core never resolves addresses itself: the caller passes a resolver
 * (fjtrace-analyze uses analyzer/symbols and libdw) that names them.
 * Definitions: docs/analyses.md, "Creation sites". */
#ifndef FJA_SITES_H
#define FJA_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

/* Per site, as events arrive. */
typedef struct {
    uint64_t site; /* the recorded return address (0: none recorded) */
    uint64_t forks, submits, steals, executed;
    uint64_t self_ns; /* summed over its executed tasks */
    uint32_t depth_min, depth_max;
    fja_hist self;
} fja_site_stats;

/* Site index of each task record: kept beside the 64-byte records (2
 * bytes a task) rather than in them. Index FJA_SITE_OTHER gathers the
 * sites beyond the first 65535 of a pool. */
#define FJA_SITE_OTHER UINT16_MAX
typedef struct {
    fja_site_stats *v;
    uint32_t n, cap;
    uint32_t *index; /* open addressing on the address: entry = v index + 1 */
    uint32_t index_cap;
    uint16_t **of_task; /* chunks of 65536 record numbers */
    uint32_t nchunks;
    bool any_site; /* some event carried a non-zero site */
} fja_sites;

void fja_sites_init(fja_sites *s);
void fja_sites_free(fja_sites *s);
/* Task record rec was created by a fork (forked) or a submit at site.
 * Returns 0, -1 when out of memory (the task then counts nowhere). */
int fja_sites_on_task(fja_sites *s, uint32_t rec, uint64_t site, bool forked);
/* Its body finished with this self time, at this depth. */
void fja_sites_on_executed(fja_sites *s, uint32_t rec, uint64_t self_ns, uint32_t depth);
void fja_sites_on_steal(fja_sites *s, uint32_t rec);
size_t fja_sites_bytes(const fja_sites *s);
/* The recorded site of task record rec, 0 when it has none. */
uint64_t fja_sites_address(const fja_sites *s, uint32_t rec);

/* A site's place in the program, as the resolver found it. The strings
 * must outlive the report; NULL when unknown. */
typedef struct {
    const char *binary, *function, *file;
    uint32_t line;
    uint64_t offset;    /* in the binary (addr2line's address); valid when binary is set */
    const char *status; /* how far it was resolved ("line", "symbol", "offset", ...) */
} fja_site_where;

/* Names the site recorded in process pid (-1: unknown). Returns 0, or -1
 * when it cannot (out of memory): the site is then shown as an address. */
typedef int (*fja_site_resolver)(void *ctx, int64_t pid, uint64_t site, fja_site_where *out);

/* "fib.c:23 (fib_split)", "fj-fib+0x1c0f", or "0x5559ebf10c10": where a
 * site is, in the fewest words its resolution allows. */
const char *fja_site_where_label(char *buf, size_t n, uint64_t site, const fja_site_where *w);

#endif
