/* The symbols table: load maps + binaries + a cache of resolved sites
 * keyed by (process, address), and the warnings found on the way. */
#include "symbols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t pid;
    uint64_t site;
    fjs_site value;
    bool used;
} cache_slot;

struct fjs_table {
    fjs_loadmap maps;
    fjs_binary *binaries;
    /* interned strings: paths, function and file names */
    char **strings;
    size_t nstrings, cap_strings;
    /* open addressing, power-of-two size, at most half full */
    cache_slot *cache;
    size_t cache_cap, cache_used;
    char **warnings;
    size_t nwarnings, cap_warnings;
};

static const char *const status_names[FJS_STATUS_COUNT] = {
    [FJS_LINE] = "line",       [FJS_SYMBOL] = "symbol",   [FJS_OFFSET] = "offset",
    [FJS_REBUILT] = "rebuilt", [FJS_NO_FILE] = "no_file", [FJS_UNMAPPED] = "unmapped",
    [FJS_NO_SITE] = "no_site",
};

const char *fjs_status_name(fjs_status s)
{
    return (unsigned)s < FJS_STATUS_COUNT ? status_names[s] : "?";
}

fjs_table *fjs_new(void)
{
    return calloc(1, sizeof(fjs_table));
}

void fjs_free(fjs_table *t)
{
    if (!t) return;
    loadmap_free(&t->maps);
    binary_free_all(t->binaries);
    for (size_t i = 0; i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    for (size_t i = 0; i < t->nwarnings; i++)
        free(t->warnings[i]);
    free(t->warnings);
    free(t->cache);
    free(t);
}

/* A copy owned by the table (a linear search: there are few distinct
 * names, and each is interned once per cached address at most). */
static const char *intern(void *ctx, const char *s)
{
    fjs_table *t = ctx;
    for (size_t i = t->nstrings; i-- > 0;)
        if (strcmp(t->strings[i], s) == 0) return t->strings[i];
    if (t->nstrings == t->cap_strings) {
        size_t cap = t->cap_strings ? 2 * t->cap_strings : 32;
        char **a = realloc(t->strings, cap * sizeof *a);
        if (!a) return NULL;
        t->strings = a;
        t->cap_strings = cap;
    }
    char *c = strdup(s);
    if (!c) return NULL;
    t->strings[t->nstrings++] = c;
    return c;
}

static void warn(fjs_table *t, const char *line)
{
    for (size_t i = 0; i < t->nwarnings; i++)
        if (strcmp(t->warnings[i], line) == 0) return;
    if (t->nwarnings == t->cap_warnings) {
        size_t cap = t->cap_warnings ? 2 * t->cap_warnings : 8;
        char **a = realloc(t->warnings, cap * sizeof *a);
        if (!a) return;
        t->warnings = a;
        t->cap_warnings = cap;
    }
    char *c = strdup(line);
    if (c) t->warnings[t->nwarnings++] = c;
}

int fjs_map_object(fjs_table *t, int64_t pid, uint64_t baddr, uint64_t memsz, const char *path,
                   bool is_pic)
{
    if (!memsz || !path || path[0] != '/') return 0; /* [vdso] and the like */
    fjs_process *p = loadmap_process(&t->maps, pid, true);
    const char *ipath = intern(t, path);
    if (!p || !ipath) return -1;
    fjs_object o = {.baddr = baddr, .memsz = memsz, .path = ipath, .is_pic = is_pic};
    return loadmap_add(p, &o);
}

int fjs_map_build_id(fjs_table *t, int64_t pid, uint64_t baddr, const uint8_t *id, size_t len)
{
    fjs_process *p = loadmap_process(&t->maps, pid, false);
    fjs_object *o = p ? loadmap_at_base(p, baddr) : NULL;
    if (!o || len > FJS_BUILD_ID_MAX) return 0;
    memcpy(o->build_id, id, len);
    o->build_id_len = len;
    return 0;
}

int fjs_map_site_name(fjs_table *t, int64_t pid, uint64_t site, const char *function,
                      const char *file, uint32_t line)
{
    fjs_process *p = loadmap_process(&t->maps, pid, true);
    fjs_named n = {.site = site, .line = line, .function = intern(t, function ? function : "")};
    if (file && file[0]) n.file = intern(t, file);
    if (!p || !n.function || (file && file[0] && !n.file)) return -1;
    return loadmap_name(p, &n);
}

size_t fjs_processes(const fjs_table *t)
{
    return t->maps.nprocs;
}

size_t fjs_nwarnings(const fjs_table *t)
{
    return t->nwarnings;
}

const char *fjs_warning(const fjs_table *t, size_t i)
{
    return i < t->nwarnings ? t->warnings[i] : NULL;
}

/* The process's map; a trace without the vpid context (pid -1) still
 * resolves when it holds exactly one process's map. */
static const fjs_process *process_of(fjs_table *t, int64_t pid)
{
    const fjs_process *p = loadmap_process(&t->maps, pid, false);
    if (!p && pid < 0 && t->maps.nprocs == 1) p = &t->maps.procs[0];
    return p;
}

static void resolve_uncached(fjs_table *t, int64_t pid, uint64_t site, fjs_site *out)
{
    *out = (fjs_site){.status = FJS_NO_SITE};
    if (!site) return;
    uint64_t call = site - 1; /* inside the call instruction */
    const fjs_process *p = process_of(t, pid);
    const fjs_named *n = p ? loadmap_named(p, site) : NULL;
    if (n) {
        *out = (fjs_site){.function = n->function,
                          .file = n->file,
                          .line = n->line,
                          .status = n->line ? FJS_LINE : FJS_SYMBOL};
        return;
    }
    const fjs_object *o = p ? loadmap_find(p, call) : NULL;
    if (!o) {
        out->status = FJS_UNMAPPED;
        out->offset = call;
        return;
    }
    out->binary = o->path;
    fjs_binary *b = binary_get(&t->binaries, o->path);
    if (!b) {
        out->status = FJS_NO_FILE;
        return;
    }
    uint64_t vaddr = o->is_pic ? call - o->baddr + binary_first_vaddr(b) : call;
    out->offset = vaddr;
    char line[1024];
    if (binary_status(b) == FJS_NO_FILE) {
        snprintf(line, sizeof line,
                 "%s: cannot be opened (deleted or moved since the recording?): its sites are "
                 "shown as binary+offset",
                 o->path);
        warn(t, line);
        out->status = FJS_NO_FILE;
        return;
    }
    if (!binary_build_id_matches(b, o->build_id, o->build_id_len)) {
        snprintf(line, sizeof line,
                 "%s: rebuilt after the recording (its build id differs from the recorded one): "
                 "its sites are shown as binary+offset, not as source lines",
                 o->path);
        warn(t, line);
        out->status = FJS_REBUILT;
        return;
    }
    out->status = binary_lookup(b, vaddr, intern, t, &out->function, &out->file, &out->line);
    if (out->status == FJS_OFFSET) {
        snprintf(
            line, sizeof line,
            "%s: no symbols or debug information (stripped, and no separate debug file found): "
            "its sites are shown as binary+offset",
            o->path);
        warn(t, line);
    }
}

static size_t slot_of(int64_t pid, uint64_t site, size_t mask)
{
    uint64_t h = (site ^ ((uint64_t)pid * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return (size_t)(h >> 17) & mask;
}

static int cache_grow(fjs_table *t)
{
    size_t cap = t->cache_cap ? 2 * t->cache_cap : 256;
    cache_slot *c = calloc(cap, sizeof *c);
    if (!c) return -1;
    for (size_t i = 0; i < t->cache_cap; i++) {
        cache_slot *s = &t->cache[i];
        if (!s->used) continue;
        size_t j = slot_of(s->pid, s->site, cap - 1);
        while (c[j].used)
            j = (j + 1) & (cap - 1);
        c[j] = *s;
    }
    free(t->cache);
    t->cache = c;
    t->cache_cap = cap;
    return 0;
}

int fjs_resolve(fjs_table *t, int64_t pid, uint64_t site, fjs_site *out)
{
    if (2 * (t->cache_used + 1) > t->cache_cap && cache_grow(t) != 0) return -1;
    size_t mask = t->cache_cap - 1, i = slot_of(pid, site, mask);
    for (; t->cache[i].used; i = (i + 1) & mask) {
        if (t->cache[i].pid == pid && t->cache[i].site == site) {
            *out = t->cache[i].value;
            return 0;
        }
    }
    resolve_uncached(t, pid, site, out);
    t->cache[i] = (cache_slot){.pid = pid, .site = site, .value = *out, .used = true};
    t->cache_used++;
    return 0;
}
