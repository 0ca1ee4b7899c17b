/* This fjtrace-analyze was built without protobuf-c: --perfetto says so
 * and how to get it (the other functions are never reached). */
#include "perfetto.h"

fjv_pf *fjv_pf_open(const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "cannot write %s: this fjtrace-analyze was built without protobuf-c (Debian: "
             "libprotobuf-c-dev protobuf-c-compiler, then reconfigure meson); "
             "--chrome-trace FILE.json writes the JSON trace",
             path);
    return NULL;
}

int fjv_pf_close(fjv_pf *w, FILE *err)
{
    (void)w, (void)err;
    return 0;
}

void fjv_pf_abort(fjv_pf *w)
{
    (void)w;
}

void fjv_pf_lane(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker)
{
    (void)w, (void)p, (void)l, (void)worker;
}

void fjv_pf_begin(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                  const fjv_pf_slice *s)
{
    (void)w, (void)p, (void)l, (void)worker, (void)ts, (void)s;
}

void fjv_pf_end(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    (void)w, (void)p, (void)l, (void)worker, (void)ts;
}

void fjv_pf_counter(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts, int64_t v)
{
    (void)w, (void)p, (void)l, (void)worker, (void)ts, (void)v;
}

uint64_t fjv_pf_steal(fjv_pf *w, fjv_xpool *p, fjv_xlane *forker, int32_t forker_worker,
                      uint64_t fork_ts)
{
    (void)w, (void)p, (void)forker, (void)forker_worker, (void)fork_ts;
    return 0;
}

void fjv_pf_offcpu(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts,
                   const char *why)
{
    (void)w, (void)p, (void)l, (void)worker, (void)ts, (void)why;
}

void fjv_pf_oncpu(fjv_pf *w, fjv_xpool *p, fjv_xlane *l, int32_t worker, uint64_t ts)
{
    (void)w, (void)p, (void)l, (void)worker, (void)ts;
}
