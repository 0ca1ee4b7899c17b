/* The bridge between the stages that must not know each other: load-map
 * events from the reader go to the symbols table, and the analysis core's
 * site resolver interface is answered by it (libdw). */
#ifndef FJA_RESOLVE_H
#define FJA_RESOLVE_H

#include <stdio.h>

#include "reader.h"
#include "fja.h"
#include "symbols.h"

/* fja_reader_sink.map: ctx is an fjs_table. */
void fja_resolve_map_event(void *ctx, const fja_map_event *ev);
/* fja_site_resolver: ctx is an fjs_table. */
int fja_resolve_site(void *ctx, int64_t pid, uint64_t site, fja_site_where *out);
/* The table's warnings (rebuilt, stripped, missing binaries) on out. */
void fja_resolve_warnings(const fjs_table *t, FILE *out);

#endif
