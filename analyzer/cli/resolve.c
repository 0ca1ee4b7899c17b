/* See resolve.h. */
#include "resolve.h"

void fja_resolve_map_event(void *ctx, const fja_map_event *ev)
{
    fjs_table *t = ctx;
    if (ev->kind == FJA_MAP_OBJECT)
        fjs_map_object(t, ev->pid, ev->baddr, ev->memsz, ev->path, ev->is_pic != 0);
    else if (ev->kind == FJA_MAP_SITE_NAME)
        fjs_map_site_name(t, ev->pid, ev->site, ev->function, ev->file, ev->line);
    else
        fjs_map_build_id(t, ev->pid, ev->baddr, ev->build_id, ev->build_id_len);
}

int fja_resolve_site(void *ctx, int64_t pid, uint64_t site, fja_site_where *out)
{
    fjs_site s;
    if (fjs_resolve(ctx, pid, site, &s) != 0) return -1;
    *out = (fja_site_where){.binary = s.binary,
                            .function = s.function,
                            .file = s.file,
                            .line = s.line,
                            .offset = s.offset,
                            .status = fjs_status_name(s.status)};
    return 0;
}

void fja_resolve_warnings(const fjs_table *t, FILE *out)
{
    for (size_t i = 0; i < fjs_nwarnings(t); i++)
        fprintf(out, "fjtrace-analyze: warning: %s\n", fjs_warning(t, i));
}
